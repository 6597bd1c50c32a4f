package engine

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
	"github.com/radish-kv/radish/engine/slab"
)

// This file is the infrastructure every non-string type (hash, set, zset,
// list) builds on: how its value hangs off a leaf, lookup-or-create with
// WRONGTYPE, delete-when-empty, OBJECT ENCODING, Export/Import and freeing.
// Two building blocks live here too: the packed block (listpack-like) and
// the slab hash table of entry blocks.
//
// A non-string leaf stores its value in the handle form: the Handle of the
// object's root block (4 bytes) and a uvarint 0 (the length field strings
// use, unused by objects), so the leaf never changes size and setObj
// rewrites it in place. The leaf's encoding bits hold the object encoding
// (enc* below). Every block an object owns starts with a 0 byte (so the
// expiry and RANDOMKEY samplers, which draw random blocks, tell it from a
// leaf) and holds no Go pointer.

// Object encodings (the leaf's encoding bits when the type is not string).
// The numbers are stored in leaves: never renumber them.
const (
	encListpack  = 3 // packed block (hash, zset, list node); Redis "listpack"
	encHashtable = 4 // slab hash table of entry blocks; Redis "hashtable"
	encIntset    = 5 // sorted int64 array; Redis "intset"
	encSkiplist  = 6 // zset large encoding; Redis "skiplist"
	encQuicklist = 7 // list; Redis "quicklist"

	// encBlob is the encoding of an opaque record imported for a type that
	// has no objType registered (tests, or a type not implemented yet).
	encBlob = encHashtable
)

var encNames = [8]string{encListpack: "listpack", encHashtable: "hashtable", encIntset: "intset",
	encSkiplist: "skiplist", encQuicklist: "quicklist"}

// Limits are the thresholds of the compact encodings (Redis's
// *-max-listpack-* / set-max-intset-entries parameters). The server sets
// Store.Limits from its configuration; a change applies to values converted
// afterwards (as in Redis, existing values are not converted back).
type Limits struct {
	HashMaxListpackEntries int // hash-max-listpack-entries (512)
	HashMaxListpackValue   int // hash-max-listpack-value (64)
	SetMaxIntsetEntries    int // set-max-intset-entries (512)
	ZSetMaxListpackEntries int // zset-max-listpack-entries (128)
	ZSetMaxListpackValue   int // zset-max-listpack-value (64)
	ListMaxListpackSize    int // list-max-listpack-size (-2)
	ListCompressDepth      int // list-compress-depth (0)
	// HLLSparseMaxBytes (hll-sparse-max-bytes, 3000) is read by the
	// HyperLogLog commands, whose values are strings to the engine.
	HLLSparseMaxBytes    int
	StreamNodeMaxBytes   int // stream-node-max-bytes (4096)
	StreamNodeMaxEntries int // stream-node-max-entries (100)
}

// DefaultLimits returns Redis 7.0's defaults.
func DefaultLimits() Limits {
	return Limits{
		HashMaxListpackEntries: 512, HashMaxListpackValue: 64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128, ZSetMaxListpackValue: 64,
		ListMaxListpackSize: -2,
		HLLSparseMaxBytes:   3000,
		StreamNodeMaxBytes:  4096, StreamNodeMaxEntries: 100,
	}
}

// objType is what a non-string type registers (from its file's init) so
// the generic key operations can handle its values.
type objType struct {
	// free frees every block of the object rooted at x.
	free func(db *DB, enc int, x slab.Handle)
	// export appends the type's self-contained serialization to dst.
	export func(db *DB, enc int, x slab.Handle, dst []byte) []byte
	// load builds an object from a serialization; ok is false when data is
	// malformed or describes an empty value (the key is then not stored).
	load func(db *DB, data []byte) (enc int, x slab.Handle, ok bool)
	// size is the bytes of every block of the object (MEMORY USAGE); nil:
	// the root block's.
	size func(db *DB, enc int, x slab.Handle) int64
}

var objTypes [8]*objType

func registerObj(t Type, o *objType) { objTypes[t] = o }

// hasExt reports whether a value of type t with encoding enc refers to a
// block (an external string or any object).
func hasExt(t Type, enc int) bool { return t != TypeString || enc == encExt }

// freeExt frees the external value x of a leaf of type t and encoding enc.
func (db *DB) freeExt(t Type, enc int, x slab.Handle) {
	if t != TypeString {
		if o := objTypes[t]; o != nil {
			o.free(db, enc, x)
			return
		}
	}
	db.s.slab.Free(x)
}

// obj is an open object: its key's leaf and its root block. It stays valid
// until the key is deleted or setObj changes it.
type obj struct {
	h   slab.Handle // the leaf; Nil: the key is absent
	enc int
	x   slab.Handle // root block
}

func (o *obj) exists() bool { return o.h != slab.Nil }

// getObj opens key for an operation on type t: absent (o.h == Nil), or
// ErrWrongType when the key holds another type. Expired keys are deleted.
func (db *DB) getObj(key []byte, t Type, now int64) (obj, error) {
	_, h, l := db.find(key, now)
	if h == slab.Nil {
		return obj{}, nil
	}
	if leafTyp(l.flags) != t {
		return obj{}, ErrWrongType
	}
	x, _ := l.extRef()
	return obj{h: h, enc: l.enc(), x: x}, nil
}

// newObj stores a new key (which must be absent) holding object x.
func (db *DB) newObj(key []byte, t Type, enc int, x slab.Handle) obj {
	v := value{typ: t, enc: enc, ext: x}
	lh := db.newLeaf(key, 0, &v)
	db.insert(key, lh)
	db.keys++
	return obj{h: lh, enc: enc, x: x}
}

// storeObj stores object x under key replacing any value (and its TTL), as
// SINTERSTORE and friends do.
func (db *DB) storeObj(key []byte, t Type, enc int, x slab.Handle) {
	v := value{typ: t, enc: enc, ext: x}
	db.setValue(key, &v, 0)
}

// setObj points o's leaf at a new root block and encoding; the old root is
// not freed (the caller moved or freed it).
func (db *DB) setObj(o *obj, enc int, x slab.Handle) {
	if enc == o.enc && x == o.x {
		return
	}
	l := db.readLeaf(o.h)
	f := l.flags&^encMask | byte(enc)
	l.b[0] = f
	binary.LittleEndian.PutUint32(l.b[l.valOff():], uint32(x))
	o.enc, o.x = enc, x
}

// delObj deletes o's key and frees the object.
func (db *DB) delObj(key []byte, o *obj) {
	db.deleteKey(key)
	*o = obj{}
}

// objEncoding returns OBJECT ENCODING's name for a non-string leaf.
func objEncoding(t Type, enc int) string {
	if t == TypeStream {
		return "stream"
	}
	if objTypes[t] == nil {
		switch t {
		case TypeList:
			return "quicklist"
		case TypeZSet:
			return "skiplist"
		}
		return "hashtable"
	}
	return encNames[enc]
}

// exportObj serializes a non-string leaf's value into a fresh slice.
func (db *DB) exportObj(l *leaf) []byte {
	t := leafTyp(l.flags)
	x, n := l.extRef()
	if o := objTypes[t]; o != nil {
		return o.export(db, l.enc(), x, nil)
	}
	return append([]byte(nil), db.extBytes(x, n)...)
}

// importObj stores a serialized non-string value under key (replacing any
// value); a malformed or empty one deletes key.
func (db *DB) importObj(key []byte, r Record) {
	if o := objTypes[r.Type]; o != nil {
		enc, x, ok := o.load(db, r.Data)
		if !ok {
			db.deleteKey(key)
			return
		}
		if r.Raw {
			enc, x = db.largeEncoding(r.Type, enc, x)
		}
		v := value{typ: r.Type, enc: enc, ext: x}
		db.setValue(key, &v, r.ExpireAt)
		return
	}
	v := value{typ: r.Type, enc: encBlob, ext: db.newExt(r.Data, len(r.Data)), n: len(r.Data)}
	db.setValue(key, &v, r.ExpireAt)
}

// largeEncoding converts a set, hash or sorted set in a compact encoding
// to its large one, as the object it was exported from had.
func (db *DB) largeEncoding(t Type, enc int, x slab.Handle) (int, slab.Handle) {
	switch {
	case t == TypeSet && enc == encIntset:
		o := obj{enc: enc, x: x}
		db.setConvert(&o)
		return o.enc, o.x
	case t == TypeHash && enc == encListpack:
		o := obj{enc: enc, x: x}
		db.hashConvert(&o)
		return o.enc, o.x
	case t == TypeZSet && enc == encListpack:
		z := zset{db: db, enc: enc, x: x}
		z.convert()
		return z.enc, z.x
	}
	return enc, x
}

// appendStr appends a serialized string (uvarint length, bytes): the unit
// of packed blocks, entry blocks and Record serializations.
func appendStr(dst, s []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// readStr reads a serialized string at b[off:]; it returns the string
// (aliasing b) and the offset after it, or next < 0 when b is malformed.
func readStr(b []byte, off int) (s []byte, next int) {
	n, w := binary.Uvarint(b[off:])
	if w <= 0 || n > uint64(len(b)-off-w) {
		return nil, -1
	}
	o := off + w
	return b[o : o+int(n) : o+int(n)], o + int(n)
}

func strSize(n int) int { return uvarintLen(uint64(n)) + n }

// ---- packed blocks ----
//
// A packed block is Redis's listpack idea: entries back to back in one
// contiguous block, each a serialized string (uvarint length, bytes).
//
//	0       1 byte, always 0
//	count   uint32 little endian: entries
//	used    uint32 little endian: bytes of entries
//	entries
//
// Edits splice bytes in place when the block has room; otherwise the block
// moves to a bigger class (and to a smaller one when it shrinks below half).

const packHdr = 9

func (db *DB) packBytes(x slab.Handle) []byte { return db.s.slab.Bytes(x) }

func packCount(b []byte) int { return int(binary.LittleEndian.Uint32(b[1:])) }
func packUsed(b []byte) int  { return int(binary.LittleEndian.Uint32(b[5:])) }
func setPackCount(b []byte, n int) {
	binary.LittleEndian.PutUint32(b[1:], uint32(n))
}

// packEntries returns the entry bytes of a packed block (aliasing it).
func packEntries(b []byte) []byte { return b[packHdr : packHdr+packUsed(b)] }

// newPack allocates an empty packed block with room for capacity bytes of
// entries.
func (db *DB) newPack(capacity int) slab.Handle {
	x := db.s.alloc(packHdr + capacity)
	b := db.s.slab.Bytes(x)
	b[0] = 0
	binary.LittleEndian.PutUint32(b[1:], 0)
	binary.LittleEndian.PutUint32(b[5:], 0)
	return x
}

// packSplice replaces entry bytes [off, off+del) (offsets within the
// entries) with ins and adds dcount to the count. It returns the block,
// moved when it had to grow or shrank well below its size. ins must not
// alias the block.
func (db *DB) packSplice(x slab.Handle, off, del int, ins []byte, dcount int) slab.Handle {
	sl := db.s.slab
	b := sl.Bytes(x)
	used := packUsed(b)
	nu := used - del + len(ins)
	need := packHdr + nu
	if need > len(b) || (len(b) > 64 && need <= len(b)/2) {
		nx := db.s.alloc(need)
		nb := sl.Bytes(nx)
		copy(nb, b[:packHdr+off])
		copy(nb[packHdr+off:], ins)
		copy(nb[packHdr+off+len(ins):], b[packHdr+off+del:packHdr+used])
		sl.Free(x)
		x, b = nx, nb
	} else {
		copy(b[packHdr+off+len(ins):], b[packHdr+off+del:packHdr+used])
		copy(b[packHdr+off:], ins)
	}
	binary.LittleEndian.PutUint32(b[5:], uint32(nu))
	setPackCount(b, packCount(b)+dcount)
	return x
}

// ---- slab hash table ----
//
// A table block maps strings to entry blocks by open addressing (linear
// probing, backward-shift deletion, no tombstones):
//
//	0      1 byte 0, 1 byte kind (tabPlain, tabZsl), 2 bytes padding
//	count  uint32: entries
//	mask   uint32: slots-1 (slots a power of two, >= 8)
//	       uint32 unused
//	slots  8 bytes each: uint32 Handle (Nil: empty), uint32 low bits of
//	       the key's hash — probes compare these and read an entry block
//	       only on a match, and resizing never reads one
//
// An entry block starts with a 0 byte and, in a tabPlain table, its key as
// a serialized string; what follows is the type's (a hash's value; nothing
// for a set). A tabZsl table's entries are skiplist nodes (skiplist.go). The
// table keeps a load factor in (1/8, 3/4] (it halves below 1/8).

const tabHdr = 16

// Table kinds: where an entry block keeps its key.
const (
	tabPlain = 0
	tabZsl   = 1
)

func setTabKind(b []byte, k byte) { b[1] = k }

// tabKey returns the key of entry block e of table b.
func (db *DB) tabKey(b []byte, e slab.Handle) []byte {
	if b[1] == tabZsl {
		return zslMember(db.s.slab.Pointer(e))
	}
	return db.entryKey(e)
}

func tabCount(b []byte) int       { return int(binary.LittleEndian.Uint32(b[4:])) }
func tabMask(b []byte) uint32     { return binary.LittleEndian.Uint32(b[8:]) }
func setTabCount(b []byte, n int) { binary.LittleEndian.PutUint32(b[4:], uint32(n)) }
func tabSlot(b []byte, i uint32) slab.Handle {
	return slab.Handle(binary.LittleEndian.Uint32(b[tabHdr+8*i:]))
}
func tabHash(b []byte, i uint32) uint32 { return binary.LittleEndian.Uint32(b[tabHdr+8*i+4:]) }
func setTabSlot(b []byte, i uint32, h slab.Handle, hash uint32) {
	binary.LittleEndian.PutUint64(b[tabHdr+8*i:], uint64(h)|uint64(hash)<<32)
}

func strHash(s []byte) uint32 { return uint32(xxhash.Sum64(s)) }

// newTable allocates an empty table with room for n entries.
func (db *DB) newTable(n int) slab.Handle {
	slots := 8
	for slots*3 < n*4 {
		slots *= 2
	}
	x := db.s.slab.AllocZeroed(tabHdr + 8*slots)
	if x == slab.Nil {
		panic("engine: out of memory")
	}
	b := db.s.slab.Bytes(x)
	binary.LittleEndian.PutUint32(b[8:], uint32(slots-1))
	return x
}

// entryKey returns the key of entry block e (aliasing the slab).
func (db *DB) entryKey(e slab.Handle) []byte {
	b := db.s.slab.Bytes(e)
	k, _ := readStr(b, 1)
	return k
}

// tabFind returns the slot holding key, or the empty slot where it would
// go (e == Nil).
func (db *DB) tabFind(x slab.Handle, key []byte) (slot uint32, e slab.Handle) {
	b := db.s.slab.Bytes(x)
	mask := tabMask(b)
	hv := strHash(key)
	i := hv & mask
	for {
		e := tabSlot(b, i)
		if e == slab.Nil || tabHash(b, i) == hv && string(db.tabKey(b, e)) == string(key) {
			return i, e
		}
		i = (i + 1) & mask
	}
}

// tabGet returns key's entry block (Nil if absent).
func (db *DB) tabGet(x slab.Handle, key []byte) slab.Handle {
	_, e := db.tabFind(x, key)
	return e
}

// tabAdd inserts entry e, whose key must be absent, and returns the table
// (moved when it grew).
func (db *DB) tabAdd(x slab.Handle, e slab.Handle) slab.Handle {
	b := db.s.slab.Bytes(x)
	n := tabCount(b) + 1
	if uint32(n)*4 > (tabMask(b)+1)*3 {
		x = db.tabResize(x, n)
		b = db.s.slab.Bytes(x)
	}
	mask := tabMask(b)
	hv := strHash(db.tabKey(b, e))
	i := hv & mask
	for tabSlot(b, i) != slab.Nil {
		i = (i + 1) & mask
	}
	setTabSlot(b, i, e, hv)
	setTabCount(b, n)
	return x
}

// tabResize rehashes into a table sized for n entries.
func (db *DB) tabResize(x slab.Handle, n int) slab.Handle {
	nx := db.newTable(n * 2)
	ob := db.s.slab.Bytes(x)
	nb := db.s.slab.Bytes(nx)
	setTabKind(nb, ob[1])
	nmask := tabMask(nb)
	for i := uint32(0); i <= tabMask(ob); i++ {
		e := tabSlot(ob, i)
		if e == slab.Nil {
			continue
		}
		hv := tabHash(ob, i)
		j := hv & nmask
		for tabSlot(nb, j) != slab.Nil {
			j = (j + 1) & nmask
		}
		setTabSlot(nb, j, e, hv)
	}
	setTabCount(nb, tabCount(ob))
	db.s.slab.Free(x)
	return nx
}

// tabDel removes the entry in slot (not freeing the entry block) and
// returns the table (moved when it shrank).
func (db *DB) tabDel(x slab.Handle, slot uint32) slab.Handle {
	b := db.s.slab.Bytes(x)
	mask := tabMask(b)
	i := slot
	setTabSlot(b, i, slab.Nil, 0)
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		e := tabSlot(b, j)
		if e == slab.Nil {
			break
		}
		hv := tabHash(b, j)
		k := hv & mask
		// Move e back to i unless its home lies cyclically in (i, j].
		if (j > i && (k <= i || k > j)) || (j < i && k <= i && k > j) {
			setTabSlot(b, i, e, hv)
			setTabSlot(b, j, slab.Nil, 0)
			i = j
		}
	}
	n := tabCount(b) - 1
	setTabCount(b, n)
	if mask > 7 && uint32(n)*8 < mask+1 {
		x = db.tabResize(x, n)
	}
	return x
}

// tabFree frees the table and every entry block.
func (db *DB) tabFree(x slab.Handle) {
	b := db.s.slab.Bytes(x)
	for i := uint32(0); i <= tabMask(b); i++ {
		if e := tabSlot(b, i); e != slab.Nil {
			db.s.slab.Free(e)
		}
	}
	db.s.slab.Free(x)
}

// tabEach calls fn for every entry block until it returns false.
func (db *DB) tabEach(x slab.Handle, fn func(e slab.Handle) bool) {
	b := db.s.slab.Bytes(x)
	for i := uint32(0); i <= tabMask(b); i++ {
		if e := tabSlot(b, i); e != slab.Nil && !fn(e) {
			return
		}
	}
}

// tabRandom returns a random entry block of a non-empty table.
func (db *DB) tabRandom(x slab.Handle) slab.Handle {
	b := db.s.slab.Bytes(x)
	mask := tabMask(b)
	for {
		if e := tabSlot(b, uint32(db.s.random())&mask); e != slab.Nil {
			return e
		}
	}
}

// tabScan visits the entries whose home slot is the cursor's bucket, and
// the following buckets, until about count entries were visited; it returns
// the next cursor (0: done). Buckets go in reverse-binary order, as Redis's
// dictScan, so a full scan returns every entry present throughout at least
// once even if the table is resized between calls.
func (db *DB) tabScan(x slab.Handle, cursor uint64, count int, fn func(e slab.Handle)) uint64 {
	b := db.s.slab.Bytes(x)
	mask := uint64(tabMask(b))
	v := cursor
	visited := 0
	for {
		home := uint32(v & mask)
		for i := home; ; i = (i + 1) & uint32(mask) {
			e := tabSlot(b, i)
			if e == slab.Nil {
				break
			}
			if tabHash(b, i)&uint32(mask) == home {
				fn(e)
				visited++
			}
		}
		// Increment the reversed cursor over the mask's bits.
		v |= ^mask
		v = reverseBits(v)
		v++
		v = reverseBits(v)
		if v&mask == 0 || visited >= count {
			if v&mask == 0 {
				return 0
			}
			return v & mask
		}
	}
}

func reverseBits(v uint64) uint64 {
	v = (v>>1)&0x5555555555555555 | (v&0x5555555555555555)<<1
	v = (v>>2)&0x3333333333333333 | (v&0x3333333333333333)<<2
	v = (v>>4)&0x0F0F0F0F0F0F0F0F | (v&0x0F0F0F0F0F0F0F0F)<<4
	v = (v>>8)&0x00FF00FF00FF00FF | (v&0x00FF00FF00FF00FF)<<8
	v = (v>>16)&0x0000FFFF0000FFFF | (v&0x0000FFFF0000FFFF)<<16
	return v>>32 | v<<32
}

// newEntry allocates an entry block: key, then rest (already serialized).
func (db *DB) newEntry(key []byte, rest ...[]byte) slab.Handle {
	n := 1 + strSize(len(key))
	for _, r := range rest {
		n += strSize(len(r))
	}
	e := db.s.alloc(n)
	b := db.s.slab.Bytes(e)
	b[0] = 0
	o := 1 + binary.PutUvarint(b[1:], uint64(len(key)))
	o += copy(b[o:], key)
	for _, r := range rest {
		o += binary.PutUvarint(b[o:], uint64(len(r)))
		o += copy(b[o:], r)
	}
	return e
}

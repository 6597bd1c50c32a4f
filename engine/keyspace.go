package engine

import (
	"encoding/binary"
	"math"

	"github.com/radish-kv/radish/engine/slab"
)

// Delete removes key; it reports whether a live key was removed (an expired
// one is deleted too but reported absent, as DEL does).
func (db *DB) Delete(key []byte, now int64) bool {
	_, h, _ := db.peek(key, now)
	if h == slab.Nil {
		return false
	}
	db.changed(key, 1)
	return db.deleteKey(key)
}

// Exists reports whether key is present and not expired.
func (db *DB) Exists(key []byte, now int64) bool {
	_, h, _ := db.peek(key, now)
	return h != slab.Nil
}

// TypeOf returns key's type (TypeNone if absent).
func (db *DB) TypeOf(key []byte, now int64) Type {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return TypeNone
	}
	return leafTyp(l.flags)
}

// Expiry returns key's absolute expiry in unix ms (0: no TTL).
func (db *DB) Expiry(key []byte, now int64) (expireAt int64, found bool) {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return 0, false
	}
	return l.expireAt(), true
}

// SetExpiry sets key's absolute expiry. It returns false if key is absent;
// expireAt <= now deletes the key (and returns true), as EXPIRE does.
func (db *DB) SetExpiry(key []byte, expireAt int64, now int64) bool {
	ref, h, l := db.find(key, now)
	if h == slab.Nil {
		return false
	}
	db.changed(key, 1)
	if expireAt <= now {
		db.deleteKey(key)
		return true
	}
	v := valueOf(&l)
	db.replaceLeaf(ref, h, &l, key, expireAt, &v)
	return true
}

// Persist removes key's TTL; it reports whether there was one.
func (db *DB) Persist(key []byte, now int64) bool {
	ref, h, l := db.find(key, now)
	if h == slab.Nil || !l.hasTTL() {
		return false
	}
	v := valueOf(&l)
	db.replaceLeaf(ref, h, &l, key, 0, &v)
	db.changed(key, 1)
	return true
}

// Rename moves src's value and TTL to dst, replacing dst. It returns false
// if src is absent. src == dst is a no-op that returns true.
func (db *DB) Rename(src, dst []byte, now int64) bool {
	_, h, l := db.find(src, now)
	if h == slab.Nil {
		return false
	}
	if string(src) == string(dst) {
		return true
	}
	db.changed(src, 1)
	db.wrote(dst)
	// The new leaf takes src's value (an external block changes owner).
	v := valueOf(&l)
	exp := l.expireAt()
	nh := db.newLeaf(dst, exp, &v)
	copyClock(db.s.slab.Bytes(nh), l.b) // the value keeps its access clock
	db.remove(src, slab.Nil)
	db.freeLeafBlock(h, exp != 0)
	db.keys--
	if exp != 0 {
		db.expires--
	}
	ref, oh := db.lookup(dst)
	if oh != slab.Nil {
		if db.readLeaf(oh).hasTTL() {
			db.expires--
		}
		*ref = nh
		db.freeLeaf(oh)
	} else {
		db.insert(dst, nh)
		db.keys++
	}
	if exp != 0 {
		db.expires++
	}
	return true
}

// Flush deletes every key of this database (FLUSHDB). When no other
// database holds keys the whole slab is reset, returning its memory.
func (db *DB) Flush() {
	db.s.dirty += uint64(db.keys) + 1 // always a change, as FLUSHDB always propagates
	others := false
	for _, o := range db.s.dbs {
		if o != db && o.root != slab.Nil {
			others = true
			break
		}
	}
	if !others {
		db.s.reset()
		return
	}
	db.freeTree(db.root)
	db.contents = contents{}
}

// RandomKey returns a random live key. The slice is borrowed: valid until
// the next call on any DB of the same Store. It samples leaves through the
// slab (classes weighted by their key counts); a sample in another database
// or expired is retried, and after a bounded number of misses it descends
// this database's tree at random instead.
func (db *DB) RandomKey(now int64) ([]byte, bool) {
	db.s.seen(now)
	for tries := 0; db.keys > 0 && tries < 64; tries++ {
		h, ok := db.s.pickLeaf(false)
		if !ok {
			break
		}
		k, _, live, mine := db.checkSample(h, now)
		if mine && live {
			return k, true
		}
	}
	for tries := 0; db.keys > 0 && tries < 64; tries++ {
		h := db.randomDescent()
		l := db.readLeaf(h)
		if !l.expired(now) {
			return l.key, true
		}
		db.expireKey(l.key)
	}
	// Nearly everything is expired: take the first live key in order.
	var out []byte
	db.Keys([]byte("*"), now, func(k []byte) bool {
		out = k
		return false
	})
	return out, out != nil
}

// checkSample reports whether leaf h belongs to db, and whether it is
// live, with its expiry time (0: none); an expired leaf of db is deleted.
func (db *DB) checkSample(h slab.Handle, now int64) (key []byte, exp int64, live, mine bool) {
	l := db.readLeaf(h)
	if _, lh := db.lookup(l.key); lh != h {
		return nil, 0, false, false
	}
	if l.expired(now) {
		db.expireKey(l.key)
		return nil, 0, false, true
	}
	return l.key, l.expireAt(), true, true
}

// pickLeaf returns a random leaf (of any database), or with ttl a random
// leaf that carries a TTL.
func (s *Store) pickLeaf(ttl bool) (slab.Handle, bool) {
	counts := &s.leaves
	if ttl {
		counts = &s.ttl
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return slab.Nil, false
	}
	for tries := 0; tries < 16; tries++ {
		r := int(s.random() % uint64(total))
		c := 0
		for ; c < len(counts); c++ {
			if r < counts[c] {
				break
			}
			r -= counts[c]
		}
		var h slab.Handle
		var ok bool
		if ttl {
			h, ok = s.slab.RandomTagged(c, s.random())
		} else {
			h, ok = s.slab.RandomOccupied(c, s.random())
		}
		// Other blocks (nodes, external values) share the classes of leaves.
		if ok && isLeaf(s.slab.Pointer(h)) {
			return h, true
		}
	}
	return slab.Nil, false
}

// randomDescent walks from the root taking a random entry at each node.
func (db *DB) randomDescent() slab.Handle {
	h := db.root
	for {
		p := db.ptr(h)
		if isLeaf(p) {
			return h
		}
		hd := hdrOf(p)
		n := int(hd.count)
		if hd.end != slab.Nil {
			n++
		}
		r := int(db.s.random() % uint64(n))
		if hd.end != slab.Nil {
			if r == 0 {
				h = hd.end
				continue
			}
			r--
		}
		forEachChild(p, func(_ byte, ch slab.Handle) bool {
			if r == 0 {
				h = ch
				return false
			}
			r--
			return true
		})
	}
}

// ActiveExpire samples up to samples keys that carry a TTL (any database)
// and deletes the expired ones; it returns how many it sampled and deleted.
// The caller repeats it while the expired share stays high (as Redis's
// activeExpireCycle does) within its time budget.
func (s *Store) ActiveExpire(now int64, samples int) (sampled, expired int) {
	s.seen(now)
	for ; sampled < samples; sampled++ {
		h, ok := s.pickLeaf(true)
		if !ok {
			break
		}
		for _, db := range s.dbs {
			if db.expires == 0 {
				continue
			}
			if _, exp, live, mine := db.checkSample(h, now); mine {
				if !live {
					expired++
				} else if exp > now {
					db.ttlSum += exp - now
					db.ttlN++
				}
				break
			}
		}
	}
	return sampled, expired
}

// Record is one key's value in a self-contained form (RENAME, COPY and MOVE
// across shards). For strings Data is the value; for other types it is the
// type's own serialization. Raw and Text carry the encoding, which Redis
// keeps when it moves the object: Raw for a string built in place (APPEND,
// SETRANGE) and for a set, hash or sorted set in its large encoding
// (hashtable, skiplist: Redis never converts back), Text for a string never
// stored as an integer (INCRBYFLOAT's result); neither: the encoding a
// fresh value of these contents would get.
type Record struct {
	Type      Type
	Data      []byte
	ExpireAt  int64
	Raw, Text bool
}

// RecordBuilder writes a collection Record element by element, in the
// layout Elements reads: the count, then each element as (uvarint length,
// bytes), a hash field followed by its value, a sorted-set member by its
// score. The count is written last into a gap left before the elements, so
// nothing is copied twice. Its checks are the caller's: it adds what it is
// given.
type RecordBuilder struct {
	typ  Type
	data []byte
	n    int
}

// recordGap is the room left for the count.
const recordGap = binary.MaxVarintLen64

// Start begins a record of type t.
func (b *RecordBuilder) Start(t Type) {
	b.typ, b.n = t, 0
	b.data = make([]byte, recordGap, recordGap+64)
}

// Add appends an element: a list's or set's member, a hash's field, a
// sorted set's member.
func (b *RecordBuilder) Add(s []byte) {
	b.data = appendStr(b.data, s)
	b.n++
}

// Value appends the value of the hash field added last.
func (b *RecordBuilder) Value(s []byte) { b.data = appendStr(b.data, s) }

// Score appends the score of the sorted-set member added last.
func (b *RecordBuilder) Score(f float64) {
	b.data = binary.LittleEndian.AppendUint64(b.data, math.Float64bits(f))
}

// Len returns the number of elements added.
func (b *RecordBuilder) Len() int { return b.n }

// Record returns the record built; the builder must be started again.
func (b *RecordBuilder) Record() Record {
	var c [recordGap]byte
	k := binary.PutUvarint(c[:], uint64(b.n))
	copy(b.data[recordGap-k:], c[:k])
	r := Record{Type: b.typ, Data: b.data[recordGap-k:]}
	b.data = nil
	return r
}

// Elements returns the number of elements of a collection record (a list's
// or set's members, a hash's fields, a sorted set's members) and, when fn is
// not nil, calls it for each in order: a hash field's value in val, a sorted
// set member's score in score. A string record has none. The slices are
// borrowed from r.Data.
func (r Record) Elements(fn func(member, val []byte, score float64)) int {
	if r.Type == TypeString || len(r.Data) == 0 {
		return 0
	}
	n, o := binary.Uvarint(r.Data)
	if o <= 0 {
		return 0
	}
	if fn == nil {
		return int(n)
	}
	for i := uint64(0); i < n && o >= 0; i++ {
		var m, v []byte
		var sc float64
		m, o = readStr(r.Data, o)
		switch {
		case o < 0:
			return int(i)
		case r.Type == TypeHash:
			v, o = readStr(r.Data, o)
		case r.Type == TypeZSet:
			if o+8 > len(r.Data) {
				return int(i)
			}
			sc = math.Float64frombits(binary.LittleEndian.Uint64(r.Data[o:]))
			o += 8
		}
		if o >= 0 {
			fn(m, v, sc)
		}
	}
	return int(n)
}

// Export returns a copy of key's value; Record.Data is a fresh heap slice.
func (db *DB) Export(key []byte, now int64) (Record, bool) {
	_, h, l := db.find(key, now)
	if h == slab.Nil {
		return Record{}, false
	}
	r := Record{Type: leafTyp(l.flags), ExpireAt: l.expireAt()}
	if r.Type != TypeString {
		r.Data = db.exportObj(&l)
		r.Raw = l.enc() == encHashtable || l.enc() == encSkiplist
	} else {
		r.Data = append([]byte{}, db.stringBytes(&l)...)
		r.Raw, r.Text = l.enc() == encRaw, l.enc() == encEmbstr
	}
	return r, true
}

// ExportAppend is Export for a snapshot: it changes nothing (no access
// clock is touched, an expired key is reported absent but not deleted), so
// it may run inside BeforeEvict, and allocates nothing: the value is
// appended to dst, and the Record's Data is the appended part. idle (LRU
// seconds) and freq (the LFU counter) read the key's access clock.
func (db *DB) ExportAppend(dst, key []byte, now int64) (r Record, idle int64, freq int, out []byte, ok bool) {
	_, h := db.lookup(key)
	if h == slab.Nil {
		return Record{}, 0, 0, dst, false
	}
	if l := db.readLeaf(h); l.expired(now) {
		return Record{}, 0, 0, dst, false
	}
	r, idle, freq, out = db.exportLeaf(h, dst)
	return r, idle, freq, out, true
}

// Import stores r under key, replacing any value. r.Data is copied.
func (db *DB) Import(key []byte, r Record) {
	db.changed(key, 1)
	if r.Type != TypeString {
		db.importObj(key, r)
		return
	}
	var v value
	switch {
	case r.Raw:
		v = db.rawValue(r.Data, len(r.Data))
	case r.Text:
		v = db.textValue(r.Data)
	default:
		v = db.stringValue(r.Data)
	}
	db.setValue(key, &v, r.ExpireAt)
}

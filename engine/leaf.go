package engine

import (
	"encoding/binary"
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
)

// Leaf layout (one slab block per key, byte-packed):
//
//	flags  1 byte   bit 7: always 1 (a leaf; node kinds are < 0x80)
//	                bit 6: the key has a TTL (and the block is tagged)
//	                bits 3-5: Type
//	                bits 0-2: encoding (enc*)
//	klen   uvarint
//	key    klen bytes
//	expire 8 bytes little endian, only when bit 6 is set (unix ms)
//	value  by encoding:
//	         encInt:             zigzag uvarint
//	         encEmbstr, encRaw:  uvarint length, bytes
//	         encExt:             Handle (4 bytes), uvarint length
//	         other types:        Handle (4 bytes), uvarint 0 (object.go)
//
// The last clockBytes (3) bytes of the block, whatever its size, are the
// access clock (LRU clock or LFU counter, evict.go); leafSize counts them,
// so the encoded fields above never reach them.
//
// An external value block (encExt strings) holds a 0 byte and then the
// value bytes; the 0 tells it apart from leaves and nodes when the slab
// hands out a random block. Every block of a non-string value starts with 0
// too.
const (
	leafBit   = 0x80
	ttlBit    = 0x40
	typeShift = 3
	encMask   = 7

	encInt    = 0 // canonical int64 string
	encEmbstr = 1 // inline, as SET writes it
	encRaw    = 2 // inline, after APPEND (OBJECT ENCODING says "raw")
	encExt    = 3 // string in its own block
	// Other types use the handle form with their own encodings (object.go).

	// maxInline is the largest inline value: bigger ones get their own block
	// so that a leaf stays within a few cache lines.
	maxInline = 256
	// embstrMax is Redis's OBJECT ENCODING boundary for strings set whole.
	embstrMax = 44
)

// leaf is a decoded view of a leaf block. Slices alias slab memory.
type leaf struct {
	flags byte
	key   []byte
	off   int // offset of the expire field (or of the value if no TTL)
	b     []byte
}

func leafTyp(flags byte) Type { return Type(flags >> typeShift & 7) }

// leafKey returns the key of the leaf at p (aliasing slab memory).
func leafKey(p unsafe.Pointer) []byte {
	b := (*[1 << 30]byte)(p)
	if n := b[1]; n < 0x80 {
		return b[2 : 2+int(n) : 2+int(n)]
	}
	n, w := binary.Uvarint(b[1:11])
	return b[1+w : 1+w+int(n) : 1+w+int(n)]
}

func (db *DB) readLeaf(h slab.Handle) leaf {
	b := db.s.slab.Bytes(h)
	if n := b[1]; n < 0x80 {
		return leaf{flags: b[0], key: b[2 : 2+int(n) : 2+int(n)], off: 2 + int(n), b: b}
	}
	n, w := binary.Uvarint(b[1:11])
	o := 1 + w + int(n)
	return leaf{flags: b[0], key: b[1+w : o : o], off: o, b: b}
}

func (l leaf) hasTTL() bool { return l.flags&ttlBit != 0 }

func (l *leaf) expireAt() int64 {
	if !l.hasTTL() {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(l.b[l.off:]))
}

func (l *leaf) valOff() int {
	if l.hasTTL() {
		return l.off + 8
	}
	return l.off
}

func (l *leaf) enc() int { return int(l.flags & encMask) }

// intVal decodes an encInt value.
func (l *leaf) intVal() int64 {
	u, _ := binary.Uvarint(l.b[l.valOff():])
	return int64(u>>1) ^ -int64(u&1)
}

// inlineVal returns an inline string value.
func (l *leaf) inlineVal() []byte {
	o := l.valOff()
	n, w := binary.Uvarint(l.b[o:])
	return l.b[o+w : o+w+int(n) : o+w+int(n)]
}

// extRef returns an external value's block and length.
func (l *leaf) extRef() (slab.Handle, int) {
	o := l.valOff()
	h := slab.Handle(binary.LittleEndian.Uint32(l.b[o:]))
	n, _ := binary.Uvarint(l.b[o+4:])
	return h, int(n)
}

func (l *leaf) expired(now int64) bool {
	return l.hasTTL() && int64(binary.LittleEndian.Uint64(l.b[l.off:])) <= now
}

// value describes a value to be written into a leaf.
type value struct {
	typ Type
	enc int
	i   int64       // encInt
	b   []byte      // encEmbstr, encRaw
	ext slab.Handle // encExt, encBlob
	n   int         // encExt, encBlob length
}

func zigzag(i int64) uint64 { return uint64(i<<1) ^ uint64(i>>63) }

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func (v *value) size() int {
	switch v.enc {
	case encInt:
		return uvarintLen(zigzag(v.i))
	case encEmbstr, encRaw:
		return uvarintLen(uint64(len(v.b))) + len(v.b)
	default:
		return 4 + uvarintLen(uint64(v.n))
	}
}

func leafSize(klen int, ttl bool, v *value) int {
	n := 1 + uvarintLen(uint64(klen)) + klen + v.size() + clockBytes
	if ttl {
		n += 8
	}
	return n
}

// writeLeaf fills b (big enough) with a leaf; it returns the flags byte.
// key may alias b only at the position it is written to.
func writeLeaf(b []byte, key []byte, expireAt int64, v *value) {
	f := byte(leafBit) | byte(v.typ)<<typeShift | byte(v.enc)
	if expireAt != 0 {
		f |= ttlBit
	}
	b[0] = f
	o := 1 + binary.PutUvarint(b[1:], uint64(len(key)))
	o += copy(b[o:], key)
	if expireAt != 0 {
		binary.LittleEndian.PutUint64(b[o:], uint64(expireAt))
		o += 8
	}
	writeValue(b[o:], v)
}

func writeValue(b []byte, v *value) {
	switch v.enc {
	case encInt:
		binary.PutUvarint(b, zigzag(v.i))
	case encEmbstr, encRaw:
		o := binary.PutUvarint(b, uint64(len(v.b)))
		copy(b[o:], v.b)
	default:
		binary.LittleEndian.PutUint32(b, uint32(v.ext))
		binary.PutUvarint(b[4:], uint64(v.n))
	}
}

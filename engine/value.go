package engine

import (
	"encoding/binary"

	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/num"
)

func (s *Store) alloc(size int) slab.Handle {
	h := s.slab.Alloc(size)
	if h == slab.Nil {
		panic("engine: out of memory")
	}
	return h
}

// newLeaf allocates and fills a leaf (and counts it); it does not link it.
func (db *DB) newLeaf(key []byte, expireAt int64, v *value) slab.Handle {
	s := db.s
	h := s.alloc(leafSize(len(key), expireAt != 0, v))
	b := s.slab.Bytes(h)
	writeLeaf(b, key, expireAt, v)
	putClock(b, s.freshClock())
	c := slab.HandleClass(h)
	s.leaves[c]++
	if expireAt != 0 {
		s.slab.Tag(h)
		s.ttl[c]++
		s.wheelFile(h, expireAt)
	}
	return h
}

// freeLeafBlock frees the leaf block h but not its external value.
func (db *DB) freeLeafBlock(h slab.Handle, ttl bool) {
	s := db.s
	c := slab.HandleClass(h)
	s.leaves[c]--
	if ttl {
		s.ttl[c]--
	}
	s.slab.Free(h)
	if ttl {
		s.ttlDropped()
	}
}

// freeLeaf frees leaf h and its external value.
func (db *DB) freeLeaf(h slab.Handle) {
	l := db.readLeaf(h)
	if t := leafTyp(l.flags); hasExt(t, l.enc()) {
		x, _ := l.extRef()
		db.freeExt(t, l.enc(), x)
	}
	db.freeLeafBlock(h, l.hasTTL())
}

// valueOf describes l's value; inline bytes alias the leaf.
func valueOf(l *leaf) value {
	v := value{typ: leafTyp(l.flags), enc: l.enc()}
	switch {
	case hasExt(v.typ, v.enc):
		v.ext, v.n = l.extRef()
	case v.enc == encInt:
		v.i = l.intVal()
	default:
		v.b = l.inlineVal()
	}
	return v
}

// replaceLeaf gives key (whose leaf h, decoded as l, is at *ref) the value v
// and expiry expireAt. v may alias l's own bytes. The old external value is
// freed unless v keeps it. The leaf is rewritten in place when the new one
// needs the same slab class (no allocation); otherwise it moves.
func (db *DB) replaceLeaf(ref *slab.Handle, h slab.Handle, l *leaf, key []byte, expireAt int64, v *value) {
	s := db.s
	oldExt := slab.Nil
	oldTyp, oldEnc := leafTyp(l.flags), l.enc()
	if hasExt(oldTyp, oldEnc) {
		oldExt, _ = l.extRef()
	}
	hadTTL := l.hasTTL()
	oldExp := l.expireAt()
	ttl := expireAt != 0
	need := leafSize(len(key), ttl, v)
	c := slab.Class(need)
	hc := slab.HandleClass(h)
	if c == hc && (c != slab.LargeClass || need <= len(l.b) && need > len(l.b)-4096) {
		rewriteLeaf(l, expireAt, v)
		putClock(l.b, s.rewrittenClock(l.b))
		if ttl && (!hadTTL || oldExp != expireAt && s.wheelMoved(oldExp, expireAt)) {
			s.wheelFile(h, expireAt) // expire.go: a new deadline bucket
		}
		if ttl != hadTTL {
			if ttl {
				s.slab.Tag(h)
				s.ttl[c]++
			} else {
				s.slab.Untag(h)
				s.ttl[c]--
				s.ttlDropped()
			}
		}
	} else {
		nh := db.newLeaf(key, expireAt, v) // copies v before the old leaf goes
		putClock(s.slab.Bytes(nh), s.rewrittenClock(l.b))
		*ref = nh
		db.freeLeafBlock(h, hadTTL)
	}
	if oldExt != slab.Nil && (oldExt != v.ext || !hasExt(v.typ, v.enc)) {
		db.freeExt(oldTyp, oldEnc, oldExt)
	}
	if ttl != hadTTL {
		if ttl {
			db.expires++
		} else {
			db.expires--
		}
	}
}

// rewriteLeaf rewrites l's block in place (the key stays). It writes the
// value bytes first and the headers in front of them afterwards, so a value
// aliasing the old leaf survives a move in either direction.
func rewriteLeaf(l *leaf, expireAt int64, v *value) {
	b := l.b
	o := l.off
	if expireAt != 0 {
		o += 8
	}
	switch v.enc {
	case encEmbstr, encRaw:
		w := uvarintLen(uint64(len(v.b)))
		copy(b[o+w:], v.b)
		binary.PutUvarint(b[o:], uint64(len(v.b)))
	default:
		writeValue(b[o:], v)
	}
	f := byte(leafBit) | byte(v.typ)<<typeShift | byte(v.enc)
	if expireAt != 0 {
		f |= ttlBit
		binary.LittleEndian.PutUint64(b[l.off:], uint64(expireAt))
	}
	b[0] = f
	l.flags = f
}

// extBytes returns an external value's bytes (aliasing slab memory).
func (db *DB) extBytes(x slab.Handle, n int) []byte {
	b := db.s.slab.Bytes(x)
	return b[1 : 1+n : 1+n]
}

// newExt allocates an external value block with room for capacity bytes and
// fills it with b.
func (db *DB) newExt(b []byte, capacity int) slab.Handle {
	x := db.s.alloc(1 + capacity)
	xb := db.s.slab.Bytes(x)
	xb[0] = 0
	copy(xb[1:], b)
	return x
}

// stringValue builds the value SET stores for val. A long value is copied
// into a new external block here (before any old block is freed).
func (db *DB) stringValue(val []byte) value {
	if i, ok := num.ParseInt(val); ok {
		return value{typ: TypeString, enc: encInt, i: i}
	}
	return db.textValue(val)
}

// textValue is stringValue for bytes never stored as an integer.
func (db *DB) textValue(val []byte) value {
	v := value{typ: TypeString}
	if len(val) <= maxInline {
		v.enc, v.b = encEmbstr, val
		if len(val) > embstrMax {
			v.enc = encRaw
		}
		return v
	}
	v.enc, v.n = encExt, len(val)
	v.ext = db.newExt(val, len(val))
	return v
}

// find looks key up and applies lazy expiry: an expired key is deleted and
// reported absent. It returns the slot, the leaf handle and its view. A key
// found is touched (its access clock updated, evict.go); peek does not.
func (db *DB) find(key []byte, now int64) (*slab.Handle, slab.Handle, leaf) {
	ref, h, l := db.peek(key, now)
	if h != slab.Nil {
		db.s.touch(l.b)
	}
	return ref, h, l
}

// peek is find without the touch (EXISTS, TYPE, TTL, OBJECT).
func (db *DB) peek(key []byte, now int64) (*slab.Handle, slab.Handle, leaf) {
	db.s.seen(now)
	ref, h := db.lookup(key)
	if h == slab.Nil {
		db.s.counted(key, false)
		return nil, slab.Nil, leaf{}
	}
	l := db.readLeaf(h)
	if l.expired(now) {
		db.expireKey(key)
		db.s.counted(key, false)
		return nil, slab.Nil, leaf{}
	}
	db.s.counted(key, true)
	return ref, h, l
}

// deleteKey removes key (if present) and frees its blocks.
func (db *DB) deleteKey(key []byte) bool {
	h := db.remove(key, slab.Nil)
	if h == slab.Nil {
		return false
	}
	db.dropLeaf(h)
	return true
}

// dropLeaf frees leaf h, just removed from the tree, and its value.
func (db *DB) dropLeaf(h slab.Handle) {
	if db.readLeaf(h).hasTTL() {
		db.expires--
	}
	db.freeLeaf(h)
	db.keys--
}

// setValue stores v under key with expireAt, replacing any value.
func (db *DB) setValue(key []byte, v *value, expireAt int64) {
	if !db.absent {
		if ref, h := db.lookup(key); h != slab.Nil {
			l := db.readLeaf(h)
			db.replaceLeaf(ref, h, &l, key, expireAt, v)
			return
		}
	}
	lh := db.newLeaf(key, expireAt, v)
	db.insert(key, lh)
	db.keys++
	if expireAt != 0 {
		db.expires++
	}
}

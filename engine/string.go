package engine

import (
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/num"
)

// GetString returns key's string value. The slice is borrowed: valid until
// the next call on any DB of the same Store. A key of another type returns
// found=true and ErrWrongType.
func (db *DB) GetString(key []byte, now int64) (val []byte, found bool, err error) {
	db.s.seen(now)
	_, h, p := db.lookupLeaf(key)
	if h == slab.Nil {
		db.s.counted(key, false)
		return nil, false, nil
	}
	// Fast path for the common leaf: short key, no TTL, inline string.
	b := (*[1 << 30]byte)(p)
	f := b[0]
	if kl := b[1]; kl < 0x80 && f&ttlBit == 0 && leafTyp(f) == TypeString {
		if e := f & encMask; e == encEmbstr || e == encRaw {
			o := 2 + int(kl)
			if n := b[o]; n < 0x80 {
				// Small class: the block is its class size (clock at its end).
				db.s.touch(b[:slab.ClassSize(slab.HandleClass(h)):slab.ClassSize(slab.HandleClass(h))])
				db.s.counted(key, true)
				return b[o+1 : o+1+int(n) : o+1+int(n)], true, nil
			}
		}
	}
	l := db.readLeaf(h)
	if l.expired(now) {
		db.expireKey(key)
		db.s.counted(key, false)
		return nil, false, nil
	}
	db.s.touch(l.b)
	db.s.counted(key, true)
	if leafTyp(l.flags) != TypeString {
		return nil, true, ErrWrongType
	}
	return db.stringBytes(&l), true, nil
}

// stringBytes returns a string leaf's value: aliasing the slab, or for an
// integer, formatted into the Store's scratch buffer.
func (db *DB) stringBytes(l *leaf) []byte {
	switch l.enc() {
	case encInt:
		db.s.scratch = strconv.AppendInt(db.s.scratch[:0], l.intVal(), 10)
		return db.s.scratch
	case encEmbstr, encRaw:
		return l.inlineVal()
	default:
		x, n := l.extRef()
		return db.extBytes(x, n)
	}
}

// SetString stores val under key, replacing a value of any type. A canonical
// int64 string is stored as an integer. expireAt is an absolute unix-ms time
// (0: none); with keepTTL the key's current TTL stays (expireAt is ignored).
// SetString takes no now: a key whose TTL ended before the latest now seen
// by the Store counts as absent, so KEEPTTL does not resurrect its TTL.
// val may be a slice this Store returned.
func (db *DB) SetString(key, val []byte, expireAt int64, keepTTL bool) {
	v := db.stringValue(val)
	db.setString(key, &v, expireAt, keepTTL)
	db.changed(key, 1)
}

// SetRawString stores a string built in place, as SETRANGE builds it, with
// the raw encoding whatever it holds (Redis never turns such a string back
// into an integer or an embstr), keeping key's TTL.
func (db *DB) SetRawString(key, val []byte) {
	v := db.rawValue(val, len(val))
	db.setString(key, &v, 0, true)
	db.changed(key, 1)
}

// SetTextString is SetString for a string that is never stored as an
// integer, whatever its bytes (INCRBYFLOAT's result: Redis's
// createStringObject), keeping key's TTL.
func (db *DB) SetTextString(key, val []byte) {
	v := db.textValue(val)
	db.setString(key, &v, 0, true)
	db.changed(key, 1)
}

func (db *DB) setString(key []byte, v *value, expireAt int64, keepTTL bool) {
	ref, h := db.lookup(key)
	if h != slab.Nil {
		if l := db.readLeaf(h); !db.s.replica && l.expired(db.s.lastNow) {
			db.expireKey(key) // as Redis's lookupKeyWrite: gone before the SET
			h = slab.Nil
		}
	}
	if h == slab.Nil {
		if keepTTL {
			expireAt = 0
		}
		lh := db.newLeaf(key, expireAt, v)
		db.insert(key, lh)
		db.keys++
		if expireAt != 0 {
			db.expires++
		}
		return
	}
	l := db.readLeaf(h)
	db.s.touch(l.b) // LFU: the counter counts the write (dbOverwrite keeps it)
	if keepTTL {
		expireAt = l.expireAt()
		if expireAt != 0 && expireAt <= db.s.lastNow && !db.s.replica {
			expireAt = 0
		}
	}
	db.replaceLeaf(ref, h, &l, key, expireAt, v)
}

// IncrBy adds delta to the integer in key (created as 0 if absent) and
// returns the result. The TTL stays.
func (db *DB) IncrBy(key []byte, delta int64, now int64) (int64, error) {
	ref, h, l := db.find(key, now)
	if h == slab.Nil {
		v := value{typ: TypeString, enc: encInt, i: delta}
		db.setValue(key, &v, 0)
		db.changed(key, 1)
		return delta, nil
	}
	if leafTyp(l.flags) != TypeString {
		return 0, ErrWrongType
	}
	var cur int64
	if l.enc() == encInt {
		cur = l.intVal()
	} else {
		var ok bool
		if cur, ok = num.ParseInt(db.stringBytes(&l)); !ok {
			return 0, ErrNotInteger
		}
	}
	if (delta > 0 && cur > math.MaxInt64-delta) || (delta < 0 && cur < math.MinInt64-delta) {
		return 0, ErrOverflow
	}
	cur += delta
	v := value{typ: TypeString, enc: encInt, i: cur}
	db.replaceLeaf(ref, h, &l, key, l.expireAt(), &v)
	db.changed(key, 1)
	return cur, nil
}

// Append appends val to key's string (creating it) and returns the new
// length. The TTL stays.
func (db *DB) Append(key, val []byte, now int64) (int, error) {
	ref, h, l := db.find(key, now)
	if h == slab.Nil {
		if len(val) > MaxValueLen {
			return 0, ErrTooLarge
		}
		v := db.stringValue(val) // as Redis: a new key is encoded like SET's
		db.setValue(key, &v, 0)
		db.changed(key, 1)
		return len(val), nil
	}
	if leafTyp(l.flags) != TypeString {
		return 0, ErrWrongType
	}
	var oldLen int
	if l.enc() == encExt {
		_, oldLen = l.extRef()
	} else {
		oldLen = len(db.stringBytes(&l))
	}
	n := oldLen + len(val)
	if n > MaxValueLen {
		return 0, ErrTooLarge
	}
	var v value
	if l.enc() == encExt {
		x, _ := l.extRef()
		if 1+n <= db.s.slab.BlockSize(x) {
			// Room left in the block: append in place. val may alias the
			// block's own bytes, which lie before the destination.
			copy(db.s.slab.Bytes(x)[1+oldLen:], val)
			v = value{typ: TypeString, enc: encExt, ext: x, n: n}
		} else {
			nx := db.s.alloc(1 + growCap(n))
			nb := db.s.slab.Bytes(nx)
			nb[0] = 0
			copy(nb[1:], db.extBytes(x, oldLen))
			copy(nb[1+oldLen:], val)
			v = value{typ: TypeString, enc: encExt, ext: nx, n: n}
		}
	} else {
		// Build old+val in a scratch buffer: the old bytes live in the leaf
		// being rewritten (or in the integer scratch).
		t := append(db.s.tmp[:0], db.stringBytes(&l)...)
		t = append(t, val...)
		db.s.tmp = t
		v = db.rawValue(t, growCap(n))
	}
	db.replaceLeaf(ref, h, &l, key, l.expireAt(), &v)
	db.changed(key, 1)
	return n, nil
}

// rawValue is the value APPEND leaves: inline "raw" when short, else an
// external block with capacity bytes of room.
func (db *DB) rawValue(b []byte, capacity int) value {
	if len(b) <= maxInline {
		return value{typ: TypeString, enc: encRaw, b: b}
	}
	return value{typ: TypeString, enc: encExt, ext: db.newExt(b, max(capacity, len(b))), n: len(b)}
}

// growCap is the room APPEND reserves (as sdsMakeRoomFor: double up to
// 1 MiB, then 1 MiB more), capped at MaxValueLen.
func growCap(n int) int {
	if n < 1<<20 {
		return min(2*n, MaxValueLen)
	}
	return min(n+1<<20, MaxValueLen)
}

// StrLen returns the length of key's string (0 if absent).
func (db *DB) StrLen(key []byte, now int64) (int, error) {
	_, h, l := db.find(key, now)
	if h == slab.Nil {
		return 0, nil
	}
	if leafTyp(l.flags) != TypeString {
		return 0, ErrWrongType
	}
	switch l.enc() {
	case encInt:
		return intLen(l.intVal()), nil
	case encExt:
		_, n := l.extRef()
		return n, nil
	default:
		return len(l.inlineVal()), nil
	}
}

func intLen(i int64) int {
	n := 1
	u := uint64(i)
	if i < 0 {
		n++
		u = uint64(-i)
	}
	for u >= 10 {
		u /= 10
		n++
	}
	return n
}

// Encoding returns OBJECT ENCODING's answer for key: "int", "embstr" or
// "raw" for strings (as Redis names them); for other types the object's
// current encoding ("listpack", "intset", "hashtable", ...).
func (db *DB) Encoding(key []byte, now int64) (string, bool) {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return "", false
	}
	switch leafTyp(l.flags) {
	case TypeString:
		switch l.enc() {
		case encInt:
			return "int", true
		case encEmbstr:
			return "embstr", true
		default:
			return "raw", true
		}
	default:
		return objEncoding(leafTyp(l.flags), l.enc()), true
	}
}

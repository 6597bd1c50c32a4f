package engine

import (
	"encoding/binary"

	"github.com/radish-kv/radish/engine/slab"
)

// This file is the string side of the bit commands: editing a string in
// place (SETBIT, BITFIELD, HyperLogLog registers) and BITOP. The bit
// arithmetic itself is the caller's; the engine only hands out the bytes.

// EditString lets fn change key's string value in place, as Redis's
// lookupStringForBitCommand prepares it: a missing key is created as n zero
// bytes, a shorter value is padded with zeros to n bytes, and the value is
// made raw (an integer or embstr becomes its bytes, as
// dbUnshareStringValue). The TTL stays. fn gets the value (aliasing slab
// memory, valid during the call only; it must not call the DB) and whether
// the key was created or lengthened, and returns how many changes it made,
// which Dirty counts. A key of another type returns ErrWrongType without
// calling fn. n is at most MaxValueLen.
func (db *DB) EditString(key []byte, n int, now int64, fn func(b []byte, grew bool) int) error {
	ref, h, l := db.find(key, now)
	if h == slab.Nil {
		var v value
		if n <= maxInline {
			t := append(db.s.tmp[:0], make([]byte, n)...)
			db.s.tmp = t
			v = value{typ: TypeString, enc: encRaw, b: t}
		} else {
			x := db.s.alloc(1 + n)
			xb := db.s.slab.Bytes(x)
			clear(xb[:1+n])
			v = value{typ: TypeString, enc: encExt, ext: x, n: n}
		}
		db.setValue(key, &v, 0)
		db.changed(key, uint64(fn(db.rawBytes(key), true)))
		return nil
	}
	if leafTyp(l.flags) != TypeString {
		return ErrWrongType
	}
	var grew bool
	if l.enc() == encExt {
		x, old := l.extRef()
		if n > old {
			grew = true
			var v value
			if 1+n <= db.s.slab.BlockSize(x) {
				clear(db.s.slab.Bytes(x)[1+old : 1+n])
				v = value{typ: TypeString, enc: encExt, ext: x, n: n}
			} else {
				nx := db.s.alloc(1 + growCap(n))
				nb := db.s.slab.Bytes(nx)
				nb[0] = 0
				copy(nb[1:], db.extBytes(x, old))
				clear(nb[1+old : 1+n])
				v = value{typ: TypeString, enc: encExt, ext: nx, n: n}
			}
			db.replaceLeaf(ref, h, &l, key, l.expireAt(), &v)
		}
	} else {
		old := db.stringBytes(&l)
		grew = n > len(old)
		if grew || l.enc() != encRaw {
			t := append(db.s.tmp[:0], old...)
			if grew {
				t = append(t, make([]byte, n-len(old))...)
			}
			db.s.tmp = t
			v := db.rawValue(t, growCap(len(t)))
			db.replaceLeaf(ref, h, &l, key, l.expireAt(), &v)
		}
	}
	db.changed(key, uint64(fn(db.rawBytes(key), grew)))
	return nil
}

// rawBytes returns the writable bytes of key's raw string (inline or
// external), which must exist.
func (db *DB) rawBytes(key []byte) []byte {
	_, h := db.lookup(key)
	l := db.readLeaf(h)
	if l.enc() == encExt {
		x, n := l.extRef()
		return db.extBytes(x, n)
	}
	return l.inlineVal()
}

// BitOp is one of BITOP's operations.
type BitOp uint8

// BITOP's operations.
const (
	BitAnd BitOp = iota
	BitOr
	BitXor
	BitNot
)

// BitOp stores in dst the bitwise op of the strings at keys (NOT: of one
// key), as Redis's BITOP: a missing key is a string of zero bytes, the
// result is as long as the longest input (shorter ones padded with zeros),
// raw, without TTL; an empty result deletes dst. It returns the result's
// length; a key of another type returns ErrWrongType and changes nothing.
// Dirty counts one change when dst was stored or deleted.
func (db *DB) BitOp(op BitOp, dst []byte, keys [][]byte, now int64) (int, error) {
	maxLen := 0
	for _, k := range keys {
		_, h, l := db.find(k, now)
		if h == slab.Nil {
			continue
		}
		if leafTyp(l.flags) != TypeString {
			return 0, ErrWrongType
		}
		maxLen = max(maxLen, db.strLen(&l))
	}
	if maxLen == 0 {
		if db.deleteKey(dst) {
			db.changed(dst, 1)
		}
		return 0, nil
	}
	db.changed(dst, 1)
	var v value
	var res []byte
	if maxLen <= maxInline {
		// The inputs are read into res before setString writes it, and
		// stringBytes's integer scratch is not s.tmp.
		db.s.tmp = append(db.s.tmp[:0], make([]byte, maxLen)...)
		res = db.s.tmp
		v = value{typ: TypeString, enc: encRaw, b: res}
	} else {
		x := db.s.alloc(1 + maxLen)
		xb := db.s.slab.Bytes(x)
		xb[0] = 0
		res = xb[1 : 1+maxLen]
		v = value{typ: TypeString, enc: encExt, ext: x, n: maxLen}
	}
	for i, k := range keys {
		var src []byte
		if _, h, l := db.find(k, now); h != slab.Nil {
			src = db.stringBytes(&l)
		}
		if i == 0 {
			copy(res, src)
			clear(res[len(src):])
			if op == BitNot {
				bitNot(res)
			}
			continue
		}
		bitCombine(op, res, src)
	}
	db.setString(dst, &v, 0, false)
	return maxLen, nil
}

// strLen is the length of a string leaf's value.
func (db *DB) strLen(l *leaf) int {
	switch l.enc() {
	case encInt:
		return intLen(l.intVal())
	case encExt:
		_, n := l.extRef()
		return n
	default:
		return len(l.inlineVal())
	}
}

func bitNot(res []byte) {
	i := 0
	for ; i+8 <= len(res); i += 8 {
		binary.LittleEndian.PutUint64(res[i:], ^binary.LittleEndian.Uint64(res[i:]))
	}
	for ; i < len(res); i++ {
		res[i] = ^res[i]
	}
}

// bitCombine applies op (AND, OR, XOR) of src into res, src padded with
// zeros to res's length, a word at a time.
func bitCombine(op BitOp, res, src []byte) {
	n := min(len(res), len(src))
	i := 0
	switch op {
	case BitAnd:
		for ; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(res[i:], binary.LittleEndian.Uint64(res[i:])&binary.LittleEndian.Uint64(src[i:]))
		}
		for ; i < n; i++ {
			res[i] &= src[i]
		}
		clear(res[n:])
	case BitOr:
		for ; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(res[i:], binary.LittleEndian.Uint64(res[i:])|binary.LittleEndian.Uint64(src[i:]))
		}
		for ; i < n; i++ {
			res[i] |= src[i]
		}
	case BitXor:
		for ; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(res[i:], binary.LittleEndian.Uint64(res[i:])^binary.LittleEndian.Uint64(src[i:]))
		}
		for ; i < n; i++ {
			res[i] ^= src[i]
		}
	}
}

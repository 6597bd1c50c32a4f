package engine

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/errtext"
)

// This file is the list type: its operations on a DB (the type API, no
// RESP). The structure is a quicklist (quicklist.go); OBJECT ENCODING says
// "quicklist" at every size, as Redis 7.0 does (7.2 reports "listpack" for
// a list of one small node).
//
// Every value handed to a callback is borrowed: valid during the callback
// only, and the callback must not call into the Store.

// List errors, with Redis's text.
var (
	ErrNoSuchKey  = errors.New(errtext.NoSuchKey)
	ErrIndexRange = errors.New(errtext.IndexRange)
)

func init() {
	registerObj(TypeList, &objType{
		free: func(db *DB, enc int, x slab.Handle) {
			q := db.s.openList(x)
			q.free()
		},
		export: func(db *DB, enc int, x slab.Handle, dst []byte) []byte {
			q := db.s.openList(x)
			dst = q.encode(dst)
			q.save()
			return dst
		},
		load: func(db *DB, data []byte) (int, slab.Handle, bool) {
			if n, w := binary.Uvarint(data); w <= 0 || n == 0 {
				return 0, slab.Nil, false
			}
			x, ok := db.s.decodeList(data)
			return encQuicklist, x, ok
		},
		size: listSize,
	})
}

// openList opens key's list: ok false when absent.
func (db *DB) list(key []byte, now int64) (qlist, obj, bool, error) {
	o, err := db.getObj(key, TypeList, now)
	if err != nil || !o.exists() {
		return qlist{}, o, false, err
	}
	return db.s.openList(o.x), o, true, nil
}

// closeList writes the header back, or deletes the key when it emptied.
func (db *DB) closeList(key []byte, q *qlist, o *obj) {
	q.save() // delObj frees what the header lists
	if q.count == 0 {
		db.delObj(key, o)
	}
}

// ListPush adds vals one by one at the head (left) or the tail, creating
// the key unless xx (LPUSHX/RPUSHX: only when it exists). It returns the
// new length (0 when xx and the key is absent).
func (db *DB) ListPush(key []byte, vals [][]byte, left, xx bool, now int64) (int, error) {
	q, _, ok, err := db.list(key, now)
	if err != nil {
		return 0, err
	}
	if !ok {
		if xx {
			return 0, nil
		}
		q = db.s.newList()
		db.newObj(key, TypeList, encQuicklist, q.h)
	}
	for _, v := range vals {
		q.push(v, left)
	}
	q.save()
	db.changed(key, uint64(len(vals)))
	return q.count, nil
}

// ListLen returns the length of key's list (0 when absent).
func (db *DB) ListLen(key []byte, now int64) (int, error) {
	q, _, _, err := db.list(key, now)
	return q.count, err
}

// ListPop removes up to count elements from the head (left) or the tail,
// calling fn for each in order with the number it removes and the
// position. It returns that number (0 when the key is absent); the key is
// deleted when it empties.
func (db *DB) ListPop(key []byte, left bool, count int, now int64, fn func(total, i int, v []byte)) (int, error) {
	q, o, ok, err := db.list(key, now)
	if err != nil || !ok {
		return 0, err
	}
	n := min(count, q.count)
	for i := 0; i < n; i++ {
		q.pop(left, func(v []byte) { fn(n, i, v) })
	}
	db.closeList(key, &q, &o)
	db.changed(key, uint64(n))
	return n, nil
}

// listRange normalizes LRANGE-style indexes: it returns the first index
// and how many elements follow (0: empty).
func listRange(start, stop, n int) (int, int) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop - start + 1
}

// ListRange calls fn for the elements from start to stop (LRANGE
// indexes: negative ones count from the end, both inclusive), passing the
// number of elements the range holds and the position within it. It
// returns that number.
func (db *DB) ListRange(key []byte, start, stop int, now int64, fn func(total, i int, v []byte)) (int, error) {
	q, _, ok, err := db.list(key, now)
	if err != nil || !ok {
		return 0, err
	}
	first, n := listRange(start, stop, q.count)
	i := 0
	if n > 0 {
		q.walk(first, func(v []byte) bool {
			fn(n, i, v)
			i++
			return i < n
		})
		q.save()
	}
	return n, nil
}

// ListIndex returns element idx (negative: from the end). The slice is
// borrowed: valid until the next call on the Store.
func (db *DB) ListIndex(key []byte, idx int, now int64) ([]byte, bool, error) {
	q, _, ok, err := db.list(key, now)
	if err != nil || !ok {
		return nil, false, err
	}
	if idx < 0 {
		idx += q.count
	}
	if idx < 0 || idx >= q.count {
		return nil, false, nil
	}
	n, off := q.locate(idx)
	v, _ := getEntry(q.nb(n), off)
	if q.depth > 0 { // save may compress the node v is in
		db.s.scratch = append(db.s.scratch[:0], v...)
		v = db.s.scratch
	}
	q.save()
	return v, true, nil
}

// ListSet replaces element idx: ErrNoSuchKey when the key is absent,
// ErrIndexRange when idx is outside the list.
func (db *DB) ListSet(key []byte, idx int, val []byte, now int64) error {
	q, _, ok, err := db.list(key, now)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNoSuchKey
	}
	if idx < 0 {
		idx += q.count
	}
	if idx < 0 || idx >= q.count {
		return ErrIndexRange
	}
	n, off := q.locate(idx)
	q.replaceAt(n, off, val)
	q.save()
	db.changed(key, 1)
	return nil
}

// ListInsert inserts val before (or after) the first element equal to
// pivot. It returns the new length, -1 when pivot is not found, 0 when the
// key is absent.
func (db *DB) ListInsert(key []byte, before bool, pivot, val []byte, now int64) (int, error) {
	q, _, ok, err := db.list(key, now)
	if err != nil || !ok {
		return 0, err
	}
	for n := q.head; n != slab.Nil; {
		n = q.plain(n)
		b := q.nb(n)
		e := nEnd(b)
		for o := nStart(b); o < e; {
			v, next := getEntry(b, o)
			if bytes.Equal(v, pivot) {
				if !before {
					o = next
				}
				q.insertAt(n, o, val)
				q.save()
				db.changed(key, 1)
				return q.count, nil
			}
			o = next
		}
		n = nNext(b)
	}
	q.save()
	return -1, nil
}

// ListRem removes elements equal to val: count > 0 the first count, count
// < 0 the last -count, 0 all. It returns how many it removed.
func (db *DB) ListRem(key []byte, count int, val []byte, now int64) (int, error) {
	q, o, ok, err := db.list(key, now)
	if err != nil || !ok {
		return 0, err
	}
	n := q.removeMatching(val, count)
	db.closeList(key, &q, &o)
	db.changed(key, uint64(n))
	return n, nil
}

// ListTrim keeps only the elements from start to stop (LTRIM indexes).
func (db *DB) ListTrim(key []byte, start, stop int, now int64) error {
	q, o, ok, err := db.list(key, now)
	if err != nil || !ok {
		return err
	}
	first, n := listRange(start, stop, q.count)
	if n == 0 {
		first = q.count
	}
	rtrim := q.count - first - n
	q.delHead(first)
	q.delTail(rtrim)
	db.closeList(key, &q, &o)
	db.changed(key, uint64(first+rtrim))
	return nil
}

// ListPos calls fn with the index of each element equal to val (LPOS):
// rank > 0 starts with the rank-th match from the head, rank < 0 with the
// -rank-th from the tail going backwards; at most maxlen elements are
// compared (0: all). fn returns false to stop. rank must not be 0.
func (db *DB) ListPos(key []byte, val []byte, rank, maxlen int, now int64, fn func(idx int) bool) error {
	q, _, ok, err := db.list(key, now)
	if err != nil || !ok {
		return err
	}
	seen := 0
	if rank > 0 {
		i := 0
		q.walk(0, func(v []byte) bool {
			if maxlen > 0 && seen >= maxlen {
				return false
			}
			seen++
			idx := i
			i++
			if bytes.Equal(v, val) {
				if rank > 1 {
					rank--
					return true
				}
				return fn(idx)
			}
			return true
		})
		q.save()
		return nil
	}
	i := q.count - 1
	q.walkBack(q.count-1, func(v []byte) bool {
		if maxlen > 0 && seen >= maxlen {
			return false
		}
		seen++
		idx := i
		i--
		if bytes.Equal(v, val) {
			if rank < -1 {
				rank++
				return true
			}
			return fn(idx)
		}
		return true
	})
	q.save()
	return nil
}

// ListMove pops an element from src (its head when srcLeft) and pushes it
// onto dst (at its head when dstLeft), as LMOVE: found is false when src
// is absent (nothing happens); a dst of another type is ErrWrongType,
// checked before anything moves. fn sees the moved element.
func (db *DB) ListMove(src, dst []byte, srcLeft, dstLeft bool, now int64, fn func(v []byte)) (bool, error) {
	q, o, ok, err := db.list(src, now)
	if err != nil || !ok {
		return false, err
	}
	if _, err := db.getObj(dst, TypeList, now); err != nil {
		return false, err
	}
	s := db.s
	q.pop(srcLeft, func(v []byte) { s.tmp = append(s.tmp[:0], v...) })
	if bytes.Equal(src, dst) {
		// A rotation: the key (and its TTL) stays even with one element.
		q.push(s.tmp, dstLeft)
		q.save()
		db.changed(src, 1)
		fn(s.tmp)
		return true, nil
	}
	db.closeList(src, &q, &o)
	db.changed(src, 1)
	v := s.tmp
	if _, err := db.ListPush(dst, [][]byte{v}, dstLeft, false, now); err != nil {
		return false, err
	}
	fn(v)
	return true, nil
}

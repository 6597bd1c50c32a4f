package engine

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/num"
)

// Sets. Two encodings, as in Redis 7.0:
//
//   - intset: one block [0][width 2|4|8][count uint32][sorted int64s stored
//     in width bytes each, little endian], while every member is a
//     canonical integer and there are at most Limits.SetMaxIntsetEntries.
//   - hashtable: a slab table (object.go) of entry blocks [0][member as a
//     serialized string].
//
// A set converts to hashtable once it crosses a limit and never back.
// Members returned are borrowed: valid until the next call on any DB of the
// same Store (integers are formatted into the Store's scratch buffer).

func init() {
	registerObj(TypeSet, &objType{free: setFree, export: setExport, load: setLoad, size: hashSetSize})
}

const isHdr = 6

func setFree(db *DB, enc int, x slab.Handle) {
	if enc == encHashtable {
		db.tabFree(x)
		return
	}
	db.s.slab.Free(x)
}

func setExport(db *DB, enc int, x slab.Handle, dst []byte) []byte {
	o := obj{enc: enc, x: x}
	dst = binary.AppendUvarint(dst, uint64(db.setLen(&o)))
	db.setEach(&o, func(m []byte) bool {
		dst = appendStr(dst, m)
		return true
	})
	return dst
}

func setLoad(db *DB, data []byte) (int, slab.Handle, bool) {
	n, w := binary.Uvarint(data)
	if w <= 0 || n == 0 || n > uint64(len(data)) {
		return 0, slab.Nil, false
	}
	o := db.newSetObj()
	for off := w; off < len(data); {
		m, next := readStr(data, off)
		if next < 0 {
			setFree(db, o.enc, o.x)
			return 0, slab.Nil, false
		}
		db.setAdd(&o, m)
		off = next
	}
	return o.enc, o.x, true
}

// ---- intset ----

func isWidth(b []byte) int { return int(b[1]) }
func isCount(b []byte) int { return int(binary.LittleEndian.Uint32(b[2:])) }

func isGet(b []byte, i int) int64 {
	o := isHdr + i*isWidth(b)
	switch isWidth(b) {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b[o:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b[o:])))
	}
	return int64(binary.LittleEndian.Uint64(b[o:]))
}

func isPut(b []byte, w, i int, v int64) {
	o := isHdr + i*w
	switch w {
	case 2:
		binary.LittleEndian.PutUint16(b[o:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[o:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[o:], uint64(v))
	}
}

func widthOf(v int64) int {
	switch {
	case v == int64(int16(v)):
		return 2
	case v == int64(int32(v)):
		return 4
	}
	return 8
}

// isSearch returns v's position, or where it would be inserted.
func isSearch(b []byte, v int64) (int, bool) {
	lo, hi := 0, isCount(b)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if isGet(b, m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < isCount(b) && isGet(b, lo) == v
}

func (db *DB) newIntset(w, capacity int) slab.Handle {
	x := db.s.alloc(isHdr + w*capacity)
	b := db.s.slab.Bytes(x)
	b[0], b[1] = 0, byte(w)
	binary.LittleEndian.PutUint32(b[2:], 0)
	return x
}

// isInsert inserts v (absent) and returns the block, moved when it grew or
// its width grew.
func (db *DB) isInsert(x slab.Handle, v int64) slab.Handle {
	sl := db.s.slab
	b := sl.Bytes(x)
	n, w := isCount(b), isWidth(b)
	nw := max(w, widthOf(v))
	pos, _ := isSearch(b, v)
	if nw != w || isHdr+(n+1)*nw > len(b) {
		nx := db.newIntset(nw, n+1)
		nb := sl.Bytes(nx)
		for i := 0; i < pos; i++ {
			isPut(nb, nw, i, isGet(b, i))
		}
		for i := pos; i < n; i++ {
			isPut(nb, nw, i+1, isGet(b, i))
		}
		sl.Free(x)
		x, b = nx, nb
	} else {
		copy(b[isHdr+(pos+1)*w:isHdr+(n+1)*w], b[isHdr+pos*w:isHdr+n*w])
	}
	isPut(b, nw, pos, v)
	binary.LittleEndian.PutUint32(b[2:], uint32(n+1))
	return x
}

// isRemove removes the member at pos and returns the block (moved when it
// shrank below half its size).
func (db *DB) isRemove(x slab.Handle, pos int) slab.Handle {
	sl := db.s.slab
	b := sl.Bytes(x)
	n, w := isCount(b), isWidth(b)
	copy(b[isHdr+pos*w:], b[isHdr+(pos+1)*w:isHdr+n*w])
	binary.LittleEndian.PutUint32(b[2:], uint32(n-1))
	if need := isHdr + (n-1)*w; len(b) > 64 && need <= len(b)/2 {
		nx := db.s.alloc(need)
		copy(sl.Bytes(nx), b[:need])
		sl.Free(x)
		x = nx
	}
	return x
}

// ---- set type API ----

// newSetObj returns an empty intset set object that is not (yet) a key.
func (db *DB) newSetObj() obj { return obj{enc: encIntset, x: db.newIntset(2, 0)} }

func (db *DB) setLen(o *obj) int {
	b := db.s.slab.Bytes(o.x)
	if o.enc == encHashtable {
		return tabCount(b)
	}
	return isCount(b)
}

func (db *DB) setHas(o *obj, m []byte) bool {
	if o.enc == encHashtable {
		return db.tabGet(o.x, m) != slab.Nil
	}
	v, ok := num.ParseInt(m)
	if !ok {
		return false
	}
	_, found := isSearch(db.s.slab.Bytes(o.x), v)
	return found
}

// setConvert turns an intset into a hashtable.
func (db *DB) setConvert(o *obj) {
	b := db.s.slab.Bytes(o.x)
	n := isCount(b)
	t := db.newTable(n + 1)
	var buf [20]byte
	for i := 0; i < n; i++ {
		t = db.tabAdd(t, db.newEntry(strconv.AppendInt(buf[:0], isGet(b, i), 10)))
	}
	db.s.slab.Free(o.x)
	db.setObjRoot(o, encHashtable, t)
}

// setAdd adds m; it reports whether m is new. m must not alias the set.
func (db *DB) setAdd(o *obj, m []byte) bool {
	if o.enc == encIntset {
		v, isInt := num.ParseInt(m)
		if isInt {
			b := db.s.slab.Bytes(o.x)
			if _, found := isSearch(b, v); found {
				return false
			}
			if isCount(b)+1 <= db.s.Limits.SetMaxIntsetEntries {
				db.setObjRoot(o, encIntset, db.isInsert(o.x, v))
				return true
			}
		}
		db.setConvert(o)
	}
	_, e := db.tabFind(o.x, m)
	if e != slab.Nil {
		return false
	}
	db.setObjRoot(o, encHashtable, db.tabAdd(o.x, db.newEntry(m)))
	return true
}

// setRem removes m; it reports whether m was there.
func (db *DB) setRem(o *obj, m []byte) bool {
	if o.enc == encHashtable {
		slot, e := db.tabFind(o.x, m)
		if e == slab.Nil {
			return false
		}
		db.s.slab.Free(e)
		db.setObjRoot(o, encHashtable, db.tabDel(o.x, slot))
		return true
	}
	v, ok := num.ParseInt(m)
	if !ok {
		return false
	}
	pos, found := isSearch(db.s.slab.Bytes(o.x), v)
	if !found {
		return false
	}
	db.setObjRoot(o, encIntset, db.isRemove(o.x, pos))
	return true
}

// setEach calls fn for every member (intset: ascending) until it returns
// false. Integer members are formatted into a buffer reused per call. fn
// must not modify the set.
func (db *DB) setEach(o *obj, fn func(m []byte) bool) {
	if o.enc == encHashtable {
		db.tabEach(o.x, func(e slab.Handle) bool { return fn(db.entryKey(e)) })
		return
	}
	b := db.s.slab.Bytes(o.x)
	var buf [20]byte
	for i, n := 0, isCount(b); i < n; i++ {
		if !fn(strconv.AppendInt(buf[:0], isGet(b, i), 10)) {
			return
		}
	}
}

// setMember returns the member at index i of an intset, formatted into the
// Store's scratch buffer, or a hashtable entry's member.
func (db *DB) intsetMember(o *obj, i int) []byte {
	db.s.scratch = strconv.AppendInt(db.s.scratch[:0], isGet(db.s.slab.Bytes(o.x), i), 10)
	return db.s.scratch
}

// setRandom returns a random member of a non-empty set.
func (db *DB) setRandom(o *obj) []byte {
	if o.enc == encHashtable {
		return db.entryKey(db.tabRandom(o.x))
	}
	return db.intsetMember(o, int(db.s.random()%uint64(db.setLen(o))))
}

func (db *DB) openSet(key []byte, now int64) (obj, error) {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || o.exists() {
		return o, err
	}
	return db.newSetObj(), nil
}

// commitSet stores a set opened by openSet: a new one becomes the key, an
// empty one is deleted (or freed).
func (db *DB) commitSet(key []byte, o *obj) {
	switch {
	case db.setLen(o) == 0:
		if o.exists() {
			db.delObj(key, o)
		} else {
			setFree(db, o.enc, o.x)
		}
	case !o.exists():
		*o = db.newObj(key, TypeSet, o.enc, o.x)
	}
}

// SAdd adds members and returns how many were new.
func (db *DB) SAdd(key []byte, members [][]byte, now int64) (int, error) {
	o, err := db.openSet(key, now)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range members {
		if db.setAdd(&o, m) {
			n++
		}
	}
	db.commitSet(key, &o)
	db.changed(key, uint64(n))
	return n, nil
}

// SRem removes members and returns how many were there; the key goes when
// the set becomes empty.
func (db *DB) SRem(key []byte, members [][]byte, now int64) (int, error) {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	n := 0
	for _, m := range members {
		if db.setRem(&o, m) {
			n++
			if db.setLen(&o) == 0 {
				db.delObj(key, &o)
				break
			}
		}
	}
	db.changed(key, uint64(n))
	return n, nil
}

// SIsMember reports whether m is in key's set.
func (db *DB) SIsMember(key, m []byte, now int64) (bool, error) {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() {
		return false, err
	}
	return db.setHas(&o, m), nil
}

// SCard returns the set's size (0 if absent).
func (db *DB) SCard(key []byte, now int64) (int, error) {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	return db.setLen(&o), nil
}

// SEach calls fn for every member until it returns false; found is false
// when the key is absent. m is valid during the call; fn must not call the
// Store.
func (db *DB) SEach(key []byte, now int64, fn func(m []byte) bool) (found bool, err error) {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() {
		return false, err
	}
	db.setEach(&o, fn)
	return true, nil
}

// SScan is HScan for sets: an intset is visited whole in one call.
func (db *DB) SScan(key []byte, cursor uint64, count int, now int64, fn func(m []byte)) (uint64, error) {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	if o.enc != encHashtable {
		db.setEach(&o, func(m []byte) bool { fn(m); return true })
		return 0, nil
	}
	return db.tabScan(o.x, cursor, count, func(e slab.Handle) { fn(db.entryKey(e)) }), nil
}

// SRandMember picks members as SRANDMEMBER key count does: count >= 0
// distinct members (the whole set, in its order, when count >= SCard),
// count < 0 |count| members with repeats. m is valid during fn; fn must not
// call the Store.
func (db *DB) SRandMember(key []byte, count int64, now int64, fn func(m []byte)) error {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() || count == 0 {
		return err
	}
	size := db.setLen(&o)
	if o.enc == encHashtable {
		db.randPick(&o, size, count, 1, func(a, _ []byte) { fn(a) })
		return nil
	}
	if count > 0 && count >= int64(size) {
		db.setEach(&o, func(m []byte) bool { fn(m); return true })
		return nil
	}
	if count < 0 {
		for i := int64(0); i < -count; i++ {
			fn(db.setRandom(&o))
		}
		return nil
	}
	idx := make([]int, size)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < int(count); i++ {
		j := i + int(db.s.random()%uint64(size-i))
		idx[i], idx[j] = idx[j], idx[i]
		fn(db.intsetMember(&o, idx[i]))
	}
	return nil
}

// SPop removes and returns up to count random members (all of them, and
// the key, when count >= SCard). m is valid during fn; fn must not call
// the Store.
func (db *DB) SPop(key []byte, count int64, now int64, fn func(m []byte)) error {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil || !o.exists() || count <= 0 {
		return err
	}
	if count >= int64(db.setLen(&o)) {
		db.setEach(&o, func(m []byte) bool { fn(m); return true })
		db.delObj(key, &o)
		db.changed(key, 1)
		return nil
	}
	var buf []byte
	for i := int64(0); i < count; i++ {
		buf = append(buf[:0], db.setRandom(&o)...)
		db.setRem(&o, buf)
		fn(buf)
	}
	db.changed(key, uint64(count))
	return nil
}

// SMove moves m from src to dst; it reports whether m was in src. Either
// key holding another type is ErrWrongType (src absent: false first).
func (db *DB) SMove(src, dst, m []byte, now int64) (bool, error) {
	so, err := db.getObj(src, TypeSet, now)
	if err != nil || !so.exists() {
		return false, err
	}
	do, err := db.getObj(dst, TypeSet, now)
	if err != nil {
		return false, err
	}
	if string(src) == string(dst) {
		return db.setHas(&so, m), nil
	}
	if !db.setRem(&so, m) {
		return false, nil
	}
	if db.setLen(&so) == 0 {
		db.delObj(src, &so)
	}
	if !do.exists() {
		do = db.newSetObj()
	}
	added := db.setAdd(&do, m)
	db.commitSet(dst, &do)
	db.changed(src, 1)
	if added { // a member dst had already leaves it as it was
		db.changed(dst, 1)
	}
	return true, nil
}

// SMIsMember reports, per member, whether it is in key's set.
func (db *DB) SMIsMember(key []byte, members [][]byte, now int64, fn func(bool)) error {
	o, err := db.getObj(key, TypeSet, now)
	if err != nil {
		return err
	}
	for _, m := range members {
		fn(o.exists() && db.setHas(&o, m))
	}
	return nil
}

// SetOp is a set algebra operation.
type SetOp uint8

// Set operations.
const (
	SetInter SetOp = iota
	SetUnion
	SetDiff
)

// openSets opens keys as sets; an absent key is an empty set (o.h Nil).
func (db *DB) openSets(keys [][]byte, now int64) ([]obj, error) {
	objs := make([]obj, len(keys))
	for i, k := range keys {
		o, err := db.getObj(k, TypeSet, now)
		if err != nil {
			return nil, err
		}
		objs[i] = o
	}
	return objs, nil
}

// setOp computes op over keys into a new set object (not a key; the
// caller stores or frees it). For SetInter with limit > 0 it stops once
// the result has limit members.
func (db *DB) setOp(op SetOp, keys [][]byte, limit int, now int64) (obj, error) {
	objs, err := db.openSets(keys, now)
	if err != nil {
		return obj{}, err
	}
	res := db.newSetObj()
	var buf []byte
	switch op {
	case SetUnion:
		for i := range objs {
			if objs[i].exists() {
				db.setEach(&objs[i], func(m []byte) bool {
					buf = append(buf[:0], m...)
					db.setAdd(&res, buf)
					return true
				})
			}
		}
	case SetDiff:
		if !objs[0].exists() {
			break
		}
		db.setEach(&objs[0], func(m []byte) bool {
			for i := 1; i < len(objs); i++ {
				if objs[i].exists() && db.setHas(&objs[i], m) {
					return true
				}
			}
			buf = append(buf[:0], m...)
			db.setAdd(&res, buf)
			return true
		})
	case SetInter:
		db.interEach(objs, limit, func(m []byte) bool {
			buf = append(buf[:0], m...)
			db.setAdd(&res, buf)
			return true
		})
	}
	return res, nil
}

// interEach calls fn for each member of the intersection, in the order of
// the smallest set (as Redis's SINTER), up to limit (0: all).
func (db *DB) interEach(objs []obj, limit int, fn func(m []byte) bool) {
	for i := range objs {
		if !objs[i].exists() {
			return
		}
	}
	order := make([]int, len(objs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return db.setLen(&objs[a]) - db.setLen(&objs[b]) })
	n := 0
	first := &objs[order[0]]
	db.setEach(first, func(m []byte) bool {
		for _, j := range order[1:] {
			if objs[j].x == first.x {
				continue
			}
			if !db.setHas(&objs[j], m) {
				return true
			}
		}
		n++
		if !fn(m) {
			return false
		}
		return limit == 0 || n < limit
	})
}

// SetOpEach runs SINTER, SUNION or SDIFF over keys and calls fn for each
// member of the result; m is valid during fn, which must not call the
// Store. n is the number of members passed to fn.
func (db *DB) SetOpEach(op SetOp, keys [][]byte, now int64, fn func(m []byte)) (n int, err error) {
	if op == SetInter {
		objs, err := db.openSets(keys, now)
		if err != nil {
			return 0, err
		}
		db.interEach(objs, 0, func(m []byte) bool { fn(m); n++; return true })
		return n, nil
	}
	res, err := db.setOp(op, keys, 0, now)
	if err != nil {
		return 0, err
	}
	db.setEach(&res, func(m []byte) bool { fn(m); n++; return true })
	setFree(db, res.enc, res.x)
	return n, nil
}

// SetOpLen returns the size of the result of op over keys (SINTERCARD,
// with limit > 0 stopping there).
func (db *DB) SetOpLen(op SetOp, keys [][]byte, limit int, now int64) (int, error) {
	if op == SetInter {
		objs, err := db.openSets(keys, now)
		if err != nil {
			return 0, err
		}
		n := 0
		db.interEach(objs, limit, func([]byte) bool { n++; return true })
		return n, nil
	}
	res, err := db.setOp(op, keys, 0, now)
	if err != nil {
		return 0, err
	}
	n := db.setLen(&res)
	setFree(db, res.enc, res.x)
	return n, nil
}

// SetOpStore stores the result of op over keys in dst (replacing any value
// and TTL; an empty result deletes dst) and returns its size.
func (db *DB) SetOpStore(op SetOp, dst []byte, keys [][]byte, now int64) (int, error) {
	res, err := db.setOp(op, keys, 0, now)
	if err != nil {
		return 0, err
	}
	n := db.setLen(&res)
	if n == 0 {
		setFree(db, res.enc, res.x)
		db.Delete(dst, now)
		return 0, nil
	}
	db.storeObj(dst, TypeSet, res.enc, res.x)
	db.changed(dst, 1)
	return n, nil
}

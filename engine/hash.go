package engine

import (
	"encoding/binary"

	"github.com/radish-kv/radish/engine/slab"
)

// Hashes. Two encodings, as in Redis 7.0:
//
//   - listpack: one packed block (object.go) of field, value, field, value...
//     in insertion order; its count is the number of fields. Used while the
//     hash has at most Limits.HashMaxListpackEntries fields and no field or
//     value longer than Limits.HashMaxListpackValue.
//   - hashtable: a slab table (object.go) of entry blocks
//     [0][field as serialized string][value as serialized string].
//
// A hash converts to hashtable once it crosses a limit and never back.
// Values returned are borrowed: valid until the next call on any DB of the
// same Store.

func init() {
	registerObj(TypeHash, &objType{free: hashFree, export: hashExport, load: hashLoad, size: hashSetSize})
}

func hashFree(db *DB, enc int, x slab.Handle) {
	if enc == encHashtable {
		db.tabFree(x)
		return
	}
	db.s.slab.Free(x)
}

// hashExport: uvarint count, then field and value per pair.
func hashExport(db *DB, enc int, x slab.Handle, dst []byte) []byte {
	o := obj{enc: enc, x: x}
	dst = binary.AppendUvarint(dst, uint64(db.hashLen(&o)))
	db.hashEach(&o, func(f, v []byte) bool {
		dst = appendStr(appendStr(dst, f), v)
		return true
	})
	return dst
}

func hashLoad(db *DB, data []byte) (int, slab.Handle, bool) {
	n, w := binary.Uvarint(data)
	if w <= 0 || n == 0 || n > uint64(len(data)) {
		return 0, slab.Nil, false
	}
	o := obj{enc: encListpack, x: db.newPack(0)}
	for off := w; off < len(data); {
		f, next := readStr(data, off)
		if next < 0 {
			hashFree(db, o.enc, o.x)
			return 0, slab.Nil, false
		}
		v, next2 := readStr(data, next)
		if next2 < 0 {
			hashFree(db, o.enc, o.x)
			return 0, slab.Nil, false
		}
		db.hashSet(&o, f, v)
		off = next2
	}
	return o.enc, o.x, true
}

// packFindPair looks field up in a packed hash: the offset of the pair
// within the entries, its size and the value.
func packFindPair(b, field []byte) (off, size int, val []byte, ok bool) {
	e := packEntries(b)
	for o := 0; o < len(e); {
		f, n1 := readStr(e, o)
		v, n2 := readStr(e, n1)
		if string(f) == string(field) {
			return o, n2 - o, v, true
		}
		o = n2
	}
	return 0, 0, nil, false
}

// entryVal returns the value of a hash entry block.
func (db *DB) entryVal(e slab.Handle) (field, val []byte) {
	b := db.s.slab.Bytes(e)
	f, n := readStr(b, 1)
	v, _ := readStr(b, n)
	return f, v
}

func (db *DB) hashLen(o *obj) int {
	if o.enc == encHashtable {
		return tabCount(db.s.slab.Bytes(o.x))
	}
	return packCount(db.s.slab.Bytes(o.x))
}

func (db *DB) hashGet(o *obj, field []byte) ([]byte, bool) {
	if o.enc == encHashtable {
		e := db.tabGet(o.x, field)
		if e == slab.Nil {
			return nil, false
		}
		_, v := db.entryVal(e)
		return v, true
	}
	_, _, v, ok := packFindPair(db.s.slab.Bytes(o.x), field)
	return v, ok
}

// hashEach calls fn for every pair (listpack: insertion order) until it
// returns false. fn must not modify the hash.
func (db *DB) hashEach(o *obj, fn func(f, v []byte) bool) {
	if o.enc == encHashtable {
		db.tabEach(o.x, func(e slab.Handle) bool {
			f, v := db.entryVal(e)
			return fn(f, v)
		})
		return
	}
	e := packEntries(db.s.slab.Bytes(o.x))
	for off := 0; off < len(e); {
		f, n1 := readStr(e, off)
		v, n2 := readStr(e, n1)
		if !fn(f, v) {
			return
		}
		off = n2
	}
}

// hashConvert turns a listpack hash into a hashtable.
func (db *DB) hashConvert(o *obj) {
	t := db.newTable(db.hashLen(o))
	db.hashEach(o, func(f, v []byte) bool {
		t = db.tabAdd(t, db.newEntry(f, v))
		return true
	})
	db.s.slab.Free(o.x)
	db.setObjRoot(o, encHashtable, t)
}

// setObjRoot updates o and, when it has a leaf, the leaf.
func (db *DB) setObjRoot(o *obj, enc int, x slab.Handle) {
	if o.h != slab.Nil {
		db.setObj(o, enc, x)
		return
	}
	o.enc, o.x = enc, x
}

// hashSet sets field to val; it reports whether the field is new. field
// and val must not alias the hash's blocks.
func (db *DB) hashSet(o *obj, field, val []byte) bool {
	lim := &db.s.Limits
	if o.enc == encListpack && (len(field) > lim.HashMaxListpackValue || len(val) > lim.HashMaxListpackValue) {
		db.hashConvert(o)
	}
	if o.enc == encListpack {
		b := db.s.slab.Bytes(o.x)
		off, size, _, found := packFindPair(b, field)
		t := appendStr(appendStr(db.s.tmp[:0], field), val)
		db.s.tmp = t
		if found {
			db.setObjRoot(o, encListpack, db.packSplice(o.x, off, size, t, 0))
			return false
		}
		db.setObjRoot(o, encListpack, db.packSplice(o.x, packUsed(b), 0, t, 1))
		if db.hashLen(o) > lim.HashMaxListpackEntries {
			db.hashConvert(o)
		}
		return true
	}
	slot, e := db.tabFind(o.x, field)
	if e == slab.Nil {
		db.setObjRoot(o, encHashtable, db.tabAdd(o.x, db.newEntry(field, val)))
		return true
	}
	need := 1 + strSize(len(field)) + strSize(len(val))
	if slab.Class(need) == slab.HandleClass(e) && slab.HandleClass(e) != slab.LargeClass {
		b := db.s.slab.Bytes(e)
		_, n := readStr(b, 1)
		n += binary.PutUvarint(b[n:], uint64(len(val)))
		copy(b[n:], val)
		return false
	}
	ne := db.newEntry(field, val)
	tb := db.s.slab.Bytes(o.x)
	setTabSlot(tb, slot, ne, tabHash(tb, slot))
	db.s.slab.Free(e)
	return false
}

// hashDel removes field; it reports whether it was there. The caller
// deletes the key when the hash becomes empty.
func (db *DB) hashDel(o *obj, field []byte) bool {
	if o.enc == encHashtable {
		slot, e := db.tabFind(o.x, field)
		if e == slab.Nil {
			return false
		}
		db.s.slab.Free(e)
		db.setObjRoot(o, encHashtable, db.tabDel(o.x, slot))
		return true
	}
	off, size, _, found := packFindPair(db.s.slab.Bytes(o.x), field)
	if !found {
		return false
	}
	db.setObjRoot(o, encListpack, db.packSplice(o.x, off, size, nil, -1))
	return true
}

// openHash opens key as a hash for writing, creating an empty listpack
// hash object (not yet a key) when absent: the caller calls commitHash.
func (db *DB) openHash(key []byte, now int64) (obj, error) {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || o.exists() {
		return o, err
	}
	return obj{enc: encListpack, x: db.newPack(0)}, nil
}

// commitHash stores a hash opened by openHash: a new one becomes the key,
// an empty one is deleted (or freed).
func (db *DB) commitHash(key []byte, o *obj) {
	switch {
	case db.hashLen(o) == 0:
		if o.exists() {
			db.delObj(key, o)
		} else {
			hashFree(db, o.enc, o.x)
		}
	case !o.exists():
		*o = db.newObj(key, TypeHash, o.enc, o.x)
	}
}

// HSet sets field/value pairs (pairs holds field1, value1, field2, ...;
// an even number, at least 2) and returns how many fields are new.
func (db *DB) HSet(key []byte, pairs [][]byte, now int64) (int, error) {
	o, err := db.openHash(key, now)
	if err != nil {
		return 0, err
	}
	added := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		if db.hashSet(&o, pairs[i], pairs[i+1]) {
			added++
		}
	}
	db.commitHash(key, &o)
	db.changed(key, uint64(len(pairs)/2))
	return added, nil
}

// HSetNX sets field only if it is absent; it reports whether it did.
func (db *DB) HSetNX(key, field, val []byte, now int64) (bool, error) {
	o, err := db.openHash(key, now)
	if err != nil {
		return false, err
	}
	if o.exists() {
		if _, ok := db.hashGet(&o, field); ok {
			return false, nil
		}
	}
	db.hashSet(&o, field, val)
	db.commitHash(key, &o)
	db.changed(key, 1)
	return true, nil
}

// HGet returns field's value. The slice is borrowed: valid until the next
// call on any DB of the same Store.
func (db *DB) HGet(key, field []byte, now int64) ([]byte, bool, error) {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || !o.exists() {
		return nil, false, err
	}
	v, ok := db.hashGet(&o, field)
	return v, ok, nil
}

// HDel removes fields and returns how many existed; the key goes when the
// hash becomes empty.
func (db *DB) HDel(key []byte, fields [][]byte, now int64) (int, error) {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	n := 0
	for _, f := range fields {
		if db.hashDel(&o, f) {
			n++
			if db.hashLen(&o) == 0 {
				db.delObj(key, &o)
				break
			}
		}
	}
	db.changed(key, uint64(n))
	return n, nil
}

// HLen returns the number of fields (0 if absent).
func (db *DB) HLen(key []byte, now int64) (int, error) {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	return db.hashLen(&o), nil
}

// HEach calls fn for every field and value until fn returns false; found
// is false when the key is absent. The slices are valid during the call;
// fn must not call the Store.
func (db *DB) HEach(key []byte, now int64, fn func(field, val []byte) bool) (found bool, err error) {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || !o.exists() {
		return false, err
	}
	db.hashEach(&o, fn)
	return true, nil
}

// HScan visits the hash from cursor (0 = start) and returns the next cursor
// (0 = done). A listpack hash is visited whole in one call (as Redis does);
// a hashtable about count fields per call, with SCAN's guarantees. The
// slices are valid during fn; fn must not call the Store.
func (db *DB) HScan(key []byte, cursor uint64, count int, now int64, fn func(field, val []byte)) (uint64, error) {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	if o.enc != encHashtable {
		db.hashEach(&o, func(f, v []byte) bool { fn(f, v); return true })
		return 0, nil
	}
	return db.tabScan(o.x, cursor, count, func(e slab.Handle) {
		fn(db.entryVal(e))
	}), nil
}

// HRandField picks fields as HRANDFIELD key count does: count >= 0
// distinct fields (the whole hash, in its order, when count >= HLen),
// count < 0 |count| fields with repeats. fn gets each pick; the slices are
// valid during the call and fn must not call the Store.
func (db *DB) HRandField(key []byte, count int64, now int64, fn func(field, val []byte)) error {
	o, err := db.getObj(key, TypeHash, now)
	if err != nil || !o.exists() || count == 0 {
		return err
	}
	db.randPick(&o, db.hashLen(&o), count, 2, fn)
	return nil
}

// randPick is HRANDFIELD/SRANDMEMBER's selection over an object whose
// elements are entries (hashtable) or groups of `per` packed strings.
func (db *DB) randPick(o *obj, size int, count int64, per int, fn func(a, b []byte)) {
	emit := func(e slab.Handle) {
		b := db.s.slab.Bytes(e)
		a, n := readStr(b, 1)
		var v []byte
		if per == 2 {
			v, _ = readStr(b, n)
		}
		fn(a, v)
	}
	if count > 0 && count >= int64(size) {
		db.objEach(o, per, fn)
		return
	}
	if o.enc == encHashtable {
		if count < 0 {
			for i := int64(0); i < -count; i++ {
				emit(db.tabRandom(o.x))
			}
			return
		}
		// Distinct picks: draw until count different entries were seen.
		seen := make(map[slab.Handle]struct{}, count)
		for int64(len(seen)) < count {
			e := db.tabRandom(o.x)
			if _, dup := seen[e]; dup {
				continue
			}
			seen[e] = struct{}{}
			emit(e)
		}
		return
	}
	// Packed: index the elements, then pick.
	offs := db.packOffsets(o.x, per)
	b := packEntries(db.s.slab.Bytes(o.x))
	at := func(i int) {
		a, n := readStr(b, offs[i])
		var v []byte
		if per == 2 {
			v, _ = readStr(b, n)
		}
		fn(a, v)
	}
	if count < 0 {
		for i := int64(0); i < -count; i++ {
			at(int(db.s.random() % uint64(size)))
		}
		return
	}
	// Partial Fisher-Yates over the indexes.
	idx := make([]int, size)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < int(count); i++ {
		j := i + int(db.s.random()%uint64(size-i))
		idx[i], idx[j] = idx[j], idx[i]
		at(idx[i])
	}
}

// packOffsets returns the offsets of the elements (groups of per strings)
// of a packed block, in a reused buffer.
func (db *DB) packOffsets(x slab.Handle, per int) []int {
	e := packEntries(db.s.slab.Bytes(x))
	offs := db.s.offs[:0]
	for o := 0; o < len(e); {
		offs = append(offs, o)
		for k := 0; k < per; k++ {
			_, o = readStr(e, o)
		}
	}
	db.s.offs = offs
	return offs
}

// objEach calls fn for every element of a hash (per 2) or a
// listpack/hashtable set (per 1).
func (db *DB) objEach(o *obj, per int, fn func(a, b []byte)) {
	if per == 2 {
		db.hashEach(o, func(f, v []byte) bool { fn(f, v); return true })
		return
	}
	db.setEach(o, func(m []byte) bool { fn(m, nil); return true })
}

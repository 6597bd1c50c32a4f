package engine

import "github.com/radish-kv/radish/engine/slab"

// MemoryUsage returns the slab bytes key holds (MEMORY USAGE): its leaf
// block (flags, the whole key, the expiry, an inline value, the access
// clock) and every block of its value, each counted at its block size,
// as UsedMemory counts them. ok is false when key is absent. It reads the
// value's structure, never its elements, so it needs no sampling.
func (db *DB) MemoryUsage(key []byte, now int64) (int64, bool) {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return 0, false
	}
	sl := db.s.slab
	n := int64(sl.BlockSize(h))
	t := leafTyp(l.flags)
	if !hasExt(t, l.enc()) {
		return n, true
	}
	x, _ := l.extRef()
	if o := objTypes[t]; t != TypeString && o != nil && o.size != nil {
		return n + o.size(db, l.enc(), x), true
	}
	return n + int64(sl.BlockSize(x)), true
}

// tabSize is the bytes of an object hash table and its entry blocks.
func (db *DB) tabSize(x slab.Handle) int64 {
	sl := db.s.slab
	n := int64(sl.BlockSize(x))
	db.tabEach(x, func(e slab.Handle) bool {
		n += int64(sl.BlockSize(e))
		return true
	})
	return n
}

// hashSetSize is a hash's or a set's size: a table, or one block.
func hashSetSize(db *DB, enc int, x slab.Handle) int64 {
	if enc == encHashtable {
		return db.tabSize(x)
	}
	return int64(db.s.slab.BlockSize(x))
}

func zsetSize(db *DB, enc int, x slab.Handle) int64 {
	if enc != encSkiplist {
		return int64(db.s.slab.BlockSize(x))
	}
	z := db.openZsl(x)
	return z.size()
}

// size is the bytes of the skiplist's nodes, table and header, the
// blocks free frees.
func (z *zsl) size() int64 {
	sl := z.db.s.slab
	n := int64(sl.BlockSize(z.tab) + sl.BlockSize(z.h))
	for x := z.header; x != slab.Nil; x = z.fwd(x, 0) {
		n += int64(sl.BlockSize(x))
	}
	return n
}

func listSize(db *DB, _ int, x slab.Handle) int64 {
	q := db.s.openList(x)
	return q.size()
}

// size is the bytes of the quicklist's nodes and header, the blocks free
// frees.
func (q *qlist) size() int64 {
	n := int64(q.s.slab.BlockSize(q.h))
	for x := q.head; x != slab.Nil; x = nNext(q.nb(x)) {
		n += int64(q.s.slab.BlockSize(x))
	}
	return n
}

// streamSize is the bytes of a stream's root, index and node blocks, the
// blocks streamFree frees, and an estimate of its groups' Go memory.
func streamSize(db *DB, _ int, x slab.Handle) int64 {
	sl := db.s.slab
	st := stream{db, x}
	ix := st.index()
	b := sl.Bytes(ix)
	n := int64(sl.BlockSize(x) + sl.BlockSize(ix))
	for i := 0; i < ixCount(b); i++ {
		n += int64(sl.BlockSize(ixNode(b, i)))
	}
	return n + st.groupsSize()
}

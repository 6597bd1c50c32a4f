package engine

import "github.com/radish-kv/radish/engine/slab"

// Lazy freeing (UNLINK, FLUSHDB ASYNC), Redis's lazyfree without a thread:
// the key leaves its tree at once, and a value of more than
// LazyFreeThreshold blocks (a list's nodes, a hash table's entries, a
// skiplist's nodes: Redis's lazyfreeGetFreeEffort) is queued whole, to be
// freed by LazyFreeStep a bounded number of blocks at a time, which the
// shard calls once per loop turn; a database flushed ASYNC while other
// databases hold keys queues its whole tree the same way. Until then the
// blocks count in UsedMemory, as in Redis. A queued value is reached by
// nothing but the queue: its blocks start with a 0 byte, so a sampler
// that meets one knows it is no leaf, and a queued tree's leaves are in
// no database, so the sampler and the expiry wheel drop them.

// LazyFreeThreshold is Redis's LAZYFREE_THRESHOLD: a value whose freeing
// would touch more blocks goes to the queue.
const LazyFreeThreshold = 64

// lazyItem is a value (or a detached tree) being freed a slice at a time.
type lazyItem struct {
	t       Type
	enc     int
	x       slab.Handle   // the value's root block
	next    slab.Handle   // the next node to free (list, skiplist)
	started bool          // next is set
	slot    uint32        // the next table slot to free (hash, set)
	tree    []slab.Handle // a detached tree's blocks still to free
	db      *DB           // the tree's database
}

// freeEffort is Redis's lazyfreeGetFreeEffort: how many blocks freeing
// the value would touch.
func (db *DB) freeEffort(t Type, enc int, x slab.Handle) int {
	switch {
	case t == TypeList:
		return db.s.openList(x).nodes
	case (t == TypeHash || t == TypeSet) && enc == encHashtable:
		return tabCount(db.s.slab.Bytes(x))
	case t == TypeZSet && enc == encSkiplist:
		return db.openZsl(x).length
	}
	return 1
}

// Unlink deletes key as Delete does, but a large value is freed later, in
// slices (LazyFreeStep).
func (db *DB) Unlink(key []byte, now int64) bool {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return false
	}
	t, enc := leafTyp(l.flags), l.enc()
	if t == TypeString || objTypes[t] == nil {
		return db.Delete(key, now)
	}
	x, _ := l.extRef()
	if db.freeEffort(t, enc, x) <= LazyFreeThreshold {
		return db.Delete(key, now)
	}
	db.changed(key, 1)
	db.remove(key, slab.Nil)
	ttl := l.hasTTL()
	if ttl {
		db.expires--
	}
	db.keys--
	db.freeLeafBlock(h, ttl)
	db.s.lazy = append(db.s.lazy, lazyItem{t: t, enc: enc, x: x})
	return true
}

// FlushAsync is Flush with the database's keys freed later, in slices,
// when other databases hold keys (else the slab is reset at once, as
// Flush does).
func (db *DB) FlushAsync() {
	others := false
	for _, o := range db.s.dbs {
		if o != db && o.root != slab.Nil {
			others = true
			break
		}
	}
	if !others || db.root == slab.Nil {
		db.Flush()
		return
	}
	db.s.dirty += uint64(db.keys) + 1
	db.s.lazy = append(db.s.lazy, lazyItem{tree: []slab.Handle{db.root}, db: db})
	db.contents = contents{}
}

// LazyPending returns the number of values and trees waiting to be freed
// (INFO's lazyfree_pending_objects).
func (s *Store) LazyPending() int { return len(s.lazy) }

// LazyFreed returns the number of values and trees freed from the queue
// since the last ResetStats (INFO's lazyfreed_objects).
func (s *Store) LazyFreed() int64 { return s.lazyFreed }

// LazyFreeStep frees about budget blocks from the queue, oldest first.
func (s *Store) LazyFreeStep(budget int) {
	for budget > 0 && len(s.lazy) > 0 {
		it := &s.lazy[0]
		if budget = s.lazyStep(it, budget); budget <= 0 && !it.done() {
			return
		}
		if it.done() {
			s.lazy[0] = lazyItem{}
			s.lazy = s.lazy[1:]
			s.lazyFreed++
		}
	}
	if len(s.lazy) == 0 {
		s.lazy = nil
	}
}

// done reports whether every block of it is freed.
func (it *lazyItem) done() bool { return it.x == slab.Nil && it.tree == nil }

// lazyStep frees up to budget blocks of it and returns the budget left.
func (s *Store) lazyStep(it *lazyItem, budget int) int {
	sl := s.slab
	if it.tree != nil {
		db := it.db
		for budget > 0 && len(it.tree) > 0 {
			h := it.tree[len(it.tree)-1]
			it.tree = it.tree[:len(it.tree)-1]
			budget--
			if h == slab.Nil {
				continue
			}
			p := db.ptr(h)
			if isLeaf(p) {
				l := db.readLeaf(h)
				if t := leafTyp(l.flags); hasExt(t, l.enc()) {
					x, _ := l.extRef()
					if t != TypeString && objTypes[t] != nil && db.freeEffort(t, l.enc(), x) > LazyFreeThreshold {
						s.lazy = append(s.lazy, lazyItem{t: t, enc: l.enc(), x: x})
					} else {
						db.freeExt(t, l.enc(), x)
					}
				}
				db.freeLeafBlock(h, l.hasTTL())
				continue
			}
			it.tree = append(it.tree, hdrOf(p).end)
			forEachChild(p, func(_ byte, ch slab.Handle) bool {
				it.tree = append(it.tree, ch)
				return true
			})
			sl.Free(h)
		}
		if len(it.tree) == 0 {
			it.tree = nil
		}
		return budget
	}
	switch {
	case it.t == TypeList:
		if !it.started {
			it.next, it.started = s.openList(it.x).head, true
		}
		for budget > 0 && it.next != slab.Nil {
			n := it.next
			it.next = nNext(sl.Bytes(n))
			sl.Free(n)
			budget--
		}
	case (it.t == TypeHash || it.t == TypeSet) && it.enc == encHashtable:
		b := sl.Bytes(it.x)
		for ; budget > 0 && it.slot <= tabMask(b); it.slot++ {
			if e := tabSlot(b, it.slot); e != slab.Nil {
				sl.Free(e)
				budget--
			}
		}
		if it.slot <= tabMask(b) {
			return budget
		}
	case it.t == TypeZSet && it.enc == encSkiplist:
		z := s.dbs[0].openZsl(it.x)
		if !it.started {
			it.next, it.started = z.header, true
		}
		for budget > 0 && it.next != slab.Nil {
			n := it.next
			it.next = z.fwd(n, 0)
			sl.Free(n)
			budget--
		}
		if it.next == slab.Nil {
			sl.Free(z.tab)
		}
	}
	if it.next != slab.Nil {
		return budget
	}
	// The root: a list's header, a hash table, a skiplist's header.
	sl.Free(it.x)
	it.x = slab.Nil
	return budget - 1
}

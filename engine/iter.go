package engine

import (
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
)

// walker is one in-order traversal: Keys, Scan, Ascend and ExportAfter. It lives in the
// DB and is reused, so that a traversal allocates nothing. Traversals do not
// nest and never change the tree.
type walker struct {
	db       *DB
	g        glob
	pat      bool   // a pattern filters keys
	nfa      bool   // ... and its compiled form prunes subtrees
	lit      []byte // keys must start with lit (patterns without the NFA, Ascend)
	bound    []byte // only keys > bound, when hasBound
	hasBound bool
	typ      Type
	now      int64
	budget   int // leaves left to examine; < 0: unlimited
	keysFn   func(key []byte) bool
	scanFn   func(key []byte)
	exp      Exporter // ExportAfter's, with the buffer of its values
	buf      []byte
	last     slab.Handle // last leaf examined
}

func (w *walker) reset(db *DB, now int64) {
	*w = walker{db: db, g: w.g, now: now, budget: -1}
	w.g.prefix = w.g.prefix[:0]
}

func (w *walker) setPattern(pattern []byte) {
	w.g.compile(pattern, false)
	w.pat = !w.g.all
	w.nfa = w.pat && w.g.nfa
	if w.pat && !w.nfa {
		w.lit = w.g.prefix
	}
}

// run walks the whole tree; it reports whether it finished (false: stopped
// by the callback or the budget).
func (w *walker) run() bool {
	if w.db.root == slab.Nil {
		return true
	}
	var st uint64
	if w.nfa {
		st = w.g.start()
	}
	return w.walk(w.db.root, 0, st, w.hasBound, len(w.lit) > 0)
}

// walk visits the subtree h whose keys share the path's first depth bytes.
// boundOn: the path equals bound[:depth] (else every key here is > bound);
// litOn: the path equals lit[:depth] while shorter than lit. st is the
// pattern's state after the path.
func (w *walker) walk(h slab.Handle, depth int, st uint64, boundOn, litOn bool) bool {
	db := w.db
	p := db.ptr(h)
	if isLeaf(p) {
		return w.visit(h, p, depth, st, boundOn, litOn)
	}
	hd := hdrOf(p)
	if plen := int(hd.plen); plen != 0 {
		if boundOn || litOn || w.nfa {
			pf := db.fullPrefix(h, p, depth)
			if boundOn {
				rest := w.bound[depth:]
				n := min(plen, len(rest))
				switch c := compareBytes(pf[:n], rest[:n]); {
				case c < 0:
					return true // every key here is < bound
				case c > 0 || len(rest) < plen:
					boundOn = false
				}
			}
			if litOn {
				rest := w.lit[depth:]
				n := min(plen, len(rest))
				if string(pf[:n]) != string(rest[:n]) {
					return true
				}
				litOn = len(rest) > plen
			}
			if w.nfa {
				st = w.g.steps(st, pf)
				if !w.g.alive(st) {
					return true
				}
			}
		}
		depth += plen
	}
	if boundOn && depth >= len(w.bound) {
		// The path is bound itself: the end leaf equals it (skipped by
		// visit), every child is greater.
		if hd.end != slab.Nil && !w.walk(hd.end, depth, st, true, litOn) {
			return false
		}
		boundOn = false
	} else if hd.end != slab.Nil && !boundOn && !litOn {
		if !w.walk(hd.end, depth, st, false, false) {
			return false
		}
	}
	// Children: from the bound's or literal's byte when one constrains them.
	from := 0
	if boundOn {
		from = int(w.bound[depth])
	}
	if litOn {
		lc := int(w.lit[depth])
		if lc < from {
			return true
		}
		return w.child(p, depth, st, byte(lc), boundOn && lc == from, len(w.lit) > depth+1)
	}
	if w.nfa {
		if b := w.g.only(st); b >= 0 {
			if b < from {
				return true
			}
			return w.child(p, depth, st, byte(b), boundOn && b == from, false)
		}
	}
	k := &kinds[hd.kind]
	switch hd.kind {
	case nodeN10, nodeN16:
		keys, kids := keysOf(p, k), kidsOf(p, k)
		for i := 0; i < int(hd.count); i++ {
			c := int(keys[i])
			if c < from {
				continue
			}
			if !w.descend(kids[i], depth, st, byte(c), boundOn && c == from) {
				return false
			}
		}
	case nodeN48:
		idx, kids := keysOf(p, k), kidsOf(p, k)
		for c := from; c < 256; c++ {
			if i := idx[c]; i != 0 && !w.descend(kids[i-1], depth, st, byte(c), boundOn && c == from) {
				return false
			}
		}
	case nodeN256:
		kids := kidsOf(p, k)
		for c := from; c < 256; c++ {
			if ch := kids[c]; ch != slab.Nil && !w.descend(ch, depth, st, byte(c), boundOn && c == from) {
				return false
			}
		}
	}
	return true
}

// child descends into byte c's child of p, if there is one.
func (w *walker) child(p unsafe.Pointer, depth int, st uint64, c byte, boundOn, litOn bool) bool {
	ref := findChild(p, c)
	if ref == nil {
		return true
	}
	if w.nfa {
		st = w.g.step(st, c)
		if !w.g.alive(st) {
			return true
		}
	}
	return w.walk(*ref, depth+1, st, boundOn, litOn)
}

func (w *walker) descend(ch slab.Handle, depth int, st uint64, c byte, boundOn bool) bool {
	if w.nfa {
		st = w.g.step(st, c)
		if !w.g.alive(st) {
			return true
		}
	}
	return w.walk(ch, depth+1, st, boundOn, false)
}

// visit examines one leaf whose key's first depth bytes led to st.
func (w *walker) visit(h slab.Handle, p unsafe.Pointer, depth int, st uint64, boundOn, litOn bool) bool {
	key := leafKey(p)
	if boundOn && compareBytes(key, w.bound) <= 0 {
		return true
	}
	if litOn && !hasPrefix(key, w.lit) {
		return true
	}
	w.last = h
	ok := true
	switch {
	case w.nfa:
		ok = w.g.accepts(w.g.steps(st, key[depth:]), len(key))
	case w.pat:
		ok = Match(w.g.pattern, key, false)
	}
	if ok {
		f := *(*byte)(p)
		if w.typ != TypeNone && leafTyp(f) != w.typ {
			ok = false
		} else if f&ttlBit != 0 {
			l := w.db.readLeaf(h)
			ok = !l.expired(w.now)
		}
	}
	if ok {
		if w.keysFn != nil {
			if !w.keysFn(key) {
				return false
			}
		} else if w.exp != nil {
			r, idle, freq, out := w.db.exportLeaf(h, w.buf[:0])
			w.buf = out
			if !w.exp.Export(key, r, idle, freq) {
				return false
			}
		} else {
			w.scanFn(key)
		}
	}
	if w.budget > 0 {
		w.budget--
		if w.budget == 0 {
			return false
		}
	}
	return true
}

func compareBytes(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

func hasPrefix(b, prefix []byte) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == string(prefix)
}

// Keys calls fn for every live key matching pattern (Redis glob,
// case-sensitive; "*" is every key, including the empty one, as KEYS does),
// in lexicographic order, until fn returns false. The walk descends only
// into subtrees the pattern can still match. key is borrowed for the call;
// fn must not modify the Store.
func (db *DB) Keys(pattern []byte, now int64, fn func(key []byte) bool) {
	db.s.seen(now)
	w := &db.w
	w.reset(db, now)
	w.setPattern(pattern)
	w.keysFn = fn
	w.run()
}

// Ascend calls fn for every live key that starts with prefix and is >= from
// (from nil: no lower bound), in lexicographic order, until fn returns
// false. key is borrowed for the call; fn must not modify the Store.
func (db *DB) Ascend(from, prefix []byte, now int64, fn func(key []byte) bool) {
	db.s.seen(now)
	w := &db.w
	w.reset(db, now)
	w.lit = prefix
	w.keysFn = fn
	if from != nil {
		// Keys > from, plus from itself: look it up directly.
		if _, h := db.lookup(from); h != slab.Nil && hasPrefix(from, prefix) {
			l := db.readLeaf(h)
			if !l.expired(now) && !fn(l.key) {
				return
			}
		}
		w.bound, w.hasBound = from, true
	}
	w.run()
}

// Scan resumes after the key that cursor denotes (0: from the start),
// examines up to count keys in key order (keys in pruned subtrees are not
// examined), calls fn for those that are live and match pattern (nil: no
// MATCH; non-nil empty: MATCH "") and typ (TypeNone: any), and returns the
// cursor of the last key examined, or 0 when the walk reached the end.
//
// A cursor names the last key examined: its leaf (slot, class, 15 bits of
// generation) and an entry of a ring of the DB's last 1024 cursors that
// keeps a copy of the key. Resolution: the ring entry, if the cursor is
// still there; else the leaf, if it is still the same live leaf and still
// in this DB; else (the cursor is older than 1024 Scan calls on this DB and
// its key was deleted or rewritten into another block since, or the cursor
// is not one this DB issued) the scan restarts from the beginning: keys may
// then be returned twice, but none that existed throughout is skipped. The
// only way to skip is a leaf slot reused an exact multiple of 32768 times
// while its cursor was out of the ring. key is borrowed for the call; fn
// must not modify the Store.
func (db *DB) Scan(cursor uint64, count int, pattern []byte, typ Type, now int64, fn func(key []byte)) (next uint64) {
	db.s.seen(now)
	if count <= 0 {
		count = 10
	}
	w := &db.w
	w.reset(db, now)
	if pattern != nil {
		w.setPattern(pattern)
	}
	w.typ = typ
	w.scanFn = fn
	w.budget = count
	if cursor != 0 {
		if b, ok := db.resolveCursor(cursor); ok {
			w.bound, w.hasBound = b, true
		}
	}
	if w.run() {
		return 0
	}
	return db.issueCursor(w.last)
}

const (
	cursorRing     = 1024
	cursorSlotBits = 25
	cursorGenBits  = 15
	cursorGenShift = cursorSlotBits + 6
	cursorRingShft = cursorGenShift + cursorGenBits // 46; ring index in bits 46..55
)

type cursorEnt struct {
	cur uint64
	key []byte
}

// cursorTable remembers the keys behind the last cursorRing cursors of a DB.
type cursorTable struct {
	ring  [cursorRing]cursorEnt
	next  int
	bytes int64 // capacity of the key copies
}

func (t *cursorTable) heapBytes() int64 { return int64(unsafe.Sizeof(*t)) + t.bytes }

// issueCursor returns a cursor for leaf h and records its key.
func (db *DB) issueCursor(h slab.Handle) uint64 {
	if db.cursors == nil {
		db.cursors = new(cursorTable)
	}
	t := db.cursors
	i := t.next
	t.next = (t.next + 1) % cursorRing
	r := uint64(db.s.slab.Ref(h))
	slot := r & (1<<cursorSlotBits - 1)
	class := uint64(slab.HandleClass(h))
	gen := r >> 32 & (1<<cursorGenBits - 1)
	cur := slot | class<<cursorSlotBits | gen<<cursorGenShift | uint64(i)<<cursorRingShft
	e := &t.ring[i]
	key := leafKey(db.ptr(h))
	t.bytes -= int64(cap(e.key))
	if cap(e.key) > 4096 && len(key) <= 4096 {
		e.key = nil // do not pin a huge buffer for a small key
	}
	e.key = append(e.key[:0], key...)
	t.bytes += int64(cap(e.key))
	e.cur = cur
	return cur
}

// resolveCursor returns the key a cursor resumes after (see Scan).
func (db *DB) resolveCursor(cur uint64) ([]byte, bool) {
	if cur >= 1<<56 {
		return nil, false
	}
	if t := db.cursors; t != nil {
		if e := &t.ring[cur>>cursorRingShft]; e.cur == cur {
			return e.key, true
		}
	}
	class := cur >> cursorSlotBits & 63
	gen := cur >> cursorGenShift & (1<<cursorGenBits - 1)
	h := slab.Handle(class<<26 | (gen&1)<<25 | cur&(1<<cursorSlotBits-1))
	if class == 0 || !db.s.slab.Valid(h) {
		return nil, false
	}
	if uint64(db.s.slab.Ref(h))>>32&(1<<cursorGenBits-1) != gen || !isLeaf(db.ptr(h)) {
		return nil, false
	}
	key := leafKey(db.ptr(h))
	if _, lh := db.lookup(key); lh != h {
		return nil, false
	}
	return key, true
}

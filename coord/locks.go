package coord

import "unsafe"

// Intent is how a command or a transaction uses a key: Shared (it only
// reads it) or Exclusive (it may write it).
type Intent uint8

// Intents.
const (
	Shared Intent = iota
	Exclusive
)

// Key is one key a piece of work declares, with its intent. A held lock
// keeps its own copy of the name; a queued item or lock request keeps
// Key.Name itself, which must stay valid while it waits.
type Key struct {
	Name   []byte
	Intent Intent
}

// Item is work that waits in a Table's queue: a command on keys a
// transaction holds (Txn 0), or a transaction's lock request (Txn set:
// running it takes the locks). Run is called once, when its keys are free.
type Item struct {
	Keys []Key
	Txn  uint64
	// All: the item touches every key (a shard's part of DBSIZE, FLUSHDB,
	// SWAPDB ...): it waits for every lock and every earlier item, and
	// every later item waits for it. Keys are unused; with Txn set it is
	// LockAll's request, and running it takes every key for Txn.
	All bool
	Run func()
}

// lock is a key's holders: one exclusive transaction, or shared ones.
type lock struct {
	excl   uint64 // the exclusive holder, 0: none
	shared int    // shared holders
	// name holds the key's bytes: the held map's key aliases them (see
	// newLock), so a lock taken costs no allocation once the free list
	// has one.
	name []byte
}

// Table is one shard's key locks and the queue of work waiting for them
// (VLL's intent queue). It is owned by the shard's goroutine.
//
// Rules: a key is held by one exclusive transaction or by any number of
// shared ones. Work whose keys conflict with a holder, or that touches a
// key an earlier queued item touches, waits in arrival order; so work on
// one key runs in the order it arrived, and two readers of a key (MGETs)
// never wait for each other.
type Table struct {
	held    map[string]*lock
	waiting map[string]int // key -> queued (or picked, not yet run) items that touch it
	all     int            // queued (or picked, not yet run) items that touch every key
	allBy   uint64         // the transaction that holds every key (LockAll), 0: none
	queue   []*Item

	waking, again bool    // wake is running; an Unlock asked for another round
	batch         []*Item // scratch for pick
	// seen is pick's scratch: the keys of items still waiting, as strings
	// over the items' own bytes (viewOf), empty between picks.
	seen  map[string]struct{}
	spare []*lock // released locks, for newLock
}

// maxFreeLocks bounds the free list: what a burst of transactions held
// beyond it goes to the garbage collector.
const maxFreeLocks = 4096

// newLock is a lock of no holder for key, and the string the held map
// keys it by: it aliases the lock's own copy of key, which stays as it
// is while the lock is in the map (freeLock runs after the delete).
func (t *Table) newLock(key []byte) (*lock, string) {
	var l *lock
	if n := len(t.spare); n > 0 {
		l = t.spare[n-1]
		t.spare = t.spare[:n-1]
	} else {
		l = &lock{}
	}
	l.name = append(l.name[:0], key...)
	return l, viewOf(l.name)
}

// freeLock keeps l, just deleted from the held map, for newLock.
func (t *Table) freeLock(l *lock) {
	if len(t.spare) < maxFreeLocks && cap(l.name) <= 256 {
		t.spare = append(t.spare, l)
	}
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{held: make(map[string]*lock), waiting: make(map[string]int), seen: make(map[string]struct{})}
}

// Idle reports whether no key is held and nothing waits: then any work may
// run at once (the fast path: one comparison).
func (t *Table) Idle() bool {
	return len(t.held) == 0 && len(t.waiting) == 0 && t.all == 0 && t.allBy == 0
}

// Held reports whether key is held, and whether exclusively.
func (t *Table) Held(key []byte) (held, exclusive bool) {
	l, ok := t.held[string(key)]
	if !ok {
		return false, false
	}
	return true, l.excl != 0
}

// Queued returns the number of waiting items.
func (t *Table) Queued() int { return len(t.queue) }

// free reports whether k may be used now with its intent: no conflicting
// holder and no queued item before it on the key.
func (t *Table) free(k Key) bool {
	return t.all == 0 && t.waiting[string(k.Name)] == 0 && t.holdersAllow(k)
}

// Free reports whether work on keys may run now.
func (t *Table) Free(keys []Key) bool {
	if t.Idle() {
		return true
	}
	for _, k := range keys {
		if !t.free(k) {
			return false
		}
	}
	return true
}

// FreeArgs is Free for the keys at positions idx of args, all with
// intent in; it does not allocate.
func (t *Table) FreeArgs(args [][]byte, idx []int, in Intent) bool {
	if t.Idle() {
		return true
	}
	for _, i := range idx {
		if !t.free(Key{Name: args[i], Intent: in}) {
			return false
		}
	}
	return true
}

// take gives keys to transaction txn.
func (t *Table) take(txn uint64, keys []Key) {
	for _, k := range keys {
		l := t.held[string(k.Name)]
		if l == nil {
			var name string
			l, name = t.newLock(k.Name)
			t.held[name] = l
		}
		if k.Intent == Exclusive {
			l.excl = txn
		} else {
			l.shared++
		}
	}
}

// TryLock takes keys for txn when they are free now and reports whether
// it did; it never queues (the optimistic first round of a transaction:
// see the package comment).
func (t *Table) TryLock(txn uint64, keys []Key) bool {
	if !t.Free(keys) {
		return false
	}
	t.take(txn, keys)
	return true
}

// Lock takes keys for txn and calls granted: at once when they are free,
// else after the work before it released them (keys must stay valid
// until then).
func (t *Table) Lock(txn uint64, keys []Key, granted func()) {
	if t.TryLock(txn, keys) {
		granted()
		return
	}
	t.Enqueue(&Item{Keys: keys, Txn: txn, Run: granted})
}

// TryLockAll takes every key for txn when nothing is held or waits, and
// reports whether it did; it never queues.
func (t *Table) TryLockAll(txn uint64) bool {
	if !t.Idle() {
		return false
	}
	t.allBy = txn
	return true
}

// LockAll takes every key for txn (a transaction with a command that has
// no fixed keys: KEYS, FLUSHALL, SCAN ...) and calls granted: at once when
// nothing is held or waits, else once everything before it ran and
// released. Until UnlockAll, all other work waits.
func (t *Table) LockAll(txn uint64, granted func()) {
	if t.TryLockAll(txn) {
		granted()
		return
	}
	t.Enqueue(&Item{All: true, Txn: txn, Run: granted})
}

// UnlockAll releases every key txn took with LockAll and runs the queued
// items that can run now.
func (t *Table) UnlockAll(txn uint64) {
	if t.allBy == txn {
		t.allBy = 0
	}
	t.wake()
}

// RunAll runs fn, which touches every key, now when nothing is held or
// waits, else queues it behind all of that (an All item).
func (t *Table) RunAll(fn func()) {
	if t.Idle() {
		fn()
		return
	}
	t.Enqueue(&Item{All: true, Run: fn})
}

// Enqueue queues an item behind the holders and the earlier items. Its
// Keys must stay valid while it waits.
func (t *Table) Enqueue(it *Item) {
	if it.All {
		t.all++
	}
	for _, k := range it.Keys {
		t.waiting[string(k.Name)]++
	}
	t.queue = append(t.queue, it)
}

// Unlock releases what txn holds of keys (with the intents it took them
// with) and runs, in order, the queued items that can run now.
func (t *Table) Unlock(txn uint64, keys []Key) {
	for _, k := range keys {
		l, ok := t.held[string(k.Name)]
		if !ok {
			continue
		}
		switch {
		case k.Intent == Exclusive && l.excl == txn:
			l.excl = 0
		case k.Intent == Shared && l.shared > 0:
			l.shared--
		}
		if l.excl == 0 && l.shared == 0 {
			delete(t.held, string(k.Name))
			t.freeLock(l)
		}
	}
	t.wake()
}

// wake runs the queued items whose keys are free, in arrival order; an
// item that still waits holds back later items on its keys.
//
// An item's Run may queue, lock and unlock (a deferred command's reply lets
// its connection read on). So wake first picks a batch (taking the locks of
// its lock requests), leaving the picked items counted as waiting until
// each runs, so that work arriving meanwhile queues behind them; an Unlock
// inside a Run only asks for another round.
func (t *Table) wake() {
	if t.waking {
		t.again = true
		return
	}
	t.waking = true
	for {
		t.again = false
		batch := t.pick()
		for i, it := range batch {
			batch[i] = nil
			if it.All {
				t.all--
			}
			for _, k := range it.Keys {
				if t.waiting[string(k.Name)]--; t.waiting[string(k.Name)] == 0 {
					delete(t.waiting, string(k.Name))
				}
			}
			it.Run()
		}
		t.batch = batch[:0]
		if len(batch) == 0 && !t.again {
			break
		}
	}
	t.waking = false
}

// pick removes from the queue, in order, the items that can run now and
// returns them; their keys stay counted in waiting.
func (t *Table) pick() []*Item {
	batch := t.batch[:0]
	kept := t.queue[:0]
	for j, it := range t.queue {
		if it.All {
			// It runs alone: once nothing before it is held or waits;
			// everything after it waits for the next round.
			if len(kept) == 0 && len(t.held) == 0 && t.allBy == 0 {
				if it.Txn != 0 {
					t.allBy = it.Txn
				}
				batch = append(batch, it)
				kept = append(kept, t.queue[j+1:]...)
				break
			}
			kept = append(kept, t.queue[j:]...)
			break
		}
		ok := true
		for _, k := range it.Keys {
			if _, behind := t.seen[string(k.Name)]; behind || !t.holdersAllow(k) {
				ok = false
				break
			}
		}
		if !ok {
			for _, k := range it.Keys {
				t.seen[viewOf(k.Name)] = struct{}{}
			}
			kept = append(kept, it)
			continue
		}
		if it.Txn != 0 {
			t.take(it.Txn, it.Keys)
		}
		batch = append(batch, it)
	}
	clear(t.seen) // no view outlives the pick
	clear(t.queue[len(kept):])
	t.queue = kept
	return batch
}

// viewOf is b as a string without a copy, for a map entry that lives no
// longer than b's bytes stay unchanged (pick's seen: emptied before pick
// returns, while the items whose keys they are still wait).
func viewOf(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// holdersAllow reports whether k's holders let it be used with its intent.
func (t *Table) holdersAllow(k Key) bool {
	if t.allBy != 0 {
		return false
	}
	l, ok := t.held[string(k.Name)]
	return !ok || k.Intent == Shared && l.excl == 0
}

package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

// deferredItem is work that touches a key a txn holds, or a key an earlier
// deferred item touches. Items run in arrival order once their keys are free.
type deferredItem struct {
	keys [][]byte
	// all: the item touches every key (a part of DBSIZE, FLUSHDB, SWAPDB
	// ...): it waits for every lock and every earlier item, and every
	// later item waits for it.
	all bool
	// txn is non-zero for a lock request: running it takes the locks.
	txn uint64
	run func()
}

// blocked reports whether any of the keys at positions idx of args is
// locked by a txn or wanted by a deferred item. Cheap when nothing is.
func (s *Shard) blocked(args [][]byte, idx []int) bool {
	if len(s.locks) == 0 && len(s.waiting) == 0 && s.waitingAll == 0 {
		return false
	}
	for _, i := range idx {
		if s.keyBusy(args[i]) {
			return true
		}
	}
	return false
}

func (s *Shard) keyBusy(k []byte) bool {
	if s.waitingAll > 0 {
		return true
	}
	if _, ok := s.locks[string(k)]; ok {
		return true
	}
	return s.waiting[string(k)] > 0
}

func (s *Shard) anyBusy(keys [][]byte) bool {
	if len(s.locks) == 0 && len(s.waiting) == 0 && s.waitingAll == 0 {
		return false
	}
	for _, k := range keys {
		if s.keyBusy(k) {
			return true
		}
	}
	return false
}

// enqueue defers an item behind the txn locks and earlier items.
func (s *Shard) enqueue(it *deferredItem) {
	if it.all {
		s.waitingAll++
	}
	for _, k := range it.keys {
		s.waiting[string(k)]++
	}
	s.deferred = append(s.deferred, it)
}

// deferLocal queues a command of a local connection whose keys are busy.
func (s *Shard) deferLocal(c *conn, spec *command.Spec, args [][]byte, idx []int) {
	args = copyArgs(args)
	sl := s.pend(c)
	proto, db, nt := c.cl.Proto, c.cl.DB, c.cl.NoTouch
	s.enqueue(&deferredItem{keys: pick(args, idx), run: func() {
		b := s.execTo(nt, proto, db, spec, args)
		s.fill(c, sl, b)
	}})
}

// runOrDeferAll runs fn, which touches every key, now unless a key is
// locked or work waits: then after all of it.
func (s *Shard) runOrDeferAll(fn func()) {
	if len(s.locks) == 0 && len(s.deferred) == 0 {
		fn()
		return
	}
	s.enqueue(&deferredItem{all: true, run: fn})
}

// runOrDefer runs fn now unless the command's keys are busy.
func (s *Shard) runOrDefer(args [][]byte, spec *command.Spec, fn func()) {
	idx, _ := spec.Keys(args, nil)
	if !s.blocked(args, idx) {
		fn()
		return
	}
	s.enqueue(&deferredItem{keys: pick(args, idx), run: fn})
}

func pick(args [][]byte, idx []int) [][]byte {
	keys := make([][]byte, len(idx))
	for i, j := range idx {
		keys[i] = args[j]
	}
	return keys
}

// lock takes keys for txn id, or queues the request; granted runs once the
// keys are held.
func (s *Shard) lock(id uint64, keys [][]byte, granted func()) {
	if !s.anyBusy(keys) {
		for _, k := range keys {
			s.locks[string(k)] = id
		}
		granted()
		return
	}
	s.enqueue(&deferredItem{keys: keys, txn: id, run: granted})
}

// unlock releases id's keys and runs every deferred item that can run now.
func (s *Shard) unlock(id uint64, keys [][]byte) {
	for _, k := range keys {
		if s.locks[string(k)] == id {
			delete(s.locks, string(k))
		}
	}
	s.wakeDeferred()
}

// wakeDeferred runs, in order, the deferred items whose keys are free,
// keeping per-key order: an item still waiting holds back later items on
// the same keys.
func (s *Shard) wakeDeferred() {
	if len(s.deferred) == 0 {
		return
	}
	q := s.deferred
	s.deferred = nil
	clear(s.waiting)
	s.waitingAll = 0
	for _, it := range q {
		if it.all && (len(s.locks) > 0 || len(s.deferred) > 0) || s.anyBusy(it.keys) {
			s.enqueue(it)
			continue
		}
		if it.txn != 0 {
			for _, k := range it.keys {
				s.locks[string(k)] = it.txn
			}
		}
		it.run()
	}
}

// txn is a command whose keys span shards, coordinated by the shard that
// owns the client's connection.
type txn struct {
	id      uint64
	c       *conn
	sl      *slot
	spec    *command.Spec
	args    [][]byte // the command, copied
	noTouch bool     // the client's NO-TOUCH
	proto   int
	db      int
	parts   []router.Part // per shard, ascending shard order
	keys    [][][]byte    // per part: the keys it locks
	got     int
	reply   [][]byte
	oom     bool // a shard is out of memory: the txn is refused whole
	// done, when set, takes the reply instead of the connection's slot
	// (a blocked BLMOVE across shards decides whether it was served).
	done func(out []byte)
	// blockFn, when set, is a blocking command's first attempt over keys
	// on several shards, run with the gather plan instead of the handler;
	// when it would block, wouldBlock runs instead of any reply.
	blockFn    command.BlockFunc
	wouldBlock func()
}

// multi runs a command whose keys span shards as a txn: lock every part's
// keys shard by shard in ascending order (no deadlock: a txn waits only
// while holding lower shards), then run all parts, each unlocking as it
// finishes, then merge the replies.
func (s *Shard) multi(c *conn, spec *command.Spec, args [][]byte, idx []int) {
	t := s.newTxn(c, spec, args, idx)
	t.sl = s.pend(c)
	c.barrier = true
	s.acquire(t, 0)
}

// newTxn prepares a txn for a command whose keys span shards.
func (s *Shard) newTxn(c *conn, spec *command.Spec, args [][]byte, idx []int) *txn {
	s.stats.txns++
	s.txnSeq++
	t := &txn{
		id:      uint64(s.id+1)<<48 | s.txnSeq,
		c:       c,
		spec:    spec,
		proto:   c.cl.Proto,
		db:      c.cl.DB,
		noTouch: c.cl.NoTouch,
	}
	t.args = copyArgs(args)
	for _, p := range s.split.Split(spec, t.args, idx, len(s.group.shards)) {
		t.parts = append(t.parts, p.Clone())
	}
	t.keys = make([][][]byte, len(t.parts))
	for i, p := range t.parts {
		t.keys[i] = pick(p.Args, p.KeyIdx)
	}
	t.reply = make([][]byte, len(t.parts))
	return t
}

// acquire locks part i's keys on its shard, then the next part's.
func (s *Shard) acquire(t *txn, i int) {
	if i == len(t.parts) {
		if t.oom {
			s.refuse(t)
			return
		}
		s.runParts(t)
		return
	}
	home := s.id
	s.send(t.parts[i].Shard, msgLock, func(o *Shard) {
		o.lock(t.id, t.keys[i], func() {
			oom := o.oom(t.spec)
			o.send(home, msgLockGranted, func(h *Shard) {
				t.oom = t.oom || oom
				h.acquire(t, i+1)
			})
		})
	})
}

// refuse unlocks every part of t and answers the OOM error.
func (s *Shard) refuse(t *txn) {
	left := len(t.parts)
	for i := range t.parts {
		s.on(t, i, msgUnlock, func(o *Shard) any {
			o.unlock(t.id, t.keys[i])
			return nil
		}, func(any) {
			if left--; left == 0 {
				w := resp.Writer{Proto: t.proto}
				w.Error(errOOM)
				s.finish(t, w.B)
			}
		})
	}
}

// runParts runs the locked txn: a command with one reply (MergeNone) with
// the gather plan, any other as its parts, each on its shard, merged.
func (s *Shard) runParts(t *txn) {
	if t.spec.Merge == command.MergeNone || t.blockFn != nil {
		s.gather(t)
		return
	}
	for i := range t.parts {
		s.on(t, i, msgPartRun, func(o *Shard) any {
			w := resp.Writer{Proto: t.proto}
			o.run1(&w, nil, t.noTouch, t.db, t.spec, t.parts[i].Args)
			o.unlock(t.id, t.keys[i])
			return w.B
		}, func(r any) { s.partDone(t, i, r.([]byte)) })
	}
}

func (s *Shard) partDone(t *txn, i int, b []byte) {
	t.reply[i] = b
	t.got++
	if t.got < len(t.parts) {
		return
	}
	out := router.Merge(t.spec.Merge, t.proto, t.parts, t.reply)
	s.finish(t, out)
}

// finish fills the txn's reply slot and lets the connection read on.
func (s *Shard) finish(t *txn, out []byte) {
	if t.done != nil {
		t.done(out)
		return
	}
	c := t.c
	c.barrier = false
	s.fill(c, t.sl, out)
	if !c.dead && !c.closing {
		s.serve(c)
	}
}

// fanOutAll runs a command on every shard (DBSIZE, KEYS, FLUSHALL) and
// merges the replies. Like a txn it is a barrier for its connection.
func (s *Shard) fanOutAll(c *conn, spec *command.Spec, args [][]byte) {
	n := len(s.group.shards)
	t := &txn{c: c, spec: spec, proto: c.cl.Proto, db: c.cl.DB, noTouch: c.cl.NoTouch}
	args = copyArgs(args)
	t.parts = make([]router.Part, n)
	for i := range t.parts {
		t.parts[i] = router.Part{Shard: i, Args: args}
	}
	t.reply = make([][]byte, n)
	t.sl = s.pend(c)
	c.barrier = true
	home := s.id
	for i := range t.parts {
		// Behind every lock and deferred command on the shard, so that it
		// sees (or flushes, or swaps) what was sent before it.
		s.send(i, msgPartRun, func(o *Shard) {
			o.runOrDeferAll(func() {
				b := o.execTo(t.noTouch, t.proto, t.db, spec, args)
				o.send(home, msgPartDone, func(h *Shard) { h.partDone(t, i, b) })
			})
		})
	}
}

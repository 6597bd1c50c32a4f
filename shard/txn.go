package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

// Key locks are a coord.Table (s.locks): a key a txn holds exclusively, or
// one an earlier waiting item wants, makes work on it wait in arrival
// order; keys txns only read are held shared, so readers never wait for
// each other.

// intentOf is the intent a command that is not a txn has on its keys.
func intentOf(spec *command.Spec) coord.Intent {
	if spec.Flags&command.Write != 0 {
		return coord.Exclusive
	}
	return coord.Shared
}

// blocked reports whether any of the keys at positions idx of args is
// locked by a txn against spec's intent, or wanted by a waiting item.
// Cheap when nothing is locked.
func (s *Shard) blocked(spec *command.Spec, args [][]byte, idx []int) bool {
	return !s.locks.FreeArgs(args, idx, intentOf(spec))
}

// runOrDeferAll runs fn, which touches every key, now unless a key is
// locked or work waits: then after all of it.
func (s *Shard) runOrDeferAll(fn func()) {
	s.locks.RunAll(fn)
}

// deferLocal queues a command of a local connection whose keys are busy.
func (s *Shard) deferLocal(c *conn, spec *command.Spec, args [][]byte, idx []int) {
	args = command.CopyArgs(args)
	sl := s.pend(c)
	proto, db, nt, who := c.cl.Proto, c.cl.DB, c.cl.NoTouch, c.reader(s.id, true)
	s.locks.Enqueue(&coord.Item{Keys: pick(args, idx, intentOf(spec)), Run: func() {
		s.who = who
		b := s.execTo(nt, proto, db, spec, args)
		s.who = reader{}
		s.fill(c, sl, b)
	}})
}

// runOrDefer runs fn now unless the command's keys are busy.
func (s *Shard) runOrDefer(args [][]byte, spec *command.Spec, fn func()) {
	idx, _ := spec.Keys(args, nil)
	if !s.blocked(spec, args, idx) {
		fn()
		return
	}
	s.locks.Enqueue(&coord.Item{Keys: pick(args, idx, intentOf(spec)), Run: fn})
}

// pickKeys is pick into the shard's scratch, valid until its next call.
func (s *Shard) pickKeys(args [][]byte, idx []int, in coord.Intent) []coord.Key {
	s.picked = s.picked[:0]
	for _, j := range idx {
		s.picked = append(s.picked, coord.Key{Name: args[j], Intent: in})
	}
	return s.picked
}

// pick returns the keys at positions idx of args, all with intent in.
func pick(args [][]byte, idx []int, in coord.Intent) []coord.Key {
	keys := make([]coord.Key, len(idx))
	for i, j := range idx {
		keys[i] = coord.Key{Name: args[j], Intent: in}
	}
	return keys
}

// lock takes keys for txn id, or queues the request; granted runs once the
// keys are held.
func (s *Shard) lock(id uint64, keys []coord.Key, granted func()) {
	s.locks.Lock(id, keys, granted)
}

// unlock releases id's keys and runs the waiting work that can run now.
func (s *Shard) unlock(id uint64, keys []coord.Key) {
	s.locks.Unlock(id, keys)
}

// txn is a command whose keys span shards, coordinated by the shard that
// owns the client's connection.
type txn struct {
	id      uint64
	seq     uint64 // its lock order, while the shards feed a stream (primary.go)
	once    bool   // a command on every shard (fanOutAll, or one of an EXEC's): see command.Tag
	c       *conn
	sl      *slot
	spec    *command.Spec
	merge   command.Merge // how the parts' replies combine: the row's, or its Route's
	args    [][]byte      // the command, copied
	noTouch bool          // the client's NO-TOUCH
	who     reader        // the client it runs for (tracking.go)
	proto   int
	db      int
	parts   []router.Part // per shard, ascending shard order
	co      coord.Txn     // taking the locks: per part, the keys with their intents
	got     int
	reply   [][]byte
	// pushed are the messages the part on the connection's own shard
	// delivered to the connection itself (a PUBLISH inside EXEC to a
	// channel it subscribes to): they go before the reply, as Redis
	// writes them (pubsub.go, selfPush).
	pushed []byte
	// done, when set, takes the reply instead of the connection's slot
	// (a blocked BLMOVE across shards decides whether it was served).
	done func(out []byte)
	// blockFn, when set, is a blocking command's first attempt over keys
	// on several shards, run with the gather plan instead of the handler;
	// when it would block, wouldBlock runs instead of any reply.
	blockFn    command.BlockFunc
	wouldBlock func()

	// An EXEC's txn (multi.go): its commands in queue order, their rounds
	// and replies, and the watched keys, all of them and per part. dirty:
	// a grant found a watched key changed.
	cmds    []txCmd
	byShard []int // newExec's partsBuilder's, kept for the next EXEC
	rounds  []coord.Round
	last    []int // per part, the round that releases it (coord.Txn.LastRounds)
	res     [][]byte
	watched []watched
	watch   [][]watched
	dirty   bool
	quiet   bool // CLIENT REPLY OFF or SKIP: EXEC's reply is dropped
	// eps are the parts' shares of a round (execmsg.go), carried by pms;
	// roundLeft, the parts whose answers the round still waits for.
	eps       []execPart
	roundLeft int
	// in, when set, is the EXEC this command runs inside: its parts are
	// inPart of in's, whose locks cover them, so it neither takes nor
	// releases any; inCmd is its place in in's queue.
	in     *txn
	inPart []int
	inCmd  int
	// run, when set, is what runs once every key is held (a script's
	// held run, script.go), instead of the parts.
	run func()
	// patterned: a Held command (patterns.go); its parts are every shard.
	patterned bool

	// The gather plan (cross.go): what each part exports and writes back,
	// one message per part carrying it, and, once the command ran at home,
	// its reply or that it would block (a held script's write-backs too,
	// script.go).
	gp        coord.Gather
	pms       []partMsg
	gReply    []byte
	gBlocked  bool
	gFeedOnly bool // a held script's release with no reply to give

	// pooled: a plain command's txn, back to the shard's free list once
	// answered, with the buffers it keeps (txnpool.go). xb: an EXEC's
	// buffers, which the shard's next EXEC reuses (newExec).
	pooled bool
	bufs   txnBufs
	xb     execBufs
}

// tag marks the effects of part i.
func (t *txn) tag(i int) command.Tag {
	if t.in != nil { // a command of an EXEC: its place in the queue
		tg := t.in.tag(t.inPart[i])
		tg.Cmd, tg.All = t.inCmd, t.once
		return tg
	}
	return command.Tag{Txn: t.id, Part: i, Parts: len(t.parts), Seq: t.seq, All: t.once}
}

// multi runs a command whose keys span shards as a txn: lock every part's
// keys shard by shard in ascending order (no deadlock: a txn waits only
// while holding lower shards), then run all parts, each unlocking as it
// finishes, then merge the replies.
func (s *Shard) multi(c *conn, spec *command.Spec, args [][]byte, idx []int) {
	t := s.takeTxn()
	s.initTxn(t, c, spec)
	s.planTxn(t, spec, args, idx)
	t.sl = s.pooledSlot(c)
	c.barrier, c.span = true, t
	s.acquire(t)
}

// newTxn prepares a txn, not pooled, for a command whose keys span shards.
func (s *Shard) newTxn(c *conn, spec *command.Spec, args [][]byte, idx []int) *txn {
	t := &txn{}
	s.initTxn(t, c, spec)
	s.planTxn(t, spec, args, idx)
	return t
}

// initTxn gives t, new or pooled, its id and c's settings.
func (s *Shard) initTxn(t *txn, c *conn, spec *command.Spec) {
	s.stats.txns++
	s.txnSeq++
	t.id, t.c, t.spec, t.merge = uint64(s.id+1)<<48|s.txnSeq, c, spec, spec.Merge
	t.proto, t.db, t.noTouch, t.who = c.cl.Proto, c.cl.DB, c.cl.NoTouch, c.reader(s.id, false)
}

// partKeys appends to dst the keys part p locks: exclusive those the
// command may write, shared those it only reads (MGET's, SUNIONSTORE's
// sources).
func (s *Shard) partKeys(dst []coord.Key, spec *command.Spec, p router.Part) []coord.Key {
	from := len(dst)
	for _, j := range p.KeyIdx {
		dst = append(dst, coord.Key{Name: p.Args[j], Intent: coord.Shared})
	}
	w, _ := spec.WriteKeys(p.Args, s.writeIdx[:0])
	s.writeIdx = w
	for i, j := range p.KeyIdx {
		if slices.Contains(w, j) {
			dst[from+i].Intent = coord.Exclusive
		}
	}
	return dst
}

// acquire takes t's locks with coord's protocol, then runs the parts, or
// refuses t whole when a shard is out of memory.
func (s *Shard) acquire(t *txn) { s.steps(t, t.co.Begin()) }

// steps carries out what coord.Txn says to do next for t. Each lock
// message carries what its shard needs (lockMsg: the part's keys, the
// row); no shard but the home shard reads t.
func (s *Shard) steps(t *txn, steps []coord.Step) {
	for _, st := range steps {
		if st.Kind == coord.Run {
			s.lockOrder(t)
		}
		if st.Kind == coord.Run && t.run != nil {
			t.run()
			continue
		}
		if st.Kind == coord.Run && t.cmds != nil {
			s.runExec(t)
			continue
		}
		if st.Kind == coord.Run && t.once {
			s.runAll(t)
			continue
		}
		if st.Kind == coord.Run {
			s.runParts(t)
			continue
		}
		if st.Kind == coord.Refuse {
			s.refuse(t)
			continue
		}
		s.lockStep(t, st)
	}
}

// refuse unlocks every part of t and answers the OOM error (an EXEC's:
// the transaction is discarded) once every part is released (refused).
func (s *Shard) refuse(t *txn) {
	t.pms = make([]partMsg, len(t.parts))
	for i := range t.parts {
		t.pms[i] = partMsg{t: t, home: s.id, part: i, id: t.id, p: t.co.Parts[i]}
		s.sendPart(t.parts[i].Shard, msgUnlock, &t.pms[i])
	}
}

// refused is told that one more part of the refused t is released.
func (s *Shard) refused(t *txn) {
	if t.got++; t.got < len(t.parts) {
		return
	}
	w := resp.Writer{Proto: t.proto}
	if t.cmds != nil {
		w.Error(errtext.ExecAbortWhy + errtext.OOM)
		s.doneExec(t, w.B)
		return
	}
	w.Error(errtext.OOM)
	s.finish(t, w.B)
}

// runParts runs the locked txn: a command with one reply (MergeNone) with
// the gather plan, any other as its parts, each on its shard, merged.
func (s *Shard) runParts(t *txn) {
	if t.patterned {
		s.runPatterned(t)
		return
	}
	if t.merge == command.MergeNone || t.blockFn != nil {
		s.gather(t) // one reply: the handler runs once, on copies of the keys
		return
	}
	t.pms = t.partMsgs(len(t.parts))
	for i := range t.parts {
		t.pms[i] = partMsg{t: t, home: s.id, part: i, id: t.id, p: t.co.Parts[i], held: t.in != nil, tag: t.tag(i),
			spec: t.spec, args: t.parts[i].Args, db: t.db, proto: t.proto, noTouch: t.noTouch, who: t.who, whole: t.args,
			reply: t.pms[i].reply}
		s.sendPart(t.parts[i].Shard, msgPartRun, &t.pms[i])
	}
}

func (s *Shard) partDone(t *txn, i int, b []byte) {
	t.reply[i] = b
	t.got++
	if t.got < len(t.parts) {
		return
	}
	if t.pooled {
		// Into the pooled slot's buffer: nothing of t's is in the reply.
		s.finish(t, s.merger.Append(append(t.sl.buf[:0], t.pushed...), t.merge, t.proto, t.parts, t.reply))
		return
	}
	out := router.Merge(t.merge, t.proto, t.parts, t.reply)
	if len(t.pushed) > 0 {
		out = append(t.pushed, out...)
	}
	s.finish(t, out)
}

// finish fills the txn's reply slot and lets the connection read on.
func (s *Shard) finish(t *txn, out []byte) {
	s.feedDone(t)
	if t.c != nil && t.c.span == t {
		t.c.span = nil
	}
	if t.done != nil {
		t.done(out)
		return
	}
	c := t.c
	c.barrier = false
	s.fill(c, t.sl, out)
	if t.pooled {
		s.freeTxn(t)
	}
	if !c.dead && !c.closing {
		s.serve(c)
	}
}

// fanOutAll runs a command on every shard (DBSIZE, KEYS, FLUSHALL) and
// merges the replies. Like a txn it is a barrier for its connection. A
// read runs on each shard behind the locks and queued work there; a
// write (FLUSHALL, FLUSHDB, SWAPDB) first takes every shard whole with
// coord's protocol, as an EXEC's command with no fixed keys does, so
// that it is ordered the same way on every shard against the
// cross-shard transactions around it (an MSET is wholly before a
// SWAPDB or wholly after, here and in the replication stream).
func (s *Shard) fanOutAll(c *conn, spec *command.Spec, args [][]byte, merge command.Merge) {
	n := len(s.group.shards)
	s.txnSeq++
	t := &txn{id: uint64(s.id+1)<<48 | s.txnSeq, c: c, spec: spec, merge: merge, proto: c.cl.Proto, db: c.cl.DB, noTouch: c.cl.NoTouch,
		once: true}
	args = command.CopyArgs(args)
	t.args = args
	t.parts = make([]router.Part, n)
	for i := range t.parts {
		t.parts[i] = router.Part{Shard: i, Args: args}
	}
	t.reply = make([][]byte, n)
	t.sl = s.pend(c)
	c.barrier, c.span = true, t
	if spec.Flags&command.Write != 0 && n > 1 {
		t.co = coord.Txn{ID: t.id, Parts: make([]coord.Part, n)}
		for i := range t.co.Parts {
			t.co.Parts[i] = coord.Part{Shard: i, All: true}
		}
		s.acquire(t) // then runAll, holding every shard
		return
	}
	s.lockOrder(t)
	s.runAll(t)
}

// runAll sends fanOutAll's t to every shard: behind the shard's locks
// and queued work, or at once where t holds the shard (t.co).
func (s *Shard) runAll(t *txn) {
	t.pms = make([]partMsg, len(t.parts))
	for i := range t.parts {
		t.pms[i] = partMsg{t: t, home: s.id, part: i, id: t.id, all: true, tag: t.tag(i),
			spec: t.spec, args: t.args, db: t.db, proto: t.proto, noTouch: t.noTouch}
		if len(t.co.Parts) > 0 {
			t.pms[i].p, t.pms[i].locked = t.co.Parts[i], true
		}
		s.sendPart(i, msgPartRun, &t.pms[i])
	}
}

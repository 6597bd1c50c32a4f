package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

// MULTI, EXEC, DISCARD, WATCH and UNWATCH, with Redis 7.0's semantics.
//
// Between MULTI and EXEC a connection's commands are checked (unknown
// command, arity, NOAUTH, no_multi, out of memory: each refusal makes EXEC
// answer EXECABORT) and queued in the connection's multiState, whose
// buffers are reused: queueing allocates nothing once they have grown.
//
// WATCH registers each key on the shard that owns it (a message when that
// is not the connection's shard) and keeps the version it had (effects.go:
// every change to a watched key bumps it). EXEC checks the versions on
// the owning shards while it holds the keys: any change, the same
// client's writes and an expiry included, makes it answer a null array.
//
// EXEC runs the queue as one txn. Each command is placed as dispatch
// would place it (router.Planner); its keys, and the watched keys, are the
// txn's parts: per shard the keys with their intents (exclusive where a
// command may write), or the whole shard for a command with no fixed keys
// (KEYS, DBSIZE, FLUSHALL, SCAN: coord.Table.LockAll), or every shard
// whole for a Held command (SORT with patterns, patterns.go).
//   - No part (every command keyless: PING, SELECT) or one on this
//     shard: the txn runs here, at once or behind the work its keys wait
//     for, and costs no message.
//   - One part on another shard: that shard runs it alone, in one message.
//   - Several: coord's protocol takes every part's keys (the watched keys'
//     check rides on each grant), then the commands run in coord.Rounds,
//     each on its owning shard, in queue order; a command that spans shards
//     runs as a part of this txn (its own parts, the gather plan), not as a
//     txn of its own. The keys are released when the last round is done.
//
// Commands with no keys (PING, SELECT, CLIENT ...) run on the connection's
// shard once the rest has run: their replies do not depend on the data,
// and the database each queued command runs in is known when it is
// queued (Spec.Selects). Blocking commands run their non-blocking form.
//
// Effects: the effects one shard's share of an EXEC produces in one go
// (the whole txn on one shard; a round's share on one shard) are wrapped
// in MULTI ... EXEC when there are several, as Redis propagates an EXEC;
// across shards every effect carries its part's Tag.

// multiState is a connection's MULTI and its watched keys. Owned by the
// connection's shard.
type multiState struct {
	on    bool // between MULTI and EXEC or DISCARD
	dirty bool // a command was refused while queued: EXEC aborts
	// execing: its EXEC runs the queue (CLIENT LIST shows the MULTI, as
	// Redis's client keeps its MULTI flag until EXEC ends).
	execing bool
	db      int // the database the next queued command runs in
	cmds    []queued
	buf     []byte // the queued commands' arguments, back to back
	ends    []int  // where each argument ends in buf
	args    [][]byte
	// watched holds the keys WATCH registered, until EXEC, DISCARD,
	// UNWATCH, RESET or the connection's close.
	watched []watched
	// execArgs is an EXEC in flight whose MONITOR line waits for its end.
	execArgs [][]byte
}

// queued is a command queued inside MULTI.
type queued struct {
	spec *command.Spec
	db   int
	n    int // its arguments, in ends
}

// watched is a watched key: its owner and its version then.
type watched struct {
	db      int
	key     []byte
	shard   int
	v       uint64
	pending bool // its shard has not answered yet
}

// txCmd is a command of an EXEC's txn, as placed.
type txCmd struct {
	// denied is the reply of a command the ACL no longer allows (it runs
	// nowhere), or "".
	denied string
	spec   *command.Spec
	args   [][]byte
	db     int
	kind   router.Kind
	dst    int           // Owned, Hop, Scan: the shard that runs it
	parts  []router.Part // Parts: its share per shard
	// merge is how All's replies merge (Placement.Merge: CLIENT KILL's
	// old form and new differ).
	merge command.Merge
}

// inMulti reports whether c is inside MULTI.
func (c *conn) inMulti() bool { return c.tx != nil && c.tx.on }

// txDispatch runs what MULTI changes about a command: the transaction
// rows, and queueing inside MULTI. It reports whether it answered.
func (s *Shard) txDispatch(c *conn, spec *command.Spec, args [][]byte) bool {
	m := c.tx
	on := c.inMulti()
	if spec.Tx != command.TxQueued && spec.Tx < command.TxReset && !(on && spec.Tx == command.TxUnwatch) {
		// The transaction rows run here: INFO commandstats counts them.
		s.stats.commands++
		s.stats.count(spec)
		if s.mon.on && spec.Tx != command.TxExec {
			s.feedMonitors(c.cl.DB, &c.cl, spec, args)
		}
	}
	switch spec.Tx {
	case command.TxMulti:
		if on {
			s.failed(c, spec, errtext.MultiNested)
			return true
		}
		if m == nil {
			m = &multiState{}
			c.tx = m
		}
		m.on, m.db = true, c.cl.DB
		s.txReply(c, func(w *resp.Writer) { w.OK() })
		return true
	case command.TxExec:
		if !on {
			s.failed(c, spec, errtext.ExecNoMulti)
			return true
		}
		s.exec1(c)
		switch {
		case !s.mon.on:
		case c.barrier: // its commands run elsewhere: doneExec writes its line
			m.execArgs = command.CopyArgs(args)
		default: // after its commands, as Redis
			s.feedMonitors(c.cl.DB, &c.cl, spec, args)
		}
		return true
	case command.TxDiscard:
		if !on {
			s.failed(c, spec, errtext.DiscardNoMulti)
			return true
		}
		s.discard(c)
		s.txReply(c, func(w *resp.Writer) { w.OK() })
		return true
	case command.TxWatch:
		if on {
			s.failed(c, spec, errtext.WatchInMulti)
			return true
		}
		s.watchKeys(c, args)
		return true
	case command.TxUnwatch:
		if !on {
			s.unwatchAll(c)
			s.txReply(c, func(w *resp.Writer) { w.OK() })
			return true
		}
	case command.TxReset:
		if m != nil {
			s.discard(c)
		}
		return false
	case command.TxQuit:
		return false
	}
	if !on {
		return false
	}
	switch {
	case spec.Flags&command.NoMulti != 0:
		m.dirty = true
		s.stats.refusedCall(spec, errtext.NoMulti)
		s.replyError(c, errtext.NoMulti)
	case s.outOfMemory():
		// Queueing may take any amount of memory: Redis refuses every
		// command inside MULTI when over maxmemory.
		m.dirty = true
		s.stats.refusedCall(spec, errtext.OOM)
		s.replyError(c, errtext.OOM)
	default:
		m.queue(spec, args, s.group.opts.Databases)
		s.txReply(c, func(w *resp.Writer) { w.Simple("QUEUED") })
	}
	return true
}

// txRefused marks c's MULTI, if it is in one, as refused: a command
// could not be queued (unknown, wrong arity, NOAUTH).
func (c *conn) txRefused() {
	if c.inMulti() {
		c.tx.dirty = true
	}
}

// failed answers a transaction row's error, counted as its failed call.
func (s *Shard) failed(c *conn, spec *command.Spec, text string) {
	s.stats.failedCall(spec, []byte(text))
	s.replyError(c, text)
}

func (s *Shard) replyError(c *conn, text string) {
	s.txReply(c, func(w *resp.Writer) { w.Error(text) })
}

// txReply writes a reply of the transaction rows, or of queueing, unless
// CLIENT REPLY OFF or SKIP suppresses it.
func (s *Shard) txReply(c *conn, fn func(w *resp.Writer)) {
	switch c.cl.Reply {
	case command.ReplyOn:
		s.reply(c, fn)
	case command.ReplySkip:
		c.cl.Reply = command.ReplyOn
	}
}

// pendTx reserves the slot of a reply computed later and says whether
// CLIENT REPLY OFF or SKIP suppresses it.
func (s *Shard) pendTx(c *conn) (sl *slot, quiet bool) {
	quiet = c.cl.Reply != command.ReplyOn
	if c.cl.Reply == command.ReplySkip {
		c.cl.Reply = command.ReplyOn
	}
	return s.pooledSlot(c), quiet
}

// queue appends a command to the MULTI, copied.
func (m *multiState) queue(spec *command.Spec, args [][]byte, databases int) {
	for _, a := range args {
		m.buf = append(m.buf, a...)
		m.ends = append(m.ends, len(m.buf))
	}
	m.cmds = append(m.cmds, queued{spec: spec, db: m.db, n: len(args)})
	if spec.Selects != nil {
		if db := spec.Selects(args); db >= 0 && db < databases {
			m.db = db
		}
	}
}

// reset empties the queue and leaves MULTI, keeping the buffers.
func (m *multiState) reset() {
	m.on, m.dirty, m.execing = false, false, false
	clear(m.args)
	m.cmds, m.buf, m.ends, m.args = m.cmds[:0], m.buf[:0], m.ends[:0], m.args[:0]
}

// discard ends c's MULTI (DISCARD, RESET, an aborted EXEC) and forgets
// its watched keys.
func (s *Shard) discard(c *conn) {
	c.tx.reset()
	s.unwatchAll(c)
}

// watchKeys is WATCH: each key not yet watched is registered on its
// shard, behind the work queued there on it (an earlier command of the
// client's may wait for a txn's key: its write happens before the WATCH,
// as in Redis); the reply waits for the other shards' versions.
func (s *Shard) watchKeys(c *conn, args [][]byte) {
	m := c.tx
	if m == nil {
		m = &multiState{}
		c.tx = m
	}
	n, db := len(s.group.shards), c.cl.DB
	from := len(m.watched)
	var asked []int // shards asked, in order of first key
	for _, k := range args[1:] {
		if slices.ContainsFunc(m.watched, func(w watched) bool { return w.db == db && string(w.key) == string(k) }) {
			continue
		}
		w := watched{db: db, key: slices.Clone(k), shard: router.ShardOf(k, n)}
		if w.shard == s.id && s.locks.FreeArgs([][]byte{k}, []int{0}, coord.Shared) {
			w.v = s.watch(db, k)
		} else {
			w.pending = true
			if !slices.Contains(asked, w.shard) {
				asked = append(asked, w.shard)
			}
		}
		m.watched = append(m.watched, w)
	}
	if len(asked) == 0 {
		s.txReply(c, func(w *resp.Writer) { w.OK() })
		return
	}
	sl, quiet := s.pendTx(c)
	c.barrier = true
	run := &watchRun{c: c, m: m, sl: sl, quiet: quiet, left: len(asked)}
	for _, sh := range asked {
		var idx []int
		p := coord.Part{Shard: sh}
		for i := from; i < len(m.watched); i++ {
			if w := &m.watched[i]; w.pending && w.shard == sh {
				idx = append(idx, i)
				p.Keys = append(p.Keys, coord.Key{Name: w.key, Intent: coord.Shared})
			}
		}
		s.sendWatch(run, sh, db, p, idx)
	}
}

// unwatchAll forgets c's watched keys on their shards.
func (s *Shard) unwatchAll(c *conn) {
	if c.tx == nil {
		return
	}
	s.unwatchKeys(c.tx.watched)
	clear(c.tx.watched)
	c.tx.watched = c.tx.watched[:0]
}

// unwatchKeys undoes the watches of ws on their shards, but of those
// still pending (their answer undoes them: see watchKeys).
func (s *Shard) unwatchKeys(ws []watched) {
	for i := 0; i < len(ws); i++ {
		sh := ws[i].shard
		if ws[i].pending {
			continue
		}
		if sh == s.id {
			s.unwatch(ws[i].db, ws[i].key)
			continue
		}
		if slices.ContainsFunc(ws[:i], func(w watched) bool { return w.shard == sh && !w.pending }) {
			continue // sent with the first key of its shard
		}
		var mine []watched
		for _, w := range ws[i:] {
			if w.shard == sh && !w.pending {
				mine = append(mine, w)
			}
		}
		s.sendPart(sh, msgUnwatch, &partMsg{home: s.id, wp: &watchPart{ws: mine}})
	}
}

// outOfMemory reports whether memory is over the budget with nothing
// left to evict; never on a replica, which neither evicts nor refuses
// its primary's writes (Redis's replica-ignore-maxmemory yes).
func (s *Shard) outOfMemory() bool {
	if s.replica || !s.store.OverBudget() {
		return false
	}
	_, ok := s.store.Evict(s.now)
	return !ok
}

// exec1 is EXEC: it aborts a MULTI that had a refused command, else runs
// the queue as one txn (see the comment at the top).
func (s *Shard) exec1(c *conn) {
	m := c.tx
	if m.dirty {
		s.discard(c)
		s.failed(c, execSpec, errtext.ExecAbort)
		return
	}
	if e := s.execRefuses(m); e != "" {
		s.discard(c)
		s.stats.refusedCall(execSpec, e)
		s.replyError(c, errtext.ExecAbortWhy+e)
		return
	}
	t := s.newExec(c)
	m.on, m.execing = false, true
	c.tx.watched = c.tx.watched[:0] // t owns them now, until finishExec
	switch len(t.co.Parts) {
	case 0:
		s.execNow(t)
	case 1:
		p := t.co.Parts[0]
		if p.Shard == s.id && (!txnLocks || s.freeFor(p)) {
			s.execNow(t)
			return
		}
		t.sl, t.quiet = s.pendTx(c)
		c.barrier = true
		if p.Shard == s.id {
			s.whenFree(p, func() { s.doneExec(t, slices.Clone(s.execHere(t))) })
			return
		}
		s.alone(t)
	default:
		s.stats.txns++ // INFO's cross_shard_txns
		t.sl, t.quiet = s.pendTx(c)
		c.barrier = true
		if !txnLocks {
			s.runExec(t)
			return
		}
		s.acquire(t)
	}
}

// execNow runs t here at once and answers; t is the next EXEC's.
func (s *Shard) execNow(t *txn) {
	out := s.execHere(t)
	s.finishExec(t)
	s.txReply(t.c, func(w *resp.Writer) { w.B = append(w.B, out...) })
	s.spareExec(t)
}

// spareExec keeps t, answered, for a later EXEC of the shard's, without
// its replies (a reply buffer past maxTxnBuf is dropped, the others
// emptied by the next run) unless it grew past what a free list keeps.
func (s *Shard) spareExec(t *txn) {
	if len(s.execs) >= maxFreeTxns || cap(t.cmds) > maxTxnList || cap(t.xb.ints) > maxTxnList {
		return
	}
	clear(t.res)
	for i := range t.eps {
		for k, r := range t.eps[i].replies {
			if bigReply(r) {
				t.eps[i].replies[k] = nil
			}
		}
	}
	s.execs = append(s.execs, t)
}

// execRefuses is the error that refuses a whole EXEC before it runs, as
// Redis's processCommand does: writes while the AOF cannot be written
// (MISCONF). Memory is checked on every shard the txn runs on.
func (s *Shard) execRefuses(m *multiState) string {
	if s.aof.log == nil {
		return ""
	}
	for _, q := range m.cmds {
		if q.spec.Flags&command.Write != 0 {
			return s.aofRefuses(q.spec)
		}
	}
	return ""
}

// newExec makes the txn of c's queued commands: each placed, its keys and
// the watched keys gathered per shard with their intents.
func (s *Shard) newExec(c *conn) *txn {
	m := c.tx
	n := len(s.group.shards)
	s.txnSeq++
	t := popFree(&s.execs)
	if t == nil {
		t = new(txn)
	}
	cmds, coCmds, res, byShard := t.cmds[:0], t.co.Cmds[:0], t.res[:0], t.byShard[:0]
	parts, watch, coParts, pms, eps, xb := t.parts[:0], t.watch[:0], t.co.Parts[:0], t.pms, t.eps, t.xb
	*t = txn{id: uint64(s.id+1)<<48 | s.txnSeq, c: c, spec: execSpec, proto: c.cl.Proto,
		db: c.cl.DB, noTouch: c.cl.NoTouch, who: c.reader(s.id, false), pms: pms, eps: eps}
	xb.ints, xb.order = xb.ints[:0], xb.order[:0]
	t.xb = xb
	// The arguments, each capped so that a handler appending to one cannot
	// write over the next.
	start := 0
	for _, e := range m.ends {
		m.args = append(m.args, m.buf[start:e:e])
		start = e
	}
	b := &partsBuilder{byShard: slices.Grow(byShard, n)[:n], parts: t.xb.parts[:0]}
	for i := range b.byShard {
		b.byShard[i] = -1
	}
	t.byShard = b.byShard
	a := 0
	if cmds == nil {
		cmds = make([]txCmd, 0, len(m.cmds)) // not nil: t is an EXEC's (txn.go)
	}
	t.cmds = slices.Grow(cmds, len(m.cmds))[:len(m.cmds)]
	clear(t.cmds)
	t.co.Cmds = slices.Grow(coCmds, len(m.cmds))[:len(m.cmds)]
	clear(t.co.Cmds)
	for i, q := range m.cmds {
		tc := &t.cmds[i]
		tc.spec, tc.db, tc.args = q.spec, q.db, m.args[a:a+q.n:a+q.n]
		a += q.n
		if u := c.checked(); u != nil && !u.AllowsAll() {
			if tc.denied = s.execDenied(c, q.spec, tc.args); tc.denied != "" {
				tc.kind = router.Local
				continue
			}
		}
		if q.spec.Flags&command.DenyOOM != 0 && t.spec == execSpec {
			t.spec = q.spec // EXEC is refused whole when out of memory
		}
		pl := s.plan.Plan(q.spec, tc.args, s.id, n)
		if pl.Kind == router.Persist {
			pl.Kind = router.Local // its handler answers at once (WAIT, BGSAVE ... in MULTI)
		}
		tc.kind, tc.dst, tc.merge = pl.Kind, pl.Dst, pl.Merge
		// The command's parts go after the others' in one buffer.
		from := len(t.xb.ints)
		switch pl.Kind {
		case router.Owned:
			tc.dst = s.id
			t.xb.ints = append(t.xb.ints, b.keys(s.id, s.pickKeys(tc.args, s.plan.Keys(), intentOf(q.spec))))
		case router.Hop:
			s.keyIdx, _ = q.spec.Keys(tc.args, s.keyIdx[:0])
			t.xb.ints = append(t.xb.ints, b.keys(pl.Dst, s.pickKeys(tc.args, s.keyIdx, intentOf(q.spec))))
		case router.Parts:
			for _, p := range s.split.Split(q.spec, tc.args, s.plan.Keys(), n) {
				p = p.Clone()
				tc.parts = append(tc.parts, p)
				t.xb.ints = append(t.xb.ints, b.keys(p.Shard, s.partKeys(nil, q.spec, p)))
			}
		case router.All, router.Held:
			for sh := range n {
				t.xb.ints = append(t.xb.ints, b.all(sh))
			}
		case router.Scan:
			t.xb.ints = append(t.xb.ints, b.all(pl.Dst))
		}
		t.co.Cmds[i].Parts = t.xb.ints[from:len(t.xb.ints):len(t.xb.ints)]
	}
	for _, w := range m.watched {
		b.keys(w.shard, []coord.Key{{Name: w.key, Intent: coord.Shared}})
	}
	t.watched = slices.Clone(m.watched)
	// Parts in ascending shard order, as coord's protocol takes them,
	// with their own copy of the key names: the last unlock reaches a
	// shard after the connection queues its next MULTI in its buffers.
	order := slices.Grow(t.xb.order, len(b.parts))[:len(b.parts)] // old index -> new
	t.xb.order = order
	sorted := coParts
	size, nkeys := 0, 0
	for _, p := range b.parts {
		nkeys += len(p.Keys)
		for _, k := range p.Keys {
			size += len(k.Name)
		}
	}
	// The parts' keys and names are new arrays: the builder's are the
	// next EXEC's scratch, and an unlock of this one may still be on its
	// way when the next is built.
	names := make([]byte, 0, size)
	keys := make([]coord.Key, 0, nkeys)
	for sh := range n {
		if j := b.byShard[sh]; j >= 0 {
			order[j] = len(sorted)
			p := b.parts[j]
			from := len(keys)
			for _, k := range p.Keys {
				names = append(names, k.Name...)
				keys = append(keys, coord.Key{Name: names[len(names)-len(k.Name) : len(names) : len(names)], Intent: k.Intent})
			}
			p.Keys = keys[from:len(keys):len(keys)]
			sorted = append(sorted, p)
		}
	}
	t.co.ID, t.co.Parts = t.id, sorted
	t.xb.parts = b.parts
	for i := range t.co.Cmds {
		ps := t.co.Cmds[i].Parts
		for k, j := range ps {
			ps[k] = order[j]
		}
		slices.Sort(ps)
		t.co.Cmds[i].Parts = slices.Compact(ps)
	}
	t.parts = slices.Grow(parts, len(sorted))[:len(sorted)]
	t.watch = slices.Grow(watch, len(sorted))[:len(sorted)]
	for i, p := range sorted {
		t.parts[i] = router.Part{Shard: p.Shard}
		t.watch[i] = t.watch[i][:0]
		for _, w := range t.watched {
			if w.shard == p.Shard {
				t.watch[i] = append(t.watch[i], w)
			}
		}
	}
	t.res = slices.Grow(res, len(t.cmds))[:len(t.cmds)]
	clear(t.res)
	return t
}

// execSpec is EXEC's row, the txn's spec while no queued command may grow
// memory.
var execSpec = command.Lookup([]byte("exec"))

// execBufs are an EXEC's buffers that the next one reuses: the parts of
// every command, one after another (coord.Cmd.Parts), newExec's map of
// parts to their order, and a lone part's command indexes (alone).
type execBufs struct {
	ints  []int
	order []int
	idx   []int
	parts []coord.Part // partsBuilder's
	w     resp.Writer  // assemble's
}

// partsBuilder gathers an EXEC's keys per shard.
type partsBuilder struct {
	parts   []coord.Part
	byShard []int // shard -> index in parts, -1: none
}

// part returns the index of shard's part, made if needed (with the keys
// array an earlier EXEC's part left there).
func (b *partsBuilder) part(shard int) int {
	if j := b.byShard[shard]; j >= 0 {
		return j
	}
	j := len(b.parts)
	b.byShard[shard] = j
	if j < cap(b.parts) {
		b.parts = b.parts[:j+1]
		b.parts[j] = coord.Part{Shard: shard, Keys: b.parts[j].Keys[:0]}
	} else {
		b.parts = append(b.parts, coord.Part{Shard: shard})
	}
	return j
}

// keys adds keys to shard's part, once each, exclusive if any use is,
// and returns the part's index.
func (b *partsBuilder) keys(shard int, keys []coord.Key) int {
	j := b.part(shard)
	p := &b.parts[j]
	for _, k := range keys {
		i := slices.IndexFunc(p.Keys, func(h coord.Key) bool { return string(h.Name) == string(k.Name) })
		switch {
		case i < 0:
			p.Keys = append(p.Keys, k)
		case k.Intent == coord.Exclusive:
			p.Keys[i].Intent = coord.Exclusive
		}
	}
	return j
}

// all makes shard's part hold every key there.
func (b *partsBuilder) all(shard int) int {
	j := b.part(shard)
	b.parts[j].All = true
	return j
}

// freeFor reports whether p's keys may be used at once.
func (s *Shard) freeFor(p coord.Part) bool {
	if p.All {
		return s.locks.Idle()
	}
	return s.locks.Free(p.Keys)
}

// whenFree runs fn once p's keys are free: at once, or behind the work
// they wait for.
func (s *Shard) whenFree(p coord.Part, fn func()) {
	switch {
	case !txnLocks || s.freeFor(p):
		fn()
	case p.All:
		s.locks.RunAll(fn)
	default:
		s.locks.Enqueue(&coord.Item{Keys: p.Keys, Run: fn})
	}
}

// execHere runs all of t on this shard, the connection's, whose keys are
// free: the watched keys' check, the memory check, then every command in
// order. It returns EXEC's reply.
func (s *Shard) execHere(t *txn) []byte {
	if len(t.watch) > 0 && !s.unchanged(t.watch[0]) {
		return nullArray(t.proto)
	}
	if s.oom(t.spec) {
		return []byte("-" + errtext.ExecAbortWhy + errtext.OOM + "\r\n")
	}
	c := t.c
	w := &s.execOut
	w.Proto, w.B = t.proto, w.B[:0]
	w.Array(len(t.cmds))
	mark := s.fxMark()
	s.who = t.who
	s.ps.self = selfPush{c: c, buf: &w.B}
	s.selfOn(c, w)
	for i := range t.cmds {
		tc := &t.cmds[i]
		if tc.kind == router.Local || tc.kind == router.ScanEnd {
			s.runHome(w, c, tc)
			continue
		}
		s.runKeyed(w, tc, t.noTouch)
	}
	s.ps.self = selfPush{}
	s.selfOff()
	s.who = reader{}
	s.fxWrap(mark, command.Tag{})
	return w.B
}

// runKeyed runs a command with keys (or a SCAN step) on this shard, whose
// keys its txn holds, and writes its reply to w.
func (s *Shard) runKeyed(w *resp.Writer, tc *txCmd, noTouch bool) {
	if tc.kind != router.Scan {
		s.run1(w, nil, noTouch, tc.db, tc.spec, tc.args)
		return
	}
	step := resp.Writer{Proto: w.Proto}
	s.run1(&step, nil, noTouch, tc.db, tc.spec, tc.args)
	w.B = append(w.B, router.RewriteCursor(step.B, tc.dst, len(s.group.shards), w.Proto)...)
}

// runHome runs a command with no keys on the connection's shard.
func (s *Shard) runHome(w *resp.Writer, c *conn, tc *txCmd) {
	if tc.denied != "" {
		w.Error(tc.denied)
		return
	}
	if tc.kind == router.ScanEnd {
		w.Array(2)
		w.BulkString("0")
		w.Array(0)
		return
	}
	s.run1(w, &c.cl, c.cl.NoTouch, c.cl.DB, tc.spec, tc.args)
}

func nullArray(proto int) []byte {
	w := resp.Writer{Proto: proto}
	w.NullArray()
	return w.B
}

// fxMark is where the effects of what runs next begin, -1 when nobody
// consumes effects.
func (s *Shard) fxMark() int {
	if s.mut.sink == nil {
		return -1
	}
	return s.mut.fx.Len()
}

// fxWrap wraps the effects since mark in MULTI ... EXEC when there are
// several, as Redis propagates a transaction.
func (s *Shard) fxWrap(mark int, tag command.Tag) {
	if mark >= 0 && s.mut.fx.Len()-mark > 1 {
		s.mut.fx.Tag = tag
		s.mut.fx.Wrap(mark)
		s.mut.fx.Tag = command.Tag{}
	}
}

// alone runs t, whose keys all live on one other shard, there: one
// message, no lock protocol.
func (s *Shard) alone(t *txn) {
	p, watch := t.co.Parts[0], t.watch[0]
	idx := t.xb.idx[:0]
	for i := range t.cmds {
		if len(t.co.Cmds[i].Parts) > 0 {
			idx = append(idx, i)
		}
	}
	t.xb.idx = idx
	// The message and its contents are the txn's, as a round's are, with
	// the buffers an earlier EXEC left in them.
	if len(t.pms) == 0 {
		t.pms = make([]partMsg, 1)
	}
	if len(t.eps) == 0 {
		t.eps = make([]execPart, 1)
	}
	ep := &t.eps[0]
	*ep = execPart{run: t.runOf(ep.run.cmds, idx, command.Tag{}), watch: watch, idx: idx, replies: ep.replies}
	t.pms[0] = partMsg{t: t, home: s.id, id: t.id, p: p, spec: t.spec, ex: ep}
	s.sendPart(p.Shard, msgExec, &t.pms[0])
}

// aloneDone takes the answer of a txn run alone on another shard.
func (s *Shard) aloneDone(t *txn, idx []int, r *execPart) {
	switch {
	case r.dirty:
		s.doneExec(t, nullArray(t.proto))
	case r.oom:
		s.doneExec(t, []byte("-"+errtext.ExecAbortWhy+errtext.OOM+"\r\n"))
	default:
		for k, i := range idx {
			t.res[i] = r.replies[k]
		}
		s.doneExec(t, s.assemble(t, false))
	}
}

// cmdRun is what a shard needs to run some of an EXEC's commands: the
// message's contents, the commands copied into it (the shard reads
// nothing of the txn; the arguments' bytes are the queue's copy, which
// nothing writes until the EXEC is answered).
type cmdRun struct {
	cmds    []txCmd
	idx     []int // their places in the txn's queue
	proto   int
	noTouch bool
	tag     command.Tag
	who     reader
}

// runOf is the cmdRun of t's commands idx, tagged tag, its copies of
// them in cmds' array.
func (t *txn) runOf(cmds []txCmd, idx []int, tag command.Tag) cmdRun {
	r := cmdRun{cmds: slices.Grow(cmds[:0], len(idx))[:len(idx)], idx: idx, proto: t.proto, noTouch: t.noTouch, tag: tag, who: t.who}
	for k, i := range idx {
		r.cmds[k] = t.cmds[i]
	}
	return r
}

// runCmds runs r's commands on this shard, whose keys their txn holds (or
// which are free), and returns their replies, written by w in out's array
// and its buffers (those of an earlier run of the message).
func (s *Shard) runCmds(r cmdRun, out [][]byte, w *resp.Writer) [][]byte {
	out = slices.Grow(out[:0], len(r.cmds))[:len(r.cmds)]
	mark := s.fxMark()
	s.mut.fx.Tag = r.tag
	s.who = r.who
	for k := range r.cmds {
		if r.tag.Txn != 0 { // the stream replays the parts in queue order (command.Tag)
			s.mut.fx.Tag.Cmd = r.idx[k]
		}
		w.Proto, w.B = r.proto, out[k][:0]
		s.runKeyed(w, &r.cmds[k], r.noTouch)
		out[k], w.B = w.B, nil
	}
	s.who = reader{}
	s.mut.fx.Tag = command.Tag{}
	s.fxWrap(mark, r.tag)
	s.partRan(mark, r.tag)
	return out
}

// assemble writes EXEC's reply: every command's, those with no keys run
// here now unless ranHome (the rounds ran them in their place).
func (s *Shard) assemble(t *txn, ranHome bool) []byte {
	w := &t.xb.w
	w.Proto, w.B = t.proto, t.sl.buf[:0] // a pooled slot's (pendTx)
	w.Array(len(t.cmds))
	for i := range t.cmds {
		tc := &t.cmds[i]
		if !ranHome && (tc.kind == router.Local || tc.kind == router.ScanEnd) {
			s.runHome(w, t.c, tc)
			continue
		}
		w.B = append(w.B, t.res[i]...)
	}
	out := w.B
	w.B = nil
	return out
}

// doneExec answers an EXEC that waited and lets the connection read on.
func (s *Shard) doneExec(t *txn, out []byte) {
	c := t.c
	if a := c.tx.execArgs; a != nil {
		c.tx.execArgs = nil
		if s.mon.on {
			s.monitorLine(c.cl.DB, c.cl.Addr, a)
		}
	}
	s.finishExec(t)
	c.barrier = false
	if t.quiet {
		out = out[:0]
	}
	s.fill(c, t.sl, out)
	// Every message of t came home (an unlock on its way carries copies
	// of its parts, whose key names the next EXEC does not reuse): the
	// next EXEC may take it.
	s.spareExec(t)
	if !c.dead && !c.closing {
		s.serve(c)
	}
}

// finishExec forgets the EXEC's queue and its watched keys.
func (s *Shard) finishExec(t *txn) {
	s.unwatchKeys(t.watched)
	t.c.tx.reset()
}

// runExec runs the txn of an EXEC whose keys it holds on several shards:
// a null array if a watched key changed, else the rounds.
func (s *Shard) runExec(t *txn) {
	if t.dirty {
		s.releaseExec(t, true)
		s.doneExec(t, nullArray(t.proto))
		return
	}
	t.rounds = t.co.Rounds(t.rounds[:0])
	t.last = t.co.LastRounds(t.rounds, t.last[:0])
	s.round(t, 0)
}

// round runs round r of t, then the next; after the last, it releases the
// keys still held and answers. A part whose last round this is releases
// its keys as its commands finish.
func (s *Shard) round(t *txn, r int) {
	if r == len(t.rounds) {
		s.feedDone(t)
		s.releaseExec(t, false)
		s.doneExec(t, s.assemble(t, true))
		return
	}
	rd := t.rounds[r]
	if len(t.co.Cmds[rd.From].Parts) > 1 {
		s.spanning(t, rd.From, func() { s.round(t, r+1) })
		return
	}
	// The commands with no keys run here, after every earlier round: a
	// SUBSCRIBE before a PUBLISH counts, and the messages they send (an
	// SUNSUBSCRIBE's to its channel's owner) go before the next round's.
	for i := rd.From; i < rd.To; i++ {
		if tc := &t.cmds[i]; tc.kind == router.Local || tc.kind == router.ScanEnd {
			w := resp.Writer{Proto: t.proto}
			s.runHome(&w, t.c, tc)
			t.res[i] = w.B
		}
	}
	// Each part's share of the round is one message, t.pms[pi]: the
	// round's answers are all in before the next round's go out.
	t.roundLeft = 0
	if len(t.pms) != len(t.co.Parts) {
		t.pms = make([]partMsg, len(t.co.Parts))
		t.eps = make([]execPart, len(t.co.Parts))
	}
	for pi := range t.co.Parts {
		var idx []int
		for i := rd.From; i < rd.To; i++ {
			if ps := t.co.Cmds[i].Parts; len(ps) == 1 && ps[0] == pi {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		t.roundLeft++
		// The replies start in buffers of their own: t.res holds the
		// last round's (alone reuses them, as its one message's).
		ep := &t.eps[pi]
		*ep = execPart{run: t.runOf(ep.run.cmds, idx, t.tag(pi)), idx: idx, round: r}
		t.pms[pi] = partMsg{t: t, home: s.id, part: pi, id: t.id, p: t.co.Parts[pi], held: !txnLocks || t.last[pi] != r,
			ex: &t.eps[pi]}
		s.sendPart(t.co.Parts[pi].Shard, msgPartRun, &t.pms[pi])
	}
	if t.roundLeft == 0 {
		s.round(t, r+1)
	}
}

// spanning runs command i of t, whose keys span shards (or which runs on
// every shard), as a part of t: a txn of its own parts that t's locks
// already cover, so it takes and releases nothing.
func (s *Shard) spanning(t *txn, i int, then func()) {
	tc := &t.cmds[i]
	sub := &txn{id: t.id, c: t.c, spec: tc.spec, merge: tc.merge, args: tc.args, proto: t.proto, db: tc.db,
		noTouch: t.noTouch, in: t, inCmd: i, once: tc.kind == router.All, parts: tc.parts, who: reader{user: t.who.user}}
	if tc.kind == router.All || tc.kind == router.Held {
		sub.patterned = tc.kind == router.Held
		sub.parts = make([]router.Part, len(s.group.shards))
		for sh := range sub.parts {
			sub.parts[sh] = router.Part{Shard: sh, Args: tc.args}
		}
	}
	sub.co.ID = t.id
	sub.co.Parts = make([]coord.Part, len(sub.parts))
	sub.inPart = make([]int, len(sub.parts))
	for k, p := range sub.parts {
		sub.co.Parts[k] = coord.Part{Shard: p.Shard, Keys: s.partKeys(nil, tc.spec, p)}
		sub.inPart[k] = slices.IndexFunc(t.co.Parts, func(q coord.Part) bool { return q.Shard == p.Shard })
	}
	sub.reply = make([][]byte, len(sub.parts))
	sub.done = func(out []byte) {
		t.res[i] = out
		then()
	}
	s.runParts(sub)
}

// releaseExec releases every part t holds: all of them, or those its
// rounds did not release (t.last).
func (s *Shard) releaseExec(t *txn, all bool) {
	if !txnLocks {
		return
	}
	for i := range t.co.Parts {
		if !all && t.last[i] >= 0 {
			continue
		}
		p := t.co.Parts[i]
		s.sendLock(p.Shard, msgUnlock, &lockMsg{home: s.id, id: t.id, part: i, p: p})
	}
}

// tryLockPart takes p's keys (or the whole shard) for txn id when they
// are free now.
func (s *Shard) tryLockPart(id uint64, p coord.Part) bool {
	if p.All {
		return s.locks.TryLockAll(id)
	}
	return s.locks.TryLock(id, p.Keys)
}

// lockPart takes p's keys (or the whole shard) for txn id, waiting.
func (s *Shard) lockPart(id uint64, p coord.Part, granted func()) {
	if p.All {
		s.locks.LockAll(id, granted)
		return
	}
	s.lock(id, p.Keys, granted)
}

// unlockPart releases what lockPart took.
func (s *Shard) unlockPart(id uint64, p coord.Part) {
	if p.All {
		s.locks.UnlockAll(id)
		return
	}
	s.unlock(id, p.Keys)
}

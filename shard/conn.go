package shard

import (
	"strings"
	"time"
	"unsafe"

	"github.com/radish-kv/radish/acl"
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

// conn is one client connection, owned by the shard that accepted it.
type conn struct {
	id ioloop.ConnID
	cl command.Client

	// queue holds replies that cannot be written yet because a reply before
	// them is still being computed on another shard. Empty on the fast path.
	queue []*slot
	// barrier is set while a command that spans shards is in flight: the
	// connection reads no further commands until it completes, so nothing
	// the client sends later can overtake it on any shard.
	barrier bool
	// span is the txn of its command across shards while one runs
	// (txn.go), for CLIENT LIST's argv-mem.
	span *txn
	// running: a command of it is being dispatched (still in its input): a
	// script's busy mode leaves it alone (busy.go).
	running bool
	// blocked is set while a blocking command waits (see block.go).
	blocked *blockState
	// tx is the connection's MULTI and watched keys (multi.go), nil until
	// it first sends MULTI or WATCH.
	tx      *multiState
	closing bool
	dead    bool
	// coldSkip counts look-aheads serve skips: set when one found nothing
	// to warm (every command on one key, which the first one warms).
	coldSkip int
	// softSince is when the pending output passed the soft limit (unix
	// ms), 0 while it is below (outlimit.go).
	softSince int64
	// held are replies waiting for the AOF's disk (appendfsync always),
	// marks where each turn's end and what position it waits for (aof.go).
	held    []byte
	marks   []heldMark
	heldNow bool
	// cachingSpent: the command CLIENT CACHING applied to ran; the flag
	// clears at the next (tracking.go).
	cachingSpent bool
	// user is the connection's ACL user, as aclAt holds it (acl.go).
	user  *acl.User
	aclAt *acl.Snapshot
	// monitor: the connection is a MONITOR (monitor.go); paused: it waits
	// for CLIENT PAUSE to end (pause.go).
	monitor, paused bool
	// repl is the connection as a replica of this server (primary.go),
	// from its first REPLCONF or PSYNC.
	repl *replica
	// mig is where its keyed commands went lately, and its move to
	// another shard (migrate.go).
	mig migration
	// pipe is its input and output when it has no socket (pipe.go).
	pipe *pipe
}

// slot is a reply in a connection's queue.
type slot struct {
	buf  []byte
	done bool
	// hop, when set, is the pooled hopMsg the slot belongs to: it goes
	// back to the free list once the slot leaves the queue (hop.go).
	hop *hopMsg
}

// serve parses and runs every complete command buffered for c, in order,
// until the input is exhausted or a command must wait.
func (s *Shard) serve(c *conn) {
	warm := 0 // commands ahead whose keys prefetch has warmed
	if len(c.queue) == 0 && len(s.group.shards) > 1 {
		s.prefix.c, s.prefix.mark = c, len(*s.rawOut(c))
	}
	for !c.barrier && !c.paused && !c.closing && !c.dead && !c.cl.Close && c.mig.state == migNone {
		in := s.input(c)
		if len(in) == 0 {
			break
		}
		if warm == 0 && len(in) >= prefetchMinInput {
			if c.coldSkip > 0 {
				c.coldSkip--
				warm = engine.PrefetchMax
			} else {
				warm = s.prefetch(c, in)
			}
		}
		warm = max(warm-1, 0)
		var args [][]byte
		var n int
		var err error
		ok, owner := false, -1
		if s.parsed.next < len(s.parsed.cmds) {
			args, n, owner, ok = s.parsed.take(in)
		}
		if !ok {
			args, n, err = s.reader.Next(in)
		}
		if err != nil {
			s.protocolError(c, err)
			break
		}
		if n == 0 {
			if int64(len(in)) > s.conf.ClientQueryBufferLimit {
				s.overQueryLimit(c, len(in))
			}
			break
		}
		if s.pause != 0 && len(args) > 0 && s.paused(c, args) {
			s.hold(c)
			break
		}
		if len(args) > 0 {
			if s.ps.run.pub != nil && !continuesRun(args) {
				s.endRun()
			}
			c.running = true
			if in[0] == '*' {
				s.mut.raw, s.mut.rawArgs = in[:n], unsafe.SliceData(args)
			}
			s.firstOwner = owner
			s.dispatch(c, args)
			s.mut.raw, s.mut.rawArgs = nil, nil
			c.running = false
			if s.busy.held {
				s.busy.held = false
				break // it runs from the input in the turn (busy.go)
			}
		}
		s.consume(c, n)
	}
	if len(s.parsed.cmds) > 0 {
		s.parsed.drop()
	}
	s.prefix.c = nil
	s.endRun()
	s.checkOutput(c)
	s.closeIfDone(c)
	if c.mig.state == migWant {
		s.tryMove(c)
	}
}

// overQueryLimit closes c, whose partial command is past the query
// buffer limit. Out of serve's line (see run1's).
//
//go:noinline
func (s *Shard) overQueryLimit(c *conn, n int) {
	s.group.log.Warn("closing client that exceeded the query buffer limit", shardField(s.id), intField("bytes", n))
	s.closeConn(c)
}

// prefetchMinInput is the input below which serve does not look ahead: a
// few commands at most, whose walks would barely overlap.
const prefetchMinInput = 128

// prefetch parses ahead in c's input (consuming nothing) and has the
// engine warm the cache for the first key of each of the next commands
// whose key lives here (engine.DB.Prefetch), so that their tree walks
// overlap instead of each waiting for memory in turn. What it parsed,
// serve takes without parsing again (parsedAhead). It returns how many
// commands it looked at. A look-ahead that finds a single key and no
// sorted-set insert, as a pipeline on one hot list does, is not worth its
// parsing: the connection skips the next few (coldSkips).
func (s *Shard) prefetch(c *conn, in []byte) int {
	keys := s.warmKeys[:0]
	n := len(s.group.shards)
	seen := 0
	s.parsed.drop()
	keep := true
	for len(in) > 0 && in[0] == '*' && len(keys) < cap(keys) {
		var args [][]byte
		var used int
		var err error
		if keep {
			args, used, err = s.ahead.NextAppend(in, s.parsed.args)
		} else {
			args, used, err = s.ahead.Next(in)
		}
		if err != nil || used == 0 {
			break
		}
		keep = keep && s.parsed.add(in, used, args)
		in = in[used:]
		seen++
		if len(args) < 2 {
			continue
		}
		spec, errText := s.cmds.Resolve(args)
		if errText != "" || spec.First <= 0 || spec.First >= len(args) {
			continue
		}
		k := args[spec.First]
		if n > 1 {
			o := router.ShardOf(k, n)
			if keep { // this command is the last kept
				s.parsed.cmds[len(s.parsed.cmds)-1].owner = o
			}
			if o != s.id {
				continue
			}
		}
		keys = append(keys, k)
		if spec.WarmZ != nil {
			if sc, m, ok := spec.WarmZ(args); ok {
				s.warmZ = append(s.warmZ, warmZ{len(keys) - 1, sc, m})
			}
		}
	}
	if len(s.warmZ) == 0 && sameKeys(keys) {
		c.coldSkip = coldSkips
	} else if len(keys) > 1 {
		db := s.store.DB(c.cl.DB)
		db.Prefetch(keys)
		// Sorted-set inserts: one batch of scores per run of the same key.
		scores, members := s.warmScores[:0], s.warmMembers[:0]
		for i, w := range s.warmZ {
			scores, members = append(scores, w.score), append(members, w.member)
			if i+1 == len(s.warmZ) || string(keys[s.warmZ[i+1].key]) != string(keys[w.key]) {
				db.PrefetchZSet(keys[w.key], scores, members)
				scores, members = scores[:0], members[:0]
			}
		}
		clear(s.warmMembers[:cap(s.warmMembers)])
	}
	clear(s.warmZ)
	s.warmZ = s.warmZ[:0]
	clear(keys) // keep no reference into the input buffer
	return seen
}

// coldSkips is how many look-aheads a connection skips after one that
// found nothing to warm.
const coldSkips = 8

// sameKeys reports whether keys holds at most one distinct key.
func sameKeys(keys [][]byte) bool {
	for _, k := range keys[min(1, len(keys)):] {
		if string(k) != string(keys[0]) {
			return false
		}
	}
	return true
}

// warmZ is a sorted-set insert prefetch will warm: its key's index in the
// batch, its score and member.
type warmZ struct {
	key    int
	score  float64
	member []byte
}

// closeIfDone closes a connection that asked to be closed (QUIT, a
// protocol error, CLIENT KILL) once every reply before that is out.
func (s *Shard) closeIfDone(c *conn) {
	if c.cl.Close { // inlined: one branch for a connection that stays
		s.closeDone(c)
	}
}

// closeDone is closeIfDone's check once the client asked to close.
func (s *Shard) closeDone(c *conn) {
	if len(c.queue) == 0 && len(c.held) == 0 && !c.dead {
		s.closeConn(c)
	}
}

func (s *Shard) protocolError(c *conn, err error) {
	s.reply(c, func(w *resp.Writer) { w.Error(err.Error()) })
	c.cl.Close = true
}

// reply writes one reply produced by fn in order: straight into the output
// buffer when nothing is queued before it, else into a ready slot.
func (s *Shard) reply(c *conn, fn func(w *resp.Writer)) {
	if len(c.queue) == 0 {
		if s.aof.hold {
			s.replyHeld(c, fn)
			return
		}
		out := s.rawOut(c)
		s.w.B, s.w.Proto = *out, c.cl.Proto
		fn(&s.w)
		*out = s.w.B
		s.w.B = nil
		return
	}
	// Behind a reply still being computed: join the ready slot at the tail
	// if there is one, so a pipeline takes one slot per wait, not per
	// command, from the hop pool (readySlot).
	last := c.queue[len(c.queue)-1]
	if !last.done {
		last = s.readySlot()
		c.queue = append(c.queue, last)
	}
	s.w.B, s.w.Proto = last.buf, c.cl.Proto
	fn(&s.w)
	last.buf, s.w.B = s.w.B, nil
}

// pend reserves a slot for a reply computed later (on another shard).
func (s *Shard) pend(c *conn) *slot {
	sl := &slot{}
	c.queue = append(c.queue, sl)
	return sl
}

// fill completes a slot and writes every ready reply at the head of c's
// queue. c may have closed meanwhile: then the reply is dropped.
func (s *Shard) fill(c *conn, sl *slot, b []byte) {
	sl.buf, sl.done = b, true
	s.flushQueue(c)
}

// flushQueue writes every ready reply at the head of c's queue, in one
// pass: a run of hop replies to c in one inbox batch is written by the
// run's last (drainInbox), not shifting the queue once per reply.
func (s *Shard) flushQueue(c *conn) {
	if c.dead {
		return
	}
	i := 0
	var out *[]byte
	for ; i < len(c.queue) && c.queue[i].done; i++ {
		if !c.closing {
			if out == nil {
				out = s.filled(c)
			}
			*out = append(*out, c.queue[i].buf...)
		}
		if h := c.queue[i].hop; h != nil {
			s.freeHop(h)
		}
		c.queue[i] = nil
	}
	c.queue = c.queue[:copy(c.queue, c.queue[i:])]
	s.checkOutput(c)
	s.closeIfDone(c)
	if c.mig.state == migWant {
		s.tryMove(c)
	}
}

// dispatch runs one command where the router places it (router.Planner):
// here, as a hop to the one shard that owns its keys, as a txn when they
// span shards, on every shard, or as a SCAN step on the shard its cursor
// names. Blocking commands are placed by block.
func (s *Shard) dispatch(c *conn, args [][]byte) {
	first := s.firstOwner // serve's, for this command alone
	s.firstOwner = -1
	spec, errText := s.cmds.Resolve(args)
	if errText != "" {
		s.refuseCmd(c, spec, errText)
		return
	}
	if !c.cl.Authed && spec.Flags&command.NoAuth == 0 {
		s.refuseCmd(c, spec, errtext.NoAuth)
		return
	}
	if spec.Protected != "" && !s.mayRun(c, spec.Protected) {
		s.refuseCmd(c, spec, errtext.NotAllowed(spec.Protected))
		return
	}
	if snap := s.group.acl.reg.Current(); c.aclAt != snap && !s.rebind(c, snap) {
		return
	}
	if !c.user.AllowsAll() && !s.permit(c, spec, args) {
		return
	}
	if s.conf.MinReplicasToWrite > 0 && spec.Flags&command.Write != 0 && !s.replica &&
		s.group.prim.good.Load() < int64(s.conf.MinReplicasToWrite) {
		s.refuseCmd(c, spec, errtext.NoReplicas)
		return
	}
	if s.replica && !c.cl.Master {
		if c.cl.Redirect && s.redirect(c, spec) {
			return
		}
		if e := s.replRefuses(spec); e != "" {
			s.refuseCmd(c, spec, e)
			return
		}
	}
	if s.group.busy.Load() != 0 && spec.Flags&command.AllowBusy == 0 {
		s.refuseCmd(c, spec, s.group.busyText())
		return
	}
	// A failed background save refuses writes before a failing AOF does,
	// as in Redis.
	if s.misconf && s.refuseWrite(c, spec) {
		return
	}
	if s.aof.log != nil && s.refuseAOF(c, spec) {
		return
	}
	c.cl.LastCmd = spec.Name
	c.cl.LastMs = s.now
	if c.cl.Track.Caching {
		s.cachingUsed(c, spec)
	}
	if !c.inMulti() && (c.subscribed() || spec.Flags&command.PubSub != 0) && s.pubsubCmd(c, spec, args) {
		if s.mon.on {
			s.feedMonitors(c.cl.DB, &c.cl, spec, args)
		}
		return
	}
	if (c.tx != nil || spec.Tx != command.TxQueued) && s.txDispatch(c, spec, args) {
		return
	}
	if spec.Script != command.ScriptNone {
		s.scriptCmd(c, spec, args)
		return
	}
	if fn := command.BlockingFunc(spec, args); fn != nil {
		s.block(c, spec, fn, args)
		return
	}
	pl := s.plan.PlanFirst(spec, args, s.id, len(s.group.shards), first)
	switch pl.Kind {
	case router.Local:
		s.runLocal1(c, spec, args)
	case router.Owned:
		if s.migrate {
			s.vote(c, s.id)
		}
		if keys := s.plan.Keys(); s.blocked(spec, args, keys) {
			s.deferLocal(c, spec, args, keys)
			return
		}
		s.runLocal1(c, spec, args)
	case router.Hop:
		if s.migrate {
			s.vote(c, pl.Dst)
		}
		s.hop(c, pl.Dst, spec, args)
	case router.Parts:
		s.multi(c, spec, args, s.plan.Keys())
	case router.All:
		s.fanOutAll(c, spec, args, pl.Merge)
	case router.Scan:
		s.scan(c, spec, args, pl.Dst)
	case router.Persist:
		s.persistCmd(c, spec, args)
	case router.Held:
		s.held(c, spec, args)
	case router.ScanEnd:
		s.scanEnd(c)
	}
}

// The rarely taken parts of dispatch, out of its line (see run1's).

// refuseAOF answers a command the failing AOF refuses, and reports
// whether it did.
//
//go:noinline
func (s *Shard) refuseAOF(c *conn, spec *command.Spec) bool {
	e := s.aofRefuses(spec)
	if e == "" {
		return false
	}
	s.refuseCmd(c, spec, e)
	return true
}

// scriptCmd runs EVAL, FCALL and their kin, unless a script holds the
// connection.
//
//go:noinline
func (s *Shard) scriptCmd(c *conn, spec *command.Spec, args [][]byte) {
	if s.holdScript(c) {
		return
	}
	if s.mon.on && !c.inMulti() {
		// Before its redis.call commands, as Redis feeds it.
		s.monitorLine(c.cl.DB, c.cl.Addr, args)
	}
	s.eval(c, spec, args)
}

// scanEnd answers a SCAN past the last shard: cursor 0, no keys.
//
//go:noinline
func (s *Shard) scanEnd(c *conn) {
	s.reply(c, func(w *resp.Writer) {
		w.Array(2)
		w.BulkString("0")
		w.Array(0)
	})
}

// refuseCmd answers a command dispatch refuses with the error e, counted
// as the command's refusal (a nil spec: an unknown command, counted as an
// error reply), and aborts the client's MULTI as Redis does. A refused
// EXEC is Redis's rejectCommand of it: the transaction is discarded (its
// watches too, in MULTI or not) and the reply is EXECABORT with the
// reason. Apart from dispatch, so that its code does not lie between
// dispatch's checks.
func (s *Shard) refuseCmd(c *conn, spec *command.Spec, e string) {
	if spec != nil && spec.Tx == command.TxExec {
		if c.tx != nil {
			s.discard(c)
		}
		e = errtext.ExecAbortWhy + strings.TrimPrefix(e, "ERR ")
	}
	s.refusal(c, spec, e)
}

// refusal is refuseCmd's answer, for EXEC too.
func (s *Shard) refusal(c *conn, spec *command.Spec, e string) {
	if spec != nil {
		s.stats.refusedCall(spec, e)
	} else {
		s.stats.errorReply([]byte(e))
	}
	c.txRefused()
	s.reply(c, func(w *resp.Writer) { w.Error(e) })
}

// scan runs a SCAN step on shard, the one its cursor names, and gives the
// client the shard's reply with the cursor rewritten (router.RewriteCursor):
// here, or as a hop (scanHop) that the shard answers rewritten. Under
// CLIENT REPLY OFF or SKIP it answers nothing, as a hop does (hopDone).
func (s *Shard) scan(c *conn, spec *command.Spec, args [][]byte, shard int) {
	if shard != s.id {
		s.scanHop(c, spec, args, shard)
		return
	}
	b := s.execTo(true, c.cl.Proto, c.cl.DB, spec, args)
	switch c.cl.Reply {
	case command.ReplySkip:
		c.cl.Reply = command.ReplyOn
		return
	case command.ReplyOff:
		return
	}
	b = router.RewriteCursor(b, s.id, len(s.group.shards), c.cl.Proto)
	s.reply(c, func(w *resp.Writer) { w.B = append(w.B, b...) })
}

// runLocal1 executes spec here and writes its reply in order.
func (s *Shard) runLocal1(c *conn, spec *command.Spec, args [][]byte) {
	s.who = c.reader(s.id, true)
	if c.cl.Reply != command.ReplyOn {
		s.execDiscard(c, spec, args)
	} else {
		s.selfOn(c, &s.w)
		s.reply(c, func(w *resp.Writer) { s.exec(w, &c.cl, c.cl.NoTouch, c.cl.DB, spec, args) })
		if s.kev.self.c != nil {
			s.selfOff()
		}
	}
	s.who = reader{}
}

// execDiscard runs a command whose reply CLIENT REPLY OFF/SKIP suppresses.
func (s *Shard) execDiscard(c *conn, spec *command.Spec, args [][]byte) {
	mode := c.cl.Reply
	s.w.B, s.w.Proto = s.w.B[:0], c.cl.Proto
	s.exec(&s.w, &c.cl, c.cl.NoTouch, c.cl.DB, spec, args)
	if mode == command.ReplySkip && c.cl.Reply == command.ReplySkip {
		c.cl.Reply = command.ReplyOn
	}
	if c.cl.Reply == command.ReplyOn && mode == command.ReplyOff {
		// CLIENT REPLY ON answers +OK.
		buf := append([]byte(nil), s.w.B...)
		s.reply(c, func(w *resp.Writer) { w.B = append(w.B, buf...) })
	}
}

// exec runs a handler on this shard's store, unless memory is over the
// budget with nothing to evict and the command may grow it. cl is nil when
// the command came from another shard; noTouch is the client's NO-TOUCH.
func (s *Shard) exec(w *resp.Writer, cl *command.Client, noTouch bool, db int, spec *command.Spec, args [][]byte) {
	if s.oom(spec) {
		s.stats.refusedCall(spec, errtext.OOM)
		w.Error(errtext.OOM)
		return
	}
	s.run1(w, cl, noTouch, db, spec, args)
}

// run1 runs a handler with no memory check: for the parts of a txn, whose
// shards all passed the check when they locked the keys, so a multi-key
// write is applied whole or refused whole. While nothing follows commands
// (no snapshot, notification, MONITOR, tracking reader, WATCH, replica,
// later part) it is a short straight line; the rest is run1Full's: the
// code a pipelined command runs must stay within the first-level
// instruction cache (benchmarks/HISTORY.md, the eighth and tenth sessions' findings).
func (s *Shard) run1(w *resp.Writer, cl *command.Client, noTouch bool, db int, spec *command.Spec, args [][]byte) {
	if s.laterPart || s.replica || s.snap != nil || s.kev.flags != 0 || s.kev.self.c != nil || s.mon.on || s.who.track || len(s.mut.versions) > 0 {
		s.run1Full(w, cl, noTouch, db, spec, args)
		return
	}
	s.store.SetNoTouch(noTouch)
	s.stats.commands++
	s.stats.count(spec)
	ctx := s.ctxFor(w, cl, db, s.now, false)
	reads := s.reads(db, spec, args, s.now)
	dirty, start := s.store.Dirty(), len(w.B)
	noted := s.call(ctx, cl, spec, args, reads)
	ctx.Client = nil
	ctx.W = nil
	if len(w.B) > start && w.B[start] == '-' {
		s.failedCall(spec, w.B[start:])
	}
	if n := s.store.Dirty() - dirty; n != 0 {
		s.wrote(db, spec, args, w.B[start:], n, noted)
		if len(s.trk.selfEnds) > 0 {
			s.writeSelf(w)
		}
	}
}

// run1Full is run1 with everything that may follow a command.
//
//go:noinline
func (s *Shard) run1Full(w *resp.Writer, cl *command.Client, noTouch bool, db int, spec *command.Spec, args [][]byte) {
	s.store.SetNoTouch(noTouch)
	if !s.laterPart {
		s.stats.commands++
		s.stats.count(spec)
	}
	now, obey := s.now, false
	if s.replica && spec.Flags&command.Write != 0 {
		// The primary's writes find alive every key it did, and run as it
		// sent them (repl.go).
		now, obey = 0, true
	}
	ctx := s.ctxFor(w, cl, db, now, obey)
	reads := s.reads(db, spec, args, now)
	if s.snap != nil {
		s.snapBefore(db, spec, args)
	}
	whole := len(s.mut.versions) > 0 && spec.Touches // FLUSHDB ... while someone watches
	if whole {
		s.beforeTouches()
	}
	dirty, start := s.store.Dirty(), len(w.B)
	if s.kev.flags != 0 {
		s.kev.db = db
		if spec.Flags&command.Write != 0 {
			s.eventsBefore(db, spec, args)
		}
	}
	noted := s.call(ctx, cl, spec, args, reads)
	if se := &s.kev.self; se.c != nil && se.w == w {
		se.on, se.cmd = true, spec.Name
	}
	if s.kev.flags != 0 {
		s.eventMisses(reads)
	}
	if s.mon.on {
		s.feedMonitors(db, cl, spec, args)
	}
	ctx.Client = nil
	ctx.W = nil
	if s.who.track && spec.Flags&command.ReadOnly != 0 {
		s.remember(spec, args)
	}
	if len(w.B) > start && w.B[start] == '-' {
		s.failedCall(spec, w.B[start:])
	}
	if n := s.store.Dirty() - dirty; n != 0 {
		s.wrote(db, spec, args, w.B[start:], n, noted)
		if s.kev.self.on {
			s.placeSelf(w, start)
		}
		if len(s.trk.selfEnds) > 0 {
			s.writeSelf(w)
		}
	} else if s.kev.flags != 0 && spec.Flags&command.Write != 0 {
		s.createdEvents(db, args)
	}
	if s.kev.self.on {
		s.placeSelf(w, start)
		s.kev.self.on = false
	}
	if whole {
		s.touchedDBs()
	}
}

// ctxFor readies the shard's Ctx for a command of cl's in database db
// writing to w, at now (0 and obey for a primary's write on a replica).
func (s *Shard) ctxFor(w *resp.Writer, cl *command.Client, db int, now int64, obey bool) *command.Ctx {
	ctx := &s.ctx
	ctx.W = w
	ctx.Now, ctx.Obey = now, obey
	ctx.DBIndex = db
	ctx.DB = s.store.DB(db)
	ctx.Client = cl
	ctx.Access = s.who.access()
	return ctx
}

// reads is how spec reads its keys in args; a command that only names
// them (ReadsAccessKeys) has them counted as read here, at now.
func (s *Shard) reads(db int, spec *command.Spec, args [][]byte, now int64) command.ReadMode {
	reads := spec.Reads(args)
	if reads == command.ReadsAccessKeys {
		s.countAccess(db, spec, args, now)
	}
	return reads
}

// call runs spec's handler in ctx: it counts the handler's reads as
// Redis counts them (keyspace hits and misses, LFU) when reads says so,
// has the engine note the keys a write changes while anyone watches
// (noteWrites, reported as noted), and times the call for the slow log
// and the latency histograms.
func (s *Shard) call(ctx *command.Ctx, cl *command.Client, spec *command.Spec, args [][]byte, reads command.ReadMode) (noted bool) {
	// Only the handler's lookups count (not eventsBefore's).
	s.store.CountReads(reads == command.ReadsLookups || reads == command.ReadsSilently)
	noted = s.noteWrites()
	switch s.stats.untimed--; {
	case s.clock.on:
		// The handler, timed from the mark: one clock read when the
		// command before it ended just now (slowlog.go).
		k := &s.clock
		start := k.mark
		if start == 0 {
			start = k.since()
		}
		spec.Handler(ctx, args)
		k.mark = k.since()
		d := k.mark - start // in ticks
		if s.stats.untimed <= 0 {
			s.stats.untimed = latencyEvery
			s.stats.observe(spec, ticksToNs(d))
		} else if s.stats.lat[spec.ID()].count.Load() == 0 {
			s.stats.observe(spec, ticksToNs(d)) // a command's first call: its histogram is never empty
		}
		if d >= s.clock.alarm {
			s.slowCall(cl, spec, args, ticksToNs(d))
		}
	case s.stats.untimed > 0:
		spec.Handler(ctx, args)
	default:
		s.runSampled(ctx, spec, args)
	}
	s.store.CountReads(false)
	if noted {
		s.notedWrites()
	}
	return noted
}

// The rarely taken parts of run1 and call, out of their line.

// runSampled runs the handler timed for its latency histogram, one call
// in latencyEvery.
//
//go:noinline
func (s *Shard) runSampled(ctx *command.Ctx, spec *command.Spec, args [][]byte) {
	s.stats.untimed = latencyEvery
	t0 := time.Now()
	spec.Handler(ctx, args)
	s.stats.observe(spec, time.Since(t0))
}

// eventMisses reports the keys the handler missed as keyspace events.
//
//go:noinline
func (s *Shard) eventMisses(reads command.ReadMode) {
	if reads == command.ReadsSilently {
		s.store.Misses(func([]byte) {})
	} else {
		s.keyMisses()
	}
}

// failedCall counts an error reply.
//
//go:noinline
func (s *Shard) failedCall(spec *command.Spec, reply []byte) { s.stats.failedCall(spec, reply) }

// execTo runs a command for another shard and returns its reply bytes.
func (s *Shard) execTo(noTouch bool, proto, db int, spec *command.Spec, args [][]byte) []byte {
	w := resp.Writer{Proto: proto}
	s.exec(&w, nil, noTouch, db, spec, args)
	return w.B
}

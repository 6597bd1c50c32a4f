package shard

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/aof"
	"github.com/radish-kv/radish/persistence/snapshot"
)

// The shard's side of the AOF (persistence/aof). With appendonly no none
// of this runs: s.aof is nil, the mutation path builds no effects for it
// and replies go straight to the driver.
//
// With appendonly yes the shard's effects are appended to its Log at the
// end of each turn and submitted in one piece. Under appendfsync always
// what leaves after the turn's first write waits until the Log's writer
// says the turn's bytes are on disk (group commit): a reply produced once
// the turn has written (or behind a held reply of its connection) goes
// into its connection's held bytes (conn.held), which end the turn with a
// mark of the Log position they wait for; the messages to other shards
// queued after the turn's first write (or behind held ones to the same
// shard) wait in heldOut. The writer wakes the loop when the position
// moves, and the turn after releases what it covers. A reply that came
// from another shard (a hop, a txn's part) was held there until its own
// write was on disk, so a cross-shard write's reply waits for every
// part's fsync; one completed by a message (fill) also waits while the
// shard has log bytes not yet on disk, since the command's part on this
// shard ran without a message. What ran before the turn's first write
// leaves at once: a read, or a MISCONF while the disk fails, never waits
// for the disk (it may see a write of an earlier turn whose own reply
// still waits).

// heldMark is the end of a run of a connection's held bytes and the Log
// position they wait for.
type heldMark struct {
	end  int
	upTo uint64
}

// heldMsg is a message to another shard waiting for the Log position upTo.
type heldMsg struct {
	dst  int
	upTo uint64
	m    message
}

// journal is what a shard uses of its AOF Log (*aof.Log; the tests'
// fake, whose disk they move by hand).
type journal interface {
	Append(fx *command.Effects)
	Submit() uint64
	Appended() uint64
	Durable() uint64
	SetFsync(policy int32)
	SetTimestamps(on bool)
	UseLoop(fsync func(fd int, done func(error)) bool)
}

// aofState is a shard's AOF state, owned by its goroutine.
type aofState struct {
	log journal
	set *aof.Set // the Set log belongs to (nil for the tests' fakes)
	// next is the effect sink before the log's (attachAOF); draining: the
	// AOF was turned off, and log stays until what waits for it left.
	next     EffectSink
	draining bool
	hold     bool // appendfsync always: replies and messages wait for the disk
	// heldNow are the connections that got held bytes this turn; waiting
	// those with held bytes not yet released.
	heldNow []*conn
	waiting []*conn
	// wrote is set at the turn's first effect, when holdFrom[dst] records
	// how many messages to dst were queued before it.
	wrote    bool
	holdFrom []int
	heldOut  []heldMsg
	heldN    []int       // per destination: messages in heldOut
	ready    [][]message // scratch: per destination, released messages
}

// attachAOF makes the shard log its effects to l (after the load).
func (s *Shard) attachAOF(l journal) {
	s.aof.log = l
	s.useLoop()
	next := s.mut.sink
	s.aof.next = next
	s.mut.sink = func(shard int, fx *command.Effects) {
		l.Append(fx)
		if next != nil {
			next(shard, fx)
		}
	}
}

// useLoop lets the Log run its fdatasyncs through the shard's driver,
// once there is one (an AOF loaded at start is attached before the loop
// runs).
func (s *Shard) useLoop() {
	if s.drv != nil && s.aof.log != nil {
		s.aof.log.UseLoop(s.drv.Fsync)
	}
}

// wroteNow records, under appendfsync always, the turn's first effect:
// the messages queued from now on wait for the disk.
func (s *Shard) wroteNow() {
	a := &s.aof
	a.wrote = true
	if a.holdFrom == nil {
		n := len(s.outbox)
		a.holdFrom, a.heldN, a.ready = make([]int, n), make([]int, n), make([][]message, n)
	}
	for dst, q := range s.outbox {
		a.holdFrom[dst] = len(q)
	}
}

// output is where c's next reply bytes go: the driver's output buffer, or
// under appendfsync always, once the turn wrote or while c has replies
// held, c's held bytes.
func (s *Shard) output(c *conn) *[]byte {
	if !s.aof.hold || !s.aof.wrote && !c.heldNow && len(c.marks) == 0 {
		return s.rawOut(c)
	}
	s.holdNow(c)
	return &c.held
}

// filled is output for a reply completed by a message (fill): under
// appendfsync always it waits too while this shard has log bytes not on
// disk, which its command may have written (a txn's part on the home
// shard runs without a message that could wait).
func (s *Shard) filled(c *conn) *[]byte {
	if s.aof.hold && s.aof.log.Appended() > s.aof.log.Durable() {
		s.holdNow(c)
		return &c.held
	}
	return s.output(c)
}

// holdNow notes that c got held bytes this turn.
func (s *Shard) holdNow(c *conn) {
	if !c.heldNow {
		c.heldNow = true
		s.aof.heldNow = append(s.aof.heldNow, c)
	}
}

// replyHeld is reply under appendfsync always: fn writes into c's held
// bytes, which leave at once if the command did not write, the turn had
// not written before it and nothing of c is held.
func (s *Shard) replyHeld(c *conn, fn func(w *resp.Writer)) {
	free := !s.aof.wrote && !c.heldNow && len(c.marks) == 0
	s.w.B, s.w.Proto = c.held, c.cl.Proto
	fn(&s.w)
	c.held, s.w.B = s.w.B, nil
	if free && !s.aof.wrote {
		out := s.rawOut(c)
		*out = append(*out, c.held...)
		c.held = c.held[:0]
		return
	}
	s.holdNow(c)
}

// submitAOF hands the turn's log bytes to the writer, marks the replies
// held this turn with the position they wait for, and releases what the
// disk already covers.
func (s *Shard) submitAOF() {
	a := &s.aof
	if a.log == nil {
		return
	}
	pos := a.log.Submit()
	for _, c := range a.heldNow {
		c.heldNow = false
		if len(c.marks) == 0 {
			a.waiting = append(a.waiting, c)
		}
		c.marks = append(c.marks, heldMark{len(c.held), pos})
	}
	clear(a.heldNow)
	a.heldNow = a.heldNow[:0]
	if len(a.waiting) > 0 {
		s.releaseHeld(a.log.Durable())
	}
	if a.draining && len(a.waiting) == 0 && len(a.heldOut) == 0 {
		a.log, a.draining = nil, false
		s.group.aofDraining.Add(-1)
	}
}

// releaseHeld writes out every held reply whose bytes are on disk (Log
// position up to d).
func (s *Shard) releaseHeld(d uint64) {
	a := &s.aof
	keep := a.waiting[:0]
	for _, c := range a.waiting {
		k := 0
		for k < len(c.marks) && c.marks[k].upTo <= d {
			k++
		}
		if k > 0 {
			end := c.marks[k-1].end
			if !c.dead && !c.closing {
				out := s.rawOut(c)
				*out = append(*out, c.held[:end]...)
			}
			c.held = c.held[:copy(c.held, c.held[end:])]
			n := copy(c.marks, c.marks[k:])
			c.marks = c.marks[:n]
			for i := range c.marks {
				c.marks[i].end -= end
			}
		}
		if len(c.marks) > 0 && !c.dead {
			keep = append(keep, c)
			continue
		}
		c.held, c.marks = c.held[:0], c.marks[:0]
		s.closeIfDone(c)
	}
	clear(a.waiting[len(keep):])
	a.waiting = keep
}

// gateOutbox holds back the outbox's messages that must wait for the
// disk (holdOutbox), before the outbox is handed over.
func (s *Shard) gateOutbox() {
	if s.aof.wrote || len(s.aof.heldOut) > 0 {
		s.holdOutbox()
	}
}

// holdOutbox, under appendfsync always, puts the held messages whose
// turn is now on disk back at the head of their destination's outbox,
// and holds this turn's messages queued after its first write until the
// turn's log bytes are on disk. To a destination that still has held
// messages, those queued before the first write wait too (messages
// between two shards stay in order), but for hop replies: a hop reply
// only fills its slot, and its connection's queue keeps the replies in
// order, so a read's reply does not wait behind a write's whose disk is
// failing.
func (s *Shard) holdOutbox() {
	a := &s.aof
	d, pos := a.log.Durable(), a.log.Appended()
	keep := a.heldOut[:0]
	for _, h := range a.heldOut {
		if h.upTo <= d {
			a.ready[h.dst] = append(a.ready[h.dst], h.m)
			a.heldN[h.dst]--
		} else {
			keep = append(keep, h)
		}
	}
	clear(a.heldOut[len(keep):])
	a.heldOut = keep
	for dst, q := range s.outbox {
		from := len(q)
		if a.wrote && pos > d {
			from = a.holdFrom[dst]
		}
		pass := 0
		for i, m := range q {
			if i < from && (a.heldN[dst] == 0 || m.kind == msgHopReply) {
				q[pass] = m
				pass++
				continue
			}
			a.heldOut = append(a.heldOut, heldMsg{dst, pos, m})
			a.heldN[dst]++
		}
		clear(q[pass:])
		q = q[:pass]
		if r := a.ready[dst]; len(r) > 0 {
			r = append(r, q...)
			clear(q)
			q = append(q[:0], r...)
			clear(r)
			a.ready[dst] = r[:0]
		}
		s.outbox[dst] = q
	}
	a.wrote = false
}

// aofRefuses returns the MISCONF error a command gets while a Log's disk
// fails, as Redis refuses writes (and PING) then; "" otherwise.
func (s *Shard) aofRefuses(spec *command.Spec) string {
	set := s.aof.set
	if set == nil || !set.Failing() || spec.Flags&command.Write == 0 && spec.Name != "ping" {
		return ""
	}
	return "MISCONF Errors writing to the AOF file: " + set.Err()
}

// replayer is how the AOF's load runs a logged command on this shard:
// through its handler, as the command path does, at time 0, so that no
// key expires while loading (the log holds absolute times; the keys whose
// time passed go once the shard runs). It runs before the shard's loop
// starts and produces no effects.
func (s *Shard) replayer() aof.Applier {
	var w resp.Writer
	return func(db int, args [][]byte) error {
		spec, errText := s.cmds.Resolve(args)
		switch {
		case spec == nil:
			return fmt.Errorf("Unknown command '%s'", args[0])
		case errText != "":
			return errors.New(strings.TrimPrefix(errText, "ERR ")) // its arity
		}
		if spec.Flags&command.Write == 0 {
			return fmt.Errorf("command '%s' is not a write", args[0])
		}
		if db >= s.store.Databases() {
			return fmt.Errorf("SELECT %d out of the %d databases", db, s.store.Databases())
		}
		w.B = w.B[:0]
		ctx := &s.ctx
		ctx.W, ctx.Now, ctx.DBIndex, ctx.DB, ctx.Client, ctx.Obey = &w, 0, db, s.store.DB(db), nil, true
		spec.Handler(ctx, args)
		ctx.Obey = false
		ctx.W = nil
		return nil
	}
}

// startAOF loads the AOF into the shards, every shard its own files in
// parallel, then opens the Logs they append to.
func (g *Group) startAOF() error {
	set := g.aofSet()
	if set == nil {
		return nil
	}
	start := time.Now()
	for _, s := range g.shards {
		// The encodings' limits, as the commands will run with them.
		s.applyConfig(g.conf.Snapshot())
	}
	base := func(i int, b []byte, path string) error {
		s := g.shards[i]
		// Kept whatever their TTL: the log after the base holds absolute
		// times, and the keys whose time passed go once the shard runs.
		o := snapshot.LoadOptions{Store: s.store, Verify: s.conf.RDBChecksum}
		var codes [][]byte
		s.collectLibraries(&o, &codes)
		if _, err := snapshot.LoadRDB(b, path, o); err != nil {
			return err
		}
		return s.restoreLibraries(codes)
	}
	if err := set.Load(base, func(i int) aof.Applier { return g.shards[i].replayer() }); err != nil {
		return err
	}
	g.persist.rw.baseSize.Store(set.Size())
	keys := 0
	for _, s := range g.shards {
		for db := range s.store.Databases() {
			keys += s.store.DB(db).Len()
		}
	}
	g.log.Info("DB loaded from append only file", zap.Duration("took", time.Since(start)), zap.Int("keys", keys))
	if err := set.Start(func(i int) { g.shards[i].drv.Wake() }); err != nil {
		return err
	}
	for i, s := range g.shards {
		s.attachAOF(set.Log(i))
		s.aof.set = set
	}
	return nil
}

// aofInfo writes INFO persistence's aof_* fields, in Redis 7's order:
// aof_base_size is, as there, the AOF's size at the last rewrite or at
// start (what auto-aof-rewrite-percentage compares with); then Radish's
// counts of commands logged, writes and fsyncs.
func (g *Group) aofInfo(b *strings.Builder) {
	set := g.aofSet()
	enabled, status := 0, "ok"
	if set != nil {
		enabled = 1
		if set.Failing() {
			status = "err"
		}
	}
	fmt.Fprintf(b, "aof_enabled:%d\r\n", enabled)
	g.rewriteInfo(b)
	fmt.Fprintf(b, "aof_last_write_status:%s\r\naof_last_cow_size:0\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n", status)
	if set == nil {
		return
	}
	fmt.Fprintf(b, "aof_current_size:%d\r\naof_base_size:%d\r\naof_pending_rewrite:0\r\naof_buffer_length:%d\r\n"+
		"aof_pending_bio_fsync:0\r\naof_delayed_fsync:0\r\n", set.Size(), g.persist.rw.baseSize.Load(), set.Pending())
	// Radish's own: commands logged, write system calls and fsyncs since
	// start, over every shard (commands per fsync: the group commit's).
	logged, writes, fsyncs := set.Counts()
	fmt.Fprintf(b, "aof_logged_commands:%d\r\naof_writes:%d\r\naof_fsyncs:%d\r\n", logged, writes, fsyncs)
}

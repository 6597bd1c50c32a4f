package shard

import (
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/aof"
)

// The shard's side of the AOF (persistence/aof). With appendonly no none
// of this runs: s.aof is nil, the mutation path builds no effects for it
// and replies go straight to the driver.
//
// With appendonly yes the shard's effects are appended to its Log at the
// end of each turn and submitted in one piece. Under appendfsync always
// the turn's replies and its messages to other shards are held until the
// Log's writer says the turn's bytes are on disk (group commit): every
// reply goes into its connection's held bytes (conn.held), which end the
// turn with a mark of the Log position they wait for; the messages wait
// in heldOut. The writer wakes the loop when the position moves, and the
// turn after releases what it covers. A reply that came from another
// shard (a hop, a txn's part) was held there until its own write was on
// disk, so a cross-shard write's reply waits for every part's fsync.

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
}

// aofState is a shard's AOF state, owned by its goroutine.
type aofState struct {
	log  journal
	hold bool // appendfsync always: replies and messages wait for the disk
	// heldNow are the connections that got held bytes this turn; waiting
	// those with held bytes not yet released.
	heldNow []*conn
	waiting []*conn
	heldOut []heldMsg
}

// attachAOF makes the shard log its effects to l (after the load).
func (s *Shard) attachAOF(l journal) {
	s.aof.log = l
	next := s.mut.sink
	s.mut.sink = func(shard int, fx *command.Effects) {
		l.Append(fx)
		if next != nil {
			next(shard, fx)
		}
	}
}

// output is where c's next reply bytes go: the driver's output buffer, or
// under appendfsync always c's held bytes.
func (s *Shard) output(c *conn) *[]byte {
	if !s.aof.hold {
		return s.drv.Output(c.id)
	}
	if !c.heldNow {
		c.heldNow = true
		s.aof.heldNow = append(s.aof.heldNow, c)
	}
	return &c.held
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
				out := s.drv.Output(c.id)
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
	if s.aof.hold || len(s.aof.heldOut) > 0 {
		s.holdOutbox()
	}
}

// holdOutbox, under appendfsync always, holds this turn's messages to
// other shards until the turn's log bytes are on disk (behind those held
// before), and puts back in the outbox those whose bytes now are.
func (s *Shard) holdOutbox() {
	a := &s.aof
	d, pos := a.log.Durable(), a.log.Appended()
	if pos > d || len(a.heldOut) > 0 {
		for dst, q := range s.outbox {
			for _, m := range q {
				a.heldOut = append(a.heldOut, heldMsg{dst, pos, m})
			}
			clear(q)
			s.outbox[dst] = q[:0]
		}
	}
	i := 0
	for ; i < len(a.heldOut) && a.heldOut[i].upTo <= d; i++ {
		h := &a.heldOut[i]
		s.outbox[h.dst] = append(s.outbox[h.dst], h.m)
	}
	n := copy(a.heldOut, a.heldOut[i:])
	clear(a.heldOut[n:])
	a.heldOut = a.heldOut[:n]
}

// aofRefuses returns the MISCONF error a command gets while a Log's disk
// fails, as Redis refuses writes (and PING) then; "" otherwise.
func (s *Shard) aofRefuses(spec *command.Spec) string {
	set := s.group.opts.AOF
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
		if errText != "" {
			return fmt.Errorf("Unknown command '%s'", args[0])
		}
		if spec.Flags&command.Write == 0 {
			return fmt.Errorf("command '%s' is not a write", args[0])
		}
		if db >= s.store.Databases() {
			return fmt.Errorf("SELECT %d out of the %d databases", db, s.store.Databases())
		}
		w.B = w.B[:0]
		ctx := &s.ctx
		ctx.W, ctx.Now, ctx.DBIndex, ctx.DB, ctx.Client = &w, 0, db, s.store.DB(db), nil
		spec.Handler(ctx, args)
		ctx.W = nil
		return nil
	}
}

// startAOF loads the AOF into the shards, every shard its own files in
// parallel, then opens the Logs they append to.
func (g *Group) startAOF() error {
	set := g.opts.AOF
	if set == nil {
		return nil
	}
	start := time.Now()
	if err := set.Load(func(i int) aof.Applier { return g.shards[i].replayer() }); err != nil {
		return err
	}
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
	}
	return nil
}

// aofInfo writes INFO persistence's aof_* fields, in Redis 7's order; a
// rewrite never runs (there is no BGREWRITEAOF yet).
func (g *Group) aofInfo(b *strings.Builder) {
	set := g.opts.AOF
	enabled, status := 0, "ok"
	if set != nil {
		enabled = 1
		if set.Failing() {
			status = "err"
		}
	}
	fmt.Fprintf(b, "aof_enabled:%d\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n"+
		"aof_last_rewrite_time_sec:-1\r\naof_current_rewrite_time_sec:-1\r\naof_last_bgrewrite_status:ok\r\n"+
		"aof_rewrites:0\r\naof_rewrites_consecutive_failures:0\r\naof_last_write_status:%s\r\naof_last_cow_size:0\r\n",
		enabled, status)
	if set == nil {
		return
	}
	base, size := set.Size()
	fmt.Fprintf(b, "aof_current_size:%d\r\naof_base_size:%d\r\naof_pending_rewrite:0\r\naof_buffer_length:%d\r\n"+
		"aof_pending_bio_fsync:0\r\naof_delayed_fsync:0\r\n", size, base, set.Pending())
}

package shard

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/script"
)

// A long script: busy-reply-threshold (lua-time-limit).
//
// The shard running a script is inside the interpreter, on its own
// thread: its loop does not turn until the script ends. The interpreter
// calls the Runtime's Tick every script.TickEvery instructions
// (scriptTick). The first tick notes the time; once the script has run
// busy-reply-threshold past it, the shard turns busy: it counts itself in
// Group.busy, which every shard checks in dispatch (one atomic load), so
// that every other client of the server gets Redis's -BUSY for any
// command without the allow-busy flag; and from then on each tick polls
// the shard's own driver in busy mode (pollBusy), without blocking: its
// clients' SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE and the other
// allow-busy commands (MULTI, AUTH ..., which touch no data) are served,
// every other command is answered -BUSY. Messages from
// other shards wait in the inbox: nothing but the script touches the
// store until it ends. SCRIPT KILL from any shard cancels the script's
// hook (script.Killer), unless it wrote; the server stopping aborts it
// whatever it did, and its client is left unanswered (scriptDone).
//
// A driver's Poll is not reentrant, so a script must not start inside
// one: an EVAL read while the loop polls (its OnData) waits in scriptQ
// and runs in the turn that follows (runScripts), with the rest of its
// connection's pipeline. A script that starts inside Poll anyway (a
// script sent by another shard and run by OnData's early look at the
// inbox, one inside an EXEC) turns the server busy all the same, but its
// own shard's clients wait for its end.

// busyState is the shard's side of it; owned by the shard's goroutine
// but for now, which other shards read.
type busyState struct {
	polling bool // inside the driver's Poll
	serving bool // inside pollBusy: OnData answers in busy mode
	first   time.Time
	on      bool // counted in Group.busy
	// heap is the heap's size at the run's first tick, mem the sample
	// that reads it (lua-memory-limit).
	heap   int64
	mem    [1]metrics.Sample
	reader resp.Reader
	queue  []*conn // connections whose script waits for the turn
	held   bool    // the command dispatch saw was left in the input
	// now is on, for other shards' busyText.
	now atomic.Bool
}

// busyText is the -BUSY reply while some shard runs a long script.
func (g *Group) busyText() string {
	for _, o := range g.shards {
		if o.busy.now.Load() && o.killer.Function() {
			return script.BusyFunction
		}
	}
	return script.BusyEval
}

// runScript runs sc and ends the shard's busy mode if the run turned it
// on.
func (s *Shard) runScript(sc *script.Script, call *script.Call, w *resp.Writer) bool {
	b := &s.busy
	b.first = time.Time{}
	ok := s.lua.Run(sc, call, w)
	if b.on {
		b.on = false
		b.now.Store(false)
		s.group.busy.Add(-1)
	}
	return ok
}

// scriptTick is the Runtime's Tick (see the comment at the top).
func (s *Shard) scriptTick() {
	b := &s.busy
	now := time.Now()
	if s.group.stopping.Load() {
		s.killer.Abort()
		return
	}
	if b.first.IsZero() {
		b.first, b.heap = now, s.heapSize()
		return
	}
	if s.overMemory() {
		s.lua.Fail("ERR Script used more memory than lua-memory-limit allows (" +
			strconv.FormatInt(s.conf.LuaMemoryLimit, 10) + " bytes)")
		return
	}
	if !b.on {
		ms := now.Sub(b.first).Milliseconds()
		if ms < s.conf.BusyReplyThreshold {
			return
		}
		b.on = true
		b.now.Store(true)
		s.group.busy.Add(1)
		s.group.log.Warn("Slow script detected: still in execution after "+strconv.FormatInt(ms, 10)+" milliseconds. "+
			"You can try killing the script using the "+killCommand(s.killer.Function())+" command.", shardField(s.id))
	}
	if !b.polling {
		s.ownBorrowed()
		s.pollBusy()
	}
}

// heapSize is the size of the heap's objects, live or not yet swept.
func (s *Shard) heapSize() int64 {
	m := s.busy.mem[:]
	m[0].Name = "/memory/classes/heap/objects:bytes"
	metrics.Read(m)
	return int64(m[0].Value.Uint64())
}

// overMemory reports whether the heap grew past lua-memory-limit since
// the run's first tick, garbage not counted: past the limit, a collection
// runs before the heap is measured again. The whole process's heap is
// measured (there is no allocator per script): what other shards
// allocate meanwhile counts too.
func (s *Shard) overMemory() bool {
	limit := s.conf.LuaMemoryLimit
	if s.heapSize()-s.busy.heap <= limit {
		return false
	}
	runtime.GC()
	return s.heapSize()-s.busy.heap > limit
}

func killCommand(function bool) string {
	if function {
		return "FUNCTION KILL"
	}
	return "SCRIPT KILL"
}

// pollBusy takes the driver's completions without waiting, answering in
// busy mode, and sends what was answered.
func (s *Shard) pollBusy() {
	b := &s.busy
	now := s.now
	b.polling, b.serving = true, true
	if err := s.drv.Poll(0, s); err != nil {
		s.group.log.Error("shard poll failed during a script", zap.Error(err), shardField(s.id))
	}
	b.polling, b.serving = false, false
	s.now = now
}

// serveBusy answers c's commands while the script runs: SCRIPT KILL,
// FUNCTION KILL, SHUTDOWN NOSAVE and the other allow-busy commands, -BUSY
// to the rest. The client whose command runs the script, and one waiting
// for a reply, are left alone.
func (s *Shard) serveBusy(c *conn) {
	b := &s.busy
	for !c.running && !c.barrier && !c.closing && !c.dead && !c.cl.Close {
		in := s.input(c)
		if len(in) == 0 {
			break
		}
		args, n, err := b.reader.Next(in)
		if err != nil || n == 0 {
			break // a protocol error is answered after the script
		}
		if len(args) > 0 && !s.answerBusy(c, args) {
			break
		}
		s.consume(c, n)
	}
	s.checkOutput(c)
}

// answerBusy answers one command in busy mode, or reports false when it
// must wait for the script's end (a client not authenticated yet).
func (s *Shard) answerBusy(c *conn, args [][]byte) bool {
	spec, errText := s.cmds.Resolve(args)
	switch {
	case errText != "":
		s.refuseCmd(c, spec, errText)
		return true
	case !c.cl.Authed && spec.Flags&command.NoAuth == 0:
		return false
	case spec.Flags&command.AllowBusy == 0:
		s.refuseCmd(c, spec, s.group.busyText())
		return true
	case spec.Name == "shutdown":
		if !shutdownNoSave(args) {
			errText = s.group.busyText()
			break
		}
		// The server stops: the next tick aborts the script.
		s.group.Shutdown()
		c.cl.Close = true
		return true
	case spec.Name == "script|kill" || spec.Name == "function|kill":
		s.stats.commands++
		s.stats.count(spec)
		errText = s.KillScript(spec.Name == "function|kill")
		if errText == "" {
			s.reply(c, func(w *resp.Writer) { w.OK() })
			return true
		}
	default:
		// The other allow-busy commands (MULTI, DISCARD, AUTH, HELLO,
		// FUNCTION STATS ...) touch no data: they run as usual.
		s.dispatch(c, args)
		return true
	}
	c.txRefused()
	s.reply(c, func(w *resp.Writer) { w.Error(errText) })
	return true
}

// shutdownNoSave reports whether a SHUTDOWN says NOSAVE.
func shutdownNoSave(args [][]byte) bool {
	return slices.ContainsFunc(args[1:], func(a []byte) bool { return strings.EqualFold(string(a), "nosave") })
}

// holdScript reports whether dispatch must leave c's script for the turn
// (it was read inside the driver's Poll), and queues c then.
func (s *Shard) holdScript(c *conn) bool {
	b := &s.busy
	if !b.polling || b.serving {
		return false
	}
	c.barrier, b.held = true, true
	b.queue = append(b.queue, c)
	return true
}

// runScripts serves the connections whose script waited for the turn.
func (s *Shard) runScripts() {
	b := &s.busy
	for len(b.queue) > 0 {
		c := b.queue[0]
		b.queue = b.queue[:copy(b.queue, b.queue[1:])]
		c.barrier = false
		if !c.dead && !c.closing {
			s.serve(c)
		}
	}
}

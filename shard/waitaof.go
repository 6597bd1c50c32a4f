package shard

import (
	"sync"
	"time"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/aof"
)

// WAITAOF, as Redis 7.2. Locally, "fsynced" means every shard's AOF Log
// has fsynced past what it had been handed when WAITAOF came (a write's
// reply leaves after its turn's effects were handed over, so every write
// acknowledged before is in it); a replica has when its FACK (REPLCONF
// ACK <offset> FACK <offset>) reaches the stream's offset past every
// write made before WAITAOF, as WAIT's target is found. A radish replica
// with its AOF on sends FACK (fsyncedOffset); redis-server 7.0 sends
// none, and counts only while no write was made. Like WAIT, it waits for
// every write made before it, not only its client's.

// errWaitAOFReplica and errWaitAOFNoAOF are Redis 7.2's errors.
const (
	errWaitAOFReplica = "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated."
	errWaitAOFNoAOF   = "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled."
)

// waitAOFCheck is the errors WAITAOF gives before it waits, and the AOF
// in use (nil when appendonly is no).
func (g *Group) waitAOFCheck(local bool) (*aof.Set, string) {
	if g.repl.link.Load() != nil {
		return nil, errWaitAOFReplica
	}
	set := g.aof.Load()
	if local && set == nil {
		return nil, errWaitAOFNoAOF
	}
	return set, ""
}

// AOFAcked implements command.Server.
func (g *Group) AOFAcked(local bool) (int, int, string) {
	set, errText := g.waitAOFCheck(local)
	if errText != "" {
		return 0, 0, errText
	}
	p := &g.prim
	p.mu.Lock()
	off := p.offset
	p.mu.Unlock()
	locals := 0
	if set != nil {
		locals = g.localAcked(set, set.Submitted())
	}
	return locals, g.replicasFacked(off), ""
}

// localAcked is 1 when set fsynced every Log up to at.
func (g *Group) localAcked(set *aof.Set, at []uint64) int {
	if set != nil && set.FsyncedTo(at) {
		return 1
	}
	return 0
}

// replicasFacked counts the replicas whose AOF fsynced the stream up to
// off.
func (g *Group) replicasFacked(off int64) int {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.replicas {
		if r.state == "online" && !r.rdb && r.fack.Load() >= off {
			n++
		}
	}
	return n
}

// waitAOFCmd is WAITAOF numlocal numreplicas timeout from client c: the
// reply [numlocal fsynced, replicas fsynced] once both counts are
// reached or timeout (milliseconds, 0: none) passed.
func (s *Shard) waitAOFCmd(c *conn, args [][]byte) {
	numlocal, numreplicas, ms, errText := command.WaitAOFArgs(args)
	g := s.group
	var set *aof.Set
	if errText == "" {
		set, errText = g.waitAOFCheck(numlocal > 0)
	}
	if errText != "" {
		s.reply(c, func(w *resp.Writer) { w.Error(errText) })
		return
	}
	home := s.id
	sl := s.pend(c)
	c.barrier = true
	var deadline time.Time
	if ms > 0 {
		deadline = time.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	go func() {
		g.afterEarlier(home, c, sl)
		var at []uint64
		if set != nil {
			at = set.Submitted()
		}
		local, replicas := g.waitAOF(set, at, int(numlocal), int(numreplicas), deadline)
		g.shards[home].deliver([]message{{kind: msgRepl, data: runMsg(func(h *Shard) {
			rw := resp.Writer{Proto: c.cl.Proto}
			rw.Array(2)
			rw.Int(int64(local))
			rw.Int(int64(replicas))
			c.barrier = false
			h.fill(c, sl, rw.B)
			if !c.dead && !c.closing {
				h.serve(c)
			}
		})}})
	}()
}

// afterEarlier returns once every command c sent before the one of
// slot sl (on shard home) has its reply: a pipelined write hopped to
// another shard may still run when WAIT or WAITAOF is read, and what
// they wait for must hold it.
func (g *Group) afterEarlier(home int, c *conn, sl *slot) {
	for {
		first := make(chan bool, 1)
		g.shards[home].deliver([]message{{kind: msgRepl, data: runMsg(func(*Shard) {
			first <- c.dead || len(c.queue) == 0 || c.queue[0] == sl
		})}})
		if <-first {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// waitAOF waits until set fsynced up to at (numlocal 1) and numreplicas
// replicas fsynced the stream past every write made before it, or the
// deadline (zero: none) passed; it returns both counts then.
func (g *Group) waitAOF(set *aof.Set, at []uint64, numlocal, numreplicas int, deadline time.Time) (int, int) {
	p := &g.prim
	w := &waiter2{}
	w.target.Store(-1)
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if started {
		g.mergeWait(w) // its target is found as WAIT's; the GETACK brings FACKs
	} else {
		w.target.Store(0)
	}
	for {
		local, replicas := g.localAcked(set, at), 0
		target := w.target.Load()
		if target >= 0 {
			replicas = g.replicasFacked(target)
		}
		if target >= 0 && local >= numlocal && replicas >= numreplicas ||
			!deadline.IsZero() && time.Now().After(deadline) {
			return local, replicas
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// fackState maps a replica's applied offsets to its AOF's positions
// (fsyncedOffset), under mu: the link's goroutines ask.
type fackState struct {
	mu      sync.Mutex
	samples []fackSample // oldest first, not yet fsynced
	synced  int64        // the last sample's offset fsynced
}

type fackSample struct {
	off int64
	set *aof.Set
	at  []uint64
}

// fsyncedOffset is the replica link's repl.Options.Fsynced: the offset
// applied whose writes this server's AOF has fsynced, learnt by sampling
// the AOF's positions at each ACK (the writes applied up to an offset
// were handed to the AOF when their replies came back); false with
// appendonly no.
func (g *Group) fsyncedOffset(applied int64) (int64, bool) {
	set := g.aof.Load()
	if set == nil {
		return 0, false
	}
	f := &g.fack
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.samples); n > 0 && f.samples[n-1].off > applied || applied < f.synced {
		f.samples, f.synced = f.samples[:0], 0 // a new stream (full sync)
	}
	if n := len(f.samples); (n == 0 || f.samples[n-1].off < applied) && n < 64 {
		f.samples = append(f.samples, fackSample{off: applied, set: set, at: set.Submitted()})
	}
	for len(f.samples) > 0 {
		sm := f.samples[0]
		// A sample of an AOF since replaced is fsynced: the new one's base
		// holds it.
		if sm.set == set && !set.FsyncedTo(sm.at) {
			break
		}
		f.synced = sm.off
		f.samples = f.samples[1:]
	}
	return f.synced, true
}

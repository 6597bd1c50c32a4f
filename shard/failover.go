package shard

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
)

// FAILOVER, as Redis 7.0's replication.c: the primary pauses writes (as
// CLIENT PAUSE WRITE) and holds its stream still (no PING), then probes
// its replicas (a WAIT through the merger whose target is past its
// GETACK, so a replica that acknowledged it read every byte of the
// stream) until the target replica, or any when none was named, has the
// whole stream: waiting-for-sync. Then failover-in-progress: the group
// becomes a replica of it (REPLICAOF's path, dropping its replicas) whose
// first PSYNC is PSYNC <replid> <offset+1> FAILOVER; the target, whose
// replication ID is the primary's, promotes itself keeping that ID as
// its replid2 and answers +CONTINUE with its new ID, so the old primary
// continues the stream with no full sync. The PSYNC's +CONTINUE (or
// +FULLRESYNC) ends the failover and the pause; an error, a timeout
// without FORCE, or FAILOVER ABORT abort it (in progress, the group
// becomes a primary again). The receiving side is psyncFailover: a
// replica asked with its own replication ID is promoted, then serves the
// PSYNC as a primary.

// The failover's states, as INFO's master_failover_state names them.
const (
	foNone       = iota
	foWaiting    // waiting-for-sync
	foInProgress // failover-in-progress
)

// foState is the failover in progress. mu guards it.
type foState struct {
	mu       sync.Mutex
	state    int
	host     string // the target ("" while any replica may be)
	port     int
	force    bool
	deadline time.Time // zero: no TIMEOUT
	abort    chan struct{}
	paused   int64 // the pause word before the failover paused writes
	// onPsync gets the FAILOVER PSYNC's reply; the link takes it once
	// (psync).
	onPsync func(line string)
}

func (f *foState) stateName() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return [...]string{"no-failover", "waiting-for-sync", "failover-in-progress"}[f.state]
}

// busy reports whether a failover is in progress.
func (f *foState) busy() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state != foNone
}

// psync hands the new link the FAILOVER PSYNC's callback (nil when no
// failover is in progress), once.
func (f *foState) psync() func(string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cb := f.onPsync
	f.onPsync = nil
	return cb
}

// Failover implements command.Server: FAILOVER's checks, in Redis's
// order and with its errors, then the failover starts in the background.
func (g *Group) Failover(args [][]byte) string {
	f := &g.fo
	if len(args) == 2 && strings.EqualFold(string(args[1]), "abort") {
		if !f.busy() {
			return "ERR No failover in progress."
		}
		g.abortFailover("Failover manually aborted")
		return ""
	}
	var timeout, port int64
	var host string
	hasHost, force := false, false
	for j := 1; j < len(args); j++ {
		a := strings.ToLower(string(args[j]))
		switch {
		case a == "timeout" && j+1 < len(args) && timeout == 0:
			v, ok := num.ParseInt(args[j+1])
			if !ok {
				return errtext.NotInt
			}
			if v <= 0 {
				return "ERR FAILOVER timeout must be greater than 0"
			}
			timeout = v
			j++
		case a == "to" && j+2 < len(args) && !hasHost:
			v, ok := num.ParseInt(args[j+2])
			if !ok {
				return errtext.NotInt
			}
			host, port, hasHost = string(args[j+1]), v, true
			j += 2
		case a == "force" && !force:
			force = true
		default:
			return errtext.Syntax
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.state != foNone:
		return "ERR FAILOVER already in progress."
	case g.repl.link.Load() != nil:
		return "ERR FAILOVER is not valid when server is a replica."
	case g.replicaCount() == 0:
		return "ERR FAILOVER requires connected replicas."
	case force && (timeout == 0 || !hasHost):
		return "ERR FAILOVER with force option requires both a timeout and target HOST and IP."
	}
	if hasHost {
		r := g.findReplica(host, int(port))
		if r == nil {
			return "ERR FAILOVER target HOST and PORT is not a replica."
		}
		if r.state != "online" {
			return "ERR FAILOVER target replica is not online."
		}
		g.log.Info(fmt.Sprintf("FAILOVER requested to %s:%d.", host, port))
	} else {
		g.log.Info("FAILOVER requested to any replica.")
	}
	f.state, f.host, f.port, f.force = foWaiting, host, int(port), force
	f.deadline = time.Time{}
	if timeout > 0 {
		f.deadline = time.Now().Add(time.Duration(timeout) * time.Millisecond)
	}
	f.abort = make(chan struct{})
	f.paused = g.pauseWord.Load()
	g.prim.quiet.Store(true)
	g.Pause(math.MaxInt64>>2, false)
	go g.runFailover(f.abort)
	return ""
}

// replicaCount is how many replicas are connected (redis-cli --rdb's
// aside), in any state.
func (g *Group) replicaCount() int {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.replicas {
		if !r.rdb {
			n++
		}
	}
	return n
}

// findReplica returns the replica announced as host:port, or nil.
func (g *Group) findReplica(host string, port int) *replica {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.replicas {
		if !r.rdb && strings.EqualFold(r.ip, host) && r.port == port {
			return r
		}
	}
	return nil
}

// runFailover waits until the target (or any replica) has the whole
// stream, or the deadline passes, then fails over to it.
func (g *Group) runFailover(abort chan struct{}) {
	f := &g.fo
	var host string
	var port int
	for {
		select {
		case <-abort:
			return
		default:
		}
		f.mu.Lock()
		var force bool
		var deadline time.Time
		host, port, force, deadline = f.host, f.port, f.force, f.deadline
		f.mu.Unlock()
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			if !force {
				g.abortFailover("Replica never caught up before timeout")
				return
			}
			g.log.Info(fmt.Sprintf("FAILOVER to %s:%d time out exceeded, failing over.", host, port))
			break
		}
		probe := time.Now().Add(100 * time.Millisecond)
		if !deadline.IsZero() && deadline.Before(probe) {
			probe = deadline
		}
		if h, p, ok := g.syncedReplica(host, port, probe); ok {
			host, port = h, p
			g.log.Info(fmt.Sprintf("Failover target %s:%d is synced, failing over.", host, port))
			break
		}
	}
	f.mu.Lock()
	select {
	case <-abort: // ABORT came first
		f.mu.Unlock()
		return
	default:
	}
	f.state, f.host, f.port = foInProgress, host, port
	f.onPsync = func(line string) { go g.failoverPsynced(line) }
	f.mu.Unlock()
	r := &g.repl
	r.change.Lock()
	g.follow(host, port)
	r.change.Unlock()
}

// syncedReplica probes the replicas until deadline: the first that
// acknowledged the stream past the probe's GETACK, and is host:port
// when host is set.
func (g *Group) syncedReplica(host string, port int, deadline time.Time) (string, int, bool) {
	p := &g.prim
	w := &waiter2{after: true}
	w.target.Store(-1)
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if started {
		g.mergeWait(w)
	} else {
		w.settle(0) // no replica to find
	}
	for ; time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		t := w.target.Load()
		if t < 0 {
			continue
		}
		p.mu.Lock()
		for _, r := range p.replicas {
			if r.rdb || r.state != "online" || r.ack.Load() < t ||
				host != "" && !(strings.EqualFold(r.ip, host) && r.port == port) {
				continue
			}
			h, pt := r.ip, r.port
			p.mu.Unlock()
			return h, pt, true
		}
		p.mu.Unlock()
	}
	return "", 0, false
}

// failoverPsynced ends the failover with the target's reply to its
// PSYNC: done when it serves the stream, aborted otherwise.
func (g *Group) failoverPsynced(line string) {
	if strings.HasPrefix(line, "+CONTINUE") || strings.HasPrefix(line, "+FULLRESYNC") {
		g.clearFailover()
		return
	}
	g.log.Warn("the failover target refused the PSYNC", zap.String("reply", line))
	g.abortFailover("Failover target rejected psync request")
}

// abortFailover ends the failover in progress with reason: a group that
// already follows the target becomes a primary again (in the background:
// it waits for the shards, and may be called from one).
func (g *Group) abortFailover(reason string) {
	f := &g.fo
	f.mu.Lock()
	if f.state == foNone {
		f.mu.Unlock()
		return
	}
	if f.host != "" {
		g.log.Info(fmt.Sprintf("FAILOVER to %s:%d aborted: %s", f.host, f.port, reason))
	} else {
		g.log.Info("FAILOVER to any replica aborted: " + reason)
	}
	inProgress := f.state == foInProgress
	if !inProgress {
		close(f.abort)
	}
	f.onPsync = nil
	f.mu.Unlock()
	if inProgress {
		go func() {
			g.replicaOf("", 0)
			g.clearFailover()
		}()
		return
	}
	g.clearFailover()
}

// clearFailover returns to no-failover: the stream moves again and the
// pause ends (a CLIENT PAUSE in force before it holds on).
func (g *Group) clearFailover() {
	f := &g.fo
	f.mu.Lock()
	was := f.paused
	f.state, f.host, f.port, f.abort, f.onPsync = foNone, "", 0, nil, nil
	f.mu.Unlock()
	g.prim.quiet.Store(false)
	g.restorePause(was)
}

// restorePause puts back the pause word a shutdown or failover found
// (none if it has ended) and wakes every shard.
func (g *Group) restorePause(was int64) {
	if was>>1 <= time.Now().UnixMilli() {
		was = 0
	}
	g.pauseWord.Store(was)
	for _, s := range g.shards {
		s.drv.Wake()
	}
}

// psyncFailover handles, before psyncCmd, PSYNC <replid> <offset>
// FAILOVER (a primary handing over to this server: a replica whose
// replication ID it names is promoted first, then serves the PSYNC) and
// any PSYNC while this server fails over (refused); it reports whether
// it took the command.
func (s *Shard) psyncFailover(c *conn, spec *command.Spec, args [][]byte) bool {
	g := s.group
	if len(args) > 3 && strings.EqualFold(string(args[3]), "failover") {
		link := g.repl.link.Load()
		var mine string
		if link != nil {
			mine = link.Status().ReplID
		} else {
			g.repl.mu.Lock()
			mine = g.repl.replid
			g.repl.mu.Unlock()
		}
		if string(args[1]) != mine {
			s.reply(c, func(w *resp.Writer) { w.Error("ERR PSYNC FAILOVER replid must match my replid.") })
			return true
		}
		psync := [][]byte{[]byte("psync"), append([]byte(nil), args[1]...), append([]byte(nil), args[2]...)}
		if link == nil {
			s.psyncCmd(c, spec, psync)
			return true
		}
		home, from := s.id, c.cl.Addr
		c.barrier = true
		go func() {
			g.replicaOf("", 0)
			g.log.Info(fmt.Sprintf("MASTER MODE enabled (failover request from '%s')", from))
			g.shards[home].deliver([]message{{kind: msgRepl, data: runMsg(func(h *Shard) {
				c.barrier = false
				if !c.dead && !c.closing {
					h.psyncCmd(c, spec, psync)
					h.serve(c)
				}
			})}})
		}()
		return true
	}
	if g.fo.busy() {
		s.reply(c, func(w *resp.Writer) { w.Error("NOMASTERLINK Can't SYNC while failing over") })
		return true
	}
	return false
}

package shard

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
)

// A shutdown, as Redis 7.0's prepareForShutdown and finishShutdown: a
// primary with replicas first pauses writes (as CLIENT PAUSE WRITE) and
// waits up to shutdown-timeout seconds until every replica acknowledged
// the whole stream (each probe is a WAIT through the merger, so the
// offset it waits for holds every write made before it, and asks the
// replicas with REPLCONF GETACK); SHUTDOWN NOW, shutdown-timeout 0 or no
// replica skip the wait. Then it saves when asked to (SAVE, or save
// points without NOSAVE) and stops the group. SHUTDOWN ABORT during the
// wait cancels it: the pause ends and the SHUTDOWN clients waiting get
// Redis's error, as they do when the save fails without FORCE. One
// goroutine per shutdown does the waiting; no shard waits.

// shutState is the shutdown in progress. mu guards it.
type shutState struct {
	mu       sync.Mutex
	on       bool  // a shutdown was asked for and is not over
	waiting  bool  // it waits for the replicas (ABORT may cancel it)
	deadline int64 // unix ms: the wait's end
	abort    chan struct{}
	paused   int64 // the pause word before the wait paused writes
	// blocked are the SHUTDOWN clients waiting for the outcome: "" when
	// the server stops, else the error they get.
	blocked []func(errText string)
}

// errShutdownFailed is what the SHUTDOWN clients get when the shutdown
// is aborted or its save fails.
const errShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs."

// beginShutdown starts a shutdown with SHUTDOWN's flags (config.Shutdown*).
// A client's SHUTDOWN passes blocked, which gets the outcome; a signal
// passes nil. A SHUTDOWN while one is in progress waits for it, its
// flags ignored, as in Redis.
func (g *Group) beginShutdown(flags int, blocked func(errText string)) {
	sh := &g.shut
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if blocked != nil {
		sh.blocked = append(sh.blocked, blocked)
	}
	if sh.on {
		return
	}
	sh.on = true
	g.log.Info("User requested shutdown...")
	timeout := g.conf.Snapshot().ShutdownTimeout
	if flags&config.ShutdownNow != 0 || timeout == 0 || g.replicaCount() == 0 {
		go g.finishShutdown(flags, nil)
		return
	}
	// With replicas the probes decide: the stream's offset may not
	// hold the last writes yet.
	sh.waiting = true
	sh.deadline = time.Now().UnixMilli() + int64(timeout)*1000
	sh.abort = make(chan struct{})
	sh.paused = g.pauseWord.Load()
	g.Pause(math.MaxInt64>>2, false)
	go g.finishShutdown(flags, sh.abort)
}

// finishShutdown waits for the replicas until the deadline (when abort
// is set), logs the lagging ones, saves when flags ask for it, and stops
// the group; a failed save without FORCE cancels the shutdown instead.
func (g *Group) finishShutdown(flags int, abort chan struct{}) {
	sh := &g.shut
	target := int64(-1) // the offset the last probe waited for
	if abort != nil {
		logged := false
		for {
			sh.mu.Lock()
			deadline := time.UnixMilli(sh.deadline)
			sh.mu.Unlock()
			probe := time.Now().Add(100 * time.Millisecond)
			if deadline.Before(probe) {
				probe = deadline
			}
			acked, n, off := g.probeReplicas(probe)
			target = off
			if acked >= n || !time.Now().Before(deadline) {
				break
			}
			if !logged {
				g.log.Info("Waiting for replicas before shutting down.")
				logged = true
			}
			select {
			case <-abort:
				return
			default:
			}
		}
		sh.mu.Lock()
		select {
		case <-abort: // ABORT came first
			sh.mu.Unlock()
			return
		default:
		}
		sh.waiting = false
		sh.mu.Unlock()
	}
	g.logLagging(target)
	c := g.conf.Snapshot()
	if flags&config.ShutdownSave != 0 || flags&config.ShutdownNoSave == 0 && len(c.Save) > 0 {
		g.log.Info("Saving the final RDB snapshot before exiting.")
		ch := make(chan error, 1)
		g.saveAll(func(err error) { ch <- err })
		if err := <-ch; err != nil {
			if flags&config.ShutdownForce == 0 {
				g.log.Warn("Error trying to save the DB, can't exit.", zap.Error(err))
				g.log.Warn("Errors trying to shut down the server. Check the logs for more information.")
				g.cancelShutdown()
				return
			}
			g.log.Warn("Error trying to save the DB. Exit anyway.", zap.Error(err))
		}
	}
	sh.mu.Lock()
	blocked := sh.blocked
	sh.blocked = nil
	sh.mu.Unlock()
	for _, f := range blocked {
		f("")
	}
	g.Stop()
}

// probeReplicas is one WAIT for every replica until the deadline: how
// many acknowledged the stream past every write made before it, of n,
// and that offset (-1: none was known by the deadline).
func (g *Group) probeReplicas(deadline time.Time) (acked, n int, target int64) {
	p := &g.prim
	p.mu.Lock()
	for _, r := range p.replicas {
		if !r.rdb {
			n++
		}
	}
	p.mu.Unlock()
	if n == 0 {
		return 0, 0, -1
	}
	got := make(chan int, 1)
	w := &waiter2{need: n, deadline: deadline, reply: func(k int) { got <- k }}
	g.wait(w)
	return <-got, n, w.target.Load()
}

// logLagging logs each replica behind the stream (behind target, the
// offset the wait asked for, when known: the GETACK after it needs no
// acknowledgement) and how many are in sync, as Redis's finishShutdown.
func (g *Group) logLagging(target int64) {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	if target < 0 {
		target = p.offset
	}
	n, lagging := 0, 0
	now := time.Now().UnixMilli()
	for _, r := range p.replicas {
		if r.rdb {
			continue
		}
		n++
		if ack := r.ack.Load(); ack < target {
			lagging++
			lag := int64(0)
			if r.state == "online" {
				lag = (now - r.ackAt.Load()) / 1000
			}
			g.log.Warn(fmt.Sprintf("Lagging replica %s:%d reported offset %d behind master, lag=%d, state=%s.",
				r.ip, r.port, target-ack, lag, r.state))
		}
	}
	if n > 0 {
		g.log.Info(fmt.Sprintf("%d of %d replicas are in sync when shutting down.", n-lagging, n))
	}
}

// abortShutdown is SHUTDOWN ABORT: it cancels a shutdown waiting for
// its replicas, and reports whether one was.
func (g *Group) abortShutdown() bool {
	sh := &g.shut
	sh.mu.Lock()
	waiting := sh.waiting
	if waiting {
		close(sh.abort)
	}
	sh.mu.Unlock()
	if waiting {
		g.cancelShutdown()
		g.log.Info("Shutdown manually aborted.")
	}
	return waiting
}

// cancelShutdown ends the shutdown in progress: the pause it took ends
// (a CLIENT PAUSE that was in force before it holds on), and the
// SHUTDOWN clients waiting get Redis's error.
func (g *Group) cancelShutdown() {
	sh := &g.shut
	sh.mu.Lock()
	blocked, was, pausedByUs := sh.blocked, sh.paused, sh.abort != nil
	sh.on, sh.waiting, sh.blocked, sh.abort = false, false, nil, nil
	sh.mu.Unlock()
	if pausedByUs {
		g.restorePause(was)
	}
	for _, f := range blocked {
		f(errShutdownFailed)
	}
}

// ShuttingDown reports whether a shutdown is in progress.
func (g *Group) ShuttingDown() bool {
	g.shut.mu.Lock()
	defer g.shut.mu.Unlock()
	return g.shut.on
}

// ShutdownBySignal is SIGTERM's or SIGINT's shutdown, with
// shutdown-on-sigterm's (or -sigint's) flags: as SHUTDOWN with them.
func (g *Group) ShutdownBySignal(flags int) { g.beginShutdown(flags, nil) }

// shutdownInfo writes INFO server's shutdown_in_milliseconds while a
// shutdown waits for its replicas.
func (g *Group) shutdownInfo(b *strings.Builder) {
	sh := &g.shut
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.waiting {
		fmt.Fprintf(b, "shutdown_in_milliseconds:%d\r\n", max(sh.deadline-time.Now().UnixMilli(), 0))
	}
}

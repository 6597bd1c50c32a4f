package shard

import (
	"fmt"
	"slices"
	"sync"
	"time"
	_ "unsafe" // nanotime's go:linkname

	"github.com/radish-kv/radish/command"
)

// The slow log (SLOWLOG). While slowlog-log-slower-than is not -1 (or
// latency-monitor-threshold is above 0: latmon.go), every command a shard
// runs is timed, as in Redis, but with one reading of the command clock (ticks.go) per
// command rather than two: a command starts where the one before it on
// the shard ended (clock.mark), as long as nothing else ran in between.
// The mark is dropped at the end of each turn (the cron, the AOF, the
// wait in Poll come after it); the first connection's bytes after a Poll
// set it again (eventTime), or the first command reads the clock twice. What a command is charged beyond its handler is the
// parsing and reply queueing around it, well under a microsecond.
//
// A command over several shards is logged once, whole, with the time of
// its first part. A command at least as slow as the threshold enters the slow log of the
// shard its client is on (a hop's owner sends the entry there, which
// fills in the client's address and name). Entries are appended under
// the log's own mutex, taken only for a slow command and by SLOWLOG;
// ids come from one counter of the group, so every shard's entries
// merge into one order, the order they were logged in.

// Redis's limits on what an entry keeps (SLOWLOG_ENTRY_MAX_ARGC,
// SLOWLOG_ENTRY_MAX_STRING).
const (
	slowMaxArgc   = 32
	slowMaxString = 128
)

// cmdClock times commands for the slow log and latency histograms, in
// ticks (ticks.go).
type cmdClock struct {
	base int64 // ticks at the shard's start, less one: since is never 0
	mark int64 // when the last command ended, ticks since base; 0: unknown
	// nowAt is the mark when OnData last read the wall clock (eventTime).
	nowAt int64
	// stale is nowStale in ticks.
	stale int64
	// slowNs is slowlog-log-slower-than in ns, -1 when off; on: every
	// command is timed (the slow log or the latency monitor is on).
	slowNs int64
	on     bool
	// alarm is the least duration, in ticks, that slowCall looks at: the
	// lower of the slow log's and the latency monitor's thresholds
	// (MaxInt64: none).
	alarm int64
}

// since is the command clock's reading: ticks since base.
func (k *cmdClock) since() int64 { return ticks() - k.base }

// nanotime is the runtime's monotonic clock, the one time.Since reads,
// without the wrapping (a Time, its bubble test) that cost a command
// about 45 instructions of its one clock read (runtime/time_nofake.go
// keeps it for such callers).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// slowLog is a shard's slow log.
type slowLog struct {
	mu      sync.Mutex
	entries []command.SlowEntry // oldest first
}

// slowCall files a command that took d, at least the command clock's
// alarm, in the slow log and as a latency event, where each's threshold
// says.
func (s *Shard) slowCall(cl *command.Client, spec *command.Spec, args [][]byte, d time.Duration) {
	if s.clock.slowNs >= 0 && int64(d) >= s.clock.slowNs && !s.laterPart {
		if s.wholeArgs != nil {
			args = s.wholeArgs
		}
		s.logSlow(cl, spec, args, d)
	}
	if s.conf.LatencyMonitorThreshold > 0 {
		s.slowCommand(spec, d)
	}
}

// logSlow files an entry for a command that took d, for its client cl
// (nil when the command came from another shard: s.who says whose).
func (s *Shard) logSlow(cl *command.Client, spec *command.Spec, args [][]byte, d time.Duration) {
	if spec.Flags&command.SkipSlowlog != 0 {
		return
	}
	e := command.SlowEntry{Time: s.group.clock().Unix(), Micros: d.Microseconds(),
		Args: slowArgs(command.Redacted(spec, args, &s.redactBuf))}
	clear(s.redactBuf)
	if cl != nil {
		s.addSlow(e, cl)
		return
	}
	who := s.who
	if who.id == 0 {
		s.addSlow(e, nil)
		return
	}
	s.post(int(who.home), msgSlow, &slowMsg{e: e, client: who.id})
}

// slowMsg is a slow command's entry for the slow log of its client's
// shard (msgSlow), which adds the client's address and name.
type slowMsg struct {
	e      command.SlowEntry
	client int64
}

func (m *slowMsg) handle(s *Shard, _ msgKind) {
	var c *command.Client
	if oc := s.clientConn(m.client); oc != nil {
		c = &oc.cl
	}
	s.addSlow(m.e, c)
}

// addSlow appends e for client cl (nil: unknown) and trims the log to
// slowlog-max-len.
func (s *Shard) addSlow(e command.SlowEntry, cl *command.Client) {
	if cl != nil {
		e.Addr, e.Name = cl.Addr, cl.Name
	}
	e.ID = s.group.slowIDs.Add(1) - 1
	l := &s.slow
	l.mu.Lock()
	l.entries = append(l.entries, e)
	if n := int64(len(l.entries)) - s.conf.SlowlogMaxLen; n > 0 {
		l.entries = slices.Delete(l.entries, 0, int(n))
	}
	l.mu.Unlock()
}

// clientConn is this shard's connection of the client with this ID, or
// nil (it closed).
func (s *Shard) clientConn(id int64) *conn {
	for _, c := range s.conns {
		if c.cl.ID == id {
			return c
		}
	}
	return nil
}

// slowArgs copies a command's arguments as Redis's slow log keeps them:
// at most 32 (the last one saying how many more there were), each at most
// 128 bytes (followed by how many more bytes it had).
func slowArgs(args [][]byte) [][]byte {
	n := min(len(args), slowMaxArgc)
	out := make([][]byte, n)
	for i := range n {
		a := args[i]
		switch {
		case n < len(args) && i == n-1:
			out[i] = fmt.Appendf(nil, "... (%d more arguments)", len(args)-n+1)
		case len(a) > slowMaxString:
			out[i] = fmt.Appendf(append([]byte(nil), a[:slowMaxString]...), "... (%d more bytes)", len(a)-slowMaxString)
		default:
			out[i] = append([]byte(nil), a...)
		}
	}
	return out
}

// SlowlogGet implements command.Server: the newest count entries of
// every shard's log, newest first (count < 0: all), at most
// slowlog-max-len in all.
func (g *Group) SlowlogGet(count int) []command.SlowEntry {
	var all []command.SlowEntry
	for _, s := range g.shards {
		s.slow.mu.Lock()
		all = append(all, s.slow.entries...)
		s.slow.mu.Unlock()
	}
	slices.SortFunc(all, func(a, b command.SlowEntry) int { return int(b.ID - a.ID) })
	keep := int(min(int64(len(all)), g.conf.Snapshot().SlowlogMaxLen))
	if count >= 0 {
		keep = min(keep, count)
	}
	return all[:keep]
}

// SlowlogLen implements command.Server.
func (g *Group) SlowlogLen() int { return len(g.SlowlogGet(-1)) }

// SlowlogReset implements command.Server.
func (g *Group) SlowlogReset() {
	for _, s := range g.shards {
		s.slow.mu.Lock()
		s.slow.entries = nil
		s.slow.mu.Unlock()
	}
}

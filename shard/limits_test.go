package shard

import (
	"strings"
	"testing"
	"time"
)

// set runs CONFIG SET on g's Config and has every shard take the new
// snapshot, as each does at its next loop turn.
func set(t *testing.T, g *Group, name, value string) {
	t.Helper()
	if err := g.conf.Set([][2]string{{name, value}}); err != nil {
		t.Fatal(err)
	}
	for _, s := range g.shards {
		s.applyConfig(g.conf.Snapshot())
	}
}

// TestLimitsAtRunTime: maxclients, proto-max-bulk-len and
// client-query-buffer-limit apply from the next loop turn.
func TestLimitsAtRunTime(t *testing.T) {
	m := newSim(t, 1, 1)
	g := m.g

	set(t, g, "maxclients", "1")
	c1, c2 := m.dial(0), m.dial(0)
	if got := m.take(c2); got != "-ERR max number of clients reached\r\n" || !c2.closed || c1.closed {
		t.Fatalf("second client under maxclients 1: %q closed=%v/%v", got, c1.closed, c2.closed)
	}
	m.settle()
	set(t, g, "maxclients", "2")
	c3 := m.dial(0)
	if c3.closed {
		t.Fatal("maxclients 2 refused a second client")
	}

	bulk := "*2\r\n$4\r\nECHO\r\n$1100000\r\n"
	if got := m.do(c1, bulk); got != "" || c1.closed {
		t.Fatalf("1.1 MB bulk header under 512mb: %q", got)
	}
	m.drv[0].in[c1.id] = nil
	set(t, g, "proto-max-bulk-len", "1mb")
	if got := m.do(c1, bulk); got != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("1.1 MB bulk under proto-max-bulk-len 1mb: %q", got)
	}

	set(t, g, "client-query-buffer-limit", "1mb")
	if got := m.do(c3, "*2\r\n$4\r\nECHO\r\n$1000000\r\n"+strings.Repeat("x", 900_000)); got != "" || c3.closed {
		t.Fatalf("0.9 MB of input under a 1 MB limit: %q closed %v", got, c3.closed)
	}
	m.do(c3, strings.Repeat("x", 200_000))
	if !c3.closed {
		t.Fatal("1.1 MB of input under client-query-buffer-limit 1mb: not closed")
	}
}

// TestIdleTimeout: timeout closes a connection idle for longer, from the
// cron, never a blocked one; 0 closes none.
func TestIdleTimeout(t *testing.T) {
	m := newSim(t, 1, 1)
	g := m.g
	s := g.shards[0]
	c := []*simConn{m.dial(0), m.dial(0), m.dial(0)}
	if got := m.do(c[1], "BLPOP k 0\r\n"); got != "" {
		t.Fatalf("BLPOP: %q", got)
	}
	m.do(c[2], "PING\r\n")
	idle := func(i int, ms int64) { s.conns[c[i].id].cl.LastMs = s.now - ms }
	closed := func() [3]bool { return [3]bool{c[0].closed, c[1].closed, c[2].closed} }
	cron := func() {
		s.now = m.now.UnixMilli()
		idle(0, 5000)
		idle(1, 5000)
		s.idleCheck = 0
		s.cron()
	}
	cron()
	if closed() != [3]bool{} {
		t.Fatalf("timeout 0 closed %v", closed())
	}
	set(t, g, "timeout", "2")
	cron()
	if closed() != [3]bool{true, false, false} {
		t.Fatalf("timeout 2: closed %v, want only the first", closed())
	}
	// Served after blocking longer than timeout: the answer is an
	// interaction, so the client is not idle.
	s.conns[c[1].id].cl.LastMs = s.now - 5000
	m.do(c[2], "RPUSH k v\r\n")
	if got := m.take(c[1]); got != "*2\r\n$1\r\nk\r\n$1\r\nv\r\n" {
		t.Fatalf("BLPOP served: %q", got)
	}
	s.idleCheck = 0
	s.cron()
	if c[1].closed {
		t.Fatal("a client served after blocking was closed as idle")
	}
}

// TestIdlePartialCommand: as Redis's lastinteraction, a client is idle
// since the last bytes read from it: one sending a command a byte at a
// time, each under timeout, stays; one that stops mid-command is closed.
func TestIdlePartialCommand(t *testing.T) {
	m := newSim(t, 1, 1)
	set(t, m.g, "timeout", "1")
	slow, stalled := m.dial(0), m.dial(0)
	m.do(stalled, "*1\r\n")
	req := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n"
	got := ""
	for i := range len(req) {
		got += m.do(slow, req[i:i+1])
		m.tick(600 * time.Millisecond)
		if slow.closed {
			t.Fatalf("closed after %d of %d bytes, each sent within the timeout", i+1, len(req))
		}
	}
	if got != "+OK\r\n" {
		t.Fatalf("SET sent a byte at a time: %q", got)
	}
	if !stalled.closed {
		t.Fatal("a client silent mid-command for longer than the timeout was not closed")
	}
}

// TestEvictionExceededTime: INFO's current_eviction_exceeded_time counts
// from the turn whose eviction left the server over maxmemory (here
// noeviction: nothing can go) and total_eviction_exceeded_time keeps it
// once memory is within the budget again, as Redis's.
func TestEvictionExceededTime(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	times := func() (total, current int64) {
		info := m.g.Info([]string{"stats"})
		return infoInt(t, info, "total_eviction_exceeded_time"), infoInt(t, info, "current_eviction_exceeded_time")
	}
	if got := m.do(c, "DEBUG POPULATE 20000 key 100\r\n"); got != "+OK\r\n" {
		t.Fatalf("DEBUG POPULATE: %q", got)
	}
	m.tick(time.Second)
	if total, current := times(); total != 0 || current != 0 {
		t.Fatalf("no maxmemory: total %d, current %d", total, current)
	}
	set(t, m.g, "maxmemory-policy", "noeviction")
	set(t, m.g, "maxmemory", "1mb")
	m.tick(time.Millisecond)
	m.tick(1500 * time.Millisecond)
	if total, current := times(); current != 1500 || total != 1500 {
		t.Fatalf("over maxmemory for 1.5 s: total %d, current %d", total, current)
	}
	if got := m.do(c, "FLUSHALL\r\n"); got != "+OK\r\n" {
		t.Fatalf("FLUSHALL: %q", got)
	}
	m.tick(500 * time.Millisecond)
	if total, current := times(); current != 0 || total != 1500 {
		t.Fatalf("within maxmemory again: total %d, current %d", total, current)
	}
}

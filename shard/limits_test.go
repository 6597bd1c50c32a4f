package shard

import (
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/ioloop"
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
	g := testGroup(t, 1)
	s := g.shards[0]
	f := s.drv.(*fakeDriver)

	set(t, g, "maxclients", "1")
	s.OnOpen(1)
	s.OnOpen(2)
	if got := string(*f.Output(2)); got != "-ERR max number of clients reached\r\n" || !f.closed[2] || f.closed[1] {
		t.Fatalf("second client under maxclients 1: %q closed=%v", got, f.closed)
	}
	s.OnClose(2, nil)
	set(t, g, "maxclients", "2")
	s.OnOpen(3)
	if f.closed[3] {
		t.Fatal("maxclients 2 refused a second client")
	}

	bulk := "*2\r\n$4\r\nECHO\r\n$1100000\r\n"
	if got := send(g, s, 1, bulk); got != "" || f.closed[1] {
		t.Fatalf("1.1 MB bulk header under 512mb: %q", got)
	}
	f.in[1] = nil
	set(t, g, "proto-max-bulk-len", "1mb")
	if got := send(g, s, 1, bulk); got != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("1.1 MB bulk under proto-max-bulk-len 1mb: %q", got)
	}

	set(t, g, "client-query-buffer-limit", "1mb")
	if got := send(g, s, 3, "*2\r\n$4\r\nECHO\r\n$1000000\r\n"+strings.Repeat("x", 900_000)); got != "" || f.closed[3] {
		t.Fatalf("0.9 MB of input under a 1 MB limit: %q closed %v", got, f.closed[3])
	}
	send(g, s, 3, strings.Repeat("x", 200_000))
	if !f.closed[3] {
		t.Fatal("1.1 MB of input under client-query-buffer-limit 1mb: not closed")
	}
}

// TestIdleTimeout: timeout closes a connection idle for longer, from the
// cron, never a blocked one; 0 closes none.
func TestIdleTimeout(t *testing.T) {
	g := testGroup(t, 1)
	s := g.shards[0]
	f := s.drv.(*fakeDriver)
	for id := ioloop.ConnID(1); id <= 3; id++ {
		s.OnOpen(id)
	}
	if got := send(g, s, 2, "BLPOP k 0\r\n"); got != "" {
		t.Fatalf("BLPOP: %q", got)
	}
	send(g, s, 3, "PING\r\n")
	idle := func(id ioloop.ConnID, ms int64) { s.conns[id].cl.LastMs = s.now - ms }
	cron := func() {
		s.now = time.Now().UnixMilli()
		idle(1, 5000)
		idle(2, 5000)
		s.idleCheck = 0
		s.cron()
	}
	cron()
	if f.closed[1] || f.closed[2] || f.closed[3] {
		t.Fatalf("timeout 0 closed %v", f.closed)
	}
	set(t, g, "timeout", "2")
	cron()
	if !f.closed[1] || f.closed[2] || f.closed[3] {
		t.Fatalf("timeout 2: closed %v, want only 1", f.closed)
	}
	// Served after blocking longer than timeout: the answer is an
	// interaction, so the client is not idle.
	s.conns[2].cl.LastMs = s.now - 5000
	send(g, s, 3, "RPUSH k v\r\n")
	if got := string(*f.Output(2)); got != "*2\r\n$1\r\nk\r\n$1\r\nv\r\n" {
		t.Fatalf("BLPOP served: %q", got)
	}
	s.idleCheck = 0
	s.cron()
	if f.closed[2] {
		t.Fatal("a client served after blocking was closed as idle")
	}
}

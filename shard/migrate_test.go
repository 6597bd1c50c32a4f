package shard

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestVoteHysteresis: a window moves a connection only when migShare of
// its keyed commands went to one other shard, and not again within the
// cooldown.
func TestVoteHysteresis(t *testing.T) {
	s := &Shard{id: 0, now: 10_000}
	c := &conn{}
	for i := 0; i < migWindow; i++ { // 6 of 64 stay here: 90.6% go to shard 1
		s.vote(c, map[bool]int{true: 0, false: 1}[i%11 == 10])
	}
	if c.mig.state != migWant || c.mig.dst != 1 {
		t.Fatalf("a window of >=90%% to shard 1: state %d dst %d, want a move to 1", c.mig.state, c.mig.dst)
	}
	c.mig = migration{at: s.now}
	for i := 0; i < 3*migWindow; i++ {
		s.vote(c, 1)
	}
	if c.mig.state != migNone {
		t.Fatal("a connection moved again within the cooldown")
	}
	s.now += migCooldown
	for i := 0; i < migWindow; i++ { // 8 of 64 stay here: 87.5%
		s.vote(c, map[bool]int{true: 0, false: 1}[i%8 == 7])
	}
	if c.mig.state != migNone {
		t.Fatal("a window under 90% to one shard moved the connection")
	}
	for i := 0; i < migWindow; i++ {
		s.vote(c, 0)
	}
	if c.mig.state != migNone {
		t.Fatal("a window on the connection's own shard moved it")
	}
	for i := 0; i < migWindow; i++ {
		s.vote(c, 1)
	}
	if c.mig.state != migWant {
		t.Fatal("a whole window to shard 1 after the cooldown did not move the connection")
	}
}

// migPipeline is n SET/GET pairs on keys of tag, and the replies they
// must get, in order.
func migPipeline(tag string, from, n int) (req, want string) {
	var r, w strings.Builder
	for i := from; i < from+n; i++ {
		k, v := fmt.Sprintf("%s:%d", tag, i), fmt.Sprint(i)
		fmt.Fprintf(&r, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(k), k, len(v), v, len(k), k)
		fmt.Fprintf(&w, "+OK\r\n$%d\r\n%s\r\n", len(v), v)
	}
	return r.String(), w.String()
}

// TestMigrateSim: a client of shard 0 working on keys of shard 1 is
// handed over to shard 1 in the middle of its pipeline, with every reply
// in order, whatever the seed chooses; after the move its commands hop
// no more.
func TestMigrateSim(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		m := newSim(t, 2, seed)
		c := m.dial(0)
		req, want := migPipeline("{a}", 0, 300)
		m.write(c, req)
		m.settle()
		if got := m.take(c); got != want {
			t.Fatalf("seed %d: replies differ from the pipeline's\n got %q\nwant %q", seed, got, want)
		}
		if c.shard != 1 {
			t.Fatalf("seed %d: the client is on shard %d, want 1", seed, c.shard)
		}
		if n := m.g.shards[0].stats.migrated; n != 1 {
			t.Fatalf("seed %d: %d migrations, want 1", seed, n)
		}
		hops := m.g.shards[0].stats.hops + m.g.shards[1].stats.hops
		req, want = migPipeline("{a}", 300, 50)
		if got := m.do(c, req); got != want {
			t.Fatalf("seed %d: after the move: %q, want %q", seed, got, want)
		}
		if h := m.g.shards[0].stats.hops + m.g.shards[1].stats.hops; h != hops {
			t.Fatalf("seed %d: %d hops after the move", seed, h-hops)
		}
		if got := m.do(c, "*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n"); !strings.Contains(got, "\r\nmigrated_connections:1\r\n") {
			t.Fatalf("seed %d: INFO stats does not count the move:\n%s", seed, got)
		}
		m.noneLeft()
	}
}

// TestMigrateWaitsForState: a connection whose state lives on its shard
// (tracking, a watched key, MULTI, subscriptions) does not move while it
// has it, and moves once it dropped it and the cooldown passed; the
// replies stay in order throughout. migrate-connections no stops moves.
func TestMigrateWaitsForState(t *testing.T) {
	for _, st := range []struct{ name, on, off, onReply, offReply string }{
		{"tracking", "*3\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\non\r\n", "*3\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$3\r\noff\r\n", "+OK\r\n", "+OK\r\n"},
		{"watch", "*2\r\n$5\r\nWATCH\r\n$5\r\n{a}:w\r\n", "*1\r\n$7\r\nUNWATCH\r\n", "+OK\r\n", "+OK\r\n"},
		{"multi", "*1\r\n$5\r\nMULTI\r\n", "*1\r\n$4\r\nEXEC\r\n", "+OK\r\n", ""},
		{"resp3 subscribed", "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n", "*2\r\n$11\r\nUNSUBSCRIBE\r\n$2\r\nch\r\n", "", ""},
		{"config no", "*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$19\r\nmigrate-connections\r\n$2\r\nno\r\n", "*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$19\r\nmigrate-connections\r\n$3\r\nyes\r\n", "+OK\r\n", "+OK\r\n"},
	} {
		t.Run(st.name, func(t *testing.T) {
			m := newSim(t, 2, 7)
			c := m.dial(0)
			got := m.do(c, st.on)
			if st.onReply != "" && got != st.onReply {
				t.Fatalf("%q: %q", st.on, got)
			}
			req, want := migPipeline("{a}", 0, 200)
			if st.name == "multi" {
				want = strings.Repeat("+QUEUED\r\n", 400)
			}
			if got := m.do(c, req); got != want {
				t.Fatalf("replies differ\n got %q\nwant %q", got, want)
			}
			if c.shard != 0 {
				t.Fatalf("the client moved to shard %d in its state", c.shard)
			}
			got = m.do(c, st.off)
			if st.offReply != "" && got != st.offReply {
				t.Fatalf("%q: %q", st.off, got)
			}
			m.tick(2 * migCooldown * time.Millisecond)
			req, want = migPipeline("{a}", 200, 200)
			if got := m.do(c, req); got != want {
				t.Fatalf("replies after the state differ\n got %q\nwant %q", got, want)
			}
			if c.shard != 1 {
				t.Fatal("the client did not move once its state was gone")
			}
			m.noneLeft()
		})
	}
}

// TestMigrateRedirectTarget: a RESP3 client that another client's
// tracking redirects to gets every invalidation while it moves to another
// shard, whether it reaches the shard it left (forwarded to the one it
// moves to) or the one it moves to before it arrived (held until then).
func TestMigrateRedirectTarget(t *testing.T) {
	const keys = 120
	var get, set strings.Builder
	for i := range keys {
		k := fmt.Sprintf("k:%d", i)
		fmt.Fprintf(&get, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(k), k)
		fmt.Fprintf(&set, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", len(k), k)
	}
	moved := 0
	for seed := uint64(1); seed <= 40; seed++ {
		m := newSim(t, 3, seed)
		r, tr, w := m.dial(0), m.dial(2), m.dial(2)
		m.do(r, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n")
		id := strings.TrimSuffix(strings.TrimPrefix(m.do(r, "*2\r\n$6\r\nCLIENT\r\n$2\r\nID\r\n"), ":"), "\r\n")
		if got := m.do(tr, fmt.Sprintf("*5\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\non\r\n$8\r\nREDIRECT\r\n$%d\r\n%s\r\n", len(id), id)); got != "+OK\r\n" {
			t.Fatalf("seed %d: CLIENT TRACKING: %q", seed, got)
		}
		m.do(tr, get.String())
		req, _ := migPipeline("{a}", 0, 300)
		m.write(r, req)
		m.write(w, set.String())
		m.settle()
		if got := strings.Count(m.take(r), ">2\r\n$10\r\ninvalidate\r\n"); got != keys {
			t.Fatalf("seed %d: the redirect client got %d invalidations, want %d", seed, got, keys)
		}
		if r.shard != 0 {
			moved++
		}
		m.noneLeft()
	}
	if moved == 0 {
		t.Fatal("the redirect client never moved")
	}
}

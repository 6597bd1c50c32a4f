package shard

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestSlowArgs: an entry keeps at most 32 arguments, the last saying how
// many more there were, and at most 128 bytes of each, as Redis.
func TestSlowArgs(t *testing.T) {
	var args [][]byte
	for i := range 40 {
		args = append(args, []byte(strconv.Itoa(i)))
	}
	args[1] = []byte(strings.Repeat("x", 200))
	got := slowArgs(args)
	if len(got) != 32 || string(got[31]) != "... (9 more arguments)" || string(got[30]) != "30" {
		t.Fatalf("got %d args, last %q", len(got), got[len(got)-1])
	}
	if want := strings.Repeat("x", 128) + "... (72 more bytes)"; string(got[1]) != want {
		t.Fatalf("long argument kept as %q", got[1])
	}
	if got := slowArgs(args[:32]); len(got) != 32 || string(got[31]) != "31" {
		t.Fatalf("32 arguments kept as %q", got)
	}
}

// TestSlowlogSim: with slowlog-log-slower-than 0 every command is logged,
// a hop's entry on its client's shard with the client's name, a command
// over two shards once, whole, and slowlog-max-len bounds the merge.
func TestSlowlogSim(t *testing.T) {
	m := newSim(t, 2, 1)
	if err := m.g.conf.Set([][2]string{{"slowlog-log-slower-than", "0"}}); err != nil {
		t.Fatal(err)
	}
	c := m.dial(0)
	remote, local := keysOn(1, 2, 1)[0], keysOn(0, 2, 1)[0]
	for _, cmd := range [][]string{{"CLIENT", "SETNAME", "me"}, {"GET", remote}, {"MSET", local, "1", remote, "2"}} {
		m.write(c, string(encode(cmd)))
		m.settle()
	}
	es := m.g.SlowlogGet(-1)
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%d %q %s", e.ID, e.Args, e.Name))
	}
	want := []string{
		fmt.Sprintf(`2 ["MSET" %q "1" %q "2"] me`, local, remote),
		fmt.Sprintf(`1 ["GET" %q] me`, remote),
		`0 ["CLIENT" "SETNAME" "me"] me`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("slow log:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(m.g.shards[1].slow.entries); n != 0 {
		t.Fatalf("the owner of the hop kept %d entries", n)
	}
	if err := m.g.conf.Set([][2]string{{"slowlog-max-len", "2"}}); err != nil {
		t.Fatal(err)
	}
	if n := m.g.SlowlogLen(); n != 2 {
		t.Fatalf("SlowlogLen with slowlog-max-len 2 = %d", n)
	}
	m.g.SlowlogReset()
	if n := m.g.SlowlogLen(); n != 0 {
		t.Fatalf("SlowlogLen after reset = %d", n)
	}
}

// BenchmarkPipelinedGet is a pipeline of 64 GETs on one shard, with
// the slow log off (no command timed but one in latencyEvery) and on
// (every command timed: one clock read each): the difference is what
// timing every command costs.
func BenchmarkPipelinedGet(b *testing.B) {
	for _, slower := range []string{"-1", "10000"} {
		b.Run("slowlog-log-slower-than="+slower, func(b *testing.B) {
			m := newSim(b, 1, 1)
			if err := m.g.conf.Set([][2]string{{"slowlog-log-slower-than", slower}}); err != nil {
				b.Fatal(err)
			}
			c := m.dial(0)
			s, d := m.g.shards[0], m.drv[0]
			s.Turn(m.now)
			var w resp.Writer
			for range 64 {
				w.Array(2)
				w.BulkString("GET")
				w.BulkString("k")
			}
			req := w.B
			b.ReportAllocs()
			for b.Loop() {
				d.in[c.id] = req
				s.OnData(c.id)
				out := d.Output(c.id)
				*out = (*out)[:0]
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/cmd")
		})
	}
}

// TestEventTime: a connection's bytes read the group's clock for the
// first connection after a turn, then again only once the command clock
// moved a millisecond past that reading; with the command clock off
// (no slow log, no latency monitor), every connection reads it.
func TestEventTime(t *testing.T) {
	m := newSim(t, 1, 1)
	s := m.g.shards[0]
	set(t, m.g, "slowlog-log-slower-than", "10000")
	s.Turn(m.now)
	if !s.clock.on || s.clock.mark != 0 {
		t.Fatalf("after a turn: clock on %v, mark %d", s.clock.on, s.clock.mark)
	}
	m.advance(time.Second)
	s.eventTime()
	read := m.now.UnixMilli()
	if s.now != read || s.clock.mark == 0 {
		t.Fatalf("first connection of a Poll: now %d, want %d (mark %d)", s.now, read, s.clock.mark)
	}
	m.advance(5 * time.Millisecond)
	s.clock.mark += s.clock.stale - 1 // a command ended just under a millisecond later
	if s.eventTime(); s.now != read {
		t.Fatalf("under a millisecond on the command clock: now %d, want %d", s.now, read)
	}
	s.clock.mark++
	if s.eventTime(); s.now != m.now.UnixMilli() {
		t.Fatalf("a millisecond on the command clock: now %d, want %d", s.now, m.now.UnixMilli())
	}
	set(t, m.g, "slowlog-log-slower-than", "-1")
	if s.clock.on || s.clock.mark != 0 {
		t.Fatalf("slow log off: clock on %v, mark %d", s.clock.on, s.clock.mark)
	}
	for range 3 {
		m.advance(time.Millisecond)
		if s.eventTime(); s.now != m.now.UnixMilli() {
			t.Fatalf("command clock off: now %d, want %d", s.now, m.now.UnixMilli())
		}
	}
}

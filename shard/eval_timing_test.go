//go:build unix

package shard

import (
	"testing"

	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/script"
)

// BenchmarkEvalSHA is a pipeline of 32 EVALSHAs of a script doing one GET
// and one SET on its declared key, on one shard, through the loop's own
// steps (benchmarks/eval.sh's one-key test at -P 32, in-process): what a
// direct run costs, per call: wall clock (ns/call) and the process's CPU
// time (cpu-ns/call, which on a shared machine leaves out the time other
// processes held the core).
func BenchmarkEvalSHA(b *testing.B) {
	m := newSim(b, 1, 1)
	c := m.dial(0)
	s, d := m.g.shards[0], m.drv[0]
	s.Turn(m.now)
	const body = "local v = redis.call('get', KEYS[1]); redis.call('set', KEYS[1], ARGV[1]); return v"
	sha := script.SHA([]byte(body))
	var w resp.Writer
	w.Array(3)
	w.BulkString("SCRIPT")
	w.BulkString("LOAD")
	w.BulkString(body)
	d.in[c.id] = w.B
	s.OnData(c.id)
	out := d.Output(c.id)
	*out = (*out)[:0]
	w.B = nil
	for range 32 {
		w.Array(5)
		w.BulkString("EVALSHA")
		w.BulkString(sha)
		w.BulkString("1")
		w.BulkString("key:000000000001")
		w.BulkString("xxx")
	}
	req := w.B
	d.in[c.id] = req
	s.OnData(c.id)
	if want := "$-1\r\n$3\r\nxxx\r\n"; len(*out) < len(want) || string((*out)[:len(want)]) != want {
		b.Fatalf("replies %q", *out)
	}
	*out = (*out)[:0]
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		d.in[c.id] = req
		s.OnData(c.id)
		out := d.Output(c.id)
		*out = (*out)[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/call")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*32), "cpu-ns/call")
}

// TestEvalHereAllocs: an EVALSHA on the connection's shard, its keys
// declared, allocates nothing but the tables of the replies it keeps
// once the shard's buffers have grown: the job, host, reply and undo
// record are reused, KEYS and ARGV refilled, redis.call's arguments and
// reply buffer reused, equal reply strings and small integers not made
// again, and a statement's reply not made at all. A status reply's table
// ({ok="OK"}) costs gopher-lua 6 allocations.
func TestEvalHereAllocs(t *testing.T) {
	for _, c := range []struct {
		body   string
		reply  string
		allocs float64
	}{
		{"local v = redis.call('get', KEYS[1]); redis.call('exists', KEYS[2]); return v", "$1\r\nv\r\n", 0},
		{"local v = redis.call('get', KEYS[1]); redis.call('set', KEYS[1], ARGV[1]); return v", "$1\r\nv\r\n", 0},
		{"local ok = redis.call('set', KEYS[1], ARGV[1]); return ok", "+OK\r\n", 6},
	} {
		m := newSim(t, 1, 1)
		c0 := m.dial(0)
		s, d := m.g.shards[0], m.drv[0]
		sha := script.SHA([]byte(c.body))
		var w resp.Writer
		for _, cmd := range [][]string{{"SET", "{k}1", "v"}, {"SET", "{k}2", "1"}, {"SCRIPT", "LOAD", c.body}} {
			w.Array(len(cmd))
			for _, a := range cmd {
				w.BulkString(a)
			}
		}
		d.in[c0.id] = w.B
		s.OnData(c0.id)
		out := d.Output(c0.id)
		*out = (*out)[:0]
		w.B = nil
		for _, a := range []string{"EVALSHA", sha, "2", "{k}1", "{k}2", "v"} {
			if a == "EVALSHA" {
				w.Array(6)
			}
			w.BulkString(a)
		}
		req := w.B
		run := func() {
			d.in[c0.id] = req
			s.OnData(c0.id)
			if string(*out) != c.reply {
				t.Fatalf("%s: replies %q, want %q", c.body, *out, c.reply)
			}
			*out = (*out)[:0]
		}
		run()
		if n := testing.AllocsPerRun(1000, run); n > c.allocs {
			t.Errorf("%s: allocates %v times, want %v", c.body, n, c.allocs)
		}
	}
}

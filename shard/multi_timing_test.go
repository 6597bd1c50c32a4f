package shard

import (
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// BenchmarkPipelinedMulti is a pipeline of 16 transactions of two INCRs
// on one key (MULTI, INCR, INCR, EXEC) on one shard, through the loop's
// own steps: what a one-shard EXEC costs, per transaction, next to
// BenchmarkPipelinedGet's cost per command.
func BenchmarkPipelinedMulti(b *testing.B) {
	m := newSim(b, 1, 1)
	c := m.dial(0)
	s, d := m.g.shards[0], m.drv[0]
	s.Turn(m.now)
	var w resp.Writer
	for range 16 {
		w.Array(1)
		w.BulkString("MULTI")
		for range 2 {
			w.Array(2)
			w.BulkString("INCR")
			w.BulkString("k")
		}
		w.Array(1)
		w.BulkString("EXEC")
	}
	req := w.B
	b.ReportAllocs()
	for b.Loop() {
		d.in[c.id] = req
		s.OnData(c.id)
		out := d.Output(c.id)
		*out = (*out)[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*16), "ns/txn")
}

// TestExecHereAllocs: a MULTI/EXEC whose keys live on the connection's
// shard allocates nothing once the shard's buffers have grown (its txn
// and its reply buffer are reused), and replies as it should.
func TestExecHereAllocs(t *testing.T) {
	m := newSim(t, 1, 1)
	c := m.dial(0)
	s, d := m.g.shards[0], m.drv[0]
	var w resp.Writer
	for _, cmd := range [][]string{{"MULTI"}, {"SET", "k", "1"}, {"INCR", "k"}, {"GET", "nokey"}, {"EXEC"}} {
		w.Array(len(cmd))
		for _, a := range cmd {
			w.BulkString(a)
		}
	}
	req := w.B
	want := "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n+OK\r\n:2\r\n$-1\r\n"
	run := func() {
		d.in[c.id] = req
		s.OnData(c.id)
		out := d.Output(c.id)
		if string(*out) != want {
			t.Fatalf("replies %q, want %q", *out, want)
		}
		*out = (*out)[:0]
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Errorf("a one-shard MULTI/EXEC allocates %v times", n)
	}
}

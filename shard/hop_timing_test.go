package shard

import (
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// BenchmarkHop is one GET whose key lives on the other shard, through the
// loop's own steps: OnData, the hop flushed to the owner, the owner's turn
// and flush, and home's turn writing the reply. -benchmem shows what a hop
// allocates (nothing: TestHopPathAllocs). The connection would move to
// the owner (migrate.go) and hop no more: migrate-connections is no.
// cpu-ns/op is the process's CPU time per hop.
func BenchmarkHop(b *testing.B) {
	m := newSim(b, 2, 1)
	if err := m.g.conf.Set([][2]string{{"migrate-connections", "no"}}); err != nil {
		b.Fatal(err)
	}
	c := m.dial(0)
	home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
	var w resp.Writer
	w.Array(2)
	w.BulkString("GET")
	w.BulkString(keysOn(1, 2, 1)[0])
	req := w.B
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		d.in[c.id] = req
		home.OnData(c.id)
		home.flushOutbox()
		owner.Turn(m.now)
		owner.flushOutbox()
		home.Turn(m.now)
		out := d.Output(c.id)
		if len(*out) != len("$-1\r\n") {
			b.Fatalf("reply %q", *out)
		}
		*out = (*out)[:0]
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkHopPipeline is a pipeline of 32 GETs whose keys (32 of them,
// distinct, missing) live on the other shard, one connection, through the
// same steps as BenchmarkHop: the per-request cost of a hop at -P 32, the
// requests and replies each crossing in one batch. ns/req and cpu-ns/req
// (the process's CPU time, which a loaded machine does not inflate as it
// does the wall clock) are per request.
func BenchmarkHopPipeline(b *testing.B) {
	const depth = 32
	m := newSim(b, 2, 1)
	if err := m.g.conf.Set([][2]string{{"migrate-connections", "no"}}); err != nil {
		b.Fatal(err)
	}
	c := m.dial(0)
	home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
	var w resp.Writer
	for _, k := range keysOn(1, 2, depth) {
		w.Array(2)
		w.BulkString("GET")
		w.BulkString(k)
	}
	req := w.B
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		d.in[c.id] = req
		home.OnData(c.id)
		home.flushOutbox()
		owner.Turn(m.now)
		owner.flushOutbox()
		home.Turn(m.now)
		out := d.Output(c.id)
		if len(*out) != depth*len("$-1\r\n") {
			b.Fatalf("replies %q", *out)
		}
		*out = (*out)[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*depth), "ns/req")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*depth), "cpu-ns/req")
}

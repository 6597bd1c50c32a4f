package shard

import (
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// BenchmarkHop is one GET whose key lives on the other shard, through the
// loop's own steps: OnData, the hop flushed to the owner, the owner's turn
// and flush, home's turn writing the reply, and the turn that follows its
// send's completion (a lone hop's three turns on home, one on the owner,
// as the real loop runs them: each Poll is followed by a turn). -benchmem shows what a hop
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
		home.Turn(m.now)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkHopPipeline is a pipeline of 32 GETs on distinct missing keys,
// one connection, through the same steps as BenchmarkHop: local, every key
// on the connection's shard; hop, every key on the other one, the requests
// and replies each crossing in one batch. hop's cpu-ns/req less local's is
// what a hop adds to a request at -P 32. ns/req and cpu-ns/req (the
// process's CPU time, which a loaded machine does not inflate as it does
// the wall clock) are per request.
func BenchmarkHopPipeline(b *testing.B) {
	for _, bc := range []struct {
		name  string
		shard int
	}{{"local", 0}, {"hop", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			const depth = 32
			m := newSim(b, 2, 1)
			if err := m.g.conf.Set([][2]string{{"migrate-connections", "no"}}); err != nil {
				b.Fatal(err)
			}
			c := m.dial(0)
			home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
			var w resp.Writer
			for _, k := range keysOn(bc.shard, 2, depth) {
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
		})
	}
}

// BenchmarkHopConns is BenchmarkHopPipeline at the scale of hop.sh's
// load: 50 connections on shard 0, each sending 32 GETs a turn on random
// keys among 100000 of shard 1 (hop) or of shard 0 (local), every key
// holding a 3-byte value: 1600 hops in flight a turn, their payloads and
// the keys as cold as a server's. cpu-ns/req is per request.
func BenchmarkHopConns(b *testing.B) {
	const conns, depth, keys, reqs = 50, 32, 100000, 512
	for _, bc := range []struct {
		name  string
		shard int
	}{{"local", 0}, {"hop", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			m := newSim(b, 2, 1)
			if err := m.g.conf.Set([][2]string{{"migrate-connections", "no"}}); err != nil {
				b.Fatal(err)
			}
			home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
			names := keysOn(bc.shard, 2, keys)
			for _, k := range names {
				m.g.shards[bc.shard].store.DB(0).SetString([]byte(k), []byte("val"), 0, false)
			}
			batches := make([][]byte, reqs)
			for i := range batches {
				var w resp.Writer
				for range depth {
					w.Array(2)
					w.BulkString("GET")
					w.BulkString(names[m.r.IntN(keys)])
				}
				batches[i] = w.B
			}
			cs := make([]*simConn, conns)
			for i := range cs {
				cs[i] = m.dial(0)
			}
			n := 0
			round := func() {
				for _, c := range cs {
					d.in[c.id] = batches[n%reqs]
					n++
					home.OnData(c.id)
				}
				home.flushOutbox()
				owner.Turn(m.now)
				owner.flushOutbox()
				home.Turn(m.now)
				for _, c := range cs {
					out := d.Output(c.id)
					if len(*out) != depth*len("$3\r\nval\r\n") {
						b.Fatalf("replies %q", *out)
					}
					*out = (*out)[:0]
				}
			}
			round() // the hop pools grow to what is in flight
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				round()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*conns*depth), "cpu-ns/req")
		})
	}
}

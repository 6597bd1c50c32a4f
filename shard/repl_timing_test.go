package shard

import (
	"fmt"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// BenchmarkPipelinedSetFeed is BenchmarkPipelinedSetAOF's pipeline of 32
// SETs on one shard, one loop turn each, without a stream and with the
// shard feeding one (as once a replica asked): the turn's effects copied
// into a chunk, merged, appended to the backlog. What feeding costs a
// SET, with no replica to send to; a turn allocates nothing.
func BenchmarkPipelinedSetFeed(b *testing.B) {
	for _, feed := range []bool{false, true} {
		b.Run(fmt.Sprintf("feed=%v", feed), func(b *testing.B) {
			m := newSim(b, 1, 1)
			s, d := m.g.shards[0], m.drv[0]
			if feed {
				p := &m.g.prim
				p.mu.Lock()
				m.g.startPrimary()
				p.mu.Unlock()
				s.cutHere(p.cutSeq.Add(1), false)
			}
			c := m.dial(0)
			s.Turn(m.now)
			var w resp.Writer
			for i := range 32 {
				w.Array(3)
				w.BulkString("SET")
				w.BulkString(fmt.Sprintf("key:%012d", i))
				w.BulkString("xxx")
			}
			req := w.B
			b.ReportAllocs()
			for b.Loop() {
				d.in[c.id] = req
				s.OnData(c.id)
				s.Turn(m.now)
				out := d.Output(c.id)
				*out = (*out)[:0]
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/cmd")
		})
	}
}

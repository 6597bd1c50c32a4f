package shard

import (
	"fmt"
	"testing"
)

// BenchmarkPublish is a pipeline of 32 PUBLISHes to one channel with 1, 10
// and 100 subscribers on the publisher's shard, and with 10 split over two
// shards (the batch to the other shard and its answer included), through
// the loop's own steps: what a publish costs, its delivery to every
// subscriber included, per publish.
func BenchmarkPublish(b *testing.B) {
	for _, bc := range []struct{ shards, subs int }{{1, 1}, {1, 10}, {1, 100}, {2, 10}} {
		b.Run(fmt.Sprintf("shards=%d/subs=%d", bc.shards, bc.subs), func(b *testing.B) {
			m := newSim(b, bc.shards, 1)
			subs := make([]*simConn, bc.subs)
			for i := range subs {
				c := m.dial(i % bc.shards)
				m.drv[c.shard].in[c.id] = encode([]string{"SUBSCRIBE", "ch"})
				m.g.shards[c.shard].OnData(c.id)
				subs[i] = c
			}
			pub := m.dial(0)
			var cmds [][]string
			for range 32 {
				cmds = append(cmds, []string{"PUBLISH", "ch", "hello"})
			}
			req := encode(cmds...)
			home := m.g.shards[0]
			d := m.drv[0]
			b.ReportAllocs()
			for b.Loop() {
				d.in[pub.id] = req
				home.OnData(pub.id)
				if bc.shards > 1 {
					home.flushOutbox()
					m.g.shards[1].Turn(m.now)
					m.g.shards[1].flushOutbox()
					home.Turn(m.now)
				}
				out := d.Output(pub.id)
				if len(*out) == 0 {
					b.Fatal("no replies")
				}
				*out = (*out)[:0]
				for _, c := range subs {
					o := m.drv[c.shard].Output(c.id)
					*o = (*o)[:0]
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/publish")
		})
	}
}

package shard

import (
	"fmt"
	"testing"
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
			if feed {
				p := &m.g.prim
				p.mu.Lock()
				m.g.startPrimary()
				p.mu.Unlock()
				m.g.shards[0].cutHere(p.cutSeq.Add(1), false)
			}
			pipelinedSets(b, m)
		})
	}
}

package repl

import (
	"fmt"
	"testing"
)

// BenchmarkMergeTurns is the primary's stream at SET -P 32 with two
// shards: each takes turns handing over a chunk of 32 SETs, which the
// Merger writes out at once, then the stream is split for a replica on
// flows (Split) and emptied, as flushStream does. The chunks are reused
// (Free), as the shards reuse them: a turn allocates nothing.
func BenchmarkMergeTurns(b *testing.B) {
	const shards, per = 2, 32
	free := make([][]*Chunk, shards)
	m := NewMerger(shards, 0)
	m.Free = func(c *Chunk) { free[c.Shard] = append(free[c.Shard], c) }
	for s := range shards {
		m.Add(&Chunk{Shard: s, Items: []Item{{Kind: ItemCut, Cut: 1}}})
	}
	var cmds [shards][]string
	for s := range shards {
		for i := range per {
			cmds[s] = append(cmds[s], string(appendCommand(nil, "SET", fmt.Sprintf("key:%012d", i*shards+s), "xxx")))
		}
	}
	flows, main := make([][]byte, shards), []byte(nil)
	var spans []Span
	b.ReportAllocs()
	turn := 0
	for b.Loop() {
		s := turn % shards
		turn++
		var c *Chunk
		if n := len(free[s]); n > 0 {
			c, free[s] = free[s][n-1], free[s][:n-1]
		} else {
			c = &Chunk{Shard: s}
		}
		c.Buf, c.Items = c.Buf[:0], c.Items[:0]
		for _, cmd := range cmds[s] {
			off := len(c.Buf)
			c.Buf = append(c.Buf, cmd...)
			c.Items = append(c.Items, Item{Kind: ItemCmd, Off: off, End: len(c.Buf)})
		}
		m.Add(c)
		for i := range flows {
			flows[i] = flows[i][:0]
		}
		spans = append(spans[:0], m.Spans...)
		main = Split(main[:0], flows, m.Out, m.Offset, spans)
		m.Out, m.Spans = m.Out[:0], m.Spans[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/cmd")
}

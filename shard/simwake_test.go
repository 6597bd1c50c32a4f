package shard

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// TestSimBlockedWakes: XREAD BLOCK 0 over streams of several shards (and
// XREADGROUP, BLPOP and BZPOPMIN over keys of several shards), the client
// on any shard, writes to its keys from clients on any shard, sent after a
// seed-chosen number of steps: the blocked client is always answered with
// what was written, whether the writes run before its first attempt,
// during it, between it and the parks, or after them. Where every key
// exists (streams) or two get data while a third client takes one's
// (lists, sorted sets), two holders claim the client at once: the one
// refused keeps its waiter, and looks again when the other could not
// serve (the refused one used to forget its waiter, and the client
// waited for good).
func TestSimBlockedWakes(t *testing.T) {
	type form struct {
		setup []string
		block string
		write string // %s: the key
		steal string // a third client's, on the first key written
	}
	forms := []form{
		{block: "XREAD BLOCK 0 STREAMS q1 {t}q2 q3 0-1 0-1 0-1", write: "XADD %s 1-0 a 1"},
		{setup: []string{"XADD q1 1-0 a 1", "XADD {t}q2 1-0 a 1", "XADD q3 1-0 a 1"},
			block: "XREAD BLOCK 0 STREAMS q1 {t}q2 q3 1-0 1-0 1-0", write: "XADD %s 2-0 a 1"},
		{setup: []string{"XGROUP CREATE q1 g $ MKSTREAM", "XGROUP CREATE {t}q2 g $ MKSTREAM", "XGROUP CREATE q3 g $ MKSTREAM"},
			block: "XREADGROUP GROUP g c BLOCK 0 STREAMS q1 {t}q2 q3 > > >", write: "XADD %s 1-0 a 1"},
		{block: "BLPOP q1 {t}q2 q3 0", write: "RPUSH %s x", steal: "LPOP %s"},
		{block: "BZPOPMIN q1 {t}q2 q3 0", write: "ZADD %s 1 x", steal: "ZPOPMIN %s"},
	}
	keys := []string{"q1", "{t}q2", "q3"} // shards 2, 2 and 0 of three
	for fi, f := range forms {
		for seed := uint64(1); seed <= uint64(*simSeeds)*4; seed++ {
			t.Run(fmt.Sprintf("%d-%s/seed=%d", fi, strings.Fields(f.block)[0], seed), func(t *testing.T) {
				m := newSim(t, 3, seed*10+uint64(fi))
				m.trace = []string{}
				r, w, w2 := m.dial(m.r.IntN(3)), m.dial(m.r.IntN(3)), m.dial(m.r.IntN(3))
				for _, cmd := range f.setup {
					m.do(w, cmd+"\r\n")
				}
				m.take(w)
				written := []string{keys[m.r.IntN(3)]}
				if f.steal != "" {
					// Two keys written, one of them stolen from: the other
					// must serve the client.
					written = append(written, keys[(slices.Index(keys, written[0])+1+m.r.IntN(2))%3])
				}
				m.write(r, f.block+"\r\n")
				for range m.r.IntN(60) {
					if !m.busy() {
						break
					}
					m.step()
				}
				m.write(w, fmt.Sprintf(f.write, written[0])+"\r\n")
				if f.steal != "" {
					m.write(w2, fmt.Sprintf(f.write, written[1])+"\r\n")
					m.write(w2, fmt.Sprintf(f.steal, written[0])+"\r\n")
				}
				for range 5 {
					m.settle()
					if len(r.got) > 0 {
						break
					}
					m.fire()
				}
				if len(r.got) == 0 {
					t.Fatalf("%s was not woken by writes to %v\n%s", f.block, written, strings.Join(m.trace, "\n"))
				}
				got := m.replies(r, 1)[0]
				v, _, err := resp.ReadReply(got)
				if err != nil || len(v.Elems) == 0 {
					t.Fatalf("reply %q %v", got, err)
				}
				name := v.Elems[0]
				if len(name.Elems) > 0 {
					name = name.Elems[0] // XREAD: [[key, entries]]
				}
				if !slices.Contains(written, string(name.Str)) {
					t.Fatalf("woken by writes to %v: %q", written, got)
				}
				m.settle()
				m.noneLeft()
			})
		}
	}
}

package shard

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// crossBench drives a 2-shard group through the loop's own steps (OnData,
// then each shard's Turn and flushOutbox, round robin) until the client on
// shard 0 has all replies to req (replies of them), and reports the turns
// a request took.
func crossBench(b *testing.B, setup []string, req string, replies int) {
	m := newSim(b, 2, 1)
	c := m.dial(0)
	for _, r := range setup {
		if got := m.do(c, r); strings.HasPrefix(got, "-") {
			b.Fatalf("%q: %q", r, got)
		}
	}
	home, d := m.g.shards[0], m.drv[0]
	in := []byte(req)
	turns, ops := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		ops++
		d.in[c.id] = in
		home.OnData(c.id)
		home.flushOutbox()
		out := d.Output(c.id)
		for got, left := 0, replies; ; {
			for {
				_, used, err := resp.ReadReply((*out)[got:])
				if err != nil {
					b.Fatalf("bad reply %q: %v", *out, err)
				}
				if used == 0 {
					break
				}
				if (*out)[got] == '-' {
					b.Fatalf("error reply %q", (*out)[got:got+used])
				}
				got += used
				left--
			}
			if left == 0 {
				break
			}
			if turns++; turns > 1000*ops {
				b.Fatalf("no reply after %d turns: %q", turns, *out)
			}
			for _, s := range m.g.shards {
				s.Turn(m.now)
				s.flushOutbox()
			}
		}
		*out = (*out)[:0]
	}
	b.ReportMetric(float64(turns)/float64(ops), "rounds/op")
}

// BenchmarkCrossExec is a MULTI/EXEC of a SET on each of 2 shards.
func BenchmarkCrossExec(b *testing.B) {
	k0, k1 := keysOn(0, 2, 1)[0], keysOn(1, 2, 1)[0]
	req := cmd("MULTI") + cmd("SET", k0, "v") + cmd("SET", k1, "v") + cmd("EXEC")
	crossBench(b, nil, req, 4)
}

// BenchmarkCrossEval is an EVALSHA of a script over two declared keys on
// 2 shards.
func BenchmarkCrossEval(b *testing.B) {
	k0, k1 := keysOn(0, 2, 1)[0], keysOn(1, 2, 1)[0]
	body := "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[2])"
	sum := sha1.Sum([]byte(body))
	sha := hex.EncodeToString(sum[:])
	req := cmd("EVALSHA", sha, "2", k0, k1, "v")
	crossBench(b, []string{cmd("SCRIPT", "LOAD", body)}, req, 1)
}

// BenchmarkCrossMSet is an MSET of 10 keys, 5 on each of 2 shards.
func BenchmarkCrossMSet(b *testing.B) {
	args := []string{"MSET"}
	for i := range 2 {
		for _, k := range keysOn(i, 2, 5) {
			args = append(args, k, "v")
		}
	}
	crossBench(b, nil, cmd(args...), 1)
}

// cmd is one command in RESP.
func cmd(args ...string) string { return string(encode(args)) }

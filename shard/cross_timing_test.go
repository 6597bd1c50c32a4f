package shard

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// crossBench drives a 2-shard group through the loop's own steps until
// each of conns clients (on shard 0, or alternately on shards 0 and 1)
// has its replies to req (replies of them), and reports the time and the
// rounds (a Turn of each shard) per request.
func crossBench(b *testing.B, setup []string, req string, replies, conns int) {
	r := newRounds(b, setup, conns)
	rounds, ops := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		ops++
		rounds += r.run(req, replies)
	}
	b.ReportMetric(float64(rounds)/float64(ops), "rounds/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops*conns), "ns/req")
}

// roundsRig has clients on a 2-shard group send a request all at once
// and counts the rounds until every one has its replies: each client's
// OnData, then each shard's Turn and flushOutbox, round robin, every
// message delivered at once.
type roundsRig struct {
	tb        testing.TB
	m         *sim
	cs        []*simConn
	got, left []int
	in        []byte   // the last request, as bytes
	outs      []string // with keep, each client's replies to the last run
	keep      bool
}

// newRounds dials conns clients, on shard 0 alone or alternately on
// shards 0 and 1, and sends setup on the first.
func newRounds(tb testing.TB, setup []string, conns int) *roundsRig {
	m := newSim(tb, 2, 1)
	r := &roundsRig{tb: tb, m: m, cs: make([]*simConn, conns), got: make([]int, conns), left: make([]int, conns)}
	for i := range r.cs {
		r.cs[i] = m.dial(i % 2 * min(conns-1, 1))
	}
	for _, q := range setup {
		if got := m.do(r.cs[0], q); strings.HasPrefix(got, "-") {
			tb.Fatalf("%q: %q", q, got)
		}
	}
	return r
}

// run sends req on every client and returns the rounds it took until
// each had replies replies, none of them an error.
func (r *roundsRig) run(req string, replies int) int {
	m := r.m
	if string(r.in) != req {
		r.in = []byte(req)
	}
	in := r.in
	waiting := len(r.cs)
	if r.keep {
		r.outs = make([]string, len(r.cs))
	}
	for i, c := range r.cs {
		m.drv[c.shard].in[c.id] = in
		m.g.shards[c.shard].OnData(c.id)
		r.got[i], r.left[i] = 0, replies
	}
	for _, s := range m.g.shards {
		s.flushOutbox()
	}
	for rounds := 0; ; rounds++ {
		for i, c := range r.cs {
			out := m.drv[c.shard].Output(c.id)
			for r.left[i] > 0 {
				_, used, err := resp.ReadReply((*out)[r.got[i]:])
				if err != nil {
					r.tb.Fatalf("bad reply %q: %v", *out, err)
				}
				if used == 0 {
					break
				}
				if (*out)[r.got[i]] == '-' {
					r.tb.Fatalf("error reply %q", (*out)[r.got[i]:r.got[i]+used])
				}
				r.got[i] += used
				if r.left[i]--; r.left[i] == 0 {
					waiting--
					if r.keep {
						r.outs[i] = string((*out)[:r.got[i]])
					}
					*out = (*out)[:0]
				}
			}
		}
		if waiting == 0 {
			return rounds
		}
		if rounds > 1000*len(r.cs) {
			r.tb.Fatalf("no reply after %d rounds", rounds)
		}
		for _, s := range m.g.shards {
			s.Turn(m.now)
			s.flushOutbox()
		}
	}
}

// crossKeys are n keys on each of 2 shards, shard 0's first.
func crossKeys(n int) []string { return append(keysOn(0, 2, n), keysOn(1, 2, n)...) }

// BenchmarkCrossExec is a MULTI/EXEC of an INCR on each of 2 shards.
func BenchmarkCrossExec(b *testing.B) {
	k := crossKeys(1)
	req := cmd("MULTI") + cmd("INCR", k[0]) + cmd("INCR", k[1]) + cmd("EXEC")
	crossBench(b, nil, req, 4, 1)
}

// BenchmarkCrossExecContended is BenchmarkCrossExec from 50 clients at
// once, half of them on each shard: every transaction wants both keys.
func BenchmarkCrossExecContended(b *testing.B) {
	k := crossKeys(1)
	req := cmd("MULTI") + cmd("INCR", k[0]) + cmd("INCR", k[1]) + cmd("EXEC")
	crossBench(b, nil, req, 4, 50)
}

// BenchmarkCrossEval is an EVALSHA of a script over two declared keys on
// 2 shards (a GET of one, a SET of the other).
func BenchmarkCrossEval(b *testing.B) {
	k := crossKeys(1)
	body := "local v = redis.call('get', KEYS[1]); redis.call('set', KEYS[2], ARGV[1]); return v"
	sum := sha1.Sum([]byte(body))
	req := cmd("EVALSHA", hex.EncodeToString(sum[:]), "2", k[0], k[1], "v")
	crossBench(b, []string{cmd("SCRIPT", "LOAD", body)}, req, 1, 1)
}

// BenchmarkCrossMSet is an MSET of 10 keys, 5 on each of 2 shards.
func BenchmarkCrossMSet(b *testing.B) {
	args := []string{"MSET"}
	for _, k := range crossKeys(5) {
		args = append(args, k, "v")
	}
	crossBench(b, nil, cmd(args...), 1, 1)
}

// BenchmarkCrossMGetContended is an MGET of 10 keys, 5 on each of 2
// shards, from 50 clients at once: readers share the keys' locks.
func BenchmarkCrossMGetContended(b *testing.B) {
	args := []string{"MGET"}
	args = append(args, crossKeys(5)...)
	crossBench(b, nil, cmd(args...), 1, 50)
}

// cmd is one command in RESP.
func cmd(args ...string) string { return string(encode(args)) }

// TestConcurrentMGetsShare: cross-shard MGETs of the same keys from many
// clients at once take no more rounds than one MGET (they hold the keys'
// locks together), while MSETs of those keys wait for each other.
func TestConcurrentMGetsShare(t *testing.T) {
	keys := crossKeys(2)
	mget := cmd(append([]string{"MGET"}, keys...)...)
	mset := []string{"MSET"}
	for _, k := range keys {
		mset = append(mset, k, "v")
	}
	one := newRounds(t, nil, 1).run(mget, 1)
	if many := newRounds(t, nil, 20).run(mget, 1); many != one {
		t.Errorf("20 MGETs at once took %d rounds, one took %d", many, one)
	}
	if many := newRounds(t, nil, 20).run(cmd(mset...), 1); many <= 2*one {
		t.Errorf("20 MSETs at once took %d rounds, one MGET %d: writers should wait for each other", many, one)
	}
}

// BenchmarkCrossRename is a RENAME of a key on one of 2 shards to a key on
// the other and back: the gather plan, each way a write-back to both.
func BenchmarkCrossRename(b *testing.B) {
	k := crossKeys(1)
	req := cmd("RENAME", k[0], k[1]) + cmd("RENAME", k[1], k[0])
	crossBench(b, []string{cmd("SET", k[0], "v")}, req, 2, 1)
}

// BenchmarkExecAlone is a MULTI/EXEC of an INCR and an EXPIRE of one key
// on the other of 2 shards: the EXEC runs there alone, as one message.
func BenchmarkExecAlone(b *testing.B) {
	k := keysOn(1, 2, 1)[0]
	req := cmd("MULTI") + cmd("INCR", k) + cmd("EXPIRE", k, "100") + cmd("EXEC")
	crossBench(b, nil, req, 4, 1)
}

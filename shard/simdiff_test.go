package shard

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

var (
	simSeed  = flag.Uint64("sim.seed", 0, "run TestSimAgainstOneShard with this seed only")
	simSeeds = flag.Int("sim.seeds", 8, "how many seeds TestSimAgainstOneShard runs")
	simCmds  = flag.Int("sim.cmds", 3000, "commands per seed of TestSimAgainstOneShard")
)

// TestSimAgainstOneShard sends the differential test's random stream
// (internal/workload: every type, wrong types and arities, SELECT, MOVE,
// SWAPDB, FLUSHDB, DBSIZE, blocking pops with short timeouts over keys of
// several shards) to three simulated shards, whose deliveries, reads and
// clock a seed chooses, and to one simulated shard, and requires the same
// replies.
func TestSimAgainstOneShard(t *testing.T) {
	seeds := make([]uint64, 0, *simSeeds)
	if *simSeed != 0 {
		seeds = append(seeds, *simSeed)
	} else {
		for i := range *simSeeds {
			seeds = append(seeds, uint64(i+1))
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { simDiff(t, seed, 3, *simCmds) })
	}
}

// simDiff runs n commands of seed's stream against shards simulated shards
// and one, in pipelines, and fails at the first reply that differs.
func simDiff(t *testing.T, seed uint64, shards, n int) {
	m, one := newSim(t, shards, seed), newSim(t, 1, seed)
	m.jitter = true
	m.trace = []string{}
	a, b := m.dial(m.r.IntN(shards)), one.dial(0)
	gen := workload.New(rand.New(rand.NewPCG(seed, 1)))
	if seed%2 == 0 {
		for _, c := range []struct {
			m *sim
			c *simConn
		}{{m, a}, {one, b}} {
			c.m.write(c.c, "HELLO 3\r\n")
			c.m.replies(c.c, 1)
		}
	}
	var history []string
	for sent := 0; sent < n; {
		batch := gen.Batch(48)
		sent += len(batch)
		req := encodeBatch(batch)
		m.write(a, req)
		one.write(b, req)
		gots, wants := m.replies(a, len(batch)), one.replies(b, len(batch))
		for i, args := range batch {
			history = append(history, strings.Join(args, " "))
			got, want := workload.Canonical(args, gots[i]), workload.Canonical(args, wants[i])
			if !bytes.Equal(got, want) && !ttlNear(args, got, want) {
				t.Fatalf("seed %d, after\n  %s\n%d shards replied %q\n1 shard  replied %q\nlast steps:\n%s", seed,
					strings.Join(history[max(0, len(history)-60):], "\n  "), shards, got, want,
					strings.Join(m.trace[max(0, len(m.trace)-80):], "\n"))
			}
		}
		// One clock for both, so that TTLs agree.
		if m.now.After(one.now) {
			one.now = m.now
		} else {
			m.now = one.now
		}
	}
}

// ttlNear reports whether got and want are TTL replies a second apart: the
// simulations' clocks drift apart within a pipeline (the seed moves one,
// the other moves only to its deadlines), and TTL rounds to the second;
// or replies of a relative EXPIRE or PEXPIRE with GT or LT, which that
// drift may decide either way (seed 266 at -sim.cmds 5000).
func ttlNear(args []string, got, want []byte) bool {
	if relativeGTLT(args) {
		return true
	}
	if !strings.EqualFold(args[0], "TTL") {
		return false
	}
	g, _, err1 := resp.ReadReply(got)
	w, _, err2 := resp.ReadReply(want)
	return err1 == nil && err2 == nil && g.Type == ':' && w.Type == ':' && g.Int > 0 && w.Int > 0 &&
		(g.Int-w.Int == 1 || w.Int-g.Int == 1)
}

// relativeGTLT reports whether args is an EXPIRE or PEXPIRE with GT or LT.
func relativeGTLT(args []string) bool {
	if len(args) < 4 || !strings.EqualFold(args[0], "EXPIRE") && !strings.EqualFold(args[0], "PEXPIRE") {
		return false
	}
	for _, a := range args[3:] {
		if strings.EqualFold(a, "GT") || strings.EqualFold(a, "LT") {
			return true
		}
	}
	return false
}

// encodeBatch writes a pipeline of commands as RESP arrays.
func encodeBatch(batch [][]string) string {
	var w resp.Writer
	for _, args := range batch {
		w.Array(len(args))
		for _, x := range args {
			w.BulkString(x)
		}
	}
	return string(w.B)
}

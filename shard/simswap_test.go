package shard

import (
	"strings"
	"testing"
)

// TestSimSwapDBAtomic: a SWAPDB and an MSET over keys of two other
// shards, sent together by two clients, run one wholly before the
// other whatever the deliveries: the MSET's keys end in the same
// database (SWAPDB takes every shard with coord's protocol).
func TestSimSwapDBAtomic(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		m := newSim(t, 3, seed)
		a, b := m.dial(1), m.dial(2)
		k1, k2 := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
		m.write(a, "MSET "+k1+" v "+k2+" v\r\n")
		m.write(b, "SWAPDB 0 1\r\n")
		m.settle()
		if got := string(m.replies(a, 1)[0]) + string(m.replies(b, 1)[0]); got != "+OK\r\n+OK\r\n" {
			t.Fatalf("seed %d: replies %q", seed, got)
		}
		in0 := m.do(a, "EXISTS "+k1+" "+k2+"\r\n")
		if in0 != ":0\r\n" && in0 != ":2\r\n" {
			t.Fatalf("seed %d: the MSET's keys are split between databases 0 and 1 (EXISTS in 0: %q)", seed, strings.TrimSpace(in0))
		}
	}
}

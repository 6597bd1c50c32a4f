package shard

import (
	"strings"
	"testing"
)

// TestSimReloadAtomic: DEBUG RELOAD loads every shard as one step: an
// MGET of keys on three shards sent with it sees every key from before
// the reload or every key from after, whatever the deliveries.
func TestSimReloadAtomic(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		m := newSim(t, 3, seed)
		a, b := m.dial(0), m.dial(1)
		k := keysOn(0, 3, 1)[0] + " " + keysOn(1, 3, 1)[0] + " " + keysOn(2, 3, 1)[0]
		m.write(a, "MSET "+mix(k, "old")+"\r\nSAVE\r\nMSET "+mix(k, "new")+"\r\n")
		if got := m.replies(a, 3); string(got[1]) != "+OK\r\n" {
			t.Fatalf("seed %d: SAVE: %q", seed, got[1])
		}
		m.write(a, "DEBUG RELOAD NOSAVE\r\n")
		m.write(b, "MGET "+k+"\r\n")
		r := string(m.replies(b, 1)[0])
		if got := string(m.replies(a, 1)[0]); got != "+OK\r\n" {
			t.Fatalf("seed %d: DEBUG RELOAD: %q", seed, got)
		}
		if r != "*3\r\n$3\r\nold\r\n$3\r\nold\r\n$3\r\nold\r\n" && r != "*3\r\n$3\r\nnew\r\n$3\r\nnew\r\n$3\r\nnew\r\n" {
			t.Fatalf("seed %d: MGET during DEBUG RELOAD: %q", seed, r)
		}
	}
}

// mix pairs each of the keys (space-separated) with value v.
func mix(keys, v string) string {
	out := ""
	for i, k := range strings.Fields(keys) {
		if i > 0 {
			out += " "
		}
		out += k + " " + v
	}
	return out
}

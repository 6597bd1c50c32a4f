package e2e

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// TestChainedLocalWritesAgainstRedis: on a middle replica with
// replica-read-only no, a local write made before a sub-replica's full
// sync is in its payload (the middle's data), one made after it never
// reaches the sub-replica (its stream is the primary's), as with
// redis-server 7; a radish middle serves a radish sub-replica the one
// payload, not flows.
func TestChainedLocalWritesAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	sync0 := []string{"--repl-diskless-sync-delay", "0"}
	ra := startRedis(t, redisBin, sync0...)
	h, p := hostPort(ra)
	rb := startRedis(t, redisBin, append(sync0, "--replicaof", h, p, "--replica-read-only", "no")...)
	redis := chainLocalRun(t, ra, rb, func(mid string) string {
		h, p := hostPort(mid)
		return startRedis(t, redisBin, "--replicaof", h, p)
	})
	a := start(t, "--shards", "2")
	h, p = hostPort(a.addr)
	b := start(t, "--shards", "2", "--replicaof", h+" "+p, "--replica-read-only", "no")
	radish := chainLocalRun(t, a.addr, b.addr, func(mid string) string {
		h, p := hostPort(mid)
		return start(t, "--shards", "3", "--replicaof", h+" "+p).addr
	})
	if radish != redis {
		t.Errorf("the sub-replica's keys: radish %q, redis-server %q", radish, redis)
	}
	if logs, _ := os.ReadFile(b.log); !strings.Contains(string(logs), "full sync served to a sub-replica") {
		t.Errorf("the middle served no full sync of its own:\n%s", logs)
	}
}

// chainLocalRun writes on primary and on mid, a replica of it, starts a
// sub-replica of mid in between (sub), and returns the sub-replica's keys
// once the primary's last write reached it.
func chainLocalRun(t *testing.T, primary, mid string, sub func(mid string) string) string {
	rcli(t, primary, "SET", "fromA", "1")
	waitFor(t, "the middle's copy", func() bool { return rcli(t, mid, "GET", "fromA") == "1" })
	rcli(t, mid, "SET", "localB1", "1")
	s := sub(mid)
	waitFor(t, "the sub-replica's full sync", func() bool { return rcli(t, s, "GET", "fromA") == "1" })
	rcli(t, mid, "SET", "localB2", "1")
	rcli(t, primary, "SET", "fromA2", "1")
	waitFor(t, "the sub-replica's stream", func() bool { return rcli(t, s, "GET", "fromA2") == "1" })
	keys := strings.Fields(rcli(t, s, "KEYS", "*"))
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

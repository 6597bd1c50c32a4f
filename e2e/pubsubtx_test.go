package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/radish-kv/radish/router"
)

// TestPublishInTxReplicated: a PUBLISH or SPUBLISH inside MULTI/EXEC or a
// script (EVAL with its keys on one shard, on several, with none; FCALL)
// reaches the replicas' subscribers, in the publisher's order, as Redis 7
// propagates it (inside the transaction's MULTI ... EXEC). Shown with a
// radish primary of one shard and of three, and with redis-server as the
// primary for what Redis does; the radish primary's AOF holds no publish,
// and loads after a restart with every write.
func TestPublishInTxReplicated(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	// Three keys on three different shards of a 3-shard primary.
	var keys []string
	seen := map[int]bool{}
	for i := 0; len(keys) < 3; i++ {
		if k := fmt.Sprintf("k%d", i); !seen[router.ShardOf([]byte(k), 3)] {
			seen[router.ShardOf([]byte(k), 3)] = true
			keys = append(keys, k)
		}
	}
	const lib = "#!lua name=publib\nredis.register_function('pub', function(keys, args) " +
		"redis.call('set', keys[1], 'f') return redis.call('publish', 'ch', args[1]) end)"
	cmds := [][]string{
		{"FUNCTION", "LOAD", lib},
		{"MULTI"}, {"SET", keys[0], "1"}, {"PUBLISH", "ch", "t1"}, {"SET", keys[1], "1"}, {"EXEC"},
		{"MULTI"}, {"PUBLISH", "ch", "t2"}, {"PUBLISH", "ch", "t3"}, {"EXEC"},
		{"MULTI"}, {"SPUBLISH", "sch", "x1"}, {"SET", keys[2], "1"}, {"EXEC"},
		{"EVAL", "redis.call('set', KEYS[1], 'x') return redis.call('publish', 'ch', ARGV[1])", "1", keys[0], "s1"},
		{"EVAL", "for _, k in ipairs(KEYS) do redis.call('set', k, 'y') end return redis.call('publish', 'ch', ARGV[1])",
			"3", keys[0], keys[1], keys[2], "s2"},
		{"EVAL", "return redis.call('publish', 'ch', ARGV[1])", "0", "s3"},
		{"FCALL", "pub", "1", keys[1], "f1"},
		{"SET", "last", "1"},
	}
	want := []string{"t1", "t2", "t3", "s1", "s2", "s3", "f1"}

	for _, tc := range []struct {
		name   string
		shards string // "": redis-server
	}{{"radish-1", "1"}, {"radish-3", "3"}, {"redis", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paddr string
			var prim *server
			if tc.shards == "" {
				paddr = startRedis(t, redisBin, "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0")
			} else {
				prim = startDir(t, dir, "--shards", tc.shards, "--appendonly", "yes")
				paddr = prim.addr
			}
			a, rr, subs := replicasWithSubscribers(t, paddr, redisBin, "--enable-debug-command", "yes")
			pub := dialPS(t, paddr, 2)
			for i, r := range pub.do(t, cmds...) {
				if bytes.HasPrefix(r, []byte("-")) || bytes.Contains(r, []byte("\r\n-")) {
					t.Fatalf("%q on the primary: %q", cmds[i], r)
				}
			}
			for k, s := range subs {
				got, sgot := messages(t, k, s, len(want), 1)
				if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(sgot) != "[x1]" {
					t.Fatalf("subscriber %d got %q and %q, want %q and [x1]", k, got, sgot, want)
				}
			}
			waitSame(t, paddr, a.addr, rr)
			if prim == nil {
				return
			}
			// The AOF has the writes and no publish; a restart loads them.
			files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
			for _, f := range files {
				b, _ := os.ReadFile(f)
				if low := bytes.ToLower(b); bytes.Contains(low, []byte("$7\r\npublish\r\n")) ||
					bytes.Contains(low, []byte("$8\r\nspublish\r\n")) {
					t.Fatalf("the AOF has a PUBLISH:\n%q", b)
				}
			}
			before := digests(t, paddr)
			prim.stop()
			again := startDir(t, dir, "--shards", tc.shards, "--appendonly", "yes")
			if got := digests(t, again.addr); got != before {
				t.Fatalf("after a restart from the AOF the digest is %s, was %s", got, before)
			}
		})
	}
}

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestClientEviction: under maxmemory-clients a client that stops reading
// while its replies pile up is evicted once the clients together hold
// more than the budget (INFO's evicted_clients counts it, and
// mem_clients_normal shows what they held), while one that said CLIENT
// NO-EVICT stays, however much it holds.
func TestClientEviction(t *testing.T) {
	s := start(t, "--shards", "2")
	s.cli("SET", "big", strings.Repeat("x", 100_000))
	s.cli("CONFIG", "SET", "maxmemory-clients", "2mb")
	var w resp.Writer
	for range 300 {
		w.Array(2)
		w.BulkString("GET")
		w.BulkString("big")
	}
	for _, name := range []string{"greedy", "exempt"} {
		c := dialDiff(t, s.addr, 2)
		c.do(t, []string{"CLIENT", "SETNAME", name})
		if name == "exempt" {
			c.do(t, []string{"CLIENT", "NO-EVICT", "on"})
		}
		c.c.Write(w.B) // and never read the 30 MB of replies
	}
	// The exempt client's replies keep every shard over the budget: any
	// other client may be evicted at each cron, as in Redis, so the
	// test's own asks as an exempt client too.
	ask := dialDiff(t, s.addr, 2)
	ask.do(t, []string{"CLIENT", "NO-EVICT", "on"})
	cli := func(args ...string) string {
		v, _, err := resp.ReadReply(ask.do(t, args)[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(v.Str)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		list := cli("CLIENT", "LIST")
		if !strings.Contains(list, "name=greedy") && strings.Contains(list, "name=exempt") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10s:\n%s", list)
		}
	}
	info := cli("INFO", "everything")
	if infoOf(info, "evicted_clients") != "1" {
		t.Errorf("evicted_clients %q, want 1", infoOf(info, "evicted_clients"))
	}
	if n, _ := strconv.Atoi(infoOf(info, "mem_clients_normal")); n < 2<<20 {
		t.Errorf("mem_clients_normal %d with the exempt client's replies pending", n)
	}
	cli("CONFIG", "SET", "maxmemory-clients", "0")
}

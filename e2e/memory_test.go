package e2e

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// TestActiveExpiry: keys with a TTL that nobody touches disappear soon
// after their deadline, on every shard.
func TestActiveExpiry(t *testing.T) {
	s := start(t, "--shards", "3")
	c := s.client(2)
	p := c.Pipeline()
	const n = 30000
	for i := range n {
		p.Set(ctx, fmt.Sprintf("ttl:%d", i), "v", 300*time.Millisecond)
	}
	p.Set(ctx, "forever", "v", 0)
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got := c.DBSize(ctx).Val(); got != n+1 {
		t.Fatalf("DBSIZE = %d", got)
	}
	deadline := time.Now().Add(3 * time.Second)
	for c.DBSize(ctx).Val() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("DBSIZE still %d 3s after the keys expired", c.DBSize(ctx).Val())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := infoField(t, c, "expired_keys"); got != strconv.Itoa(n) {
		t.Fatalf("expired_keys = %s", got)
	}
}

// TestMaxMemory: under noeviction writes get -OOM and reads keep working;
// under allkeys-lru a flood of 10x the budget stays near the budget.
func TestMaxMemory(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	c.ConfigSet(ctx, "maxmemory", "4mb")
	c.Set(ctx, "kept", "v", 0)
	var oom error
	for i := 0; i < 200000 && oom == nil; i++ {
		oom = c.Set(ctx, fmt.Sprintf("fill:%d", i), "0123456789012345678901234567890123456789", 0).Err()
	}
	if oom == nil || oom.Error() != "OOM command not allowed when used memory > 'maxmemory'." {
		t.Fatalf("no OOM under noeviction: %v", oom)
	}
	if got := c.Get(ctx, "kept").Val(); got != "v" {
		t.Fatalf("GET under OOM = %q", got)
	}
	if err := c.MSet(ctx, "m:1", "x", "m:2", "y", "m:3", "z").Err(); err == nil || err.Error() != oom.Error() {
		t.Fatalf("MSET under OOM: %v", err)
	}
	if n := c.Exists(ctx, "m:1", "m:2", "m:3").Val(); n != 0 {
		t.Fatalf("a refused MSET wrote %d keys", n)
	}

	c.FlushAll(ctx)
	c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru")
	budget := int64(4 << 20)
	var peak int64
	for round := range 10 {
		p := c.Pipeline()
		for i := range 20000 {
			p.Set(ctx, fmt.Sprintf("lru:%d:%d", round, i), "0123456789012345678901234567890123456789", 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		used, _ := strconv.ParseInt(infoField(t, c, "used_memory"), 10, 64)
		peak = max(peak, used)
	}
	evicted, _ := strconv.Atoi(infoField(t, c, "evicted_keys"))
	t.Logf("allkeys-lru: peak used_memory %d of %d (%.1f%%), %d keys evicted", peak, budget,
		100*float64(peak)/float64(budget), evicted)
	if peak > budget*105/100 || evicted == 0 {
		t.Fatalf("peak used_memory %d over a %d budget (evicted %d)", peak, budget, evicted)
	}
}

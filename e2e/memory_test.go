package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	const ttl = 300 * time.Millisecond
	set := time.Now()
	for i := range n {
		p.Set(ctx, fmt.Sprintf("ttl:%d", i), "v", ttl)
	}
	p.Set(ctx, "forever", "v", 0)
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Every key is there, unless the machine was slow enough that some
	// expired already.
	if got := c.DBSize(ctx).Val(); got != n+1 && time.Since(set) < ttl {
		t.Fatalf("DBSIZE = %d", got)
	}
	// The active cycle's work is bounded by time per tick, as Redis's:
	// on a loaded machine the shards get few of its ticks' time, so the
	// bound is generous (without active expiry DBSIZE never drops).
	deadline := time.Now().Add(20 * time.Second)
	for c.DBSize(ctx).Val() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("DBSIZE still %d 20s after the keys expired", c.DBSize(ctx).Val())
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

// TestMaxMemoryAuto runs the server in a cgroup with a memory limit (root
// and cgroup v1 or v2 needed): maxmemory auto budgets a fraction of it, and
// maxmemory 0 there is warned about at start.
func TestMaxMemoryAuto(t *testing.T) {
	cg := newMemoryCgroup(t, 256<<20)
	s := startIn(t, cg, "--maxmemory", "auto", "--maxmemory-auto-fraction", "0.5")
	c := s.client(2)
	if got := c.ConfigGet(ctx, "maxmemory").Val()["maxmemory"]; got != "auto" {
		t.Fatalf("CONFIG GET maxmemory = %q", got)
	}
	if got := infoField(t, c, "maxmemory"); got != strconv.Itoa(128<<20) {
		t.Fatalf("INFO maxmemory = %s, want half of 256 MB", got)
	}
	// The budget is 128 MB: writing 200 MB under noeviction ends in -OOM.
	var err error
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 200 && err == nil; i++ {
		err = c.Set(ctx, fmt.Sprintf("big:%d", i), big, 0).Err()
	}
	if err == nil || !strings.HasPrefix(err.Error(), "OOM") {
		t.Fatalf("no OOM under maxmemory auto: %v", err)
	}
	n := c.DBSize(ctx).Val()
	if n < 100 || n > 128 {
		t.Fatalf("%d MB stored under a 128 MB budget", n)
	}

	warned := startIn(t, cg)
	warned.client(2).Ping(ctx)
	logs, _ := os.ReadFile(warned.log)
	if !strings.Contains(string(logs), "a cgroup memory limit is set but maxmemory is 0") {
		t.Fatalf("no start-up warning:\n%s", logs)
	}
}

// newMemoryCgroup makes a memory cgroup with the given limit, removed when
// the test ends, and returns the file a process joins it through.
func newMemoryCgroup(t *testing.T, limit int64) string {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cgroup")
	}
	name := fmt.Sprintf("radish-e2e-%d", os.Getpid())
	for _, v := range []struct{ dir, limitFile string }{
		{"/sys/fs/cgroup/memory/" + name, "memory.limit_in_bytes"},
		{"/sys/fs/cgroup/" + name, "memory.max"},
	} {
		if err := os.Mkdir(v.dir, 0o755); err != nil {
			continue
		}
		t.Cleanup(func() {
			time.Sleep(100 * time.Millisecond) // the servers have exited
			os.Remove(v.dir)
		})
		if err := os.WriteFile(filepath.Join(v.dir, v.limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
			t.Skipf("cannot set a memory limit: %v", err)
		}
		return filepath.Join(v.dir, "cgroup.procs")
	}
	t.Skip("no writable memory cgroup")
	return ""
}

// startIn starts the server inside the cgroup whose cgroup.procs is procs.
func startIn(t *testing.T, procs string, args ...string) *server {
	t.Helper()
	old := serverBin
	wrapper := filepath.Join(t.TempDir(), "radish-in-cgroup")
	os.WriteFile(wrapper, []byte("#!/bin/sh\necho $$ > "+procs+"\nexec "+old+" \"$@\"\n"), 0o755)
	serverBin = wrapper
	defer func() { serverBin = old }()
	return start(t, args...)
}

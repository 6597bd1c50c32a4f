package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLazyFree: UNLINK of a list of 300k elements and FLUSHDB ASYNC of a
// database of 20k keys (another database holding keys) answer at once,
// the keys gone, and the memory comes back over the next loop turns:
// INFO's lazyfreed_objects counts both, lazyfree_pending_objects returns
// to 0 and used_memory falls back.
func TestLazyFree(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	info := func(field string) int64 {
		text, err := c.Info(ctx, "memory").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(text, "\r\n") {
			if v, ok := strings.CutPrefix(line, field+":"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		t.Fatalf("INFO memory has no %s:\n%s", field, text)
		return 0
	}
	base := info("used_memory")
	p := c.Pipeline()
	for i := range 300 {
		args := make([]any, 1000)
		for j := range args {
			args[j] = "element " + strconv.Itoa(i*1000+j)
		}
		p.RPush(ctx, "biglist", args...)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	full := info("used_memory")
	if n, err := c.Unlink(ctx, "biglist", "missing").Result(); err != nil || n != 1 {
		t.Fatalf("UNLINK = %d, %v", n, err)
	}
	if n := c.Exists(ctx, "biglist").Val(); n != 0 {
		t.Fatal("the unlinked key is still there")
	}
	waitFreed := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			if info("lazyfreed_objects") >= want && info("lazyfree_pending_objects") == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("lazyfreed_objects %d, pending %d", info("lazyfreed_objects"), info("lazyfree_pending_objects"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFreed(1)
	if after := info("used_memory"); after-base > (full-base)/10 {
		t.Errorf("used_memory %d after UNLINK (%d before the list, %d with it)", after, base, full)
	}
	c1 := s.client(2)
	c1.Do(ctx, "SELECT", "1")
	if err := c1.Set(ctx, "other", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	p = c.Pipeline()
	for i := range 20000 {
		p.Set(ctx, "key:"+strconv.Itoa(i), "a value", 0)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "FLUSHDB", "ASYNC").Err(); err != nil {
		t.Fatal(err)
	}
	if n := c.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("DBSIZE %d after FLUSHDB ASYNC", n)
	}
	// The list, and the database on the shard where database 1 has a key
	// (the other shard resets its slab at once, as FLUSHALL does).
	waitFreed(2)
	if v := c1.Get(ctx, "other").Val(); v != "v" {
		t.Errorf("database 1 lost its key: %q", v)
	}
}

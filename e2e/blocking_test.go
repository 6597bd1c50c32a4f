package e2e

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/radish-kv/radish/router"
)

// TestBlockingPops: clients blocked on keys of several shards wake on the
// first push to any of them; every element reaches exactly one client.
func TestBlockingPops(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		c := s.client(2)
		keys := []string{"queue:a", "queue:b", "queue:c", "queue:d"}
		const waiters = 8
		got := make(chan string, waiters)
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true, MaxRetries: -1,
					ReadTimeout: -1})
				defer r.Close()
				v, err := r.BLPop(ctx, 10*time.Second, keys[i%len(keys)], keys[(i+1)%len(keys)]).Result()
				if err != nil {
					t.Errorf("waiter %d: %v", i, err)
					return
				}
				got <- v[1]
			}()
		}
		// awaitBlocked waits until n clients are blocked.
		awaitBlocked := func(n int) {
			deadline := time.Now().Add(10 * time.Second)
			for infoField(t, c, "blocked_clients") != fmt.Sprint(n) {
				if time.Now().After(deadline) {
					t.Fatalf("blocked_clients = %s, want %d", infoField(t, c, "blocked_clients"), n)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		awaitBlocked(waiters)
		// Push one job per waiter, round robin over the keys, then more
		// until every waiter has one (greedy FIFO serving can leave a
		// waiter whose keys' jobs went to others, in Redis too).
		pushed := 0
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
	push:
		for {
			c.RPush(ctx, keys[pushed%len(keys)], fmt.Sprintf("job%d", pushed))
			pushed++
			if pushed >= waiters {
				select {
				case <-done:
					break push
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
		close(got)
		seen := map[string]bool{}
		for v := range got {
			if seen[v] {
				t.Fatalf("%s delivered twice", v)
			}
			seen[v] = true
		}
		left := 0
		for _, k := range keys {
			for _, v := range c.LRange(ctx, k, 0, -1).Val() {
				if seen[v] {
					t.Fatalf("%s delivered and still queued", v)
				}
				left++
			}
		}
		if len(seen) != waiters || len(seen)+left != pushed {
			t.Fatalf("delivered %d to %d waiters, %d left, %d pushed", len(seen), waiters, left, pushed)
		}
		// FIFO among waiters on one key.
		first := make(chan string, 1)
		second := make(chan string, 1)
		// Each waiter is blocked before the next dials: on a loaded
		// machine the second's BLPOP could otherwise arrive first.
		awaitBlocked(0)
		go func() { first <- blpop(s, "fifo") }()
		awaitBlocked(1)
		go func() { second <- blpop(s, "fifo") }()
		awaitBlocked(2)
		c.RPush(ctx, "fifo", "1", "2")
		if a, b := <-first, <-second; a != "1" || b != "2" {
			t.Fatalf("FIFO: first got %q, second %q", a, b)
		}
		// Fractional timeout.
		start := time.Now()
		if _, err := c.Do(ctx, "BLPOP", "empty", "0.2").Result(); err != redis.Nil {
			t.Fatalf("timeout: %v", err)
		}
		if el := time.Since(start); el < 150*time.Millisecond || el > 2*time.Second {
			t.Fatalf("BLPOP 0.2 returned after %v", el)
		}
		// A client that disconnects while blocked loses nothing.
		gone := redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true, MaxRetries: -1})
		go gone.BLPop(ctx, 0, "orphan")
		awaitBlocked(1)
		gone.Close()
		awaitBlocked(0)
		c.RPush(ctx, "orphan", "kept")
		if v := c.LRange(ctx, "orphan", 0, -1).Val(); len(v) != 1 || v[0] != "kept" {
			t.Fatalf("orphan list = %v", v)
		}
	})
}

func blpop(s *server, key string) string {
	r := redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true, MaxRetries: -1})
	defer r.Close()
	v, err := r.BLPop(ctx, 5*time.Second, key).Result()
	if err != nil {
		return err.Error()
	}
	return v[1]
}

// infoField reads one field of INFO.
func infoField(t *testing.T, c *redis.Client, name string) string {
	for _, line := range splitLines(c.Info(ctx).Val()) {
		if len(line) > len(name) && line[:len(name)] == name && line[len(name)] == ':' {
			return line[len(name)+1:]
		}
	}
	return ""
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\r' && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
			i++
		}
		s = s[i:]
	}
	return out
}

// TestBlockingMoveAcrossShards: BLMOVE from a list on one shard to a list
// on another wakes on a push and moves the element atomically.
func TestBlockingMoveAcrossShards(t *testing.T) {
	s := start(t, "--shards", "3")
	c := s.client(2)
	done := make(chan string, 1)
	go func() {
		r := redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true, MaxRetries: -1, ReadTimeout: -1})
		defer r.Close()
		v, err := r.BLMove(ctx, "jobs:{a}", "jobs:{b}", "LEFT", "RIGHT", 5*time.Second).Result()
		if err != nil {
			v = err.Error()
		}
		done <- v
	}()
	time.Sleep(100 * time.Millisecond)
	c.RPush(ctx, "jobs:{a}", "j1", "j2")
	if v := <-done; v != "j1" {
		t.Fatalf("BLMOVE = %q", v)
	}
	if v := c.LRange(ctx, "jobs:{b}", 0, -1).Val(); len(v) != 1 || v[0] != "j1" {
		t.Fatalf("destination = %v", v)
	}
	if v := c.LRange(ctx, "jobs:{a}", 0, -1).Val(); len(v) != 1 || v[0] != "j2" {
		t.Fatalf("source = %v", v)
	}
}

// TestBlockingPopKeyOrder: a blocking pop over keys of several shards tries
// them in order, as Redis does: the first key of another type answers
// WRONGTYPE even when a later one has data, the first key with data is
// popped, absent keys are skipped.
func TestBlockingPopKeyOrder(t *testing.T) {
	s := start(t, "--shards", "3")
	c := s.client(2)
	// Three keys on three different shards.
	var keys []string
	seen := map[int]bool{}
	for i := 0; len(keys) < 3; i++ {
		k := fmt.Sprintf("k%d", i)
		if sh := router.ShardOf([]byte(k), 3); !seen[sh] {
			seen[sh] = true
			keys = append(keys, k)
		}
	}
	h, l, z := keys[0], keys[1], keys[2]
	c.HSet(ctx, h, "f", "v")
	c.RPush(ctx, l, "a", "b")
	c.ZAdd(ctx, z, redis.Z{Score: 1, Member: "m"})
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"BLPOP", h, l, "1"}, "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{[]any{"BLPOP", l, h, "1"}, fmt.Sprint([]any{l, "a"})},
		{[]any{"BLPOP", "absent", h, l, "1"}, "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{[]any{"BRPOP", "absent", l, h, "1"}, fmt.Sprint([]any{l, "b"})},
		{[]any{"BZPOPMIN", "absent", h, z, "1"}, "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{[]any{"BZPOPMIN", "absent", z, h, "1"}, fmt.Sprint([]any{z, "m", "1"})},
		{[]any{"BLMPOP", "0.1", "2", "absent", l, "LEFT"}, "redis: nil"}, // l is empty by now
	} {
		v, err := c.Do(ctx, tc.args...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v = %s, want %s", tc.args, got, tc.want)
		}
	}
}

package e2e

import (
	"context"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestSIGTERMUnderWrites: a server on three shards with appendonly yes and
// appendfsync everysec (whose fsyncs trail the replies by up to a second)
// takes SIGTERM while writers on every shard run; it exits 0, and after a
// restart every write it acknowledged is there (or the writer's next
// one, sent but not acknowledged when the connection closed).
func TestSIGTERMUnderWrites(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--shards", "3", "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""}
	s := startDir(t, dir, args...)
	ctx := context.Background()
	var mu sync.Mutex
	acked := map[string]string{}
	// sent is each writer's last SET, acknowledged or not: it may have
	// run and been logged before the connection closed.
	sent := map[string]string{}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: s.addr, PoolSize: 1, MaxRetries: -1})
			defer c.Close()
			for i := 0; ; i++ {
				k, v := "w"+strconv.Itoa(w)+":"+strconv.Itoa(i%500), strconv.Itoa(i)
				mu.Lock()
				sent[k] = v
				mu.Unlock()
				if err := c.Set(ctx, k, v, 0).Err(); err != nil {
					return // the server is going away
				}
				mu.Lock()
				acked[k] = v
				mu.Unlock()
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	s.cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15 s after SIGTERM")
	}
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged")
	}
	first := s.log
	s = startDir(t, dir, args...)
	c := s.client(2)
	defer c.Close()
	lost := 0
	for k, v := range acked {
		if got, _ := c.Get(ctx, k).Result(); got != v && got != sent[k] {
			lost++
			if lost < 5 {
				t.Errorf("%s = %q after the restart, acknowledged %q", k, got, v)
			}
		}
	}
	if lost > 0 {
		before, _ := os.ReadFile(first)
		after, _ := os.ReadFile(s.log)
		t.Errorf("%d of %d acknowledged writes lost; the logs before and after the restart:\n%s\n%s",
			lost, len(acked), before, after)
	}
}

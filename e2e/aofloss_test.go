package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/radish-kv/radish/router"
)

// TestAOFEverysecLoss measures what kill -9 loses under appendfsync
// everysec: writers on 3 shards record each acknowledged SET and when it
// was acknowledged; after 0.3 to 1.5 s of load the server is killed, and
// the restart shows which acknowledged writes are gone. It logs the worst
// cycle (writes lost, and how long before the kill the oldest of them
// was acknowledged) and fails if a shard lost a write but kept a later
// one of the same writer (what a shard's log loses is its tail).
//
// kill -9 leaves the kernel's page cache to the disk: what it loses is
// only what the shards' writers had not yet handed to write(2). A crash
// of the machine loses, in addition, up to what the last fsync covered:
// about a second, more while an fsync is slow, which a process kill
// cannot show.
//
//	go test ./e2e -run TestAOFEverysecLoss -v
func TestAOFEverysecLoss(t *testing.T) {
	dir := t.TempDir()
	const shards, writers, cycles = 3, 8, 5
	args := []string{"--appendonly", "yes", "--appendfsync", "everysec", "--shards", strconv.Itoa(shards)}
	rng := rand.New(rand.NewPCG(3, 3))
	worstN, worstAge, total := 0, time.Duration(0), 0
	for cycle := range cycles {
		s := startDir(t, dir, args...)
		c := s.client(2)
		type ack struct {
			key string
			at  time.Time
		}
		acks := make([][]ack, writers)
		var wg sync.WaitGroup
		for g := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					k := fmt.Sprintf("c%d:w%d:%d", cycle, g, n)
					if c.Set(ctx, k, n, 0).Err() != nil {
						return
					}
					acks[g] = append(acks[g], ack{k, time.Now()})
				}
			}()
		}
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		s.kill()
		killed := time.Now()
		wg.Wait()

		s = startDir(t, dir, args...)
		c = s.client(2)
		lost, oldest := 0, killed
		for g, as := range acks {
			total += len(as)
			gone := make([]bool, shards) // per shard: a write of g's is gone
			for i := 0; i < len(as); i += 500 {
				batch := as[i:min(i+500, len(as))]
				keys := make([]string, len(batch))
				for j, a := range batch {
					keys[j] = a.key
				}
				vals, err := c.MGet(ctx, keys...).Result()
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range vals {
					sh := router.ShardOf([]byte(batch[j].key), shards)
					if v == nil {
						lost++
						gone[sh] = true
						if batch[j].at.Before(oldest) {
							oldest = batch[j].at
						}
					} else if gone[sh] {
						t.Fatalf("cycle %d: writer %d's %s is there after an earlier write to shard %d was lost", cycle, g, batch[j].key, sh)
					}
				}
			}
		}
		if age := killed.Sub(oldest); lost > worstN || age > worstAge {
			worstN, worstAge = max(worstN, lost), max(worstAge, age)
		}
		s.stop()
	}
	t.Logf("appendfsync everysec, kill -9, %d cycles, %d acknowledged writes: at worst %d lost in a cycle, "+
		"the oldest acknowledged %v before the kill", cycles, total, worstN, worstAge.Round(time.Millisecond))
}

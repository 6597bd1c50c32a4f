package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestBlockingXRead: XREAD BLOCK over streams of three shards, RESP2 and
// RESP3, every one of them holding an entry (so that every shard holding
// one sees a key to serve from as the client parks there): "$" waits for entries added after the call (older ones are not
// served), an XADD on any of the shards wakes it with that stream only,
// an absent key's "$" serves its first entry, "+" serves the last entry
// at once (Valkey 8), the deadline gives a null reply, and inside MULTI
// it does not block.
func TestBlockingXRead(t *testing.T) {
	s := start(t, "--shards", "3")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) {
			c := s.client(proto)
			c.FlushAll(ctx)
			keys := []string{"q1", "q4", "q3"} // shards 2, 1 and 0 of three
			for _, k := range keys {
				c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "1-1", Values: []string{"old", "1"}})
			}
			blocker := redis.NewClient(&redis.Options{Addr: s.addr, Protocol: proto, DisableIdentity: true,
				MaxRetries: -1, ReadTimeout: -1})
			defer blocker.Close()
			wait := func(args *redis.XReadArgs) chan []redis.XStream {
				got := make(chan []redis.XStream, 1)
				go func() {
					v, err := blocker.XRead(ctx, args).Result()
					if err != nil && err != redis.Nil {
						t.Errorf("XREAD: %v", err)
					}
					got <- v
				}()
				deadline := time.Now().Add(5 * time.Second)
				for infoField(t, c, "blocked_clients") != "1" {
					if time.Now().After(deadline) {
						t.Fatalf("blocked_clients = %s", infoField(t, c, "blocked_clients"))
					}
					time.Sleep(5 * time.Millisecond)
				}
				return got
			}
			for i, k := range keys {
				got := wait(&redis.XReadArgs{Streams: []string{keys[0], keys[1], keys[2], "$", "$", "$"}, Block: 0})
				id := fmt.Sprintf("5-%d", i)
				c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: id, Values: []string{"new", k}})
				select {
				case v := <-got:
					if len(v) != 1 || v[0].Stream != k || len(v[0].Messages) != 1 || v[0].Messages[0].ID != id ||
						v[0].Messages[0].Values["new"] != k {
						t.Fatalf("woken by XADD %s %s: %+v", k, id, v)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("XADD %s did not wake the reader", k)
				}
			}
			// An absent key: its first entry is served.
			got := wait(&redis.XReadArgs{Streams: []string{"absent", "$"}, Block: 0})
			c.XAdd(ctx, &redis.XAddArgs{Stream: "absent", ID: "1-0", Values: []string{"a", "b"}})
			if v := <-got; len(v) != 1 || v[0].Messages[0].ID != "1-0" {
				t.Fatalf("absent key: %+v", v)
			}
			// "+": the last entry, at once.
			v, err := c.XRead(ctx, &redis.XReadArgs{Streams: []string{keys[1], "+"}, Block: time.Second}).Result()
			if err != nil || len(v) != 1 || len(v[0].Messages) != 1 || v[0].Messages[0].ID != "5-1" {
				t.Fatalf("XREAD +: %+v %v", v, err)
			}
			// The deadline.
			start := time.Now()
			if _, err := c.XRead(ctx, &redis.XReadArgs{Streams: []string{keys[0], "$"}, Block: 100 * time.Millisecond}).Result(); err != redis.Nil {
				t.Fatalf("after the deadline: %v", err)
			}
			if d := time.Since(start); d < 90*time.Millisecond {
				t.Fatalf("answered after %v", d)
			}
			// Inside MULTI: no blocking.
			cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.XRead(ctx, &redis.XReadArgs{Streams: []string{keys[0], "$"}, Block: 0})
				return nil
			})
			if err != redis.Nil || len(cmds) != 1 {
				t.Fatalf("XREAD BLOCK in MULTI: %v %v", cmds, err)
			}
		})
	}
}

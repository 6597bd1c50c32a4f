package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// multiScripts are MULTI/EXEC/WATCH scenarios, one step a line: "1 cmd"
// or "2 cmd" is sent by client 1 or 2, "sleep 200ms" waits. The keys k1 ...
// k8 spread over the shards.
var multiScripts = map[string]string{
	"queue errors abort": `1 MULTI
1 SET k1 1
1 NOSUCHCMD x
1 GET
1 EXEC
1 GET k1
1 EXEC
1 DISCARD`,
	"nested MULTI and WATCH inside do not abort": `1 MULTI
1 MULTI
1 WATCH k1
1 SET k1 2
1 EXEC
1 GET k1`,
	"no_multi command aborts": `1 MULTI
1 SHUTDOWN
1 EXEC`,
	"run-time errors do not roll back": `1 SET k1 x
1 MULTI
1 INCR k1
1 SET k2 1
1 LPUSH k1 a
1 MSET k3 3 k4 4 k5 5
1 EXEC
1 MGET k1 k2 k3 k4 k5`,
	"watched key written by another client": `1 WATCH k1
2 SET k1 1
1 MULTI
1 GET k1
1 EXEC
1 GET k1`,
	"watched key written by the same client": `1 SET k1 1
1 WATCH k1
1 INCR k1
1 MULTI
1 INCR k1
1 EXEC`,
	"watched keys of every shard, one written": `1 WATCH k1 k2 k3 k4 k5 k6 k7 k8
2 SET k6 x
1 MULTI
1 MSET k1 1 k2 2 k3 3
1 EXEC
1 MGET k1 k2 k3`,
	"watched keys of every shard, none written": `1 WATCH k1 k2 k3 k4 k5 k6 k7 k8
2 SET other x
1 MULTI
1 MSET k1 1 k2 2 k3 3 k4 4 k5 5
1 INCR k6
1 RENAME k1 k7
1 MGET k1 k2 k3 k4 k5 k6 k7
1 DEL k2 k3
1 EXEC
1 MGET k1 k2 k3 k4 k5 k6 k7`,
	"watched key expires before EXEC": `1 SET k1 v PX 100
1 WATCH k1
sleep 250ms
1 MULTI
1 PING
1 EXEC`,
	"watched key expired before WATCH": `1 SET k1 v PX 50
sleep 150ms
1 WATCH k1
1 MULTI
1 PING
1 EXEC`,
	"watched keys flushed": `1 SET k1 v
1 SET k2 v
1 WATCH k1
2 FLUSHALL
1 MULTI
1 PING
1 EXEC
1 WATCH k2
1 SET k2 v
2 FLUSHDB
1 MULTI
1 PING
1 EXEC`,
	"watched key swapped": `1 SET k1 v
1 WATCH k1
2 SWAPDB 0 1
1 MULTI
1 PING
1 EXEC
2 SWAPDB 0 1`,
	"flushed or swapped watched keys that did not exist": `1 WATCH k1 k2
2 FLUSHALL
1 MULTI
1 PING
1 EXEC
1 WATCH k1
2 SET k3 x
2 FLUSHDB
1 MULTI
1 PING
1 EXEC
1 WATCH k1 k2
2 SELECT 1
2 SET k2 in1
2 FLUSHALL
1 MULTI
1 PING
1 EXEC
2 SET k2 in1
1 WATCH k1
2 SWAPDB 0 1
1 MULTI
1 PING
1 EXEC
1 WATCH k2
2 SWAPDB 0 1
1 MULTI
1 PING
1 EXEC
2 FLUSHALL
2 SELECT 0`,
	"UNWATCH and EXEC forget the watched keys": `1 WATCH k1 k2
1 UNWATCH
2 SET k1 1
1 MULTI
1 GET k1
1 EXEC
1 WATCH k2
1 MULTI
1 UNWATCH
1 EXEC
2 SET k2 2
1 MULTI
1 GET k2
1 EXEC`,
	"DISCARD and RESET": `1 WATCH k1
1 MULTI
1 SET k1 1
1 DISCARD
2 SET k1 2
1 MULTI
1 GET k1
1 EXEC
1 MULTI
1 SET k1 3
1 RESET
1 EXEC
1 GET k1`,
	"blocking commands do not block": `1 RPUSH k2 a
1 MULTI
1 BLPOP k1 0
1 BLPOP k1 k2 0
1 BRPOPLPUSH k3 k4 0
1 BLMOVE k5 k6 LEFT RIGHT 0
1 BZPOPMIN k7 0
1 EXEC`,
	"SELECT inside MULTI": `1 MULTI
1 SELECT 1
1 SET k1 1
1 SELECT 99
1 GET k1
1 MSET k2 2 k3 3
1 EXEC
1 MGET k1 k2 k3
1 SELECT 0
1 MGET k1 k2 k3
1 SELECT 1
1 FLUSHDB
1 SELECT 0`,
	"commands on every shard": `1 MULTI
1 MSET k1 1 k2 2 k3 3 k4 4
1 DBSIZE
1 KEYS k1
1 EXISTS k1 k2 k3 k4
1 FLUSHALL
1 DBSIZE
1 SET k5 5
1 RANDOMKEY
1 EXEC`,
	"empty EXEC": `1 MULTI
1 EXEC`,
}

// TestMultiAgainstRedis runs multiScripts on radish-server (4 shards) and
// redis-server, in RESP2 and RESP3, and requires identical replies.
func TestMultiAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "4")
	for name, script := range multiScripts {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/RESP%d", name, proto), func(t *testing.T) {
				ours := [2]*diffConn{dialDiff(t, s.addr, proto), dialDiff(t, s.addr, proto)}
				theirs := [2]*diffConn{dialDiff(t, ref, proto), dialDiff(t, ref, proto)}
				ours[1].do(t, []string{"FLUSHALL"})
				theirs[1].do(t, []string{"FLUSHALL"})
				for _, line := range strings.Split(script, "\n") {
					who, cmd, _ := strings.Cut(line, " ")
					if who == "sleep" {
						d, _ := time.ParseDuration(cmd)
						time.Sleep(d)
						continue
					}
					i := int(who[0] - '1')
					args := strings.Fields(cmd)
					got, want := ours[i].do(t, args)[0], theirs[i].do(t, args)[0]
					if !bytes.Equal(got, want) {
						t.Fatalf("%s\nradish replied %q\nredis  replied %q", line, got, want)
					}
				}
			})
		}
	}
}

// TestMultiAtomicUnderLoad: on 4 shards, clients move amounts between
// accounts on different shards with MULTI/EXEC while others read every
// account with MULTI/EXEC and with MGET: every read sums to the total.
// Meanwhile clients increment one counter with WATCH, GET, MULTI, SET,
// EXEC: the counter ends at the number of EXECs that ran.
func TestMultiAtomicUnderLoad(t *testing.T) {
	s := start(t, "--shards", "4")
	const accounts, start0 = 16, 100
	keys := make([]string, accounts)
	for i := range keys {
		keys[i] = fmt.Sprintf("acct:%d", i)
	}
	admin := s.client(2)
	for _, k := range keys {
		if err := admin.Set(ctx, k, start0, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(who string, vals []any) {
		sum := 0
		for _, v := range vals {
			n, err := strconv.Atoi(fmt.Sprint(v))
			if err != nil {
				t.Errorf("%s: value %v", who, v)
				return
			}
			sum += n
		}
		if sum != accounts*start0 {
			t.Errorf("%s saw a sum of %d: %v", who, sum, vals)
		}
	}
	var stop atomic.Bool
	var readers, writers sync.WaitGroup
	var reads atomic.Int64
	for i := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			c := s.client(1 + i%2*2)
			for !stop.Load() && !t.Failed() {
				if i%2 == 0 {
					vals, err := c.MGet(ctx, keys...).Result()
					if err != nil {
						t.Error(err)
						return
					}
					check("MGET", vals)
				} else {
					var gets []*redis.StringCmd
					_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
						for _, k := range keys {
							gets = append(gets, p.Get(ctx, k))
						}
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
					vals := make([]any, len(gets))
					for j, g := range gets {
						vals[j] = g.Val()
					}
					check("MULTI/EXEC", vals)
				}
				reads.Add(1)
			}
		}()
	}
	for w := range 6 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			c := s.client(2)
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range 300 {
				a, b := r.IntN(accounts), r.IntN(accounts-1)
				if b >= a {
					b++
				}
				amount := r.IntN(20)
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.DecrBy(ctx, keys[a], int64(amount))
					p.IncrBy(ctx, keys[b], int64(amount))
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var wins atomic.Int64
	for w := range 6 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			c := s.client(2)
			for range 100 {
				err := c.Watch(ctx, func(tx *redis.Tx) error {
					n, err := tx.Get(ctx, "counter").Int()
					if err != nil && err != redis.Nil {
						return err
					}
					_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
						p.Set(ctx, "counter", n+1, 0)
						return nil
					})
					return err
				}, "counter")
				switch err {
				case nil:
					wins.Add(1)
				case redis.TxFailedErr:
				default:
					t.Errorf("watch %d: %v", w, err)
					return
				}
			}
		}()
	}
	writers.Wait()
	stop.Store(true)
	readers.Wait()
	if reads.Load() == 0 {
		t.Fatal("no reads happened")
	}
	vals, err := admin.MGet(ctx, keys...).Result()
	if err != nil {
		t.Fatal(err)
	}
	check("the end", vals)
	n, err := admin.Get(ctx, "counter").Int()
	if err != nil {
		t.Fatal(err)
	}
	if int64(n) != wins.Load() || n == 0 {
		t.Fatalf("counter %d after %d successful EXECs", n, wins.Load())
	}
	t.Logf("%d reads, %d of 600 optimistic increments won", reads.Load(), wins.Load())
}

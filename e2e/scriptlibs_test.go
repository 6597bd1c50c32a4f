package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Scripts as real libraries use them, on 4 shards, through go-redis's
// Script (EVALSHA, EVAL after NOSCRIPT).

var (
	lockAcquire = redis.NewScript(`return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`)
	lockExtend  = redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0`)
	lockRelease = redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`)
)

// TestScriptLock: a Redlock-style lock (acquire, extend, release scripts
// on the lock's key) guards a read-modify-write done with plain commands;
// many clients contend for locks on several shards, and every counter
// ends equal to the number of times its lock was won.
func TestScriptLock(t *testing.T) {
	s := start(t, "--shards", "4")
	ctx := context.Background()
	const locks, workers, rounds = 4, 16, 30
	var won [locks]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(2 + w%2)
			defer c.Close()
			me := "owner-" + strconv.Itoa(w)
			for i := range rounds {
				l := (w + i) % locks
				key, counter := fmt.Sprintf("lock:%d", l), fmt.Sprintf("counter:%d", l)
				ok, err := lockAcquire.Run(ctx, c, []string{key}, me, 10000).Result()
				if err == redis.Nil {
					continue
				}
				if err != nil || ok != "OK" {
					t.Errorf("acquire: %v %v", ok, err)
					return
				}
				if n, err := lockExtend.Run(ctx, c, []string{key}, me, 20000).Int(); err != nil || n != 1 {
					t.Errorf("extend by the owner: %v %v", n, err)
				}
				if n, err := lockRelease.Run(ctx, c, []string{key}, "someone-else").Int(); err != nil || n != 0 {
					t.Errorf("release by another: %v %v", n, err)
				}
				v, _ := c.Get(ctx, counter).Int()
				c.Set(ctx, counter, v+1, 0)
				won[l].Add(1)
				if n, err := lockRelease.Run(ctx, c, []string{key}, me).Int(); err != nil || n != 1 {
					t.Errorf("release by the owner: %v %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	c := s.client(2)
	defer c.Close()
	for l := range locks {
		got, _ := c.Get(ctx, fmt.Sprintf("counter:%d", l)).Int64()
		if got != won[l].Load() || got == 0 {
			t.Errorf("counter %d = %d, lock won %d times", l, got, won[l].Load())
		}
	}
}

// tokenBucket takes one token from the bucket at KEYS[1] (tokens and the
// time of the last refill in a hash) of capacity ARGV[1], refilled at
// ARGV[2] tokens per second, at time ARGV[3] (ms): 1 if allowed.
var tokenBucket = redis.NewScript(`
local cap, rate, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('hmget', KEYS[1], 'tokens', 'ts')
local tokens, ts = tonumber(b[1]), tonumber(b[2])
if tokens == nil then tokens, ts = cap, now end
tokens = math.min(cap, tokens + (now - ts) * rate / 1000)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('hset', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('pexpire', KEYS[1], 60000)
return allowed`)

// TestScriptTokenBucket: clients hammer the buckets of several users (on
// different shards) at one instant; each user is allowed exactly its
// capacity, and a later instant refills at the rate.
func TestScriptTokenBucket(t *testing.T) {
	s := start(t, "--shards", "4")
	ctx := context.Background()
	const users, workers, tries, capacity = 6, 12, 40, 25
	var allowed [users]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(2)
			defer c.Close()
			for i := range tries {
				u := (w + i) % users
				n, err := tokenBucket.Run(ctx, c, []string{"bucket:" + strconv.Itoa(u)}, capacity, 2, 1000).Int()
				if err != nil {
					t.Error(err)
					return
				}
				allowed[u].Add(int64(n))
			}
		}()
	}
	wg.Wait()
	c := s.client(3)
	defer c.Close()
	for u := range users {
		if got := allowed[u].Load(); got != capacity {
			t.Errorf("user %d allowed %d times, capacity %d", u, got, capacity)
		}
		// 1.5 s later: 3 tokens.
		n := 0
		for range 5 {
			v, err := tokenBucket.Run(ctx, c, []string{"bucket:" + strconv.Itoa(u)}, capacity, 2, 2500).Int()
			if err != nil {
				t.Fatal(err)
			}
			n += v
		}
		if n != 3 {
			t.Errorf("user %d: %d allowed after the refill, want 3", u, n)
		}
	}
}

// transfer moves ARGV[3] from the account named ARGV[1] to ARGV[2] if it
// has enough: keys it does not declare, on different shards.
var transfer = redis.NewScript(`
local from, to, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
local have = tonumber(redis.call('get', from))
if have < n then return 0 end
redis.call('decrby', from, n)
redis.call('incrby', to, n)
return 1`)

// transferDeclared is transfer with the keys declared.
var transferDeclared = redis.NewScript(`
local n = tonumber(ARGV[1])
if tonumber(redis.call('get', KEYS[1])) < n then return 0 end
redis.call('decrby', KEYS[1], n)
redis.call('incrby', KEYS[2], n)
return 1`)

// TestScriptAtomicTransfers: concurrent scripts move amounts between
// accounts on different shards (keys declared, and not); concurrent
// MULTI/EXEC and MGET readers always see the same total.
func TestScriptAtomicTransfers(t *testing.T) {
	s := start(t, "--shards", "4")
	ctx := context.Background()
	const accounts, start0 = 8, 100
	names := make([]string, accounts)
	c := s.client(2)
	defer c.Close()
	for i := range names {
		names[i] = "acct:" + strconv.Itoa(i)
		c.Set(ctx, names[i], start0, 0)
	}
	var wg sync.WaitGroup
	var moved atomic.Int64
	stop := make(chan struct{})
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(2)
			defer c.Close()
			for i := range 60 {
				a, b := names[(w+i)%accounts], names[(w*3+i*5+1)%accounts]
				if a == b {
					continue
				}
				var n int
				var err error
				if i%2 == 0 {
					n, err = transfer.Run(ctx, c, nil, a, b, 1+i%7).Int()
				} else {
					n, err = transferDeclared.Run(ctx, c, []string{a, b}, 1+i%7).Int()
				}
				if err != nil {
					t.Error(err)
					return
				}
				moved.Add(int64(n))
			}
		}()
	}
	var readers sync.WaitGroup
	var reads atomic.Int64
	for r := range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			c := s.client(2)
			defer c.Close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var vals []any
				if r == 0 {
					var err error
					vals, err = c.MGet(ctx, names...).Result()
					if err != nil {
						t.Error(err)
						return
					}
				} else {
					cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
						for _, n := range names {
							p.Get(ctx, n)
						}
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
					for _, cmd := range cmds {
						vals = append(vals, cmd.(*redis.StringCmd).Val())
					}
				}
				total := 0
				for _, v := range vals {
					n, _ := strconv.Atoi(fmt.Sprint(v))
					total += n
				}
				if total != accounts*start0 {
					t.Errorf("a reader saw a total of %d: %v", total, vals)
					return
				}
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if moved.Load() == 0 || reads.Load() == 0 {
		t.Fatalf("moved %d times, read %d times", moved.Load(), reads.Load())
	}
}

// A job queue's scripts, as BullMQ's and Sidekiq's are shaped: the keys
// are built inside the script from a prefix argument (not declared), and
// without a hash tag they live on several shards.
var (
	jobTake = redis.NewScript(`
local p, now = ARGV[1], tonumber(ARGV[2])
local due = redis.call('zrangebyscore', p .. ':delayed', '-inf', now)
for _, j in ipairs(due) do
  redis.call('zrem', p .. ':delayed', j)
  redis.call('lpush', p .. ':wait', j)
end
local j = redis.call('rpoplpush', p .. ':wait', p .. ':active')
if not j then return false end
redis.call('hincrby', p .. ':tries', j, 1)
return j`)
	jobAck = redis.NewScript(`
local p, j = ARGV[1], ARGV[2]
if redis.call('lrem', p .. ':active', 1, j) ~= 1 then return redis.error_reply('not active ' .. j) end
redis.call('incr', p .. ':acked')
return redis.call('sadd', p .. ':done', j)`)
	jobRetry = redis.NewScript(`
local p, j, at = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('lrem', p .. ':active', 1, j) ~= 1 then return redis.error_reply('not active ' .. j) end
redis.call('incr', p .. ':retried')
return redis.call('zadd', p .. ':delayed', at, j)`)
)

// TestScriptJobQueue: 200 workers on 4 shards take jobs from two queues
// (move from wait to active), ack them, or the first time retry them
// with a delay through a sorted set; every job is done exactly once and
// the counters balance.
func TestScriptJobQueue(t *testing.T) {
	s := start(t, "--shards", "4")
	ctx := context.Background()
	const jobs, workers = 300, 200
	queues := []string{"mail", "video"}
	c := s.client(2)
	defer c.Close()
	for _, q := range queues {
		for i := range jobs {
			c.LPush(ctx, q+":wait", fmt.Sprintf("%s-%d", q, i))
		}
	}
	var clock atomic.Int64
	var wg sync.WaitGroup
	var dups atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(2 + w%2)
			defer c.Close()
			idle := 0
			for idle < 20 {
				q := queues[(w+idle)%len(queues)]
				now := clock.Add(1)
				j, err := jobTake.Run(ctx, c, nil, q, now).Text()
				if err == redis.Nil {
					idle++
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				idle = 0
				tries, _ := c.HGet(ctx, q+":tries", j).Int()
				if tries == 1 && len(j)%2 == 0 {
					if _, err := jobRetry.Run(ctx, c, nil, q, j, now+5).Result(); err != nil {
						t.Error(err)
					}
					continue
				}
				n, err := jobAck.Run(ctx, c, nil, q, j).Int()
				if err != nil {
					t.Error(err)
				}
				if n != 1 {
					dups.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for _, q := range queues {
		done, _ := c.SCard(ctx, q+":done").Result()
		acked, _ := c.Get(ctx, q+":acked").Int()
		left, _ := c.LLen(ctx, q+":wait").Result()
		active, _ := c.LLen(ctx, q+":active").Result()
		delayed, _ := c.ZCard(ctx, q+":delayed").Result()
		retried, _ := c.Get(ctx, q+":retried").Int()
		if done != jobs || acked != jobs || left+active+delayed != 0 || retried == 0 {
			t.Errorf("%s: done %d acked %d, %d waiting %d active %d delayed, %d retried", q, done, acked, left, active, delayed, retried)
		}
	}
	if dups.Load() != 0 {
		t.Errorf("%d jobs done twice", dups.Load())
	}
}

// TestScriptKill: a script looping forever on one shard is stopped by
// SCRIPT KILL sent from connections on every shard (the loop's own shard
// reads its connections again only once the script stopped), and
// answers Redis's error; then the server serves as before.
func TestScriptKill(t *testing.T) {
	s := start(t, "--shards", "4")
	loop := dialDiff(t, s.addr, 2)
	body := "local i = 0 while true do i = i + 1 end" // one line: the kill lands on line 1
	if _, err := loop.c.Write([]byte(fmt.Sprintf("*3\r\n$4\r\nEVAL\r\n$%d\r\n%s\r\n$1\r\n0\r\n", len(body), body))); err != nil {
		t.Fatal(err)
	}
	// Each connection asks until one of them stopped the script; the one
	// on the script's shard is answered once it stopped.
	var killed atomic.Bool
	var wg sync.WaitGroup
	for range 8 {
		k := dialDiff(t, s.addr, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := 0; try < 5000 && !killed.Load(); try++ {
				if _, err := k.c.Write([]byte("*2\r\n$6\r\nSCRIPT\r\n$4\r\nKILL\r\n")); err != nil {
					t.Error(err)
					return
				}
				switch b := k.read(t); string(b) {
				case "+OK\r\n":
					killed.Store(true)
				case "-NOTBUSY No scripts in execution right now.\r\n":
					time.Sleep(time.Millisecond)
				default:
					t.Errorf("SCRIPT KILL answered %q", b)
					return
				}
			}
		}()
	}
	wg.Wait()
	if !killed.Load() {
		t.Fatal("no SCRIPT KILL stopped the script")
	}
	want := "-ERR Script killed by user with SCRIPT KILL... script: 3fcf51a9b854b8f66cb8685600b0d7df968f4398, on @user_script:1.\r\n"
	if got := string(loop.read(t)); got != want {
		t.Fatalf("the killed script answered %q, want %q", got, want)
	}
	if got := loop.do(t, []string{"EVAL", "return redis.call('set', 'k', 'v')", "0"})[0]; string(got) != "+OK\r\n" {
		t.Fatalf("after the kill: %q", got)
	}
}

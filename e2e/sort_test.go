package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestSortAgainstRedis fills a list, a set of integers, a set of words
// and a sorted set, and weights, names and hashes for their elements
// (the pattern keys of one SORT land on all four shards), then sends
// SORT and SORT_RO with every option to radish (four shards) and
// redis-server: BY weights and hash fields, BY nosort, LIMIT, GET #,
// patterns and hash fields, ASC/DESC, ALPHA, STORE into keys of other
// shards (read back), inside MULTI and scripts (whose keys' patterns name
// keys of other shards), and the errors; replies must be the
// same, RESP2 and RESP3.
func TestSortAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "4")
	r := rand.New(rand.NewPCG(5, 6))
	var cmds [][]string
	list := []string{"RPUSH", "l"}
	zset := []string{"ZADD", "z"}
	ints := []string{"SADD", "si"}
	words := []string{"SADD", "sw"}
	for i := range 40 {
		e := strconv.Itoa(i)
		list = append(list, e)
		if i%3 == 0 {
			list = append(list, e) // duplicates
		}
		zset = append(zset, strconv.Itoa(r.IntN(10)), e)
		ints = append(ints, strconv.Itoa(i*7-50))
		words = append(words, "w"+e)
		// Weights unique (no ties for ALPHA BY), names, hashes with a
		// weight field and a name; some missing.
		cmds = append(cmds, []string{"SET", "weight_" + e, strconv.Itoa((i*37)%101 - 20)})
		if i%5 != 0 {
			cmds = append(cmds, []string{"SET", "name_" + e, fmt.Sprintf("n%03d", (i*13)%40)})
		}
		if i%4 != 0 {
			cmds = append(cmds, []string{"HSET", "obj_" + e, "w", strconv.FormatFloat(float64((i*11)%23)+0.5, 'f', 1, 64), "name", "h" + e})
		}
	}
	cmds = append(cmds, list, zset, ints, words, []string{"RPUSH", "short", "b", "a", "c"})
	sorts := [][]string{
		{"SORT", "l"}, {"SORT", "l", "DESC"}, {"SORT", "l", "LIMIT", "5", "10"}, {"SORT", "l", "LIMIT", "-1", "3"},
		{"SORT", "l", "LIMIT", "50", "3"}, {"SORT", "l", "LIMIT", "3", "0"}, {"SORT", "l", "ALPHA"},
		{"SORT", "l", "ALPHA", "DESC", "LIMIT", "0", "7"}, {"SORT", "z"}, {"SORT", "z", "DESC"}, {"SORT", "si"},
		{"SORT", "si", "DESC", "LIMIT", "2", "5"}, {"SORT", "sw", "ALPHA"}, {"SORT", "sw"},
		{"SORT", "l", "BY", "nosort"}, {"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "3", "4"},
		{"SORT", "z", "BY", "nosort"}, {"SORT", "z", "BY", "nosort", "DESC"}, {"SORT", "z", "BY", "nosort", "LIMIT", "2", "3"},
		{"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "2", "3"},
		{"SORT", "l", "BY", "weight_*"}, {"SORT", "l", "BY", "weight_*", "DESC", "LIMIT", "2", "6"},
		{"SORT", "l", "BY", "weight_*", "GET", "#", "GET", "name_*", "GET", "obj_*->name"},
		{"SORT", "z", "BY", "obj_*->w", "GET", "obj_*->w", "GET", "#"},
		{"SORT", "si", "BY", "weight_*", "GET", "name_*"},
		{"SORT", "l", "BY", "name_*", "ALPHA"}, // ties: the missing names, in list order
		// Ties under a LIMIT that leaves elements out: Redis's partial
		// quicksort's order.
		{"SORT", "l", "BY", "name_*", "ALPHA", "LIMIT", "3", "10"},
		{"SORT", "l", "BY", "name_*", "ALPHA", "DESC", "LIMIT", "0", "12", "GET", "#", "GET", "name_*"},
		{"SORT", "l", "BY", "obj_*->missing", "LIMIT", "5", "20"},
		{"SORT", "l", "BY", "nothing_*", "ALPHA", "LIMIT", "10", "25"},
		{"SORT", "l", "BY", "name_*", "ALPHA", "LIMIT", "40", "100"},
		{"SORT", "l", "BY", "weight_*", "ALPHA", "DESC", "GET", "weight_*"},
		{"SORT", "l", "BY", "nosort", "GET", "name_*", "LIMIT", "10", "5"},
		{"SORT", "z", "GET", "obj_*->", "GET", "weight_*->w", "GET", "nostar"},
		{"SORT", "l", "BY", "obj_*->name", "GET", "#"},
		{"SORT", "short", "BY", "name_*", "GET", "#", "GET", "name_*"},
		{"SORT_RO", "l", "BY", "weight_*", "GET", "name_*", "LIMIT", "0", "5"},
		{"SORT", "l", "BY", "weight_*", "GET", "name_*", "STORE", "dst"},
		{"LRANGE", "dst", "0", "-1"},
		{"SORT", "z", "BY", "obj_*->w", "GET", "obj_*->name", "STORE", "{x}dst"},
		{"LRANGE", "{x}dst", "0", "-1"},
		{"SORT", "sw", "BY", "nosort", "STORE", "dst2"}, {"LRANGE", "dst2", "0", "-1"},
		{"SORT", "si", "STORE", "dst3"}, {"LRANGE", "dst3", "0", "-1"}, {"OBJECT", "ENCODING", "dst3"},
		{"SORT", "missing", "STORE", "dst3"}, {"EXISTS", "dst3"},
		{"SORT", "short", "BY", "weight_*", "GET", "#", "GET", "missing_*", "STORE", "short"}, {"LRANGE", "short", "0", "-1"},
		{"MULTI"}, {"SORT", "l", "BY", "weight_*", "GET", "name_*", "LIMIT", "0", "4"}, {"SET", "name_1", "changed"},
		{"SORT", "l", "BY", "weight_*", "GET", "name_*", "STORE", "dst4"}, {"LRANGE", "dst4", "0", "3"}, {"EXEC"},
		{"SET", "weight_3", "notanumber"}, {"SORT", "l", "BY", "weight_*"}, {"SORT", "l", "BY", "weight_*", "STORE", "dst"},
		{"LRANGE", "dst", "0", "2"}, {"SORT", "l", "BY", "weight_*", "ALPHA", "LIMIT", "0", "3"},
		{"SORT", "name_1"}, {"SORT", "obj_1", "BY", "weight_*"}, {"SORT", "l", "LIMIT", "x", "1"}, {"SORT", "l", "BY"},
		{"SORT_RO", "l", "STORE", "dst"}, {"SORT", "l", "GET", "name_*", "foo"},
		{"OBJECT", "ENCODING", "z"},
		{"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'weight_*', 'GET', '#', 'GET', 'name_*')", "1", "l"},
		{"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'obj_*->w', 'LIMIT', 0, 5, 'GET', 'obj_*->name', 'STORE', KEYS[2])", "2", "z", "{y}dst"},
		{"LRANGE", "{y}dst", "0", "-1"},
		{"EVAL", "redis.call('SET', 'name_2', 'fromscript'); return redis.call('SORT_RO', 'l', 'BY', 'nosort', 'GET', 'name_*', 'LIMIT', 0, 4)", "0"},
	}
	cmds = append(cmds, sorts...)
	sameReplies(t, s.addr, ref, cmds)
}

// TestSortAtomic: writers set every weight and name of a list's elements
// to one generation at a time (MSET, atomic across the four shards),
// while readers SORT the list BY the weights GET the names and GET the
// weights, and SORT ... STORE: every reply and every stored list must see
// a single generation, as a SORT holds every shard while it reads.
func TestSortAtomic(t *testing.T) {
	s := start(t, "--shards", "4")
	const n = 12
	admin := s.client(2)
	args := []any{}
	for i := range n {
		args = append(args, strconv.Itoa(i))
	}
	if err := admin.RPush(ctx, "{l}list", args...).Err(); err != nil {
		t.Fatal(err)
	}
	mset := func(gen int) []any {
		var kv []any
		for i := range n {
			kv = append(kv, "w"+strconv.Itoa(i), strconv.Itoa(gen*100+i), "name"+strconv.Itoa(i), "g"+strconv.Itoa(gen))
		}
		return kv
	}
	if err := admin.MSet(ctx, mset(0)...).Err(); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var sorts atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := s.client(2)
		for gen := 1; !stop.Load() && !t.Failed(); gen++ {
			if err := c.MSet(ctx, mset(gen)...).Err(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	check := func(vals []string) {
		if len(vals) != 2*n {
			t.Errorf("SORT gave %d values: %q", len(vals), vals)
			return
		}
		gen := vals[0]
		for i := 0; i < len(vals); i += 2 {
			w, _ := strconv.Atoi(vals[i+1])
			if vals[i] != gen || "g"+strconv.Itoa(w/100) != gen || w%100 != i/2 {
				t.Errorf("SORT saw more than one generation: %q", vals)
				return
			}
		}
	}
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(2 + i%2)
			dst := "{d}dst" + strconv.Itoa(i)
			for !stop.Load() && !t.Failed() {
				vals, err := c.SortRO(ctx, "{l}list", &redis.Sort{By: "w*", Get: []string{"name*", "w*"}}).Result()
				if err != nil {
					t.Error(err)
					return
				}
				check(vals)
				if err := c.SortStore(ctx, "{l}list", dst, &redis.Sort{By: "w*", Get: []string{"name*", "w*"}}).Err(); err != nil {
					t.Error(err)
					return
				}
				stored, err := c.LRange(ctx, dst, 0, -1).Result()
				if err != nil {
					t.Error(err)
					return
				}
				check(stored)
				sorts.Add(2)
			}
		}()
	}
	for sorts.Load() < 300 && !t.Failed() {
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
}

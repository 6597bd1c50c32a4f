package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestTypesAcrossShards drives hashes, sets, sorted sets and lists through
// go-redis (RESP2 and RESP3), with multi-key commands whose keys live on
// different shards.
func TestTypesAcrossShards(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		for _, proto := range []int{2, 3} {
			c := s.client(proto)
			c.FlushAll(ctx)
			// Hashes.
			if n := c.HSet(ctx, "user:1", "name", "ada", "age", "36").Val(); n != 2 {
				t.Fatalf("HSET = %d", n)
			}
			if got := c.HGetAll(ctx, "user:1").Val(); got["name"] != "ada" || got["age"] != "36" || len(got) != 2 {
				t.Fatalf("HGETALL = %v", got)
			}
			if n := c.HIncrBy(ctx, "user:1", "age", 1).Val(); n != 37 {
				t.Fatalf("HINCRBY = %d", n)
			}
			if got := c.ObjectEncoding(ctx, "user:1").Val(); got != "listpack" {
				t.Fatalf("OBJECT ENCODING hash = %q", got)
			}
			if err := c.LPush(ctx, "user:1", "x").Err(); err == nil ||
				err.Error() != "WRONGTYPE Operation against a key holding the wrong kind of value" {
				t.Fatalf("LPUSH on a hash: %v", err)
			}
			// Sets, with SUNIONSTORE/SMOVE across shards.
			for i := range 10 {
				c.SAdd(ctx, fmt.Sprintf("set:%d", i%3), i)
			}
			if got := c.ObjectEncoding(ctx, "set:0").Val(); got != "intset" {
				t.Fatalf("OBJECT ENCODING set = %q", got)
			}
			if n := c.SUnionStore(ctx, "all", "set:0", "set:1", "set:2").Val(); n != 10 {
				t.Fatalf("SUNIONSTORE = %d", n)
			}
			members := c.SMembers(ctx, "all").Val()
			slices.Sort(members)
			if len(members) != 10 {
				t.Fatalf("SMEMBERS all = %v", members)
			}
			if ok := c.SMove(ctx, "set:0", "set:1", "0").Val(); !ok {
				t.Fatal("SMOVE failed")
			}
			if c.SIsMember(ctx, "set:0", "0").Val() || !c.SIsMember(ctx, "set:1", "0").Val() {
				t.Fatal("SMOVE did not move")
			}
			if n := c.SInterCard(ctx, 0, "all", "set:1").Val(); n != 4 {
				t.Fatalf("SINTERCARD = %d", n)
			}
			// Sorted sets.
			c.ZAdd(ctx, "board:a", redis.Z{Score: 1, Member: "x"}, redis.Z{Score: 2.5, Member: "y"})
			c.ZAdd(ctx, "board:b", redis.Z{Score: 10, Member: "y"}, redis.Z{Score: 3, Member: "z"})
			if n := c.ZUnionStore(ctx, "board:all", &redis.ZStore{Keys: []string{"board:a", "board:b"}}).Val(); n != 3 {
				t.Fatalf("ZUNIONSTORE = %d", n)
			}
			got := c.ZRangeWithScores(ctx, "board:all", 0, -1).Val()
			want := []redis.Z{{Score: 1, Member: "x"}, {Score: 3, Member: "z"}, {Score: 12.5, Member: "y"}}
			if !slices.Equal(got, want) {
				t.Fatalf("ZRANGE WITHSCORES = %v", got)
			}
			if r := c.ZRank(ctx, "board:all", "y").Val(); r != 2 {
				t.Fatalf("ZRANK = %d", r)
			}
			// Lists, with LMOVE across shards.
			c.RPush(ctx, "jobs:in", "j1", "j2", "j3")
			if v := c.LMove(ctx, "jobs:in", "jobs:done", "LEFT", "RIGHT").Val(); v != "j1" {
				t.Fatalf("LMOVE = %q", v)
			}
			if v := c.LRange(ctx, "jobs:done", 0, -1).Val(); !slices.Equal(v, []string{"j1"}) {
				t.Fatalf("LRANGE done = %v", v)
			}
			if v := c.LRange(ctx, "jobs:in", 0, -1).Val(); !slices.Equal(v, []string{"j2", "j3"}) {
				t.Fatalf("LRANGE in = %v", v)
			}
			// TYPE, RENAME and SCAN TYPE on every type.
			for key, typ := range map[string]string{"user:1": "hash", "all": "set", "board:all": "zset", "jobs:in": "list"} {
				if got := c.Type(ctx, key).Val(); got != typ {
					t.Fatalf("TYPE %s = %q", key, got)
				}
				if err := c.Rename(ctx, key, key+":moved").Err(); err != nil {
					t.Fatal(err)
				}
				if got := c.Type(ctx, key+":moved").Val(); got != typ {
					t.Fatalf("TYPE after RENAME %s = %q", key, got)
				}
				var found []string
				iter := c.ScanType(ctx, 0, "*", 100, typ).Iterator()
				for iter.Next(ctx) {
					found = append(found, iter.Val())
				}
				if !slices.Contains(found, key+":moved") {
					t.Fatalf("SCAN TYPE %s = %v", typ, found)
				}
			}
		}
	})
}

// TestPipelinedZAdd sends long pipelines of ZADDs (new members and score
// changes, into sorted sets on every shard, large enough to be skiplists,
// mixed with other commands), which the shards prefetch ahead of running,
// and checks every set against a model.
func TestPipelinedZAdd(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		c := s.client(2)
		c.FlushAll(ctx)
		type z map[string]float64
		model := map[string]z{}
		keys := []string{"za", "zb", "zc", "zd"}
		for _, k := range keys {
			model[k] = z{}
		}
		seed := uint64(1)
		next := func(n uint64) uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return (seed >> 33) % n }
		for round := 0; round < 20; round++ {
			p := c.Pipeline()
			for i := 0; i < 200; i++ {
				k := keys[next(uint64(len(keys)))]
				if i%2 == 0 {
					k = keys[0] // runs of one key, as a pipeline on one set has
				}
				m := fmt.Sprintf("m%d", next(400))
				sc := float64(next(50)) // many equal scores
				p.ZAdd(ctx, k, redis.Z{Score: sc, Member: m})
				model[k][m] = sc
				if i%37 == 0 {
					p.Get(ctx, "plain")
				}
			}
			if _, err := p.Exec(ctx); err != nil && err != redis.Nil { // GET plain: nil
				t.Fatal(err)
			}
		}
		for _, k := range keys {
			got := c.ZRangeWithScores(ctx, k, 0, -1).Val()
			want := make([]redis.Z, 0, len(model[k]))
			for m, sc := range model[k] {
				want = append(want, redis.Z{Score: sc, Member: m})
			}
			slices.SortFunc(want, func(a, b redis.Z) int {
				if a.Score != b.Score {
					if a.Score < b.Score {
						return -1
					}
					return 1
				}
				return strings.Compare(a.Member.(string), b.Member.(string))
			})
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %d members, want %d; first %v / %v", k, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
			}
			if enc := c.ObjectEncoding(ctx, k).Val(); enc != "skiplist" {
				t.Fatalf("%s: encoding %s", k, enc)
			}
		}
	})
}

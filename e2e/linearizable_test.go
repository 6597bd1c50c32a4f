package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/redis/go-redis/v9"
)

// The linearizability check: clients run GET, SET, MSET, MGET, and
// MULTI/EXEC blocks and scripts of GETs and SETs over a few keys on
// several shards,
// each operation recorded with its invocation and response times, and
// porcupine checks the history against a model of a key-value map.

// linKeys are the keys; on 4 shards they spread over the shards.
var linKeys = []string{"lin:a", "lin:b", "lin:c", "lin:d", "lin:e"}

// linState is the map: a value per key, "" for none.
type linState [5]string

// linOp is one read or write of an operation; every operation is a list
// of them, run in order (GET and SET have one, MSET and MGET one per key,
// MULTI/EXEC its queued commands).
type linOp struct {
	set bool
	key int
	val string
}

// linModel: an operation's output is the values its reads saw, in order.
var linModel = porcupine.Model{
	Init: func() any { return linState{} },
	Step: func(state, input, output any) (bool, any) {
		st := state.(linState)
		out := output.([]string)
		n := 0
		for _, op := range input.([]linOp) {
			if op.set {
				st[op.key] = op.val
				continue
			}
			if n >= len(out) || out[n] != st[op.key] {
				return false, nil
			}
			n++
		}
		return n == len(out), st
	},
	DescribeOperation: func(input, output any) string { return fmt.Sprintf("%v -> %q", input, output) },
}

// linHistory runs clients against s and returns their history.
func linHistory(t *testing.T, s *server, clients, ops int) []porcupine.Operation {
	base := time.Now()
	var mu sync.Mutex
	var history []porcupine.Operation
	var wg sync.WaitGroup
	for id := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(2)
			r := rand.New(rand.NewPCG(uint64(id), 11))
			for n := range ops {
				in, run := linOperation(c, r, fmt.Sprintf("%d.%d", id, n))
				call := time.Since(base).Nanoseconds()
				out, err := run()
				ret := time.Since(base).Nanoseconds()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				history = append(history, porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: ret})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return history
}

// linOperation draws an operation writing value v (with a suffix per
// key) and returns it and the function that runs it.
func linOperation(c *redis.Client, r *rand.Rand, v string) ([]linOp, func() ([]string, error)) {
	val := func(b []byte) string { return string(b) }
	switch r.IntN(6) {
	case 0:
		k := r.IntN(len(linKeys))
		return []linOp{{key: k}}, func() ([]string, error) {
			b, err := c.Get(ctx, linKeys[k]).Bytes()
			if err == redis.Nil {
				return []string{""}, nil
			}
			return []string{val(b)}, err
		}
	case 1:
		k := r.IntN(len(linKeys))
		return []linOp{{set: true, key: k, val: v}}, func() ([]string, error) {
			return []string{}, c.Set(ctx, linKeys[k], v, 0).Err()
		}
	case 2:
		var in []linOp
		var kv []any
		for k := range linKeys {
			if r.IntN(2) == 0 || len(in) == 0 && k == len(linKeys)-1 {
				in = append(in, linOp{set: true, key: k, val: v + "/" + fmt.Sprint(k)})
				kv = append(kv, linKeys[k], v+"/"+fmt.Sprint(k))
			}
		}
		return in, func() ([]string, error) { return []string{}, c.MSet(ctx, kv...).Err() }
	case 3:
		in := make([]linOp, len(linKeys))
		for k := range in {
			in[k] = linOp{key: k}
		}
		return in, func() ([]string, error) {
			vals, err := c.MGet(ctx, linKeys...).Result()
			out := make([]string, len(vals))
			for i, x := range vals {
				if x != nil {
					out[i] = x.(string)
				}
			}
			return out, err
		}
	case 4:
		// A script doing what a MULTI block does, its keys declared or
		// (built from its arguments) not.
		var in []linOp
		args := []any{}
		for range 2 + r.IntN(4) {
			op := linOp{set: r.IntN(2) == 0, key: r.IntN(len(linKeys))}
			if op.set {
				op.val = v + "/" + fmt.Sprint(len(in)+1)
				args = append(args, "s", linKeys[op.key], op.val)
			} else {
				args = append(args, "g", linKeys[op.key], "")
			}
			in = append(in, op)
		}
		var keys []string
		if r.IntN(2) == 0 {
			keys = linKeys
		}
		return in, func() ([]string, error) {
			vals, err := linScript.Run(ctx, c, keys, args...).StringSlice()
			return vals, err
		}
	default:
		var in []linOp
		for range 2 + r.IntN(4) {
			in = append(in, linOp{set: r.IntN(2) == 0, key: r.IntN(len(linKeys))})
			if in[len(in)-1].set {
				in[len(in)-1].val = v + "/" + fmt.Sprint(len(in))
			}
		}
		return in, func() ([]string, error) {
			var gets []*redis.StringCmd
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				for _, op := range in {
					if op.set {
						p.Set(ctx, linKeys[op.key], op.val, 0)
					} else {
						gets = append(gets, p.Get(ctx, linKeys[op.key]))
					}
				}
				return nil
			})
			if err == redis.Nil {
				err = nil // a GET of no key inside the block
			}
			out := make([]string, len(gets))
			for i, g := range gets {
				out[i] = g.Val()
			}
			return out, err
		}
	}
}

// linScript runs ARGV's operations (op, key, value: "s" sets, "g" gets)
// and returns what its gets saw, "" for no key.
var linScript = redis.NewScript(`
local out = {}
for i = 1, #ARGV, 3 do
  if ARGV[i] == 's' then
    redis.call('set', ARGV[i+1], ARGV[i+2])
  else
    out[#out+1] = redis.call('get', ARGV[i+1]) or ''
  end
end
return out`)

// TestLinearizable: the history of 8 clients on 4 shards is linearizable.
func TestLinearizable(t *testing.T) {
	s := start(t, "--shards", "4")
	h := linHistory(t, s, 8, 150)
	if res := porcupine.CheckOperationsTimeout(linModel, h, time.Minute); res != porcupine.Ok {
		t.Fatalf("history of %d operations: %v", len(h), res)
	}
}

// TestLinearizableFailsWithoutLocks: a server whose transactions take no
// locks (built with the tag radish_nolocks) gives a history the checker
// refuses, so TestLinearizable can fail.
func TestLinearizableFailsWithoutLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds another radish-server")
	}
	bin := filepath.Join(t.TempDir(), "radish-nolocks")
	out, err := exec.Command("go", "build", "-tags", "radish_nolocks", "-o", bin, "../cmd/radish-server").CombinedOutput()
	if err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	s := startBin(t, bin, "--shards", "4")
	var results []string
	for range 5 {
		h := linHistory(t, s, 8, 150)
		res := porcupine.CheckOperationsTimeout(linModel, h, time.Minute)
		if res == porcupine.Illegal {
			return
		}
		results = append(results, string(res))
	}
	t.Fatalf("without locks every history passed: %s", strings.Join(results, ", "))
}

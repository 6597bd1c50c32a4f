package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/internal/workload"
)

// scriptCases are EVAL, EVALSHA and SCRIPT commands whose replies must be
// byte-identical to redis-server's, in RESP2 and RESP3: the sandbox,
// redis.* and the conversions both ways, errors with their script and
// line, keys declared or not, on one shard and over several.
var scriptCases = [][]string{
	{"EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "a", "1"},
	{"EVAL", "return redis.call('get', KEYS[1])", "1", "a"},
	{"EVAL", "return {redis.call('incr', KEYS[1]), redis.call('incr', KEYS[2])}", "2", "a", "b"},
	{"EVAL", "return {redis.call('get', 'a'), redis.call('get', 'b')}", "0"},
	{"EVAL", "redis.call('set', 'u1', 'x'); redis.call('set', 'u2', 'y'); redis.call('set', 'u3', 'z'); return redis.call('mget', 'u1', 'u2', 'u3')", "0"},
	{"EVAL", "redis.call('rpush', '{q}l', 'a', 'b'); return redis.call('lrange', '{q}l', 0, -1)", "0"},
	{"EVAL", "return redis.call('lrange', KEYS[1], 0, -1)", "1", "{q}l"},
	{"EVAL", "redis.call('incr', KEYS[1]); redis.call('incr', KEYS[2]); return {redis.call('publish', 'ch', 'm'), redis.call('get', KEYS[1])}", "2", "a", "b"},
	{"EVAL", "return redis.call('publish', ARGV[1], ARGV[2])", "0", "ch", "m"},
	{"EVAL", "return x", "0"},
	{"EVAL", "x = 1", "0"},
	{"EVAL", "redis.x = 1", "0"},
	{"EVAL", "return os", "0"},
	{"EVAL", "local a = 1\nlocal b = 2\nreturn redis.call('nosuch')", "0"},
	{"EVAL", "return redis.call('get')", "0"},
	{"EVAL", "return redis.pcall('get')", "0"},
	{"EVAL", "return redis.call('subscribe', 'c')", "0"},
	{"EVAL", "return redis.call('eval', 'return 1', '0')", "0"},
	{"EVAL", "redis.call('set', KEYS[1], 'v'); return redis.call('lpush', KEYS[1], 'x')", "1", "s"},
	{"EVAL", "return redis.pcall('lpush', KEYS[1], 'x')", "1", "s"},
	{"EVAL", "return {1, 2, 3.7, nil, 5}", "0"},
	{"EVAL", "return {1, 'a', {ok='x'}, {err='y'}, {1, {2}}}", "0"},
	{"EVAL", "return redis.error_reply('my err')", "0"},
	{"EVAL", "return redis.status_reply('fine')", "0"},
	{"EVAL", "return {true, false, 3.99, -3.5}", "0"},
	{"EVAL", "redis.setresp(3); return {true, false}", "0"},
	{"EVAL", "error('boom')", "0"},
	{"EVAL", "error({err='X boom'})", "0"},
	{"EVAL", "return redis.sha1hex('abc')", "0"},
	{"EVAL", "return {double=3.5}", "0"},
	{"EVAL", "return {map={a=1}}", "0"},
	{"EVAL", "return {set={a=true}}", "0"},
	{"EVAL", "return {big_number='123'}", "0"},
	{"EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"},
	{"EVAL", "redis.call('hset', KEYS[1], 'f', '1'); redis.setresp(3); return redis.call('hgetall', KEYS[1])", "1", "h"},
	{"EVAL", "redis.setresp(3); return redis.call('get', 'nokey') == nil", "0"},
	{"EVAL", "return redis.call('get', 'nokey') == false", "0"},
	{"EVAL", "redis.call('zadd', KEYS[1], '1.5', 'm'); redis.setresp(3); return redis.call('zscore', KEYS[1], 'm')", "1", "z"},
	{"EVAL", "return KEYS", "2", "a", "b"},
	{"EVAL", "return ARGV", "0", "x", "y"},
	{"EVAL", "return redis.REDIS_VERSION", "0"},
	{"EVAL", "return 1 +", "0"},
	{"EVAL", "return 1", "-1"},
	{"EVAL", "return 1", "x"},
	{"EVAL", "return 1", "2", "a"},
	{"EVAL_RO", "return redis.call('set', KEYS[1], 'b')", "1", "a"},
	{"EVAL_RO", "return redis.call('get', KEYS[1])", "1", "a"},
	{"EVAL", "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'b')", "1", "a"},
	{"EVAL", "redis.call('select', 1); redis.call('set', 'indb1', 'v'); return redis.call('get', 'indb1')", "0"},
	{"EXISTS", "indb1"},
	{"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
	{"SCRIPT", "LOAD", "return ARGV[1]"},
	{"EVALSHA", "098e0f0d1448c0a81dafe820f66d460eb09263da", "0", "v"},
	{"EVALSHA", "098E0F0D1448C0A81DAFE820F66D460EB09263DA", "0", "v"},
	{"EVALSHA_RO", "098e0f0d1448c0a81dafe820f66d460eb09263da", "0", "v"},
	{"SCRIPT", "EXISTS", "098e0f0d1448c0a81dafe820f66d460eb09263da", "ffff"},
	{"SCRIPT", "LOAD", "return +"},
	{"SCRIPT", "FLUSH", "FOO"},
	{"SCRIPT", "FLUSH", "ASYNC"},
	{"EVALSHA", "098e0f0d1448c0a81dafe820f66d460eb09263da", "0", "v"},
	{"SCRIPT", "HELP"},
	{"MULTI"},
	{"EVAL", "return redis.call('incr', KEYS[1])", "1", "a"},
	{"EVAL", "return redis.call('incr', KEYS[1])", "1", "b"},
	{"EXEC"},
	{"MGET", "a", "b", "u1", "u2", "u3"},
	{"FUNCTION", "FLUSH"},
	{"FUNCTION", "LOAD", "redis.register_function('f', function() return 1 end)"},
	{"FUNCTION", "LOAD", "#!lua\nredis.register_function('f', function() return 1 end)"},
	{"FUNCTION", "LOAD", "#!lua name=lib1\nreturn 1"},
	{"FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return {keys, args} end)"},
	{"FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return 1 end)"},
	{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('f1', function(keys, args) return 1 end)"},
	{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.call('ping')"},
	{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function{function_name='f2', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, flags={'no-writes'}, description='d'}"},
	{"FUNCTION", "LOAD", "#!lua name=lib3\nredis.register_function{function_name='f3', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes', 'allow-stale'}, description='desc'}\nredis.register_function('f4', function() return x end)"},
	{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function('incr2', function(keys) return {redis.call('incr', keys[1]), redis.call('incr', keys[2])} end)"},
	{"FCALL", "f1", "2", "a", "b", "c", "d"},
	{"FCALL", "f2", "1", "a", "v"},
	{"FCALL", "f3", "1", "a"},
	{"FCALL", "f4", "0"},
	{"FCALL", "nosuch", "0"},
	{"FCALL", "nosuch", "x"},
	{"FCALL", "f1", "x"},
	{"FCALL", "f1", "-1"},
	{"FCALL", "f1", "3", "a"},
	{"FCALL_RO", "f1", "0"},
	{"FCALL_RO", "f3", "1", "a"},
	{"FCALL", "incr2", "2", "a", "b"},
	{"FCALL", "incr2", "2", "{t}a", "{t}b"},
	{"FUNCTION", "LIST", "LIBRARYNAME", "lib2"},
	{"FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib2*"},
	{"FUNCTION", "LIST", "LIBRARYNAME", "nomatch*"},
	{"FUNCTION", "LIST", "LIBRARYNAME"},
	{"FUNCTION", "LIST", "foo"},
	{"FUNCTION", "STATS"},
	{"FUNCTION", "DELETE", "lib3"},
	{"FUNCTION", "DELETE", "lib3"},
	{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib1\nredis.register_function('f9', function() return 9 end)"},
	{"FCALL", "f9", "0"},
	{"FCALL", "f1", "0"},
	{"FUNCTION", "LOAD", "#!lua name=bad\nredis.register_function('f 9', function() return 9 end)"},
	{"FUNCTION", "LOAD", "#!lua name=bad\nredis.register_function('f9x', 1)"},
	{"FUNCTION", "LOAD", "#!lua name=bad\nredis.register_function{function_name='x', callback=function() end, flags={'nope'}}"},
	{"FUNCTION", "LOAD", "#!lua name=bad\nreturn x"},
	{"FUNCTION", "LOAD", "#!lua name=bad x=1\nredis.register_function('z', function() end)"},
	{"FUNCTION", "LOAD", "#!lua name=dup\nredis.register_function('a', function() return 1 end)\nredis.register_function('a', function() return 1 end)"},
	{"FUNCTION", "LOAD", "#!lua name=ok1\nredis.register_function('a')"},
	{"FUNCTION", "LOAD", "#!lua name=ok1\nredis.register_function{function_name='a'}"},
	{"FUNCTION", "FLUSH", "bad"},
	{"FUNCTION", "HELP"},
	{"FUNCTION", "FLUSH"},
	{"FUNCTION", "LIST"},
	{"EVAL", "#!lua\nreturn redis.call('set','k','v')", "0"},
	// Every key of the database, over every shard, the script's own writes
	// included.
	{"EVAL", "redis.call('set', 'ka', '1'); redis.call('set', 'kb', '2'); redis.call('del', 'k'); local k = redis.call('keys', 'k*'); table.sort(k); return {k, redis.call('dbsize')}", "0"},
	{"EVAL", "local r = redis.call('scan', '0', 'count', '1000'); table.sort(r[2]); return r", "0"},
	{"EVAL", "redis.call('del', 'ka'); local k = redis.call('randomkey'); return {redis.call('exists', k), redis.call('dbsize'), redis.call('get', 'kb')}", "0"},
	{"EVAL", "return redis.call('dbsize')", "1", "kb"},
	{"EVAL", "return redis.call('keys', 'nomatch*')", "0"},
	{"EVAL", "redis.call('select', 2); redis.call('set', 'in2', 'x'); return {redis.call('dbsize'), redis.call('keys', '*')}", "0"},
	{"DBSIZE"},
	{"EVAL_RO", "#!lua\nreturn redis.call('get','k')", "0"},
}

// TestScriptsAgainstRedis sends scriptCases, then a random stream of
// commands each sent plain or wrapped in a script (redis.call or
// redis.pcall of the command, keys declared or not, RESP2 or RESP3 inside
// the script), to radish-server on 4 shards and to redis-server, and
// requires byte-identical replies. Commands that visit every shard are
// sent plain: a script runs them on no shard (see shard/script.go).
func TestScriptsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "4")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			a.do(t, []string{"FLUSHALL"})
			b.do(t, []string{"FLUSHALL"})
			for _, args := range scriptCases {
				got, want := a.do(t, args)[0], b.do(t, args)[0]
				if !bytes.Equal(got, want) {
					t.Errorf("%q:\nradish replied %q\nredis  replied %q", args, got, want)
				}
			}
			a.do(t, []string{"FLUSHALL"})
			b.do(t, []string{"FLUSHALL"})
			g := workload.New(rand.New(rand.NewPCG(uint64(proto), 7)))
			r := rand.New(rand.NewPCG(uint64(proto), 8))
			var history []string
			inMulti := false // a script queued in MULTI may use only the keys its EXEC holds
			for sent := 0; sent < 6000; {
				batch := g.Batch(24)
				sent += len(batch)
				sendBatch := make([][]string, len(batch))
				for i, args := range batch {
					switch strings.ToUpper(args[0]) {
					case "MULTI":
						inMulti = true
					case "EXEC", "DISCARD":
						inMulti = false
					}
					sendBatch[i] = args
					if !inMulti {
						sendBatch[i] = wrapInScript(r, args)
					}
				}
				gots, wants := a.do(t, sendBatch...), b.do(t, sendBatch...)
				for i, args := range batch {
					history = append(history, strings.Join(sendBatch[i], " "))
					got, want := workload.Canonical(args, gots[i]), workload.Canonical(args, wants[i])
					if !bytes.Equal(got, want) {
						t.Fatalf("after\n  %s\nradish replied %q\nredis  replied %q",
							strings.Join(history[max(0, len(history)-30):], "\n  "), got, want)
					}
				}
			}
		})
	}
}

// wrapInScript returns args plain or as a script that runs them. Each
// command name gets its own script text (a comment), so a script that
// once spread over shards (a multi-key command) is remembered as such
// without making every other command's script take every shard.
func wrapInScript(r *rand.Rand, args []string) []string {
	spec, errText := command.Resolve(toBytes(args))
	if spec == nil || errText != "" || spec.AllShards || spec.Route != nil || spec.Flags&command.Blocking != 0 ||
		spec.Flags&command.NoScript != 0 {
		return args
	}
	var body string
	switch r.IntN(5) {
	case 0:
		return args
	case 1:
		body = "return redis.pcall(unpack(ARGV))"
	case 2:
		if spec.Name == "lcs" {
			// Its map, made in Lua, comes out in the order of Lua's hash
			// (also flattened for a RESP2 client).
			return args
		}
		body = "redis.setresp(3); return redis.call(unpack(ARGV))"
	default:
		body = "return redis.call(unpack(ARGV))"
	}
	body += " -- " + spec.Name
	out := []string{"EVAL", body, "0"}
	if idx, ok := spec.Keys(toBytes(args), nil); ok && len(idx) > 0 && r.IntN(2) == 0 {
		out = []string{"EVAL", body, "1", args[idx[0]]}
	}
	return append(out, args...)
}

func toBytes(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// numEdges are the texts at the edges of Redis's number grammars:
// string2ll (integers), string2ld/string2d (floats), strtod (score
// ranges) and strtoul (cursors).
var numEdges = []string{
	"0", "1", "-1", "-0", "+1", "+0", "01", "-01", "00", " 1", "1 ", "\t1", "", "-", "+",
	"0x10", "0x1p3", "0x.8", "0x", "1e3", "1E3", "1e", "e1", "1.", ".5", ".", "2.5", "-1.5",
	"1.5e2", "1_0", "inf", "-inf", "+inf", "INF", "Infinity", "-infinity", "infinit", "nan",
	"-nan", "NaN", "nan(1)", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "-9223372036854775809", "18446744073709551615",
	"18446744073709551616", "99999999999999999999", "1e400", "-1e400", "1e-400", "-1e-400",
	"1e-320", "0x1p-1080", "1e4932", "1e5000", "1e-4950", "0.0", "-0.0", "0.1", "1e17",
	"12345678901234567890.5", "abc", "1abc",
}

// numCommands are templates: V is replaced by an edge text. Each case
// runs after numSetup, so every reply depends only on V.
var numCommands = [][]string{
	{"INCRBY", "n", "V"},
	{"DECRBY", "n", "V"},
	{"INCRBYFLOAT", "f", "V"},
	{"INCRBYFLOAT", "n", "V"},
	{"SET", "t", "V"}, {"INCR", "t"},
	{"SET", "t", "V"}, {"INCRBYFLOAT", "t", "1"},
	{"SET", "t", "V"}, {"INCRBYFLOAT", "t", "0"},
	{"SET", "t", "V"}, {"OBJECT", "ENCODING", "t"},
	{"SET", "t", "V"}, {"SADD", "st", "V"}, {"OBJECT", "ENCODING", "st"},
	{"HINCRBY", "h", "i", "V"},
	{"HINCRBYFLOAT", "h", "f", "V"},
	{"HSET", "h", "g", "V"}, {"HINCRBYFLOAT", "h", "g", "1"},
	{"HSET", "h", "g", "V"}, {"HINCRBY", "h", "g", "1"},
	{"EXPIRE", "n", "V"}, {"EXISTS", "n"},
	{"PEXPIRE", "n", "V"}, {"EXISTS", "n"},
	{"EXPIRE", "n", "V", "GT"},
	{"SET", "k", "v", "EX", "V"},
	{"SET", "k", "v", "PX", "V"},
	{"GETEX", "n", "EX", "V"},
	{"SETRANGE", "n", "V", "x"},
	{"GETRANGE", "f", "V", "-1"},
	{"GETRANGE", "f", "0", "V"},
	{"LRANGE", "l", "V", "-1"},
	{"LRANGE", "l", "0", "V"},
	{"LINDEX", "l", "V"},
	{"LSET", "l", "V", "x"},
	{"LPOS", "l", "b", "RANK", "V"},
	{"LPOS", "l", "b", "COUNT", "V"},
	{"LPOS", "l", "b", "MAXLEN", "V"},
	{"LPOP", "l", "V"},
	{"LTRIM", "l", "V", "-1"}, {"LRANGE", "l", "0", "-1"},
	{"BLPOP", "l", "V"},
	{"ZADD", "z", "V", "m"}, {"ZSCORE", "z", "m"},
	{"ZADD", "z", "INCR", "V", "a"},
	{"ZINCRBY", "z", "V", "a"}, {"ZSCORE", "z", "a"},
	{"ZRANGEBYSCORE", "z", "V", "+inf", "WITHSCORES"},
	{"ZRANGEBYSCORE", "z", "(V", "+inf"},
	{"ZRANGEBYSCORE", "z", "-inf", "V"},
	{"ZCOUNT", "z", "V", "(V"},
	{"ZRANGE", "z", "V", "-1"},
	{"ZRANGE", "z", "V", "+inf", "BYSCORE"},
	{"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "V"},
	{"ZUNIONSTORE", "zd", "1", "z", "WEIGHTS", "V"}, {"ZRANGE", "zd", "0", "-1", "WITHSCORES"},
	{"ZREMRANGEBYRANK", "z", "V", "0"},
	{"SINTERCARD", "1", "st", "LIMIT", "V"},
	{"SELECT", "V"}, {"SELECT", "0"},
	{"MOVE", "n", "V"},
	{"COPY", "n", "nc", "DB", "V"},
	{"OBJECT", "FREQ", "V"},
}

// numSetup is the state every case starts from.
var numSetup = [][]string{
	{"FLUSHALL"},
	{"SET", "n", "10"},
	{"SET", "f", "1.5"},
	{"HSET", "h", "i", "5", "f", "2.5"},
	{"RPUSH", "l", "a", "b", "c", "b"},
	{"ZADD", "z", "1", "a", "2.5", "b", "3", "c"},
	{"SADD", "st", "x"},
}

// TestNumbersAgainstRedis sends every command template with every edge
// text to radish-server and redis-server and requires byte-identical
// replies, in RESP2 and RESP3: Radish parses and prints numbers as Redis
// 7.0 does.
func TestNumbersAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "1")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			for _, v := range numEdges {
				batch := slices.Clone(numSetup)
				for _, tmpl := range numCommands {
					args := make([]string, len(tmpl))
					for i, x := range tmpl {
						args[i] = x
						if x == "V" || x == "(V" {
							args[i] = strings.Replace(x, "V", v, 1)
						}
					}
					batch = append(batch, args)
				}
				gots, wants := a.do(t, batch...), b.do(t, batch...)
				for i := len(numSetup); i < len(batch); i++ {
					if !bytes.Equal(gots[i], wants[i]) {
						t.Errorf("%q: radish replied %q, redis %q", batch[i], gots[i], wants[i])
					}
				}
			}
		})
	}
}

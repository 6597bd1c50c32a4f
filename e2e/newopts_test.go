package e2e

import (
	"bytes"
	"strings"
	"testing"
)

// TestNewerOptions: the options of Redis 7.2 and later, and Valkey 8,
// that Debian's redis-server 7.0 lacks, answer as those servers document,
// RESP2 and RESP3, on keys of every shard: ZRANK/ZREVRANK WITHSCORE,
// HSCAN NOVALUES, ZSCAN NOSCORES, and their errors.
func TestNewerOptions(t *testing.T) {
	s := start(t, "--shards", "3")
	cases := []struct {
		args       string
		resp2, rs3 string // rs3 "": as resp2
	}{
		{"ZADD z 1 a 2.5 b", ":2\r\n", ""},
		{"ZADD {t}z 3 c", ":1\r\n", ""},
		{"HSET h f1 v1 f2 v2", ":2\r\n", ""},
		{"ZRANK z b WITHSCORE", "*2\r\n:1\r\n$3\r\n2.5\r\n", "*2\r\n:1\r\n,2.5\r\n"},
		{"ZREVRANK z a WITHSCORE", "*2\r\n:1\r\n$1\r\n1\r\n", "*2\r\n:1\r\n,1\r\n"},
		{"ZRANK {t}z c withscore", "*2\r\n:0\r\n$1\r\n3\r\n", "*2\r\n:0\r\n,3\r\n"},
		{"ZRANK z nope WITHSCORE", "*-1\r\n", "_\r\n"},
		{"ZRANK missing a WITHSCORE", "*-1\r\n", "_\r\n"},
		{"ZRANK z a", ":0\r\n", ""},
		{"ZRANK z a WITHSCORES", "-ERR syntax error\r\n", ""},
		{"ZRANK z a WITHSCORE 1", "-ERR wrong number of arguments for 'zrank' command\r\n", ""},
		{"HSET h2 a 1", ":1\r\n", ""},
		{"HSCAN h2 0 NOVALUES", "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n", ""},
		{"HSCAN h 0 MATCH f1 NOVALUES", "*2\r\n$1\r\n0\r\n*1\r\n$2\r\nf1\r\n", ""},
		{"ZSCAN {t}z 0 NOSCORES", "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nc\r\n", ""},
		{"ZSCAN z 0 NOVALUES", "-ERR NOVALUES option can only be used in HSCAN\r\n", ""},
		{"HSCAN h 0 NOSCORES", "-ERR NOSCORES option can only be used in ZSCAN\r\n", ""},
	}
	for _, proto := range []int{2, 3} {
		c := dialDiff(t, s.addr, proto)
		for _, tc := range cases {
			want := tc.resp2
			if proto == 3 && tc.rs3 != "" {
				want = tc.rs3
			}
			if got := c.do(t, strings.Fields(tc.args))[0]; !bytes.Equal(got, []byte(want)) {
				t.Errorf("RESP%d %s: %q, want %q", proto, tc.args, got, want)
			}
		}
		c.do(t, []string{"FLUSHALL"})
	}
}

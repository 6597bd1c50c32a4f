package e2e

import (
	"fmt"
	"os/exec"
	"testing"
)

// TestWatchWrittenAgainstRedis: a WATCHed key that a command names as a
// write key but leaves as it was (an SMOVE of a member the destination
// holds, a multi-key pop's keys it did not pop from, DEL of a key that is
// not there) keeps EXEC running, as in Redis, which signals a key only
// when the command changed it; one the command did change aborts it. The
// keys of each case share a hash tag: one shard runs the command, the
// connection's or another.
func TestWatchWrittenAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	w := []*psConn{dialPS(t, s.addr, 2), dialPS(t, ref, 2)}
	cases := []struct {
		setup [][]string
		watch string
		cmd   []string
	}{
		{[][]string{{"SADD", "{s}a", "m"}, {"SADD", "{s}b", "m"}}, "{s}b", []string{"SMOVE", "{s}a", "{s}b", "m"}},
		{[][]string{{"SADD", "{s}a", "m"}, {"SADD", "{s}b", "m"}}, "{s}a", []string{"SMOVE", "{s}a", "{s}b", "m"}},
		{[][]string{{"SADD", "{s}a", "m"}, {"SADD", "{s}b", "n"}}, "{s}b", []string{"SMOVE", "{s}a", "{s}b", "m"}},
		{[][]string{{"RPUSH", "{l}a", "x"}, {"RPUSH", "{l}b", "y"}}, "{l}b", []string{"LMPOP", "2", "{l}a", "{l}b", "LEFT"}},
		{[][]string{{"RPUSH", "{l}a", "x"}, {"RPUSH", "{l}b", "y"}}, "{l}a", []string{"LMPOP", "2", "{l}a", "{l}b", "LEFT"}},
		{[][]string{{"RPUSH", "{l}a", "x"}, {"RPUSH", "{l}b", "y"}}, "{l}b", []string{"BLPOP", "{l}a", "{l}b", "0"}},
		{[][]string{{"ZADD", "{z}a", "1", "x"}, {"ZADD", "{z}b", "1", "y"}}, "{z}b", []string{"ZMPOP", "2", "{z}a", "{z}b", "MIN"}},
		{[][]string{{"ZADD", "{z}a", "1", "x"}, {"ZADD", "{z}b", "1", "y"}}, "{z}b", []string{"BZPOPMIN", "{z}a", "{z}b", "0"}},
		{[][]string{{"SET", "{d}a", "1"}}, "{d}b", []string{"DEL", "{d}a", "{d}b"}},
		{[][]string{{"SET", "{d}a", "1"}, {"SET", "{d}b", "1"}}, "{d}b", []string{"DEL", "{d}a", "{d}b"}},
		{[][]string{{"RPUSH", "{m}b", "y"}}, "{m}b", []string{"LMOVE", "{m}a", "{m}b", "LEFT", "LEFT"}},
		{[][]string{{"SET", "{r}a", "1"}}, "{r}b", []string{"RENAME", "{r}a", "{r}b"}},
		{[][]string{{"SADD", "{u}a", "m"}, {"SADD", "{u}d", "m"}}, "{u}d", []string{"SUNIONSTORE", "{u}d", "{u}a"}},
		{[][]string{{"HSET", "h", "f", "v"}}, "h", []string{"HSET", "h", "f", "v"}},
		{[][]string{{"SET", "{o}a", "1"}, {"SET", "{o}b", "1"}}, "{o}b", []string{"MSETNX", "{o}a", "2", "{o}b", "2"}},
		{[][]string{{"SET", "{o}a", "1"}}, "{o}a", []string{"MSET", "{o}a", "1", "{o}b", "1"}},
	}
	for _, tc := range cases {
		label := fmt.Sprintf("WATCH %s, then %q", tc.watch, tc.cmd)
		var got [2]string
		for i, c := range w {
			c.do(t, append([][]string{{"FLUSHALL"}}, tc.setup...)...)
			r := c.do(t, []string{"WATCH", tc.watch}, tc.cmd, []string{"MULTI"}, []string{"PING"}, []string{"EXEC"})
			got[i] = fmt.Sprintf("%q", r)
		}
		if got[0] != got[1] {
			t.Errorf("%s:\nradish %s\nredis  %s", label, got[0], got[1])
		}
	}
}

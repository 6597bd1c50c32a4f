package e2e

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// diffScript sends each command to radish (a) and redis-server (b) and
// requires the same reply once norm has rewritten both (nil: as they
// are).
func diffScript(t *testing.T, a, b *diffConn, norm func(args []string, reply []byte) []byte, cmds ...[]string) {
	t.Helper()
	for _, c := range cmds {
		got, want := a.do(t, c)[0], b.do(t, c)[0]
		if norm != nil {
			got, want = norm(c, got), norm(c, want)
		}
		if string(got) != string(want) {
			t.Fatalf("%q:\nradish %q\nredis  %q", c, got, want)
		}
	}
}

// needRedis starts redis-server with extra arguments.
func needRedis(t *testing.T, extra ...string) string {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	return startRedis(t, redisBin, extra...)
}

// slowNorm rewrites the entries of a SLOWLOG GET reply: what differs by
// nature (id, time, duration, the client's port) becomes 0, an address
// keeps only its host.
func slowNorm(t *testing.T) func([]string, []byte) []byte {
	return func(args []string, reply []byte) []byte {
		if len(args) < 2 || !strings.EqualFold(args[0], "slowlog") || !strings.EqualFold(args[1], "get") || reply[0] != '*' {
			return reply
		}
		v, _, err := resp.ReadReply(reply)
		if err != nil {
			t.Fatalf("%q: %v", reply, err)
		}
		for i := range v.Elems {
			e := v.Elems[i].Elems
			for j := range 3 {
				e[j].Int = 0
			}
			if h, _, ok := strings.Cut(string(e[4].Str), ":"); ok {
				e[4].Str = []byte(h)
			}
		}
		w := resp.Writer{Proto: 3}
		resp.AppendValue(&w, v)
		return w.B
	}
}

// TestSlowlogAgainstRedis logs every command (slowlog-log-slower-than
// 0) on radish (three shards) and on redis-server and compares SLOWLOG
// GET's entries (arguments truncated as Redis does, the client's name and
// host; a command over several shards is one entry), LEN, trimming to
// slowlog-max-len, RESET and the errors, RESP2 and RESP3.
func TestSlowlogAgainstRedis(t *testing.T) {
	ref := needRedis(t)
	s := start(t, "--shards", "3")
	long := strings.Repeat("v", 300)
	many := []string{"RPUSH", "list"}
	for i := range 40 {
		many = append(many, strconv.Itoa(i))
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			diffScript(t, a, b, slowNorm(t),
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "0"},
				[]string{"CONFIG", "SET", "slowlog-max-len", "128"},
				[]string{"SLOWLOG", "RESET"},
				[]string{"CLIENT", "SETNAME", "slow"},
				[]string{"SET", "k", long},
				[]string{"MSET", "a", "1", "b", "2", "c", "3", "d", "4"},
				many,
				[]string{"GET", "nosuch"},
				[]string{"SLOWLOG", "GET", "3"},
				[]string{"SLOWLOG", "GET"},
				[]string{"SLOWLOG", "LEN"},
				[]string{"SLOWLOG", "GET", "-1"},
				[]string{"SLOWLOG", "GET", "0"},
				[]string{"SLOWLOG", "GET", "-2"},
				[]string{"SLOWLOG", "GET", "x"},
				[]string{"SLOWLOG", "GET", "1", "2"},
				[]string{"SLOWLOG", "LEN", "x"},
				[]string{"SLOWLOG", "NOSUCH"},
				[]string{"SLOWLOG", "HELP"},
				[]string{"CONFIG", "SET", "slowlog-max-len", "3"},
				[]string{"PING"},
				[]string{"SLOWLOG", "LEN"},
				[]string{"SLOWLOG", "GET", "-1"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "-1"},
				[]string{"SLOWLOG", "RESET"},
				[]string{"PING"},
				[]string{"SLOWLOG", "LEN"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "-2"},
				[]string{"CONFIG", "SET", "slowlog-max-len", "-1"},
				[]string{"CONFIG", "GET", "slowlog-max-len"},
				[]string{"CONFIG", "GET", "slowlog-log-slower-than"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "10000", "slowlog-max-len", "128"},
			)
		})
	}
}

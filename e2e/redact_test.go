package e2e

import (
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestRedactedAgainstRedis: passwords never show in MONITOR or SLOWLOG:
// AUTH's, HELLO's, MIGRATE's AUTH and AUTH2, ACL SETUSER's user and
// rules, CONFIG SET of a sensitive parameter each read "(redacted)" where
// redis-server's do, and the other arguments as there.
func TestRedactedAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	cmds := [][]string{
		{"MIGRATE", "127.0.0.1", "1", "k", "0", "10", "COPY", "AUTH", "secret1"},
		{"MIGRATE", "127.0.0.1", "1", "", "0", "10", "AUTH2", "user", "secret2", "KEYS", "a", "b"},
		{"CONFIG", "SET", "masterauth", "secret3", "maxmemory-samples", "5"},
		{"CONFIG", "SET", "masterauth", ""},
		{"ACL", "SETUSER", "bob", "on", ">secret4"},
		{"ACL", "DELUSER", "bob"},
		{"HELLO", "2", "AUTH", "default", "secret5", "SETNAME", "x"},
		{"AUTH", "secret6"},
		{"AUTH", "someone", "secret7"},
		{"SET", "k", "v"},
	}
	monLine := regexp.MustCompile(`^\+[0-9.]+ \[[0-9]+ [^\]]*\] (.*)\r\n$`)
	var seen [2][2][]string // per server: MONITOR's lines, SLOWLOG's entries
	for i, addr := range []string{start(t).addr, startRedis(t, redisBin)} {
		c := dialDiff(t, addr, 2)
		c.do(t, []string{"CONFIG", "SET", "slowlog-log-slower-than", "0"}, []string{"SLOWLOG", "RESET"})
		mon := dialDiff(t, addr, 2)
		mon.do(t, []string{"MONITOR"})
		for _, cmd := range cmds {
			c.do(t, cmd)
		}
		mon.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for len(seen[i][0]) == 0 || !strings.HasPrefix(seen[i][0][len(seen[i][0])-1], `"SET"`) {
			l, err := mon.r.ReadString('\n')
			if err != nil {
				t.Fatalf("MONITOR: %v after %q", err, seen[i][0])
			}
			if m := monLine.FindStringSubmatch(l); m != nil {
				seen[i][0] = append(seen[i][0], m[1])
			}
		}
		v, _, err := resp.ReadReply(c.do(t, []string{"SLOWLOG", "GET", "-1"})[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range v.Elems {
			var args []string
			for _, a := range e.Elems[3].Elems {
				args = append(args, string(a.Str))
			}
			if args[0] != "SLOWLOG" && args[0] != "CONFIG" || len(args) > 2 && args[2] == "masterauth" {
				seen[i][1] = append(seen[i][1], strings.Join(args, " "))
			}
		}
	}
	for j, what := range []string{"MONITOR", "SLOWLOG"} {
		if !reflect.DeepEqual(seen[0][j], seen[1][j]) {
			t.Errorf("%s:\nradish %q\nredis  %q", what, seen[0][j], seen[1][j])
		}
		if s := strings.Join(seen[0][j], " "); strings.Contains(s, "secret") {
			t.Errorf("%s shows a password: %s", what, s)
		}
	}
}

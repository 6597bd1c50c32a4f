package e2e

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestErrorStatsAgainstRedis sends the same failing and refused commands
// to redis-server and to radish-server (three shards) after CONFIG
// RESETSTAT, and compares INFO errorstats, total_error_replies and each
// command's calls, rejected_calls and failed_calls (a command over keys
// of several shards, MSET and DBSIZE here, is one call). One known
// difference is left out: CONFIG RESETSTAT, which Redis counts after it
// cleared the counters, is cleared with them.
func TestErrorStatsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	cmds := [][]string{
		{"SET", "s", "v"}, {"RPUSH", "l", "x"}, {"CONFIG", "RESETSTAT"},
		{"LPUSH", "s", "x"}, {"INCR", "s"}, {"INCR", "s"}, {"GET"}, {"NOSUCH", "x"}, {"SET", "a", "b", "c"},
		{"HGET", "l", "f"}, {"GET", "s"}, {"MSET", "k1", "1", "k2", "2", "k3", "3"}, {"INCRBY", "k1", "x"},
		{"OBJECT", "NOSUCH"}, {"SELECT", "99"}, {"EXPIRE", "k2", "x"}, {"DBSIZE"}, {"MGET", "k1", "k2", "k3", "s"},
	}
	for _, c := range cmds {
		if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
			t.Fatalf("%q: radish %q, redis %q", c, got, want)
		}
	}
	stats := func(d *diffConn) []string {
		var out []string
		for _, sec := range []string{"errorstats", "commandstats", "stats"} {
			info := string(bulk(t, d.do(t, []string{"INFO", sec})[0]))
			for _, line := range strings.Split(info, "\r\n") {
				switch {
				case strings.HasPrefix(line, "errorstat_"), strings.HasPrefix(line, "total_error_replies:"):
					out = append(out, line)
				case strings.HasPrefix(line, "cmdstat_info:"), strings.HasPrefix(line, "cmdstat_config|resetstat:"):
				case strings.HasPrefix(line, "cmdstat_"):
					out = append(out, regexp.MustCompile(`,usec=[^,]*,usec_per_call=[^,]*`).ReplaceAllString(line, ""))
				}
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := stats(a), stats(b); !slices.Equal(got, want) {
		t.Errorf("radish:\n%s\nredis:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

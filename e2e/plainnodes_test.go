package e2e

import (
	"bytes"
	"strings"
	"testing"
)

// TestPlainNodesAgainstRedis: DEBUG QUICKLIST-PACKED-THRESHOLD as Redis
// 7.0 reads it, and lists whose large elements are plain nodes, as
// Valkey's list tests drive them: pushed (DUMP byte-equal to
// redis-server's), set, inserted, removed, found, ranged, trimmed and
// moved with the same replies; a DUMP of either restores in the other
// with the same contents, and DEBUG RELOAD keeps them.
func TestPlainNodesAgainstRedis(t *testing.T) {
	ref := needRedis(t, "--enable-debug-command", "yes")
	s := start(t, "--shards", "2")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	same := func(cmd ...string) []byte {
		t.Helper()
		got, want := a.do(t, cmd)[0], b.do(t, cmd)[0]
		if !bytes.Equal(got, want) {
			t.Errorf("%.80q: %.200q, redis %.200q", cmd, got, want)
		}
		return got
	}
	for _, arg := range []string{"5gb", "4294967297", "abc", "1.5k", "-1", "4gb"} {
		same("DEBUG", "QUICKLIST-PACKED-THRESHOLD", arg)
	}
	same("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100", "200")
	same("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0")
	same("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100")
	big := func(c string, n int) string { return strings.Repeat(c, n) }
	same("RPUSH", "l", "a", "b", big("x", 200), "c", big("y", 300), big("v", 100), "d", big("u", 99))
	same("DUMP", "l")
	same("RPUSH", "l", big("w", 5000), "e")
	same("DUMP", "l")
	for _, cmd := range [][]string{
		{"LSET", "l", "1", big("z", 150)},
		{"LSET", "l", "2", "small"},
		{"LINSERT", "l", "BEFORE", "c", big("q", 120)},
		{"LINSERT", "l", "AFTER", big("y", 300), "after"},
		{"LREM", "l", "1", "a"},
		{"LPOS", "l", big("q", 120)},
		{"LPOS", "l", big("z", 150), "RANK", "-1"},
		{"LINDEX", "l", "3"},
		{"LRANGE", "l", "0", "-1"},
		{"LRANGE", "l", "-3", "-2"},
		{"LPUSH", "l", big("h", 400), "head"},
		{"LTRIM", "l", "1", "-2"},
		{"LMOVE", "l", "l2", "LEFT", "RIGHT"},
		{"LMOVE", "l", "l2", "RIGHT", "LEFT"},
		{"RPOP", "l"},
		{"LLEN", "l"},
		{"LRANGE", "l", "0", "-1"},
		{"LRANGE", "l2", "0", "-1"},
	} {
		same(cmd...)
	}
	// Each side's DUMP restores in the other.
	ours, theirs := bulk(t, a.do(t, []string{"DUMP", "l"})[0]), bulk(t, b.do(t, []string{"DUMP", "l"})[0])
	a.do(t, []string{"RESTORE", "fromredis", "0", string(theirs)})
	b.do(t, []string{"RESTORE", "fromredis", "0", string(ours)})
	want := same("LRANGE", "l", "0", "-1")
	for _, d := range []*diffConn{a, b} {
		if got := d.do(t, []string{"LRANGE", "fromredis", "0", "-1"})[0]; !bytes.Equal(got, want) {
			t.Errorf("restored: %.200q, want %.200q", got, want)
		}
	}
	// 1b: every element is a plain node.
	same("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1b")
	same("RPUSH", "m", "1", "22", big("k", 40), "")
	same("DUMP", "m")
	same("DEBUG", "RELOAD")
	same("LRANGE", "l", "0", "-1")
	same("LRANGE", "m", "0", "-1")
	same("DUMP", "m")
}

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPublishReplicated: as Redis 7, a primary propagates PUBLISH and
// SPUBLISH to its replicas, whose subscribers (on every shard of a radish
// replica, and on a redis-server replica) get every message in the
// publisher's order, and never writes them to its AOF.
func TestPublishReplicated(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	dir := t.TempDir()
	primary := startDir(t, dir, "--shards", "3", "--appendonly", "yes")
	_, _, subs := replicasWithSubscribers(t, primary.addr, redisBin)
	const n = 20
	pub := dialPS(t, primary.addr, 2)
	cmds := [][]string{{"SET", "k", "v"}}
	for i := range n {
		cmds = append(cmds, []string{"PUBLISH", "ch", fmt.Sprint("m", i)}, []string{"spublish", "sch", fmt.Sprint("s", i)})
	}
	for i, r := range pub.do(t, cmds...)[1:] {
		if string(r) != ":0\r\n" {
			t.Fatalf("reply %d on the primary: %q, want 0 receivers", i, r)
		}
	}

	for k, s := range subs {
		var got [2][]string
		got[0], got[1] = messages(t, k, s, n, n)
		for i := range n {
			if got[0][i] != fmt.Sprint("m", i) || got[1][i] != fmt.Sprint("s", i) {
				t.Fatalf("subscriber %d got %q and %q", k, got[0], got[1])
			}
		}
	}

	// The SET reaches the AOF; no PUBLISH does.
	var aof []byte
	waitFor(t, "the SET in the AOF", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
		aof = nil
		for _, f := range files {
			b, _ := os.ReadFile(f)
			aof = append(aof, b...)
		}
		return bytes.Contains(aof, []byte("$3\r\nSET\r\n$1\r\nk\r\n"))
	})
	if low := bytes.ToLower(aof); bytes.Contains(low, []byte("publish")) {
		t.Fatalf("the AOF has a PUBLISH:\n%q", aof)
	}
	if got := strings.TrimSpace(primary.cli("WAIT", "2", "10000")); got != "2" {
		t.Fatalf("WAIT 2: %s", got)
	}
}

// replicasWithSubscribers starts two replicas of the primary at paddr: a
// radish-server of two shards and a redis-server (redisBin, with extra
// arguments), waits for their links, and gives five subscribers of
// channel ch and shard channel sch: four on the radish replica (spread
// over its shards) and one on the redis-server.
func replicasWithSubscribers(t *testing.T, paddr, redisBin string, extra ...string) (*server, string, []*psConn) {
	t.Helper()
	ph, pp := hostPort(paddr)
	a := start(t, "--shards", "2", "--replicaof", ph+" "+pp)
	rr := startRedis(t, redisBin, append(extra, "--replicaof", ph+" "+pp)...)
	waitFor(t, "the replicas' links", func() bool {
		return infoOf(a.cli("INFO", "replication"), "master_link_status") == "up" &&
			infoOf(rcli(t, rr, "INFO", "replication"), "master_link_status") == "up"
	})
	var subs []*psConn
	for range 4 {
		subs = append(subs, dialPS(t, a.addr, 2))
	}
	subs = append(subs, dialPS(t, rr, 2))
	for _, s := range subs {
		s.do(t, []string{"SUBSCRIBE", "ch"}, []string{"SSUBSCRIBE", "sch"})
	}
	return a, rr, subs
}

// messages reads subscriber k's pushes until it has at least n messages
// and ns shard messages, and returns their payloads in order; anything
// else, or nothing within 10 s, fails the test.
func messages(t *testing.T, k int, s *psConn, n, ns int) (msgs, smsgs []string) {
	t.Helper()
	s.c.SetDeadline(time.Now().Add(10 * time.Second))
	for len(msgs) < n || len(smsgs) < ns {
		f := string(s.frame(t))
		parts := strings.Split(f, "\r\n")
		if len(parts) < 7 {
			t.Fatalf("subscriber %d: %q", k, f)
		}
		switch parts[2] {
		case "message":
			msgs = append(msgs, parts[6])
		case "smessage":
			smsgs = append(smsgs, parts[6])
		default:
			t.Fatalf("subscriber %d: %q", k, f)
		}
	}
	return msgs, smsgs
}

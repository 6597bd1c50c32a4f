package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestBacklogTTLAgainstRedis: with repl-backlog-ttl 1, a primary whose
// one replica left (REPLICAOF NO ONE) frees its backlog within a couple
// of seconds, as redis-server does: repl_backlog_active:0, no history, a
// new replication ID with no replid2, and an offset a write no longer
// moves; the replica coming back cannot continue (sync_partial_err) and
// takes a full sync, which starts the backlog again.
func TestBacklogTTLAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	rp := startRedis(t, redisBin, "--repl-backlog-ttl", "1", "--repl-diskless-sync-delay", "0")
	rr := startRedis(t, redisBin)
	redis := backlogTTLRun(t, rp, rr)
	p := start(t, "--shards", "2", "--repl-backlog-ttl", "1")
	r := start(t, "--shards", "2")
	radish := backlogTTLRun(t, p.addr, r.addr)
	if radish != redis {
		t.Errorf("radish:\n%s\nredis-server:\n%s", radish, redis)
	}
}

// backlogTTLRun runs the test's steps on primary and replica and returns
// what it saw.
func backlogTTLRun(t *testing.T, primary, replica string) string {
	var b strings.Builder
	info := func(addr string) string { return rcli(t, addr, "INFO", "replication") }
	stats := func() string { return rcli(t, primary, "INFO", "stats") }
	host, port := hostPort(primary)
	b.WriteString("CONFIG GET: " + strings.ReplaceAll(rcli(t, primary, "CONFIG", "GET", "repl-backlog-ttl"), "\n", " ") + "\n")
	rcli(t, replica, "REPLICAOF", host, port)
	waitFor(t, "the replica online", func() bool { return strings.Contains(info(primary), "state=online") })
	rcli(t, primary, "SET", "k", "v")
	waitFor(t, "the write on the replica", func() bool { return rcli(t, replica, "GET", "k") == "v" })
	before := info(primary)
	b.WriteString("with a replica: repl_backlog_active:" + infoOf(before, "repl_backlog_active") + "\n")
	rcli(t, replica, "REPLICAOF", "NO", "ONE")
	waitFor(t, "the backlog freed", func() bool { return infoOf(info(primary), "repl_backlog_active") == "0" })
	after := info(primary)
	for _, f := range []string{"connected_slaves", "master_replid2", "second_repl_offset", "repl_backlog_first_byte_offset",
		"repl_backlog_histlen"} {
		b.WriteString("freed: " + f + ":" + infoOf(after, f) + "\n")
	}
	if infoOf(after, "master_replid") == infoOf(before, "master_replid") {
		b.WriteString("freed: the replication ID is the same\n")
	}
	if infoOf(after, "master_repl_offset") != infoOf(before, "master_repl_offset") {
		b.WriteString("freed: the offset moved\n")
	}
	rcli(t, primary, "SET", "k", "w")
	if off := infoOf(info(primary), "master_repl_offset"); off != infoOf(after, "master_repl_offset") {
		b.WriteString("freed: a write moved the offset to " + off + "\n")
	}
	full, perr := infoOf(stats(), "sync_full"), infoOf(stats(), "sync_partial_err")
	rcli(t, replica, "REPLICAOF", host, port)
	waitFor(t, "the replica online again", func() bool {
		return strings.Contains(info(primary), "state=online") && rcli(t, replica, "GET", "k") == "w"
	})
	b.WriteString("back: repl_backlog_active:" + infoOf(info(primary), "repl_backlog_active") + "\n")
	b.WriteString("back: sync_full +" + delta(full, infoOf(stats(), "sync_full")) +
		", sync_partial_err +" + delta(perr, infoOf(stats(), "sync_partial_err")) + "\n")
	return b.String()
}

func delta(a, b string) string {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return strconv.Itoa(y - x)
}

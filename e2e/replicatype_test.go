package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestReplicaClientType: a replica's connection to its primary is a
// client of type replica, as Redis shows it: CLIENT LIST gives it flags=S,
// CLIENT LIST TYPE replica (or slave) lists exactly the replicas (a
// radish replica on flows, a redis-server, redis-cli --replica), and
// CLIENT KILL TYPE replica cuts them all; the replicas then come back with
// a partial resync and the writes made since reach them. The same
// commands on a redis-server primary for what Redis answers.
func TestReplicaClientType(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	lines := func(list string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	checkList := func(t *testing.T, addr string, n int) {
		t.Helper()
		for _, typ := range []string{"replica", "slave"} {
			got := lines(rcli(t, addr, "CLIENT", "LIST", "TYPE", typ))
			if len(got) != n {
				t.Fatalf("CLIENT LIST TYPE %s: %d lines, want %d:\n%s", typ, len(got), n, strings.Join(got, "\n"))
			}
			for _, l := range got {
				if !strings.Contains(l, " flags=S ") {
					t.Fatalf("CLIENT LIST TYPE %s: %s, want flags=S", typ, l)
				}
			}
		}
		for _, l := range lines(rcli(t, addr, "CLIENT", "LIST", "TYPE", "normal")) {
			if strings.Contains(l, " flags=S ") {
				t.Fatalf("CLIENT LIST TYPE normal lists a replica: %s", l)
			}
		}
	}

	t.Run("redis", func(t *testing.T) {
		pr := startRedis(t, redisBin, "--repl-diskless-sync-delay", "0")
		ph, pp := hostPort(pr)
		rr := startRedis(t, redisBin, "--replicaof", ph+" "+pp)
		waitFor(t, "the replica's link", func() bool {
			return infoOf(rcli(t, rr, "INFO", "replication"), "master_link_status") == "up"
		})
		checkList(t, pr, 1)
		if got := rcli(t, pr, "CLIENT", "KILL", "TYPE", "slave"); got != "1" {
			t.Fatalf("CLIENT KILL TYPE slave: %s, want 1", got)
		}
	})

	t.Run("radish", func(t *testing.T) {
		primary := start(t, "--shards", "3")
		ph, pp := hostPort(primary.addr)
		a := start(t, "--shards", "2", "--replicaof", ph+" "+pp)
		rr := startRedis(t, redisBin, "--enable-debug-command", "yes", "--replicaof", ph+" "+pp)
		cli := exec.Command("redis-cli", "-p", strconv.Itoa(primary.port), "--replica")
		if err := cli.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.Process.Kill(); cli.Wait() })
		waitFor(t, "the replicas' links", func() bool {
			return infoOf(a.cli("INFO", "replication"), "master_link_status") == "up" &&
				infoOf(rcli(t, rr, "INFO", "replication"), "master_link_status") == "up" &&
				infoOf(primary.cli("INFO", "replication"), "connected_slaves") == "3"
		})
		primary.cli("SET", "before", "1")
		waitSame(t, primary.addr, a.addr, rr)
		checkList(t, primary.addr, 3)
		info := primary.cli("INFO", "stats")
		full, partial := infoOf(info, "sync_full"), infoOf(info, "sync_partial_ok")

		if got := strings.TrimSpace(primary.cli("CLIENT", "KILL", "TYPE", "replica")); got != "3" {
			t.Fatalf("CLIENT KILL TYPE replica: %s, want 3", got)
		}
		primary.cli("SET", "after", "1")
		// The two replicas come back with a partial resync each;
		// redis-cli --replica ends with its link.
		waitFor(t, "the replicas' partial resyncs", func() bool {
			p, _ := strconv.Atoi(infoOf(primary.cli("INFO", "stats"), "sync_partial_ok"))
			was, _ := strconv.Atoi(partial)
			return p == was+2
		})
		waitSame(t, primary.addr, a.addr, rr)
		if f := infoOf(primary.cli("INFO", "stats"), "sync_full"); f != full {
			t.Fatalf("sync_full %s after the kill, was %s", f, full)
		}
		waitFor(t, "two replicas listed", func() bool {
			return len(lines(primary.cli("CLIENT", "LIST", "TYPE", "replica"))) == 2
		})
		checkList(t, primary.addr, 2)
	})
}

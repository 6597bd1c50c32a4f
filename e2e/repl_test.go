package e2e

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

// loader writes random batches of every type (internal/workload: strings,
// lists, hashes, sets, sorted sets, bitmaps, HyperLogLogs, geo, MULTI/EXEC,
// MSET and RENAME across shards, SWAPDB, MOVE, FLUSHDB, TTLs, blocking
// pops) and keys with short TTLs on several connections at once: every
// connection's batch is sent before any reply is read.
type loader struct {
	conns []net.Conn
	rs    []*bufio.Reader
	gens  []*workload.Gen
	n     int
}

func newLoader(t *testing.T, addr string, conns int, seed uint64) *loader {
	l := &loader{}
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		l.conns = append(l.conns, c)
		l.rs = append(l.rs, bufio.NewReader(c))
		l.gens = append(l.gens, workload.New(rand.New(rand.NewPCG(seed, uint64(i)))))
	}
	return l
}

// round sends one batch on every connection, then reads every reply.
func (l *loader) round(t *testing.T) {
	t.Helper()
	counts := make([]int, len(l.conns))
	for i, c := range l.conns {
		batch := l.gens[i].Batch(20)
		l.n++
		batch = append(batch, []string{"SET", "short:" + strconv.Itoa(l.n%50), "v", "PX", strconv.Itoa(50 + l.n%300)},
			[]string{"HSET", "big:" + strconv.Itoa(l.n%7), "f" + strconv.Itoa(l.n), strings.Repeat("x", l.n%200)})
		var w resp.Writer
		for _, args := range batch {
			w.Array(len(args))
			for _, a := range args {
				w.BulkString(a)
			}
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := c.Write(w.B); err != nil {
			t.Fatal(err)
		}
		counts[i] = len(batch)
	}
	for i, r := range l.rs {
		for range counts[i] {
			if err := skipRESP(r); err != nil {
				t.Fatalf("load: reading a reply: %v", err)
			}
		}
	}
}

// skipRESP reads one RESP2 reply.
func skipRESP(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	switch line[0] {
	case '$':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n >= 0 {
			_, err = r.Discard(n + 2)
		}
	case '*':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		for range max(n, 0) {
			if err = skipRESP(r); err != nil {
				return err
			}
		}
	}
	return err
}

// infoOf returns one field of INFO's text, "" when absent.
func infoOf(info, name string) string {
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+":"); ok {
			return v
		}
	}
	return ""
}

// rcli runs redis-cli against addr.
func rcli(t *testing.T, addr string, args ...string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command("redis-cli", append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// digests returns DEBUG DIGEST (of every database).
func digests(t *testing.T, addr string) string { return rcli(t, addr, "DEBUG", "DIGEST") }

// waitSame waits until DEBUG DIGEST is the same on every server; the
// replicas may still be applying the stream's last commands, or the
// primary expiring keys whose DELs follow.
func waitSame(t *testing.T, primary string, replicas ...string) {
	t.Helper()
	var want, got, at string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		want = digests(t, primary)
		same := true
		for _, r := range replicas {
			if got = digests(t, r); got != want {
				same, at = false, r
				break
			}
		}
		if same {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("DEBUG DIGEST differs: primary %s, replica %s %s", want, at, got)
		}
	}
}

// TestReplicaOfRedis: radish (2 shards, then 3) replicates a redis-server
// primary under a write load of every type, which runs during the full
// sync (diskless with an EOF mark, then from a file with a length) and
// after it; the primary cuts the link once (CLIENT KILL TYPE replica),
// the replica continues with a partial resync. After the load, WAIT 1
// counts the replica and the digests are equal; writes to the replica
// are refused; REPLICAOF NO ONE promotes it with its data and the
// primary's replication ID as master_replid2.
func TestReplicaOfRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	for _, tc := range []struct {
		shards   int
		diskless string
	}{{2, "yes"}, {3, "no"}} {
		t.Run(fmt.Sprintf("shards=%d/diskless=%s", tc.shards, tc.diskless), func(t *testing.T) {
			primary := startRedis(t, redisBin, "--enable-debug-command", "yes", "--repl-diskless-sync", tc.diskless,
				"--repl-diskless-sync-delay", "0")
			rcli(t, primary, "DEBUG", "POPULATE", "20000", "pop", "100")
			rcli(t, primary, "-n", "1", "DEBUG", "POPULATE", "3000", "one")
			load := newLoader(t, primary, 4, uint64(tc.shards))
			for range 20 {
				load.round(t)
			}
			host, port, _ := net.SplitHostPort(primary)
			s := start(t, "--shards", strconv.Itoa(tc.shards), "--replicaof", host+" "+port)
			until := time.Now().Add(3 * time.Second)
			cut := false
			for time.Now().Before(until) {
				load.round(t)
				if !cut && infoOf(s.cli("INFO", "replication"), "master_link_status") == "up" &&
					time.Until(until) < 1500*time.Millisecond {
					rcli(t, primary, "CLIENT", "KILL", "TYPE", "replica")
					cut = true
				}
			}
			if !cut {
				t.Fatal("the replica's link never came up during the load")
			}
			waitFor(t, "the link back up", func() bool {
				return infoOf(s.cli("INFO", "replication"), "master_link_status") == "up"
			})
			// The short TTLs are past: KEYS expires them on the primary,
			// whose DELs reach the replica, so that a promoted replica
			// has no expired key left to delete on its own.
			time.Sleep(400 * time.Millisecond)
			rcli(t, primary, "-n", "0", "KEYS", "short:*")
			rcli(t, primary, "-n", "1", "KEYS", "short:*")
			if got := rcli(t, primary, "WAIT", "1", "10000"); got != "1" {
				t.Errorf("WAIT 1 10000 on the primary: %s", got)
			}
			waitSame(t, primary, s.addr)
			stats := rcli(t, primary, "INFO", "stats")
			if full, ok := infoOf(stats, "sync_full"), infoOf(stats, "sync_partial_ok"); full != "1" || ok == "0" {
				t.Errorf("primary: sync_full %s (want 1), sync_partial_ok %s (want at least 1)", full, ok)
			}
			info := s.cli("INFO", "replication")
			for f, want := range map[string]string{"role": "slave", "master_host": host, "master_port": port,
				"master_link_status": "up", "master_sync_in_progress": "0", "slave_read_only": "1",
				"master_replid": infoOf(rcli(t, primary, "INFO", "replication"), "master_replid")} {
				if got := infoOf(info, f); got != want {
					t.Errorf("INFO replication %s: %q, want %q", f, got, want)
				}
			}
			if got := s.cli("SET", "k", "v"); strings.TrimSpace(got) != "READONLY You can't write against a read only replica." {
				t.Errorf("SET on the replica: %q", got)
			}
			if got := s.cli("REPLICAOF", host, port); strings.TrimSpace(got) != "OK Already connected to specified master" {
				t.Errorf("REPLICAOF the same primary again: %q", got)
			}
			role := strings.Fields(s.cli("ROLE"))
			if len(role) != 5 || role[0] != "slave" || role[1] != host || role[2] != port || role[3] != "connected" {
				t.Errorf("ROLE: %q", role)
			}
			if got := s.cli("CLIENT", "LIST", "TYPE", "master"); strings.Count(got, "flags=M ") != 1 {
				t.Errorf("CLIENT LIST TYPE master: %q", got)
			}
			if got := s.cli("HELLO", "3"); !strings.Contains(got, "role replica\n") {
				t.Errorf("HELLO 3 on the replica: %q", got)
			}
			primaryInfo := rcli(t, primary, "INFO", "replication")
			if got := strings.TrimSpace(s.cli("REPLICAOF", "NO", "ONE")); got != "OK" {
				t.Fatalf("REPLICAOF NO ONE: %q", got)
			}
			info = s.cli("INFO", "replication")
			if infoOf(info, "role") != "master" || infoOf(info, "master_replid2") != infoOf(primaryInfo, "master_replid") ||
				infoOf(info, "master_repl_offset") != infoOf(primaryInfo, "master_repl_offset") {
				t.Errorf("after the promotion:\n%s\nthe primary's:\n%s", info, primaryInfo)
			}
			if d, want := digests(t, s.addr), digests(t, primary); d != want {
				t.Errorf("after the promotion DEBUG DIGEST %s, the old primary's %s", d, want)
			}
			if got := strings.TrimSpace(s.cli("SET", "k", "v")); got != "OK" {
				t.Errorf("SET on the promoted replica: %q", got)
			}
		})
	}
}

// TestReplicaExpiryAndStaleData: a replica hides a key past its TTL
// without deleting it, until the primary's DEL; with
// replica-serve-stale-data no, a replica whose primary is down answers
// -MASTERDOWN but to stale-safe commands.
func TestReplicaExpiryAndStaleData(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	primary := startRedis(t, redisBin, "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0")
	rcli(t, primary, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	host, port, _ := net.SplitHostPort(primary)
	s := start(t, "--shards", "2", "--replicaof", host+" "+port, "--replica-serve-stale-data", "no")
	waitFor(t, "the link up", func() bool { return infoOf(s.cli("INFO", "replication"), "master_link_status") == "up" })
	rcli(t, primary, "SET", "gone", "v", "PX", "100")
	rcli(t, primary, "SET", "kept", "v")
	rcli(t, primary, "WAIT", "1", "5000")
	waitFor(t, "both keys replicated", func() bool { return strings.TrimSpace(s.cli("DBSIZE")) == "2" })
	time.Sleep(200 * time.Millisecond)
	if got := strings.TrimSpace(s.cli("GET", "gone")); got != "" {
		t.Errorf("GET of an expired key on the replica: %q", got)
	}
	if got := strings.TrimSpace(s.cli("DBSIZE")); got != "2" {
		t.Errorf("DBSIZE before the primary's DEL: %s, want 2 (the replica deletes nothing itself)", got)
	}
	rcli(t, primary, "GET", "gone") // the primary expires it and sends DEL
	waitFor(t, "the primary's DEL", func() bool { return strings.TrimSpace(s.cli("DBSIZE")) == "1" })

	rcli(t, primary, "SHUTDOWN", "NOSAVE")
	waitFor(t, "the link down", func() bool { return infoOf(s.cli("INFO", "replication"), "master_link_status") == "down" })
	want := "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	for _, args := range [][]string{{"GET", "kept"}, {"PING"}, {"DBSIZE"}} {
		if got := strings.TrimSpace(s.cli(args...)); got != want {
			t.Errorf("%v while the primary is down: %q", args, got)
		}
	}
	if got := infoOf(s.cli("INFO", "replication"), "role"); got != "slave" {
		t.Errorf("INFO while the primary is down: role %q", got)
	}
	if got := strings.TrimSpace(s.cli("CONFIG", "SET", "replica-serve-stale-data", "yes")); got != "OK" {
		t.Fatal(got)
	}
	if got := strings.TrimSpace(s.cli("GET", "kept")); got != "v" {
		t.Errorf("GET with replica-serve-stale-data yes: %q", got)
	}
}

// TestReplicationMetrics: a radish primary with a redis-server replica
// exports its offset and the replica's acknowledged offset and lag; the
// radish side of a replica says it is one.
func TestReplicationMetrics(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	mp := freePort(t)
	s := start(t, "--shards", "2", "--metrics-port", strconv.Itoa(mp))
	s.cli("SET", "k", "v")
	replica := startRedis(t, redisBin, "--replicaof", "127.0.0.1", strconv.Itoa(s.port))
	waitFor(t, "the replica online", func() bool { return strings.Contains(s.cli("INFO", "replication"), "state=online") })
	_, rport, _ := net.SplitHostPort(replica)
	body := scrape(t, mp)
	for _, want := range []string{"radish_replication_replica 0", "radish_replication_offset_bytes ",
		`radish_replication_replica_offset_bytes{replica="127.0.0.1:` + rport + `"}`,
		`radish_replication_replica_lag_seconds{replica="127.0.0.1:` + rport + `"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("the primary's metrics have no %q", want)
		}
	}
	mp2 := freePort(t)
	r := start(t, "--shards", "2", "--metrics-port", strconv.Itoa(mp2), "--replicaof", "127.0.0.1 "+strconv.Itoa(s.port))
	waitFor(t, "the radish replica's link", func() bool {
		return infoOf(r.cli("INFO", "replication"), "master_link_status") == "up"
	})
	if body := scrape(t, mp2); !strings.Contains(body, "radish_replication_replica 1") {
		t.Errorf("the replica's metrics do not say it is one")
	}
}

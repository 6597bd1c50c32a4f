package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFullSyncFlows: radish replicas of 2, 4 and 5 shards of a 4-shard
// radish primary that asks for a password take their full syncs on
// flows, one connection per primary shard (the primary's log says so),
// under a write load: the keys of every database, their TTLs and the
// FUNCTION libraries arrive (digests equal), and no temporary file is
// left in a replica's dir. REPLCONF radish-flow with a token no replica
// connection holds, or past the shard count, is refused. A redis-cli
// --rdb of the same primary still gets the one payload.
func TestFullSyncFlows(t *testing.T) {
	primary := start(t, "--shards", "4", "--requirepass", "pw")
	auth := func(s *server, args ...string) string {
		return s.cli(append([]string{"--no-auth-warning", "-a", "pw"}, args...)...)
	}
	auth(primary, "DEBUG", "POPULATE", "50000", "k", "20")
	auth(primary, "-n", "3", "DEBUG", "POPULATE", "1000", "three")
	auth(primary, "SET", "ttl", "v", "EX", "1000")
	auth(primary, "FUNCTION", "LOAD", "#!lua name=flowlib\nredis.register_function('flowf', function() return 7 end)")
	ph, pp := hostPort(primary.addr)
	var replicas []*server
	for _, n := range []string{"2", "4", "5"} {
		replicas = append(replicas, start(t, "--shards", n, "--masterauth", "pw", "--replicaof", ph+" "+pp))
	}
	d := dialDiff(t, primary.addr, 2)
	d.do(t, []string{"AUTH", "pw"})
	for deadline := time.Now().Add(30 * time.Second); ; {
		up := 0
		for i := range 50 {
			d.do(t, []string{"SET", "load:" + strconv.Itoa(i), strconv.Itoa(i)})
		}
		for _, r := range replicas {
			if infoOf(r.cli("INFO", "replication"), "master_link_status") == "up" {
				up++
			}
		}
		if up == len(replicas) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replicas did not connect:\n%s", auth(primary, "INFO", "replication"))
		}
	}
	if got := strings.TrimSpace(string(d.do(t, []string{"WAIT", "3", "10000"})[0])); got != ":3" {
		t.Errorf("WAIT 3: %s", got)
	}
	want := strings.TrimSpace(auth(primary, "DEBUG", "DIGEST"))
	for _, r := range replicas {
		waitFor(t, "the replica's digest", func() bool { return strings.TrimSpace(r.cli("DEBUG", "DIGEST")) == want })
		if got := strings.TrimSpace(r.cli("FCALL", "flowf", "0")); got != "7" {
			t.Errorf("FCALL flowf on a replica: %q", got)
		}
		if ttl, _ := strconv.Atoi(strings.TrimSpace(r.cli("TTL", "ttl"))); ttl < 900 {
			t.Errorf("TTL of ttl on a replica: %d", ttl)
		}
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(r.log), "temp-*"))
		if len(files) > 0 {
			t.Errorf("left in the replica's dir: %v", files)
		}
	}
	logs, _ := os.ReadFile(primary.log)
	if n := strings.Count(string(logs), "full sync served on flows"); n != len(replicas) {
		t.Errorf("%d full syncs served on flows, want %d", n, len(replicas))
	}
	// The handshake's errors: a token no replica connection holds.
	h := dialDiff(t, primary.addr, 2)
	got := h.do(t, []string{"AUTH", "pw"}, []string{"REPLCONF", "radish-flow", "nosuchtoken", "0"},
		[]string{"REPLCONF", "radish-flows", "2"})
	if string(got[1]) != "-ERR no such replication flow\r\n" || !strings.HasPrefix(string(got[2]), "+FLOWS 4 ") {
		t.Errorf("REPLCONF radish-flow with a bad token: %q; radish-flows: %q", got[1], got[2])
	}
	if token := strings.Fields(string(got[2]))[2]; len(token) == 40 {
		bad := h.do(t, []string{"REPLCONF", "radish-flow", token, "4"})
		if string(bad[0]) != "-ERR no such replication flow\r\n" {
			t.Errorf("REPLCONF radish-flow past the shards: %q", bad[0])
		}
	}
	rdb := filepath.Join(t.TempDir(), "dump.rdb")
	auth(primary, "--rdb", rdb)
	if fi, err := os.Stat(rdb); err != nil || fi.Size() < 50000 {
		t.Errorf("redis-cli --rdb: %v %v", fi, err)
	}
}

package e2e

import (
	"bufio"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// mset writes n cross-shard MSETs (keys of every shard, in one command).
func mset(t *testing.T, addr string, round, n int) {
	t.Helper()
	d := dialDiff(t, addr, 2)
	var cmds [][]string
	for i := range n {
		args := []string{"MSET"}
		for k := range 6 {
			args = append(args, "m:"+strconv.Itoa(i*6+k), strconv.Itoa(round))
		}
		cmds = append(cmds, args)
	}
	for i, r := range d.do(t, cmds...) {
		if string(r) != "+OK\r\n" {
			t.Fatalf("MSET %d: %q", i, r)
		}
	}
}

// logWarnings logs the servers' warnings and errors when t failed.
func logWarnings(t *testing.T, servers ...*server) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, s := range servers {
			logs, _ := os.ReadFile(s.log)
			for _, l := range strings.Split(string(logs), "\n") {
				if strings.Contains(l, `"warn"`) || strings.Contains(l, `"error"`) {
					t.Logf("%s: %s", s.addr, l)
				}
			}
		}
	})
}

// TestChainedReplicas: a radish primary (3 shards), a radish replica of
// it (2 shards) and two replicas of that one, radish (3 shards, through
// a proxy) and redis-server, as Redis 7's sub-replicas: they get the
// primary's stream under its replication ID, the middle one refuses
// writes and lists them in INFO, the data is the same on all four; a
// cut between the middle and its radish sub-replica ends in a partial
// resync from the middle's history; a cut between the primary and the
// middle leaves the sub-replicas connected; promoted, the middle keeps both,
// which continue its stream (its replid2) with partial resyncs.
func TestChainedReplicas(t *testing.T) {
	primary := start(t, "--shards", "3")
	// Enough keys that the middle's full syncs of its sub-replicas take
	// several loop turns, while the stream goes on.
	primary.cli("DEBUG", "POPULATE", "30000", "pop", "100")
	load := newLoader(t, primary.addr, 3, 11)
	for range 5 {
		load.round(t)
	}
	pm := newProxy(t, primary.addr)
	mph, mpp := hostPort(pm.addr())
	mid := start(t, "--shards", "2", "--replicaof", mph+" "+mpp)
	linkUp(t, mid.addr)
	mh, mp := hostPort(mid.addr)
	px := newProxy(t, mid.addr)
	xh, xp := hostPort(px.addr())
	sub := start(t, "--shards", "3", "--replicaof", xh+" "+xp)
	_, rr := startRedisPID(t, "--enable-debug-command", "yes", "--replicaof", mh+" "+mp)
	logWarnings(t, primary, mid, sub)
	for i := range 5 {
		load.round(t)
		mset(t, primary.addr, i, 20)
	}
	linkUp(t, sub.addr, rr)
	if got := rcli(t, mid.addr, "SET", "k", "v"); got != "READONLY You can't write against a read only replica." {
		t.Errorf("a write to the middle replica: %q", got)
	}
	for i := range 5 {
		load.round(t)
		mset(t, primary.addr, 10+i, 20)
	}
	waitSame(t, primary.addr, mid.addr, sub.addr, rr)
	info := rcli(t, mid.addr, "INFO", "replication")
	if infoOf(info, "role") != "slave" || infoOf(info, "connected_slaves") != "2" ||
		!strings.Contains(infoOf(info, "slave0"), "state=online") || infoOf(info, "repl_backlog_active") != "1" {
		t.Errorf("INFO replication of the middle replica:\n%s", info)
	}
	replid := infoOf(rcli(t, primary.addr, "INFO", "replication"), "master_replid")
	for _, a := range []string{mid.addr, sub.addr, rr} {
		if got := infoOf(rcli(t, a, "INFO", "replication"), "master_replid"); got != replid {
			t.Errorf("%s: master_replid %s, the primary's %s", a, got, replid)
		}
	}
	waitFor(t, "the sub-replicas at the primary's offset", func() bool {
		off := infoOf(rcli(t, primary.addr, "INFO", "replication"), "master_repl_offset")
		return infoOf(rcli(t, sub.addr, "INFO", "replication"), "master_repl_offset") == off &&
			infoOf(rcli(t, rr, "INFO", "replication"), "master_repl_offset") == off
	})
	stat := func(name string) int {
		n, _ := strconv.Atoi(infoOf(rcli(t, mid.addr, "INFO", "stats"), name))
		return n
	}
	full, partial := stat("sync_full"), stat("sync_partial_ok")
	if full != 2 {
		t.Errorf("the middle served sync_full %d, want 2", full)
	}

	// A cut between the middle and its radish sub-replica.
	px.cut()
	for i := range 5 {
		load.round(t)
		mset(t, primary.addr, 20+i, 10)
	}
	px.restore()
	linkUp(t, sub.addr)
	waitSame(t, primary.addr, mid.addr, sub.addr, rr)
	if f, p := stat("sync_full"), stat("sync_partial_ok"); f != full || p != partial+1 {
		t.Errorf("after a cut: the middle's sync_full %d (was %d), sync_partial_ok %d (was %d)", f, full, p, partial)
	}

	// A cut between the primary and the middle: the sub-replicas stay,
	// and continue once the middle's partial resync does.
	pm.cut()
	for i := range 5 {
		load.round(t)
		mset(t, primary.addr, 25+i, 10)
	}
	pm.restore()
	linkUp(t, mid.addr)
	waitSame(t, primary.addr, mid.addr, sub.addr, rr)
	if f, p := stat("sync_full"), stat("sync_partial_ok"); f != full || p != partial+1 {
		t.Errorf("after the middle's cut: its sync_full %d (was %d), sync_partial_ok %d (was %d)", f, full, p, partial+1)
	}
	if n := infoOf(rcli(t, primary.addr, "INFO", "stats"), "sync_partial_ok"); n != "1" {
		t.Errorf("the primary's sync_partial_ok after the middle's cut: %s, want 1", n)
	}

	// The middle promoted keeps its sub-replicas.
	if got := rcli(t, mid.addr, "REPLICAOF", "NO", "ONE"); got != "OK" {
		t.Fatalf("REPLICAOF NO ONE: %q", got)
	}
	newID := infoOf(rcli(t, mid.addr, "INFO", "replication"), "master_replid")
	waitFor(t, "the sub-replicas following the promoted middle", func() bool {
		for _, a := range []string{sub.addr, rr} {
			if i := rcli(t, a, "INFO", "replication"); infoOf(i, "master_link_status") != "up" ||
				infoOf(i, "master_replid") != newID {
				return false
			}
		}
		return true
	})
	if f, p := stat("sync_full"), stat("sync_partial_ok"); f != full || p != partial+3 {
		t.Errorf("after the promotion: the middle's sync_full %d (was %d), sync_partial_ok %d (was %d)", f, full, p, partial+1)
	}
	mset(t, mid.addr, 30, 10)
	if got := rcli(t, mid.addr, "WAIT", "2", "10000"); got != "2" {
		t.Errorf("WAIT 2 on the promoted middle: %s", got)
	}
	waitSame(t, mid.addr, sub.addr, rr)
}

// TestChainedReplicaOfRedis: redis-server primary, a radish replica of
// it (2 shards) and a redis-server replica of that one: the primary's
// stream and ID reach the last one, the data is the same on all three.
func TestChainedReplicaOfRedis(t *testing.T) {
	_, pr := startRedisPID(t, "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0")
	ph, pp := hostPort(pr)
	load := newLoader(t, pr, 2, 13)
	for range 5 {
		load.round(t)
	}
	mid := start(t, "--shards", "2", "--replicaof", ph+" "+pp)
	linkUp(t, mid.addr)
	mh, mp := hostPort(mid.addr)
	_, rr := startRedisPID(t, "--enable-debug-command", "yes", "--replicaof", mh+" "+mp)
	logWarnings(t, mid)
	for i := range 10 {
		load.round(t)
		mset(t, pr, i, 10)
	}
	linkUp(t, rr)
	waitSame(t, pr, mid.addr, rr)
	replid := infoOf(rcli(t, pr, "INFO", "replication"), "master_replid")
	if got := infoOf(rcli(t, rr, "INFO", "replication"), "master_replid"); got != replid {
		t.Errorf("the sub-replica's master_replid %s, the primary's %s", got, replid)
	}
}

// TestChainedFullSyncUnderLoad: full syncs of a sub-replica from a
// radish middle while the primary's stream runs (pipelined INCRs and
// RPUSHes, which count a command run twice or missed): after each, once
// the writes stop, the sub-replica's data is the primary's.
func TestChainedFullSyncUnderLoad(t *testing.T) {
	primary := start(t, "--shards", "2")
	primary.cli("DEBUG", "POPULATE", "20000", "pop", "100")
	ph, pp := hostPort(primary.addr)
	mid := start(t, "--shards", "2", "--replicaof", ph+" "+pp)
	linkUp(t, mid.addr)
	mh, mp := hostPort(mid.addr)
	sub := start(t, "--shards", "3")
	logWarnings(t, primary, mid, sub)
	for round := range 6 {
		stop, done := make(chan struct{}), make(chan error)
		go func() {
			c, err := net.Dial("tcp", primary.addr)
			if err != nil {
				done <- err
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			var w resp.Writer
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				w.B = w.B[:0]
				for k := range 50 {
					w.Array(2)
					w.BulkString("INCR")
					w.BulkString("n:" + strconv.Itoa(k%7))
					w.Array(3)
					w.BulkString("RPUSH")
					w.BulkString("l:" + strconv.Itoa(k%5))
					w.BulkString(strconv.Itoa(i))
				}
				c.SetDeadline(time.Now().Add(20 * time.Second))
				if _, err := c.Write(w.B); err != nil {
					done <- err
					return
				}
				for range 100 {
					if err := skipRESP(br); err != nil {
						done <- err
						return
					}
				}
			}
		}()
		time.Sleep(50 * time.Millisecond)
		sub.cli("REPLICAOF", mh, mp)
		linkUp(t, sub.addr)
		time.Sleep(100 * time.Millisecond)
		close(stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		waitSame(t, primary.addr, mid.addr, sub.addr)
		sub.cli("REPLICAOF", "NO", "ONE") // the next REPLICAOF is a full sync again
		t.Logf("round %d: the same data", round)
	}
	if n := infoOf(rcli(t, mid.addr, "INFO", "stats"), "sync_full"); n != "6" {
		t.Errorf("the middle served sync_full %s, want 6", n)
	}
}

package e2e

import (
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxy forwards TCP connections to target; cut drops them and refuses
// new ones for a while: a replica's link cut in the middle.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	down   bool
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.drop() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			down := p.down
			p.mu.Unlock()
			if down {
				c.Close()
				continue
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// cut drops the connections and refuses new ones until restore.
func (p *proxy) cut() {
	p.mu.Lock()
	p.down = true
	p.mu.Unlock()
	p.drop()
}

func (p *proxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// hostPort splits an address for REPLICAOF.
func hostPort(addr string) (string, string) {
	h, p, _ := net.SplitHostPort(addr)
	return h, p
}

// TestRadishPrimary: a radish primary with 4 shards under a write load of
// every type (MSET, RENAME and MULTI/EXEC across shards among it) serves
// a redis-server replica and radish replicas of 2 and 3 shards, these
// through proxies that cut their links: a short cut resumes with a
// partial resync, one longer than the backlog covers with a full sync;
// WAIT counts the replicas, and every digest equals the primary's. Then
// kill -9 of the primary: a radish replica promoted with REPLICAOF NO ONE
// has every write WAIT 1 acknowledged, and the other replicas follow it
// with a partial resync (its replid2).
func TestRadishPrimary(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	primary := start(t, "--shards", "4")
	primary.cli("DEBUG", "POPULATE", "20000", "pop", "100")
	load := newLoader(t, primary.addr, 4, 7)
	for range 10 {
		load.round(t)
	}
	ph, pp := hostPort(primary.addr)
	rr := startRedis(t, redisBin, "--enable-debug-command", "yes", "--replicaof", ph+" "+pp)
	pa, pb := newProxy(t, primary.addr), newProxy(t, primary.addr)
	ah, ap := hostPort(pa.addr())
	bh, bp := hostPort(pb.addr())
	a := start(t, "--shards", "2", "--replicaof", ah+" "+ap)
	b := start(t, "--shards", "3", "--replicaof", bh+" "+bp)
	t.Cleanup(func() {
		if t.Failed() {
			for _, s := range []*server{primary, a, b} {
				logs, _ := os.ReadFile(s.log)
				for _, l := range strings.Split(string(logs), "\n") {
					if strings.Contains(l, `"warn"`) || strings.Contains(l, `"error"`) {
						t.Logf("%s: %s", s.addr, l)
					}
				}
			}
		}
	})
	up := func(s *server) bool { return infoOf(s.cli("INFO", "replication"), "master_link_status") == "up" }
	connected := func() bool {
		return up(a) && up(b) && infoOf(rcli(t, rr, "INFO", "replication"), "master_link_status") == "up"
	}
	for deadline := time.Now().Add(20 * time.Second); !connected(); {
		load.round(t)
		if time.Now().After(deadline) {
			t.Fatalf("the replicas did not connect:\n%s", primary.cli("INFO", "replication"))
		}
	}
	stat := func(name string) int {
		n, _ := strconv.Atoi(infoOf(primary.cli("INFO", "stats"), name))
		return n
	}
	full := stat("sync_full")
	// A short cut: both radish replicas continue where they were.
	for range 10 {
		load.round(t)
	}
	pa.cut()
	pb.cut()
	for range 5 {
		load.round(t)
	}
	pa.restore()
	pb.restore()
	waitFor(t, "the links back up", func() bool { load.round(t); return up(a) && up(b) })
	for range 10 {
		load.round(t)
	}
	if got := strings.TrimSpace(primary.cli("WAIT", "3", "10000")); got != "3" {
		t.Errorf("WAIT 3 10000: %s\n%s", got, primary.cli("INFO", "replication"))
	}
	t.Logf("replicas: redis %s, radish %s and %s", rr, a.addr, b.addr)
	waitSame(t, primary.addr, a.addr, b.addr, rr)
	if n := stat("sync_full"); n != full || stat("sync_partial_ok") < 2 {
		t.Errorf("after a short cut: sync_full %d (was %d), sync_partial_ok %d", n, full, stat("sync_partial_ok"))
	}
	// A cut longer than the backlog: a full sync.
	primary.cli("CONFIG", "SET", "repl-backlog-size", "16384")
	pa.cut()
	for range 40 {
		load.round(t)
	}
	pa.restore()
	waitFor(t, "the link back up after a long cut", func() bool { return up(a) })
	if got := strings.TrimSpace(primary.cli("WAIT", "3", "10000")); got != "3" {
		t.Errorf("WAIT 3 10000 after a long cut: %s", got)
	}
	waitSame(t, primary.addr, a.addr, b.addr, rr)
	if n := stat("sync_full"); n != full+1 {
		t.Errorf("after a long cut: sync_full %d, want %d", n, full+1)
	}
	primary.cli("CONFIG", "SET", "repl-backlog-size", "1mb")

	// Failover: writes WAIT 1 acknowledged are on the promoted replica.
	d := dialDiff(t, primary.addr, 2)
	var acked []string
	for i := range 200 {
		k := "acked:" + strconv.Itoa(i)
		r := d.do(t, []string{"SET", k, "v"}, []string{"WAIT", "1", "1000"})
		if string(r[1]) != ":0\r\n" {
			acked = append(acked, k)
		}
	}
	if len(acked) == 0 {
		t.Fatal("WAIT 1 acknowledged no write")
	}
	primary.cli("WAIT", "3", "10000")
	primary.cmd.Process.Kill()
	primary.cmd.Wait()
	if got := strings.TrimSpace(a.cli("REPLICAOF", "NO", "ONE")); got != "OK" {
		t.Fatalf("REPLICAOF NO ONE: %q", got)
	}
	for _, k := range acked {
		if got := strings.TrimSpace(a.cli("EXISTS", k)); got != "1" {
			t.Errorf("%s, acknowledged by WAIT 1, is missing on the promoted replica", k)
		}
	}
	nh, np := hostPort(a.addr)
	b.cli("REPLICAOF", nh, np)
	rcli(t, rr, "REPLICAOF", nh, np)
	waitFor(t, "the others following the promoted replica", func() bool {
		return up(b) && infoOf(rcli(t, rr, "INFO", "replication"), "master_link_status") == "up"
	})
	a.cli("SET", "after-failover", "1")
	if got := strings.TrimSpace(a.cli("WAIT", "2", "10000")); got != "2" {
		t.Errorf("WAIT 2 on the promoted replica: %s", got)
	}
	waitSame(t, a.addr, b.addr, rr)
	st := a.cli("INFO", "stats")
	if infoOf(st, "sync_full") != "0" || infoOf(st, "sync_partial_ok") != "2" {
		t.Errorf("the promoted replica served sync_full %s, sync_partial_ok %s (want 0 and 2)",
			infoOf(st, "sync_full"), infoOf(st, "sync_partial_ok"))
	}
}

// TestMinReplicasToWrite: with min-replicas-to-write 1 a primary without
// a replica refuses writes with -NOREPLICAS (inside MULTI too: EXEC
// aborts) and serves reads; once a replica acknowledges, writes pass.
func TestMinReplicasToWrite(t *testing.T) {
	primary := start(t, "--shards", "2", "--min-replicas-to-write", "1")
	d := dialDiff(t, primary.addr, 2)
	r := d.do(t, []string{"SET", "k", "v"}, []string{"GET", "k"}, []string{"MULTI"}, []string{"SET", "k", "v"}, []string{"EXEC"})
	want := []string{"-NOREPLICAS Not enough good replicas to write.\r\n", "$-1\r\n", "+OK\r\n",
		"-NOREPLICAS Not enough good replicas to write.\r\n", "-EXECABORT Transaction discarded because of previous errors.\r\n"}
	for i := range want {
		if string(r[i]) != want[i] {
			t.Errorf("reply %d: %q, want %q", i, r[i], want[i])
		}
	}
	h, p := hostPort(primary.addr)
	start(t, "--shards", "3", "--replicaof", h+" "+p)
	waitFor(t, "a write with a replica", func() bool {
		return string(d.do(t, []string{"SET", "k", "v"})[0]) == "+OK\r\n"
	})
}

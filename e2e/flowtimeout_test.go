package e2e

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowProxy forwards TCP connections to target, each one's bytes from
// target at most rate bytes a second, with small socket buffers on its
// side: a replica's flows behind a slow network.
func slowProxy(t *testing.T, target string, rate int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	small := func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
	}
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := (&net.Dialer{Control: small}).Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns = append(conns, c, u)
			go func() {
				b := make([]byte, 32<<10)
				for {
					n, err := c.Read(b)
					if n > 0 {
						u.Write(b[:n])
					}
					if err != nil {
						u.Close()
						return
					}
				}
			}()
			go func() {
				b := make([]byte, 32<<10)
				start, sent := time.Now(), 0
				for {
					n, err := u.Read(b)
					if n > 0 {
						if _, err := c.Write(b[:n]); err != nil {
							u.Close()
							return
						}
						sent += n
						time.Sleep(time.Until(start.Add(time.Duration(sent) * time.Second / time.Duration(rate))))
					}
					if err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestFullSyncFlowsOutlastTimeout: a full sync on flows that takes much
// longer than the replica's repl-timeout (2 s; a 20 MB part through a
// link of 2 MB/s) completes at its first try: the primary keeps the
// replica's connection alive with a newline a second while the flows
// carry the payload, as Redis does while it prepares one; meanwhile the
// replica's INFO shows the sync in progress and the bytes read.
func TestFullSyncFlowsOutlastTimeout(t *testing.T) {
	primary := start(t, "--shards", "1", "--rdbcompression", "no", "--repl-ping-replica-period", "1")
	primary.cli("DEBUG", "POPULATE", "500000", "k", "32")
	ph, pp := hostPort(slowProxy(t, primary.addr, 2<<20))
	replica := start(t, "--shards", "2", "--repl-timeout", "2", "--replicaof", ph+" "+pp)
	syncing := false // INFO showed the flows' bytes coming
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		info := replica.cli("INFO", "replication")
		if infoOf(info, "master_link_status") == "up" {
			break
		}
		if n, _ := strconv.Atoi(infoOf(info, "master_sync_read_bytes")); n > 0 && infoOf(info, "master_sync_in_progress") == "1" {
			syncing = true
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(replica.log)
			t.Fatalf("the replica did not sync within 60 s:\n%s\n%s\n%s", primary.cli("INFO", "replication"), replica.cli("INFO", "replication"), logs[max(len(logs)-2000, 0):])
		}
	}
	if !syncing {
		t.Error("INFO never showed master_sync_in_progress:1 with master_sync_read_bytes during the flows' transfer")
	}
	if n, _ := strconv.Atoi(infoOf(primary.cli("INFO", "stats"), "sync_full")); n != 1 {
		t.Errorf("sync_full %d, want 1: the replica started over", n)
	}
	want := strings.TrimSpace(primary.cli("DEBUG", "DIGEST"))
	waitFor(t, "the replica's digest", func() bool { return strings.TrimSpace(replica.cli("DEBUG", "DIGEST")) == want })
}

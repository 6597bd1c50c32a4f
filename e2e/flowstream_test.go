package e2e

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// logLines counts the lines of s's log holding every one of parts.
func logLines(t *testing.T, s *server, parts ...string) int {
	t.Helper()
	logs, err := os.ReadFile(s.log)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(logs), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}

// TestFlowsStream: radish replicas of 2 and 4 shards of a 4-shard
// primary take their full sync and then the write stream on flows, one
// connection per primary shard, under a write load of every type and
// MSETs across shards; each replica runs each flow's commands on a lane
// of its own (a master connection per primary shard), in parallel, and
// a cross-shard transaction whole: once synced, a reader on each
// replica never sees half of an MSET. The links cut through proxies and restored: every replica
// resumes on its flows with a partial resync (sync_partial_ok grows,
// sync_full does not, both logs say so), and the digests are equal.
func TestFlowsStream(t *testing.T) {
	primary := start(t, "--shards", "4")
	primary.cli("DEBUG", "POPULATE", "5000", "pop", "50")
	load := newLoader(t, primary.addr, 3, 11)
	var proxies []*proxy
	var replicas []*server
	for _, n := range []string{"2", "4"} {
		px := newProxy(t, primary.addr)
		h, p := hostPort(px.addr())
		proxies = append(proxies, px)
		replicas = append(replicas, start(t, "--shards", n, "--replicaof", h+" "+p))
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, s := range append([]*server{primary}, replicas...) {
				logs, _ := os.ReadFile(s.log)
				for _, l := range strings.Split(string(logs), "\n") {
					if strings.Contains(l, `"warn"`) || strings.Contains(l, `"error"`) {
						t.Logf("%s: %s", s.addr, l)
					}
				}
			}
		}
	})
	// MSETs of three keys on (most likely) three shards, the same value
	// in each, ever higher; readers on the replicas see all or none.
	keys := []string{"{a}x", "{b}y", "{c}z", "{d}w"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var wrote, read atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		d := dialDiff(t, primary.addr, 2)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			v := strconv.Itoa(i)
			d.do(t, []string{"MSET", keys[0], v, keys[1], v, keys[2], v, keys[3], v})
			wrote.Store(int64(i))
		}
	}()
	var torn atomic.Value
	var once sync.Once
	finish := func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			if g := torn.Load(); g != nil {
				t.Errorf("a replica showed part of an MSET: %q", g)
			}
			if wrote.Load() == 0 || read.Load() == 0 {
				t.Errorf("MSETs %d, MGETs %d", wrote.Load(), read.Load())
			}
		})
	}
	defer finish()
	up := func(s *server) bool { return infoOf(s.cli("INFO", "replication"), "master_link_status") == "up" }
	allUp := func() bool {
		load.round(t)
		for _, r := range replicas {
			if !up(r) {
				return false
			}
		}
		return true
	}
	waitFor(t, "the replicas connected", allUp)
	// (While a full sync loads, the replica's shards load in turn.)
	for _, r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := dialDiff(t, r.addr, 2)
			for {
				select {
				case <-stop:
					return
				default:
				}
				got := string(d.do(t, append([]string{"MGET"}, keys...))[0])
				parts := strings.Split(got, "\r\n")
				// *4, then $n and a value (or $-1) per key.
				var vals []string
				for i := 1; i+1 < len(parts); i++ {
					if parts[i] == "$-1" {
						vals = append(vals, "nil")
					} else if strings.HasPrefix(parts[i], "$") {
						vals = append(vals, parts[i+1])
						i++
					}
				}
				for _, v := range vals {
					if v != vals[0] {
						torn.Store(got)
					}
				}
				read.Add(1)
			}
		}()
	}
	if n := logLines(t, primary, "full sync served on flows"); n != len(replicas) {
		t.Errorf("%d full syncs served on flows, want %d", n, len(replicas))
	}
	stat := func(name string) int {
		n, _ := strconv.Atoi(infoOf(primary.cli("INFO", "stats"), name))
		return n
	}
	full, partial := stat("sync_full"), stat("sync_partial_ok")
	for range 10 {
		load.round(t)
	}
	for _, px := range proxies {
		px.cut()
	}
	for range 5 {
		load.round(t)
	}
	for _, px := range proxies {
		px.restore()
	}
	waitFor(t, "the links back up", allUp)
	for range 10 {
		load.round(t)
	}
	finish()
	if got := strings.TrimSpace(primary.cli("WAIT", "2", "10000")); got != "2" {
		t.Errorf("WAIT 2 10000: %s", got)
	}
	if n, p := stat("sync_full"), stat("sync_partial_ok"); n != full || p < partial+len(replicas) {
		t.Errorf("after a short cut: sync_full %d (was %d), sync_partial_ok %d (was %d)", n, full, p, partial)
	}
	if n := logLines(t, primary, "partial resynchronization served", `"flows":true`); n < len(replicas) {
		t.Errorf("%d partial resyncs served on flows, want %d", n, len(replicas))
	}
	for _, r := range replicas {
		if n := logLines(t, r, "partial resynchronization with the primary", `"flows":true`); n < 1 {
			t.Errorf("%s: no partial resync on flows in its log", r.addr)
		}
		// One lane into its command path per flow, each flow's commands
		// on its own.
		if got := r.cli("CLIENT", "LIST", "TYPE", "master"); strings.Count(got, "flags=M ") != 4 {
			t.Errorf("%s: CLIENT LIST TYPE master: %q", r.addr, got)
		}
		if n := logLines(t, r, "a command from the primary failed here"); n > 0 {
			t.Errorf("%s: %d commands of the stream failed", r.addr, n)
		}
	}
	waitSame(t, primary.addr, replicas[0].addr, replicas[1].addr)
}

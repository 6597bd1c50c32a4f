package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// writeLoad runs writers of unique keys on addr until the server goes
// away; stop returns every key whose SET was acknowledged.
func writeLoad(t *testing.T, addr string, writers int) (stop func() []string) {
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	quit := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1, ReadTimeout: 30 * time.Second})
			defer c.Close()
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				k := fmt.Sprintf("load:%d:%d", w, i)
				if c.Set(context.Background(), k, k, 0).Err() != nil {
					return
				}
				mu.Lock()
				acked = append(acked, k)
				mu.Unlock()
			}
		}()
	}
	return func() []string {
		close(quit)
		wg.Wait()
		return acked
	}
}

// missing returns the keys of keys addr does not hold.
func missing(t *testing.T, addr string, keys []string) []string {
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1})
	defer c.Close()
	var out []string
	for i := 0; i < len(keys); i += 500 {
		batch := keys[i:min(i+500, len(keys))]
		vals, err := c.MGet(context.Background(), batch...).Result()
		if err != nil {
			t.Fatalf("MGET on %s: %v", addr, err)
		}
		for j, v := range vals {
			if v != batch[j] {
				out = append(out, batch[j])
			}
		}
	}
	return out
}

// exited waits for s to exit and returns how long it took and its error.
func exited(t *testing.T, s *server, within time.Duration) (time.Duration, error) {
	t0 := time.Now()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return time.Since(t0), err
	case <-time.After(within):
		logs, _ := os.ReadFile(s.log)
		t.Fatalf("still running %v after the shutdown began\n%s", within, logs)
	}
	return 0, nil
}

// linkUp waits until every replica's master_link_status is up.
func linkUp(t *testing.T, replicas ...string) {
	t.Helper()
	waitFor(t, "the replicas' links up", func() bool {
		for _, r := range replicas {
			if infoOf(rcli(t, r, "INFO", "replication"), "master_link_status") != "up" {
				return false
			}
		}
		return true
	})
}

// TestShutdownWaitsForReplicas: a radish primary on three shards under a
// write load, with a radish and a redis-server replica, takes SIGTERM:
// it pauses writes, waits until both replicas acknowledged the stream,
// and exits 0; every write it acknowledged is on both replicas.
func TestShutdownWaitsForReplicas(t *testing.T) {
	primary := start(t, "--shards", "3")
	h, p := hostPort(primary.addr)
	rad := start(t, "--shards", "2", "--replicaof", h+" "+p)
	_, rr := startRedisPID(t, "--replicaof", h+" "+p)
	linkUp(t, rad.addr, rr)
	stop := writeLoad(t, primary.addr, 6)
	time.Sleep(500 * time.Millisecond)
	primary.cmd.Process.Signal(syscall.SIGTERM)
	if _, err := exited(t, primary, 20*time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	acked := stop()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged")
	}
	t.Logf("%d acknowledged writes", len(acked))
	for _, r := range []string{rad.addr, rr} {
		if m := missing(t, r, acked); len(m) > 0 {
			t.Errorf("%d of %d acknowledged writes missing on replica %s, as %q", len(m), len(acked), r, m[:min(len(m), 5)])
		}
	}
	logs, _ := os.ReadFile(primary.log)
	if !strings.Contains(string(logs), "2 of 2 replicas are in sync when shutting down.") {
		t.Errorf("the log does not say both replicas were in sync:\n%s", logs)
	}
}

// TestShutdownLaggingReplica: with a replica that cannot catch up (its
// process stopped), a SIGTERM waits shutdown-timeout seconds, logs the
// lagging replica, and exits 0 still.
func TestShutdownLaggingReplica(t *testing.T) {
	primary := start(t, "--shards", "2", "--shutdown-timeout", "2")
	h, p := hostPort(primary.addr)
	rep := start(t, "--shards", "2", "--replicaof", h+" "+p)
	linkUp(t, rep.addr)
	rep.cmd.Process.Signal(syscall.SIGSTOP)
	t.Cleanup(func() { rep.cmd.Process.Signal(syscall.SIGCONT) })
	primary.cli("SET", "k", "v")
	primary.cmd.Process.Signal(syscall.SIGTERM)
	took, err := exited(t, primary, 20*time.Second)
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	if took < 1500*time.Millisecond {
		t.Errorf("exited %v after SIGTERM, before shutdown-timeout's 2 s", took)
	}
	logs, _ := os.ReadFile(primary.log)
	for _, want := range []string{"Waiting for replicas before shutting down.", "Lagging replica 127.0.0.1:" + strconv.Itoa(rep.port),
		"0 of 1 replicas are in sync when shutting down."} {
		if !strings.Contains(string(logs), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

// TestShutdownAbortAgainstRedis: on radish and on redis-server, each a
// primary with a stopped redis-server replica, SHUTDOWN waits (INFO
// server shows shutdown_in_milliseconds, a write waits for the pause),
// SHUTDOWN ABORT answers +OK and cancels it: the waiting SHUTDOWN gets
// Redis's error, the write goes through; a second ABORT has nothing to
// abort. The replies are the same. Then SHUTDOWN NOW on radish exits
// without waiting for its replica (shutdown-timeout 60).
func TestShutdownAbortAgainstRedis(t *testing.T) {
	run := func(addr string) ([]string, *diffConn) {
		h, p := hostPort(addr)
		rcmd, rr := startRedisPID(t, "--replicaof", h+" "+p)
		linkUp(t, rr)
		rcmd.Process.Signal(syscall.SIGSTOP)
		t.Cleanup(func() { rcmd.Process.Signal(syscall.SIGCONT) })
		rcli(t, addr, "SET", "k", "v")
		sd, w := dialDiff(t, addr, 2), dialDiff(t, addr, 2)
		sd.send(t, "SHUTDOWN")
		waitFor(t, "shutdown_in_milliseconds", func() bool {
			return infoOf(rcli(t, addr, "INFO", "server"), "shutdown_in_milliseconds") != ""
		})
		w.send(t, "SET", "k", "w")
		time.Sleep(200 * time.Millisecond)
		var out []string
		out = append(out, "during the wait: "+rcli(t, addr, "GET", "k"))
		out = append(out, "abort: "+rcli(t, addr, "SHUTDOWN", "ABORT"))
		out = append(out, "the shutdown: "+strings.TrimSpace(string(sd.read(t))))
		out = append(out, "the paused write: "+strings.TrimSpace(string(w.read(t))))
		out = append(out, "again: "+rcli(t, addr, "SHUTDOWN", "ABORT"))
		out = append(out, "after: "+rcli(t, addr, "GET", "k"))
		out = append(out, "in milliseconds: "+infoOf(rcli(t, addr, "INFO", "server"), "shutdown_in_milliseconds"))
		return out, sd
	}
	_, raddr := startRedisPID(t)
	want, _ := run(raddr)
	s := start(t, "--shards", "3", "--shutdown-timeout", "60")
	got, sd := run(s.addr)
	// SHUTDOWN NOW does not wait for the replica, still stopped
	// (redis-server 7.0.15 crashed here after the ABORT; radish is
	// checked alone).
	sd.send(t, "SHUTDOWN", "NOW")
	sd.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := sd.r.ReadByte(); err == nil {
		t.Errorf("SHUTDOWN NOW was answered")
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SHUTDOWN NOW: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SHUTDOWN NOW")
	}
	t.Logf("redis-server: %q", want)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("radish %q, redis-server %q", got[i], want[i])
		}
	}
}

// role returns ROLE's first line and, for a replica, its link's state.
func role(t *testing.T, addr string) string {
	f := strings.Fields(rcli(t, addr, "ROLE"))
	if len(f) >= 4 && f[0] == "slave" {
		return "slave " + f[3]
	}
	return f[0]
}

// TestFailover: a radish primary on three shards under a write load
// hands over to its radish replica (two shards) with FAILOVER: the
// roles swap (ROLE on both), the old primary follows with a partial
// resync (the new one served no full sync), no write the old primary
// acknowledged is missing on the new one, and the data is the same on
// both. The new primary then fails over back with FAILOVER TO.
func TestFailover(t *testing.T) {
	a := start(t, "--shards", "3")
	h, p := hostPort(a.addr)
	b := start(t, "--shards", "2", "--replicaof", h+" "+p)
	linkUp(t, b.addr)
	load := newLoader(t, a.addr, 3, 11)
	for range 10 {
		load.round(t)
	}
	stop := writeLoad(t, a.addr, 4)
	time.Sleep(300 * time.Millisecond)
	if got := rcli(t, a.addr, "FAILOVER"); got != "OK" {
		t.Fatalf("FAILOVER: %q", got)
	}
	waitFor(t, "the roles swapped", func() bool {
		return role(t, b.addr) == "master" && role(t, a.addr) == "slave connected" &&
			infoOf(rcli(t, a.addr, "INFO", "replication"), "master_failover_state") == "no-failover"
	})
	// The old primary's paused writers get -READONLY now.
	acked := stop()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged")
	}
	t.Logf("%d acknowledged writes", len(acked))
	if m := missing(t, b.addr, acked); len(m) > 0 {
		t.Errorf("%d of %d acknowledged writes missing on the new primary, as %q", len(m), len(acked), m[:min(len(m), 5)])
	}
	st := rcli(t, b.addr, "INFO", "stats")
	if infoOf(st, "sync_full") != "0" || infoOf(st, "sync_partial_ok") != "1" {
		t.Errorf("the new primary served sync_full %s, sync_partial_ok %s (want 0 and 1)",
			infoOf(st, "sync_full"), infoOf(st, "sync_partial_ok"))
	}
	if got := rcli(t, a.addr, "SET", "k", "v"); !strings.HasPrefix(got, "READONLY") {
		t.Errorf("a write to the old primary: %q", got)
	}
	nl := newLoader(t, b.addr, 3, 12)
	for range 10 {
		nl.round(t)
	}
	if got := rcli(t, b.addr, "WAIT", "1", "10000"); got != "1" {
		t.Errorf("WAIT 1 on the new primary: %s", got)
	}
	waitSame(t, b.addr, a.addr)
	// And back, to a named replica.
	full := infoOf(rcli(t, a.addr, "INFO", "stats"), "sync_full") // b's first sync
	if got := rcli(t, b.addr, "FAILOVER", "TO", h, p); got != "OK" {
		t.Fatalf("FAILOVER TO: %q", got)
	}
	waitFor(t, "the roles swapped back", func() bool {
		return role(t, a.addr) == "master" && role(t, b.addr) == "slave connected"
	})
	if st := rcli(t, a.addr, "INFO", "stats"); infoOf(st, "sync_full") != full || infoOf(st, "sync_partial_ok") != "1" {
		t.Errorf("back as the primary it served sync_full %s (was %s), sync_partial_ok %s (want 1)",
			infoOf(st, "sync_full"), full, infoOf(st, "sync_partial_ok"))
	}
	rcli(t, a.addr, "SET", "back", "1")
	rcli(t, a.addr, "WAIT", "1", "10000")
	waitSame(t, a.addr, b.addr)
}

// TestFailoverWithRedis: FAILOVER TO a redis-server replica of a radish
// primary (redis-server promotes itself on radish's PSYNC ... FAILOVER
// and radish continues its stream), and a redis-server primary's
// FAILOVER to a radish replica (radish promotes itself on the same
// PSYNC); each time the old primary continues with a partial resync
// and the data is the same.
func TestFailoverWithRedis(t *testing.T) {
	a := start(t, "--shards", "3")
	h, p := hostPort(a.addr)
	_, rr := startRedisPID(t, "--enable-debug-command", "yes", "--replicaof", h+" "+p)
	linkUp(t, rr)
	load := newLoader(t, a.addr, 3, 13)
	for range 10 {
		load.round(t)
	}
	rh, rp := hostPort(rr)
	if got := rcli(t, a.addr, "FAILOVER", "TO", rh, rp); got != "OK" {
		t.Fatalf("FAILOVER TO redis-server: %q", got)
	}
	waitFor(t, "redis-server promoted, radish following it", func() bool {
		return role(t, rr) == "master" && role(t, a.addr) == "slave connected"
	})
	if n := infoOf(rcli(t, rr, "INFO", "stats"), "sync_partial_ok"); n != "1" {
		t.Errorf("redis-server served sync_partial_ok %s to radish, want 1", n)
	}
	rcli(t, rr, "SET", "on-redis", "1")
	rcli(t, rr, "WAIT", "1", "10000")
	waitSame(t, rr, a.addr)
	// redis-server's FAILOVER back to radish.
	if got := rcli(t, rr, "FAILOVER"); got != "OK" {
		t.Fatalf("FAILOVER on redis-server: %q", got)
	}
	waitFor(t, "radish promoted, redis-server following it", func() bool {
		return role(t, a.addr) == "master" && role(t, rr) == "slave connected"
	})
	if n := infoOf(rcli(t, a.addr, "INFO", "stats"), "sync_partial_ok"); n != "1" {
		t.Errorf("radish served sync_partial_ok %s to redis-server, want 1", n)
	}
	for range 5 {
		load.round(t)
	}
	rcli(t, a.addr, "WAIT", "1", "10000")
	waitSame(t, a.addr, rr)
}

// TestFailoverAgainstRedis: FAILOVER's errors, TIMEOUT and ABORT with a
// replica that cannot catch up (its process stopped), on radish and on
// redis-server: the same replies and master_failover_state, writes held
// while it waits and served after.
func TestFailoverAgainstRedis(t *testing.T) {
	run := func(addr string) []string {
		var out []string
		say := func(what string, args ...string) {
			out = append(out, what+": "+rcli(t, addr, args...))
		}
		say("no replica", "FAILOVER")
		say("abort, none", "FAILOVER", "ABORT")
		h, p := hostPort(addr)
		rcmd, rr := startRedisPID(t, "--replicaof", h+" "+p)
		linkUp(t, rr)
		// Online on the primary's side too (its first ACK came), before it
		// stops: FAILOVER TO refuses a replica that is not.
		waitFor(t, "the replica online", func() bool {
			return strings.Contains(infoOf(rcli(t, addr, "INFO", "replication"), "slave0"), ",state=online,")
		})
		rh, rp := hostPort(rr)
		say("force alone", "FAILOVER", "FORCE")
		say("timeout 0", "FAILOVER", "TIMEOUT", "0")
		say("timeout twice", "FAILOVER", "TIMEOUT", "10", "TIMEOUT", "20")
		say("bad port", "FAILOVER", "TO", rh, "x")
		say("not a replica", "FAILOVER", "TO", rh, "1")
		say("abort with more", "FAILOVER", "ABORT", "TIMEOUT", "10")
		say("on the replica", "-h", rh, "-p", rp, "FAILOVER")
		rcmd.Process.Signal(syscall.SIGSTOP)
		t.Cleanup(func() { rcmd.Process.Signal(syscall.SIGCONT) })
		rcli(t, addr, "SET", "k", "v")
		// The TIMEOUT's end. Its FAILOVER, the state and a second FAILOVER
		// go in one write: sent apart (a redis-cli each), the timeout could
		// pass before the second on a loaded machine, which then starts a
		// failover of its own, with no timeout, that never ends.
		d := dialDiff(t, addr, 2)
		r := d.do(t, []string{"FAILOVER", "TO", rh, rp, "TIMEOUT", "500"}, []string{"INFO", "replication"},
			[]string{"FAILOVER"})
		out = append(out, "timeout: "+strings.TrimSpace(string(r[0])),
			"state: "+infoOf(string(r[1]), "master_failover_state"), "again: "+strings.TrimSpace(string(r[2])))
		w := dialDiff(t, addr, 2)
		w.send(t, "SET", "k", "w")
		waitFor(t, "the timeout", func() bool {
			return infoOf(rcli(t, addr, "INFO", "replication"), "master_failover_state") == "no-failover"
		})
		out = append(out, "the timed-out held write: "+strings.TrimSpace(string(w.read(t))))
		say("after the timeout", "GET", "k")
		say("to", "FAILOVER", "TO", rh, rp)
		say("state", "INFO", "replication")
		out[len(out)-1] = "state: " + infoOf(out[len(out)-1], "master_failover_state")
		say("again", "FAILOVER")
		w.send(t, "SET", "k", "w2")
		// ABORT releases the held write.
		say("abort the first", "FAILOVER", "ABORT")
		out = append(out, "the held write: "+strings.TrimSpace(string(w.read(t))))
		say("after the abort", "GET", "k")
		say("wait", "FAILOVER")
		out = append(out, "state: "+infoOf(rcli(t, addr, "INFO", "replication"), "master_failover_state"))
		say("abort", "FAILOVER", "ABORT")
		out = append(out, "state: "+infoOf(rcli(t, addr, "INFO", "replication"), "master_failover_state"))
		say("abort again", "FAILOVER", "ABORT")
		say("a write", "SET", "k", "x")
		return out
	}
	_, raddr := startRedisPID(t)
	want := run(raddr)
	s := start(t, "--shards", "3")
	got := run(s.addr)
	t.Logf("redis-server: %q", want)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("radish %q, redis-server %q", got[i], want[i])
		}
	}
}

// TestPauseHoldsExpiry: while CLIENT PAUSE WRITE holds (as the pauses of
// a shutdown and a FAILOVER do), no key expires actively, on radish as on
// redis-server: a key past its TTL is still counted by DBSIZE until the
// pause ends.
func TestPauseHoldsExpiry(t *testing.T) {
	_, raddr := startRedisPID(t)
	s := start(t, "--shards", "2")
	for _, addr := range []string{raddr, s.addr} {
		d := dialDiff(t, addr, 2)
		var cmds [][]string
		for i := range 20 {
			cmds = append(cmds, []string{"SET", "k" + strconv.Itoa(i), "v", "PX", "300"})
		}
		d.do(t, append(cmds, []string{"CLIENT", "PAUSE", "10000", "WRITE"})...)
		time.Sleep(1500 * time.Millisecond)
		if got := rcli(t, addr, "DBSIZE"); got != "20" {
			t.Errorf("%s: DBSIZE %s while paused, want 20", addr, got)
		}
		rcli(t, addr, "CLIENT", "UNPAUSE")
		waitFor(t, "the keys expired after the pause", func() bool { return rcli(t, addr, "DBSIZE") == "0" })
	}
}

// TestWaitAOF: WAITAOF as Redis 7.2 (which the oracle, 7.0.15, lacks):
// a radish primary with appendfsync everysec counts its own fsync and a
// radish replica's (appendonly yes: it sends FACK), never redis-server
// 7.0's (no FACK), whose shortfall the timeout answers; inside MULTI it
// answers at once, as WAIT does (a transaction over several shards with
// either never answered before); Redis 7.2's errors for its arguments, on a replica,
// and numlocal with appendonly no.
func TestWaitAOF(t *testing.T) {
	primary := start(t, "--shards", "3", "--appendonly", "yes", "--appendfsync", "everysec")
	h, p := hostPort(primary.addr)
	rad := start(t, "--shards", "2", "--appendonly", "yes", "--replicaof", h+" "+p)
	_, rr := startRedisPID(t, "--replicaof", h+" "+p)
	linkUp(t, rad.addr, rr)
	d := dialDiff(t, primary.addr, 2)
	d.c.SetDeadline(time.Now().Add(30 * time.Second))
	if r := d.do(t, []string{"SET", "k", "v"}, []string{"WAITAOF", "1", "1", "0"}); string(r[1]) != "*2\r\n:1\r\n:1\r\n" {
		t.Errorf("WAITAOF 1 1 0: %q", r[1])
	}
	r := d.do(t, []string{"SET", "k", "w"}, []string{"WAITAOF", "1", "2", "3000"})
	if got := string(r[1]); got != "*2\r\n:1\r\n:1\r\n" {
		t.Errorf("WAITAOF 1 2 3000 (redis-server 7.0 sends no FACK): %q", got)
	}
	// In MULTI, after writes on several shards (a transaction over them),
	// WAIT and WAITAOF answer at once.
	r = d.do(t, []string{"MULTI"}, []string{"MSET", "a", "1", "b", "2", "c", "3", "d", "4"},
		[]string{"WAIT", "5", "0"}, []string{"WAITAOF", "0", "5", "0"}, []string{"EXEC"})
	if got := string(r[4]); !strings.HasPrefix(got, "*3\r\n+OK\r\n:") || !strings.Contains(got, "\r\n*2\r\n:") {
		t.Errorf("WAIT and WAITAOF in MULTI: %q", got)
	}
	for _, c := range []struct{ args, want string }{
		{"WAITAOF 2 0 0", "-ERR value is out of range, value must between 0 and 1\r\n"},
		{"WAITAOF x 0 0", "-ERR value is not an integer or out of range\r\n"},
		{"WAITAOF 0 -1 0", "-ERR value is out of range, must be positive\r\n"},
		{"WAITAOF 0 0 -1", "-ERR timeout is negative\r\n"},
		{"WAITAOF 0 0", "-ERR wrong number of arguments for 'waitaof' command\r\n"},
	} {
		if got := string(d.do(t, strings.Fields(c.args))[0]); got != c.want {
			t.Errorf("%s: %q, want %q", c.args, got, c.want)
		}
	}
	if got := string(dialDiff(t, rad.addr, 2).do(t, []string{"WAITAOF", "0", "0", "0"})[0]); got !=
		"-ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.\r\n" {
		t.Errorf("WAITAOF on a replica: %q", got)
	}
	noAOF := dialDiff(t, start(t, "--shards", "2").addr, 2)
	r = noAOF.do(t, []string{"WAITAOF", "1", "0", "0"}, []string{"SET", "k", "v"}, []string{"WAITAOF", "0", "0", "0"})
	if string(r[0]) != "-ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.\r\n" || string(r[2]) != "*2\r\n:0\r\n:0\r\n" {
		t.Errorf("WAITAOF with appendonly no: %q, %q", r[0], r[2])
	}
}

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// send writes a command without reading its reply.
func (d *diffConn) send(t *testing.T, args ...string) {
	t.Helper()
	if err := d.write([][]string{args}); err != nil {
		t.Fatal(err)
	}
}

// TestScriptBusyAgainstRedis: past busy-reply-threshold (set as
// lua-time-limit) a looping script makes the server answer -BUSY to every
// other client (on every shard of radish, the script's own included),
// SCRIPT KILL and FUNCTION KILL stop it, -UNKILLABLE once it wrote, and
// SHUTDOWN NOSAVE still stops the server; the same replies as
// redis-server's, RESP2 and RESP3.
func TestScriptBusyAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "4")
	loopLib := "#!lua name=loops\nredis.register_function('spin', function() local i = 0 while true do i = i + 1 end end)"
	run := func(addr string) [][]byte {
		var out [][]byte
		loop := dialDiff(t, addr, 2)
		var others []*diffConn
		for i := range 8 {
			others = append(others, dialDiff(t, addr, 2+i%2))
		}
		ask := func(d *diffConn, args ...string) { out = append(out, d.do(t, args)[0]) }
		busy := func(kind string) {
			time.Sleep(500 * time.Millisecond) // past the threshold
			for i, d := range others {
				ask(d, "PING")
				ask(d, "GET", fmt.Sprint("k", i))
				ask(d, "SET", fmt.Sprint("k", i), "v")
			}
			ask(others[1], "SHUTDOWN")
			ask(others[2], "MULTI")
			ask(others[2], "SET", "x", "1")
			ask(others[2], "EXEC")
			if kind == "function" {
				ask(others[3], "SCRIPT", "KILL")
			} else {
				ask(others[3], "FUNCTION", "KILL")
			}
		}
		ask(others[0], "SCRIPT", "KILL")
		ask(others[0], "FUNCTION", "KILL")
		ask(others[0], "CONFIG", "SET", "lua-time-limit", "100")
		ask(others[0], "CONFIG", "GET", "busy-reply-threshold")
		ask(others[0], "CONFIG", "GET", "lua-time-limit")
		ask(others[0], "FUNCTION", "LOAD", loopLib)

		loop.send(t, "EVAL", "local i = 0 while true do i = i + 1 end", "0")
		busy("eval")
		ask(others[4], "SCRIPT", "KILL")
		out = append(out, loop.read(t))
		for _, d := range others {
			ask(d, "PING")
		}

		loop.send(t, "FCALL", "spin", "0")
		busy("function")
		ask(others[5], "FUNCTION", "KILL")
		out = append(out, loop.read(t))
		ask(others[5], "FUNCTION", "DELETE", "loops")

		loop.send(t, "EVAL", "redis.call('set', 'w', '1') local i = 0 while true do i = i + 1 end", "0")
		time.Sleep(500 * time.Millisecond)
		ask(others[6], "SCRIPT", "KILL")
		ask(others[6], "SHUTDOWN")
		// SHUTDOWN NOSAVE stops the server: its sender is not answered, and
		// the script's connection closes (radish may send the aborted
		// script's error first).
		others[7].send(t, "SHUTDOWN", "NOSAVE")
		others[7].c.SetDeadline(time.Now().Add(10 * time.Second))
		if b, err := others[7].r.ReadByte(); err == nil {
			t.Errorf("SHUTDOWN NOSAVE was answered %q", b)
		}
		loop.c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, loop.r); err != nil {
			t.Errorf("the script's connection did not close: %v", err)
		}
		return out
	}
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(s.log)
			t.Logf("radish-server log:\n%s", log)
		}
	})
	got, want := run(s.addr), run(ref)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || !bytes.Equal(got[i], want[i]) {
			t.Errorf("reply %d: radish %q, redis %q", i, at(got, i), at(want, i))
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("radish-server exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SHUTDOWN NOSAVE did not stop radish-server")
	}
}

func at(b [][]byte, i int) []byte {
	if i < len(b) {
		return b[i]
	}
	return nil
}

// TestScriptMemoryLimit: a script that allocates without bound fails with
// lua-memory-limit's error and the server keeps serving; one that churns
// through more than the limit in garbage runs to its end.
func TestScriptMemoryLimit(t *testing.T) {
	s := start(t, "--shards", "2", "--lua-memory-limit", "8mb")
	d := dialDiff(t, s.addr, 2)
	grow := "local t = {} for i = 1, 100000000 do t[i] = string.rep('x', 100) .. i end return #t"
	got := string(d.do(t, []string{"EVAL", grow, "0"})[0])
	want := "-ERR Script used more memory than lua-memory-limit allows (8388608 bytes) script: "
	if len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("a growing script answered %q", got)
	}
	churn := "local n = 0 for i = 1, 200000 do local s = string.rep('y', 100) .. i n = n + #s end return n"
	if got := string(d.do(t, []string{"EVAL", churn, "0"})[0]); got != ":21088895\r\n" {
		t.Errorf("a churning script answered %q", got)
	}
	if got := string(d.do(t, []string{"SET", "k", "v"})[0]); got != "+OK\r\n" {
		t.Errorf("after the scripts: %q", got)
	}
}

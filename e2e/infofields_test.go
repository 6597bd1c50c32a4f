package e2e

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestInfoFieldsAgainstRedis: INFO fields that need a load to move, each
// brought about the same way on radish-server and redis-server, both held
// to the same bounds.
func TestInfoFieldsAgainstRedis(t *testing.T) {
	starts := map[string]func(t *testing.T) string{
		"radish": func(t *testing.T) string { return start(t, "--shards", "2").addr },
		"redis":  func(t *testing.T) string { return startRedis(t, redisBin(t), "--enable-debug-command", "yes") },
	}
	for name, start := range starts {
		t.Run(name, func(t *testing.T) {
			addr := start(t)
			t.Run("ClientBuffers", func(t *testing.T) { infoClientBuffers(t, addr) })
			t.Run("MainThreadCPU", func(t *testing.T) { infoMainThreadCPU(t, addr) })
			t.Run("Replication", func(t *testing.T) { infoReplBytes(t, addr, start(t)) })
		})
	}
}

// infoOn asks addr for INFO section over a connection of its own.
func infoOn(t *testing.T, addr, section string) string {
	t.Helper()
	v, _, err := resp.ReadReply(dialDiff(t, addr, 2).do(t, []string{"INFO", section})[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(v.Str)
}

// untilInfo polls INFO section until ok holds of it, for 10 s at most.
func untilInfo(t *testing.T, addr, section, what string, ok func(info string) bool) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		info := infoOn(t, addr, section)
		if ok(info) {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10s, %s:\n%s", what, info)
		}
	}
}

// infoInt is an integer field of info, -1 when it is missing.
func infoInt(info, name string) int64 {
	n, err := strconv.ParseInt(infoOf(info, name), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// infoClientBuffers: a client that stops reading 300 replies of 100 KB,
// and one that sent 200 KB of a 1 MB argument, show in
// client_recent_max_output_buffer and client_recent_max_input_buffer.
func infoClientBuffers(t *testing.T, addr string) {
	c := dialDiff(t, addr, 2)
	c.do(t, []string{"SET", "big", strings.Repeat("x", 100_000)})
	var w resp.Writer
	for range 300 {
		w.Array(2)
		w.BulkString("GET")
		w.BulkString("big")
	}
	stalled := dialDiff(t, addr, 2)
	stalled.c.Write(w.B) // and never read
	partial := dialDiff(t, addr, 2)
	partial.c.Write([]byte("*2\r\n$4\r\nECHO\r\n$1000000\r\n" + strings.Repeat("y", 200_000)))
	untilInfo(t, addr, "clients", "client buffers", func(info string) bool {
		return infoInt(info, "client_recent_max_output_buffer") >= 1<<20 &&
			infoInt(info, "client_recent_max_input_buffer") >= 100_000
	})
}

// infoMainThreadCPU: after some work the main thread's CPU time (the
// shards' threads, for radish) is more than nothing and at most the
// process's.
func infoMainThreadCPU(t *testing.T, addr string) {
	c := dialDiff(t, addr, 2)
	cmds := make([][]string, 1000)
	for i := range cmds {
		cmds[i] = []string{"SET", "k" + strconv.Itoa(i), strings.Repeat("v", 1000)}
	}
	for range 20 {
		c.do(t, cmds...)
	}
	f := func(info, name string) float64 {
		v, err := strconv.ParseFloat(infoOf(info, name), 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	untilInfo(t, addr, "cpu", "the main thread's CPU time", func(info string) bool {
		main := f(info, "used_cpu_sys_main_thread") + f(info, "used_cpu_user_main_thread")
		all := f(info, "used_cpu_sys") + f(info, "used_cpu_user")
		return main > 0 && main <= all
	})
}

// infoReplBytes: a full sync of 10,000 keys, then 1,000 SETs of 1,000
// bytes, count at least the stream's 1 MB in the primary's
// total_net_repl_output_bytes, and the replica's
// total_net_repl_input_bytes is within 5% of it (the link's own replies
// aside, they are the same bytes); as Redis 7.0 counts them,
// total_net_output_bytes and total_net_input_bytes include them.
func infoReplBytes(t *testing.T, primary, replica string) {
	rcli(t, primary, "DEBUG", "POPULATE", "10000", "repl", "100")
	host, port, _ := net.SplitHostPort(primary)
	rcli(t, replica, "REPLICAOF", host, port)
	t.Cleanup(func() { rcli(t, replica, "REPLICAOF", "NO", "ONE") })
	waitFor(t, "the replica's link up", func() bool {
		return infoOf(infoOn(t, replica, "replication"), "master_link_status") == "up"
	})
	out0, in0 := infoOn(t, primary, "stats"), infoOn(t, replica, "stats")
	c := dialDiff(t, primary, 2)
	cmds := make([][]string, 1000)
	for i := range cmds {
		cmds[i] = []string{"SET", "big" + strconv.Itoa(i), strings.Repeat("v", 1000)}
	}
	c.do(t, cmds...)
	waitSame(t, primary, replica)
	out1, in1 := infoOn(t, primary, "stats"), infoOn(t, replica, "stats")
	out, in := infoInt(out1, "total_net_repl_output_bytes"), infoInt(in1, "total_net_repl_input_bytes")
	if out < 1_000_000 || in < out*95/100 || in > out*105/100 {
		t.Errorf("the primary's total_net_repl_output_bytes %d, the replica's total_net_repl_input_bytes %d", out, in)
	}
	grew := func(a, b string, name string) int64 { return infoInt(b, name) - infoInt(a, name) }
	if all, repl := grew(out0, out1, "total_net_output_bytes"), grew(out0, out1, "total_net_repl_output_bytes"); repl < 1_000_000 || all < repl {
		t.Errorf("while the stream went, the primary's total_net_output_bytes +%d, total_net_repl_output_bytes +%d", all, repl)
	}
	if all, repl := grew(in0, in1, "total_net_input_bytes"), grew(in0, in1, "total_net_repl_input_bytes"); repl < 1_000_000 || all < repl {
		t.Errorf("while the stream came, the replica's total_net_input_bytes +%d, total_net_repl_input_bytes +%d", all, repl)
	}
}

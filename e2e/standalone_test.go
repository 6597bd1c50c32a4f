package e2e

import (
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

// TestStandaloneAgainstRedis: what a client asks to learn what kind of
// server it talks to gets redis-server's replies, RESP2 and RESP3: MODULE
// (none loaded; LOAD, LOADEX and UNLOAD refused under
// enable-module-command no, Redis's default, and finding no module under
// yes), ASKING and CLUSTER outside a cluster (READONLY and READWRITE answer as Valkey
// 8: TestClientCapaRedirect), RESTORE-ASKING
// as RESTORE, and INFO's sections, in Redis's order, with its Cluster
// section.
func TestStandaloneAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	cmds := [][]string{
		{"MODULE", "LIST"}, {"MODULE", "HELP"}, {"MODULE", "LOAD", "/nonexistent/m.so"},
		{"MODULE", "LOADEX", "/nonexistent/m.so", "CONFIG", "a", "b", "ARGS", "c"}, {"MODULE", "UNLOAD", "m"},
		{"MODULE", "NOSUCH"}, {"MODULE"}, {"MODULE", "LIST", "extra"}, {"MODULE", "LOAD"},
		{"ASKING"}, {"READONLY", "extra"},
		{"CLUSTER", "INFO"}, {"CLUSTER", "HELP"}, {"CLUSTER", "SLOTS"}, {"CLUSTER", "KEYSLOT", "k"}, {"CLUSTER", "KEYSLOT"},
		{"CLUSTER", "NOSUCH"}, {"CLUSTER"},
		{"COMMAND", "GETKEYS", "MIGRATE", "h", "p", "", "0", "5", "AUTH2", "u", "keys", "KEYS", "a", "b"},
		{"COMMAND", "GETKEYS", "MIGRATE", "h", "p", "k", "0", "5", "KEYS", "a"},
		{"COMMAND", "GETKEYS", "MIGRATE", "h", "p", "k", "0", "5", "COPY"},
		{"SET", "src", "value"}, {"RESTORE-ASKING", "dst", "0", "not a payload"},
		{"INFO", "cluster"}, {"INFO", "modules"},
	}
	// Every command redis-server lists is here, but SCRIPT DEBUG.
	lists := [2]map[string]bool{}
	ref0 := startRedis(t, redisBin)
	s0 := start(t)
	for i, addr := range []string{s0.addr, ref0} {
		lists[i] = map[string]bool{}
		for _, n := range strings.Fields(rcli(t, addr, "COMMAND", "LIST")) {
			lists[i][n] = true
		}
	}
	for n := range lists[1] {
		if !lists[0][n] && n != "script|debug" {
			t.Errorf("COMMAND LIST lacks redis-server's %s", n)
		}
	}
	// INFO everything has every field of redis-server's but these: the
	// Lua VMs' memory (gopher-lua's states live on Go's heap, with no
	// allocator of their own to ask) and the reply buffer's resizes (a
	// connection's output grows by append and is released once sent when
	// over 1 MiB; Redis's clientsCron resizes a buffer each client keeps).
	absent := map[string]bool{}
	for _, f := range strings.Fields(`reply_buffer_expands reply_buffer_shrinks
		used_memory_lua used_memory_lua_human used_memory_vm_eval used_memory_vm_functions used_memory_vm_total used_memory_vm_total_human`) {
		absent[f] = true
	}
	var fields [2]map[string]bool
	for i, addr := range []string{s0.addr, ref0} {
		fields[i] = map[string]bool{}
		for _, l := range strings.Split(rcli(t, addr, "INFO", "everything"), "\n") {
			if k, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && !strings.HasPrefix(k, "cmdstat_") &&
				!strings.HasPrefix(k, "errorstat_") && !strings.HasPrefix(k, "latency_percentiles_usec_") {
				fields[i][k] = true
			}
		}
	}
	for f := range fields[1] {
		if !fields[0][f] && !absent[f] {
			t.Errorf("INFO lacks redis-server's %s", f)
		}
		if fields[0][f] && absent[f] {
			t.Errorf("INFO has %s now: take it off the list", f)
		}
	}
	// Blocked clients: with a timeout, in the timeout table; without, not.
	for _, addr := range []string{s0.addr, ref0} {
		for _, timeout := range []string{"100", "0"} {
			b := dialDiff(t, addr, 2)
			w := resp.Writer{}
			w.Array(3)
			w.BulkString("BLPOP")
			w.BulkString("nosuch" + timeout)
			w.BulkString(timeout)
			b.c.Write(w.B)
		}
	}
	clientsLine := regexp.MustCompile(`(blocked_clients|clients_in_timeout_table):\d+`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := clientsLine.FindAllString(rcli(t, s0.addr, "INFO", "clients"), -1)
		want := clientsLine.FindAllString(rcli(t, ref0, "INFO", "clients"), -1)
		if reflect.DeepEqual(got, want) && reflect.DeepEqual(want, []string{"blocked_clients:2", "clients_in_timeout_table:1"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO clients: radish %q, redis %q", got, want)
		}
	}
	for _, modules := range []string{"no", "yes"} {
		ref := startRedis(t, redisBin, "--enable-module-command", modules)
		s := start(t, "--shards", "2", "--enable-module-command", modules)
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("modules-%s/RESP%d", modules, proto), func(t *testing.T) {
				a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
				for _, c := range cmds {
					if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
						t.Errorf("%q: radish %q, redis %q", c, got, want)
					}
				}
				// A payload DUMP made restores under RESTORE-ASKING.
				payload := b.do(t, []string{"DUMP", "src"})[0]
				v := string(payload[bytesAfterCRLF(payload):])
				v = v[:len(v)-2]
				for _, c := range [][]string{{"RESTORE-ASKING", "dst", "0", v}, {"GET", "dst"}, {"RESTORE-ASKING", "dst", "0", v}} {
					if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
						t.Errorf("%.20q: radish %q, redis %q", c, got, want)
					}
				}
				a.do(t, []string{"DEL", "dst"})
				b.do(t, []string{"DEL", "dst"})
				for _, sections := range [][]string{{"INFO"}, {"INFO", "default"}, {"INFO", "all"}, {"INFO", "everything"},
					{"INFO", "errorstats", "cluster"}} {
					if got, want := headers(a.do(t, sections)[0]), headers(b.do(t, sections)[0]); !reflect.DeepEqual(got, want) {
						t.Errorf("%q: radish's sections %q, redis's %q", sections, got, want)
					}
				}
			})
		}
	}
}

// bytesAfterCRLF is where a bulk reply's bytes start (after "$n\r\n").
func bytesAfterCRLF(b []byte) int {
	for i := range b {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return len(b)
}

var sectionHeader = regexp.MustCompile(`(?m)^# (\w+)\r$`)

// headers are the section names of an INFO reply, in order.
func headers(reply []byte) []string {
	var names []string
	for _, m := range sectionHeader.FindAllSubmatch(reply, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// TestClientCapaRedirect: Valkey 8's CLIENT CAPA redirect. On a replica,
// a client that said it gets -REDIRECT <primary> for a write and for a
// read until it says READONLY (a command on no key, PING, is served);
// inside MULTI such a command makes EXEC abort; an EXEC whose queue was
// queued while the server was a primary, and writes, is redirected once
// it is a replica, and its MULTI ends, as is a command blocked then (a
// client without the capability gets Redis's UNBLOCKED); READWRITE and
// RESET take READONLY back.
// A client that did not say it gets -READONLY as before, and on the
// primary the capability changes nothing. CLIENT LIST shows READONLY as
// Redis's flag r.
func TestClientCapaRedirect(t *testing.T) {
	primary := start(t, "--shards", "2")
	ph, pp := hostPort(primary.addr)
	replica := start(t, "--shards", "3", "--replicaof", ph+" "+pp)
	linkUp(t, replica.addr)
	redirect := "-REDIRECT " + ph + ":" + pp + "\r\n"
	p := dialDiff(t, primary.addr, 2)
	p.do(t, []string{"SET", "k", "v"})
	waitSame(t, primary.addr, replica.addr)
	if got := p.do(t, []string{"CLIENT", "CAPA", "redirect"}, []string{"SET", "k", "v"}, []string{"GET", "k"}); string(got[1]) != "+OK\r\n" || string(got[2]) != "$1\r\nv\r\n" {
		t.Errorf("on the primary with the capability: %q", got)
	}
	plain := dialDiff(t, replica.addr, 2)
	if got := plain.do(t, []string{"SET", "k", "w"}, []string{"GET", "k"}); string(got[0]) != "-READONLY You can't write against a read only replica.\r\n" || string(got[1]) != "$1\r\nv\r\n" {
		t.Errorf("without the capability: %q", got)
	}
	c := dialDiff(t, replica.addr, 3)
	steps := []struct {
		cmd  []string
		want string
	}{
		{[]string{"CLIENT", "CAPA", "redirect", "unknown-capa"}, "+OK\r\n"},
		{[]string{"SET", "k", "w"}, redirect},
		{[]string{"GET", "k"}, redirect},
		{[]string{"MGET", "k", "x", "y"}, redirect},
		{[]string{"PING"}, "+PONG\r\n"},
		{[]string{"MULTI"}, "+OK\r\n"},
		{[]string{"GET", "k"}, redirect},
		{[]string{"EXEC"}, "-EXECABORT Transaction discarded because of previous errors.\r\n"},
		{[]string{"READONLY"}, "+OK\r\n"},
		{[]string{"GET", "k"}, "$1\r\nv\r\n"},
		{[]string{"SET", "k", "w"}, redirect},
		{[]string{"MULTI"}, "+OK\r\n"},
		{[]string{"SET", "k", "w"}, redirect},
		{[]string{"EXEC"}, "-EXECABORT Transaction discarded because of previous errors.\r\n"},
		{[]string{"READWRITE"}, "+OK\r\n"},
		{[]string{"GET", "k"}, redirect},
		{[]string{"READONLY"}, "+OK\r\n"},
		{[]string{"RESET"}, "+RESET\r\n"},
		{[]string{"GET", "k"}, redirect},
		{[]string{"ASKING"}, "-ERR This instance has cluster support disabled\r\n"},
	}
	for i, st := range steps {
		if st.cmd[0] == "RESET" {
			c = dialDiff(t, replica.addr, 2) // RESET goes back to RESP2: a fresh RESP2 connection checks the rest
			c.do(t, []string{"CLIENT", "CAPA", "redirect"}, []string{"READONLY"})
		}
		if got := string(c.do(t, st.cmd)[0]); got != st.want {
			t.Fatalf("step %d %q: %q, want %q", i, st.cmd, got, st.want)
		}
	}
	c.do(t, []string{"READONLY"})
	if got := string(c.do(t, []string{"CLIENT", "INFO"})[0]); !strings.Contains(got, " flags=r ") {
		t.Errorf("CLIENT INFO after READONLY: %q", got)
	}
	// A MULTI queued on a primary that then becomes a replica.
	other := start(t, "--shards", "2")
	q := dialDiff(t, other.addr, 2)
	if got := q.do(t, []string{"CLIENT", "CAPA", "redirect"}, []string{"MULTI"}, []string{"SET", "k", "z"}); string(got[2]) != "+QUEUED\r\n" {
		t.Fatalf("queued on a primary: %q", got)
	}
	// Blocked when it becomes a replica: redirected, or UNBLOCKED as
	// Redis unblocks them.
	capable, plain := dialDiff(t, other.addr, 2), dialDiff(t, other.addr, 2)
	capable.do(t, []string{"CLIENT", "CAPA", "redirect"})
	for _, b := range []*diffConn{capable, plain} {
		var w resp.Writer
		w.Array(3)
		w.BulkString("BLPOP")
		w.BulkString("queue")
		w.BulkString("0")
		b.c.Write(w.B)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(other.cli("INFO", "clients"), "blocked_clients:2"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the BLPOPs never blocked")
		}
	}
	other.cli("REPLICAOF", ph, pp)
	linkUp(t, other.addr)
	if got := q.do(t, []string{"EXEC"}, []string{"EXEC"}); string(got[0]) != redirect || string(got[1]) != "-ERR EXEC without MULTI\r\n" {
		t.Errorf("EXEC once a replica: %q", got)
	}
	for i, b := range []*diffConn{capable, plain} {
		want := []string{redirect, "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\r\n"}[i]
		b.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if l, err := b.r.ReadString('\n'); l != want {
			t.Errorf("a BLPOP blocked when its server became a replica: %q, %v; want %q", l, err, want)
		}
	}
}

// TestMigrateAgainstRedis: MIGRATE from radish-server (3 shards) and from
// redis-server, each to a redis-server target of its own (and radish's
// also to a radish-server target): the same commands get the same
// replies, RESP2 and RESP3, and leave the same keys on both sides: one
// key and KEYS (keys on every shard, some missing), COPY, REPLACE, a key
// the target has (BUSYKEY, the key stays), TTLs, every type, AUTH refused
// by the target, a database the target lacks, an unreachable target,
// syntax errors, NOKEY.
func TestMigrateAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	sh, sp := hostPort(s.addr)
	replica := start(t, "--shards", "2", "--replicaof", sh+" "+sp)
	targets := []struct{ name, src, dst string }{
		{"redis->redis", ref, startRedis(t, redisBin)},
		{"radish->redis", s.addr, startRedis(t, redisBin)},
		{"radish->radish", s.addr, start(t, "--shards", "2").addr},
	}
	dead := freePort(t)
	fill := [][]string{
		{"FLUSHALL"}, {"SET", "s1", "v1"}, {"SET", "s2", "v2", "PX", "500000"}, {"RPUSH", "l", "a", "b", "c"},
		{"HSET", "h", "f", "1", "g", "2"}, {"SADD", "set", "x", "y"}, {"ZADD", "z", "1", "a", "2.5", "b"},
		{"XADD", "st", "1-1", "f", "v"}, {"SET", "busy", "here"}, {"SET", "c1", "copy"},
	}
	script := func(host, port string) [][]string {
		return [][]string{
			{"MIGRATE", host, port, "s1", "0", "5000"},
			{"EXISTS", "s1"},
			{"MIGRATE", host, port, "s1", "0", "5000"},
			{"MIGRATE", host, port, "", "0", "5000", "KEYS", "s2", "l", "nosuch", "h", "set", "z", "st"},
			{"EXISTS", "s2", "l", "h", "set", "z", "st"},
			{"MIGRATE", host, port, "busy", "0", "5000"},
			{"EXISTS", "busy"},
			{"MIGRATE", host, port, "busy", "0", "5000", "REPLACE"},
			{"EXISTS", "busy"},
			{"MIGRATE", host, port, "c1", "0", "5000", "COPY"},
			{"EXISTS", "c1"},
			{"MIGRATE", host, port, "c1", "0", "5000", "COPY", "REPLACE", "AUTH", "wrong"},
			{"MIGRATE", host, port, "c1", "0", "5000", "COPY", "AUTH2", "someone", "wrong"},
			{"MIGRATE", host, port, "c1", "99", "5000", "COPY"},
			{"MIGRATE", host, port, "c1", "0", "5000", "BOGUS"},
			{"MIGRATE", host, port, "c1", "0", "5000", "KEYS", "c1"},
			{"MIGRATE", host, port, "c1", "x", "5000"},
			{"MIGRATE", host, port, "c1", "0", "x"},
			{"MIGRATE", host, port, "c1", "0", "5000", "AUTH"},
			{"MIGRATE", host, port, "c1"},
			{"MIGRATE", "127.0.0.1", strconv.Itoa(dead), "c1", "0", "200"},
			{"MIGRATE", "127.0.0.1", strconv.Itoa(dead), "nosuch", "0", "200"},
		}
	}
	check := [][]string{{"GET", "s1"}, {"PTTL", "s2"}, {"LRANGE", "l", "0", "-1"}, {"HGETALL", "h"}, {"SMEMBERS", "set"},
		{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"XRANGE", "st", "-", "+"}, {"GET", "busy"}, {"GET", "c1"}, {"DBSIZE"}}
	for _, proto := range []int{2, 3} {
		var want [][]byte // redis->redis's replies, then its target's keys
		for i, tg := range targets {
			t.Run(fmt.Sprintf("%s/RESP%d", tg.name, proto), func(t *testing.T) {
				src, dst := dialDiff(t, tg.src, proto), dialDiff(t, tg.dst, proto)
				src.do(t, fill...)
				dst.do(t, []string{"FLUSHALL"}, []string{"SET", "busy", "there"})
				host, port := hostPort(tg.dst)
				cmds := script(host, port)
				var got [][]byte
				for _, c := range cmds {
					got = append(got, src.do(t, c)[0])
				}
				for _, c := range check {
					r := dst.do(t, c)[0]
					if c[0] == "PTTL" {
						if v := string(r); len(v) < 3 || v[0] != ':' || v[1] == '-' {
							t.Errorf("PTTL of a migrated key with a TTL: %q", r)
						}
						r = []byte(":ttl\r\n")
					}
					got = append(got, workload.Canonical(c, r))
				}
				if i == 0 {
					want = got
					return
				}
				for j := range got {
					what := "reply to " + strings.Join(append([]string{}, cmds[min(j, len(cmds)-1)]...), " ")
					if j >= len(cmds) {
						what = "target's " + strings.Join(check[j-len(cmds)], " ")
					}
					if string(got[j]) != string(want[j]) {
						t.Errorf("%s: %s %q, redis %q", what, tg.name, got[j], want[j])
					}
				}
				if tg.src == s.addr {
					// What moved left the replica too (a DEL in the stream).
					waitSame(t, s.addr, replica.addr)
				}
			})
		}
	}
}

// TestLolwutAgainstRedis: LOLWUT's art, RESP2 and RESP3. Where Redis
// draws no random dot (the version line; Schotter with at most two rows
// of squares, which only turn from the third on; the limits on sizes) the
// bytes are redis-server's; with random ones, the shape is (lines, the
// dots of the first rows, the cells of each line, the credits).
func TestLolwutAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t)
	for _, proto := range []int{2, 3} {
		a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
		for _, c := range [][]string{{"LOLWUT"}, {"LOLWUT", "VERSION"}, {"LOLWUT", "VERSION", "7"}, {"LOLWUT", "VERSION", "x"},
			{"LOLWUT", "VERSION", "-1"}, {"LOLWUT", "VERSION", "5", "40", "5", "2"}, {"LOLWUT", "VERSION", "5", "1", "1", "1"},
			{"LOLWUT", "VERSION", "5", "2000", "500", "-3"}, {"LOLWUT", "VERSION", "4.9"}, {"LOLWUT", "VERSION", "5", "x"},
			{"LOLWUT", "VERSION", "6", "1", "x"}, {"LOLWUT", "10"}} {
			if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
				t.Errorf("RESP%d %q: radish %q, redis %q", proto, c, got, want)
			}
		}
		for _, c := range [][]string{{"LOLWUT", "VERSION", "5"}, {"LOLWUT", "VERSION", "6"}, {"LOLWUT", "VERSION", "6", "30", "7"}} {
			got := strings.Split(string(a.do(t, c)[0]), "\n")
			want := strings.Split(string(b.do(t, c)[0]), "\n")
			if len(got) != len(want) || got[len(got)-2] != want[len(want)-2] {
				t.Errorf("RESP%d %q: %d lines ending %q, redis %d ending %q", proto, c, len(got), got[len(got)-2], len(want), want[len(want)-2])
				continue
			}
			for i := range got[:len(got)-3] {
				if c[2] == "5" && i < 7 && got[i] != want[i] {
					t.Errorf("RESP%d %q: line %d %q, redis %q", proto, c, i, got[i], want[i])
				}
				if c[2] == "6" && i > 0 && strings.Count(got[i], " \x1b[0m") != strings.Count(want[i], " \x1b[0m") {
					t.Errorf("RESP%d %q: line %d has %d cells, redis's %d", proto, c, i, strings.Count(got[i], " \x1b[0m"), strings.Count(want[i], " \x1b[0m"))
				}
			}
		}
	}
}

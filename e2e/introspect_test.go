package e2e

import (
	"bufio"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// diffScript sends each command to radish (a) and redis-server (b) and
// requires the same reply once norm has rewritten both (nil: as they
// are).
func diffScript(t *testing.T, a, b *diffConn, norm func(args []string, reply []byte) []byte, cmds ...[]string) {
	t.Helper()
	for _, c := range cmds {
		got, want := a.do(t, c)[0], b.do(t, c)[0]
		if norm != nil {
			got, want = norm(c, got), norm(c, want)
		}
		if string(got) != string(want) {
			t.Fatalf("%q:\nradish %q\nredis  %q", c, got, want)
		}
	}
}

// needRedis starts redis-server with extra arguments.
func needRedis(t *testing.T, extra ...string) string {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	return startRedis(t, redisBin, extra...)
}

// slowNorm rewrites the entries of a SLOWLOG GET reply: what differs by
// nature (id, time, duration, the client's port) becomes 0, an address
// keeps only its host.
func slowNorm(t *testing.T) func([]string, []byte) []byte {
	return func(args []string, reply []byte) []byte {
		if len(args) < 2 || !strings.EqualFold(args[0], "slowlog") || !strings.EqualFold(args[1], "get") || reply[0] != '*' {
			return reply
		}
		v, _, err := resp.ReadReply(reply)
		if err != nil {
			t.Fatalf("%q: %v", reply, err)
		}
		for i := range v.Elems {
			e := v.Elems[i].Elems
			for j := range 3 {
				e[j].Int = 0
			}
			if h, _, ok := strings.Cut(string(e[4].Str), ":"); ok {
				e[4].Str = []byte(h)
			}
		}
		w := resp.Writer{Proto: 3}
		resp.AppendValue(&w, v)
		return w.B
	}
}

// TestSlowlogAgainstRedis logs every command (slowlog-log-slower-than
// 0) on radish (three shards) and on redis-server and compares SLOWLOG
// GET's entries (arguments truncated as Redis does, the client's name and
// host; a command over several shards is one entry), LEN, trimming to
// slowlog-max-len, RESET and the errors, RESP2 and RESP3.
func TestSlowlogAgainstRedis(t *testing.T) {
	ref := needRedis(t)
	s := start(t, "--shards", "3")
	long := strings.Repeat("v", 300)
	many := []string{"RPUSH", "list"}
	for i := range 40 {
		many = append(many, strconv.Itoa(i))
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			diffScript(t, a, b, slowNorm(t),
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "0"},
				[]string{"CONFIG", "SET", "slowlog-max-len", "128"},
				[]string{"SLOWLOG", "RESET"},
				[]string{"CLIENT", "SETNAME", "slow"},
				[]string{"SET", "k", long},
				[]string{"MSET", "a", "1", "b", "2", "c", "3", "d", "4"},
				many,
				[]string{"GET", "nosuch"},
				[]string{"SLOWLOG", "GET", "3"},
				[]string{"SLOWLOG", "GET"},
				[]string{"SLOWLOG", "LEN"},
				[]string{"SLOWLOG", "GET", "-1"},
				[]string{"SLOWLOG", "GET", "0"},
				[]string{"SLOWLOG", "GET", "-2"},
				[]string{"SLOWLOG", "GET", "x"},
				[]string{"SLOWLOG", "GET", "1", "2"},
				[]string{"SLOWLOG", "LEN", "x"},
				[]string{"SLOWLOG", "NOSUCH"},
				[]string{"SLOWLOG", "HELP"},
				[]string{"CONFIG", "SET", "slowlog-max-len", "3"},
				[]string{"PING"},
				[]string{"SLOWLOG", "LEN"},
				[]string{"SLOWLOG", "GET", "-1"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "-1"},
				[]string{"SLOWLOG", "RESET"},
				[]string{"PING"},
				[]string{"SLOWLOG", "LEN"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "-2"},
				[]string{"CONFIG", "SET", "slowlog-max-len", "-1"},
				[]string{"CONFIG", "GET", "slowlog-max-len"},
				[]string{"CONFIG", "GET", "slowlog-log-slower-than"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "10000", "slowlog-max-len", "128"},
			)
		})
	}
}

// infoFields reads INFO's fields named (section "everything") over d.
func infoFields(t *testing.T, d *diffConn, names ...string) map[string]string {
	t.Helper()
	v, _, err := resp.ReadReply(d.do(t, []string{"INFO", "everything"})[0])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(v.Str), "\r\n") {
		k, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for _, n := range names {
			if k == n {
				out[k] = val
			}
		}
	}
	return out
}

// TestInfoStatsAgainstRedis runs the same read and write commands on
// radish (three shards) and redis-server after CONFIG RESETSTAT and
// compares keyspace_hits and keyspace_misses (lookups of read commands,
// one per key argument, across shards too), then the Pub/Sub counts with
// one subscriber; and checks what cannot equal Redis's: the bytes in and
// out grow by at least what was sent and received, and the memory fields
// add up (used_memory_dataset + used_memory_overhead = used_memory).
func TestInfoStatsAgainstRedis(t *testing.T) {
	ref := needRedis(t)
	s := start(t, "--shards", "3")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	diffScript(t, a, b, nil,
		[]string{"FLUSHALL"}, []string{"SET", "a", "1"}, []string{"RPUSH", "l", "1", "2"}, []string{"HSET", "h", "f", "v"},
		[]string{"SADD", "s", "m"}, []string{"ZADD", "z", "1", "m"}, []string{"CONFIG", "RESETSTAT"},
		[]string{"GET", "a"}, []string{"GET", "b"}, []string{"MGET", "a", "b", "l", "h"}, []string{"EXISTS", "a", "b", "a"},
		[]string{"TYPE", "s"}, []string{"TTL", "nosuch"}, []string{"LRANGE", "l", "0", "-1"}, []string{"HGETALL", "h"},
		[]string{"HGETALL", "nosuch"}, []string{"SMEMBERS", "s"}, []string{"ZSCORE", "z", "m"}, []string{"ZRANGE", "nosuch", "0", "1"},
		[]string{"GET", "l"}, []string{"INCR", "a"}, []string{"SET", "c", "1"}, []string{"DEL", "c", "nosuch"},
		[]string{"STRLEN", "a"}, []string{"OBJECT", "ENCODING", "a"}, []string{"SISMEMBER", "s", "x"}, []string{"LINDEX", "l", "0"},
	)
	names := []string{"keyspace_hits", "keyspace_misses", "pubsub_channels", "pubsub_patterns", "pubsubshard_channels"}
	// A sharded subscription reaches its channel's owner after the
	// SSUBSCRIBE's reply: the counts are read again for a while.
	check := func() {
		t.Helper()
		want := infoFields(t, b, names...)
		var got map[string]string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			got = infoFields(t, a, names...)
			if maps.Equal(got, want) || time.Now().After(deadline) {
				break
			}
		}
		for _, n := range names {
			if got[n] != want[n] || got[n] == "" {
				t.Errorf("%s: radish %q, redis %q", n, got[n], want[n])
			}
		}
	}
	check()
	sa, sb := dialDiff(t, s.addr, 3), dialDiff(t, ref, 3)
	diffScript(t, sa, sb, nil, []string{"SUBSCRIBE", "c1", "c2"}, []string{"PSUBSCRIBE", "p*"}, []string{"SSUBSCRIBE", "{x}1"})
	check()

	f := infoFields(t, a, "total_net_input_bytes", "total_net_output_bytes", "used_memory", "used_memory_dataset",
		"used_memory_overhead", "used_memory_startup", "used_memory_peak", "instantaneous_ops_per_sec", "mem_fragmentation_ratio")
	num := func(k string) int64 {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q", k, f[k])
		}
		return n
	}
	if num("total_net_input_bytes") < 300 || num("total_net_output_bytes") < 100 {
		t.Errorf("net bytes: %v", f)
	}
	if num("used_memory_dataset")+num("used_memory_overhead") != num("used_memory") ||
		num("used_memory_startup") > num("used_memory") || num("used_memory_peak") < num("used_memory") {
		t.Errorf("memory fields: %v", f)
	}
	if _, err := strconv.ParseFloat(f["mem_fragmentation_ratio"], 64); err != nil || f["instantaneous_ops_per_sec"] == "" {
		t.Errorf("ratios: %v", f)
	}
}

// digits replaces every run of digits in a reply with "0": what a
// latency or a time is differs by nature between two servers.
var digits = regexp.MustCompile(`[0-9]+`)

// TestLatencyAgainstRedis compares the latency monitor with redis-server
// (three shards): DOCTOR disabled, with nothing observed and after a
// slow command (DEBUG SLEEP), LATEST, HISTORY, GRAPH and RESET (numbers
// aside), the errors and HELP; and LATENCY HISTOGRAM's shape: the same
// commands with the same calls, Redis's bucket labels, cumulative counts
// ending at the calls; RESP2 and RESP3.
func TestLatencyAgainstRedis(t *testing.T) {
	ref := needRedis(t, "--enable-debug-command", "yes")
	s := start(t, "--shards", "3")
	norm := func(args []string, reply []byte) []byte { return digits.ReplaceAll(reply, []byte("0")) }
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			diffScript(t, a, b, norm,
				[]string{"CONFIG", "SET", "latency-monitor-threshold", "0"},
				[]string{"LATENCY", "RESET"},
				[]string{"LATENCY", "DOCTOR"},
				[]string{"LATENCY", "LATEST"},
				// A threshold that only the DEBUG SLEEP passes: on a loaded
				// machine any command may take 10 ms, on one server and not
				// the other, and log an event of its own.
				[]string{"CONFIG", "SET", "latency-monitor-threshold", "200"},
				[]string{"LATENCY", "DOCTOR"},
				[]string{"LATENCY", "GRAPH", "command"},
				[]string{"LATENCY", "HISTORY", "command"},
				[]string{"DEBUG", "SLEEP", "0.25"},
				[]string{"LATENCY", "LATEST"},
				[]string{"LATENCY", "HISTORY", "command"},
				[]string{"LATENCY", "HISTORY", "nosuch"},
				[]string{"LATENCY", "GRAPH", "command"},
				[]string{"LATENCY", "DOCTOR"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "-1"},
				[]string{"LATENCY", "DOCTOR"},
				[]string{"CONFIG", "SET", "slowlog-log-slower-than", "10000"},
				[]string{"LATENCY", "RESET", "nosuch", "command"},
				[]string{"LATENCY", "RESET"},
				[]string{"LATENCY", "LATEST"},
				[]string{"LATENCY", "HISTORY"},
				[]string{"LATENCY", "NOSUCH"},
				[]string{"LATENCY", "HELP"},
				[]string{"CONFIG", "SET", "latency-monitor-threshold", "0"},
				[]string{"CONFIG", "GET", "latency-tracking"},
				[]string{"CONFIG", "GET", "latency-tracking-info-percentiles"},
				[]string{"CONFIG", "SET", "latency-tracking-info-percentiles", "50 101"},
				[]string{"CONFIG", "SET", "latency-tracking-info-percentiles", "50 x"},
			)
			diffScript(t, a, b, nil, []string{"CONFIG", "RESETSTAT"})
			for i := range 40 {
				diffScript(t, a, b, nil, []string{"SET", "k" + strconv.Itoa(i), "v"}, []string{"GET", "k" + strconv.Itoa(i)})
			}
			got, want := histograms(t, a), histograms(t, b)
			for _, cmd := range []string{"set", "get"} {
				if got[cmd].calls != want[cmd].calls || got[cmd].calls == 0 {
					t.Errorf("%s: radish %d calls, redis %d", cmd, got[cmd].calls, want[cmd].calls)
				}
				if last := got[cmd].cum[len(got[cmd].cum)-1]; last != got[cmd].calls {
					t.Errorf("%s: cumulative counts end at %d, not at the calls", cmd, last)
				}
				for _, l := range got[cmd].labels {
					if !slices.Contains([]int64{1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16909, 33818,
						67637, 135274, 270549, 541098, 1082196}, l) {
						t.Errorf("%s: bucket %d is not one of Redis's", cmd, l)
					}
				}
			}
			// Percentiles as configured in INFO, none with latency-tracking no.
			pct := regexp.MustCompile(`(?m)^latency_percentiles_usec_get:p50=[0-9.]+,p99\.5=[0-9.]+\r$`)
			diffScript(t, a, b, nil, []string{"CONFIG", "SET", "latency-tracking-info-percentiles", "50 99.5"})
			for _, d := range []*diffConn{a, b} {
				if info := d.do(t, []string{"INFO", "latencystats"})[0]; !pct.Match(info) {
					t.Errorf("INFO latencystats: %q", info)
				}
			}
			diffScript(t, a, b, nil, []string{"CONFIG", "SET", "latency-tracking", "no"}, []string{"INFO", "latencystats"},
				[]string{"CONFIG", "SET", "latency-tracking", "yes"},
				[]string{"CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"})
		})
	}
}

type histogram struct {
	calls       int64
	labels, cum []int64
}

// histograms reads LATENCY HISTOGRAM SET GET NOSUCH.
func histograms(t *testing.T, d *diffConn) map[string]histogram {
	t.Helper()
	v, _, err := resp.ReadReply(d.do(t, []string{"LATENCY", "HISTOGRAM", "SET", "GET", "NOSUCH"})[0])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]histogram{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		h := v.Elems[i+1].Elems
		var hg histogram
		hg.calls = h[1].Int
		for j := 0; j+1 < len(h[3].Elems); j += 2 {
			hg.labels = append(hg.labels, h[3].Elems[j].Int)
			hg.cum = append(hg.cum, h[3].Elems[j+1].Int)
		}
		out[string(v.Elems[i].Str)] = hg
	}
	return out
}

// monitorNorm rewrites a MONITOR line's time and the client's port or
// socket path, which differ by nature.
var monitorNorm = regexp.MustCompile(`^\+[0-9]+\.[0-9]{6} \[([0-9]+) (127\.0\.0\.1:[0-9]+|unix:[^\]]+|lua)\]`)

// monitorScript runs cmds on a connection (and PING over the Unix socket
// at unixPath) while a MONITOR connection listens, and returns what the
// monitor received, normalized, up to the marker ECHO.
func monitorScript(t *testing.T, addr, unixPath string, cmds [][]string) []string {
	t.Helper()
	m := dialDiff(t, addr, 2)
	if r := m.do(t, []string{"MONITOR"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("MONITOR: %q", r)
	}
	c := dialDiff(t, addr, 2)
	for _, cmd := range cmds {
		c.do(t, cmd)
	}
	u, err := net.Dial("unix", unixPath)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	ud := &diffConn{c: u, r: bufio.NewReader(u)}
	ud.do(t, []string{"PING", "unix"})
	c.do(t, []string{"ECHO", "end"})
	var lines []string
	m.c.SetDeadline(time.Now().Add(5 * time.Second))
	for {
		line, err := m.r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", lines, err)
		}
		line = monitorNorm.ReplaceAllStringFunc(strings.TrimSuffix(line, "\r\n"), func(s string) string {
			sm := monitorNorm.FindStringSubmatch(s)
			who := sm[2]
			switch {
			case strings.HasPrefix(who, "127."):
				who = "127.0.0.1:port"
			case strings.HasPrefix(who, "unix:"):
				who = "unix:path"
			}
			return "+time [" + sm[1] + " " + who + "]"
		})
		if line == `+time [2 127.0.0.1:port] "ECHO" "end"` {
			return lines
		}
		lines = append(lines, line)
	}
}

// TestMonitorAgainstRedis: a MONITOR connection receives the same lines
// from radish as from redis-server (times and ports aside): Redis's
// quoting, the database after SELECT, MULTI then the commands then EXEC,
// EVAL then its redis.call commands as [db lua], no line for admin
// commands, refused commands or the queued ones, a command over several
// shards as one line, [0 unix:path] for a Unix-socket client. On one
// shard the order is Redis's; on three, each shard's lines keep their
// order and the same lines arrive.
func TestMonitorAgainstRedis(t *testing.T) {
	dir := t.TempDir()
	refSock, sock1, sock3 := filepath.Join(dir, "redis.sock"), filepath.Join(dir, "r1.sock"), filepath.Join(dir, "r3.sock")
	ref := needRedis(t, "--unixsocket", refSock)
	cmds := [][]string{
		{"SET", "k", "v"}, {"GET", "a b\n\"\x01\xff\t\\"}, {"MSET", "a", "1", "b", "2", "c", "3"}, {"SELECT", "2"},
		{"MULTI"}, {"INCR", "n"}, {"SET", "m", "x"}, {"EXEC"}, {"EVAL", "return redis.call('set','x','1')", "0"},
		{"CONFIG", "GET", "hz"}, {"NOSUCH"}, {"GET"}, {"SUBSCRIBE", "ch"}, {"PING"}, {"UNSUBSCRIBE"},
		{"CLIENT", "SETNAME", "c"}, {"DEL", "a", "b", "c"},
	}
	want := monitorScript(t, ref, refSock, cmds)
	one := start(t, "--shards", "1", "--unixsocket", sock1)
	if got := monitorScript(t, one.addr, sock1, cmds); !slices.Equal(got, want) {
		t.Fatalf("one shard:\nradish\n  %s\nredis\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	three := start(t, "--shards", "3", "--unixsocket", sock3)
	got := monitorScript(t, three.addr, sock3, cmds)
	slices.Sort(got)
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	if !slices.Equal(got, sorted) {
		t.Fatalf("three shards:\nradish\n  %s\nredis\n  %s", strings.Join(got, "\n  "), strings.Join(sorted, "\n  "))
	}
}

// TestMonitorReset: RESET ends MONITOR mode, and a closed monitor costs
// the shards nothing more (no line is written for it).
func TestMonitorReset(t *testing.T) {
	s := start(t, "--shards", "2")
	m := dialDiff(t, s.addr, 2)
	m.do(t, []string{"MONITOR"})
	c := dialDiff(t, s.addr, 2)
	c.do(t, []string{"SET", "k", "v"})
	if line, err := m.r.ReadString('\n'); err != nil || !strings.HasSuffix(line, `"SET" "k" "v"`+"\r\n") {
		t.Fatalf("monitor line %q %v", line, err)
	}
	if r := m.do(t, []string{"RESET"})[0]; string(r) != "+RESET\r\n" {
		t.Fatalf("RESET: %q", r)
	}
	c.do(t, []string{"SET", "k", "w"})
	if r := m.do(t, []string{"PING"})[0]; string(r) != "+PONG\r\n" {
		t.Fatalf("after RESET the monitor still got %q", r)
	}
}

// TestClientAgainstRedis compares CLIENT's errors and filters with
// redis-server (three shards): KILL's old form and every filter, LIST's
// TYPE and ID, PAUSE's arguments; the fields CLIENT INFO prints (Redis
// 7.0's and 7.2's lib-name and lib-ver), the flags of a client in MULTI,
// subscribed or monitoring; and PAUSE WRITE: reads go on, a write waits
// for UNPAUSE.
func TestClientAgainstRedis(t *testing.T) {
	ref := needRedis(t)
	s := start(t, "--shards", "3")
	for _, addr := range []string{s.addr, ref} {
		t.Run(map[bool]string{true: "radish", false: "redis"}[addr == s.addr], func(t *testing.T) {
			a := dialDiff(t, addr, 2)
			expect := func(d *diffConn, want string, cmd ...string) {
				t.Helper()
				if got := string(d.do(t, cmd)[0]); got != want {
					t.Errorf("%q: %q, want %q", cmd, got, want)
				}
			}
			for _, c := range []struct{ want, cmd string }{
				{"-ERR No such client\r\n", "CLIENT KILL 1.2.3.4:5"},
				{":0\r\n", "CLIENT KILL ADDR 1.2.3.4:5"},
				{"-ERR Unknown client type 'foo'\r\n", "CLIENT KILL TYPE foo"},
				{"-ERR No such user 'bob'\r\n", "CLIENT KILL USER bob"},
				{"-ERR client-id should be greater than 0\r\n", "CLIENT KILL ID 0"},
				{"-ERR syntax error\r\n", "CLIENT KILL SKIPME maybe"},
				{"-ERR No such client\r\n", "CLIENT KILL ID"},
				{":0\r\n", "CLIENT KILL TYPE master"},
				{"-ERR timeout is not an integer or out of range\r\n", "CLIENT PAUSE x"},
				{"-ERR timeout is negative\r\n", "CLIENT PAUSE -1"},
				{"-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n", "CLIENT PAUSE 10 foo"},
				{"-ERR Unknown client type 'foo'\r\n", "CLIENT LIST TYPE foo"},
				{"-ERR Invalid client ID\r\n", "CLIENT LIST ID x"},
				{"$0\r\n\r\n", "CLIENT LIST TYPE master"},
			} {
				expect(a, c.want, strings.Fields(c.cmd)...)
			}
			info := string(bulk(t, a.do(t, []string{"CLIENT", "INFO"})[0]))
			var names []string
			for _, f := range strings.Fields(info) {
				k, _, _ := strings.Cut(f, "=")
				names = append(names, k)
			}
			want := "id addr laddr fd name age idle flags db sub psub ssub multi qbuf qbuf-free argv-mem multi-mem rbs rbp " +
				"obl oll omem tot-mem events cmd user redir resp"
			if got := strings.Join(names, " "); got != want && got != want+" lib-name lib-ver" {
				t.Errorf("CLIENT INFO fields %q", got)
			}
			// Flags: in MULTI (x, multi= its queue), subscribed (P), monitoring (O).
			id := func(d *diffConn) string {
				return strings.TrimSuffix(strings.TrimPrefix(string(d.do(t, []string{"CLIENT", "ID"})[0]), ":"), "\r\n")
			}
			m, sub, mon := dialDiff(t, addr, 2), dialDiff(t, addr, 2), dialDiff(t, addr, 2)
			mid, sid, oid := id(m), id(sub), id(mon)
			m.do(t, []string{"MULTI"}, []string{"SET", "k", "v"}, []string{"GET", "k"})
			sub.do(t, []string{"SUBSCRIBE", "ch"})
			mon.do(t, []string{"MONITOR"})
			for _, c := range []struct{ id, want string }{{mid, "flags=x "}, {mid, "multi=2 "}, {sid, "flags=P "}, {sid, "sub=1 "}, {oid, "flags=O "}} {
				if line := string(bulk(t, a.do(t, []string{"CLIENT", "LIST", "ID", c.id})[0])); !strings.Contains(line, c.want) {
					t.Errorf("client %s: %q lacks %q", c.id, line, c.want)
				}
			}
			if l := string(bulk(t, a.do(t, []string{"CLIENT", "LIST", "TYPE", "pubsub"})[0])); strings.Count(l, "\n") != 1 || !strings.Contains(l, "id="+sid+" ") {
				t.Errorf("CLIENT LIST TYPE pubsub: %q", l)
			}
			m.do(t, []string{"DISCARD"})
			expect(a, ":1\r\n", "CLIENT", "KILL", "TYPE", "pubsub")
			expect(a, ":1\r\n", "CLIENT", "KILL", "ID", oid, "SKIPME", "yes")
			// PAUSE WRITE: a read goes on, a write waits for UNPAUSE.
			expect(a, "+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
			expect(m, "$-1\r\n", "GET", "nosuch")
			var w resp.Writer
			w.Array(3)
			w.BulkString("SET")
			w.BulkString("p")
			w.BulkString("1")
			if _, err := m.c.Write(w.B); err != nil {
				t.Fatal(err)
			}
			m.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if b, err := m.r.ReadByte(); err == nil {
				t.Fatalf("a write was answered during CLIENT PAUSE WRITE (%q)", b)
			}
			expect(a, "+OK\r\n", "CLIENT", "UNPAUSE")
			m.c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if line, err := m.r.ReadString('\n'); err != nil || line != "+OK\r\n" {
				t.Fatalf("the paused SET after UNPAUSE: %q %v", line, err)
			}
			expect(a, "+OK\r\n", "CLIENT", "KILL", m.c.LocalAddr().String())
		})
	}
}

// TestConfigRewrite: CONFIG REWRITE on a server started with a config
// file rewrites it as Redis does (comments and foreign lines kept, the
// first line of a changed parameter rewritten, its other lines blanked,
// the changes the file lacked appended after Redis's signature), the
// rewritten file starts a server with the same values, and a server
// without a file answers Redis's error, as redis-server does.
func TestConfigRewrite(t *testing.T) {
	ref := needRedis(t)
	s := start(t)
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	diffScript(t, a, b, nil, []string{"CONFIG", "REWRITE"}, []string{"CONFIG", "REWRITE", "x"}, []string{"CONFIG", "HELP"})

	dir := t.TempDir()
	conf := filepath.Join(dir, "radish.conf")
	text := "# radish\nsave 900 1\nsave 300 10\nloglevel notice\nlazyfree-lazy-eviction no\nhz 10\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() *server {
		port := freePort(t)
		srv := &server{t: t, port: port, addr: "127.0.0.1:" + strconv.Itoa(port), log: filepath.Join(dir, "server.log")}
		srv.cmd = exec.Command(serverBin, conf, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--logfile", srv.log)
		srv.cmd.Stderr = os.Stderr
		if err := srv.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.stop)
		return await(t, srv)
	}
	c := dialDiff(t, run().addr, 2)
	for _, cmd := range [][]string{{"CONFIG", "SET", "hz", "25", "save", "60 5", "slowlog-max-len", "77"}, {"CONFIG", "REWRITE"}} {
		if r := c.do(t, cmd)[0]; string(r) != "+OK\r\n" {
			t.Fatalf("%q: %q", cmd, r)
		}
	}
	got, _ := os.ReadFile(conf)
	want := "# radish\nsave 60 5\n\nloglevel notice\nlazyfree-lazy-eviction no\nhz 25\n# Generated by CONFIG REWRITE\n"
	if !strings.HasPrefix(string(got), want) || !strings.Contains(string(got), "\nslowlog-max-len 77\n") {
		t.Fatalf("rewritten file:\n%s", got)
	}
	c2 := dialDiff(t, run().addr, 2)
	for k, v := range map[string]string{"hz": "25", "save": "60 5", "slowlog-max-len": "77"} {
		r := string(c2.do(t, []string{"CONFIG", "GET", k})[0])
		if !strings.HasSuffix(r, "$"+strconv.Itoa(len(v))+"\r\n"+v+"\r\n") {
			t.Errorf("after the rewrite %s is %q", k, r)
		}
	}
}

// TestDebugAgainstRedis: DEBUG SET-ACTIVE-EXPIRE, LISTPACK and
// CHANGE-REPL-ID answer as redis-server's (STRINGMATCH-TEST as its
// text), and do
// what they say: with active expiry off an expired key nobody reads
// stays counted, and is removed once it is on again; CHANGE-REPL-ID
// changes INFO's master_replid.
func TestDebugAgainstRedis(t *testing.T) {
	ref := needRedis(t, "--enable-debug-command", "yes")
	s := start(t, "--shards", "3")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	diffScript(t, a, b, nil,
		[]string{"FLUSHALL"}, []string{"HSET", "h", "f", "v"}, []string{"RPUSH", "l", "a"}, []string{"SET", "s", "1"},
		[]string{"DEBUG", "LISTPACK", "h"}, []string{"DEBUG", "LISTPACK", "l"}, []string{"DEBUG", "LISTPACK", "s"},
		[]string{"DEBUG", "LISTPACK", "nosuch"}, []string{"DEBUG", "LISTPACK"},
		[]string{"DEBUG", "CHANGE-REPL-ID"}, []string{"DEBUG", "SET-ACTIVE-EXPIRE"},
		[]string{"DEBUG", "SET-ACTIVE-EXPIRE", "x"}, []string{"DEBUG", "SET-ACTIVE-EXPIRE", "0"},
		[]string{"FLUSHALL"}, []string{"SET", "e", "1", "PX", "20"},
	)
	time.Sleep(300 * time.Millisecond)
	diffScript(t, a, b, nil, []string{"DBSIZE"}, []string{"DEBUG", "SET-ACTIVE-EXPIRE", "1"})
	for _, d := range []*diffConn{a, b} {
		deadline := time.Now().Add(10 * time.Second)
		for string(d.do(t, []string{"DBSIZE"})[0]) != ":0\r\n" {
			if time.Now().After(deadline) {
				t.Fatal("active expiry did not resume")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Redis's own run takes half a minute: radish's alone, and Valkey's name.
	for _, name := range []string{"STRINGMATCH-TEST", "STRINGMATCH-LEN"} {
		if r := string(a.do(t, []string{"DEBUG", name})[0]); r != "+Apparently Redis did not crash: test passed\r\n" {
			t.Errorf("DEBUG %s: %q", name, r)
		}
	}
	id := func() string { return infoFields(t, a, "master_replid")["master_replid"] }
	before := id()
	a.do(t, []string{"DEBUG", "CHANGE-REPL-ID"})
	if after := id(); len(after) != 40 || after == before {
		t.Errorf("master_replid %q, then %q", before, after)
	}
}

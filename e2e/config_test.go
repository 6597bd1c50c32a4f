package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/radish-kv/radish/net/resp"
)

// The parameters CONFIG SET changes at run time, each seen doing what it
// says on a running server. (maxmemory: TestMaxMemory, and below.)

func TestConfigSetMaxClients(t *testing.T) {
	s := start(t, "--shards", "2")
	ctl := dial(t, s)
	// Only ctl is connected once start's probe connection is gone.
	deadline := time.Now().Add(5 * time.Second)
	for ctl.info("connected_clients") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("connected_clients = %s, want 1", ctl.info("connected_clients"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctl.call("CONFIG SET maxclients 2", "+OK")
	dial(t, s).call("PING", "+PONG")
	if got, _ := io.ReadAll(dial(t, s)); string(got) != "-ERR max number of clients reached\r\n" {
		t.Fatalf("third client under maxclients 2: %q", got)
	}
	ctl.call("CONFIG SET maxclients 3", "+OK")
	dial(t, s).call("PING", "+PONG")
	if got := ctl.info("maxclients"); got != "3" {
		t.Fatalf("INFO maxclients = %s", got)
	}
}

func TestConfigSetProtoMaxBulkLen(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	if err := c.Set(ctx, "k", strings.Repeat("x", 2000000), 0).Err(); err != nil {
		t.Fatalf("2 MB SET under proto-max-bulk-len 512mb: %v", err)
	}
	if err := c.ConfigSet(ctx, "proto-max-bulk-len", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	header := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n"
	b := dial(t, s)
	fmt.Fprint(b, header)
	if got, _ := io.ReadAll(b); string(got) != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("2 MB bulk under proto-max-bulk-len 1mb: %q", got)
	}
}

// TestConfigSetProtoMaxBulkLenStrings: proto-max-bulk-len also bounds the
// strings SETRANGE and APPEND build, with Redis's replies (as redis-server
// 7.0.15 answers them).
func TestConfigSetProtoMaxBulkLenStrings(t *testing.T) {
	s := start(t, "--shards", "2")
	s.cli("CONFIG", "SET", "proto-max-bulk-len", "1mb")
	s.cli("SET", "a", "x")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SETRANGE", "k", "2000000", "x"}, "ERR string exceeds maximum allowed size (proto-max-bulk-len)\n\n"}, // redis-cli ends an error with a blank line
		{[]string{"SETRANGE", "k", "1048575", "x"}, "1048576\n"},
		{[]string{"APPEND", "k", "x"}, "ERR string exceeds maximum allowed size (proto-max-bulk-len)\n\n"}, // redis-cli ends an error with a blank line
		{[]string{"APPEND", "a", "yz"}, "3\n"},
		{[]string{"CONFIG", "SET", "proto-max-bulk-len", "1048577"}, "OK\n"},
		{[]string{"APPEND", "k", "x"}, "1048577\n"},
	} {
		if got := s.cli(tc.args...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestConfigSetClientQueryBufferLimit(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	if err := c.ConfigSet(ctx, "client-query-buffer-limit", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	a := dial(t, s)
	// A 2 MB argument, sent in part: 1.5 MB wait in the query buffer.
	fmt.Fprint(a, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n"+strings.Repeat("x", 1500000))
	// Closed with input unread, the socket may end with a reset instead
	// of an end of file: both are the close.
	if got, err := io.ReadAll(a); len(got) != 0 || err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("over client-query-buffer-limit: read %q, %v; want the connection closed", got, err)
	}
	if err := c.ConfigSet(ctx, "client-query-buffer-limit", "4mb").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", strings.Repeat("x", 2000000), 0).Err(); err != nil {
		t.Fatalf("2 MB SET under a 4mb limit: %v", err)
	}
}

func TestConfigSetTimeout(t *testing.T) {
	s := start(t, "--shards", "2")
	// redis-cli, a new connection each time: a pooled one would be idle too.
	if got := s.cli("CONFIG", "SET", "timeout", "1"); got != "OK\n" {
		t.Fatalf("CONFIG SET timeout 1: %q", got)
	}
	blocked := dial(t, s)
	fmt.Fprint(blocked, "BLPOP list 0\r\n")
	if got, err := io.ReadAll(dial(t, s)); len(got) != 0 || err != nil {
		t.Fatalf("idle client under timeout 1: read %q, %v; want it closed", got, err)
	}
	// The blocked client outlived it and a later check: it still waits.
	time.Sleep(1500 * time.Millisecond)
	s.cli("RPUSH", "list", "v")
	if got := blocked.line(); got != "*2" {
		t.Fatalf("blocked client under timeout 1: %q", got)
	}

	s.cli("CONFIG", "SET", "timeout", "0")
	kept := dial(t, s)
	time.Sleep(2500 * time.Millisecond)
	kept.call("PING", "+PONG")
}

// TestConfigSetTCPKeepalive reads the server side of each connection in
// /proc/net/tcp: its timer is the keepalive timer (2), due within
// tcp-keepalive seconds, when keepalive is on. As in Redis a new value
// applies to connections accepted after it.
func TestConfigSetTCPKeepalive(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	for _, tc := range []struct {
		keepalive int
		timer     string
	}{{7, "02"}, {0, "00"}, {300, "02"}} {
		if err := c.ConfigSet(ctx, "tcp-keepalive", strconv.Itoa(tc.keepalive)).Err(); err != nil {
			t.Fatal(err)
		}
		a := dial(t, s)
		a.call("PING", "+PONG")
		timer, when := serverSideTimer(t, s.port, a.LocalAddr().(*net.TCPAddr).Port)
		if timer != tc.timer || tc.keepalive > 0 && (when <= 0 || when > int64(tc.keepalive)*100) {
			t.Errorf("tcp-keepalive %d: timer %s due in %d ticks", tc.keepalive, timer, when)
		}
	}
}

// serverSideTimer finds the server's socket of a connection in
// /proc/net/tcp (local port port, remote port peer) and returns its timer
// kind and the clock ticks (USER_HZ, 100 a second) until it fires.
func serverSideTimer(t *testing.T, port, peer int) (string, int64) {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skip(err)
	}
	local, remote := fmt.Sprintf("0100007F:%04X", port), fmt.Sprintf("0100007F:%04X", peer)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && f[1] == local && f[2] == remote {
			timer, when, _ := strings.Cut(f[5], ":")
			n, _ := strconv.ParseInt(when, 16, 64)
			return timer, n
		}
	}
	t.Fatalf("no server socket %s -> %s in /proc/net/tcp", local, remote)
	return "", 0
}

// TestConfigSetHz: active expiry runs from the cron, hz times a second. At
// hz 1 keys expiring every 25 ms for about 2.5 s are removed in one batch
// per cron, about 3 (the default hz 10 would show about 25); hz set back
// up still expires them all.
func TestConfigSetHz(t *testing.T) {
	s := start(t, "--shards", "1")
	c := s.client(2)
	expired := func() int {
		n, _ := strconv.Atoi(infoField(t, c, "expired_keys"))
		return n
	}
	if err := c.ConfigSet(ctx, "hz", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if got := infoField(t, c, "hz"); got != "1" {
		t.Fatalf("INFO hz = %s", got)
	}
	time.Sleep(200 * time.Millisecond) // the tick planned at hz 10 passes
	batches, last := 0, expired()
	began := time.Now()
	for i := 0; i < 100; i++ {
		c.Set(ctx, fmt.Sprintf("k%d", i), "v", time.Millisecond)
		time.Sleep(25 * time.Millisecond)
		if n := expired(); n != last {
			batches, last = batches+1, n
		}
	}
	// At most one cron a second, plus the one at each end.
	if took := time.Since(began); batches > int(took/time.Second)+2 {
		t.Errorf("hz 1: keys expired in %d batches within %v", batches, took)
	}
	if err := c.ConfigSet(ctx, "hz", "100").Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for expired() < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("hz 100: %d of 100 keys expired", expired())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConfigSetMaxMemoryBack: a budget lowered below the data refuses
// writes; raised again (0: none) they are taken.
func TestConfigSetMaxMemoryBack(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	p := c.Pipeline()
	for i := range 20000 {
		p.Set(ctx, fmt.Sprintf("fill:%d", i), "0123456789012345678901234567890123456789", 0)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "OOM ") {
		t.Fatalf("SET over maxmemory 1mb: %v", err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET under maxmemory 0: %v", err)
	}
}

// TestRefusedValues: a shard count past the limit is refused, not
// ignored, from the command line; appendonly starts the AOF from the file
// or the command line (CONFIG SET's, at run time: e2e/aofrw_test.go).
func TestRefusedValues(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "radish.conf")
	os.WriteFile(conf, []byte("hz 10\nappendonly yes\n"), 0o644)
	if s := startConf(t, conf); !strings.Contains(s.cli("config", "get", "appendonly"), "yes") {
		t.Errorf("appendonly yes from the file: %s", s.cli("config", "get", "appendonly"))
	}
	for _, tc := range []struct {
		args []string
		line int
		text string
		msg  string
	}{
		{[]string{"--shards", "257"}, 4, `shards "257"`, "argument must be between 1 and 256 inclusive"},
	} {
		want := fmt.Sprintf("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s\n",
			tc.line, tc.text, tc.msg)
		if got := startFails(t, tc.args...); got != want {
			t.Errorf("%q:\n got %q\nwant %q", tc.args, got, want)
		}
	}
}

// startFails runs radish-server with a config file if args has one
// first, then --port and --dir (lines 2 and 3 after the file), then the
// rest of args; it expects exit status 1 within
// 10 s and returns what it wrote to stderr.
func startFails(t *testing.T, args ...string) string {
	t.Helper()
	all := []string{"--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir()}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") { // a config file comes first
		all = append(append(args[:1:1], all...), args[1:]...)
	} else {
		all = append(all, args...)
	}
	cmd := exec.Command(serverBin, all...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%q: exit %v, want status 1", args, err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%q: server started", args)
	}
	return stderr.String()
}

// TestStockRedisConf starts radish with Debian's redis.conf for Redis
// 7.0.15 (the stock file with Debian's paths) as a user would: the file,
// then what must change. Debian's file daemonizes, which radish refuses;
// start's options give the port, dir and logfile, and a pidfile here.
func TestStockRedisConf(t *testing.T) {
	conf, err := filepath.Abs(filepath.Join("..", "config", "testdata", "redis-7.0.15-debian.conf"))
	if err != nil {
		t.Fatal(err)
	}
	out := startFails(t, conf, "--logfile", "", "--pidfile", "")
	if !strings.Contains(out, "at line 309\n>>> 'daemonize yes'\ndaemonize yes is not supported") {
		t.Fatalf("stock file without --daemonize no:\n%s", out)
	}
	pidfile := filepath.Join(t.TempDir(), "radish.pid")
	s := startConf(t, conf, "--daemonize", "no", "--pidfile", pidfile)
	c := s.client(2)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	got := c.ConfigGet(ctx, "*").Val()
	for k, v := range map[string]string{"databases": "16", "tcp-keepalive": "300", "timeout": "0", "appendonly": "no",
		"save": "", "hash-max-listpack-entries": "512", "daemonize": "no", "pidfile": pidfile} {
		if got[k] != v {
			t.Errorf("CONFIG GET %s = %q, want %q", k, got[k], v)
		}
	}
	if b, err := os.ReadFile(pidfile); err != nil || string(b) != strconv.Itoa(s.cmd.Process.Pid)+"\n" {
		t.Errorf("pidfile: %q %v, want %d", b, err, s.cmd.Process.Pid)
	}
	logs, _ := os.ReadFile(s.log)
	if n := bytes.Count(logs, []byte("ignored the config directives of Redis that do not apply to radish")); n != 1 ||
		!bytes.Contains(logs, []byte(`"tcp-backlog"`)) {
		t.Errorf("ignored directives logged %d times:\n%s", n, logs)
	}
	s.stop()
	if _, err := os.Stat(pidfile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pidfile after exit: %v", err)
	}
}

// TestScanAtMaxShards: with as many shards as a cursor can name (256), a
// SCAN visits every key once; the last shard's cursors have the top bit
// set (past int64), and the scan ends there.
func TestScanAtMaxShards(t *testing.T) {
	s := start(t, "--shards", "256")
	c := s.client(2)
	p := c.Pipeline()
	for i := range 2000 {
		p.Set(ctx, "key:"+strconv.Itoa(i), "v", 0)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]int)
	var cursor uint64
	top := false
	for {
		keys, next, err := c.Scan(ctx, cursor, "*", 50).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			seen[k]++
		}
		top = top || next>>56 == 255
		if next == 0 {
			break
		}
		cursor = next
	}
	if len(seen) != 2000 || !top {
		t.Fatalf("SCAN saw %d of 2000 keys; reached the last shard: %v", len(seen), top)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("SCAN returned %s %d times", k, n)
		}
	}
	if got := infoField(t, c, "shards"); got != "256" {
		t.Fatalf("INFO shards = %s", got)
	}
}

// rawConn is a plain connection with a reader, every read within 10 s.
type rawConn struct {
	net.Conn
	t  *testing.T
	rd *bufio.Reader
}

func dial(t *testing.T, s *server) *rawConn {
	c := s.raw()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{Conn: c, t: t, rd: bufio.NewReader(c)}
}

// line reads one reply line without its CRLF.
func (c *rawConn) line() string {
	c.t.Helper()
	line, err := c.rd.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v (got %q)", err, line)
	}
	return strings.TrimSuffix(line, "\r\n")
}

// call sends an inline command and checks the reply's first line.
func (c *rawConn) call(req, want string) {
	c.t.Helper()
	fmt.Fprint(c, req+"\r\n")
	if got := c.line(); got != want {
		c.t.Fatalf("%s: got %q, want %q", req, got, want)
	}
}

// info returns one field of INFO clients.
func (c *rawConn) info(name string) string {
	c.t.Helper()
	fmt.Fprint(c, "INFO clients\r\n")
	n, _ := strconv.Atoi(strings.TrimPrefix(c.line(), "$"))
	body := make([]byte, n+2)
	if _, err := io.ReadFull(c.rd, body); err != nil {
		c.t.Fatal(err)
	}
	for _, l := range strings.Split(string(body), "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return v
		}
	}
	return ""
}

// TestConfigSetLoglevel: an idle client closed by timeout is logged at
// verbose, as Redis does: not under notice, once loglevel is verbose.
func TestConfigSetLoglevel(t *testing.T) {
	s := start(t, "--shards", "2", "--timeout", "1")
	closed := func() int {
		if _, err := io.ReadAll(dial(t, s)); err != nil {
			t.Fatalf("idle client under timeout 1: %v; want it closed", err)
		}
		logs, _ := os.ReadFile(s.log)
		return bytes.Count(logs, []byte(`"msg":"closing idle client"`))
	}
	if n := closed(); n != 0 {
		t.Fatalf("loglevel notice: %d idle closes logged", n)
	}
	if got := s.cli("CONFIG", "SET", "loglevel", "verbose"); got != "OK\n" {
		t.Fatalf("CONFIG SET loglevel verbose: %q", got)
	}
	if n := closed(); n != 1 {
		t.Fatalf("loglevel verbose: %d idle closes logged, want 1", n)
	}
}

// TestConfigSetStoreSettings: requirepass, the encoding limits and
// lfu-log-factor apply to what comes after the CONFIG SET.
func TestConfigSetStoreSettings(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	set := func(name, value string) {
		t.Helper()
		if err := c.ConfigSet(ctx, name, value).Err(); err != nil {
			t.Fatalf("CONFIG SET %s %s: %v", name, value, err)
		}
	}
	enc := func(key string) string { return c.ObjectEncoding(ctx, key).Val() }
	c.HSet(ctx, "h1", "a", 1, "b", 2, "c", 3)
	c.SAdd(ctx, "s1", 1, 2, 3)
	c.ZAdd(ctx, "z1", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 3, Member: "c"})
	set("hash-max-listpack-entries", "2")
	set("set-max-intset-entries", "2")
	set("zset-max-listpack-entries", "2")
	c.HSet(ctx, "h2", "a", 1, "b", 2, "c", 3)
	c.SAdd(ctx, "s2", 1, 2, 3)
	c.ZAdd(ctx, "z2", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 3, Member: "c"})
	for key, want := range map[string]string{"h1": "listpack", "s1": "intset", "z1": "listpack",
		"h2": "hashtable", "s2": "hashtable", "z2": "skiplist"} {
		if got := enc(key); got != want {
			t.Errorf("OBJECT ENCODING %s = %q, want %q", key, got, want)
		}
	}

	// Under lfu-log-factor 0 every access counts: 10 GETs add 10.
	set("maxmemory-policy", "allkeys-lfu")
	set("lfu-log-factor", "0")
	c.Set(ctx, "hot", "v", 0)
	before := c.ObjectFreq(ctx, "hot").Val()
	for range 10 {
		c.Get(ctx, "hot")
	}
	if after := c.ObjectFreq(ctx, "hot").Val(); after != before+10 {
		t.Errorf("lfu-log-factor 0: OBJECT FREQ %d after 10 GETs from %d", after, before)
	}

	set("requirepass", "pw")
	if err := c.Ping(ctx).Err(); err != nil {
		t.Errorf("a connection made before requirepass: %v", err)
	}
	fresh := dial(t, s)
	fresh.call("PING", "-NOAUTH Authentication required.")
	fresh.call("AUTH pw", "+OK")
}

// TestStockValkeyConf starts radish with the directives a stock
// valkey.conf (Valkey 8.1) sets; its pidfile is under /var/run, so none.
func TestStockValkeyConf(t *testing.T) {
	conf, err := filepath.Abs(filepath.Join("..", "config", "testdata", "valkey-8-stock-directives.conf"))
	if err != nil {
		t.Fatal(err)
	}
	s := startConf(t, conf, "--pidfile", "")
	c := s.client(2)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	logs, _ := os.ReadFile(s.log)
	if !bytes.Contains(logs, []byte(`"commandlog-execution-slower-than"`)) {
		t.Errorf("ignored directives not logged:\n%s", logs)
	}
}

// TestMaxClientsOverFDLimit: a maxclients the open-files limit cannot hold
// is lowered at start with a warning, as Redis does.
func TestMaxClientsOverFDLimit(t *testing.T) {
	s := start(t, "--shards", "2", "--maxclients", "4294967295")
	c := s.client(2)
	n, _ := strconv.Atoi(c.ConfigGet(ctx, "maxclients").Val()["maxclients"])
	if n < 1 || n >= 4294967295 {
		t.Fatalf("maxclients = %d", n)
	}
	logs, _ := os.ReadFile(s.log)
	if !bytes.Contains(logs, []byte(`"requested":4294967295,"maxclients":`+strconv.Itoa(n))) {
		t.Errorf("no warning for the lowered maxclients:\n%s", logs)
	}
}

// TestPortInUse: a second server on a port a running one listens on
// refuses to start, as redis-server does, rather than joining the first
// one's SO_REUSEPORT listeners and taking part of its connections.
func TestPortInUse(t *testing.T) {
	s := start(t, "--shards", "2")
	out := startFails(t, "--shards", "2", "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port))
	if !strings.Contains(out, "address already in use") {
		t.Errorf("second server on port %d: stderr %q, want it to name the busy address", s.port, out)
	}
	if err := s.client(2).Ping(t.Context()).Err(); err != nil {
		t.Errorf("first server after the refused start: %v", err)
	}
}

// configUnfit are the parameters TestConfigSetAgainstRedis leaves alone:
// the ones that move the server (its port, files, role) or lock clients
// out.
var configUnfit = map[string]bool{"port": true, "bind": true, "dir": true, "dbfilename": true, "logfile": true,
	"unixsocket": true, "pidfile": true, "aclfile": true, "appendfilename": true, "appenddirname": true, "daemonize": true,
	"supervised": true, "requirepass": true, "masteruser": true, "masterauth": true, "replicaof": true, "slaveof": true,
	"tls-port": true, "save": true, "appendonly": true, "maxmemory": true, "maxclients": true}

// TestConfigSetAgainstRedis sets every parameter radish and redis-server
// both have to values a careless or hostile client sends (numbers past
// every range, words, nothing) and compares the replies; each parameter
// gets its value back after. The server must serve on after all of it,
// and a threshold past the overflow of its unit keeps its meaning.
func TestConfigSetAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	s := start(t, "--shards", "2")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, startRedis(t, redisBin), 2)
	names := func(d *diffConn) map[string]string {
		v, _, err := resp.ReadReply(d.do(t, []string{"CONFIG", "GET", "*"})[0])
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			m[string(v.Elems[i].Str)] = string(v.Elems[i+1].Str)
		}
		return m
	}
	ours, theirs := names(a), names(b)
	checked := 0
	for name, was := range ours {
		if _, ok := theirs[name]; !ok || configUnfit[name] {
			continue
		}
		checked++
		for _, v := range []string{"9223372036854775807", "-9223372036854775808", "4294967296", "-1", "", "abc", "1e308",
			"1 2", "0", "yes"} {
			set := []string{"CONFIG", "SET", name, v}
			if got, want := a.do(t, set)[0], b.do(t, set)[0]; !bytes.Equal(got, want) {
				t.Errorf("CONFIG SET %s %q: radish %q, redis %q", name, v, got, want)
			}
			a.do(t, []string{"CONFIG", "SET", name, was})
			b.do(t, []string{"CONFIG", "SET", name, theirs[name]})
		}
	}
	if checked < 80 {
		t.Fatalf("only %d parameters checked", checked)
	}
	// 18446744073709552 µs is 448 ns past 2^64 ns: still a threshold of
	// centuries, nothing logged.
	a.do(t, []string{"CONFIG", "SET", "slowlog-log-slower-than", "18446744073709552"}, []string{"SLOWLOG", "RESET"},
		[]string{"SET", "k", "v"})
	if got := a.do(t, []string{"SLOWLOG", "LEN"})[0]; string(got) != ":0\r\n" {
		t.Errorf("SLOWLOG LEN %q with a threshold of centuries", got)
	}
}

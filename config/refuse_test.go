package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const (
	noDaemon = "daemonize yes is not supported: run radish-server in the foreground under a supervisor (systemd, docker)"
)

// TestRefused: a value radish cannot honour yet fails the start, at the
// line that set the final value; a later line or option that turns it off
// wins, as the last line does in Redis.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		text string
		args []string
		err  string // "" = loads
	}{
		{text: "hz 20\nappendonly yes\n"},
		{text: "appenddirname a/b\n", err: banner(1, "appenddirname a/b", "appenddirname can't be a path, just a dirname")},
		{text: "appendfilename \"\"\n", err: banner(1, `appendfilename ""`, "appendfilename can't be empty")},
		{args: []string{"--metrics-port", "9121"}},
		{args: []string{"--metrics-port", "0"}},
		{text: "daemonize yes\n", err: banner(1, "daemonize yes", noDaemon)},
		{text: "daemonize yes\n", args: []string{"--daemonize", "no"}},
		// The first refused line wins, whatever the parameter.
		// A missing dir is reported at its line, unless a later one replaces it.
		{text: "dir /nonexistent/radish\n", err: banner(1, "dir /nonexistent/radish", "No such file or directory")},
		{text: "dir /nonexistent/radish\n", args: []string{"--dir", dir}},
		{text: "dir " + filepath.Join(dir, "c.conf") + "\n", err: banner(1, "dir "+filepath.Join(dir, "c.conf"), "Not a directory")},
		{args: []string{"--shards", "256"}},
		{args: []string{"--shards", "257"}, err: banner(2, `shards "257"`, "argument must be between 1 and 256 inclusive")},
	} {
		f := writeFile(t, dir, "c.conf", tc.text)
		_, err := load(append([]string{f}, tc.args...), nil)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("%q %q:\n got %v\nwant %s", tc.text, tc.args, err, tc.err)
		}
	}
}

// TestSaveLines: in a file the first save line replaces the defaults and
// later ones add rules, save "" clears them, as in Redis.
func TestSaveLines(t *testing.T) {
	for text, want := range map[string][]SavePoint{
		"save 3600 1\nsave \"300 100\"\n":      {{3600, 1}, {300, 100}},
		"save 3600 1 300 100\nsave 60 10000\n": {{3600, 1}, {300, 100}, {60, 10000}},
		"save 3600 1\nsave \"\"\n":             {},
		"save \"\"\nsave 60 1\n":               {{60, 1}},
	} {
		s := defaults()
		if err := (&loadState{last: map[*param]*FileError{}}).parse(s, text, ""); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Save, want) && !(len(s.Save) == 0 && len(want) == 0) {
			t.Errorf("%q: save = %v, want %v", text, s.Save, want)
		}
	}
}

// TestForeign: Redis's and Valkey's directives that do not apply load and
// are listed once; those whose value would promise a missing feature are
// refused unless that value is the inert one; unknown names stay refused.
func TestForeign(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "c.conf", "no-appendfsync-on-rewrite no\nlazyfree-lazy-expire no\nNO-APPENDFSYNC-ON-REWRITE yes\n"+
		"replicaof no one\ncluster-enabled no\nnotify-keyspace-events \"\"\ntls-cluster no\n"+
		"client-output-buffer-limit normal 0 0 0\nextended-redis-compatibility no\n")
	c, err := load([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"no-appendfsync-on-rewrite", "lazyfree-lazy-expire", "cluster-enabled",
		"tls-cluster", "extended-redis-compatibility"}
	if !reflect.DeepEqual(c.Ignored(), want) {
		t.Errorf("Ignored = %q, want %q", c.Ignored(), want)
	}
	if got := c.Get([]string{"no-appendfsync-on-rewrite"}); len(got) != 0 {
		t.Errorf("CONFIG GET no-appendfsync-on-rewrite = %q", got)
	}
	for _, tc := range []struct{ line, msg string }{
		{"replicaof 10.0.0.1 x", "Invalid master port"},
		{"cluster-enabled yes", "cluster mode is not supported: radish shards the keyspace itself (set cluster-enabled no)"},
		{"supervised systemd", "supervised upstart/systemd is not supported yet: radish sends no readiness signal (set supervised no)"},
		{"syslog-enabled yes", "syslog is not supported: radish logs to logfile or stderr (set syslog-enabled no)"},
		{"loadmodule /x.so", "modules are not supported (remove loadmodule)"},
		{"rename-command FLUSHALL \"\"", "rename-command is not supported: radish cannot rename or hide a command (remove rename-command)"},
		{"appendfsyncc everysec", errDirective},
	} {
		f := writeFile(t, dir, "c.conf", "hz 10\n"+tc.line+"\n")
		_, err := load([]string{f}, nil)
		var fe *FileError
		if !errors.As(err, &fe) || err.Error() != banner(2, tc.line, tc.msg) {
			t.Errorf("%s:\n got %v\nwant %s", tc.line, err, banner(2, tc.line, tc.msg))
		}
	}
	for n := range foreign {
		if n != strings.ToLower(n) || lookup(n) != nil {
			t.Errorf("foreign %q: not lower case, or a parameter", n)
		}
	}
}

// TestStockRedisConf loads Debian's redis.conf for redis-server 7.0.15
// (its stock file with Debian's paths and daemonize yes) as a user would:
// the file, then options for what radish refuses or cannot use here.
func TestStockRedisConf(t *testing.T) {
	f := filepath.Join("testdata", "redis-7.0.15-debian.conf")
	_, err := load([]string{f, "--dir", t.TempDir()}, nil)
	if err == nil || err.Error() != banner(309, "daemonize yes", noDaemon) {
		t.Errorf("without --daemonize no: %v", err)
	}
	c, err := load([]string{f, "--daemonize", "no", "--dir", t.TempDir(), "--logfile", "", "--pidfile", ""}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	if s.Port != 6379 || strings.Join(s.Bind, " ") != "127.0.0.1 -::1" || s.TCPKeepalive != 300 || s.Timeout != 0 ||
		s.Databases != 16 || s.AppendOnly || len(s.Save) != 3 || s.Hz != 10 || s.ListMaxListpackSize != -2 || !s.ProtectedMode {
		t.Errorf("snapshot %+v", s)
	}
	ign := strings.Join(c.Ignored(), " ")
	for _, n := range []string{"lazyfree-lazy-eviction", "tcp-backlog", "no-appendfsync-on-rewrite", "jemalloc-bg-thread"} {
		if !strings.Contains(" "+ign+" ", " "+n+" ") {
			t.Errorf("Ignored lacks %s: %s", n, ign)
		}
	}
}

// TestStockValkeyConf loads the directives a stock valkey.conf (8.1) sets.
// Every directive it names in comments is known too (TestForeign lists).
func TestStockValkeyConf(t *testing.T) {
	c, err := load([]string{filepath.Join("testdata", "valkey-8-stock-directives.conf")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	if s.Port != 6379 || s.PidFile != "/var/run/valkey_6379.pid" || s.TCPKeepalive != 300 || s.SetMaxIntsetEntries != 512 {
		t.Errorf("snapshot %+v", s)
	}
	for _, n := range []string{"tcp-keepalive-probes", "hide-user-data-from-log", "locale-collate", "rdb-version-check",
		"dual-channel-replication-enabled", "set-max-listpack-entries", "commandlog-execution-slower-than"} {
		if !slices.Contains(c.Ignored(), n) {
			t.Errorf("Ignored lacks %s", n)
		}
	}
}

// TestValkeyCommentedDirectives: the directives valkey.conf shows only in
// comments (examples to uncomment) are known as well.
func TestValkeyCommentedDirectives(t *testing.T) {
	for _, line := range []string{
		"bind-source-addr 10.0.0.1", "enable-protected-configs no", "enable-debug-command no", "enable-module-command no",
		"unixsocketgroup wheel", "unixsocketperm 700", "socket-mark-id 0", "tls-cert-file valkey.crt", "tls-key-file-pass secret",
		"tls-client-key-file-pass secret", "tls-auth-clients optional", "tls-protocols \"TLSv1.2 TLSv1.3\"", "rdma-bind 192.168.1.100",
		"rdma-rx-size 1048576", "rdma-completion-vector 0", "log-format legacy", "log-timestamp-format legacy", "syslog-ident valkey",
		"syslog-facility local0", "crash-log-enabled no", "crash-memcheck-enabled no", "extended-redis-compatibility no",
		"sanitize-dump-payload no", "primaryauth pw", "primaryuser u", "repl-ping-replica-period 10", "repl-timeout 60",
		"repl-backlog-size 10mb", "repl-backlog-ttl 3600", "propagation-error-behavior ignore", "replica-ignore-disk-write-errors no",
		"import-mode no", "replica-announced yes", "min-replicas-to-write 3", "min-replicas-max-lag 10", "replica-announce-ip 5.5.5.5",
		"replica-announce-port 1234", "tracking-table-max-keys 1000000", "acl-pubsub-default resetchannels",
		"maxmemory-eviction-tenacity 10", "replica-ignore-maxmemory yes", "io-threads 4", "prefetch-batch-max-size 16",
		"shutdown-timeout 10", "shutdown-on-sigint default", "shutdown-on-sigterm default", "lua-time-limit 5000",
		"busy-reply-threshold 5000", "cluster-config-file nodes-6379.conf", "cluster-node-timeout 15000", "cluster-port 0",
		"cluster-replica-validity-factor 10", "cluster-migration-barrier 1", "cluster-allow-replica-migration yes",
		"cluster-require-full-coverage yes", "cluster-replica-no-failover no", "cluster-allow-reads-when-down no",
		"cluster-allow-pubsubshard-when-down yes", "cluster-link-sendbuf-limit 0", "cluster-announce-hostname \"\"",
		"cluster-announce-human-nodename \"\"", "cluster-preferred-endpoint-type ip", "cluster-blacklist-ttl 60",
		"cluster-slot-stats-enabled no", "cluster-announce-ip 10.1.1.5", "cluster-announce-client-ipv4 123.123.123.5",
		"cluster-announce-client-ipv6 2001:db8::8a2e:370:7334", "cluster-announce-tls-port 6379", "cluster-announce-port 0",
		"cluster-announce-bus-port 6380", "latency-tracking yes", "latency-tracking-info-percentiles 50 99 99.9",
		"maxmemory-clients 5%", "max-new-connections-per-cycle 10", "max-new-tls-connections-per-cycle 1", "activedefrag no",
		"active-defrag-ignore-bytes 100mb", "active-defrag-threshold-lower 10", "active-defrag-threshold-upper 100",
		"active-defrag-cycle-min 1", "active-defrag-cycle-max 25", "active-defrag-max-scan-fields 1000",
		"active-defrag-cycle-us 500", "server-cpulist 0-7:2", "bio-cpulist 1,3", "aof-rewrite-cpulist 8-11",
		"bgsave-cpulist 1,10-11", "ignore-warnings ARM64-COW-BUG", "availability-zone \"zone-name\"",
		"io-threads-do-reads no", "rdma-port 0", "tls-port 0", "cluster-enabled no", "supervised no",
	} {
		f := writeFile(t, t.TempDir(), "c.conf", line+"\n")
		if _, err := load([]string{f}, nil); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// TestMaxClientsFDLimit: CONFIG SET maxclients beyond what the open-files
// limit can hold (4294967295 is past any kernel's nr_open) fails as in
// Redis, naming the most it allows; lowering it always works.
func TestMaxClientsFDLimit(t *testing.T) {
	c := New()
	err := c.Set([][2]string{{"maxclients", "4294967295"}})
	var l syscall.Rlimit
	if e := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); e != nil {
		t.Fatal(e)
	}
	n := int(l.Cur) - reservedFDs(c.Snapshot())
	want := "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with " + strconv.Itoa(n)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if got := MaxClientsAllowed(c.Snapshot()); got != min(10000, n) {
		t.Errorf("MaxClientsAllowed(10000) = %d, want %d", got, min(10000, n))
	}
	if err := c.Set([][2]string{{"maxclients", "10"}}); err != nil {
		t.Fatal(err)
	}
}

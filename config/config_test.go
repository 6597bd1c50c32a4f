package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestGet(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		pats []string
		want [][2]string
	}{
		{[]string{"port"}, [][2]string{{"port", "6379"}}},
		{[]string{"port", "port"}, [][2]string{{"port", "6379"}}},
		{[]string{"port", "hz", "p*rt"}, [][2]string{{"port", "6379"}, {"hz", "10"}}},
		{[]string{"HZ"}, [][2]string{{"HZ", "10"}}},
		{[]string{"nosuch", "nosuch*"}, nil},
		{[]string{"hash-max-z*"}, [][2]string{{"hash-max-ziplist-entries", "512"}, {"hash-max-ziplist-value", "64"}}},
		{[]string{"hash-max-*"}, [][2]string{{"hash-max-listpack-entries", "512"}, {"hash-max-ziplist-entries", "512"}, {"hash-max-listpack-value", "64"}, {"hash-max-ziplist-value", "64"}}},
		{[]string{"hash-max-ziplist-entries"}, [][2]string{{"hash-max-ziplist-entries", "512"}}},
		{[]string{"MAXMEMORY*"}, [][2]string{{"maxmemory", "0"}, {"maxmemory-clients", "0"}, {"maxmemory-policy", "noeviction"}, {"maxmemory-samples", "5"}, {"maxmemory-auto-fraction", "0.8"}}},
		{[]string{"bind", "save", "appendonly", "proto-max-bulk-len", "client-query-buffer-limit"}, [][2]string{
			{"bind", "127.0.0.1 -::1"}, {"save", "3600 1 300 100 60 10000"}, {"appendonly", "no"}, {"proto-max-bulk-len", "536870912"}, {"client-query-buffer-limit", "1073741824"}}},
		{[]string{"[pd]*o?t"}, [][2]string{{"port", "6379"}}},
	} {
		if got := c.Get(tc.pats); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Get(%q) = %q, want %q", tc.pats, got, tc.want)
		}
	}
	if n := len(c.Get([]string{"*"})); n < len(params) {
		t.Errorf("Get(*) gave %d", n)
	}
	if d := c.Get([]string{"dir"}); !filepath.IsAbs(d[0][1]) {
		t.Errorf("dir = %q", d)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"a*b", "axxb", true}, {"a*b", "axxc", false}, {"a?c", "abc", true},
		{"[a-c]x", "bx", true}, {"[^a-c]x", "bx", false}, {"[^a-c]x", "dx", true}, {`a\*`, "a*", true}, {`a\*`, "ab", false},
		{"A*", "abc", true}, {"[abc", "a", true},
	} {
		if got := Match(tc.p, tc.s, true); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
}

// TestSetErrors checks replies recorded from redis-server 7.0.15 (where
// radish agrees) and that a failed Set changes nothing.
func TestSetErrors(t *testing.T) {
	pre := "ERR CONFIG SET failed (possibly related to argument "
	for _, tc := range []struct {
		pairs [][2]string
		err   string
	}{
		{[][2]string{{"daemonize", "no"}}, pre + "'daemonize') - can't set immutable config"},
		{[][2]string{{"databases", "3"}}, pre + "'databases') - can't set immutable config"},
		{[][2]string{{"Databases", "3"}}, pre + "'Databases') - can't set immutable config"},
		{[][2]string{{"dir", "/tmp"}}, pre + "'dir') - can't set protected config"},
		{[][2]string{{"foo", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[][2]string{{"maxmemory", "abc"}}, pre + "'maxmemory') - argument must be a memory value"},
		{[][2]string{{"MAXMEMORY", "abc"}}, pre + "'maxmemory') - argument must be a memory value"},
		{[][2]string{{"maxmemory", "1.5mb"}}, pre + "'maxmemory') - argument must be a memory value"},
		{[][2]string{{"maxmemory", "-1"}}, pre + "'maxmemory') - argument must be a memory value"},
		{[][2]string{{"maxmemory", "1k"}, {"maxmemory", "2k"}}, pre + "'maxmemory') - duplicate parameter"},
		{[][2]string{{"Port", "0"}, {"port", "0"}}, pre + "'Port') - can't set immutable config"},
		{[][2]string{{"hz", "1"}, {"HZ", "2"}}, pre + "'HZ') - duplicate parameter"},
		{[][2]string{{"maxmemory", "1k"}, {"foo", "3"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[][2]string{{"databases", "1"}, {"foo", "2"}}, pre + "'databases') - can't set immutable config"},
		{[][2]string{{"foo", "1"}, {"databases", "2"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[][2]string{{"hz", "abc"}}, pre + "'hz') - argument couldn't be parsed into an integer"},
		{[][2]string{{"hz", "-1"}}, pre + "'hz') - argument must be between 0 and 2147483647 inclusive"},
		{[][2]string{{"hz", "99999999999999999999"}}, pre + "'hz') - argument couldn't be parsed into an integer"},
		{[][2]string{{"timeout", "05"}}, pre + "'timeout') - argument couldn't be parsed into an integer"},
		{[][2]string{{"timeout", "+5"}}, pre + "'timeout') - argument couldn't be parsed into an integer"},
		{[][2]string{{"timeout", "-1"}}, pre + "'timeout') - argument must be between 0 and 2147483647 inclusive"},
		{[][2]string{{"maxclients", "0"}}, pre + "'maxclients') - argument must be between 1 and 4294967295 inclusive"},
		{[][2]string{{"maxmemory-samples", "1k"}}, pre + "'maxmemory-samples') - argument couldn't be parsed into an integer"},
		{[][2]string{{"maxmemory-samples", "0"}}, pre + "'maxmemory-samples') - argument must be between 1 and 2147483647 inclusive"},
		{[][2]string{{"proto-max-bulk-len", "100"}}, pre + "'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive"},
		{[][2]string{{"client-query-buffer-limit", "100"}}, pre + "'client-query-buffer-limit') - argument must be between 1048576 and 9223372036854775807 inclusive"},
		{[][2]string{{"hash-max-ziplist-entries", "abc"}}, pre + "'hash-max-ziplist-entries') - argument couldn't be parsed into an integer"},
		{[][2]string{{"hash-max-listpack-entries", "-1"}}, pre + "'hash-max-listpack-entries') - argument must be between 0 and 9223372036854775807 inclusive"},
		{[][2]string{{"list-max-listpack-size", "99999999999"}}, pre + "'list-max-listpack-size') - argument must be between -2147483648 and 2147483647 inclusive"},
		{[][2]string{{"lfu-log-factor", "-1"}}, pre + "'lfu-log-factor') - argument must be between 0 and 2147483647 inclusive"},
		{[][2]string{{"active-expire-effort", "11"}}, pre + "'active-expire-effort') - argument must be between 1 and 10 inclusive"},
		{[][2]string{{"maxmemory-policy", "foo"}}, pre + "'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
		{[][2]string{{"aof-load-truncated", "maybe"}}, pre + "'aof-load-truncated') - argument must be 'yes' or 'no'"},
		{[][2]string{{"loglevel", "foo"}}, pre + "'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning"},
		{[][2]string{{"save", "1 2 3"}}, pre + "'save') - Invalid save parameters"},
		{[][2]string{{"save", "a b"}}, pre + "'save') - Invalid save parameters"},
		{[][2]string{{"save", "0 1"}}, pre + "'save') - Invalid save parameters"},
		{[][2]string{{"save", "1 -1"}}, pre + "'save') - Invalid save parameters"},
		{[][2]string{{"save", "  1   2  "}}, pre + "'save') - Invalid save parameters"},
		{[][2]string{{"aof-load-truncated", "no"}, {"hz", "20"}, {"loglevel", "bogus"}}, pre + "'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning"},
		{[][2]string{{"maxmemory", "1k"}, {"maxmemory-policy", "foo"}}, pre + "'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
		// What radish cannot honour yet is refused, not ignored.
		{[][2]string{{"appendonly", "maybe"}}, pre + "'appendonly') - argument must be 'yes' or 'no'"},
		{[][2]string{{"appendfsync", "sometimes"}}, pre + "'appendfsync') - argument(s) must be one of the following: everysec, always, no"},
		{[][2]string{{"metrics-port", "9121"}}, pre + "'metrics-port') - can't set immutable config"},
		{[][2]string{{"shards", "2"}}, pre + "'shards') - can't set immutable config"},
		// Directives of Redis that radish ignores in a file are unknown here.
		{[][2]string{{"lazyfree-lazy-expire", "no"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'lazyfree-lazy-expire'"},
		{[][2]string{{"replicaof", "no one"}}, "ERR CONFIG SET failed (possibly related to argument 'replicaof') - can't set immutable config"},
	} {
		c := New()
		called := false
		c.OnChange("maxmemory", func(_, _ *Snapshot) { called = true })
		before := c.Snapshot()
		all := c.Get([]string{"*"})
		err := c.Set(tc.pairs)
		if err == nil || err.Error() != tc.err {
			t.Errorf("Set(%q):\n got %v\nwant %s", tc.pairs, err, tc.err)
		}
		if c.Snapshot() != before || !reflect.DeepEqual(c.Get([]string{"*"}), all) || called {
			t.Errorf("Set(%q) failed but changed something", tc.pairs)
		}
	}
}

func TestSet(t *testing.T) {
	c := New()
	var calls []string
	c.OnChange("maxmemory", func(old, new *Snapshot) {
		calls = append(calls, strconv.FormatInt(old.MaxMemory, 10)+"->"+strconv.FormatInt(new.MaxMemory, 10))
	})
	c.OnChange("hash-max-ziplist-entries", func(old, new *Snapshot) { calls = append(calls, "hash") })
	old := c.Snapshot()
	err := c.Set([][2]string{{"maxmemory", "1gB"}, {"MaxMemory-Policy", "ALLKEYS-LRU"}, {"hz", "1000"},
		{"save", ""}, {"appendfsync", "ALWAYS"}, {"hash-max-ziplist-entries", "1"}, {"hash-max-listpack-entries", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	if s.MaxMemory != 1<<30 || s.MaxMemoryPolicy != "allkeys-lru" || s.Hz != 500 || s.AppendFsync != "always" || s.HashMaxListpackEntries != 2 {
		t.Errorf("after Set: %+v", s)
	}
	if old.MaxMemory != 0 || old.Hz != 10 {
		t.Errorf("old snapshot changed: %+v", old)
	}
	if got := c.Get([]string{"save", "maxmemory", "hz"}); !reflect.DeepEqual(got, [][2]string{{"save", ""}, {"maxmemory", "1073741824"}, {"hz", "500"}}) {
		t.Errorf("Get = %q", got)
	}
	if !reflect.DeepEqual(calls, []string{"0->1073741824", "hash"}) {
		t.Errorf("hooks: %q", calls)
	}
	if err := c.Set([][2]string{{"save", ""}, {"hz", "0"}, {"maxmemory", "10kB"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.Get([]string{"save", "hz", "maxmemory"}); !reflect.DeepEqual(got, [][2]string{{"save", ""}, {"hz", "1"}, {"maxmemory", "10240"}}) {
		t.Errorf("Get = %q", got)
	}
	for in, want := range map[string]string{"": "0", "0": "0", "5b": "5", "kb": "0", "007k": "7000", "1KB": "1024", "1G": "1000000000"} {
		if err := c.Set([][2]string{{"maxmemory", in}}); err != nil {
			t.Errorf("maxmemory %q: %v", in, err)
		} else if got := c.Get([]string{"maxmemory"})[0][1]; got != want {
			t.Errorf("maxmemory %q = %s, want %s", in, got, want)
		}
	}
	if err := c.Set([][2]string{{"requirepass", "a b"}, {"loglevel", "VERBOSE"}}); err != nil || c.Snapshot().RequirePass != "a b" || c.Snapshot().LogLevel != "verbose" {
		t.Errorf("requirepass: %v", err)
	}
}

func TestOnChangeUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	New().OnChange("nosuch", func(_, _ *Snapshot) {})
}

// TestConcurrent: readers see whole snapshots while Set swaps them (-race).
func TestConcurrent(t *testing.T) {
	c := New()
	var wg, writers sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := c.Snapshot()
				// Set always writes the pair together: a torn view would differ.
				if s.MaxMemory != int64(s.MaxMemorySamples)*1000 && s.MaxMemory != 0 {
					t.Errorf("torn snapshot: %d %d", s.MaxMemory, s.MaxMemorySamples)
					return
				}
				_ = c.Get([]string{"max*"})
			}
		}()
	}
	for w := 0; w < 2; w++ {
		writers.Add(1)
		go func(w int) {
			defer writers.Done()
			for i := 1; i <= 300; i++ {
				n := strconv.Itoa(i + w*1000)
				if err := c.Set([][2]string{{"maxmemory-samples", n}, {"maxmemory", n + "k"}}); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	writers.Wait()
	close(stop)
	wg.Wait()
}

func TestShardsHelpers(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "ff": 8, "ff,ffffffff": 40, "00000000,00000003": 2, "0": 0, "xyz": -1} {
		if got := countMask(in); got != want {
			t.Errorf("countMask(%q) = %d, want %d", in, got, want)
		}
	}
	for in, want := range map[string]int{"max 100000\n": 0, "150000 100000\n": 2, "100000 100000": 1, "50000 100000": 1, "800000 100000": 8, "": 0, "x y": 0} {
		if got := parseCPUMax(in); got != want {
			t.Errorf("parseCPUMax(%q) = %d, want %d", in, got, want)
		}
	}
	if quotaCPUs("-1", "100000") != 0 || quotaCPUs("250000\n", "100000\n") != 3 {
		t.Error("quotaCPUs")
	}

	// A fake filesystem: v2 with a limit at a parent level; v1 cpu controller.
	root := t.TempDir()
	mk := func(p, text string) {
		p = filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	mk("sys/fs/cgroup/cpu.max", "max 100000\n")
	mk("sys/fs/cgroup/pod/cpu.max", "300000 100000\n")
	mk("sys/fs/cgroup/pod/app/cpu.max", "max 100000\n")
	if got := cgroupCPULimitFrom(root, "0::/pod/app\n"); got != 3 {
		t.Errorf("v2 limit = %d, want 3", got)
	}
	mk("sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "150000\n")
	mk("sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n")
	if got := cgroupCPULimitFrom(root, "4:memory:/docker/x\n3:cpu,cpuacct:/docker/x\n"); got != 2 {
		t.Errorf("v1 limit = %d, want 2", got)
	}
	if got := cgroupCPULimitFrom(root, "3:cpu,cpuacct:/none\n"); got != 0 {
		t.Errorf("no limit = %d", got)
	}
	if DefaultShards() < 1 {
		t.Error("DefaultShards < 1")
	}
}

// TestShardsAffinity re-runs this test binary under taskset -c 0 and checks
// that the default shards follows the affinity mask.
func TestShardsAffinity(t *testing.T) {
	if os.Getenv("RADISH_CONFIG_CHILD") == "1" {
		os.Stdout.WriteString("shards=" + New().Get([]string{"shards"})[0][1] + "\n")
		return
	}
	ts, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("no taskset")
	}
	cmd := exec.Command(ts, "-c", "0", os.Args[0], "-test.run=^TestShardsAffinity$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RADISH_CONFIG_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("taskset: %v %s", err, out)
	}
	if !strings.Contains(string(out), "shards=1\n") {
		t.Errorf("child said %q", out)
	}
}

// TestVerify: a verifier sees the parsed values before they are published,
// refuses them in Redis's shape naming the first of its parameters the
// Set names, and is not asked about a Set naming none of them.
func TestVerify(t *testing.T) {
	c := New()
	var seen []string
	c.Verify([]string{"tls-cert-file", "tls-key-file"}, func(s *Snapshot) string {
		seen = append(seen, s.TLSCertFile+"/"+s.TLSKeyFile)
		if s.TLSCertFile == "bad" {
			return "Unable to update TLS configuration. Check server logs."
		}
		return ""
	})
	err := c.Set([][2]string{{"hz", "20"}, {"TLS-KEY-FILE", "k"}, {"tls-cert-file", "bad"}})
	want := "ERR CONFIG SET failed (possibly related to argument 'tls-key-file') - Unable to update TLS configuration. Check server logs."
	if err == nil || err.Error() != want {
		t.Errorf("Set = %v, want %s", err, want)
	}
	if s := c.Snapshot(); s.Hz != 10 || s.TLSKeyFile != "" {
		t.Errorf("a refused Set changed hz %d, tls-key-file %q", s.Hz, s.TLSKeyFile)
	}
	if err := c.Set([][2]string{{"tls-cert-file", "c"}}); err != nil || c.Snapshot().TLSCertFile != "c" {
		t.Errorf("Set = %v", err)
	}
	if err := c.Set([][2]string{{"hz", "20"}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, []string{"bad/k", "c/"}) {
		t.Errorf("verifier saw %q", seen)
	}
}

// TestMaxMemoryClients: maxmemory-clients takes bytes or a percentage of
// maxmemory, with Redis's errors, and the budget follows maxmemory.
func TestMaxMemoryClients(t *testing.T) {
	c := newConfig(defaults())
	for _, tc := range []struct{ set, get, err string }{
		{"1mb", "1048576", ""},
		{"10%", "10%", ""},
		{"-1", "10%", "argument must be a memory or percent value"},
		{"abc", "10%", "argument must be a memory or percent value"},
		{"200%", "10%", "percentage argument must be less or equal to 100"},
		{"0", "0", ""},
	} {
		err := c.Set([][2]string{{"maxmemory-clients", tc.set}})
		if got := c.Get([]string{"maxmemory-clients"})[0][1]; got != tc.get || tc.err == "" && err != nil ||
			tc.err != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.err)) {
			t.Errorf("set %s: get %s, %v; want %s, %q", tc.set, got, err, tc.get, tc.err)
		}
	}
	c.Set([][2]string{{"maxmemory", "100mb"}, {"maxmemory-clients", "5%"}})
	if b := c.Snapshot().ClientsBudget(); b != 5<<20 {
		t.Errorf("5%% of 100mb: %d", b)
	}
}

// TestSetEmptyName: an empty parameter name is unknown, as any other
// (it stopped the server: an empty name read as "no unknown name met").
func TestSetEmptyName(t *testing.T) {
	c := New()
	for _, pairs := range [][][2]string{{{"", ""}}, {{"maxmemory", "1mb"}, {"", "x"}}, {{"", "x"}, {"nosuch", "y"}}} {
		if err := c.Set(pairs); err == nil || err.Error() != "ERR Unknown option or number of arguments for CONFIG SET - ''" {
			t.Errorf("Set(%q) = %v", pairs, err)
		}
	}
	if c.Snapshot().MaxMemory != 0 {
		t.Error("a CONFIG SET with an unknown name applied the rest")
	}
}

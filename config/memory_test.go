package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeRoot makes a filesystem root holding files (path -> content).
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, text := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestMaxMemoryAuto(t *testing.T) {
	c := New()
	s := c.Snapshot()
	if s.MaxMemoryAuto || s.MaxMemory != 0 || s.MaxMemoryAutoFraction != 0.8 || s.MemoryBudget() != 0 {
		t.Fatalf("defaults: auto=%v max=%d fraction=%v budget=%d", s.MaxMemoryAuto, s.MaxMemory, s.MaxMemoryAutoFraction, s.MemoryBudget())
	}
	var hooks []string
	c.OnChange("maxmemory", func(old, new *Snapshot) { hooks = append(hooks, formatMaxMemory(old)+"->"+formatMaxMemory(new)) })
	for _, tc := range []struct{ set, get string }{
		{"auto", "auto"}, {"100mb", "104857600"}, {"AUTO", "auto"}, {"0", "0"}, {"Auto", "auto"}, {"1k", "1000"},
	} {
		if err := c.Set([][2]string{{"maxmemory", tc.set}}); err != nil {
			t.Fatalf("Set maxmemory %s: %v", tc.set, err)
		}
		if got := c.Get([]string{"maxmemory"}); !reflect.DeepEqual(got, [][2]string{{"maxmemory", tc.get}}) {
			t.Errorf("after %s Get = %q, want %s", tc.set, got, tc.get)
		}
		s := c.Snapshot()
		if auto := tc.get == "auto"; s.MaxMemoryAuto != auto || (auto && s.MaxMemory != 0) {
			t.Errorf("after %s: auto=%v max=%d", tc.set, s.MaxMemoryAuto, s.MaxMemory)
		}
	}
	if want := []string{"0->auto", "auto->104857600", "104857600->auto", "auto->0", "0->auto", "auto->1000"}; !reflect.DeepEqual(hooks, want) {
		t.Errorf("hooks %q", hooks)
	}

	// A value printed by CONFIG GET reads back the same (CONFIG REWRITE-style round trip).
	for _, v := range []string{"auto", "12345"} {
		c2, err := load([]string{"--maxmemory", v}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c2.Get([]string{"maxmemory"})[0][1]; got != v {
			t.Errorf("--maxmemory %s reads back %s", v, got)
		}
	}
	if _, err := load([]string{"--maxmemory", "auto", "auto"}, nil); err == nil || !strings.HasSuffix(err.Error(), "\nwrong number of arguments") {
		t.Errorf("maxmemory auto auto: %v", err)
	}
	if _, err := load([]string{"--maxmemory", "autox"}, nil); err == nil || !strings.HasSuffix(err.Error(), "\nargument must be a memory value") {
		t.Errorf("maxmemory autox: %v", err)
	}
}

func TestMaxMemoryAutoFraction(t *testing.T) {
	pre := "ERR CONFIG SET failed (possibly related to argument 'maxmemory-auto-fraction') - "
	for _, tc := range []struct{ v, err string }{
		{"0", "argument must be greater than 0 and at most 1"},
		{"-0.5", "argument must be greater than 0 and at most 1"},
		{"1.01", "argument must be greater than 0 and at most 1"},
		{"1e9", "argument must be greater than 0 and at most 1"},
		{"abc", "argument couldn't be parsed into a float"},
		{"", "argument couldn't be parsed into a float"},
		{"0.5x", "argument couldn't be parsed into a float"},
		{" 0.5", "argument couldn't be parsed into a float"},
		{"nan", "argument couldn't be parsed into a float"},
		{"inf", "argument couldn't be parsed into a float"},
		{"1e999", "argument couldn't be parsed into a float"},
	} {
		c := New()
		before := c.Snapshot()
		err := c.Set([][2]string{{"maxmemory-auto-fraction", tc.v}})
		if err == nil || err.Error() != pre+tc.err {
			t.Errorf("Set %q: %v, want %s", tc.v, err, tc.err)
		}
		if c.Snapshot() != before {
			t.Errorf("Set %q failed but changed the snapshot", tc.v)
		}
	}
	c := New()
	for _, tc := range []struct {
		v    string
		want float64
		get  string
	}{{"0.5", 0.5, "0.5"}, {"1", 1, "1"}, {".25", 0.25, "0.25"}, {"1e-1", 0.1, "0.1"}, {"0.0001", 0.0001, "0.0001"}} {
		if err := c.Set([][2]string{{"maxmemory-auto-fraction", tc.v}}); err != nil {
			t.Fatalf("Set %q: %v", tc.v, err)
		}
		if f := c.Snapshot().MaxMemoryAutoFraction; f != tc.want {
			t.Errorf("Set %q: fraction %v", tc.v, f)
		}
		if got := c.Get([]string{"maxmemory-auto-fraction"})[0][1]; got != tc.get {
			t.Errorf("Set %q: Get %q", tc.v, got)
		}
	}
	_, err := load([]string{"--maxmemory-auto-fraction", "2"}, nil)
	if fe, ok := err.(*FileError); !ok || fe.Msg != "argument must be greater than 0 and at most 1" {
		t.Errorf("file error: %v", err)
	}
}

func TestParseMemoryMax(t *testing.T) {
	for in, want := range map[string]int64{
		"max\n": 0, "536870912\n": 536870912, "1": 1, "0": 0, "-1": 0, "": 0, "x": 0,
		"9223372036854771712\n": 0, // v1 unlimited, 4 KiB pages
		"9223372036854710272\n": 0, // v1 unlimited, 64 KiB pages
		"4611686018427387903":   4611686018427387903,
	} {
		if got := parseMemoryMax(in); got != want {
			t.Errorf("parseMemoryMax(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name  string
		files map[string]string
		self  string
		want  int64
	}{
		{"v2 own limit", map[string]string{"sys/fs/cgroup/pod/app/memory.max": "2147483648\n"}, "0::/pod/app\n", 2 * gib},
		{"v2 max", map[string]string{"sys/fs/cgroup/pod/app/memory.max": "max\n"}, "0::/pod/app\n", 0},
		{"v2 smallest ancestor", map[string]string{
			"sys/fs/cgroup/memory.max":           "max\n",
			"sys/fs/cgroup/pod/memory.max":       "1073741824\n",
			"sys/fs/cgroup/pod/app/memory.max":   "4294967296\n",
			"sys/fs/cgroup/pod/app/x/memory.max": "max\n",
		}, "0::/pod/app/x\n", gib},
		{"v2 namespaced root", map[string]string{"sys/fs/cgroup/memory.max": "536870912\n"}, "0::/\n", 512 << 20},
		{"v2 nothing", map[string]string{"sys/fs/cgroup/cgroup.controllers": "cpu memory\n"}, "0::/user.slice/x.scope\n", 0},
		{"v1 limit", map[string]string{"sys/fs/cgroup/memory/docker/x/memory.limit_in_bytes": "3221225472\n"}, "12:cpu,cpuacct:/docker/x\n9:memory:/docker/x\n", 3 * gib},
		{"v1 unlimited", map[string]string{
			"sys/fs/cgroup/memory/memory.limit_in_bytes":          "9223372036854771712\n",
			"sys/fs/cgroup/memory/docker/x/memory.limit_in_bytes": "9223372036854771712\n",
		}, "9:memory:/docker/x\n", 0},
		{"v1 ancestor", map[string]string{
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
			"sys/fs/cgroup/memory/kubepods/memory.limit_in_bytes":   "1073741824\n",
			"sys/fs/cgroup/memory/kubepods/p/memory.limit_in_bytes": "9223372036854771712\n",
		}, "9:memory:/kubepods/p\n", gib},
		{"v1 container without cgroupns", map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n"}, "9:memory:/docker/abc\n", 256 << 20},
		{"v1 other controllers only", map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n"}, "3:cpu,cpuacct:/x\n", 0},
		{"hybrid: v1 memory, v2 unified", map[string]string{
			"sys/fs/cgroup/memory/s/memory.limit_in_bytes": "1073741824\n",
			"sys/fs/cgroup/s/memory.max":                   "536870912\n",
		}, "9:memory:/s\n0::/s\n", 512 << 20},
		{"no /proc/self/cgroup", nil, "", 0},
	} {
		root := fakeRoot(t, tc.files)
		if got := cgroupMemoryLimitFrom(root, tc.self); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
		files := map[string]string{"proc/self/cgroup": tc.self}
		for k, v := range tc.files {
			files[k] = v
		}
		if got := cgroupMemoryLimit(fakeRoot(t, files)); got != tc.want {
			t.Errorf("%s (via proc): %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := cgroupMemoryLimit("/"); got < 0 {
		t.Errorf("real cgroup memory limit %d", got)
	}
}

func TestMemoryBudget(t *testing.T) {
	for _, tc := range []struct {
		s    Snapshot
		want int64
	}{
		{Snapshot{MaxMemory: 100}, 100},
		{Snapshot{MaxMemory: 100, cgroupMem: 1000}, 100},
		{Snapshot{MaxMemory: 0, cgroupMem: 1000}, 0},
		{Snapshot{MaxMemoryAuto: true, MaxMemoryAutoFraction: 0.8, cgroupMem: 1000}, 800},
		{Snapshot{MaxMemoryAuto: true, MaxMemoryAutoFraction: 1, cgroupMem: 1000}, 1000},
		{Snapshot{MaxMemoryAuto: true, MaxMemoryAutoFraction: 0.8}, 0},
		{Snapshot{MaxMemoryAuto: true, MaxMemoryAutoFraction: 0.0001, cgroupMem: 10}, 1},
		{Snapshot{MaxMemoryAuto: true, MaxMemoryAutoFraction: 0.8, cgroupMem: 4 << 30}, 3435973836},
	} {
		if got := tc.s.MemoryBudget(); got != tc.want {
			t.Errorf("%+v: budget %d, want %d", tc.s, got, tc.want)
		}
	}

	// Through Load with a fake cgroup tree, then CONFIG SET.
	root := fakeRoot(t, map[string]string{
		"proc/self/cgroup":             "0::/pod\n",
		"sys/fs/cgroup/pod/memory.max": "1000000000\n",
	})
	c, err := loadAt([]string{"--maxmemory", "auto"}, nil, root)
	if err != nil {
		t.Fatal(err)
	}
	if c.CgroupMemoryLimit() != 1e9 || c.Snapshot().MemoryBudget() != 8e8 {
		t.Fatalf("limit %d budget %d", c.CgroupMemoryLimit(), c.Snapshot().MemoryBudget())
	}
	for _, tc := range []struct {
		k, v string
		want int64
	}{{"maxmemory-auto-fraction", "0.5", 5e8}, {"maxmemory", "1mb", 1 << 20}, {"maxmemory-auto-fraction", "0.25", 1 << 20}, {"maxmemory", "auto", 2.5e8}, {"maxmemory", "0", 0}} {
		if err := c.Set([][2]string{{tc.k, tc.v}}); err != nil {
			t.Fatal(err)
		}
		if got := c.Snapshot().MemoryBudget(); got != tc.want || c.CgroupMemoryLimit() != 1e9 {
			t.Errorf("after %s %s: budget %d, want %d (limit %d)", tc.k, tc.v, got, tc.want, c.CgroupMemoryLimit())
		}
	}
	// Default maxmemory 0 under a limit: what the start-up warning tests.
	c, err = loadAt(nil, nil, root)
	if err != nil {
		t.Fatal(err)
	}
	if c.CgroupMemoryLimit() != 1e9 || c.Snapshot().MemoryBudget() != 0 {
		t.Errorf("default: limit %d budget %d", c.CgroupMemoryLimit(), c.Snapshot().MemoryBudget())
	}
	// No cgroup limit: auto gives no budget.
	c, err = loadAt([]string{"--maxmemory", "auto"}, nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.CgroupMemoryLimit() != 0 || c.Snapshot().MemoryBudget() != 0 {
		t.Errorf("no cgroup: limit %d budget %d", c.CgroupMemoryLimit(), c.Snapshot().MemoryBudget())
	}
}

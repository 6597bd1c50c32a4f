package plan

import (
	"slices"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	for _, c := range []struct {
		cores, max      int
		valkey, redis   bool
		shards, valkeys []int
		client          string
	}{
		{2, 0, false, false, []int{1}, nil, "1"},
		{16, 0, true, true, []int{1, 2, 4, 8}, []int{1, 2, 4, 8}, "8-15"},
		{12, 0, true, false, []int{1, 2, 4, 6}, []int{1, 2, 4, 6}, "6-11"},
		{64, 0, true, true, []int{1, 2, 4, 8, 16, 32}, []int{1, 2, 4, 8}, "32-63"},
		{16, 12, false, false, []int{1, 2, 4, 8, 12}, nil, "12-15"},
		{3, 0, false, true, []int{1}, nil, "1-2"},
	} {
		p, err := New(c.cores, c.max, 3, c.valkey, c.redis, 7*time.Minute, nil)
		if err != nil {
			t.Errorf("%d cores: %v", c.cores, err)
			continue
		}
		var shards, valkeys []int
		redis := false
		for _, tg := range p.Targets {
			switch tg.Kind {
			case "radish":
				shards = append(shards, tg.Threads)
			case "valkey":
				valkeys = append(valkeys, tg.Threads)
			case "redis":
				redis = true
				if tg.CPUs != "0" || tg.Name() != "redis" {
					t.Errorf("redis target %+v", tg)
				}
			}
			if want := Range(0, tg.Threads-1); tg.CPUs != want {
				t.Errorf("%d cores: %s on %q, want %q", c.cores, tg.Name(), tg.CPUs, want)
			}
		}
		if !slices.Equal(shards, c.shards) || !slices.Equal(valkeys, c.valkeys) || redis != c.redis || p.ClientCPUs != c.client {
			t.Errorf("%d cores (max %d): shards %v valkey %v redis %v client %q; want %v %v %v %q",
				c.cores, c.max, shards, valkeys, redis, p.ClientCPUs, c.shards, c.valkeys, c.redis, c.client)
		}
		if p.Duration < MinDuration || p.Duration > MaxDuration || p.Estimate() > p.Budget {
			t.Errorf("%d cores: runs of %v, estimate %v over budget %v", c.cores, p.Duration, p.Estimate(), p.Budget)
		}
	}
}

// The limit: under 8 minutes on 16 cores with radish, valkey and
// redis, 3 runs of every point.
func TestSixteenCoresFitEightMinutes(t *testing.T) {
	p, err := New(16, 0, 3, true, true, 7*time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Targets) != 9 {
		t.Errorf("%d targets", len(p.Targets))
	}
	if p.Duration != MaxDuration {
		t.Errorf("runs of %v, want the full %v", p.Duration, MaxDuration)
	}
	if e := p.Estimate(); e >= 8*time.Minute {
		t.Errorf("estimate %v", e)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, c := range []struct{ cores, max, runs int }{{1, 0, 3}, {4, 4, 3}, {4, 5, 3}, {4, 0, 0}} {
		if _, err := New(c.cores, c.max, c.runs, false, false, 7*time.Minute, nil); err == nil {
			t.Errorf("New(%d cores, max %d, %d runs) gave no error", c.cores, c.max, c.runs)
		}
	}
	if _, err := New(64, 0, 20, true, true, time.Minute, nil); err == nil {
		t.Error("a run that cannot fit its budget gave no error")
	}
}

func TestConnsAndCounts(t *testing.T) {
	if Conns(Target{"radish", 1, "0"}) != 50 || Conns(Target{"radish", 8, "0-7"}) != 400 || Conns(Target{"radish", 32, "0-31"}) != 1000 {
		t.Error("Conns")
	}
	if !slices.Equal(Counts(1), []int{1}) || !slices.Equal(Counts(8), []int{1, 2, 4, 8}) || !slices.Equal(Counts(6), []int{1, 2, 4, 6}) {
		t.Error("Counts")
	}
	if Range(0, 0) != "0" || Range(2, 5) != "2-5" {
		t.Error("Range")
	}
}

func TestParseList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "0,8": {0, 8}, "1-2,5,7-8\n": {1, 2, 5, 7, 8}} {
		if got, err := ParseList(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "1-", "1,,2"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q) gave no error", bad)
		}
	}
}

func TestOrderAndSharedCores(t *testing.T) {
	// Siblings i and i+4 (a common VM numbering of 4 cores, 8 threads).
	smt := map[int][]int{}
	for i := 0; i < 4; i++ {
		smt[i], smt[i+4] = []int{i, i + 4}, []int{i, i + 4}
	}
	// Siblings 2i and 2i+1.
	adjacent := map[int][]int{}
	for i := 0; i < 8; i += 2 {
		adjacent[i], adjacent[i+1] = []int{i, i + 1}, []int{i, i + 1}
	}
	for _, c := range []struct {
		name     string
		max      int
		siblings map[int][]int
		order    []int
		targets  []string // radish-1, -2, -4, ...
		client   string
		shared   int
	}{
		{"no SMT", 0, nil, []int{0, 1, 2, 3, 4, 5, 6, 7}, []string{"0", "0-1", "0-3"}, "4-7", 0},
		{"i, i+4", 0, smt, []int{0, 1, 4, 5, 2, 6, 3, 7}, []string{"0", "0-1", "0-1,4-5"}, "2-3,6-7", 0},
		{"2i, 2i+1", 0, adjacent, []int{0, 2, 1, 3, 4, 5, 6, 7}, []string{"0", "0,2", "0-3"}, "4-7", 0},
		{"i, i+4, 3 shards", 3, smt, []int{0, 1, 4, 2, 6, 3, 7, 5}, []string{"0", "0-1", "0-1,4"}, "2-3,5-7", 1},
	} {
		p, err := New(8, c.max, 1, false, false, 7*time.Minute, c.siblings)
		if err != nil {
			t.Fatal(err)
		}
		var targets []string
		for _, tg := range p.Targets {
			targets = append(targets, tg.CPUs)
		}
		if !slices.Equal(p.Order, c.order) || !slices.Equal(targets, c.targets) || p.ClientCPUs != c.client {
			t.Errorf("%s: order %v targets %v client %q; want %v %v %q", c.name, p.Order, targets, p.ClientCPUs, c.order, c.targets, c.client)
		}
		if got := p.SharedCores(); len(got) != c.shared {
			t.Errorf("%s: SharedCores = %v, want %d pairs", c.name, got, c.shared)
		}
	}
	// The same 8 CPUs with the plain 0..3 | 4..7 split would pair every
	// server CPU with a client CPU.
	plain := Plan{Cores: 8, MaxShards: 4, Order: []int{0, 1, 2, 3, 4, 5, 6, 7}, Siblings: smt}
	if got := plain.SharedCores(); len(got) != 4 || got[0] != [2]int{0, 4} {
		t.Errorf("SharedCores = %v", got)
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{[]int{0}, "0"}, {[]int{3, 1, 2, 0}, "0-3"}, {[]int{0, 1, 4, 5}, "0-1,4-5"}, {[]int{0, 2, 4}, "0,2,4"}} {
		if got := List(c.in); got != c.want {
			t.Errorf("List(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

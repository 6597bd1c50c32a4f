package model

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestParseCosts(t *testing.T) {
	cs, err := ParseCosts("get:1:7.2:6.4, set:32:0.6:2.5")
	if err != nil {
		t.Fatal(err)
	}
	want := []Cost{{"GET", 1, 7.2, 6.4}, {"SET", 32, 0.6, 2.5}}
	if len(cs) != 2 || cs[0] != want[0] || cs[1] != want[1] {
		t.Errorf("ParseCosts = %+v, want %+v", cs, want)
	}
	for _, bad := range []string{"", "get:1:7.2", "get:0:1:1", "get:x:1:1", "get:1:0:1", "get:1:1:-1", ":1:1:1"} {
		if _, err := ParseCosts(bad); err == nil {
			t.Errorf("ParseCosts(%q) gave no error", bad)
		}
	}
}

func TestPerShard(t *testing.T) {
	for _, c := range []struct {
		n, p int
		want float64
	}{
		{2, 1, 1}, // one request, remote half the time: a batch of 1
		{2, 32, 16 / (1 - math.Pow(0.5, 32))},
		{4, 4, 1 / (1 - math.Pow(0.75, 4))},
		{1, 32, 32},
	} {
		if got := perShard(c.n, c.p); !near(got, c.want) {
			t.Errorf("perShard(%d, %d) = %v, want %v", c.n, c.p, got, c.want)
		}
	}
	// Never below one request per message batch, shrinking with n.
	prev := perShard(2, 32)
	for n := 3; n <= 64; n++ {
		b := perShard(n, 32)
		if b < 1 || b > prev {
			t.Errorf("perShard(%d, 32) = %v after %v", n, b, prev)
		}
		prev = b
	}
}

// With one pipeline depth the model is the plain formula:
// CPU = local + (N-1)/N × hop, throughput = N / CPU.
func TestPredictOneDepth(t *testing.T) {
	m := Model{Costs: []Cost{{"GET", 32, 0.4, 1.2}}}
	p, ok := m.Predict("get", 32, 4, 0)
	if !ok {
		t.Fatal("no prediction")
	}
	cpu := 0.4 + 0.75*1.2
	if !near(p.CPUMin, cpu) || !near(p.CPUMax, cpu) || !near(p.RPSMax, 4e6/cpu) || !near(p.RPSMin, 4e6/cpu) {
		t.Errorf("Predict = %+v, want CPU %v", p, cpu)
	}
	one, _ := m.Predict("GET", 32, 1, 0)
	if !near(one.CPUMin, 0.4) || !near(one.RPSMax, 2.5e6) {
		t.Errorf("one shard: %+v", one)
	}
	if _, ok := m.Predict("GET", 1, 4, 0); ok {
		t.Error("predicted a depth without costs")
	}
	if _, ok := m.Predict("SET", 32, 4, 0); ok {
		t.Error("predicted a test without costs")
	}
	if _, ok := m.Predict("MIX", 32, 4, 0); ok {
		t.Error("predicted MIX without SET")
	}
	capped, _ := m.Predict("GET", 32, 4, 1e6)
	if !capped.ClientBound || capped.RPSMax != 1e6 || capped.RPSMin != 1e6 {
		t.Errorf("client bound 1M: %+v", capped)
	}
}

// Costs at two depths are split into per-request and per-batch parts: the
// model gives back the measured points at the depths and shard counts they
// were measured at, and a hop's per-batch part grows as batches per
// destination shrink with more shards.
func TestPredictTwoDepths(t *testing.T) {
	// local(P) = 0.3 + 6.4/P; hop at 2 shards = 2 + 4/b(2, P).
	local := func(p float64) float64 { return 0.3 + 6.4/p }
	hop := func(n, p int) float64 { return 2 + 4/perShard(n, p) }
	m := Model{Costs: []Cost{
		{"GET", 1, local(1), hop(2, 1)}, {"GET", 32, local(32), hop(2, 32)},
		{"SET", 1, 2 * local(1), 2 * hop(2, 1)}, {"SET", 32, 2 * local(32), 2 * hop(2, 32)},
	}}
	for _, p := range []int{1, 32} {
		one, _ := m.Predict("GET", p, 1, 0)
		two, _ := m.Predict("GET", p, 2, 0)
		if !near(one.CPUMax, local(float64(p))) || !near(two.CPUMax, local(float64(p))+hop(2, p)/2) || !near(two.CPUMin, two.CPUMax) {
			t.Errorf("P%d: 1 shard %+v, 2 shards %+v: not the measured points", p, one, two)
		}
	}
	if pt, ok := m.Split("GET", 32); !ok || !near(pt.LocalReq, 0.3) || !near(pt.LocalBatch, 6.4) || !near(pt.HopReq, 2) || !near(pt.HopBatch, 4) {
		t.Errorf("Split = %+v, want 0.3 + 6.4/P, 2 + 4/b", pt)
	}
	p16, _ := m.Predict("GET", 32, 16, 0)
	if want := local(32) + 15.0/16*hop(16, 32); !near(p16.CPUMax, want) {
		t.Errorf("16 shards CPUMax %v, want %v", p16.CPUMax, want)
	}
	if want := local(32) + 15.0/16*hop(2, 32); !near(p16.CPUMin, want) {
		t.Errorf("16 shards CPUMin %v, want %v", p16.CPUMin, want)
	}
	// Between the measured depths: w + f/P.
	p8, _ := m.Predict("GET", 8, 1, 0)
	if !near(p8.CPUMin, local(8)) {
		t.Errorf("P8 1 shard %v, want %v", p8.CPUMin, local(8))
	}
	// Unpipelined, each hop is its own batch at any shard count.
	u, _ := m.Predict("GET", 1, 64, 0)
	if !near(u.CPUMin, u.CPUMax) || !near(u.CPUMax, local(1)+63.0/64*hop(2, 1)) {
		t.Errorf("P1 64 shards %+v", u)
	}
	mix, _ := m.Predict("MIX", 32, 8, 0)
	g, _ := m.Predict("GET", 32, 8, 0)
	s, _ := m.Predict("SET", 32, 8, 0)
	if !near(mix.CPUMax, 0.9*g.CPUMax+0.1*s.CPUMax) || !near(mix.RPSMax, 8e6/mix.CPUMin) {
		t.Errorf("MIX %+v from GET %+v SET %+v", mix, g, s)
	}
	// More shards: never more throughput per shard.
	prev := math.Inf(1)
	for n := 1; n <= 64; n *= 2 {
		pr, _ := m.Predict("GET", 32, n, 0)
		if per := pr.RPSMin / float64(n); per > prev {
			t.Errorf("%d shards: %v per shard after %v", n, per, prev)
		}
		prev = pr.RPSMin / float64(n)
	}
}

// Noise that makes a part negative gives the whole cost to the other.
func TestSplitClamps(t *testing.T) {
	if f, w := split(1, 1, 1.0/32, 2); f != 0 || w != 1.5 {
		t.Errorf("split rising cost = %v, %v", f, w)
	}
	if f, w := split(1, 2, 0.5, 0.5); w != 0 || !near(f, 2.5/1.5) {
		t.Errorf("split negative w = %v, %v", f, w)
	}
	if f, w := split(1, 2, 0.5, 1.5); !near(f, 1) || !near(w, 1) {
		t.Errorf("split = %v, %v, want 1, 1", f, w)
	}
}

func TestFromPoints(t *testing.T) {
	c := FromPoints("get", 32, 0.4, 1.0)
	if c.Test != "GET" || !near(c.Hop, 1.2) || c.Local != 0.4 {
		t.Errorf("FromPoints = %+v", c)
	}
	if c := FromPoints("get", 32, 0.4, 0.3); c.Hop != 0 {
		t.Errorf("FromPoints with a cheaper 2-shard point: hop %v", c.Hop)
	}
}

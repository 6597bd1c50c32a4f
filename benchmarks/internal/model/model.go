package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Cost is the server CPU one request of Test at pipeline depth Pipeline
// costs, in µs: Local with every key on the connection's shard, Hop the
// extra when the key is on another shard.
type Cost struct {
	Test     string  `json:"test"`
	Pipeline int     `json:"pipeline"`
	Local    float64 `json:"local_us"`
	Hop      float64 `json:"hop_us"`
}

// Model predicts throughput from Costs; Source says where they were
// measured (binary, commit, machine, command).
type Model struct {
	Costs  []Cost `json:"costs"`
	Source string `json:"source"`
}

// Prediction is the model's answer for one test, pipeline and shard count:
// server CPU µs per request, CPUMin with hops as cheap as at 2 shards,
// CPUMax with a hop's per-batch part paid per connection batch; and the
// throughputs in requests/s they give (RPSMax = Shards/CPUMin), capped by
// the client's throughput when that is known.
type Prediction struct {
	Test        string  `json:"test"`
	Pipeline    int     `json:"pipeline"`
	Shards      int     `json:"shards"`
	CPUMin      float64 `json:"cpu_us_min"`
	CPUMax      float64 `json:"cpu_us_max"`
	RPSMin      float64 `json:"rps_min"`
	RPSMax      float64 `json:"rps_max"`
	ClientBound bool    `json:"client_bound,omitempty"` // the client's throughput capped RPSMax
}

// ParseCosts reads "test:pipeline:local:hop,..." (benchmarks/costs.sh's
// --costs line), e.g. "get:1:7.2:6.4,get:32:0.46:2.4".
func ParseCosts(s string) ([]Cost, error) {
	var cs []Cost
	for _, item := range strings.Split(s, ",") {
		f := strings.Split(strings.TrimSpace(item), ":")
		if len(f) != 4 || f[0] == "" {
			return nil, fmt.Errorf("cost %q: want test:pipeline:local_us:hop_us", item)
		}
		p, err := strconv.Atoi(f[1])
		if err != nil || p < 1 {
			return nil, fmt.Errorf("cost %q: pipeline %q", item, f[1])
		}
		l, err1 := strconv.ParseFloat(f[2], 64)
		h, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || l <= 0 || h < 0 {
			return nil, fmt.Errorf("cost %q: local must be > 0 and hop >= 0", item)
		}
		cs = append(cs, Cost{Test: strings.ToUpper(f[0]), Pipeline: p, Local: l, Hop: h})
	}
	return cs, nil
}

// FromPoints derives the Costs of a test at a pipeline from the server CPU
// per request measured at 1 shard (cpu1) and 2 shards (cpu2).
func FromPoints(test string, pipeline int, cpu1, cpu2 float64) Cost {
	return Cost{Test: strings.ToUpper(test), Pipeline: pipeline, Local: cpu1, Hop: max(0, 2*(cpu2-cpu1))}
}

// Tests lists the tests the model has costs for, in first-seen order.
func (m Model) Tests() []string {
	var ts []string
	for _, c := range m.Costs {
		if !slices.Contains(ts, c.Test) {
			ts = append(ts, c.Test)
		}
	}
	return ts
}

// Predict answers for test at pipeline P and n shards. A test the model
// has no cost for, or n < 1, gives ok false. With costs at two or more
// pipeline depths, each cost is split into a per-request and a per-batch
// part (between the two depths nearest P); with one depth, the cost is
// taken as it is, CPUMin equals CPUMax, and P must be that depth. "MIX" is 90%
// GET and 10% SET. clientRPS (0: unknown) caps the throughput.
func (m Model) Predict(test string, p, n int, clientRPS float64) (Prediction, bool) {
	if n < 1 || p < 1 {
		return Prediction{}, false
	}
	var lo, hi float64
	if strings.EqualFold(test, "MIX") {
		gl, gh, ok1 := m.cpu("GET", p, n)
		sl, sh, ok2 := m.cpu("SET", p, n)
		if !ok1 || !ok2 {
			return Prediction{}, false
		}
		lo, hi = 0.9*gl+0.1*sl, 0.9*gh+0.1*sh
	} else {
		var ok bool
		if lo, hi, ok = m.cpu(strings.ToUpper(test), p, n); !ok {
			return Prediction{}, false
		}
	}
	pr := Prediction{Test: strings.ToUpper(test), Pipeline: p, Shards: n, CPUMin: lo, CPUMax: hi,
		RPSMin: float64(n) * 1e6 / hi, RPSMax: float64(n) * 1e6 / lo}
	if clientRPS > 0 {
		pr.ClientBound = pr.RPSMax > clientRPS
		pr.RPSMin, pr.RPSMax = min(pr.RPSMin, clientRPS), min(pr.RPSMax, clientRPS)
	}
	return pr, true
}

// Parts is a test's costs split into what is paid per request and what is
// paid per batch, in µs: a local request costs LocalReq + LocalBatch/P at
// pipeline depth P (LocalBatch is the loop turn's fixed cost for one
// connection's batch); a hop adds HopReq + HopBatch/b, b being the
// requests in each message batch to another shard.
type Parts struct {
	LocalReq, LocalBatch, HopReq, HopBatch float64
}

// Split returns the Parts of test, from its costs at the two measured
// depths nearest p. With costs at one depth only, that depth must be p and
// the batch parts are 0 (the costs are taken as they are).
func (m Model) Split(test string, p int) (Parts, bool) {
	var cs []Cost
	for _, c := range m.Costs {
		if c.Test == test {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return Parts{}, false
	}
	slices.SortFunc(cs, func(a, b Cost) int { return a.Pipeline - b.Pipeline })
	if cs[0].Pipeline == cs[len(cs)-1].Pipeline {
		if cs[0].Pipeline != p {
			return Parts{}, false
		}
		return Parts{LocalReq: cs[0].Local, HopReq: cs[0].Hop}, true
	}
	// The two depths around p (or the nearest two at either end).
	i := 1
	for i < len(cs)-1 && cs[i].Pipeline < p {
		i++
	}
	a, b := cs[i-1], cs[i]
	if a.Pipeline == b.Pipeline {
		a = cs[0]
	}
	var pt Parts
	// local(P) = w + f/P through a and b.
	pt.LocalBatch, pt.LocalReq = split(1/float64(a.Pipeline), a.Local, 1/float64(b.Pipeline), b.Local)
	// hop at 2 shards: w + f/b(2, P).
	pt.HopBatch, pt.HopReq = split(1/perShard(2, a.Pipeline), a.Hop, 1/perShard(2, b.Pipeline), b.Hop)
	return pt, true
}

// cpu returns the server CPU µs per request of test at pipeline p and n
// shards: lo with hops as cheap as at 2 shards, hi with hops' per-batch
// part spread over one connection's batch to each shard.
func (m Model) cpu(test string, p, n int) (lo, hi float64, ok bool) {
	pt, ok := m.Split(test, p)
	if !ok {
		return 0, 0, false
	}
	remote := float64(n-1) / float64(n)
	local := pt.LocalReq + pt.LocalBatch/float64(p)
	atTwo := pt.HopReq + pt.HopBatch/perShard(2, p)
	atN := pt.HopReq + pt.HopBatch/perShard(n, p)
	return local + remote*atTwo, local + remote*max(atN, atTwo), true
}

// split solves y = w + f·x through (x1, y1) and (x2, y2), with both parts
// at least 0 (a negative one is measurement noise: the other part takes
// it all).
func split(x1, y1, x2, y2 float64) (f, w float64) {
	if x1 == x2 {
		return 0, (y1 + y2) / 2
	}
	f = (y1 - y2) / (x1 - x2)
	w = y1 - f*x1
	switch {
	case f < 0:
		return 0, (y1 + y2) / 2
	case w < 0:
		return (y1 + y2) / (x1 + x2), 0
	}
	return f, w
}

// perShard is how many of a connection's batch of p requests go to each
// other shard that gets any, with n shards and uniformly random keys:
// p(n-1)/n remote requests over (n-1)(1-(1-1/n)^p) shards.
func perShard(n, p int) float64 {
	if n < 2 {
		return float64(p)
	}
	return (float64(p) / float64(n)) / (1 - math.Pow(1-1/float64(n), float64(p)))
}

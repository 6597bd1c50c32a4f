package plan

import (
	"fmt"
	"strconv"
	"time"
)

// Test is one workload: SetPct percent of requests are SET, the rest GET.
type Test struct {
	Name   string
	SetPct int
}

// Tests are the workloads of every point.
var Tests = []Test{{"GET", 0}, {"SET", 100}, {"MIX", 10}}

// Pipelines are the depths of every point.
var Pipelines = []int{1, 32}

// Target is one server configuration: Kind is "radish", "valkey" or
// "redis"; Threads its shards or io-threads (1 for redis); CPUs the taskset
// list it is pinned to.
type Target struct {
	Kind    string
	Threads int
	CPUs    string
}

// Name labels the target in the report: radish-4, valkey-2, redis.
func (t Target) Name() string {
	if t.Kind == "redis" {
		return t.Kind
	}
	return t.Kind + "-" + strconv.Itoa(t.Threads)
}

// Plan is the layout of one scaling run.
type Plan struct {
	Cores      int
	MaxShards  int      // the most CPUs a server gets: CPUs 0 .. MaxShards-1
	Targets    []Target // in the order they are alternated
	ClientCPUs string   // the load generator's CPUs: MaxShards .. Cores-1
	Runs       int      // runs per point
	Duration   time.Duration
	Budget     time.Duration
}

// Costs of a run besides the measured seconds, for the budget: starting a
// server and filling 1M keys (setup), the unrecorded warm-up of each
// server, and starting the load generator and connecting (per run).
const (
	setup    = 3 * time.Second
	warmUp   = time.Second
	overhead = 300 * time.Millisecond
	// MaxDuration is the longest run; MinDuration the shortest the budget
	// may squeeze a run to.
	MaxDuration = 2 * time.Second
	MinDuration = 500 * time.Millisecond
	// MaxIOThreads is the most valkey io-threads tried.
	MaxIOThreads = 8
)

// New plans a run on cores CPUs. maxShards 0 means half the cores (at
// least 1), so that the load generator has as many CPUs as the largest
// server; shard counts are 1, 2, 4, ... and maxShards itself. valkey and
// redis add their targets. Each run lasts as long as fits budget (at most
// MaxDuration); a plan that does not fit at MinDuration is an error.
func New(cores, maxShards, runs int, valkey, redis bool, budget time.Duration) (Plan, error) {
	if cores < 2 {
		return Plan{}, fmt.Errorf("plan: %d core(s): the server and the load generator need at least 2", cores)
	}
	if maxShards == 0 {
		maxShards = cores / 2
	}
	if maxShards < 1 || maxShards >= cores {
		return Plan{}, fmt.Errorf("plan: %d shards on %d cores leaves no CPU for the load generator", maxShards, cores)
	}
	if runs < 1 {
		return Plan{}, fmt.Errorf("plan: %d runs", runs)
	}
	p := Plan{Cores: cores, MaxShards: maxShards, Runs: runs, Budget: budget, ClientCPUs: Range(maxShards, cores-1)}
	counts := Counts(maxShards)
	for _, n := range counts {
		p.Targets = append(p.Targets, Target{"radish", n, Range(0, n-1)})
	}
	if valkey {
		for _, n := range counts {
			if n <= MaxIOThreads {
				p.Targets = append(p.Targets, Target{"valkey", n, Range(0, n-1)})
			}
		}
	}
	if redis {
		p.Targets = append(p.Targets, Target{"redis", 1, "0"})
	}
	fixed := time.Duration(len(p.Targets)) * (setup + warmUp)
	runsInAll := time.Duration(len(p.Targets) * len(Tests) * len(Pipelines) * runs)
	p.Duration = min(MaxDuration, ((budget-fixed)/runsInAll-overhead)/(100*time.Millisecond)*(100*time.Millisecond))
	if p.Duration < MinDuration {
		return p, fmt.Errorf("plan: %d targets × %d points × %d runs do not fit %v with runs of %v", len(p.Targets),
			len(Tests)*len(Pipelines), runs, budget, MinDuration)
	}
	return p, nil
}

// Estimate is how long the run should take.
func (p Plan) Estimate() time.Duration {
	n := time.Duration(len(p.Targets))
	return n*(setup+warmUp) + n*time.Duration(len(Tests)*len(Pipelines)*p.Runs)*(p.Duration+overhead)
}

// Conns is the number of connections for a target: 50 per server thread,
// at most 1000.
func Conns(t Target) int { return min(50*t.Threads, 1000) }

// Counts returns 1, 2, 4, ... up to max, and max itself if it is not a
// power of two.
func Counts(max int) []int {
	var cs []int
	for n := 1; n <= max; n *= 2 {
		cs = append(cs, n)
	}
	if cs[len(cs)-1] != max {
		cs = append(cs, max)
	}
	return cs
}

// Range is the taskset list lo-hi ("3" when lo == hi).
func Range(lo, hi int) string {
	if lo >= hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
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
	MaxShards  int           // the most CPUs a server gets: Order[:MaxShards]
	Order      []int         // CPUs in the order servers take them; the load generator has Order[MaxShards:]
	Targets    []Target      // in the order they are alternated
	ClientCPUs string        // the load generator's CPUs as a taskset list
	Siblings   map[int][]int // each CPU's hardware threads (the CPUs of its core); nil if unknown
	Runs       int           // runs per point
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
// redis add their targets. siblings (nil if unknown) gives each CPU's
// hardware threads, which decide the Order CPUs are taken in (see Order).
// Each run lasts as long as fits budget (at most MaxDuration); a plan that
// does not fit at MinDuration is an error.
func New(cores, maxShards, runs int, valkey, redis bool, budget time.Duration, siblings map[int][]int) (Plan, error) {
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
	order := Order(cores, maxShards, siblings)
	p := Plan{Cores: cores, MaxShards: maxShards, Order: order, Siblings: siblings, Runs: runs, Budget: budget, ClientCPUs: List(order[maxShards:])}
	counts := Counts(maxShards)
	for _, n := range counts {
		p.Targets = append(p.Targets, Target{"radish", n, List(order[:n])})
	}
	if valkey {
		for _, n := range counts {
			if n <= MaxIOThreads {
				p.Targets = append(p.Targets, Target{"valkey", n, List(order[:n])})
			}
		}
	}
	if redis {
		p.Targets = append(p.Targets, Target{"redis", 1, List(order[:1])})
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

// Order lists the CPUs 0..cores-1 in the order servers take them: the
// server side is whole cores (the fewest that hold maxShards CPUs), first
// one hardware thread of each of them, then the second of each, so that N
// shards get N cores while N is at most the number of cores; the load
// generator gets the other cores. A server-side thread past maxShards
// goes to the load generator (SharedCores reports it). Without siblings
// (or without SMT) the order is 0, 1, 2, ...
func Order(cores, maxShards int, siblings map[int][]int) []int {
	var groups [][]int // cores' CPUs, ordered by their lowest CPU
	seen := make([]bool, cores)
	for c := 0; c < cores; c++ {
		if seen[c] {
			continue
		}
		g := []int{c}
		for _, s := range siblings[c] {
			if s > c && s < cores && !seen[s] {
				g = append(g, s)
			}
		}
		sort.Ints(g)
		for _, s := range g {
			seen[s] = true
		}
		groups = append(groups, g)
	}
	var server [][]int
	held := 0
	for held < maxShards && len(server) < len(groups) {
		server = append(server, groups[len(server)])
		held += len(server[len(server)-1])
	}
	var order []int
	for t := 0; len(order) < held; t++ {
		for _, g := range server {
			if t < len(g) {
				order = append(order, g[t])
			}
		}
	}
	client := append([]int(nil), order[maxShards:]...)
	order = order[:maxShards]
	for _, g := range groups[len(server):] {
		order = append(order, g...)
	}
	return append(order, client...)
}

// List is the taskset list of cpus, ascending, runs written lo-hi
// ("0-3,8-11").
func List(cpus []int) string {
	s := append([]int(nil), cpus...)
	sort.Ints(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(Range(s[i], s[j]))
		i = j + 1
	}
	return b.String()
}

// Range is the taskset list lo-hi ("3" when lo == hi).
func Range(lo, hi int) string {
	if lo >= hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// ParseList reads a Linux CPU list ("0-3,8,10-11") into CPU numbers.
func ParseList(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("cpu list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// SharedCores returns the pairs (server CPU, client CPU) that are hardware
// threads of one core.
func (p Plan) SharedCores() [][2]int {
	client := map[int]bool{}
	for _, c := range p.Order[p.MaxShards:] {
		client[c] = true
	}
	var pairs [][2]int
	for _, s := range p.Order[:p.MaxShards] {
		for _, c := range p.Siblings[s] {
			if client[c] {
				pairs = append(pairs, [2]int{s, c})
			}
		}
	}
	return pairs
}

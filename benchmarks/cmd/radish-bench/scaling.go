package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/radish-kv/radish/benchmarks/internal/loadgen"
	"github.com/radish-kv/radish/benchmarks/internal/model"
	"github.com/radish-kv/radish/benchmarks/internal/plan"
	"github.com/radish-kv/radish/benchmarks/internal/report"
	"github.com/radish-kv/radish/benchmarks/internal/server"
)

// curveKeys is the keyspace of the scaling curve, filled by DEBUG POPULATE.
const curveKeys = 1_000_000

// binaries are the servers the scaling curve may run ("" leaves valkey or
// redis out); commit, if known, is radish's; perf, if not "", profiles
// radish at its largest shard count.
type binaries struct {
	radish, io, valkey, redis, commit, perf string
}

// curve runs the scaling curve of pl: every target started at once on its
// CPUs and filled with curveKeys keys, then every test and pipeline depth
// run pl.Runs times on each target in turn by the Go load generator on
// pl.ClientCPUs. costs, when given, feed the model; otherwise it takes
// them from this run's radish-1 and radish-2 points.
func (h *harness) curve(ctx context.Context, bins binaries, pl plan.Plan, costs *model.Model) {
	log.Printf("scaling: %d targets, runs of %v, client CPUs %s; about %v", len(pl.Targets), pl.Duration,
		pl.ClientCPUs, pl.Estimate().Round(time.Second))
	if shared := pl.SharedCores(); len(shared) > 0 {
		h.problem("scaling: server and load generator CPUs are hardware threads of the same cores %v (CPU pairs): "+
			"the server's throughput per CPU is lower than on cores of its own", shared)
	}
	var specs []server.Spec
	for _, t := range pl.Targets {
		sp := server.Spec{Name: t.Name(), CPUs: t.CPUs}
		switch t.Kind {
		case "radish":
			sp.Bin, sp.Radish, sp.Shards, sp.IO = bins.radish, true, t.Threads, bins.io
		case "valkey":
			sp.Bin, sp.Extra = bins.valkey, []string{"--io-threads", strconv.Itoa(t.Threads)}
		case "redis":
			sp.Bin = bins.redis
		}
		specs = append(specs, sp)
		args := sp.Args(0, "DIR")
		args[1] = "PORT"
		v := server.Version(sp.Bin)
		if sp.Radish && bins.commit != "" {
			v += " (commit " + bins.commit + ")"
		}
		h.rep.Servers = append(h.rep.Servers, report.ServerInfo{Name: sp.Name, Bin: sp.Bin, Version: v, Args: args})
	}
	srvs := h.startAll(ctx, specs)
	defer func() { stopAll(srvs) }()
	targetOf := map[string]plan.Target{}
	for _, t := range pl.Targets {
		targetOf[t.Name()] = t
	}
	for _, s := range srvs {
		if err := s.Client.Do(ctx, "DEBUG", "POPULATE", curveKeys).Err(); err != nil {
			h.problem("%s DEBUG POPULATE %d: %v", s.Name, curveKeys, err)
		} else if n, err := s.Client.DBSize(ctx).Result(); err != nil || n != curveKeys {
			h.problem("%s: DBSIZE %d (%v) after DEBUG POPULATE %d", s.Name, n, err, curveKeys)
		}
		warm := loadgen.Config{Addr: s.Addr(), Conns: plan.Conns(targetOf[s.Name]), Pipeline: 32, Keys: curveKeys,
			SetPct: 10, Duration: time.Second}
		if _, _, err := h.gen(ctx, s, pl.ClientCPUs, warm); err != nil {
			h.problem("%s warm-up: %v", s.Name, err)
		}
	}
	for _, t := range plan.Tests {
		for _, pipe := range plan.Pipelines {
			pts := make([]report.Point, len(srvs))
			for i, s := range srvs {
				tg := targetOf[s.Name]
				pts[i] = report.Point{Server: s.Name, Kind: tg.Kind, Threads: tg.Threads, Test: t.Name, SetPct: t.SetPct,
					Pipeline: pipe, Conns: plan.Conns(tg), ServerCPUs: tg.CPUs, ClientCPUs: pl.ClientCPUs,
					ClientCores: pl.Cores - pl.MaxShards, Seconds: pl.Duration.Seconds()}
			}
			for run := 0; run < pl.Runs; run++ {
				for i, s := range srvs {
					pt := &pts[i]
					if pt.Err != "" {
						continue
					}
					if !s.Alive() {
						pt.Err = "server is down"
						continue
					}
					cfg := loadgen.Config{Addr: s.Addr(), Conns: pt.Conns, Pipeline: pipe, Keys: curveKeys, SetPct: t.SetPct,
						Duration: pl.Duration, Seed: uint64(run + 1)}
					res, serverCPU, err := h.gen(ctx, s, pl.ClientCPUs, cfg)
					if !s.Alive() {
						srvs[i] = h.revive(ctx, s, fmt.Sprintf("scaling %s -P %d", t.Name, pipe))
						pt.Err = "server crashed"
						continue
					}
					if err != nil {
						pt.Err = err.Error()
						h.problem("%s scaling %s -P %d: %v", s.Name, t.Name, pipe, err)
						continue
					}
					n := float64(res.Requests)
					pt.RPS = append(pt.RPS, res.RPS())
					pt.ServerUs = append(pt.ServerUs, serverCPU/n*1e6)
					pt.ClientUs = append(pt.ClientUs, res.CPUSeconds/n*1e6)
					if t.SetPct == 0 && res.Misses > 0 {
						h.problem("%s scaling %s -P %d: %d of %d GETs missed after DEBUG POPULATE", s.Name, t.Name, pipe, res.Misses, res.Requests)
					}
				}
			}
			h.rep.Curve = append(h.rep.Curve, pts...)
		}
	}
	if bins.perf != "" {
		h.profile(ctx, bins.perf, srvs, targetOf, pl)
	}
	h.predict(costs)
}

// profile records where radish's CPU time goes at its largest shard count:
// perf record on the server for one more run of MIX -P 32, then perf
// report's flat profile by symbol (radish's package paths shortened, the
// empty source columns cut) into the report.
func (h *harness) profile(ctx context.Context, perf string, srvs []*server.Server, targetOf map[string]plan.Target, pl plan.Plan) {
	var s *server.Server
	for _, c := range srvs {
		if t := targetOf[c.Name]; t.Kind == "radish" && c.Alive() && (s == nil || t.Threads > targetOf[s.Name].Threads) {
			s = c
		}
	}
	if s == nil {
		return
	}
	data := filepath.Join(h.tmp, "perf.data")
	rec := exec.CommandContext(ctx, perf, "record", "-F", "999", "-g", "-p", strconv.Itoa(s.Pid), "-o", data,
		"--", "sleep", strconv.FormatFloat(pl.Duration.Seconds(), 'f', 1, 64))
	recOut := &bytes.Buffer{}
	rec.Stdout, rec.Stderr = recOut, recOut
	if err := rec.Start(); err != nil {
		h.problem("perf record: %v", err)
		return
	}
	cfg := loadgen.Config{Addr: s.Addr(), Conns: plan.Conns(targetOf[s.Name]), Pipeline: 32, Keys: curveKeys, SetPct: 10, Duration: pl.Duration}
	_, _, genErr := h.gen(ctx, s, pl.ClientCPUs, cfg)
	if err := rec.Wait(); err != nil {
		h.problem("perf record: %v: %s", err, lastLine(recOut.Bytes()))
		return
	}
	if genErr != nil {
		h.problem("%s profile run: %v", s.Name, genErr)
		return
	}
	out, err := exec.CommandContext(ctx, perf, "report", "-i", data, "--stdio", "--no-children", "-g", "none",
		"--sort", "symbol", "--percent-limit", "0.5").Output()
	if err != nil {
		h.problem("perf report: %v", err)
		return
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			lines = append(lines, strings.ReplaceAll(strings.TrimRight(l, " -"), "github.com/radish-kv/radish/", ""))
		}
	}
	h.rep.Profile = &report.Profile{Server: s.Name, Test: "MIX", Pipeline: 32, Seconds: pl.Duration.Seconds(),
		Lines: lines[:min(len(lines), 60)]}
}

// siblings reads each CPU's hardware threads (the CPUs of its core) from
// /sys/devices/system/cpu/cpuN/topology/thread_siblings_list; a CPU whose
// list cannot be read is left out.
func siblings(cores int) map[int][]int {
	m := map[int][]int{}
	for c := 0; c < cores; c++ {
		data, err := os.ReadFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c))
		if err != nil {
			continue
		}
		if l, err := plan.ParseList(string(data)); err == nil {
			m[c] = l
		}
	}
	return m
}

// gen runs the load generator once against s on cpus and returns its
// result and the server's CPU seconds during it.
func (h *harness) gen(ctx context.Context, s *server.Server, cpus string, cfg loadgen.Config) (loadgen.Result, float64, error) {
	self, err := os.Executable()
	if err != nil {
		return loadgen.Result{}, 0, err
	}
	arg, err := json.Marshal(cfg)
	if err != nil {
		return loadgen.Result{}, 0, err
	}
	cpu0, err := s.CPUSeconds()
	if err != nil {
		return loadgen.Result{}, 0, err
	}
	out, err := h.tool(ctx, cpus, self, "gen", string(arg))
	cpu1, cerr := s.CPUSeconds()
	if err != nil {
		return loadgen.Result{}, 0, fmt.Errorf("%v: %s", err, lastLine(out))
	}
	if cerr != nil {
		return loadgen.Result{}, 0, cerr
	}
	var res loadgen.Result
	if err := json.Unmarshal(out, &res); err != nil {
		return loadgen.Result{}, 0, fmt.Errorf("load generator printed %q: %v", lastLine(out), err)
	}
	if res.Requests == 0 {
		return res, 0, fmt.Errorf("load generator completed no requests")
	}
	return res, cpu1 - cpu0, nil
}

// genMain is `radish-bench gen CONFIG`: one load generator run, the JSON
// loadgen.Config in, the JSON loadgen.Result out.
func genMain(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: radish-bench gen '{\"addr\":...}' (a loadgen.Config in JSON)")
	}
	var cfg loadgen.Config
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return err
	}
	res, err := loadgen.Run(context.Background(), cfg)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

// predict fills the report's model and its predictions for the curve's
// radish points. Without costs it derives them from the run's radish-1 and
// radish-2 points (both are needed for a test and depth). The client bound
// is the load generator's CPUs over its CPU per request at that point.
func (h *harness) predict(costs *model.Model) {
	m := costs
	if m == nil {
		m = &model.Model{Source: "this run's radish-1 and radish-2 points"}
		for _, t := range []string{"GET", "SET"} {
			for _, pipe := range plan.Pipelines {
				c1, ok1 := h.curveCPU("radish", 1, t, pipe)
				c2, ok2 := h.curveCPU("radish", 2, t, pipe)
				if ok1 && ok2 {
					m.Costs = append(m.Costs, model.FromPoints(t, pipe, c1, c2))
				}
			}
		}
		if len(m.Costs) == 0 {
			return // one shard only: nothing to predict from
		}
	}
	h.rep.Model = m
	for _, c := range h.rep.Curve {
		if c.Kind != "radish" {
			continue
		}
		bound := 0.0
		if us := report.Median(c.ClientUs); us > 0 {
			bound = float64(c.ClientCores) * 1e6 / us
		}
		if pr, ok := m.Predict(c.Test, c.Pipeline, c.Threads, bound); ok {
			h.rep.Predicted = append(h.rep.Predicted, pr)
		}
	}
}

// curveCPU is the median server CPU per request of a curve point.
func (h *harness) curveCPU(kind string, threads int, test string, pipe int) (float64, bool) {
	for _, c := range h.rep.Curve {
		if c.Kind == kind && c.Threads == threads && c.Test == test && c.Pipeline == pipe && len(c.ServerUs) > 0 {
			return report.Median(c.ServerUs), true
		}
	}
	return 0, false
}

// predictTable writes the model's predictions for 1 to 64 shards as a
// Markdown table (radish-bench --predict): one row per shard count, one
// column per test and pipeline depth, each cell k requests/s and, in
// parentheses, server µs CPU per request; a range is min–max.
func predictTable(w io.Writer, m model.Model) {
	fmt.Fprintf(w, "Predicted, not measured. Costs: %s\n\n", m.Source)
	var pipes []int
	for _, c := range m.Costs {
		if !slices.Contains(pipes, c.Pipeline) {
			pipes = append(pipes, c.Pipeline)
		}
	}
	slices.Sort(pipes)
	tests := m.Tests()
	if slices.Contains(tests, "GET") && slices.Contains(tests, "SET") {
		tests = append(tests, "MIX")
	}
	type col struct {
		test string
		pipe int
	}
	var cols []col
	head := "| shards |"
	for _, pipe := range pipes {
		for _, t := range tests {
			if _, ok := m.Predict(t, pipe, 1, 0); ok {
				cols = append(cols, col{t, pipe})
				head += fmt.Sprintf(" %s -P %d |", t, pipe)
			}
		}
	}
	fmt.Fprintf(w, "%s\n%s\n", head, strings.Repeat("|---", len(cols)+1)+"|")
	for n := 1; n <= 64; n *= 2 {
		fmt.Fprintf(w, "| %d |", n)
		for _, c := range cols {
			pr, _ := m.Predict(c.test, c.pipe, n, 0)
			fmt.Fprintf(w, " %s (%s) |", span(pr.RPSMin, pr.RPSMax, 1e-3, "%.0f"), span(pr.CPUMin, pr.CPUMax, 1, "%.2f"))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\nk requests/s if every shard's core is busy (server µs CPU per request); min–max: hops batched per connection–as at 2 shards.")
	fmt.Fprintf(w, "\nThe costs split into per-request and per-batch parts (µs):\n\n| test | local per request | local per batch (loop turn) | hop per request | hop per message batch |\n|---|---|---|---|---|\n")
	for _, t := range m.Tests() {
		if pt, ok := m.Split(t, pipes[len(pipes)-1]); ok {
			fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %.2f |\n", t, pt.LocalReq, pt.LocalBatch, pt.HopReq, pt.HopBatch)
		}
	}
}

// span is "a" or "a–b" in format, scaled.
func span(a, b, scale float64, format string) string {
	x, y := fmt.Sprintf(format, a*scale), fmt.Sprintf(format, b*scale)
	if x == y {
		return x
	}
	return x + "–" + y
}

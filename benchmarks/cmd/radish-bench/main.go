// Command radish-bench compares radish-server with redis-server and any peer
// servers on one machine: a redis-benchmark matrix, latency under load, YCSB
// workload A (go-ycsb), memory per key, KEYS/SCAN latency and the scaling
// curve over shards (radish, and valkey's io-threads) with the model's
// prediction beside it. It writes results/<date>-<host>.json, .md and PNG
// charts and prints the Markdown. benchmarks/run.sh and
// benchmarks/scaling.sh build what it needs and run it; see
// benchmarks/README.md for the method.
//
// `radish-bench gen CONFIG` is the scaling curve's load generator, one run
// (see package loadgen); `radish-bench --predict --costs ...` prints the
// model's table for 1 to 64 shards.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/radish-kv/radish/benchmarks/internal/model"
	"github.com/radish-kv/radish/benchmarks/internal/plan"
	"github.com/radish-kv/radish/benchmarks/internal/report"
	"github.com/radish-kv/radish/benchmarks/internal/server"
)

// sizes are the request counts of one mode (full or quick).
type sizes struct {
	p1, p32      int   // requests per matrix test at pipeline 1 and 32
	latency      int   // requests per latency-under-load test
	ycsbRecords  int   // YCSB records loaded
	ycsbOps      int   // YCSB operations per run
	ycsbThreads  int   // YCSB client threads
	populate     []int // DEBUG POPULATE key counts
	hashes       int   // small hashes for the memory test
	scaling      int   // requests per scaling test and shard
	timeout      time.Duration
	warmRequests int
}

var (
	full = sizes{p1: 200_000, p32: 2_000_000, latency: 500_000,
		ycsbRecords: 1_000_000, ycsbOps: 2_000_000, ycsbThreads: 100,
		populate: []int{1_000_000, 10_000_000}, hashes: 1_000_000, scaling: 2_000_000,
		timeout: 15 * time.Minute, warmRequests: 200_000}
	quick = sizes{p1: 20_000, p32: 200_000, latency: 30_000,
		ycsbRecords: 20_000, ycsbOps: 30_000, ycsbThreads: 100,
		populate: []int{1_000_000}, hashes: 200_000, scaling: 200_000,
		timeout: 2 * time.Minute, warmRequests: 20_000}
)

type peers []server.Spec

func (p *peers) String() string { return fmt.Sprint(*p) }
func (p *peers) Set(v string) error {
	name, bin, ok := strings.Cut(v, "=")
	if !ok || name == "" || bin == "" {
		return fmt.Errorf("want name=/path/to/binary, got %q", v)
	}
	*p = append(*p, server.Spec{Name: name, Bin: bin})
	return nil
}

// harness is one run of the benchmarks.
type harness struct {
	sz         sizes
	runs       int
	bench      string // redis-benchmark binary
	ycsb       string // go-ycsb binary
	ycsbType   string // "auto", "hash" or "string"
	clientCPUs string // taskset list for load generators
	tmp        string // parent of the servers' directories
	keepLogs   bool   // a server crashed or hung: keep tmp for its logs
	rep        *report.Report
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "gen" {
		if err := genMain(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "radish-bench gen:", err)
			os.Exit(1)
		}
		return
	}
	cores := runtime.NumCPU()
	clientCPUs := plan.Range(1, cores-1) // all but CPU 0
	if cores == 1 {
		clientCPUs = "0"
	}
	var (
		h          harness
		ps         peers
		quickMode  = flag.Bool("quick", os.Getenv("QUICK") == "1", "small counts (finishes in under 3 minutes)")
		out        = flag.String("out", "benchmarks/results", "directory for the JSON, Markdown and PNG results")
		radishBin  = flag.String("radish", "bin/radish-server", "radish-server binary")
		redisBin   = flag.String("redis", "/usr/bin/redis-server", "redis-server binary")
		ioKind     = flag.String("io", "uring", "radish --io driver (uring or epoll)")
		serverCPUs = flag.String("server-cpus", "0", "CPUs the servers are pinned to (taskset list)")
		only       = flag.String("only", "matrix,latency,ycsb,memory,scaling", "workloads to run, comma-separated")
		noRadish   = flag.Bool("no-radish", false, "leave radish out")
		noRedis    = flag.Bool("no-redis", false, "leave redis out")
		redraw     = flag.String("redraw", "", "only redraw the Markdown and charts of this results JSON file")
		valkeyBin  = flag.String("valkey", "", "valkey-server binary for the scaling curve (--io-threads 1..8); none if empty")
		maxShards  = flag.Int("max-shards", 0, "scaling: the most shards (on the first cores; the load generator gets the rest); 0 means half the cores")
		budget     = flag.Duration("budget", 7*time.Minute, "scaling: the time the curve may take (1m with --quick); runs are shortened to fit (at most 2 s each)")
		costsFlag  = flag.String("costs", "", "scaling model inputs test:pipeline:local_us:hop_us,... (benchmarks/costs.sh prints them); default: this run's 1- and 2-shard points")
		costsFrom  = flag.String("costs-source", "", "where --costs were measured (binary, commit, machine), for the report")
		predict    = flag.Bool("predict", false, "only print the model's prediction for 1 to 64 shards from --costs")
		commit     = flag.String("commit", "", "the commit radish-server was built from, for the report (scaling.sh passes it)")
		perfBin    = flag.String("perf", "perf", "scaling: perf, to profile radish at the largest shard count (skipped if not found; \"\" for none)")
	)
	flag.IntVar(&h.runs, "runs", 3, "runs per measurement (the median and range are reported)")
	flag.StringVar(&h.bench, "redis-benchmark", "/usr/bin/redis-benchmark", "redis-benchmark binary")
	flag.StringVar(&h.ycsb, "ycsb", "bin/go-ycsb", "go-ycsb binary")
	flag.StringVar(&h.ycsbType, "ycsb-datatype", "auto", "go-ycsb redis.datatype: hash, string, or auto (hash if every server has HSET)")
	flag.StringVar(&h.clientCPUs, "client-cpus", clientCPUs, "CPUs the load generators are pinned to (taskset list)")
	flag.Var(&ps, "peer", "another server to compare, name=/path/to/binary (repeatable); started with redis-server's flags")
	flag.Parse()
	log.SetFlags(log.Ltime)
	var costs *model.Model
	if *costsFlag != "" {
		cs, err := model.ParseCosts(*costsFlag)
		if err != nil {
			log.Fatal(err)
		}
		costs = &model.Model{Costs: cs, Source: strings.TrimSpace("--costs " + *costsFlag + "; " + *costsFrom)}
	}
	if *predict {
		if costs == nil {
			log.Fatal("--predict needs --costs")
		}
		predictTable(os.Stdout, *costs)
		return
	}
	if *redraw != "" {
		if err := redrawFrom(*redraw); err != nil {
			log.Fatal(err)
		}
		return
	}

	h.sz = full
	if *quickMode {
		h.sz = quick
		budgetSet := false
		flag.Visit(func(f *flag.Flag) { budgetSet = budgetSet || f.Name == "budget" })
		if !budgetSet {
			*budget = time.Minute
		}
	}
	host, _ := os.Hostname()
	h.rep = &report.Report{
		Date: time.Now().Format("2006-01-02T15-04-05"), Host: host, Cores: cores, Kernel: kernel(), CPU: cpuModel(),
		Quick: *quickMode, Runs: h.runs,
		Pinning: fmt.Sprintf("servers on CPU %s (radish --shards 1), load generators on CPU %s", *serverCPUs, h.clientCPUs),
	}
	if *serverCPUs == h.clientCPUs {
		h.problem("servers and load generators share CPUs %s: numbers are not per core", h.clientCPUs)
	}
	var err error
	if h.tmp, err = os.MkdirTemp("", "radish-bench-"); err != nil {
		log.Fatal(err)
	}
	defer func() {
		if h.keepLogs {
			log.Printf("servers' logs kept in %s", h.tmp)
		} else {
			os.RemoveAll(h.tmp)
		}
	}()

	var specs []server.Spec
	if !*noRadish {
		specs = append(specs, server.Spec{Name: "radish", Bin: *radishBin, Radish: true, Shards: 1, IO: *ioKind})
	}
	if !*noRedis {
		specs = append(specs, server.Spec{Name: "redis", Bin: *redisBin})
	}
	specs = append(specs, ps...)
	ctx := context.Background()
	want := func(w string) bool { return strings.Contains(","+*only+",", ","+w+",") }
	for i := range specs {
		specs[i].CPUs = *serverCPUs
		if !want("matrix") && !want("latency") && !want("ycsb") && !want("memory") {
			continue // the scaling curve lists its own servers
		}
		args := specs[i].Args(0, "DIR")
		args[1] = "PORT"
		h.rep.Servers = append(h.rep.Servers, report.ServerInfo{Name: specs[i].Name, Bin: specs[i].Bin,
			Version: server.Version(specs[i].Bin), Args: args})
	}
	if want("matrix") || want("latency") || want("ycsb") {
		h.compare(ctx, specs, want("matrix"), want("latency"), want("ycsb"))
	}
	if want("memory") {
		h.memory(ctx, specs)
	}
	if want("scaling") {
		redis := *redisBin
		if *noRedis {
			redis = ""
		}
		pl, err := plan.New(cores, *maxShards, h.runs, *valkeyBin != "", redis != "", *budget, siblings(cores))
		if err != nil {
			h.problem("scaling: %v", err)
		} else {
			if *only == "scaling" {
				h.rep.Pinning = fmt.Sprintf("servers on the first N of CPUs %v (N = shards or io-threads; one hardware thread per core first), the load generator on CPUs %s",
					pl.Order[:pl.MaxShards], pl.ClientCPUs)
			}
			perf := *perfBin
			if _, err := exec.LookPath(perf); perf != "" && err != nil {
				log.Printf("no %s: no profile", perf)
				perf = ""
			}
			h.curve(ctx, binaries{radish: *radishBin, io: *ioKind, valkey: *valkeyBin, redis: redis, commit: *commit, perf: perf}, pl, costs)
		}
	}

	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	base := filepath.Join(*out, h.rep.Date+"-"+host)
	if err := h.rep.WriteJSON(base + ".json"); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s.json", base)
	if err := write(h.rep, base); err != nil {
		log.Fatal(err)
	}
}

// write writes base.md and the charts base-*.png and prints the Markdown.
func write(r *report.Report, base string) error {
	charts, err := r.Charts(filepath.Dir(base), filepath.Base(base))
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	md, err := os.Create(base + ".md")
	if err != nil {
		return err
	}
	r.Markdown(md)
	if err := md.Close(); err != nil {
		return err
	}
	r.Markdown(os.Stdout)
	fmt.Printf("\nwrote %s.md and %d charts: %s\n", base, len(charts), strings.Join(charts, " "))
	return nil
}

// redrawFrom rewrites the Markdown and charts of a results JSON file.
func redrawFrom(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return write(&r, strings.TrimSuffix(path, ".json"))
}

// problem records something that went wrong without stopping the run.
func (h *harness) problem(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	log.Print("PROBLEM: ", msg)
	h.rep.Problems = append(h.rep.Problems, msg)
}

// startAll starts every spec; a server that does not start is recorded as a
// problem and left out of the result.
func (h *harness) startAll(ctx context.Context, specs []server.Spec) []*server.Server {
	var srvs []*server.Server
	for _, s := range specs {
		srv, err := server.Start(ctx, s, h.tmp)
		if err != nil {
			h.problem("%s did not start: %v", s.Name, err)
			continue
		}
		srvs = append(srvs, srv)
	}
	return srvs
}

func stopAll(srvs []*server.Server) {
	for _, s := range srvs {
		s.Stop()
	}
}

// revive restarts a server that has died, recording the crash. It returns
// the server to use from now on: s itself if it is alive, a new process, or
// the dead s if it could not be restarted.
func (h *harness) revive(ctx context.Context, s *server.Server, during string) *server.Server {
	if s.Alive() {
		return s
	}
	h.keepLogs = true
	h.problem("%s crashed during %s; log tail: %s", s.Name, during, s.LogTail())
	if err := s.Stop(); err != nil {
		log.Print(err)
	}
	n, err := server.Start(ctx, s.Spec, h.tmp)
	if err != nil {
		h.problem("%s did not restart: %v", s.Name, err)
		return s
	}
	return n
}

// tool runs a load generator pinned to cpus (h.clientCPUs if "") and
// returns its combined output.
func (h *harness) tool(ctx context.Context, cpus, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, h.sz.timeout)
	defer cancel()
	if cpus == "" {
		cpus = h.clientCPUs
	}
	argv := append([]string{"-c", cpus, bin}, args...)
	cmd := exec.CommandContext(ctx, "taskset", argv...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %v", filepath.Base(bin), h.sz.timeout)
	}
	return out, err
}

func kernel() string {
	out, _ := exec.Command("uname", "-r").Output()
	return strings.TrimSpace(string(out))
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/radish-kv/radish/benchmarks/internal/parse"
	"github.com/radish-kv/radish/benchmarks/internal/report"
	"github.com/radish-kv/radish/benchmarks/internal/server"
)

// matrixTests are the redis-benchmark -t names of the throughput matrix.
var matrixTests = []string{"set", "get", "incr", "lpush", "lpop", "sadd", "hset", "zadd", "mset", "lrange_100"}

// load is one redis-benchmark configuration.
type load struct {
	test                        string // -t name
	pipeline, clients, requests int
	text                        bool // plain-text report (for p99.9) instead of --csv
}

// result is what one run of a load measured; latencies in ms.
type result struct {
	rps, p50, p99, p999 float64
	dist                []parse.Pct
}

// compare runs the workloads that put the servers side by side, each started
// once with the same pinning, warmed up, and alternated run by run.
func (h *harness) compare(ctx context.Context, specs []server.Spec, matrix, latency, ycsb bool) {
	srvs := h.startAll(ctx, specs)
	defer func() { stopAll(srvs) }()
	h.warmUp(ctx, srvs)
	if matrix {
		for _, pipe := range []int{1, 32} {
			n := h.sz.p1
			if pipe > 1 {
				n = h.sz.p32
			}
			for _, t := range matrixTests {
				l := load{test: t, pipeline: pipe, clients: 50, requests: n}
				if t == "mset" || t == "lrange_100" {
					l.requests /= 5 // ten keys or a hundred elements per request
				}
				h.rep.Matrix = append(h.rep.Matrix, h.runBench(ctx, srvs, l)...)
			}
		}
	}
	if latency {
		for _, t := range []string{"set", "get"} {
			l := load{test: t, pipeline: 1, clients: 500, requests: h.sz.latency, text: true}
			h.rep.Latency = append(h.rep.Latency, h.runBench(ctx, srvs, l)...)
		}
	}
	if ycsb {
		h.ycsbA(ctx, srvs)
	}
}

// health says whether s answers PING now and how many clients it has, for
// telling a hung server from a stuck load generator.
func (h *harness) health(ctx context.Context, s *server.Server) string {
	h.keepLogs = true
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := s.Client.Ping(ctx).Err(); err != nil {
		return "does not answer PING (" + err.Error() + "), log dir " + s.Dir
	}
	info, err := s.Info(ctx)
	if err != nil {
		return "answers PING, INFO fails: " + err.Error()
	}
	return fmt.Sprintf("answers PING, connected_clients:%s, log dir %s", info["connected_clients"], s.Dir)
}

// warmUp runs an unrecorded SET/GET pass on each server.
func (h *harness) warmUp(ctx context.Context, srvs []*server.Server) {
	for _, s := range srvs {
		if out, err := h.tool(ctx, "", h.bench, "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-t", "set,get",
			"-n", strconv.Itoa(h.sz.warmRequests), "-r", "1000000", "-P", "32", "-q"); err != nil {
			h.problem("%s warm-up: %v %s", s.Name, err, lastLine(out))
		}
	}
}

// runBench runs l h.runs times on every server, alternating servers run by
// run, and returns one Bench per server. A server that answers with an error
// or crashes gets Err and no further runs of l.
func (h *harness) runBench(ctx context.Context, srvs []*server.Server, l load) []report.Bench {
	res := make([]report.Bench, len(srvs))
	for i, s := range srvs {
		res[i] = report.Bench{Server: s.Name, Test: strings.ToUpper(l.test), Pipeline: l.pipeline,
			Clients: l.clients, Requests: l.requests}
	}
	for run := 0; run < h.runs; run++ {
		for i, s := range srvs {
			b := &res[i]
			if b.Err != "" {
				continue
			}
			if !s.Alive() {
				b.Err = "server is down"
				continue
			}
			r, err := h.single(ctx, s, l)
			if !s.Alive() {
				srvs[i] = h.revive(ctx, s, fmt.Sprintf("redis-benchmark -t %s -P %d -c %d", l.test, l.pipeline, l.clients))
				b.Err = "server crashed"
				continue
			}
			if err != nil {
				b.Err = err.Error()
				continue
			}
			b.RPS, b.P50, b.P99 = append(b.RPS, r.rps), append(b.P50, r.p50), append(b.P99, r.p99)
			if l.text {
				b.P999, b.Dist = append(b.P999, r.p999), r.dist
			}
		}
	}
	return res
}

// single runs one redis-benchmark process on the client CPUs and parses
// its report.
func (h *harness) single(ctx context.Context, s *server.Server, l load) (result, error) {
	args := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-t", l.test, "-n", strconv.Itoa(l.requests),
		"-r", "1000000", "-c", strconv.Itoa(l.clients), "-P", strconv.Itoa(l.pipeline)}
	if l.text {
		args = append(args, "--precision", "3")
	} else {
		args = append(args, "--csv")
	}
	out, err := h.tool(ctx, "", h.bench, args...)
	if e := parse.ServerError(out); e != "" {
		return result{}, errors.New(e)
	}
	if err != nil {
		err = fmt.Errorf("%v: %s", err, lastLine(out))
		if s.Alive() {
			h.problem("%s redis-benchmark %s: %v; afterwards the server %s", s.Name, strings.Join(args, " "), err, h.health(ctx, s))
		}
		return result{}, err
	}
	if l.text {
		reps, err := parse.Text(out)
		if err != nil {
			return result{}, err
		}
		r := reps[len(reps)-1]
		return result{rps: r.RPS, p50: r.Summary.P50, p99: r.Summary.P99, p999: r.Percentile(99.9), dist: r.Distribution}, nil
	}
	rows, err := parse.CSV(out)
	if err != nil {
		return result{}, err
	}
	r := rows[len(rows)-1] // LRANGE_100 is preceded by the LPUSH that fills the list
	return result{rps: r.RPS, p50: r.P50, p99: r.P99}, nil
}

// ycsbA loads YCSB records into every server once, then runs workload A
// h.runs times per server, alternating servers.
func (h *harness) ycsbA(ctx context.Context, srvs []*server.Server) {
	dtype := h.ycsbType
	if dtype == "auto" {
		dtype = "hash"
		for _, s := range srvs {
			if err := s.Client.HSet(ctx, "radish-bench:probe", "f", "v").Err(); err != nil {
				dtype = "string"
				h.problem("%s has no HSET (%v): YCSB uses redis.datatype=string on every server", s.Name, err)
			}
			s.Client.Del(ctx, "radish-bench:probe")
		}
	}
	props := func(s *server.Server) []string {
		var a []string
		for _, kv := range []string{"workload=core", "readallfields=true", "readproportion=0.5", "updateproportion=0.5",
			"scanproportion=0", "insertproportion=0", "requestdistribution=zipfian",
			"recordcount=" + strconv.Itoa(h.sz.ycsbRecords), "operationcount=" + strconv.Itoa(h.sz.ycsbOps),
			"threadcount=" + strconv.Itoa(h.sz.ycsbThreads), "redis.addr=" + s.Addr(), "redis.datatype=" + dtype} {
			a = append(a, "-p", kv)
		}
		return a
	}
	res := make([]report.YCSB, len(srvs))
	for i, s := range srvs {
		res[i] = report.YCSB{Server: s.Name, Records: h.sz.ycsbRecords, Ops: h.sz.ycsbOps, Threads: h.sz.ycsbThreads, Datatype: dtype}
		if err := s.Client.FlushAll(ctx).Err(); err != nil {
			res[i].Err = "FLUSHALL: " + err.Error()
			continue
		}
		out, err := h.tool(ctx, "", h.ycsb, append([]string{"load", "redis"}, props(s)...)...)
		y, perr := parse.ParseYCSB(out)
		switch {
		case err != nil || perr != nil:
			res[i].Err = fmt.Sprintf("load: %v %v: %s", err, perr, lastLine(out))
		case y.Errors() > 0:
			res[i].Err = fmt.Sprintf("load: %d inserts failed", y.Errors())
		}
		if res[i].Err != "" {
			h.problem("YCSB %s %s", s.Name, res[i].Err)
		}
		srvs[i] = h.revive(ctx, s, "YCSB load")
	}
	for run := 0; run < h.runs; run++ {
		for i, s := range srvs {
			y := &res[i]
			if y.Err != "" || !s.Alive() {
				continue
			}
			info0, err1 := s.Info(ctx)
			proc0, _ := s.CPUSeconds()
			out, err := h.tool(ctx, "", h.ycsb, append([]string{"run", "redis"}, props(s)...)...)
			if !s.Alive() {
				srvs[i] = h.revive(ctx, s, "YCSB run")
				y.Err = "server crashed"
				continue
			}
			info1, err2 := s.Info(ctx)
			proc1, _ := s.CPUSeconds()
			r, perr := parse.ParseYCSB(out)
			if err != nil || perr != nil || err1 != nil || err2 != nil {
				y.Err = fmt.Sprintf("run: %v %v %v %v: %s", err, perr, err1, err2, lastLine(out))
				h.problem("YCSB %s %s", s.Name, y.Err)
				continue
			}
			// go-ycsb's zipfian key range includes one key past the loaded
			// records, so with redis.datatype=string an update of it fails
			// (GET returns nil): a few errors are expected on every server.
			if n := r.Errors(); n > int64(h.sz.ycsbOps/1000) {
				h.problem("YCSB %s run %d: %d operations failed", s.Name, run+1, n)
			}
			ops := float64(r.Ops["TOTAL"].Count + r.Errors())
			y.Runs = append(y.Runs, r)
			c0, ok0 := info0.CPUSeconds()
			c1, ok1 := info1.CPUSeconds()
			if !ok0 || !ok1 {
				h.problem("%s INFO has no used_cpu_sys/used_cpu_user; YCSB CPU per op uses /proc", s.Name)
				c0, c1 = proc0, proc1
			} else if pc := proc1 - proc0; pc > 0.5 && !near(c1-c0, pc, 0.25) {
				h.problem("%s INFO used_cpu_sys+used_cpu_user grew %.2fs during a YCSB run, /proc/%d/stat %.2fs", s.Name, c1-c0, s.Pid, pc)
			}
			y.CPUPerOpUs = append(y.CPUPerOpUs, (c1-c0)/ops*1e6)
		}
	}
	h.rep.YCSB = append(h.rep.YCSB, res...)
}

// memory measures used_memory and RSS per key on fresh servers: strings from
// DEBUG POPULATE, then small hashes; on the 1M-key servers it also times
// KEYS and SCAN MATCH.
func (h *harness) memory(ctx context.Context, specs []server.Spec) {
	for _, n := range h.sz.populate {
		srvs := h.startAll(ctx, specs)
		for _, s := range srvs {
			h.rep.Memory = append(h.rep.Memory, h.measure(ctx, s, "strings", n, func() error {
				return s.Client.Do(ctx, "DEBUG", "POPULATE", n).Err()
			}))
		}
		if n == 1_000_000 {
			h.keyScan(ctx, srvs, n)
		}
		stopAll(srvs)
	}
	srvs := h.startAll(ctx, specs)
	for _, s := range srvs {
		h.rep.Memory = append(h.rep.Memory, h.measure(ctx, s, "hashes", h.sz.hashes, func() error {
			return fillHashes(ctx, s.Client, h.sz.hashes)
		}))
	}
	stopAll(srvs)
}

// measure fills a fresh server with fill and reports the growth of
// used_memory and RSS per key.
func (h *harness) measure(ctx context.Context, s *server.Server, workload string, keys int, fill func() error) report.Memory {
	m := report.Memory{Server: s.Name, Workload: workload, Keys: keys}
	fail := func(err error) report.Memory {
		m.Err = err.Error()
		if !s.Alive() {
			h.problem("%s crashed during memory/%s: %s", s.Name, workload, s.LogTail())
		}
		return m
	}
	info0, err := s.Info(ctx)
	if err != nil {
		return fail(err)
	}
	rss0, err := s.RSS()
	if err != nil {
		return fail(err)
	}
	if err := fill(); err != nil {
		return fail(err)
	}
	if n, err := s.Client.DBSize(ctx).Result(); err != nil || n != int64(keys) {
		h.problem("%s memory/%s: DBSIZE %d (%v), want %d", s.Name, workload, n, err, keys)
	}
	info1, err := s.Info(ctx)
	if err != nil {
		return fail(err)
	}
	rss1, err := s.RSS()
	if err != nil {
		return fail(err)
	}
	u0, _ := info0.Float("used_memory")
	u1, _ := info1.Float("used_memory")
	m.UsedMemory, m.RSS = int64(u1-u0), rss1-rss0
	m.UsedPerKey, m.RSSPerKey = (u1-u0)/float64(keys), float64(rss1-rss0)/float64(keys)
	return m
}

// fillHashes writes n hashes of ten small fields with pipelined HSETs.
func fillHashes(ctx context.Context, c *redis.Client, n int) error {
	const batch = 1000
	for lo := 0; lo < n; lo += batch {
		p := c.Pipeline()
		for i := lo; i < min(lo+batch, n); i++ {
			args := []any{"HSET", "hash:" + strconv.Itoa(i)}
			for f := 0; f < 10; f++ {
				args = append(args, "field:"+strconv.Itoa(f), "value:"+strconv.Itoa(f))
			}
			p.Do(ctx, args...)
		}
		cmds, err := p.Exec(ctx)
		if err != nil {
			for _, c := range cmds {
				if c.Err() != nil {
					return c.Err()
				}
			}
			return err
		}
	}
	return nil
}

// keyScan times KEYS and a full SCAN MATCH for a pattern matching 0.11% of
// key:0..key:n-1 (key:123* matches 1,111 of 1M keys), alternating servers.
func (h *harness) keyScan(ctx context.Context, srvs []*server.Server, n int) {
	const pattern, want, calls = "key:123*", 1111, 5
	res := make([]report.KeyScan, len(srvs))
	for i, s := range srvs {
		res[i] = report.KeyScan{Server: s.Name, Keys: n, Pattern: pattern}
	}
	for call := 0; call < calls; call++ {
		for i, s := range srvs {
			k := &res[i]
			if k.Err != "" {
				continue
			}
			t0 := time.Now()
			keys, err := s.Client.Keys(ctx, pattern).Result()
			t1 := time.Now()
			if err != nil {
				k.Err = "KEYS: " + err.Error()
				continue
			}
			seen := map[string]bool{}
			var cursor uint64
			k.ScanCalls = 0
			for {
				var page []string
				page, cursor, err = s.Client.Scan(ctx, cursor, pattern, 1000).Result()
				k.ScanCalls++
				if err != nil {
					k.Err = "SCAN: " + err.Error()
					break
				}
				for _, key := range page {
					seen[key] = true
				}
				if cursor == 0 {
					break
				}
			}
			if k.Err != "" {
				continue
			}
			k.KeysMs = append(k.KeysMs, ms(t1.Sub(t0)))
			k.ScanMs = append(k.ScanMs, ms(time.Since(t1)))
			k.Matched = len(keys)
			if call == 0 && (len(keys) != want || len(seen) != want) {
				h.problem("%s: KEYS %s returned %d keys, full SCAN MATCH %d distinct keys; want %d", s.Name, pattern, len(keys), len(seen), want)
			}
		}
	}
	h.rep.Keys = append(h.rep.Keys, res...)
}

func near(a, b, tol float64) bool { return a >= b*(1-tol) && a <= b*(1+tol) }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// lastLine returns the last non-empty line of a tool's output, for errors.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	l := lines[len(lines)-1]
	if i := strings.LastIndexByte(l, '\r'); i >= 0 {
		l = l[i+1:]
	}
	return strings.TrimSpace(l)
}

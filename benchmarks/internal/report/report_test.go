package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radish-kv/radish/benchmarks/internal/model"
	"github.com/radish-kv/radish/benchmarks/internal/parse"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want Stat
	}{
		{nil, Stat{}},
		{[]float64{3, 1, 2}, Stat{2, 1, 3, 3}},
		{[]float64{4, 1, 2, 3}, Stat{2.5, 1, 4, 4}},
	} {
		if got := Summarize(c.in); got != c.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func sample() *Report {
	return &Report{
		Date: "2026-01-02T03-04-05", Host: "h", CPU: "cpu", Cores: 2, Kernel: "6.1", Runs: 3, Pinning: "servers on CPU 0",
		Servers: []ServerInfo{{Name: "radish", Bin: "bin/radish-server"}, {Name: "redis", Bin: "redis-server", Args: []string{"--save", ""}}},
		Matrix: []Bench{
			{Server: "radish", Test: "SET", Pipeline: 1, RPS: []float64{120e3, 100e3, 110e3}},
			{Server: "redis", Test: "SET", Pipeline: 1, RPS: []float64{100e3, 90e3, 95e3}},
			{Server: "radish", Test: "LPUSH", Pipeline: 1, Err: "ERR unknown command 'lpush'"},
			{Server: "redis", Test: "LPUSH", Pipeline: 1, RPS: []float64{80e3, 80e3, 80e3}},
		},
		Latency: []Bench{{Server: "redis", Test: "GET", Pipeline: 1, Clients: 500, RPS: []float64{1e5}, P50: []float64{1},
			P99: []float64{2}, P999: []float64{3}, Dist: []parse.Pct{{Pct: 0, Ms: 0.5}, {Pct: 50, Ms: 1}, {Pct: 99, Ms: 2}, {Pct: 99.9, Ms: 3}, {Pct: 100, Ms: 4}}}},
		YCSB: []YCSB{{Server: "redis", Records: 10, Ops: 20, Threads: 1, Datatype: "hash",
			Runs:       []parse.YCSB{{Throughput: 1000, Ops: map[string]parse.YCSBOp{"READ": {Avg: 10, P99: 20}, "UPDATE": {Avg: 11}}}},
			CPUPerOpUs: []float64{5}}},
		Memory:  []Memory{{Server: "radish", Workload: "strings", Keys: 1000, RSSPerKey: 40, UsedPerKey: 30}, {Server: "redis", Workload: "strings", Keys: 1000, RSSPerKey: 90, UsedPerKey: 88}},
		Scaling: []Bench{{Server: "radish-1", Test: "GET", Shards: 1, RPS: []float64{1e6}}, {Server: "radish-2", Test: "GET", Shards: 2, RPS: []float64{1.8e6}}},
	}
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	sample().Markdown(&b)
	md := b.String()
	for _, want := range []string{
		"| SET | 1 | 110 (100–120) | 95 (90–100) | 1.16x |",
		"| LPUSH | 1 | n/a | 80 (80–80) | n/a |",
		"- radish LPUSH: ERR unknown command 'lpush'",
		"| redis | GET | 100 | 1.000 | 2.000 | 3.000 |",
		"| redis | 1000 | READ | 10 | 0 | 20 | 0 | 0 | 5.00 |",
		"| radish | strings | 1000 | 30.0 | 40.0 |",
		"| 2 | 0 | GET | 1800 | 1.80x |",
		"`redis-server --save ''`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestChartsAndJSON(t *testing.T) {
	dir := t.TempDir()
	r := sample()
	files, err := r.Charts(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 { // throughput-p1, latency, memory, scaling
		t.Errorf("charts %v, want 4", files)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
			t.Errorf("chart %s: %v", f, err)
		}
	}
	if err := r.WriteJSON(filepath.Join(dir, "r.json")); err != nil {
		t.Fatal(err)
	}
}

func curveSample() *Report {
	m := &model.Model{Costs: []model.Cost{{Test: "GET", Pipeline: 32, Local: 0.5, Hop: 2.4}}, Source: "test"}
	r := &Report{CPU: "cpu", Cores: 16, Model: m}
	for _, n := range []int{1, 2, 4} {
		r.Curve = append(r.Curve, Point{Server: fmt.Sprintf("radish-%d", n), Kind: "radish", Threads: n, Test: "GET", Pipeline: 32,
			Conns: 50 * n, ServerCPUs: map[int]string{1: "0", 2: "0-1", 4: "0-3"}[n], ClientCPUs: "8-15", ClientCores: 8, Seconds: 2, RPS: []float64{float64(n) * 1e6, float64(n) * 1.2e6, float64(n) * 1.1e6},
			ServerUs: []float64{0.5 * float64(n)}, ClientUs: []float64{0.3}})
		pr, _ := m.Predict("GET", 32, n, 0)
		r.Predicted = append(r.Predicted, pr)
	}
	r.Curve = append(r.Curve, Point{Server: "valkey-1", Kind: "valkey", Threads: 1, Test: "GET", Pipeline: 32, Conns: 50, RPS: []float64{5e5}, ServerUs: []float64{1.5}, ClientUs: []float64{0.3}},
		Point{Server: "valkey-2", Kind: "valkey", Threads: 2, Test: "GET", Pipeline: 32, Conns: 100, Err: "server crashed"})
	return r
}

func TestCurve(t *testing.T) {
	r := curveSample()
	r.Profile = &Profile{Server: "radish-4", Test: "MIX", Pipeline: 32, Seconds: 2, Lines: []string{"    12.50%  radish-server  [.] shard.(*Shard).Turn"}}
	var b bytes.Buffer
	r.Markdown(&b)
	md := b.String()
	for _, want := range []string{
		"| radish | 1 | 0 | GET | 32 | 50 | 1100 (1000–1200) | 1.00x | 0.50 | 55% | 0.30 | 4% | 2000–2000 |",
		"| radish | 4 | 0-3 | GET | 32 | 200 | 4400 (4000–4800) | 4.00x | 2.00 | 220% | 0.30 | 16% | 1739–1739 |",
		"| valkey | 1 |  | GET | 32 | 50 | 500 | 1.00x | 1.50 | 75% | 0.30 |  |  |",
		"| valkey | 2 |  | GET | 32 | 100 | n/a | | | | | |  |",
		"- valkey-2 GET -P 32: server crashed",
		"Model inputs (test):",
		"| GET | 32 | 0.50 | 2.40 |",
		"it is not a measurement",
		"### Where radish-4's CPU time goes: MIX -P 32, 2.0 s",
		"```\n    12.50%  radish-server  [.] shard.(*Shard).Turn\n```",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	dir := t.TempDir()
	files, err := r.Charts(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || filepath.Base(files[0]) != "x-curve.png" {
		t.Fatalf("charts %v", files)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Size() < 10000 {
		t.Errorf("chart %s: %v", files[0], err)
	}
}

package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

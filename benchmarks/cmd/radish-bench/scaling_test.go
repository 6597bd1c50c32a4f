package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/radish-kv/radish/benchmarks/internal/model"
	"github.com/radish-kv/radish/benchmarks/internal/report"
)

// The README's predicted table comes from these costs (benchmarks/costs.sh,
// radish-server 4f41946); its 1- and 16-shard rows are these.
func TestPredictTable(t *testing.T) {
	cs, err := model.ParseCosts("get:1:8.739:7.144,get:32:0.449:0.518,set:1:9.289:5.460,set:32:0.495:0.538")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	predictTable(&b, model.Model{Costs: cs, Source: "src"})
	out := b.String()
	for _, want := range []string{
		"Predicted, not measured. Costs: src",
		"| shards | GET -P 1 | SET -P 1 | MIX -P 1 | GET -P 32 | SET -P 32 | MIX -P 32 |",
		"| 1 | 114 (8.74) | 108 (9.29) | 114 (8.79) | 2227 (0.45) | 2020 (0.49) | 2205 (0.45) |",
		"| 16 | 1037 (15.44) | 1111 (14.41) | 1043 (15.33) | 4687–17119 (0.93–3.41) | 5632–16010 (1.00–2.84) | 4767–17001 (0.94–3.36) |",
		"| GET | 0.18 | 8.56 | 0.08 | 7.07 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	table, _, _ := strings.Cut(out, "The costs split")
	if n := strings.Count(table, "\n| "); n != 8 { // header and 1, 2, 4, ..., 64
		t.Errorf("%d rows:\n%s", n, out)
	}
}

func TestGenMainRefuses(t *testing.T) {
	var b bytes.Buffer
	for _, args := range [][]string{nil, {"{", "x"}, {"not json"}, {`{"addr":"127.0.0.1:1","conns":0}`}} {
		if err := genMain(args, &b); err == nil {
			t.Errorf("genMain(%q) gave no error", args)
		}
	}
	if b.Len() != 0 {
		t.Errorf("printed %q", b.String())
	}
}

// Without --costs the model takes its costs from the run's radish-1 and
// radish-2 points and predicts every radish point, capped by the client.
func TestPredictFromOwnPoints(t *testing.T) {
	h := harness{rep: &report.Report{}}
	for _, n := range []int{1, 2, 4} {
		for _, test := range []string{"GET", "SET", "MIX"} {
			for _, pipe := range []int{1, 32} {
				us := 0.5 + 0.6*float64(n-1) // 2 shards: +0.6, a hop of 1.2
				h.rep.Curve = append(h.rep.Curve, report.Point{Kind: "radish", Threads: n, Test: test, Pipeline: pipe,
					ServerUs: []float64{us}, ClientUs: []float64{0.25}, ClientCores: 2})
			}
		}
	}
	h.rep.Curve = append(h.rep.Curve, report.Point{Kind: "valkey", Threads: 1, Test: "GET", Pipeline: 32, ServerUs: []float64{1}})
	h.predict(nil)
	m := h.rep.Model
	if m == nil || len(m.Costs) != 4 || m.Costs[0].Test != "GET" || m.Costs[0].Pipeline != 1 || m.Costs[0].Local != 0.5 ||
		math.Abs(m.Costs[0].Hop-1.2) > 1e-9 {
		t.Fatalf("model %+v", m)
	}
	if len(h.rep.Predicted) != 18 { // 3 shard counts × 3 tests × 2 depths; not valkey
		t.Fatalf("%d predictions", len(h.rep.Predicted))
	}
	for _, pr := range h.rep.Predicted {
		if pr.RPSMax > 8e6 { // 2 client cores at 0.25 µs per request
			t.Errorf("prediction above the client bound: %+v", pr)
		}
	}
	one := h.rep.Predicted[0]
	if one.Shards != 1 || one.RPSMax != 2e6 {
		t.Errorf("1 shard: %+v", one)
	}
	// One shard only: nothing to derive costs from.
	h = harness{rep: &report.Report{Curve: []report.Point{{Kind: "radish", Threads: 1, Test: "GET", Pipeline: 1, ServerUs: []float64{1}}}}}
	h.predict(nil)
	if h.rep.Model != nil || len(h.rep.Predicted) != 0 {
		t.Errorf("predicted from one shard: %+v", h.rep)
	}
}

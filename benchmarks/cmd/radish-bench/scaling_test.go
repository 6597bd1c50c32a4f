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
// radish-server ad11d79); its 16-shard row is this one.
func TestPredictTable(t *testing.T) {
	cs, err := model.ParseCosts("get:1:6.640:5.280,get:32:0.500:2.400,set:1:6.760:5.440,set:32:0.595:2.770")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	predictTable(&b, model.Model{Costs: cs, Source: "src"})
	out := b.String()
	for _, want := range []string{
		"Predicted, not measured. Costs: src",
		"| shards | GET -P 1 | SET -P 1 | MIX -P 1 | GET -P 32 | SET -P 32 | MIX -P 32 |",
		"| 1 | 151 (6.64) | 148 (6.76) | 150 (6.65) | 2000 (0.50) | 1681 (0.59) | 1963 (0.51) |",
		"| 16 | 1381 (11.59) | 1349 (11.86) | 1377 (11.62) | 4180–5818 (2.75–3.83) | 3818–5013 (3.19–4.19) | 4141–5726 (2.79–3.86) |",
		"| GET | 0.30 | 6.34 | 2.21 | 3.07 |",
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

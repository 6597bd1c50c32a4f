package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/radish-kv/radish/benchmarks/internal/model"
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
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n| "); n != 8 { // header and 1, 2, 4, ..., 64
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

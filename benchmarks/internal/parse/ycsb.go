package parse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// YCSBOp is go-ycsb's summary of one operation type; latencies in µs.
type YCSBOp struct {
	Count                                          int64
	OPS                                            float64
	Avg, Min, Max, P50, P90, P95, P99, P999, P9999 float64
}

// YCSB is the final measurement of one go-ycsb run (plain output style).
type YCSB struct {
	Elapsed    time.Duration     `json:"elapsed"`    // "Run finished, takes ..."
	Throughput float64           `json:"throughput"` // TOTAL OPS: successful operations per second
	Ops        map[string]YCSBOp `json:"ops"`        // READ, UPDATE, TOTAL, READ_ERROR, ...
}

// Errors returns how many operations failed (the *_ERROR rows).
func (y YCSB) Errors() int64 {
	var n int64
	for name, op := range y.Ops {
		if strings.HasSuffix(name, "_ERROR") {
			n += op.Count
		}
	}
	return n
}

// ParseYCSB reads go-ycsb's output. Only the summary after "Run finished"
// counts; the periodic progress lines before it are ignored.
func ParseYCSB(out []byte) (YCSB, error) {
	s := string(out)
	i := strings.LastIndex(s, "Run finished, takes ")
	if i < 0 {
		return YCSB{}, errors.New("go-ycsb output has no \"Run finished\" line")
	}
	y := YCSB{Ops: map[string]YCSBOp{}}
	lines := strings.Split(s[i:], "\n")
	d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(lines[0], "Run finished, takes ")))
	if err != nil {
		return YCSB{}, fmt.Errorf("go-ycsb: %w", err)
	}
	y.Elapsed = d
	for _, line := range lines[1:] {
		// READ   - Takes(s): 9.9, Count: 5012, OPS: 505.2, Avg(us): 1801, ...
		name, rest, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f := map[string]float64{}
		for _, kv := range strings.Split(rest, ", ") {
			k, v, ok := strings.Cut(kv, ": ")
			if !ok {
				continue
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return YCSB{}, fmt.Errorf("go-ycsb line %q: %w", line, err)
			}
			f[k] = x
		}
		if _, ok := f["Count"]; !ok {
			continue
		}
		y.Ops[strings.TrimSpace(name)] = YCSBOp{Count: int64(f["Count"]), OPS: f["OPS"], Avg: f["Avg(us)"],
			Min: f["Min(us)"], Max: f["Max(us)"], P50: f["50th(us)"], P90: f["90th(us)"], P95: f["95th(us)"],
			P99: f["99th(us)"], P999: f["99.9th(us)"], P9999: f["99.99th(us)"]}
	}
	total, ok := y.Ops["TOTAL"]
	if !ok {
		return YCSB{}, errors.New("go-ycsb output has no TOTAL row")
	}
	y.Throughput = total.OPS
	return y, nil
}

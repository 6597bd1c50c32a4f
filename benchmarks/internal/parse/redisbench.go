package parse

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Row is one test of redis-benchmark --csv: throughput and latencies in ms.
type Row struct {
	Test                         string
	RPS                          float64
	Avg, Min, P50, P95, P99, Max float64
}

// ServerError returns the first "Error from server:" line redis-benchmark
// printed (it exits on the first error reply since 7.0), or "".
func ServerError(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "Error from server:"); i >= 0 {
			return strings.TrimSpace(line[i+len("Error from server:"):])
		}
	}
	return ""
}

// CSV parses the rows of redis-benchmark --csv output. Lines that are not
// CSV rows of eight fields (warnings, errors) are skipped. An error from the
// server is returned as an error.
func CSV(out []byte) ([]Row, error) {
	if e := ServerError(out); e != "" {
		return nil, errors.New(e)
	}
	var rows []Row
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, `"`) || strings.HasPrefix(line, `"test"`) {
			continue
		}
		f, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(f) != 8 {
			continue
		}
		var v [7]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
				return nil, fmt.Errorf("redis-benchmark csv %q: %w", line, err)
			}
		}
		rows = append(rows, Row{Test: f[0], RPS: v[0], Avg: v[1], Min: v[2], P50: v[3], P95: v[4], P99: v[5], Max: v[6]})
	}
	if len(rows) == 0 {
		return nil, errors.New("redis-benchmark printed no CSV rows")
	}
	return rows, nil
}

// Pct is one point of a latency distribution: Pct percent of requests took at
// most Ms milliseconds.
type Pct struct {
	Pct float64 `json:"pct"`
	Ms  float64 `json:"ms"`
}

// Report is one test of redis-benchmark's plain-text output (no -q, no --csv).
type Report struct {
	Test         string
	Requests     int64
	RPS          float64
	Summary      Row   // avg, min, p50, p95, p99, max from "latency summary"
	Distribution []Pct // "Latency by percentile distribution", ascending
}

// Percentile returns the smallest latency whose cumulative share is at
// least p (0-100) in the percentile distribution, or 0 if there is none.
func (r Report) Percentile(p float64) float64 {
	i := sort.Search(len(r.Distribution), func(i int) bool { return r.Distribution[i].Pct >= p })
	if i == len(r.Distribution) {
		return 0
	}
	return r.Distribution[i].Ms
}

// Text parses redis-benchmark's plain-text report for each test it ran.
// Progress lines (separated by carriage returns) are ignored.
func Text(out []byte) ([]Report, error) {
	if e := ServerError(out); e != "" {
		return nil, errors.New(e)
	}
	var reps []Report
	var cur *Report
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "====== ") && strings.HasSuffix(t, " ======"):
			reps = append(reps, Report{Test: strings.TrimSuffix(strings.TrimPrefix(t, "====== "), " ======")})
			cur = &reps[len(reps)-1]
			section = ""
		case cur == nil:
		case strings.HasSuffix(t, ":") && !strings.Contains(t, " <= "):
			section = t
		case strings.Contains(t, "requests completed in"):
			cur.Requests, _ = strconv.ParseInt(strings.Fields(t)[0], 10, 64)
		case strings.HasPrefix(t, "throughput summary:"):
			cur.RPS, _ = strconv.ParseFloat(strings.Fields(t)[2], 64)
		case section == "Latency by percentile distribution:" && strings.Contains(t, " <= "):
			// 99.902% <= 49.823 milliseconds (cumulative count 4999)
			f := strings.Fields(t)
			p, err1 := strconv.ParseFloat(strings.TrimSuffix(f[0], "%"), 64)
			ms, err2 := strconv.ParseFloat(f[2], 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("redis-benchmark percentile line %q", t)
			}
			cur.Distribution = append(cur.Distribution, Pct{p, ms})
		case strings.HasPrefix(section, "latency summary") && len(strings.Fields(t)) == 6 && !strings.HasPrefix(t, "avg"):
			var v [6]float64
			for i, s := range strings.Fields(t) {
				v[i], _ = strconv.ParseFloat(s, 64)
			}
			cur.Summary = Row{Test: cur.Test, RPS: cur.RPS, Avg: v[0], Min: v[1], P50: v[2], P95: v[3], P99: v[4], Max: v[5]}
		}
	}
	if len(reps) == 0 {
		return nil, errors.New("redis-benchmark printed no report")
	}
	for _, r := range reps {
		if r.RPS == 0 || len(r.Distribution) == 0 {
			return nil, fmt.Errorf("redis-benchmark report for %s is incomplete", r.Test)
		}
	}
	return reps, nil
}

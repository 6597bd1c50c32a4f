package report

import (
	"encoding/json"
	"os"
	"sort"

	"github.com/radish-kv/radish/benchmarks/internal/model"
	"github.com/radish-kv/radish/benchmarks/internal/parse"
)

// Report is the result of one harness run.
type Report struct {
	Date    string       `json:"date"`
	Host    string       `json:"host"`
	CPU     string       `json:"cpu"`
	Cores   int          `json:"cores"`
	Kernel  string       `json:"kernel"`
	Quick   bool         `json:"quick"`
	Runs    int          `json:"runs"`
	Pinning string       `json:"pinning"`
	Servers []ServerInfo `json:"servers"`
	Matrix  []Bench      `json:"matrix"`
	Latency []Bench      `json:"latency"`
	YCSB    []YCSB       `json:"ycsb"`
	Memory  []Memory     `json:"memory"`
	Keys    []KeyScan    `json:"keys"`
	Scaling []Bench      `json:"scaling"` // redis-benchmark over shards, in records before the curve
	Curve   []Point      `json:"curve,omitempty"`
	// Model and Predicted: the scaling model's inputs and its predictions
	// for the curve's radish points.
	Model     *model.Model       `json:"model,omitempty"`
	Predicted []model.Prediction `json:"predicted,omitempty"`
	Profile   *Profile           `json:"profile,omitempty"`
	Problems  []string           `json:"problems"`
}

// Profile is perf report's flat profile (by symbol, above 0.5%) of one
// server during one run of a test.
type Profile struct {
	Server   string   `json:"server"`
	Test     string   `json:"test"`
	Pipeline int      `json:"pipeline"`
	Seconds  float64  `json:"seconds"`
	Lines    []string `json:"lines"`
}

// ServerInfo says what was compared.
type ServerInfo struct {
	Name    string   `json:"name"`
	Bin     string   `json:"bin"`
	Version string   `json:"version"`
	Args    []string `json:"args"`
}

// Bench is one redis-benchmark configuration on one server; the slices hold
// one value per run, latencies in milliseconds. Err is set (and the values
// may be missing) when the server could not run the test.
type Bench struct {
	Server   string      `json:"server"`
	Test     string      `json:"test"`
	Pipeline int         `json:"pipeline"`
	Clients  int         `json:"clients"`
	Shards   int         `json:"shards,omitempty"`
	Requests int         `json:"requests"`
	RPS      []float64   `json:"rps"`
	P50      []float64   `json:"p50_ms"`
	P99      []float64   `json:"p99_ms"`
	P999     []float64   `json:"p999_ms,omitempty"`
	Dist     []parse.Pct `json:"distribution,omitempty"` // last run's percentile curve
	Err      string      `json:"error,omitempty"`
}

// YCSB is go-ycsb workload A on one server, one entry per run.
type YCSB struct {
	Server     string       `json:"server"`
	Records    int          `json:"records"`
	Ops        int          `json:"operations"`
	Threads    int          `json:"threads"`
	Datatype   string       `json:"datatype"`
	Runs       []parse.YCSB `json:"runs"`
	CPUPerOpUs []float64    `json:"cpu_us_per_op"` // server CPU (INFO used_cpu_*) per operation
	Err        string       `json:"error,omitempty"`
}

// Memory is the memory a server used for one data set, measured once on a
// freshly started server.
type Memory struct {
	Server     string  `json:"server"`
	Workload   string  `json:"workload"` // "strings" (DEBUG POPULATE) or "hashes"
	Keys       int     `json:"keys"`
	UsedMemory int64   `json:"used_memory_delta"`
	RSS        int64   `json:"rss_delta"`
	UsedPerKey float64 `json:"used_memory_per_key"`
	RSSPerKey  float64 `json:"rss_per_key"`
	Err        string  `json:"error,omitempty"`
}

// KeyScan is the latency of KEYS and of a full SCAN MATCH for a prefix
// pattern, one value per call, in milliseconds.
type KeyScan struct {
	Server    string    `json:"server"`
	Keys      int       `json:"keys"`
	Pattern   string    `json:"pattern"`
	Matched   int       `json:"matched"`
	KeysMs    []float64 `json:"keys_ms"`
	ScanMs    []float64 `json:"scan_ms"`
	ScanCalls int       `json:"scan_calls"`
	Err       string    `json:"error,omitempty"`
}

// Stat is the median and range of per-run values.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Summarize returns the median, minimum and maximum of v.
func Summarize(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stat{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// Median is Summarize(v).Median.
func Median(v []float64) float64 { return Summarize(v).Median }

// WriteJSON writes the report, indented, to path.
func (r *Report) WriteJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fixtures in testdata are real output: redis-benchmark 7.0.15 and
// redis-server 7.0.15 from Debian, go-ycsb v1.0.3 against that server.

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCSV(t *testing.T) {
	rows, err := CSV(read(t, "redis-benchmark-matrix.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Test)
	}
	want := "SET,GET,INCR,LPUSH,LPOP,SADD,HSET,ZADD,LPUSH (needed to benchmark LRANGE),LRANGE_100 (first 100 elements),MSET (10 keys)"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("tests = %s\nwant    %s", got, want)
	}
	// "SET","200000.00","7.479","0.288","7.239","17.359","17.599","17.663"
	if got, want := rows[0], (Row{"SET", 200000, 7.479, 0.288, 7.239, 17.359, 17.599, 17.663}); got != want {
		t.Errorf("rows[0] = %+v, want %+v", got, want)
	}
	if got := rows[len(rows)-1]; got.RPS != 30581.04 || got.P99 != 251.647 {
		t.Errorf("last row = %+v", got)
	}
}

func TestCSVServerError(t *testing.T) {
	out := read(t, "redis-benchmark-error.txt")
	want := "ERR unknown command 'nosuchcmd', with args beginning with: '__rand_int__'"
	if got := ServerError(out); got != want {
		t.Errorf("ServerError = %q, want %q", got, want)
	}
	if _, err := CSV(out); err == nil || err.Error() != want {
		t.Errorf("CSV error = %v, want %q", err, want)
	}
	if _, err := CSV([]byte("Could not connect to Redis at 127.0.0.1:1: Connection refused\n")); err == nil {
		t.Error("CSV of no rows: no error")
	}
}

func TestText(t *testing.T) {
	reps, err := Text(read(t, "redis-benchmark-c500.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1", len(reps))
	}
	r := reps[0]
	if r.Test != "GET" || r.Requests != 20000 || r.RPS != 49504.95 {
		t.Errorf("report = %s %d %v", r.Test, r.Requests, r.RPS)
	}
	if want := (Row{Test: "GET", RPS: 49504.95, Avg: 6, Min: 1.2, P50: 4.647, P95: 10.479, P99: 87.615, Max: 92.991}); r.Summary != want {
		t.Errorf("summary = %+v\nwant      %+v", r.Summary, want)
	}
	if n := len(r.Distribution); n != 16 {
		t.Errorf("%d percentile lines, want 16", n)
	}
	for _, c := range []struct{ p, ms float64 }{{0, 1.207}, {50, 4.647}, {99, 88.319}, {99.9, 91.135}, {100, 92.991}} {
		if got := r.Percentile(c.p); got != c.ms {
			t.Errorf("Percentile(%v) = %v, want %v", c.p, got, c.ms)
		}
	}
	if _, err := Text(read(t, "redis-benchmark-error.txt")); err == nil {
		t.Error("Text of an error: no error")
	}
}

func TestYCSB(t *testing.T) {
	y, err := ParseYCSB(read(t, "go-ycsb-run-hash.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if y.Elapsed != 280239680*time.Nanosecond || y.Throughput != 17957.2 || y.Errors() != 0 {
		t.Errorf("elapsed %v throughput %v errors %d", y.Elapsed, y.Throughput, y.Errors())
	}
	// READ   - Takes(s): 0.3, Count: 2508, OPS: 8998.1, Avg(us): 536, Min(us): 22, Max(us): 58175, 50th(us): 166,
	// 90th(us): 896, 95th(us): 1744, 99th(us): 4063, 99.9th(us): 58079, 99.99th(us): 58175
	want := YCSBOp{Count: 2508, OPS: 8998.1, Avg: 536, Min: 22, Max: 58175, P50: 166, P90: 896, P95: 1744, P99: 4063, P999: 58079, P9999: 58175}
	if got := y.Ops["READ"]; got != want {
		t.Errorf("READ = %+v\nwant   %+v", got, want)
	}
	if got := y.Ops["UPDATE"].Count + y.Ops["READ"].Count; got != y.Ops["TOTAL"].Count {
		t.Errorf("READ+UPDATE = %d, TOTAL %d", got, y.Ops["TOTAL"].Count)
	}

	y, err = ParseYCSB(read(t, "go-ycsb-run-string.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if y.Errors() != 2 || y.Ops["UPDATE_ERROR"].Count != 2 || y.Throughput != 11039.2 {
		t.Errorf("errors %d, throughput %v", y.Errors(), y.Throughput)
	}

	y, err = ParseYCSB(read(t, "go-ycsb-load.txt"))
	if err != nil || y.Ops["INSERT"].Count != 2000 {
		t.Errorf("load: %v %+v", err, y.Ops["INSERT"])
	}
	if _, err := ParseYCSB([]byte("panic: dial tcp 127.0.0.1:1: connect: connection refused\n")); err == nil {
		t.Error("no error for output without a summary")
	}
}

func TestInfo(t *testing.T) {
	m := ParseInfo(string(read(t, "redis-info.txt")))
	if m["redis_version"] != "7.0.15" || m["process_id"] != "20797" {
		t.Errorf("redis_version %q process_id %q", m["redis_version"], m["process_id"])
	}
	if v, ok := m.Float("used_memory"); !ok || v != 47271720 {
		t.Errorf("used_memory = %v %v", v, ok)
	}
	if c, ok := m.CPUSeconds(); !ok || c != 0.338225+0.945207 {
		t.Errorf("CPUSeconds = %v %v", c, ok)
	}
	if _, ok := m.Float("redis_mode"); ok {
		t.Error("redis_mode is not a number")
	}
	if _, ok := ParseInfo("# Server\r\nredis_version:7.0.15\r\n").CPUSeconds(); ok {
		t.Error("CPUSeconds without used_cpu_* fields")
	}
}

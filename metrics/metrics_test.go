package metrics

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

type fake struct{ shards []Shard }

func (f fake) Sample(dst []Shard) []Shard { return append(dst[:0], f.shards...) }
func (f fake) Commands() []string         { return []string{"get", "set", "config|get"} }
func (f fake) Persistence() Persistence {
	return Persistence{LastSave: 1700000000, Saves: 2, LastSaveOK: true, AOF: true, ReplOffset: 1234,
		Replicas: []Replica{{Addr: "10.0.0.2:6379", Offset: 1200, Lag: 1}}}
}

func testSource() fake {
	return fake{shards: []Shard{
		{Commands: 10, Connections: 2, Keys: []int64{5, 0}, Expires: []int64{1, 0}, Calls: []int64{4, 6, 0},
			Failed: []int64{0, 1, 0}, Refused: []int64{1, 0, 0}, Errors: map[string]int64{"ERR": 1, "WRONGTYPE": 1},
			Latency:  []Histogram{{Count: 3, Sum: 3e-6, Buckets: map[int]uint64{-20: 2, -19: 1}}, {}, {}},
			AOFFsync: Histogram{Count: 2, Sum: 3e-3, Buckets: map[int]uint64{-10: 1, -8: 1}}},
		{Commands: 3, Hops: 1, Txns: 1, Keys: []int64{0, 0}, Expires: []int64{0, 0}, Calls: []int64{0, 2, 1}},
	}}
}

// TestCollectorLint: the shards' series pass client_golang's linter
// (the checks of promtool check metrics), and the series are as many as
// the sample implies.
func TestCollectorLint(t *testing.T) {
	c := &collector{src: testSource(), d: newDesc()}
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	// 9 server series (persistence, the role and offset, one replica's
	// offset and lag), 18 per-shard series each (the AOF's
	// three, its fsync histogram one, as appendonly is on), keys and
	// expiring keys for the one database that has any on shard 0, the
	// non-zero calls, failed and refused calls, error codes, and the one
	// command histogram.
	if n, want := testutil.CollectAndCount(c), 9+2*18+2+4+4+1; n != want {
		t.Errorf("%d series, want %d", n, want)
	}
	if n := testutil.CollectAndCount(c, "radish_command_calls_total"); n != 4 {
		t.Errorf("%d command series, want 4", n)
	}
	if n := testutil.CollectAndCount(c, "radish_replication_replica_lag_seconds"); n != 1 {
		t.Errorf("%d replica lag series, want 1", n)
	}
}

// TestServe serves the registry over HTTP, and an optional address that
// cannot be listened on is skipped.
func TestServe(t *testing.T) {
	s, err := Serve([]string{"127.0.0.1:0", "-[::2]:0"}, Registry(testSource(), Info{Version: "1.2.3", IO: "epoll"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a := s.Addrs(); len(a) != 1 {
		t.Fatalf("addrs %q", a)
	}
	resp, err := http.Get("http://" + s.Addrs()[0] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`radish_build_info{goversion="go`, `io="epoll",version="1.2.3"} 1`,
		`radish_command_calls_total{cmd="config|get",shard="1"} 1`,
		`radish_db_keys{db="0",shard="0"} 5`,
		"radish_rdb_last_save_timestamp_seconds 1.7e+09", "radish_rdb_saves_total 2", "radish_aof_enabled 1",
		`radish_aof_size_bytes{shard="1"} 0`,
		"go_goroutines ", "process_resident_memory_bytes ",
		// 2^-20 s holds the two durations of bucket -20, 2^-18 the third.
		`radish_command_duration_seconds_bucket{cmd="get",shard="0",le="9.5367431640625e-07"} 2`,
		`radish_command_duration_seconds_bucket{cmd="get",shard="0",le="3.814697265625e-06"} 3`,
		`radish_command_duration_seconds_count{cmd="get",shard="0"} 3`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in\n%s", want, b)
		}
	}
}

// TestPercentile: the upper bound of the bucket holding the rank.
func TestPercentile(t *testing.T) {
	h := Histogram{Count: 100, Buckets: map[int]uint64{-20: 50, -19: 49, -10: 1}}
	for _, c := range []struct{ p, want float64 }{{50, 0x1p-20}, {51, 0x1p-19}, {99, 0x1p-19}, {99.9, 0x1p-10}, {100, 0x1p-10}} {
		if got := h.Percentile(c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	var m Histogram
	m.Add(h)
	m.Add(Histogram{Count: 1, Sum: 1, Buckets: map[int]uint64{0: 1}})
	if m.Count != 101 || m.Buckets[-20] != 50 || m.Buckets[0] != 1 || (Histogram{}).Percentile(50) != 0 {
		t.Errorf("Add: %+v", m)
	}
}

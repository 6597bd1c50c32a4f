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

func testSource() fake {
	return fake{shards: []Shard{
		{Commands: 10, Connections: 2, Keys: []int64{5, 0}, Expires: []int64{1, 0}, Calls: []int64{4, 6, 0},
			Failed: []int64{0, 1, 0}, Refused: []int64{1, 0, 0}, Errors: map[string]int64{"ERR": 1, "WRONGTYPE": 1}},
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
	// 10 per-shard series each, keys and expiring keys for the one
	// database that has any on shard 0, the non-zero calls, failed and
	// refused calls, and error codes.
	if n, want := testutil.CollectAndCount(c), 2*10+2+4+4; n != want {
		t.Errorf("%d series, want %d", n, want)
	}
	if n := testutil.CollectAndCount(c, "radish_command_calls_total"); n != 4 {
		t.Errorf("%d command series, want 4", n)
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
		"go_goroutines ", "process_resident_memory_bytes ",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in\n%s", want, b)
		}
	}
}

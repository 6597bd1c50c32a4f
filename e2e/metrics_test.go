package e2e

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMetricsEndpoint scrapes /metrics of a server with three shards
// after a few commands (one MSET over several shards among them): the
// shards' series are there with the values the commands imply, the Go and
// process collectors too, and promtool (Debian's prometheus package)
// finds nothing to lint.
func TestMetricsEndpoint(t *testing.T) {
	mport := freePort(t)
	s := start(t, "--shards", "3", "--metrics-port", strconv.Itoa(mport))
	rdb := s.client(2)
	ctx := context.Background()
	for i := range 30 {
		if err := rdb.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rdb.Expire(ctx, "k1", time.Hour)
	rdb.Do(ctx, "SELECT", "3")
	rdb.MSet(ctx, "a", 1, "b", 2, "c", 3, "d", 4, "e", 5, "f", 6)
	rdb.Close()
	var body string
	// The shards publish their counters at the end of a loop turn.
	for deadline := time.Now().Add(10 * time.Second); ; {
		body = scrape(t, mport)
		if sum(t, body, `radish_command_calls_total\{cmd="set",shard="\d+"\}`) == 30 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range []struct {
		re   string
		want float64
	}{
		{`radish_command_calls_total\{cmd="set",shard="\d+"\}`, 30},
		{`radish_db_keys\{db="0",shard="\d+"\}`, 30},
		{`radish_db_keys\{db="3",shard="\d+"\}`, 6},
		{`radish_db_keys_expiring\{db="0",shard="\d+"\}`, 1},
		{`radish_cross_shard_transactions_total\{shard="\d+"\}`, 1},
		{`radish_build_info\{[^}]*\}`, 1},
		{`radish_aof_enabled`, 0},
		{`radish_rdb_saves_total`, 0},
		{`radish_memory_used_bytes\{shard="2"\}`, -1},
		{`process_resident_memory_bytes`, -1},
		{`go_goroutines`, -1},
	} {
		got := sum(t, body, c.re)
		if (c.want >= 0 && got != c.want) || (c.want < 0 && got <= 0) {
			t.Errorf("%s: %v, want %v", c.re, got, c.want)
		}
	}
	if n := strings.Count(body, "radish_commands_processed_total{"); n != 3 {
		t.Errorf("%d series of radish_commands_processed_total, want one per shard", n)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is needed (apt-get install prometheus):", err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// scrape returns what the metrics endpoint on port serves.
func scrape(t *testing.T, port int) string {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sum adds the values of the series of body whose name and labels match
// re (anchored at the start of a line); -2 when none does.
func sum(t *testing.T, body, re string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^`+re+` (\S+)$`).FindAllStringSubmatch(body, -1)
	if m == nil {
		return -2
	}
	total := 0.0
	for _, x := range m {
		v, err := strconv.ParseFloat(x[1], 64)
		if err != nil {
			t.Fatalf("%q: %v", x[0], err)
		}
		total += v
	}
	return total
}

// TestMetricsAOFFsync: with appendfsync always, every shard's fsyncs show
// in radish_aof_fsync_duration_seconds (a histogram, classic buckets in
// the text format), counted as the writes were, and promtool finds
// nothing to lint.
func TestMetricsAOFFsync(t *testing.T) {
	mport := freePort(t)
	s := start(t, "--shards", "2", "--metrics-port", strconv.Itoa(mport), "--appendonly", "yes", "--appendfsync", "always",
		"--dir", t.TempDir())
	rdb := s.client(2)
	for i := range 20 {
		if err := rdb.Set(context.Background(), "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	body := scrape(t, mport)
	// Each acknowledged SET was fsynced first: 20 at least, in all.
	if n := sum(t, body, `radish_aof_fsync_duration_seconds_count\{shard="\d"\}`); n < 20 {
		t.Errorf("radish_aof_fsync_duration_seconds_count: %v, want at least 20\n%s", n, body)
	}
	if n := sum(t, body, `radish_aof_fsync_duration_seconds_bucket\{shard="\d",le="\+Inf"\}`); n < 20 {
		t.Errorf("radish_aof_fsync_duration_seconds_bucket{le=\"+Inf\"}: %v", n)
	}
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

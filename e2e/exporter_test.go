package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRedisExporter runs the real redis_exporter (Debian's
// prometheus-redis-exporter) against a server with two shards and checks
// that it scrapes without an error and exports what dashboards read:
// redis_up, connected clients, commands by name, used memory and keys per
// database.
func TestRedisExporter(t *testing.T) {
	bin, err := exec.LookPath("prometheus-redis-exporter")
	if err != nil {
		t.Fatal("prometheus-redis-exporter is needed (apt-get install prometheus-redis-exporter):", err)
	}
	s := start(t, "--shards", "2")
	rdb := s.client(2)
	defer rdb.Close()
	ctx := context.Background()
	for i := range 20 {
		rdb.Set(ctx, "k"+strconv.Itoa(i), i, 0)
	}
	rdb.Do(ctx, "SELECT", "2")
	rdb.HSet(ctx, "h", "f", "v")
	port := freePort(t)
	cmd := exec.Command(bin, "-redis.addr", "redis://"+s.addr, "-web.listen-address", "127.0.0.1:"+strconv.Itoa(port))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if strings.Contains(body, "\nredis_up ") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the exporter did not answer: %v\n%s", err, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range []struct {
		re   string
		want float64
	}{
		{`redis_up`, 1},
		{`redis_exporter_last_scrape_error\{err=""\}`, 0},
		{`redis_connected_clients`, -1},
		{`redis_commands_total\{cmd="set"\}`, 20},
		{`redis_commands_total\{cmd="hset"\}`, 1},
		{`redis_memory_used_bytes`, -1},
		{`redis_db_keys\{db="db0"\}`, 20},
		{`redis_db_keys\{db="db2"\}`, 1},
	} {
		got := sum(t, body, c.re)
		if (c.want >= 0 && got != c.want) || (c.want < 0 && got <= 0) {
			t.Errorf("%s: %v, want %v", c.re, got, c.want)
		}
	}
}

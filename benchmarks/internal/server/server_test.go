package server

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	r := Spec{Radish: true, Shards: 2, IO: "epoll"}.Args(7000, "/d")
	if got, want := strings.Join(r, " "), "--port 7000 --bind 127.0.0.1 --save  --appendonly no --enable-debug-command local --dir /d --logfile /d/server.log --shards 2 --io epoll"; got != want {
		t.Errorf("radish args %q\nwant %q", got, want)
	}
	if got := strings.Join(Spec{Extra: []string{"--io-threads", "4"}}.Args(1, "/d"), " "); !strings.HasSuffix(got, "--logfile /d/server.log --io-threads 4") {
		t.Errorf("redis args %q", got)
	}
}

// TestStartStop runs Debian's redis-server for a moment.
func TestStartStop(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server")
	}
	ctx := context.Background()
	s, err := Start(ctx, Spec{Name: "redis", Bin: bin}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	info, err := s.Info(ctx)
	if err != nil || info["redis_version"] == "" || info["process_id"] == "" {
		t.Fatalf("INFO: %v %v", err, info["redis_version"])
	}
	if rss, err := s.RSS(); err != nil || rss < 1<<20 {
		t.Errorf("RSS %d %v", rss, err)
	}
	if _, err := s.CPUSeconds(); err != nil {
		t.Error(err)
	}
	if err := s.Client.Do(ctx, "DEBUG", "POPULATE", 10).Err(); err != nil {
		t.Errorf("DEBUG POPULATE: %v", err)
	}
	if err := s.Stop(); err != nil || s.Alive() {
		t.Errorf("Stop: %v, alive %v", err, s.Alive())
	}
}

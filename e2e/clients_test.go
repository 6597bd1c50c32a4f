package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Real clients of other languages, as applications use them: a scenario
// (e2e/clients/) of strings, hashes, lists, sets, sorted sets, pipelines,
// MULTI/WATCH, scripts loaded by SHA, blocking pops, Pub/Sub, SCAN
// iterators, streams with consumer groups and, where the client has it,
// client-side caching, run once against radish-server (3 shards) and once
// against redis-server; every line the client printed must be the same.
// `make test` installs the Node.js clients (npm ci in e2e/clients/node);
// .ci/run installs nodejs, npm and Debian's python3-redis.

// TestNodeClientsAgainstRedis runs ioredis, and node-redis over RESP2
// and RESP3 (with its client-side cache).
func TestNodeClientsAgainstRedis(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed (apt-get install nodejs npm):", err)
	}
	dir, _ := filepath.Abs("clients/node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ioredis")); err != nil {
		t.Fatal("the Node.js clients are not installed (make test runs npm ci in e2e/clients/node):", err)
	}
	radish, redis := start(t, "--shards", "3").addr, startRedis(t, redisBin(t))
	for _, args := range [][]string{{"ioredis"}, {"node-redis", "2"}, {"node-redis", "3"}} {
		t.Run(strings.Join(args, "/RESP"), func(t *testing.T) {
			run := func(addr string) string {
				return scenario(t, dir, node, append([]string{"scenario.mjs", args[0], port(addr)}, args[1:]...)...)
			}
			sameLines(t, run(radish), run(redis))
		})
	}
}

// TestPythonClientAgainstRedis runs redis-py, Debian's python3-redis.
func TestPythonClientAgainstRedis(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import redis").Run(); err != nil {
		t.Fatal("redis-py is needed (apt-get install python3-redis):", err)
	}
	dir, _ := filepath.Abs("clients/python")
	radish, redis := start(t, "--shards", "3").addr, startRedis(t, redisBin(t))
	run := func(addr string) string { return scenario(t, dir, python, "scenario.py", port(addr)) }
	sameLines(t, run(radish), run(redis))
}

// scenario runs a scenario in dir, within a minute, and returns what it
// printed.
func scenario(t *testing.T, dir, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
	}
	return string(b)
}

// sameLines fails where radish's scenario printed another line than
// redis-server's, or either failed.
func sameLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("line %d:\n radish: %s\n  redis: %s", i+1, gl, wl)
		}
		if strings.HasPrefix(gl, "failed:") || strings.HasPrefix(wl, "failed:") {
			t.Errorf("the scenario failed:\n radish: %s\n  redis: %s", gl, wl)
		}
	}
	if len(g) < 20 { // the shortest scenario prints 25
		t.Errorf("the scenario printed %d lines: %q", len(g), got)
	}
}

// port is addr's port.
func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

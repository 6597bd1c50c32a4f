package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestUnixSocket: unixsocket and unixsocketperm as Redis's — a file left
// at the path is replaced, the socket gets the permission bits, redis-cli
// -s and go-redis over "unix" work, CLIENT LIST names the path and flag
// U, connections land on more than one shard, and the file is removed at
// shutdown. Both drivers (io_uring and epoll) take the connections.
func TestUnixSocket(t *testing.T) {
	for _, io := range []string{"uring", "epoll"} {
		t.Run(io, func(t *testing.T) { testUnixSocket(t, io) })
	}
}

func testUnixSocket(t *testing.T, io string) {
	path := filepath.Join(t.TempDir(), "radish.sock")
	os.WriteFile(path, []byte("stale"), 0o644)
	mport := freePort(t)
	s := start(t, "--io", io, "--shards", "2", "--unixsocket", path, "--unixsocketperm", "770", "--metrics-port", strconv.Itoa(mport))
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o770 {
		t.Fatalf("socket file: %v %v", fi.Mode(), err)
	}
	out, err := exec.Command("redis-cli", "-s", path, "PING").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "PONG" {
		t.Fatalf("redis-cli -s: %q %v", out, err)
	}
	ctx := context.Background()
	var clients []*redis.Client
	for i := range 16 {
		c := redis.NewClient(&redis.Options{Network: "unix", Addr: path, PoolSize: 1})
		clients = append(clients, c)
		if err := c.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	info, err := clients[0].ClientInfo(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if info.Addr != path+":0" || info.LAddr != path+":0" || !strings.Contains(clients[0].ClientList(ctx).Val(), "flags=U") {
		t.Errorf("CLIENT INFO over the socket: %+v", info)
	}
	// Each shard accepts on the one socket.
	busy := map[string]bool{}
	for deadline := time.Now().Add(10 * time.Second); len(busy) < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		body := scrape(t, mport)
		for _, sh := range []string{"0", "1"} {
			if sum(t, body, `radish_connected_clients\{shard="`+sh+`"\}`) > 0 {
				busy[sh] = true
			}
		}
	}
	if len(busy) < 2 {
		t.Errorf("16 connections over the socket landed on shards %v only", busy)
	}
	for _, c := range clients {
		c.Close()
	}
	s.stop()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the socket file is left after shutdown: %v", err)
	}
	if _, err := net.Dial("unix", path); err == nil {
		t.Error("the socket still accepts after shutdown")
	}
}

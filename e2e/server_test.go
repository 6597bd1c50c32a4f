package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestConnectionCommands(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		c := s.client(2)
		if got := c.Echo(ctx, "hi").Val(); got != "hi" {
			t.Fatalf("ECHO = %q", got)
		}
		// SELECT is per connection: one conn from the pool to keep the DB.
		conn := c.Conn()
		defer conn.Close()
		if err := conn.Select(ctx, 3).Err(); err != nil {
			t.Fatal(err)
		}
		conn.Set(ctx, "in3", "x", 0)
		if got := c.Exists(ctx, "in3").Val(); got != 0 {
			t.Fatal("key written in DB 3 is visible in DB 0")
		}
		if got := conn.DBSize(ctx).Val(); got != 1 {
			t.Fatalf("DBSIZE in DB 3 = %d", got)
		}
		if err := conn.Select(ctx, 16).Err(); err == nil || err.Error() != "ERR DB index is out of range" {
			t.Fatalf("SELECT 16: %v", err)
		}
		if err := conn.ClientSetName(ctx, "worker-1").Err(); err != nil {
			t.Fatal(err)
		}
		if got := conn.ClientGetName(ctx).Val(); got != "worker-1" {
			t.Fatalf("CLIENT GETNAME = %q", got)
		}
		id := conn.ClientID(ctx).Val()
		list := c.ClientList(ctx).Val()
		if !strings.Contains(list, "name=worker-1") || !strings.Contains(list, "db=3") {
			t.Fatalf("CLIENT LIST lacks the named client:\n%s", list)
		}
		info := conn.ClientInfo(ctx).Val()
		if info.ID != id || info.Name != "worker-1" {
			t.Fatalf("CLIENT INFO = %+v", info)
		}
		if n := c.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Val(); n != 1 {
			t.Fatalf("CLIENT KILL ID = %d", n)
		}
		if err := conn.Ping(ctx).Err(); err == nil {
			t.Fatal("killed connection still answers")
		}
		if got := s.cli("--no-raw", "CLIENT", "NOSUCH"); got !=
			"(error) ERR unknown subcommand 'NOSUCH'. Try CLIENT HELP.\n" {
			t.Fatalf("CLIENT NOSUCH = %q", got)
		}
	})
}

func TestInfoAndConfig(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	c.Set(ctx, "a", "1", 0)
	c.Set(ctx, "b", "1", time.Hour)
	// The harness's PING connection counts until its close is processed.
	info := c.Info(ctx).Val()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(info, "connected_clients:1\r\n") &&
		time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		info = c.Info(ctx).Val()
	}
	for _, want := range []string{"# Server\r\n", "redis_version:", "# Clients\r\n", "connected_clients:1\r\n",
		"# Memory\r\n", "used_memory:", "# Stats\r\n", "total_commands_processed:", "# Replication\r\nrole:master",
		"# CPU\r\n", "used_cpu_user:", "# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl="} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
	// avg_ttl: the active expiry's estimate of the hour b has left.
	re := regexp.MustCompile(`db0:keys=2,expires=1,avg_ttl=(\d+)`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := re.FindStringSubmatch(c.Info(ctx, "keyspace").Val())
		if m != nil && m[1] != "0" {
			if v, _ := strconv.Atoi(m[1]); v > 3600_000 || v < 3500_000 {
				t.Errorf("avg_ttl %d, want about an hour", v)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("avg_ttl still 0 after 5s: %q", m)
		}
	}
	if strings.Contains(info, "# Commandstats") {
		t.Error("INFO without arguments shows commandstats")
	}
	if cs := c.Info(ctx, "commandstats").Val(); !strings.Contains(cs, "cmdstat_set:calls=2,") {
		t.Errorf("commandstats: %q", cs)
	}
	if got := c.ConfigGet(ctx, "maxmemory-policy").Val(); got["maxmemory-policy"] != "noeviction" {
		t.Errorf("CONFIG GET maxmemory-policy = %v", got)
	}
	if err := c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.ConfigGet(ctx, "maxmemory-policy").Val(); got["maxmemory-policy"] != "allkeys-lru" {
		t.Errorf("after CONFIG SET: %v", got)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "lots").Err(); err == nil ||
		err.Error() != "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value" {
		t.Errorf("CONFIG SET maxmemory lots: %v", err)
	}
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.Time(ctx).Val(); time.Since(got).Abs() > 5*time.Second {
		t.Errorf("TIME = %v", got)
	}
	if n := c.Do(ctx, "COMMAND", "COUNT").Val().(int64); n < 60 {
		t.Errorf("COMMAND COUNT = %d", n)
	}
}

func TestConfigFileAndAuth(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "radish.conf")
	os.WriteFile(conf, []byte("# test config\nrequirepass \"s3cret pass\"\ndatabases 4\nshards 5\n"), 0o644)
	// The flag overrides the file's shards.
	s := startConf(t, conf, "--shards", "2")
	noauth := redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true, MaxRetries: -1})
	defer noauth.Close()
	if err := noauth.Ping(ctx).Err(); err == nil || err.Error() != "NOAUTH Authentication required." {
		t.Fatalf("PING without AUTH: %v", err)
	}
	bad := redis.NewClient(&redis.Options{Addr: s.addr, Password: "nope", DisableIdentity: true, MaxRetries: -1})
	defer bad.Close()
	if err := bad.Ping(ctx).Err(); err == nil ||
		err.Error() != "WRONGPASS invalid username-password pair or user is disabled." {
		t.Fatalf("wrong password: %v", err)
	}
	for _, proto := range []int{2, 3} {
		c := redis.NewClient(&redis.Options{Addr: s.addr, Password: "s3cret pass", Protocol: proto,
			DisableIdentity: true, MaxRetries: -1})
		defer c.Close()
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatalf("proto %d: %v", proto, err)
		}
		got := c.ConfigGet(ctx, "*").Val()
		if got["databases"] != "4" || got["shards"] != "2" || got["requirepass"] != "s3cret pass" {
			t.Fatalf("CONFIG GET: databases=%q shards=%q", got["databases"], got["shards"])
		}
	}
}

// startConf starts the server with a config file as its first argument.
func startConf(t *testing.T, conf string, args ...string) *server {
	t.Helper()
	old := serverBin
	wrapper := filepath.Join(t.TempDir(), "radish-with-conf")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+old+" "+conf+" \"$@\"\n"), 0o755)
	serverBin = wrapper
	defer func() { serverBin = old }()
	return start(t, args...)
}

func TestShutdownCommand(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	c.Set(ctx, "k", "v", 0)
	c.Shutdown(ctx) // the connection closes: the error is expected
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server still running 10s after SHUTDOWN")
	}
}

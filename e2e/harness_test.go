// Package e2e starts the real radish-server on free loopback ports and
// drives it with real clients: go-redis, redis-cli and raw sockets.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "radish-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "radish-server")
	args := []string{"build", "-o", serverBin}
	if os.Getenv("E2E_RACE") != "" {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../cmd/radish-server")...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building radish-server:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is one running radish-server process.
type server struct {
	t    testing.TB
	cmd  *exec.Cmd
	port int
	addr string
	log  string
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs radish-server with args (plus --port, --bind, --dir and, as
// redis-server is run in these tests, --save "") and waits until it
// answers PING. It is stopped when the test ends.
func start(t testing.TB, args ...string) *server {
	t.Helper()
	return startUnder(t, nil, serverBin, args...)
}

// startBin is start with another build of radish-server.
func startBin(t testing.TB, bin string, args ...string) *server {
	t.Helper()
	return startUnder(t, nil, bin, args...)
}

// startUnder is start with the server bin's command line after wrapper (a
// program that execs it, such as noring).
func startUnder(t testing.TB, wrapper []string, bin string, args ...string) *server {
	t.Helper()
	return await(t, launch(t, t.TempDir(), wrapper, bin, args...))
}

// startDir is start with dir as the server's --dir (a restart finds its
// files there).
func startDir(t testing.TB, dir string, args ...string) *server {
	t.Helper()
	return await(t, launch(t, dir, nil, serverBin, args...))
}

// await waits until the server answers PING.
func await(t testing.TB, s *server) *server {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			fmt.Fprint(c, "PING\r\n")
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if err == nil && (line == "+PONG\r\n" || strings.HasPrefix(line, "-NOAUTH")) {
				return s
			}
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(s.log)
			t.Fatalf("server did not start: %v\n%s", err, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// launch starts the server bin in dir (after wrapper, if any) without
// waiting for it; it is stopped when the test ends. Its log is server.log
// in dir.
func launch(t testing.TB, dir string, wrapper []string, bin string, args ...string) *server {
	t.Helper()
	port := freePort(t)
	s := &server{t: t, port: port, addr: "127.0.0.1:" + strconv.Itoa(port), log: filepath.Join(dir, "server.log")}
	all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--logfile", s.log, "--save", "", "--enable-debug-command", "yes"}, args...)
	argv := append(append(slices.Clone(wrapper), bin), all...)
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Stderr = os.Stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Errorf("server exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
		s.t.Errorf("server did not stop within 10s of SIGTERM")
	}
}

// rss is the server's resident set size in bytes.
func (s *server) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", s.cmd.Process.Pid))
	if err != nil {
		s.t.Fatal(err)
	}
	f := strings.Fields(string(b))
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n * int64(os.Getpagesize())
}

// client returns a go-redis client speaking RESP proto (2 or 3).
func (s *server) client(proto int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr, Protocol: proto, DisableIdentity: true,
		MaxRetries: -1, PoolSize: 8})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// clientWith returns a go-redis client with options o (Addr set to the
// server's) that is closed when the test ends. A client a test drops after
// its last call is garbage, and the net package's finalizer closes its
// socket whenever the collector runs: a test that later counts the
// server's connections (CLIENT LIST) must keep its clients, as this does.
func (s *server) clientWith(o *redis.Options) *redis.Client {
	o.Addr = s.addr
	c := redis.NewClient(o)
	s.t.Cleanup(func() { c.Close() })
	return c
}

// cli runs redis-cli against the server and returns its output.
func (s *server) cli(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("redis-cli", append([]string{"-p", strconv.Itoa(s.port)}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// raw opens a plain TCP connection for hand-written protocol. The long
// timeout is for a loaded machine, where a SYN that overflowed the accept
// queue is sent again after a second, then three.
func (s *server) raw() net.Conn {
	c, err := net.DialTimeout("tcp", s.addr, 10*time.Second)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { c.Close() })
	return c
}

// mode is one server configuration every end-to-end test runs under.
type mode struct {
	io     string
	shards int
}

func (m mode) String() string { return fmt.Sprintf("%s/shards=%d", m.io, m.shards) }

func (m mode) args() []string {
	return []string{"--io", m.io, "--shards", strconv.Itoa(m.shards)}
}

var modes = []mode{{"uring", 1}, {"uring", 3}, {"epoll", 1}, {"epoll", 3}}

// eachMode runs fn against a fresh server in every mode.
func eachMode(t *testing.T, fn func(t *testing.T, s *server)) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			fn(t, start(t, m.args()...))
		})
	}
}

var ctx = context.Background()

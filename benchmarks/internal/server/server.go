package server

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/radish-kv/radish/benchmarks/internal/parse"
)

// Spec describes a server to start.
type Spec struct {
	Name   string   // label in the report: "radish", "redis", a peer's name
	Bin    string   // path to the binary
	Radish bool     // pass radish's own flags (--shards, --io)
	Shards int      // radish only
	IO     string   // radish only: "uring" or "epoll"
	CPUs   string   // taskset CPU list, e.g. "0" or "0-3"; "" means unpinned
	Extra  []string // more flags, after the others (valkey's --io-threads N)
}

// Server is a running server process.
type Server struct {
	Spec
	Port   int
	Pid    int
	Dir    string // working directory (--dir); holds the log
	Client *redis.Client

	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	waitErr error         // the exit status; read only after exited is closed
	stopped bool
}

// quiet drops go-redis's log lines (dial failures while a server starts).
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quiet{}) }

// Args returns the command line (after the binary) the server is started
// with. Persistence is off for every server: no RDB snapshots, no AOF.
func (s Spec) Args(port int, dir string) []string {
	a := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--enable-debug-command", "local", // for DEBUG POPULATE
		"--dir", dir, "--logfile", filepath.Join(dir, "server.log")}
	if s.Radish {
		a = append(a, "--shards", strconv.Itoa(max(s.Shards, 1)), "--io", s.IO)
	}
	return append(a, s.Extra...)
}

// Start launches the server under taskset in a fresh directory below parent
// and waits until it answers PING.
func Start(ctx context.Context, s Spec, parent string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, s.Name+"-")
	if err != nil {
		return nil, err
	}
	bin := s.Bin
	if strings.Contains(bin, "/") {
		if bin, err = filepath.Abs(bin); err != nil {
			return nil, err
		}
	}
	argv := append([]string{bin}, s.Args(port, dir)...)
	if s.CPUs != "" {
		argv = append([]string{"taskset", "-c", s.CPUs}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	srv := &Server{Spec: s, Port: port, Pid: cmd.Process.Pid, Dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { srv.waitErr = cmd.Wait(); close(srv.exited) }()
	srv.Client = redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true,
		ReadTimeout: 5 * time.Minute, WriteTimeout: time.Minute, PoolSize: 4})
	deadline := time.Now().Add(15 * time.Second)
	for {
		if !srv.Alive() {
			srv.Client.Close()
			return nil, fmt.Errorf("%s exited at start (%v); log: %s", s.Name, srv.waitErr, srv.LogTail())
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := srv.Client.Ping(pctx).Err()
		cancel()
		if err == nil {
			return srv, nil
		}
		if time.Now().After(deadline) {
			srv.Stop()
			return nil, fmt.Errorf("%s did not answer PING: %v", s.Name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// Alive reports whether the process is still running.
func (s *Server) Alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// Stop ends the process: SIGTERM, then SIGKILL after 10 s. It returns an
// error if the process had died before Stop was called.
func (s *Server) Stop() error {
	if s.stopped {
		return nil
	}
	s.stopped = true
	s.Client.Close()
	if !s.Alive() {
		return fmt.Errorf("%s had exited: %v", s.Name, s.waitErr)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	return nil
}

// LogTail returns the last lines of the server's log and stdout.
func (s *Server) LogTail() string {
	var b strings.Builder
	for _, f := range []string{"stdout.log", "server.log"} {
		data, _ := os.ReadFile(filepath.Join(s.Dir, f))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		b.WriteString(strings.Join(lines[max(0, len(lines)-5):], "\n"))
	}
	return b.String()
}

// Info returns the INFO reply (section "all"; some servers reject it, so
// plain INFO is tried next).
func (s *Server) Info(ctx context.Context) (parse.Info, error) {
	txt, err := s.Client.Info(ctx, "all").Result()
	if err != nil {
		if txt, err = s.Client.Info(ctx).Result(); err != nil {
			return nil, err
		}
	}
	return parse.ParseInfo(txt), nil
}

// RSS returns the resident set size of the process in bytes.
func (s *Server) RSS() (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", s.Pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, fmt.Errorf("statm: %q", data)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize()), err
}

// CPUSeconds returns the process's user+system CPU time from /proc/<pid>/stat.
func (s *Server) CPUSeconds() (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.Pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the whole line.
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %q", data)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100, nil // USER_HZ is 100 on Linux
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Version returns the first line of `bin --version`.
func Version(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil && len(out) == 0 {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestIOUringBlocked runs radish-server under a seccomp filter that makes
// the io_uring system calls fail with EPERM, as Docker's default profile
// does (e2e/noring): with io auto it serves on epoll, says so once in its
// log and in INFO; with io uring it refuses to start, naming the cause.
func TestIOUringBlocked(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("noring knows only amd64's system call numbers")
	}
	noring := filepath.Join(t.TempDir(), "noring")
	if out, err := exec.Command("go", "build", "-o", noring, "./noring").CombinedOutput(); err != nil {
		t.Fatalf("building noring: %v\n%s", err, out)
	}
	s := startUnder(t, []string{noring}, serverBin, "--io", "auto", "--shards", "2")
	if info := s.cli("INFO", "server"); !strings.Contains(info, "multiplexing_api:epoll") {
		t.Fatalf("INFO server under seccomp:\n%s", info)
	}
	if got := strings.TrimSpace(s.cli("SET", "k", "v")); got != "OK" {
		t.Fatalf("SET: %q", got)
	}
	if got := strings.TrimSpace(s.cli("GET", "k")); got != "v" {
		t.Fatalf("GET: %q", got)
	}
	logs, _ := os.ReadFile(s.log)
	if n := strings.Count(string(logs), "falling back to epoll"); n != 1 {
		t.Errorf("the fallback is logged %d times, want once:\n%s", n, logs)
	}
	cmd := exec.Command(noring, serverBin, "--port", strconv.Itoa(freePort(t)), "--io", "uring", "--logfile", "")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "operation not permitted") {
		t.Errorf("io uring under seccomp: %v\n%s", err, out)
	}
}

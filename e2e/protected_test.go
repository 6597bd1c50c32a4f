package e2e

import (
	"bufio"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// externalIP returns an address of this host that is not loopback, for a
// client that must not look local.
func externalIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Fatal("the test needs a non-loopback IPv4 address on this host")
	return ""
}

// firstReply connects to addr, sends PING and returns everything the
// server sends until it closes or a second passes.
func firstReply(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("PING\r\n"))
	c.SetReadDeadline(time.Now().Add(time.Second))
	b, _ := io.ReadAll(bufio.NewReader(c))
	return string(b)
}

// TestProtectedMode: bound to every address with no password, a client
// from another address is told Redis's -DENIED text and closed, as by
// redis-server; a loopback client is served; with a password, or with
// protected-mode no (CONFIG SET from loopback), the other address is
// served too.
func TestProtectedMode(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ip := externalIP(t)
	ref := startRedis(t, redisBin, "--bind", "0.0.0.0")
	s := start(t, "--bind", "0.0.0.0", "--shards", "2")
	_, refPort, _ := net.SplitHostPort(ref)
	want := firstReply(t, net.JoinHostPort(ip, refPort))
	if len(want) < 8 || want[:7] != "-DENIED" {
		t.Fatalf("redis-server answered %q", want)
	}
	ext := net.JoinHostPort(ip, strconv.Itoa(s.port))
	for range 4 { // over both shards
		if got := firstReply(t, ext); got != want {
			t.Fatalf("radish answered\n%q\nredis-server\n%q", got, want)
		}
	}
	if got := firstReply(t, s.addr); got != "+PONG\r\n" {
		t.Fatalf("loopback: %q", got)
	}
	s.cli("CONFIG", "SET", "requirepass", "pw")
	if got := firstReply(t, ext); got != "-NOAUTH Authentication required.\r\n" {
		t.Errorf("with a password: %q", got)
	}
	s.cli("-a", "pw", "--no-auth-warning", "CONFIG", "SET", "requirepass", "")
	s.cli("CONFIG", "SET", "protected-mode", "no")
	if got := firstReply(t, ext); got != "+PONG\r\n" {
		t.Errorf("protected-mode no: %q", got)
	}
}

// TestEnableDebugCommand: DEBUG is refused with Redis's text under
// enable-debug-command no (Redis's default, here as in redis-server, also
// inside MULTI, whose EXEC then aborts), and allowed under local to a
// loopback client; CONFIG SET cannot change it.
func TestEnableDebugCommand(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "2", "--enable-debug-command", "no")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	for _, c := range [][]string{{"DEBUG", "HELP"}, {"DEBUG", "DIGEST"}, {"MULTI"}, {"DEBUG", "DIGEST"}, {"EXEC"},
		{"CONFIG", "SET", "enable-debug-command", "yes"}, {"CONFIG", "GET", "enable-debug-command"}} {
		if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
			t.Fatalf("%q: radish %q, redis %q", c, got, want)
		}
	}
	l := start(t, "--enable-debug-command", "local")
	if got := string(dialDiff(t, l.addr, 2).do(t, []string{"DEBUG", "DIGEST"})[0]); got != "+"+strings.Repeat("0", 40)+"\r\n" {
		t.Errorf("DEBUG DIGEST from loopback under local: %q", got)
	}
}

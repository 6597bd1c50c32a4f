package e2e

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// rssOf is the resident set size of process pid in bytes.
func rssOf(t testing.TB, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n * int64(os.Getpagesize())
}

// latencies runs SET and GET on c until stop closes and returns each
// round trip's duration.
func latencies(c *redis.Client, stop <-chan struct{}) []time.Duration {
	var out []time.Duration
	for i := 0; ; i++ {
		select {
		case <-stop:
			return out
		default:
		}
		t0 := time.Now()
		k := "normal:" + strconv.Itoa(i%100)
		if c.Set(ctx, k, i, 0).Err() != nil || c.Get(ctx, k).Err() != nil {
			return out
		}
		out = append(out, time.Since(t0)/2)
	}
}

// summary is "n=… p50=… p99=… max=…" of ds.
func summary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "n=0"
	}
	slices.Sort(ds)
	return fmt.Sprintf("n=%d p50=%v p99=%v max=%v", len(ds), ds[len(ds)/2], ds[len(ds)*99/100], ds[len(ds)-1])
}

// TestSlowloris: thousands of connections each send a command one byte a
// second. The server holds them at a bounded memory cost, keeps serving a
// normal client (its latency is logged next to its latency before, no
// assertion: the machine is shared), and answers each slow command once
// it is whole.
func TestSlowloris(t *testing.T) {
	const conns = 2000
	const cmd = "*1\r\n$4\r\nPING\r\n"
	const slow = 6 // bytes sent one a second; the rest at the end
	for _, drv := range ioModes {
		t.Run(drv, func(t *testing.T) {
			s := start(t, "--io", drv, "--shards", "2", "--maxclients", strconv.Itoa(conns+100))
			c := s.client(2)
			stop := make(chan struct{})
			time.AfterFunc(time.Second, func() { close(stop) })
			before := latencies(c, stop)
			rss0 := s.rss()

			var wg sync.WaitGroup
			errs := make(chan error, conns)
			var dialed sync.WaitGroup
			dialed.Add(conns)
			for i := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var sc net.Conn
					var err error
					for try := 0; try < 5; try++ { // a full accept queue drops SYNs
						if sc, err = net.DialTimeout("tcp", s.addr, 10*time.Second); err == nil {
							break
						}
					}
					dialed.Done()
					if err != nil {
						errs <- err
						return
					}
					defer sc.Close()
					time.Sleep(time.Duration(i%1000) * time.Millisecond) // spread the bytes over the second
					for j := range slow {
						if _, err := sc.Write([]byte{cmd[j]}); err != nil {
							errs <- fmt.Errorf("byte %d: %w", j, err)
							return
						}
						time.Sleep(time.Second)
					}
					sc.SetDeadline(time.Now().Add(30 * time.Second))
					if _, err := io.WriteString(sc, cmd[slow:]); err != nil {
						errs <- err
						return
					}
					if line, err := bufio.NewReader(sc).ReadString('\n'); err != nil || line != "+PONG\r\n" {
						errs <- fmt.Errorf("a slow PING got %q %v", line, err)
					}
				}()
			}
			dialed.Wait()
			stop = make(chan struct{})
			time.AfterFunc(slow*time.Second-time.Second, func() { close(stop) })
			during := latencies(c, stop)
			rss1 := s.rss()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			perConn := (rss1 - rss0) / conns
			t.Logf("%d slowloris connections: RSS %d -> %d MB (%d bytes each); a normal client's SET/GET before: %s; during: %s",
				conns, rss0>>20, rss1>>20, perConn, summary(before), summary(during))
			if perConn > 64<<10 {
				t.Errorf("a slow connection costs %d bytes of RSS", perConn)
			}
			if len(during) == 0 {
				t.Error("the normal client was not served during the slowloris")
			}
		})
	}
}

// startRedisPID runs redis-server on a free port with extra arguments
// and returns it and its address.
func startRedisPID(t *testing.T, extra ...string) (*exec.Cmd, string) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	dir := t.TempDir()
	port := freePort(t)
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log")}, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return cmd, addr
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
}

// idleCost opens n connections with dial (each sends one PING and reads
// its reply, so the server has made the client), waits for the server's
// RSS to settle, and returns the RSS growth per connection; the
// connections are closed before it returns.
func idleCost(t *testing.T, pid, n int, dial func() (net.Conn, error)) int64 {
	rss0 := rssOf(t, pid)
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				var c net.Conn
				var err error
				for try := 0; try < 5; try++ {
					if c, err = dial(); err == nil {
						break
					}
				}
				if err == nil {
					c.SetDeadline(time.Now().Add(30 * time.Second))
					_, err = io.WriteString(c, "PING\r\n")
				}
				if err == nil {
					var line string
					line, err = bufio.NewReader(c).ReadString('\n')
					if err == nil && line != "+PONG\r\n" {
						err = fmt.Errorf("PING: %q", line)
					}
				}
				if err != nil {
					errs <- err
					return
				}
				conns[i] = c
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	time.Sleep(time.Second)
	return (rssOf(t, pid) - rss0) / int64(n)
}

// TestIdleConnections: idle connections, plain and over TLS, against
// radish-server and redis-server in the same run: the RSS each costs is
// logged. 2,000 of each by default (10,000 take a minute and a half
// here); the README quotes RADISH_IDLE_CONNS=10000.
func TestIdleConnections(t *testing.T) {
	n := 2000
	if v := os.Getenv("RADISH_IDLE_CONNS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	p := newPKI(t)
	tlsArgs := func(port int) []string {
		return []string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", p.serverCert, "--tls-key-file", p.serverKey,
			"--tls-ca-cert-file", p.caFile, "--maxclients", strconv.Itoa(n + 100)}
	}
	rt := freePort(t)
	s := start(t, append(tlsArgs(rt), "--shards", "2")...)
	rcmd, raddr := startRedisPID(t, tlsArgs(freePort(t))...)
	plainDial := func(addr string) func() (net.Conn, error) {
		return func() (net.Conn, error) { return net.DialTimeout("tcp", addr, 10*time.Second) }
	}
	tlsDial := func(addr string) func() (net.Conn, error) {
		return func() (net.Conn, error) {
			return tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, p.clientConfig(true))
		}
	}
	rtls := "127.0.0.1:" + rcmd.Args[slices.Index(rcmd.Args, "--tls-port")+1]
	radishPlain := idleCost(t, s.cmd.Process.Pid, n, plainDial(s.addr))
	redisPlain := idleCost(t, rcmd.Process.Pid, n, plainDial(raddr))
	radishTLS := idleCost(t, s.cmd.Process.Pid, n, tlsDial("127.0.0.1:"+strconv.Itoa(rt)))
	redisTLS := idleCost(t, rcmd.Process.Pid, n, tlsDial(rtls))
	t.Logf("%d idle connections, RSS per connection: radish %d B plain, %d B TLS; redis-server %d B plain, %d B TLS",
		n, radishPlain, radishTLS, redisPlain, redisTLS)
}

//go:build linux

package ioloop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

type ctor struct {
	name string
	new  func(Options) (Driver, error)
}

var ctors = []ctor{
	{"io_uring", NewUring},
	{"epoll", NewEpoll},
	{"io_uring-compat", func(o Options) (Driver, error) {
		// no SINGLE_ISSUER/DEFER_TASKRUN, single-shot accept
		o.setupFlags = []uint32{0}
		o.noMultishotAccept = true
		return NewUring(o)
	}},
}

// eachDriver runs f once per driver implementation.
func eachDriver(t *testing.T, f func(t *testing.T, nd func(Options) (Driver, error))) {
	for _, c := range ctors {
		t.Run(c.name, func(t *testing.T) { f(t, c.new) })
	}
}

func skipUnavailable(t testing.TB, err error) {
	if errors.Is(err, ErrUringUnavailable) {
		t.Skip(err)
	}
	t.Fatal(err)
}

// server runs a driver with lineHandler on a locked goroutine.
type server struct {
	t      testing.TB
	d      Driver
	port   int
	stop   atomic.Bool
	done   chan error
	mu     sync.Mutex
	tasks  []func()
	opened atomic.Int64
	closed atomic.Int64
	errs   chan error
	ids    chan ConnID
}

func startServer(t testing.TB, nd func(Options) (Driver, error), opts Options) *server {
	s := &server{t: t, done: make(chan error, 1), errs: make(chan error, 100000), ids: make(chan ConnID, 100000)}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d, err := nd(opts)
		if err != nil {
			ready <- err
			return
		}
		lfd, err := ListenTCP("127.0.0.1:0", true)
		if err == nil {
			s.port, err = LocalPort(lfd)
		}
		if err == nil {
			err = d.Listen(lfd)
		}
		if err != nil {
			d.Shutdown()
			ready <- err
			return
		}
		s.d = d
		h := &lineHandler{s: s, d: d}
		ready <- nil
		for !s.stop.Load() {
			if err := d.Poll(time.Second, h); err != nil {
				s.done <- err
				return
			}
		}
		err = d.Shutdown()
		os.NewFile(uintptr(lfd), "listener").Close()
		s.done <- err
	}()
	if err := <-ready; err != nil {
		skipUnavailable(t, err)
	}
	t.Cleanup(s.close)
	return s
}

func (s *server) close() {
	if s.stop.Swap(true) {
		return
	}
	s.d.Wake()
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Error("server:", err)
		}
	case <-time.After(10 * time.Second):
		s.t.Error("server did not stop")
	}
}

// do runs f on the loop goroutine (through Wake/OnWake) and waits.
func (s *server) do(f func(d Driver)) {
	done := make(chan struct{})
	s.mu.Lock()
	s.tasks = append(s.tasks, func() { f(s.d); close(done) })
	s.mu.Unlock()
	s.d.Wake()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a loaded machine under -race is slow
		s.t.Fatal("task did not run")
	}
}

func (s *server) waitClosed(n int64) {
	deadline := time.Now().Add(10 * time.Second)
	for s.closed.Load() < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("closed %d, want %d (opened %d)", s.closed.Load(), n, s.opened.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

func (s *server) dial() net.Conn {
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
	if err != nil {
		s.t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c
}

// lineHandler serves newline-terminated commands and consumes only complete
// lines: PING -> +PONG, BIG n -> n pattern bytes + "\n", BYE n -> the same
// then Close, QUIT -> Close, anything else is echoed.
type lineHandler struct {
	s *server
	d Driver
}

func (h *lineHandler) OnOpen(c ConnID) {
	h.s.opened.Add(1)
	h.s.ids <- c
}

func (h *lineHandler) OnData(c ConnID) {
	in := h.d.Input(c)
	used := 0
	for {
		i := bytes.IndexByte(in[used:], '\n')
		if i < 0 {
			break
		}
		line := in[used : used+i+1]
		used += i + 1
		cmd := bytes.TrimRight(line, "\r\n")
		out := h.d.Output(c)
		switch {
		case string(cmd) == "PING":
			*out = append(*out, "+PONG\r\n"...)
		case bytes.HasPrefix(cmd, []byte("BIG ")), bytes.HasPrefix(cmd, []byte("BYE ")):
			n, _ := strconv.Atoi(string(cmd[4:]))
			*out = appendPattern(*out, n)
			*out = append(*out, '\n')
			if cmd[1] == 'Y' {
				h.d.Consume(c, used)
				h.d.Close(c)
				return
			}
		case string(cmd) == "QUIT":
			h.d.Consume(c, used)
			h.d.Close(c)
			return
		default:
			*out = append(*out, line...)
		}
	}
	h.d.Consume(c, used)
}

func (h *lineHandler) OnClose(c ConnID, err error) {
	h.s.errs <- err
	h.s.closed.Add(1)
}

func (h *lineHandler) OnWake() {
	h.s.mu.Lock()
	tasks := h.s.tasks
	h.s.tasks = nil
	h.s.mu.Unlock()
	for _, f := range tasks {
		f()
	}
}

func appendPattern(b []byte, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte('a'+i%26))
	}
	return b
}

func checkPattern(t testing.TB, b []byte) {
	t.Helper()
	for i, c := range b {
		if c != byte('a'+i%26) {
			t.Fatalf("byte %d of %d: got %q", i, len(b), c)
		}
	}
}

func expect(t testing.TB, r io.Reader, want string) {
	t.Helper()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatalf("reading %q: %v (got %q)", want, err, got)
	}
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestPingPong(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		for i := 0; i < 100; i++ {
			c.Write([]byte("PING\r\n"))
			expect(t, c, "+PONG\r\n")
		}
	})
}

func TestManyConnsPipelined(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{InputSize: 256})
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for g := 0; g < 50; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				c := s.dial()
				defer c.Close()
				r := bufio.NewReader(c)
				for round := 0; round < 20; round++ {
					var req, want bytes.Buffer
					for k := 0; k < 10; k++ {
						line := fmt.Sprintf("conn %d round %d line %d %s\n", g, round, k, bytes.Repeat([]byte("x"), (g*7+k*13)%300))
						req.WriteString(line)
						want.WriteString(line)
					}
					// write in odd chunks to split lines across reads
					b := req.Bytes()
					for len(b) > 0 {
						n := min(len(b), 1+(g*31+round*17)%97)
						if _, err := c.Write(b[:n]); err != nil {
							errs <- err
							return
						}
						b = b[n:]
					}
					got := make([]byte, want.Len())
					if _, err := io.ReadFull(r, got); err != nil {
						errs <- err
						return
					}
					if !bytes.Equal(got, want.Bytes()) {
						errs <- fmt.Errorf("conn %d: got %q want %q", g, got, want.Bytes())
						return
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}

func TestPipelineDeep(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		const n = 20000
		go c.Write(bytes.Repeat([]byte("PING\r\n"), n))
		expect(t, c, string(bytes.Repeat([]byte("+PONG\r\n"), n)))
	})
}

func TestLargePayloads(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		// 8 MB up, echoed back: the input buffer grows, the echo is sent in
		// many short sends.
		const up = 8 << 20
		req := appendPattern(nil, up)
		req = append(req, '\n')
		werr := make(chan error, 1)
		go func() { _, err := c.Write(req); werr <- err }()
		got := make([]byte, len(req))
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatal(err)
		}
		if err := <-werr; err != nil {
			t.Fatal(err)
		}
		checkPattern(t, got[:up])
		// 16 MB down while the client does not read for a while.
		const down = 16 << 20
		c.Write([]byte("BIG " + strconv.Itoa(down) + "\r\nPING\r\n"))
		time.Sleep(100 * time.Millisecond)
		got = make([]byte, down+1)
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatal(err)
		}
		checkPattern(t, got[:down])
		expect(t, c, "+PONG\r\n")
		// After going idle the input buffer is back to its small size.
		var id ConnID
		for len(s.ids) > 0 {
			id = <-s.ids
		}
		time.Sleep(50 * time.Millisecond)
		c.Write([]byte("PING\r\n"))
		expect(t, c, "+PONG\r\n")
		s.do(func(d Driver) {
			if n := inputSize(d, id); n != 16<<10 {
				t.Errorf("idle input buffer is %d bytes, want %d", n, 16<<10)
			}
		})
	})
}

func inputSize(d Driver, c ConnID) int {
	switch d := d.(type) {
	case *Uring:
		return len(d.conns[c.slot()].in.b)
	case *Epoll:
		return len(d.conns[c.slot()].in.b)
	}
	return -1
}

func TestPartialInput(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		id := <-s.ids
		for _, part := range []string{"PI", "NG\r\nPI", "N", "G\r\n"} {
			c.Write([]byte(part))
			time.Sleep(20 * time.Millisecond)
		}
		expect(t, c, "+PONG\r\n+PONG\r\n")
		c.Write([]byte("hello wor"))
		time.Sleep(50 * time.Millisecond)
		s.do(func(d Driver) {
			if got := string(d.Input(id)); got != "hello wor" {
				t.Errorf("Input = %q, want unconsumed %q", got, "hello wor")
			}
		})
		c.Write([]byte("ld\n"))
		expect(t, c, "hello world\n")
	})
}

func TestPeerClose(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		c.Write([]byte("PING\n"))
		expect(t, c, "+PONG\r\n")
		c.Close()
		s.waitClosed(1)
		if err := <-s.errs; err != io.EOF {
			t.Errorf("OnClose err = %v, want io.EOF", err)
		}
		// A half-closed client still gets the replies to what it sent.
		c = s.dial()
		c.Write([]byte("PING\nPING\n"))
		c.(*net.TCPConn).CloseWrite()
		all, err := io.ReadAll(c)
		if err != nil || string(all) != "+PONG\r\n+PONG\r\n" {
			t.Errorf("half-close: got %q, %v", all, err)
		}
		c.Close()
		s.waitClosed(2)
	})
}

func TestServerCloseFlushes(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		const n = 3 << 20
		c.Write([]byte("PING\nBYE " + strconv.Itoa(n) + "\nPING\n"))
		time.Sleep(50 * time.Millisecond) // let the send stall on a full socket
		all, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 7+n+1 || string(all[:7]) != "+PONG\r\n" {
			t.Fatalf("got %d bytes, want %d", len(all), 7+n+1)
		}
		checkPattern(t, all[7:7+n])
		s.waitClosed(1)
		if err := <-s.errs; err != nil {
			t.Errorf("OnClose err = %v, want nil", err)
		}
	})
}

// TestAbortDrops: Abort closes a connection whose send stalled on a
// reader that does not read, without sending what was queued: the client
// gets at most what the kernel had taken, then the end; OnClose follows.
func TestAbortDrops(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		id := <-s.ids
		const n = 32 << 20 // more than loopback's socket buffers hold
		c.Write([]byte("BIG " + strconv.Itoa(n) + "\n"))
		time.Sleep(50 * time.Millisecond) // let the send stall on a full socket
		s.do(func(d Driver) {
			if d.Pending(id) == 0 {
				t.Error("nothing pending before Abort")
			}
			d.Abort(id)
			if d.Pending(id) != 0 {
				t.Error("output pending after Abort")
			}
		})
		all, _ := io.ReadAll(c) // EOF or a reset: both end it
		if len(all) >= n {
			t.Fatalf("got all %d bytes after Abort", len(all))
		}
		s.waitClosed(1)
	})
}

func TestShutdownClosesConns(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		var cs []net.Conn
		for i := 0; i < 5; i++ {
			c := s.dial()
			c.Write([]byte("PING\n"))
			expect(t, c, "+PONG\r\n")
			cs = append(cs, c)
		}
		s.close()
		for _, c := range cs {
			if b, err := io.ReadAll(c); err != nil && len(b) != 0 {
				t.Errorf("after shutdown: %q %v", b, err)
			}
			c.Close()
		}
		if s.closed.Load() != 5 {
			t.Fatalf("OnClose called %d times, want 5", s.closed.Load())
		}
		for i := 0; i < 5; i++ {
			if err := <-s.errs; err != ErrShutdown {
				t.Errorf("OnClose err = %v, want ErrShutdown", err)
			}
		}
	})
}

func countFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestChurnNoLeak(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial() // warm up the client side (Go's netpoller)
		c.Write([]byte("PING\n"))
		expect(t, c, "+PONG\r\n")
		c.Close()
		s.waitClosed(1)
		before := countFDs(t)
		const rounds, per = 10, 200
		for r := 0; r < rounds; r++ {
			cs := make([]net.Conn, per)
			for i := range cs {
				cs[i] = s.dial()
			}
			for i, c := range cs {
				if i%2 == 0 {
					c.Write([]byte("PING\n"))
					expect(t, c, "+PONG\r\n")
				}
			}
			for i, c := range cs {
				if i%3 == 0 { // server-side close
					c.Write([]byte("QUIT\n"))
					io.ReadAll(c)
				}
				c.Close()
			}
		}
		s.waitClosed(1 + rounds*per)
		if o := s.opened.Load(); o != 1+rounds*per {
			t.Errorf("opened %d, want %d", o, 1+rounds*per)
		}
		if after := countFDs(t); after != before {
			t.Errorf("open fds: %d before, %d after", before, after)
		}
		time.Sleep(20 * time.Millisecond)
		if c := s.closed.Load(); c != 1+rounds*per {
			t.Errorf("OnClose called %d times, want %d", c, 1+rounds*per)
		}
	})
}

func TestStaleConnID(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		a := s.dial()
		a.Write([]byte("partial"))
		old := <-s.ids
		a.Close()
		s.waitClosed(1)
		b := s.dial()
		defer b.Close()
		cur := <-s.ids
		if cur.slot() != old.slot() || cur == old {
			t.Fatalf("slot not reused: old %x new %x", old, cur)
		}
		s.do(func(d Driver) {
			if in := d.Input(old); in != nil {
				t.Errorf("Input(stale) = %q", in)
			}
			d.Consume(old, 3)
			out := d.Output(old)
			*out = append(*out, "garbage"...)
			if n := d.Pending(old); n != 0 {
				t.Errorf("Pending(stale) = %d", n)
			}
			d.Close(old)
			d.Close(ConnID(0))
			d.Close(makeConnID(12345, 1))
		})
		b.Write([]byte("PING\n"))
		expect(t, b, "+PONG\r\n")
		time.Sleep(20 * time.Millisecond)
		if n := s.closed.Load(); n != 1 {
			t.Errorf("closed = %d, want 1", n)
		}
	})
}

// loopDriver creates a driver on the (locked) calling goroutine.
func loopDriver(t *testing.T, nd func(Options) (Driver, error)) Driver {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	d, err := nd(Options{})
	if err != nil {
		skipUnavailable(t, err)
	}
	t.Cleanup(func() {
		if err := d.Shutdown(); err != nil {
			t.Error(err)
		}
	})
	return d
}

type wakeCounter struct {
	lineHandler
	wakes int
}

func (w *wakeCounter) OnWake() { w.wakes++ }

func TestWakeAndTimeout(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		d := loopDriver(t, nd)
		h := &wakeCounter{}
		start := time.Now()
		if err := d.Poll(50*time.Millisecond, h); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < 40*time.Millisecond || el > 3*time.Second {
			t.Errorf("Poll(50ms) took %v", el)
		}
		start = time.Now()
		d.Poll(0, h)
		if el := time.Since(start); el > 100*time.Millisecond {
			t.Errorf("Poll(0) took %v", el)
		}
		if h.wakes != 0 {
			t.Fatalf("wakes = %d", h.wakes)
		}
		for i, timeout := range []time.Duration{10 * time.Second, -1} {
			go func() {
				time.Sleep(50 * time.Millisecond)
				d.Wake()
			}()
			start = time.Now()
			for h.wakes == i && time.Since(start) < 5*time.Second {
				d.Poll(timeout, h)
			}
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("Wake took %v to end Poll(%v)", el, timeout)
			}
			if h.wakes != i+1 {
				t.Fatalf("wakes = %d, want %d", h.wakes, i+1)
			}
		}
		// Wake before Poll: the next Poll does not block.
		d.Wake()
		start = time.Now()
		d.Poll(10*time.Second, h)
		if h.wakes != 3 || time.Since(start) > time.Second {
			t.Errorf("pre-Poll wake: wakes %d after %v", h.wakes, time.Since(start))
		}
		// Many concurrent wakes collapse into OnWake calls, none lost.
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 1000; i++ {
					d.Wake()
				}
			}()
		}
		wg.Wait()
		before := h.wakes
		d.Poll(10*time.Second, h)
		if h.wakes != before+1 {
			t.Errorf("wakes %d -> %d", before, h.wakes)
		}
		start = time.Now()
		for time.Since(start) < 60*time.Millisecond {
			d.Poll(20*time.Millisecond, h) // spurious eventfd reads are fine, no OnWake
		}
		if h.wakes != before+1 {
			t.Errorf("spurious OnWake: %d -> %d", before+1, h.wakes)
		}
	})
}

func TestReentrantAndClosed(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d, err := nd(Options{})
		if err != nil {
			skipUnavailable(t, err)
		}
		h := &reentrant{d: d}
		d.Wake()
		d.Poll(time.Second, h)
		if h.pollErr != ErrReentrant || h.shutErr != ErrReentrant {
			t.Errorf("reentrant calls: %v %v", h.pollErr, h.shutErr)
		}
		if err := d.Shutdown(); err != nil {
			t.Fatal(err)
		}
		if err := d.Poll(0, h); err != ErrClosed {
			t.Errorf("Poll after Shutdown: %v", err)
		}
		d.Wake() // must not write to a closed (maybe reused) fd
	})
}

type reentrant struct {
	wakeCounter
	d                Driver
	pollErr, shutErr error
}

func (r *reentrant) OnWake() {
	r.pollErr = r.d.Poll(0, r)
	r.shutErr = r.d.Shutdown()
}

func TestUringSetupFlags(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d, err := NewUring(Options{})
	if err != nil {
		skipUnavailable(t, err)
	}
	defer d.Shutdown()
	u := d.(*Uring)
	t.Logf("io_uring setup flags: %s, features %#x, multishot accept %v", u.SetupFlags(), u.r.features, u.MultishotAccept())
}

func TestListenTCP(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", ":0", "[::]:0"} {
		fd, err := ListenTCP(addr, true)
		if err != nil {
			if addr[0] == '[' {
				t.Logf("%s: %v (no IPv6 here?)", addr, err)
				continue
			}
			t.Fatal(addr, err)
		}
		port, err := LocalPort(fd)
		if err != nil || port == 0 {
			t.Errorf("%s: port %d %v", addr, port, err)
		}
		// a second SO_REUSEPORT socket on the same port
		host := "127.0.0.1"
		if addr[0] == '[' {
			host = addr[:len(addr)-2]
			host = host[1 : len(host)-1]
		}
		busy := net.JoinHostPort(host, strconv.Itoa(port))
		fd2, err := ListenTCP(busy, true)
		if err != nil {
			t.Errorf("%s: reuseport bind: %v", addr, err)
		} else {
			os.NewFile(uintptr(fd2), "").Close()
		}
		if err := CheckFree(busy); !errors.Is(err, unix.EADDRINUSE) {
			t.Errorf("%s: CheckFree of a port listened on = %v, want EADDRINUSE", busy, err)
		}
		os.NewFile(uintptr(fd), "").Close()
		if err := CheckFree(busy); err != nil {
			t.Errorf("%s: CheckFree after close: %v", busy, err)
		}
	}
	if _, err := ListenTCP("256.0.0.1:1", false); err == nil {
		t.Error("bad address accepted")
	}
}

func TestInputLimit(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{MaxInput: 64 << 10})
		c := s.dial()
		defer c.Close()
		go c.Write(bytes.Repeat([]byte("x"), 1<<20)) // no newline: never consumed
		io.ReadAll(c)
		s.waitClosed(1)
		if err := <-s.errs; err != ErrInputTooLarge {
			t.Errorf("OnClose err = %v, want ErrInputTooLarge", err)
		}
	})
}

func TestListenRejectsNonListener(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		d := loopDriver(t, nd)
		if err := d.Listen(0); err == nil {
			t.Error("Listen(stdin) succeeded")
		}
	})
}

// TestDetach: a detached connection's socket stays open on the
// duplicate, which reads and writes on: the peer sees no close until
// the duplicate closes; the driver reports the connection closed and
// sends nothing more on it.
func TestDetach(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		c.Write([]byte("PING\n"))
		expect(t, c, "+PONG\r\n")
		id := <-s.ids
		fd := -1
		s.do(func(d Driver) {
			var err error
			if fd, err = d.Detach(id); err != nil {
				t.Error("Detach:", err)
			}
			if _, err := d.Detach(id); err == nil {
				t.Error("a second Detach succeeded")
			}
		})
		if fd < 0 {
			return
		}
		s.waitClosed(1)
		f := os.NewFile(uintptr(fd), "detached")
		defer f.Close()
		c.Write([]byte("PING\n")) // the driver no longer answers
		if _, err := f.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		expect(t, c, "hello")
		var b [5]byte
		if _, err := io.ReadFull(f, b[:]); err != nil || string(b[:]) != "PING\n" {
			t.Fatalf("read on the duplicate: %q, %v", b, err)
		}
		f.Close()
		if n, err := c.Read(b[:]); n != 0 || err == nil {
			t.Fatalf("after the duplicate closed: %d bytes, %v", n, err)
		}
	})
}

// TestBuffers: a connection's descriptor is its socket's (the peer's
// address as getpeername reads it on that fd), the input's room shrinks
// by what is received and not consumed, and a stale ID reads fd -1.
func TestBuffers(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		s := startServer(t, nd, Options{})
		c := s.dial()
		defer c.Close()
		id := <-s.ids
		c.Write([]byte("PING\n"))
		expect(t, c, "+PONG\r\n")
		var idle Buffers
		s.do(func(d Driver) { idle = d.Buffers(id) })
		if sa, err := unix.Getpeername(idle.Fd); err != nil || fmtSockaddr(sa) != c.LocalAddr().String() {
			t.Errorf("fd %d: peer %v, %v; want %s", idle.Fd, sa, err, c.LocalAddr())
		}
		c.Write([]byte("hello"))
		time.Sleep(50 * time.Millisecond)
		s.do(func(d Driver) {
			if b := d.Buffers(id); b.InFree != idle.InFree-5 {
				t.Errorf("InFree %d with 5 bytes in, %d idle", b.InFree, idle.InFree)
			}
			if b := d.Buffers(id + 1<<32); b.Fd != -1 {
				t.Errorf("stale: %+v", b)
			}
		})
	})
}

// flushHandler records the connection that opened.
type flushHandler struct{ id ConnID }

func (h *flushHandler) OnOpen(c ConnID)       { h.id = c }
func (h *flushHandler) OnData(ConnID)         {}
func (h *flushHandler) OnClose(ConnID, error) {}
func (h *flushHandler) OnWake()               {}

// openOne has d accept one connection from a client of the test's own:
// the client's end, and the handler that saw it open.
func openOne(t *testing.T, d Driver) (net.Conn, *flushHandler) {
	lfd, err := ListenTCP("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.NewFile(uintptr(lfd), "listener").Close() })
	port, err := LocalPort(lfd)
	if err == nil {
		err = d.Listen(lfd)
	}
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h := &flushHandler{}
	for start := time.Now(); h.id == 0 && time.Since(start) < 5*time.Second; {
		d.Poll(100*time.Millisecond, h)
	}
	if h.id == 0 {
		t.Fatal("no connection opened")
	}
	return conn, h
}

// TestFlushSends: output appended after a Poll reaches the peer through
// Flush, with no Poll after it.
func TestFlushSends(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		d := loopDriver(t, nd)
		conn, h := openOne(t, d)
		out := d.Output(h.id)
		*out = append(*out, "flushed\n"...)
		d.Flush()
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		expect(t, conn, "flushed\n")
	})
}

// TestUringWaiting: between Polls, the io_uring driver tells that input
// arrived (the peer wrote) or a Wake came, with no system call, and that
// nothing did once a Poll took it; its own sends' completions are not
// input.
func TestUringWaiting(t *testing.T) {
	d := loopDriver(t, NewUring)
	conn, h := openOne(t, d)
	// drain polls until nothing more comes.
	drain := func() {
		for d.Poll(0, h); d.Waiting(); d.Poll(0, h) {
		}
	}
	drain()
	if d.Waiting() {
		t.Fatal("waiting with nothing sent")
	}
	out := d.Output(h.id)
	*out = append(*out, "reply\n"...)
	d.Flush()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	expect(t, conn, "reply\n")
	time.Sleep(10 * time.Millisecond)
	if d.Waiting() {
		t.Error("waiting after a send of its own completed")
	}
	drain()
	if _, err := conn.Write([]byte("request\n")); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); !d.Waiting(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("input arrived and Waiting did not tell")
		}
	}
	drain()
	d.Consume(h.id, len(d.Input(h.id)))
	d.Wake()
	if !d.Waiting() {
		t.Error("a Wake pending and Waiting did not tell")
	}
}

// TestFsync: an fdatasync asked of the ring runs off the loop and
// its done runs in a later Poll, once, with nil; one of a descriptor
// that is no file fails with the kernel's error; two in flight each get
// their own done. Epoll says it cannot.
func TestFsync(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		d := loopDriver(t, nd)
		f, err := os.Create(filepath.Join(t.TempDir(), "log"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write([]byte("bytes")); err != nil {
			t.Fatal(err)
		}
		var got []error
		var calls [3]int
		dones := make([]func(error), 3)
		for i := range dones {
			dones[i] = func(err error) { calls[i]++; got = append(got, err) }
		}
		if !d.Fsync(int(f.Fd()), dones[0]) {
			if d.Kind() == "epoll" {
				return
			}
			t.Fatal("io_uring refused an fsync")
		}
		if d.Kind() == "epoll" {
			t.Fatal("epoll took an fsync")
		}
		d.Fsync(int(f.Fd()), dones[1])
		d.Fsync(-1, dones[2])
		var h lineHandler
		for start := time.Now(); len(got) < 3; {
			if err := d.Poll(100*time.Millisecond, &h); err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("after 5s, %d of 3 fsyncs done", len(got))
			}
		}
		if calls != [3]int{1, 1, 1} {
			t.Errorf("done calls %v, want one each", calls)
		}
		var failed int
		for _, err := range got {
			if err != nil {
				failed++
				if !errors.Is(err, syscall.EBADF) {
					t.Errorf("fsync of -1: %v, want EBADF", err)
				}
			}
		}
		if failed != 1 {
			t.Errorf("%d fsyncs failed, want the one of -1: %v", failed, got)
		}
		// The done funcs' places are reused.
		d.Fsync(int(f.Fd()), dones[0])
		for start := time.Now(); len(got) < 4 && time.Since(start) < 5*time.Second; {
			d.Poll(100*time.Millisecond, &h)
		}
		if u := d.(*Uring); len(u.syncs) != 3 || len(u.syncFree) != 3 || calls[0] != 2 {
			t.Errorf("syncs %d free %d, done calls %v", len(u.syncs), len(u.syncFree), calls)
		}
	})
}

package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// host is a fake Host: it keeps the full sync's file and answers every
// command sent on a lane with +OK, recording it.
type host struct {
	mu   sync.Mutex
	rdb  []byte
	cmds []string
}

func (h *host) FullSync(path string) error {
	b, err := os.ReadFile(path)
	h.mu.Lock()
	h.rdb = b
	h.mu.Unlock()
	return err
}

func (h *host) Apply(_ int, answered func([]byte, bool)) (Lane, error) {
	return &hostLane{h: h, answered: answered}, nil
}

// hostLane is a host's lane: it runs what is sent at once.
type hostLane struct {
	h        *host
	answered func([]byte, bool)
}

func (l *hostLane) Send(b []byte) error {
	r := bufio.NewReader(bytes.NewReader(b))
	var replies []byte
	for {
		args, err := readCommand(r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		l.h.mu.Lock()
		l.h.cmds = append(l.h.cmds, strings.Join(args, " "))
		l.h.mu.Unlock()
		replies = append(replies, "+OK\r\n"...)
	}
	l.answered(replies, false)
	return nil
}

func (l *hostLane) Close() {}

func (h *host) commands() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.cmds, "|")
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || line[0] != '*' {
		return nil, fmt.Errorf("bad command header %q", line)
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		l, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		b := make([]byte, l+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:l])
	}
	return args, nil
}

func cmd(args ...string) string { return string(appendCommand(nil, args...)) }

// primary is a fake primary's side of one connection.
type primary struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func (p *primary) expect(want string, reply string) {
	p.t.Helper()
	p.c.SetDeadline(time.Now().Add(10 * time.Second))
	args, err := readCommand(p.r)
	if err != nil {
		p.t.Fatal(err)
	}
	if got := strings.Join(args, " "); got != want {
		p.t.Fatalf("the replica sent %q, want %q", got, want)
	}
	if reply != "" {
		p.send(reply)
	}
}

func (p *primary) send(s string) {
	p.t.Helper()
	if _, err := p.c.Write([]byte(s)); err != nil {
		p.t.Fatal(err)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// TestReplicaProtocol drives a Replica against a fake primary: the
// handshake, a diskless full sync behind a keepalive newline, the
// stream (PING and REPLCONF counted, never run; a MULTI block held
// until its EXEC), REPLCONF GETACK answered with the offset applied, and
// after a cut inside a MULTI block a PSYNC from the offset before it,
// which +CONTINUE with a new ID turns into replid2.
func TestReplicaProtocol(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h := &host{}
	r := Start(h, Options{Addr: ln.Addr().String(), Pass: "pw", ListenPort: 1234, Dir: t.TempDir(),
		Timeout: 10 * time.Second})
	defer r.Stop()
	accept := func() *primary {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return &primary{t: t, c: c, r: bufio.NewReader(c)}
	}
	p := accept()
	p.expect("PING", "+PONG\r\n")
	p.expect("AUTH pw", "+OK\r\n")
	p.expect("REPLCONF listening-port 1234", "+OK\r\n")
	p.expect("REPLCONF capa eof capa psync2", "+OK\r\n")
	p.expect("PSYNC ? -1", "+FULLRESYNC "+strings.Repeat("a", 40)+" 100\r\n")
	mark := strings.Repeat("m", 40)
	payload := "REDIS0010" + strings.Repeat("x", 100000) + mark[:39] // ends like the mark, but is not it
	p.send("\n$EOF:" + mark + "\r\n" + payload + mark)
	waitUntil(t, "the link up", r.Up)
	if h.rdb == nil || string(h.rdb) != payload {
		t.Fatalf("full sync: %d bytes, want the %d of the payload", len(h.rdb), len(payload))
	}
	set, ping, multi, setB, exec := cmd("SET", "a", "1"), cmd("PING"), cmd("MULTI"), cmd("SET", "b", "2"), cmd("EXEC")
	p.send(set + ping + multi + setB)
	waitUntil(t, "SET a", func() bool { return h.commands() == "SET a 1" })
	time.Sleep(20 * time.Millisecond)
	if got := h.commands(); got != "SET a 1" {
		t.Fatalf("before EXEC the host ran %q", got)
	}
	p.send(exec)
	before := int64(100 + len(set+ping+multi+setB+exec))
	waitUntil(t, "the MULTI block", func() bool { return r.Status().Applied == before })
	if got := h.commands(); got != "SET a 1|MULTI|SET b 2|EXEC" {
		t.Fatalf("the host ran %q", got)
	}
	getack := cmd("REPLCONF", "GETACK", "*")
	p.send(getack)
	p.c.SetDeadline(time.Now().Add(10 * time.Second))
	for {
		args, err := readCommand(p.r)
		if err != nil {
			t.Fatal(err)
		}
		off, _ := strconv.ParseInt(args[2], 10, 64)
		if args[0] != "REPLCONF" || args[1] != "ACK" || off < before || off > before+int64(len(getack)) {
			t.Fatalf("after GETACK the replica sent %q", args)
		}
		if off >= before {
			break
		}
	}
	// A cut inside a MULTI block: none of it runs, PSYNC asks for it again.
	p.send(multi + cmd("SET", "c", "3"))
	time.Sleep(20 * time.Millisecond)
	p.c.Close()
	applied := before + int64(len(getack))
	p = accept()
	p.expect("PING", "+PONG\r\n")
	p.expect("AUTH pw", "+OK\r\n")
	p.expect("REPLCONF listening-port 1234", "+OK\r\n")
	p.expect("REPLCONF capa eof capa psync2", "+OK\r\n")
	p.expect("PSYNC "+strings.Repeat("a", 40)+" "+strconv.FormatInt(applied+1, 10), "+CONTINUE "+strings.Repeat("b", 40)+"\r\n")
	p.send(multi + cmd("SET", "c", "3") + exec)
	waitUntil(t, "the block after the cut", func() bool { return strings.Count(h.commands(), "MULTI") == 2 })
	st := r.Status()
	if st.ReplID != strings.Repeat("b", 40) || st.ReplID2 != strings.Repeat("a", 40) || st.SecondOffset != applied+1 {
		t.Errorf("after +CONTINUE with a new ID: %+v", st)
	}
	if got := h.commands(); got != "SET a 1|MULTI|SET b 2|EXEC|MULTI|SET c 3|EXEC" {
		t.Errorf("the host ran %q", got)
	}
	p.c.Close()
}

// TestCopyToMark: the mark ends the copy wherever reads split it.
func TestCopyToMark(t *testing.T) {
	mark := []byte(strings.Repeat("E", 40))
	for _, n := range []int{0, 1, 39, 40, 41, 70000} {
		body := bytes.Repeat([]byte("ab"), n)[:n]
		for _, chunk := range []int{1, 7, 40, 1 << 20} {
			src := io.MultiReader(&chunked{b: append(append([]byte{}, body...), mark...), n: chunk}, strings.NewReader("after"))
			var dst bytes.Buffer
			if err := copyToMark(&dst, src, mark); err != nil || !bytes.Equal(dst.Bytes(), body) {
				t.Fatalf("n %d chunk %d: %d bytes, %v", n, chunk, dst.Len(), err)
			}
		}
	}
	if err := copyToMark(io.Discard, strings.NewReader("short"), mark); err != io.ErrUnexpectedEOF {
		t.Errorf("no mark: %v", err)
	}
}

// chunked reads b at most n bytes at a time.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// TestSkipReply: lengths of whole replies, 0 for a partial one.
func TestSkipReply(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"+OK\r\n", 5}, {"-ERR x\r\n", 8}, {":12\r\n+OK\r\n", 5}, {"$3\r\nabc\r\n", 9}, {"$-1\r\n", 5},
		{"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", 19}, {"*-1\r\n", 5}, {"$3\r\nab", 0}, {"*2\r\n:1\r\n", 0}, {"+O", 0},
	} {
		if got := skipReply([]byte(tc.in), 0); got != tc.want {
			t.Errorf("skipReply(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

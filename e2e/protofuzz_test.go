package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// fuzzCommands are what well-formed frames call: every family, several
// shards' keys, transactions, pub/sub, a short blocking pop, and replies
// of every RESP3 type. Nothing that stops or reconfigures the server.
var fuzzCommands = [][]string{
	{"PING"}, {"ECHO", "$v"}, {"SET", "$k", "$v"}, {"GET", "$k"}, {"INCR", "$k"}, {"APPEND", "$k", "$v"},
	{"MSET", "$k", "$v", "$k", "$v"}, {"MGET", "$k", "$k", "$k"}, {"DEL", "$k", "$k"}, {"EXPIRE", "$k", "$n"},
	{"LPUSH", "$k", "$v"}, {"LRANGE", "$k", "0", "-1"}, {"HSET", "$k", "$v", "$v"}, {"HGETALL", "$k"},
	{"SADD", "$k", "$v"}, {"SMEMBERS", "$k"}, {"ZADD", "$k", "$n", "$v"}, {"ZRANGE", "$k", "0", "-1", "WITHSCORES"},
	{"SETRANGE", "$k", "$n", "$v"}, {"GETRANGE", "$k", "0", "$n"}, {"BITCOUNT", "$k"}, {"PFADD", "$k", "$v"},
	{"MULTI"}, {"EXEC"}, {"DISCARD"}, {"WATCH", "$k"}, {"SUBSCRIBE", "$v"}, {"UNSUBSCRIBE"}, {"PUBLISH", "$v", "$v"},
	{"HELLO", "3"}, {"HELLO", "2"}, {"BLPOP", "$k", "0.01"}, {"SCAN", "0"}, {"DBSIZE"}, {"TYPE", "$k"},
	{"EVAL", "return redis.call('GET', KEYS[1])", "1", "$k"}, {"CLIENT", "SETNAME", "$v"}, {"SELECT", "$n"},
	{"OBJECT", "ENCODING", "$k"}, {"RENAME", "$k", "$k"}, {"SORT", "$k"}, {"XADD", "$k", "*", "$v", "$v"},
}

// fuzzFrame appends one frame to b: well formed, mutated, or noise.
func fuzzFrame(r *rand.Rand, b []byte) []byte {
	arg := func(a string) string {
		switch a {
		case "$k":
			return "k" + strconv.Itoa(r.IntN(40))
		case "$v":
			if r.IntN(20) == 0 {
				return string(rune(r.IntN(0x2ff))) + "\x00\r\n"
			}
			return "v" + strconv.Itoa(r.IntN(1000))
		case "$n":
			return strconv.Itoa(r.IntN(200) - 20)
		}
		return a
	}
	cmd := fuzzCommands[r.IntN(len(fuzzCommands))]
	frame := []byte{}
	switch kind := r.IntN(40); {
	case kind < 32: // well formed
		frame = appendCommand(frame, cmd, arg)
	case kind < 35: // mutated
		frame = appendCommand(frame, cmd, arg)
		for range 1 + r.IntN(3) {
			i := r.IntN(len(frame))
			switch r.IntN(5) {
			case 0:
				frame[i] = byte(r.IntN(256))
			case 1:
				frame = frame[:i]
			case 2:
				frame = append(frame[:i], append([]byte(fuzzTokens[r.IntN(len(fuzzTokens))]), frame[i:]...)...)
			case 3:
				frame = append(frame[:i], frame[i+1:]...)
			case 4:
				frame = append(frame, frame[i:]...)
			}
			if len(frame) == 0 {
				frame = append(frame, '*')
			}
		}
	case kind < 39: // inline
		for i, a := range cmd {
			if i > 0 {
				frame = append(frame, ' ')
			}
			if r.IntN(4) == 0 {
				frame = strconv.AppendQuote(frame, arg(a))
			} else {
				frame = append(frame, arg(a)...)
			}
		}
		frame = append(frame, "\r\n"...)
	default: // noise and hostile headers
		frame = append(frame, fuzzTokens[r.IntN(len(fuzzTokens))]...)
		for range r.IntN(16) {
			frame = append(frame, byte(r.IntN(256)))
		}
	}
	return append(b, frame...)
}

var fuzzTokens = []string{"*", "$", "\r\n", "*-1\r\n", "*0\r\n", "*3\r\n", "$-1\r\n", "$0\r\n\r\n", "*1048577\r\n",
	"$536870913\r\n", "*2147483648\r\n", "$99999999999999999999\r\n", "%1\r\n", "~2\r\n", ">1\r\n", "+OK\r\n",
	":-9\r\n", "\"unbalanced", "'", "\x00", "\n", "*1\r\n*1\r\n", "$3\r\nab\r\n"}

func appendCommand(b []byte, cmd []string, arg func(string) string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(cmd)), 10)
	b = append(b, "\r\n"...)
	for _, a := range cmd {
		v := arg(a)
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, "\r\n"...)
		b = append(append(b, v...), "\r\n"...)
	}
	return b
}

// fuzzStats are a run's counts.
type fuzzStats struct {
	frames, bytes, replies, errors, cuts, conns, pings atomic.Int64
}

// TestProtocolFuzz: many connections, plain and over TLS, send random and
// mutated RESP frames (well-formed commands, corrupted ones, inline
// commands, hostile lengths, noise), one of them as plaintext on the TLS
// port, while a watcher opens a fresh
// connection every 50 ms and expects PONG within 5 seconds. The server
// must never crash (it exits cleanly at the end), never hang, and answer
// every watcher's PING. RADISH_FUZZ_FRAMES (default 100000) and
// RADISH_FUZZ_SECONDS (default 10, a bound) size a run; the counts are
// logged.
func TestProtocolFuzz(t *testing.T) {
	maxFrames, maxTime := int64(100000), 10*time.Second
	if v := os.Getenv("RADISH_FUZZ_FRAMES"); v != "" {
		n, _ := strconv.Atoi(v)
		maxFrames = int64(n)
	}
	if v := os.Getenv("RADISH_FUZZ_SECONDS"); v != "" {
		n, _ := strconv.Atoi(v)
		maxTime = time.Duration(n) * time.Second
	}
	p := newPKI(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, drv := range ioModes {
		t.Run(drv, func(t *testing.T) {
			s := startTLS(t, p, "--io", drv, "--shards", "3", "--tls-handshake-timeout", "2",
				"--proto-max-bulk-len", "1mb", "--client-query-buffer-limit", "4mb")
			var st fuzzStats
			deadline := time.Now().Add(maxTime)
			done := func() bool { return st.frames.Load() >= maxFrames || time.Now().After(deadline) }
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(seed, uint64(w)))
					for !done() {
						var c net.Conn
						var err error
						switch {
						case w == 15: // not TLS on the TLS port: the handshake fails
							c, err = net.DialTimeout("tcp", s.taddr, 10*time.Second)
						case w%2 == 0:
							c, err = s.dial(true)
						default:
							c, err = net.DialTimeout("tcp", s.addr, 10*time.Second)
						}
						if err != nil {
							t.Errorf("dial: %v", err)
							return
						}
						st.conns.Add(1)
						fuzzConn(c, r, &st, done)
					}
				}()
			}
			watchErr := make(chan error, 1)
			stop := make(chan struct{})
			go func() {
				defer close(watchErr)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					var c net.Conn
					var err error
					if i%2 == 0 {
						c, err = s.dial(true)
					} else {
						c, err = net.DialTimeout("tcp", s.addr, 10*time.Second)
					}
					if err == nil {
						c.SetDeadline(time.Now().Add(5 * time.Second))
						io.WriteString(c, "PING\r\n")
						var line string
						if line, err = bufio.NewReader(c).ReadString('\n'); err == nil && line != "+PONG\r\n" {
							err = fmt.Errorf("PING answered %q", line)
						}
						c.Close()
					}
					if err != nil {
						watchErr <- fmt.Errorf("a fresh connection's PING after %d frames: %w", st.frames.Load(), err)
						return
					}
					st.pings.Add(1)
				}
			}()
			wg.Wait()
			close(stop)
			if err := <-watchErr; err != nil {
				t.Fatal(err)
			}
			t.Logf("%d frames (%d KB) on %d connections: %d replies, %d of them errors; %d connections cut by the server; %d watcher PINGs answered",
				st.frames.Load(), st.bytes.Load()>>10, st.conns.Load(), st.replies.Load(), st.errors.Load(),
				st.cuts.Load(), st.pings.Load())
			if st.replies.Load() == 0 || st.errors.Load() == 0 {
				t.Error("no replies or no error replies: the fuzzer did not reach the parser")
			}
		})
	}
}

// fuzzConn sends up to 300 frames on c in batches while a reader decodes
// the replies, then closes it. A connection the server cut (a protocol
// error, a limit) or that stops answering (a frame waiting for bytes that
// never come) is dropped.
func fuzzConn(c net.Conn, r *rand.Rand, st *fuzzStats, done func() bool) {
	defer c.Close()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 0, 64<<10)
		chunk := make([]byte, 32<<10)
		for {
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			n, err := c.Read(chunk)
			buf = append(buf, chunk[:n]...)
			for {
				v, used, perr := resp.ReadReply(buf)
				if perr != nil || used == 0 {
					break
				}
				st.replies.Add(1)
				if v.Type == '-' || v.Type == '!' {
					st.errors.Add(1)
				}
				buf = buf[:copy(buf, buf[used:])]
			}
			if err != nil {
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					st.cuts.Add(1)
				}
				return
			}
		}
	}()
	var out []byte
	for sent := 0; sent < 300 && !done(); {
		out = out[:0]
		n := 1 + r.IntN(8)
		for range n {
			out = fuzzFrame(r, out)
		}
		c.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write(out); err != nil {
			break
		}
		sent += n
		st.frames.Add(int64(n))
		st.bytes.Add(int64(len(out)))
		select {
		case <-readDone:
			return
		default:
		}
	}
	<-readDone
}

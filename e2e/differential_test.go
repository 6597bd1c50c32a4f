package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

// TestAgainstRedis sends the same random stream of commands (strings, keys,
// lists, hashes, sets, sorted sets, streams with consumer groups; keys on
// several shards; wrong types and wrong arities) to radish-server and to redis-server, in RESP2 and in
// RESP3, and requires byte-identical replies. Replies whose order Redis
// leaves unspecified (HGETALL, SMEMBERS, KEYS ...) are compared sorted.
// Commands whose reply depends on chance or on the clock are not sent.
// Then Pub/Sub: several connections subscribe, publish and ask, RESP2
// and RESP3 (pushes interleaved with replies), and each one's stream of
// replies and messages must be the same (pubsub_test.go). Then client
// tracking: a script of CLIENT TRACKING modes, reads, writes and flushes,
// every connection's replies and invalidations the same (tracking_test.go).
func TestAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			a.do(t, []string{"FLUSHALL"})
			b.do(t, []string{"FLUSHALL"})
			g := workload.New(rand.New(rand.NewPCG(uint64(proto), 42)))
			g.Groups = true
			var history []string
			for sent := 0; sent < 20000; {
				// Pipelines of up to 48 commands: a shard prefetches the
				// keys of the commands it parses ahead (and reuses the
				// walks) while the earlier ones change the keyspace.
				batch := g.Batch(48)
				sent += len(batch)
				gots, wants := a.do(t, batch...), b.do(t, batch...)
				for i, args := range batch {
					history = append(history, strings.Join(args, " "))
					got, want := workload.Canonical(args, gots[i]), workload.Canonical(args, wants[i])
					if !bytes.Equal(got, want) && !closeTTL(args, got, want) {
						t.Fatalf("after\n  %s\nradish replied %q\nredis  replied %q",
							strings.Join(history[max(0, len(history)-60):], "\n  "), got, want)
					}
				}
			}
		})
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("PubSub/RESP%d", proto), func(t *testing.T) { pubsubAgainstRedis(t, s.addr, ref, proto) })
	}
	t.Run("Tracking", func(t *testing.T) { trackingAgainstRedis(t, s.addr, ref) })
}

// startRedis runs redis-server on a free port without persistence, with
// extra arguments after the defaults.
func startRedis(t *testing.T, bin string, extra ...string) string {
	dir := t.TempDir()
	port := freePort(t)
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log")}, extra...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// closeTTL reports whether got and want are TTL (or PTTL) replies within
// two seconds of each other: the two servers are asked one after the
// other, and on a loaded machine a second can pass between them.
func closeTTL(args []string, got, want []byte) bool {
	slack := int64(2)
	switch strings.ToUpper(args[0]) {
	case "TTL":
	case "PTTL":
		slack = 2000
	default:
		return false
	}
	g, _, err1 := resp.ReadReply(got)
	w, _, err2 := resp.ReadReply(want)
	return err1 == nil && err2 == nil && g.Type == ':' && w.Type == ':' && g.Int >= 0 && w.Int >= 0 &&
		g.Int-w.Int <= slack && w.Int-g.Int <= slack
}

// diffConn sends commands and returns each raw reply.
type diffConn struct {
	c   net.Conn
	r   *bufio.Reader
	buf []byte
}

func dialDiff(t *testing.T, addr string, proto int) *diffConn {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	d := &diffConn{c: c, r: bufio.NewReader(c)}
	if proto == 3 {
		d.do(t, []string{"HELLO", "3"})
	}
	return d
}

// do sends the commands in one write and returns their raw replies.
func (d *diffConn) do(t *testing.T, cmds ...[]string) [][]byte {
	t.Helper()
	if err := d.write(cmds); err != nil {
		t.Fatal(err)
	}
	replies := make([][]byte, len(cmds))
	for i := range replies {
		if replies[i] = d.read(t); replies[i] == nil {
			t.Fatalf("%v: no reply", cmds[i])
		}
	}
	return replies
}

// write sends the commands in one write, without reading their replies.
func (d *diffConn) write(cmds [][]string) error {
	var w resp.Writer
	for _, args := range cmds {
		w.Array(len(args))
		for _, a := range args {
			w.BulkString(a)
		}
	}
	d.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := d.c.Write(w.B)
	return err
}

// read reads one raw reply (nil after an error, reported); it may run on
// a goroutine of the test.
func (d *diffConn) read(t *testing.T) []byte {
	b, err := d.next(10 * time.Second)
	if err != nil {
		t.Errorf("reading a reply: %v", err)
	}
	return b
}

// next reads one raw reply, waiting at most wait for each read. What the
// connection sent after it waits in d.buf for the next one.
func (d *diffConn) next(wait time.Duration) ([]byte, error) {
	var chunk [64 << 10]byte
	for {
		if _, n, err := resp.ReadReply(d.buf); err != nil {
			return nil, fmt.Errorf("%q: %w", d.buf, err)
		} else if n > 0 {
			reply := slices.Clone(d.buf[:n])
			d.buf = append(d.buf[:0], d.buf[n:]...)
			return reply, nil
		}
		d.c.SetDeadline(time.Now().Add(wait))
		n, err := d.r.Read(chunk[:])
		if err != nil {
			return nil, err
		}
		d.buf = append(d.buf, chunk[:n]...)
	}
}

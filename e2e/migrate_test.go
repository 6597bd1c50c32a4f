package e2e

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// migConn is a hand-driven connection that reads whole replies, so a
// test sees every byte the server sent, in order.
type migConn struct {
	t   *testing.T
	c   net.Conn
	buf []byte
}

func (m *migConn) send(cmds ...string) {
	m.t.Helper()
	if _, err := m.c.Write([]byte(strings.Join(cmds, ""))); err != nil {
		m.t.Fatal(err)
	}
}

// replies reads n replies.
func (m *migConn) replies(n int) []string {
	m.t.Helper()
	out := make([]string, 0, n)
	m.c.SetReadDeadline(time.Now().Add(60 * time.Second))
	chunk := make([]byte, 64<<10)
	for len(out) < n {
		_, used, err := resp.ReadReply(m.buf)
		if err != nil {
			m.t.Fatalf("bad reply %q: %v", m.buf, err)
		}
		if used > 0 {
			out = append(out, string(m.buf[:used]))
			m.buf = m.buf[used:]
			continue
		}
		k, err := m.c.Read(chunk)
		if err != nil {
			m.t.Fatalf("%d replies of %d: %v", len(out), n, err)
		}
		m.buf = append(m.buf, chunk[:k]...)
	}
	return out
}

// expect sends cmds and checks that their replies are want, in order.
func (m *migConn) expect(cmds, want []string) {
	m.t.Helper()
	m.send(cmds...)
	got := m.replies(len(want))
	for i := range want {
		if got[i] != want[i] {
			m.t.Fatalf("reply %d of %d: %q, want %q (command %q)", i, len(want), got[i], want[i], cmds[min(i, len(cmds)-1)])
		}
	}
}

// stat reads an INFO stats field over the connection itself.
func (m *migConn) stat(name string) int64 {
	m.t.Helper()
	r := m.replies0(mcmd("INFO", "stats"))
	for _, l := range strings.Split(r, "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	m.t.Fatalf("no %s in INFO stats: %q", name, r)
	return 0
}

func (m *migConn) replies0(cmd string) string {
	m.t.Helper()
	m.send(cmd)
	return m.replies(1)[0]
}

func mcmd(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

func mbulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

// remoteTag returns a hash tag whose keys live on another shard of two
// than the one that accepted m ({a} is on shard 1, {d} on shard 0:
// shard.TestBenchTags): the one whose GETs hop.
func (m *migConn) remoteTag() string {
	h := m.stat("cross_shard_hops")
	gets := make([]string, 8)
	for i := range gets {
		gets[i] = mcmd("GET", "{a}:probe")
	}
	m.send(gets...)
	m.replies(len(gets))
	if m.stat("cross_shard_hops") > h {
		return "{a}"
	}
	return "{d}"
}

func dialMig(t *testing.T, s *server) *migConn {
	return &migConn{t: t, c: s.raw()}
}

// TestConnectionMigration: on two shards, a client whose keys all have
// one hash tag of the other shard is handed over to that shard under a
// pipelined load (a MULTI inside it), with every reply in order; after
// the move its commands hop no more. A client blocked in a BLPOP, or
// subscribed, moves only once it is not, and its pushes still reach it.
// The moves are counted in INFO and the metrics.
func TestConnectionMigration(t *testing.T) {
	for _, io := range []string{"uring", "epoll"} {
		t.Run(io, func(t *testing.T) {
			mport := freePort(t)
			s := start(t, "--io", io, "--shards", "2", "--metrics-port", strconv.Itoa(mport))

			// Pipelined, a MULTI in the middle.
			c := dialMig(t, s)
			tag := c.remoteTag()
			var cmds, want []string
			for i := range 500 {
				k, v := fmt.Sprintf("%s:%d", tag, i), strconv.Itoa(i)
				cmds = append(cmds, mcmd("SET", k, v), mcmd("INCR", k), mcmd("GET", k))
				want = append(want, "+OK\r\n", fmt.Sprintf(":%d\r\n", i+1), mbulk(strconv.Itoa(i+1)))
				if i == 250 {
					m := tag + ":m"
					cmds = append(cmds, mcmd("MULTI"), mcmd("SET", m, "1"), mcmd("INCR", m), mcmd("EXEC"))
					want = append(want, "+OK\r\n", "+QUEUED\r\n", "+QUEUED\r\n", "*2\r\n+OK\r\n:2\r\n")
				}
			}
			c.expect(cmds, want)
			if n := c.stat("migrated_connections"); n != 1 {
				t.Fatalf("migrated_connections %d after the pipeline, want 1", n)
			}
			hops := c.stat("cross_shard_hops")
			cmds, want = cmds[:0], want[:0]
			for i := range 500 {
				cmds = append(cmds, mcmd("GET", fmt.Sprintf("%s:%d", tag, i)))
				want = append(want, mbulk(strconv.Itoa(i+1)))
			}
			c.expect(cmds, want)
			if h := c.stat("cross_shard_hops"); h != hops {
				t.Fatalf("%d hops after the move", h-hops)
			}

			// Blocked in a BLPOP in the middle of the window: served, then
			// moved.
			b := dialMig(t, s)
			btag := b.remoteTag()
			moved := b.stat("migrated_connections")
			cmds, want = cmds[:0], want[:0]
			for i := range 40 {
				cmds = append(cmds, mcmd("GET", fmt.Sprintf("%s:b%d", btag, i)))
				want = append(want, "$-1\r\n")
			}
			cmds = append(cmds, mcmd("BLPOP", btag+":q", "30"))
			want = append(want, "*2\r\n"+mbulk(btag+":q")+mbulk("x"))
			for i := range 100 {
				cmds = append(cmds, mcmd("GET", fmt.Sprintf("%s:b%d", btag, i)))
				want = append(want, "$-1\r\n")
			}
			go func() {
				time.Sleep(300 * time.Millisecond)
				p := dialMig(t, s)
				p.send(mcmd("LPUSH", btag+":q", "x"))
			}()
			b.expect(cmds, want)
			if n := b.stat("migrated_connections"); n != moved+1 {
				t.Fatalf("migrated_connections %d after the blocked client's commands, want %d", n, moved+1)
			}

			// Subscribed (RESP3, which may run commands meanwhile): stays
			// while subscribed, moves after.
			sub := dialMig(t, s)
			sub.replies0(mcmd("HELLO", "3"))
			stag := sub.remoteTag()
			moved = sub.stat("migrated_connections")
			sub.expect([]string{mcmd("SUBSCRIBE", "ch")}, []string{">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"})
			cmds, want = cmds[:0], want[:0]
			for i := range 200 {
				cmds = append(cmds, mcmd("GET", fmt.Sprintf("%s:s%d", stag, i)))
				want = append(want, "_\r\n")
			}
			sub.expect(cmds, want)
			if n := sub.stat("migrated_connections"); n != moved {
				t.Fatal("a subscribed client moved")
			}
			pub := dialMig(t, s)
			pub.expect([]string{mcmd("PUBLISH", "ch", "hi")}, []string{":1\r\n"})
			if got := sub.replies(1)[0]; got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n" {
				t.Fatalf("the subscriber got %q", got)
			}
			sub.expect([]string{mcmd("UNSUBSCRIBE", "ch")}, []string{">3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n"})
			time.Sleep(1100 * time.Millisecond) // the cooldown of the move given up
			sub.expect(cmds, want)
			if n := sub.stat("migrated_connections"); n != moved+1 {
				t.Fatalf("migrated_connections %d once unsubscribed, want %d", n, moved+1)
			}
			sub.expect([]string{mcmd("SUBSCRIBE", "ch")}, []string{">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"})
			pub.expect([]string{mcmd("PUBLISH", "ch", "again")}, []string{":1\r\n"})
			if got := sub.replies(1)[0]; got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nagain\r\n" {
				t.Fatalf("the moved subscriber got %q", got)
			}
			if got := sum(t, scrape(t, mport), `radish_connections_migrated_total\{shard="\d+"\}`); got != float64(moved+1) {
				t.Fatalf("radish_connections_migrated_total %v, want %d", got, moved+1)
			}
		})
	}
}

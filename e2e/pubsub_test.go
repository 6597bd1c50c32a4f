package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// psConn is one connection of the Pub/Sub differential test: it sends a
// command followed by PING <token> and reads every frame (replies and
// messages) until the PING's, so that what a connection receives between
// two points is the same on both servers.
type psConn struct {
	c    net.Conn
	r    *bufio.Reader
	buf  []byte
	sync int
}

func dialPS(t *testing.T, addr string, proto int) *psConn {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p := &psConn{c: c, r: bufio.NewReader(c)}
	if proto == 3 {
		p.do(t, []string{"HELLO", "3"})
	}
	return p
}

// frame reads one RESP value.
func (p *psConn) frame(t *testing.T) []byte {
	f, err := p.tryFrame()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// tryFrame reads one RESP value, or says why it could not.
func (p *psConn) tryFrame() ([]byte, error) {
	p.buf = p.buf[:0]
	for {
		if _, n, err := resp.ReadReply(p.buf); err != nil {
			return nil, fmt.Errorf("%q: %v", p.buf, err)
		} else if n > 0 {
			return slices.Clone(p.buf[:n]), nil
		}
		b, err := p.r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("reading a frame: %v (so far %q)", err, p.buf)
		}
		p.buf = append(p.buf, b)
	}
}

// do sends cmds (none: only the PING) and returns every frame that came
// before the PING's reply.
func (p *psConn) do(t *testing.T, cmds ...[]string) [][]byte {
	t.Helper()
	p.sync++
	token := fmt.Sprintf("sync-%d", p.sync)
	var w resp.Writer
	for _, args := range append(cmds, []string{"PING", token}) {
		w.Array(len(args))
		for _, a := range args {
			w.BulkString(a)
		}
	}
	p.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := p.c.Write(w.B); err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for {
		f := p.frame(t)
		if isPong(f, token) {
			return frames
		}
		frames = append(frames, f)
	}
}

// isPong reports whether f is PING token's reply: a bulk, or RESP2's
// subscribed-mode ["pong", token].
func isPong(f []byte, token string) bool {
	v, _, _ := resp.ReadReply(f)
	switch {
	case v.Type == '$':
		return string(v.Str) == token
	case v.Type == '*' && len(v.Elems) == 2:
		return string(v.Elems[0].Str) == "pong" && string(v.Elems[1].Str) == token
	}
	return false
}

// canonicalPS puts what a connection received in an order both servers
// agree on where Redis leaves it to its hash tables: the confirmations
// of an UNSUBSCRIBE of everything (names sorted, counts kept in order),
// the pmessages of one publish (sorted), PUBSUB CHANNELS-like lists
// (sorted).
func canonicalPS(cmd []string, frames [][]byte) string {
	name := strings.ToUpper(cmd[0])
	var b strings.Builder
	if len(cmd) == 1 && strings.HasSuffix(name, "UNSUBSCRIBE") {
		var names, rest []string
		for _, f := range frames {
			v, _, _ := resp.ReadReply(f)
			if len(v.Elems) == 3 && strings.HasSuffix(string(v.Elems[0].Str), "unsubscribe") {
				names = append(names, string(v.Elems[1].Str))
				rest = append(rest, fmt.Sprint(v.Elems[0].Type, string(v.Elems[0].Str), v.Elems[2].Int, v.Type))
			} else {
				rest = append(rest, fmt.Sprintf("%q", f))
			}
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "%q %q", names, rest)
		return b.String()
	}
	if name == "PUBSUB" && len(cmd) > 1 && strings.HasSuffix(strings.ToUpper(cmd[1]), "CHANNELS") && len(frames) > 0 {
		v, _, _ := resp.ReadReply(frames[0])
		var names []string
		for _, e := range v.Elems {
			names = append(names, string(e.Str))
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "%c%q %q", v.Type, names, frames[1:])
		return b.String()
	}
	out := slices.Clone(frames)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && isPMessage(out[i]) && isPMessage(out[j]) && samePublish(out[i], out[j]) {
			j++
		}
		slices.SortFunc(out[i:j], bytes.Compare)
		i = j
	}
	fmt.Fprintf(&b, "%q", out)
	return b.String()
}

func isPMessage(f []byte) bool {
	v, _, _ := resp.ReadReply(f)
	return len(v.Elems) == 4 && string(v.Elems[0].Str) == "pmessage"
}

// samePublish reports whether two pmessages carry the same channel and
// message.
func samePublish(a, b []byte) bool {
	va, _, _ := resp.ReadReply(a)
	vb, _, _ := resp.ReadReply(b)
	return string(va.Elems[2].Str) == string(vb.Elems[2].Str) && string(va.Elems[3].Str) == string(vb.Elems[3].Str)
}

// psCommand draws one Pub/Sub command: (un)subscriptions to a few
// channels, patterns and sharded channels (spread over the shards),
// publishes, introspection, and commands subscribed mode refuses.
func psCommand(rng *rand.Rand, msg int) []string {
	chans := []string{"news", "news.eu", "news.us", "sport", "a", "b{x}", "c{y}", "hello", "hallo"}
	pats := []string{"news.*", "*", "h?llo", "h[ae]llo", "news*", "[a-c]*", "sport"}
	pick := func(from []string, lo, hi int) []string {
		n := lo + rng.IntN(hi-lo+1)
		out := make([]string, n)
		for i := range out {
			out[i] = from[rng.IntN(len(from))]
		}
		return out
	}
	m := fmt.Sprintf("m%d", msg)
	switch r := rng.IntN(100); {
	case r < 12:
		return append([]string{"SUBSCRIBE"}, pick(chans, 1, 3)...)
	case r < 18:
		return append([]string{"UNSUBSCRIBE"}, pick(chans, 0, 2)...)
	case r < 26:
		return append([]string{"PSUBSCRIBE"}, pick(pats, 1, 2)...)
	case r < 30:
		return append([]string{"PUNSUBSCRIBE"}, pick(pats, 0, 2)...)
	case r < 36:
		return append([]string{"SSUBSCRIBE"}, pick(chans, 1, 2)...)
	case r < 40:
		return append([]string{"SUNSUBSCRIBE"}, pick(chans, 0, 2)...)
	case r < 65:
		return []string{"PUBLISH", chans[rng.IntN(len(chans))], m}
	case r < 75:
		return []string{"SPUBLISH", chans[rng.IntN(len(chans))], m}
	case r < 78:
		return []string{"PUBSUB", "CHANNELS"}
	case r < 80:
		return []string{"PUBSUB", "CHANNELS", pats[rng.IntN(len(pats))]}
	case r < 83:
		return append([]string{"PUBSUB", "NUMSUB"}, pick(chans, 0, 3)...)
	case r < 85:
		return []string{"PUBSUB", "NUMPAT"}
	case r < 87:
		return []string{"PUBSUB", "SHARDCHANNELS"}
	case r < 89:
		return append([]string{"PUBSUB", "SHARDNUMSUB"}, pick(chans, 0, 3)...)
	case r < 92:
		return []string{"PING"}
	case r < 95:
		return []string{"SET", "k", m}
	case r < 97:
		return []string{"GET", "k"}
	default:
		return []string{"RESET"}
	}
}

// pubsubAgainstRedis runs a random stream of Pub/Sub commands from
// several connections (RESP proto) against both servers, one command at a
// time, and after each compares what every connection received.
func pubsubAgainstRedis(t *testing.T, addr, ref string, proto int) {
	const conns, steps = 8, 600
	var a, b []*psConn
	for range conns {
		a, b = append(a, dialPS(t, addr, proto)), append(b, dialPS(t, ref, proto))
	}
	rng := rand.New(rand.NewPCG(uint64(proto), 7))
	var history []string
	for step := range steps {
		i := rng.IntN(conns)
		cmd := psCommand(rng, step)
		history = append(history, fmt.Sprintf("conn %d: %s", i, strings.Join(cmd, " ")))
		if cmd[0] == "RESET" && proto == 3 {
			cmd = []string{"UNSUBSCRIBE"} // RESET would turn the connection to RESP2
		}
		got, want := canonicalPS(cmd, a[i].do(t, cmd)), canonicalPS(cmd, b[i].do(t, cmd))
		if got != want {
			t.Fatalf("after\n  %s\nradish: %s\nredis:  %s", strings.Join(history[max(0, len(history)-40):], "\n  "), got, want)
		}
		// Every other connection: what it received meanwhile.
		for j := range conns {
			if j == i {
				continue
			}
			got, want := canonicalPS([]string{"PING"}, a[j].do(t)), canonicalPS([]string{"PING"}, b[j].do(t))
			if got != want {
				t.Fatalf("after\n  %s\nconn %d received\nradish: %s\nredis:  %s",
					strings.Join(history[max(0, len(history)-40):], "\n  "), j, got, want)
			}
		}
	}
}

// TestPubSubInMultiAgainstRedis: PUBLISH, SPUBLISH, SUBSCRIBE and
// UNSUBSCRIBE queued in MULTI run in EXEC as in Redis: the publish counts
// every shard's receivers, the subscription takes (RESP2 subscribed mode
// follows). The PUBSUB introspection subcommands count the subscribers of
// every shard (8 connections over 3 shards), and SSUBSCRIBE is refused
// with Redis's text. A message to the EXEC's own connection comes in the
// middle of EXEC's array, before the PUBLISH's reply.
func TestPubSubInMultiAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	for _, proto := range []int{2, 3} {
		var a, b []*psConn
		for range 8 {
			a, b = append(a, dialPS(t, s.addr, proto)), append(b, dialPS(t, ref, proto))
		}
		// A step's commands go in one write, MULTI to EXEC (a PING inside
		// MULTI would be queued), then every connection syncs.
		steps := []struct {
			conn int
			cmds [][]string
		}{
			{1, [][]string{{"SUBSCRIBE", "ch"}}}, {2, [][]string{{"SUBSCRIBE", "ch"}}}, {3, [][]string{{"SSUBSCRIBE", "sch"}}},
			{0, [][]string{{"MULTI"}, {"PUBLISH", "ch", "x"}, {"SPUBLISH", "sch", "y"}, {"SUBSCRIBE", "mine"}, {"EXEC"}}},
			{1, [][]string{{"UNSUBSCRIBE", "ch"}}},
			{1, [][]string{{"MULTI"}, {"PUBLISH", "mine", "z"}, {"PUBLISH", "ch", "w"}, {"EXEC"}}},
			{0, [][]string{{"UNSUBSCRIBE"}}},
			// Keys on several shards: the commands without keys still run
			// in their place (NUMSUB counts the subscription before it).
			{0, [][]string{{"MULTI"}, {"SET", "k1", "1"}, {"SET", "k2", "2"}, {"SET", "k3", "3"}, {"SET", "k4", "4"},
				{"SUBSCRIBE", "me2"}, {"PUBSUB", "NUMSUB", "me2"}, {"MSET", "k5", "5", "k6", "6"}, {"EXEC"}}},
			{0, [][]string{{"UNSUBSCRIBE"}}},
			{4, [][]string{{"SUBSCRIBE", "ch", "cx"}}}, {5, [][]string{{"SUBSCRIBE", "ch"}}},
			{6, [][]string{{"PSUBSCRIBE", "c*", "q*"}}}, {7, [][]string{{"PSUBSCRIBE", "c*"}}},
			{7, [][]string{{"SSUBSCRIBE", "sch2"}}}, {5, [][]string{{"SSUBSCRIBE", "sch"}}},
			{0, [][]string{{"MULTI"}, {"PUBSUB", "NUMSUB", "ch", "cx", "mine", "nope"}, {"PUBSUB", "NUMPAT"},
				{"PUBSUB", "SHARDNUMSUB", "sch", "sch2", "x"}, {"PUBSUB", "NUMSUB"}, {"PUBSUB", "CHANNELS", "c[xy]"},
				{"PUBSUB", "SHARDCHANNELS", "sch?"}, {"PUBSUB", "CHANNELS", "a", "b"}, {"SSUBSCRIBE", "z"},
				{"PUBLISH", "cx", "v"}, {"EXEC"}}},
			{5, [][]string{{"UNSUBSCRIBE"}}}, {7, [][]string{{"PUNSUBSCRIBE"}}},
			{5, [][]string{{"MULTI"}, {"SUNSUBSCRIBE", "sch", "other"}, {"PUBSUB", "SHARDNUMSUB", "sch"}, {"SUNSUBSCRIBE"}, {"EXEC"}}},
			{7, [][]string{{"MULTI"}, {"SUNSUBSCRIBE"}, {"PUBSUB", "SHARDNUMSUB", "sch2"}, {"EXEC"}}},
			// Messages to the EXEC's own connection go in the middle of
			// its array, before the PUBLISH's reply (RESP2 as well, where
			// a client cannot parse it; a RESP2 subscriber's MULTI is
			// refused).
			{0, [][]string{{"MULTI"}, {"SUBSCRIBE", "self"}, {"PUBLISH", "self", "a"}, {"SET", "k1", "v"},
				{"SPUBLISH", "self", "s"}, {"PUBLISH", "self", "b"}, {"EXEC"}}},
			{0, [][]string{{"MULTI"}, {"PUBLISH", "self", "c"}, {"SET", "k2", "v"}, {"PUBLISH", "self", "d"}, {"EXEC"}}},
			{0, [][]string{{"MULTI"}, {"SET", "k1", "v"}, {"PUBLISH", "self", "e"}, {"EXEC"}}},
			{0, [][]string{{"UNSUBSCRIBE"}}},
		}
		for _, st := range steps {
			got, want := canonicalPS(st.cmds[0], a[st.conn].do(t, st.cmds...)), canonicalPS(st.cmds[0], b[st.conn].do(t, st.cmds...))
			if got != want {
				t.Fatalf("RESP%d conn %d %v:\nradish: %s\nredis:  %s", proto, st.conn, st.cmds, got, want)
			}
			for j := range a {
				if got, want := canonicalPS([]string{"PING"}, a[j].do(t)), canonicalPS([]string{"PING"}, b[j].do(t)); got != want {
					t.Fatalf("RESP%d after conn %d %v, conn %d received\nradish: %s\nredis:  %s", proto, st.conn, st.cmds, j, got, want)
				}
			}
		}
	}
}

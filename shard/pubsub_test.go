package shard

import (
	"slices"
	"testing"

	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/pubsub"
)

func encode(cmds ...[]string) []byte {
	var w resp.Writer
	for _, cmd := range cmds {
		w.Array(len(cmd))
		for _, a := range cmd {
			w.BulkString(a)
		}
	}
	return w.B
}

// pubsubSim has a publisher on shard 0, a subscriber of channel "ch" on
// each of the two shards, and one of the pattern "c*" on shard 1.
func pubsubSim(t *testing.T) (m *sim, pub, near, far, pat *simConn) {
	m = newSim(t, 2, 1)
	pub, near, far, pat = m.dial(0), m.dial(0), m.dial(1), m.dial(1)
	for _, c := range []*simConn{near, far} {
		m.drv[c.shard].in[c.id] = encode([]string{"SUBSCRIBE", "ch"})
		m.g.shards[c.shard].OnData(c.id)
	}
	m.drv[1].in[pat.id] = encode([]string{"PSUBSCRIBE", "c*"})
	m.g.shards[1].OnData(pat.id)
	for _, c := range []*simConn{near, far, pat} {
		*m.drv[c.shard].Output(c.id) = (*m.drv[c.shard].Output(c.id))[:0]
	}
	return m, pub, near, far, pat
}

// TestPublishAcrossShards: a PUBLISH reaches the subscribers of both
// shards, channel and pattern, with one batch to the other shard for a
// pipeline of publishes, in order; its reply counts every receiver once
// the other shard answered.
func TestPublishAcrossShards(t *testing.T) {
	m, pub, near, far, pat := pubsubSim(t)
	home, other := m.g.shards[0], m.g.shards[1]
	m.drv[0].in[pub.id] = encode([]string{"PUBLISH", "ch", "one"}, []string{"PUBLISH", "ch", "two"},
		[]string{"PUBLISH", "cx", "x"})
	home.OnData(pub.id)
	if n := len(home.outbox[1]); n != 1 {
		t.Fatalf("%d messages to the other shard for three publishes, want one batch", n)
	}
	if out := *m.drv[0].Output(pub.id); len(out) != 0 {
		t.Fatalf("replies before the other shard counted: %q", out)
	}
	home.flushOutbox()
	other.Turn(m.now)
	other.flushOutbox()
	home.Turn(m.now)
	if got, want := string(*m.drv[0].Output(pub.id)), ":3\r\n:3\r\n:1\r\n"; got != want {
		t.Fatalf("publish replies %q, want %q", got, want)
	}
	msg := func(ch, m string) string { return "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$3\r\n" + m + "\r\n" }
	pmsg := func(m string) string {
		return "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$3\r\n" + m + "\r\n"
	}
	for _, c := range []*simConn{near, far} {
		if got, want := string(*m.drv[c.shard].Output(c.id)), msg("ch", "one")+msg("ch", "two"); got != want {
			t.Errorf("subscriber on shard %d got %q, want %q", c.shard, got, want)
		}
	}
	cx := "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\ncx\r\n$1\r\nx\r\n"
	if got, want := string(*m.drv[1].Output(pat.id)), pmsg("one")+pmsg("two")+cx; got != want {
		t.Errorf("pattern subscriber got %q, want %q", got, want)
	}
}

// TestPublishAllocs: once the pools and buffers have grown, a PUBLISH to
// subscribers on both shards allocates nothing: not the batch, not the
// wait for the count, not the frames.
func TestPublishAllocs(t *testing.T) {
	m, pub, near, far, pat := pubsubSim(t)
	home, other := m.g.shards[0], m.g.shards[1]
	req := encode([]string{"PUBLISH", "ch", "hello"})
	run := func() {
		m.drv[0].in[pub.id] = req
		home.OnData(pub.id)
		home.flushOutbox()
		other.Turn(m.now)
		other.flushOutbox()
		home.Turn(m.now)
		for _, c := range []*simConn{pub, near, far, pat} {
			out := m.drv[c.shard].Output(c.id)
			if len(*out) == 0 {
				t.Fatalf("connection %d got nothing", c.id)
			}
			*out = (*out)[:0]
		}
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Fatalf("%.1f allocations per publish", n)
	}
}

// TestSubscribedMode: a RESP2 subscriber may run only the (un)subscribe
// commands, PING (whose reply is then an array), QUIT and RESET; once it
// left every channel it is a normal client again.
func TestSubscribedMode(t *testing.T) {
	m := newSim(t, 1, 1)
	c := m.dial(0)
	s := m.g.shards[0]
	m.drv[0].in[c.id] = encode([]string{"SUBSCRIBE", "a"}, []string{"GET", "k"}, []string{"PING"},
		[]string{"UNSUBSCRIBE"}, []string{"PING"})
	s.OnData(c.id)
	want := "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n" +
		"-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n" +
		"*2\r\n$4\r\npong\r\n$0\r\n\r\n" +
		"*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n+PONG\r\n"
	if got := string(*m.drv[0].Output(c.id)); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if s.conns[c.id].subscribed() {
		t.Fatal("still subscribed")
	}
}

// TestPublishRuns: a pipeline of publishes reaches the subscribers of
// both shards in order as runs (pubrun.go): consecutive publishes to one
// channel together, one to another channel or another command between
// them ending the run, RESP2 and RESP3 subscribers each in their own
// protocol, and every reply counts the subscribers.
func TestPublishRuns(t *testing.T) {
	m := newSim(t, 2, 1)
	pub := m.dial(0)
	type sub struct {
		c     *simConn
		proto int
		chans []string
	}
	subs := []sub{
		{m.dial(0), 2, []string{"ch", "other"}}, {m.dial(0), 3, []string{"ch"}},
		{m.dial(1), 2, []string{"ch", "other"}}, {m.dial(1), 3, []string{"ch"}},
	}
	for _, s := range subs {
		cmds := [][]string{{"HELLO", "3"}}
		if s.proto == 2 {
			cmds = nil
		}
		cmds = append(cmds, append([]string{"SUBSCRIBE"}, s.chans...))
		m.drv[s.c.shard].in[s.c.id] = encode(cmds...)
		m.g.shards[s.c.shard].OnData(s.c.id)
		*m.drv[s.c.shard].Output(s.c.id) = (*m.drv[s.c.shard].Output(s.c.id))[:0]
	}
	pubs := [][2]string{{"ch", "1"}, {"ch", "2"}, {"other", "3"}, {"ch", "4"}, {"", ""}, {"ch", "5"}, {"ch", "6"}}
	var cmds [][]string
	wantReplies := ""
	for _, p := range pubs {
		if p[0] == "" {
			cmds = append(cmds, []string{"PING"})
			wantReplies += "+PONG\r\n"
			continue
		}
		cmds = append(cmds, []string{"PUBLISH", p[0], p[1]})
		wantReplies += map[string]string{"ch": ":4\r\n", "other": ":2\r\n"}[p[0]]
	}
	home, other := m.g.shards[0], m.g.shards[1]
	m.drv[0].in[pub.id] = encode(cmds...)
	home.OnData(pub.id)
	home.flushOutbox()
	other.Turn(m.now)
	other.flushOutbox()
	home.Turn(m.now)
	if got := string(*m.drv[0].Output(pub.id)); got != wantReplies {
		t.Errorf("publisher got %q, want %q", got, wantReplies)
	}
	for _, s := range subs {
		var want []byte
		for _, p := range pubs {
			if p[0] != "" && slices.Contains(s.chans, p[0]) {
				want = pubsub.AppendMessage(want, s.proto, pubsub.Channel, []byte(p[0]), []byte(p[1]))
			}
		}
		if got := string(*m.drv[s.c.shard].Output(s.c.id)); got != string(want) {
			t.Errorf("RESP%d subscriber of %v on shard %d got %q, want %q", s.proto, s.chans, s.c.shard, got, want)
		}
	}
}

// TestPublishJoins: consecutive PUBLISHes of a pipeline to one channel
// with subscribers on another shard share one wait and one reply slot
// (joinWait), each still answered with its own count; a CLIENT REPLY SKIP
// between them leaves the skipped publish its own wait, without a reply,
// and the next one starts another.
func TestPublishJoins(t *testing.T) {
	m, pub, near, far, _ := pubsubSim(t)
	home, other := m.g.shards[0], m.g.shards[1]
	m.drv[0].in[pub.id] = encode([]string{"PUBLISH", "ch", "1"}, []string{"PUBLISH", "ch", "2"},
		[]string{"CLIENT", "REPLY", "SKIP"}, []string{"PUBLISH", "ch", "3"},
		[]string{"PUBLISH", "ch", "4"}, []string{"PUBLISH", "ch", "5"})
	home.OnData(pub.id)
	if n := len(home.conns[pub.id].queue); n != 4 {
		t.Fatalf("%d reply slots, want 4 (publishes 1+2, CLIENT's, 3, 4+5)", n)
	}
	home.flushOutbox()
	other.Turn(m.now)
	other.flushOutbox()
	home.Turn(m.now)
	if got, want := string(*m.drv[0].Output(pub.id)), ":3\r\n:3\r\n:3\r\n:3\r\n"; got != want {
		t.Fatalf("publish replies %q, want %q", got, want)
	}
	var want []byte
	for _, msg := range []string{"1", "2", "3", "4", "5"} {
		want = pubsub.AppendMessage(want, 2, pubsub.Channel, []byte("ch"), []byte(msg))
	}
	for _, c := range []*simConn{near, far} {
		if got := string(*m.drv[c.shard].Output(c.id)); got != string(want) {
			t.Errorf("subscriber on shard %d got %q, want %q", c.shard, got, want)
		}
	}
}

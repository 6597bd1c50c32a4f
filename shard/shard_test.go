package shard

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

func TestHopsKeepReplyOrder(t *testing.T) {
	m := newSim(t, 4, 1)
	c := m.dial(0)
	var req, want strings.Builder
	for i := range 50 {
		k := fmt.Sprintf("k%d", i)
		fmt.Fprintf(&req, "SET %s %d\r\nGET %s\r\n", k, i, k)
		fmt.Fprintf(&want, "+OK\r\n$%d\r\n%d\r\n", len(fmt.Sprint(i)), i)
	}
	if got := m.do(c, req.String()); got != want.String() {
		t.Fatalf("got %q\nwant %q", got, want.String())
	}
	remote := 0
	for i := range 50 {
		if router.ShardOf([]byte(fmt.Sprintf("k%d", i)), 4) != 0 {
			remote++
		}
	}
	if remote == 0 || m.g.shards[0].stats.hops == 0 {
		t.Fatalf("no key hopped (remote keys %d, hops %d)", remote, m.g.shards[0].stats.hops)
	}
	if info, hops := m.g.Info([]string{"stats"}), m.g.shards[0].stats.hops; !strings.Contains(info, fmt.Sprintf("\r\ncross_shard_hops:%d\r\n", hops)) {
		t.Fatalf("INFO stats does not count %d hops:\n%s", hops, info)
	}
	if got := m.do(c, "MGET k1 k2 nokey k3\r\nDBSIZE\r\n"); got != "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n$1\r\n3\r\n:50\r\n" {
		t.Fatalf("MGET/DBSIZE = %q", got)
	}
}

// TestTxnBlocksConflictingCommands: while a cross-shard txn holds a key,
// a command on it waits and runs after, in arrival order.
func TestTxnBlocksConflictingCommands(t *testing.T) {
	m := newSim(t, 2, 1)
	a := m.g.shards[0]
	ka, kb := keysOn(0, 2, 1)[0], keysOn(1, 2, 1)[0]
	c1 := m.dial(0)
	// Start MSET on shard a, but deliver nothing: the lock on ka (shard a
	// is first in order) is taken in a's turn.
	m.write(c1, fmt.Sprintf("MSET %s 1 %s 1\r\n", ka, kb))
	m.read(c1, true)
	m.turn(0)
	if held, _ := a.locks.Held([]byte(ka)); !held {
		t.Fatalf("txn does not hold %s", ka)
	}
	// A client of shard a writes ka now: it must wait for the MSET.
	c3 := m.dial(0)
	m.write(c3, fmt.Sprintf("SET %s 2\r\n", ka))
	m.read(c3, true)
	m.turn(0)
	if a.locks.Queued() != 1 {
		t.Fatalf("deferred = %d, want 1", a.locks.Queued())
	}
	m.settle()
	if got := m.take(c1); got != "+OK\r\n" {
		t.Fatalf("MSET reply %q", got)
	}
	if got := m.take(c3); got != "+OK\r\n" {
		t.Fatalf("SET reply %q", got)
	}
	if got := m.do(c3, "MGET "+ka+" "+kb+"\r\n"); got != "*2\r\n$1\r\n2\r\n$1\r\n1\r\n" {
		t.Fatalf("after: %q", got)
	}
	m.noneLeft()
}

func TestScanWalksEveryShard(t *testing.T) {
	m := newSim(t, 3, 1)
	c := m.dial(1)
	var req strings.Builder
	for i := range 100 {
		fmt.Fprintf(&req, "SET s:%03d x\r\n", i)
	}
	m.do(c, req.String())
	seen := map[string]bool{}
	cursor := "0"
	for range 1000 {
		out := m.do(c, "SCAN "+cursor+" COUNT 7\r\n")
		lines := strings.Split(out, "\r\n")
		cursor = lines[2]
		for i := 5; i < len(lines); i += 2 {
			if seen[lines[i]] {
				t.Fatalf("duplicate %s", lines[i])
			}
			seen[lines[i]] = true
		}
		if cursor == "0" {
			break
		}
	}
	if len(seen) != 100 {
		t.Fatalf("SCAN saw %d keys", len(seen))
	}
}

// TestLocalPathAllocs: parse + GET/SET + reply of complete commands on
// local keys allocate nothing.
func TestLocalPathAllocs(t *testing.T) {
	m := newSim(t, 1, 1)
	c := m.dial(0)
	s, d := m.g.shards[0], m.drv[0]
	req := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n")
	run := func() {
		d.in[c.id] = req
		s.OnData(c.id)
		out := d.Output(c.id)
		*out = (*out)[:0]
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Fatalf("%.1f allocations per SET+GET", n)
	}
}

// TestHopPathAllocs: a pipeline of SET and GET on a key of the other
// shard, with a local GET behind each hop (its reply waits in a ready
// slot), allocates nothing once the hop pools are warm: not the request,
// not its reply, not the slots, not the messages.
func TestHopPathAllocs(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
	far, near := keysOn(1, 2, 1)[0], keysOn(0, 2, 1)[0]
	var w resp.Writer
	for _, cmd := range [][]string{{"SET", far, "value"}, {"GET", near}, {"GET", far}, {"GET", near}} {
		w.Array(len(cmd))
		for _, a := range cmd {
			w.BulkString(a)
		}
	}
	req := w.B
	want := "+OK\r\n$-1\r\n$5\r\nvalue\r\n$-1\r\n"
	runs := 0
	run := func() {
		runs++
		d.in[c.id] = req
		home.OnData(c.id)
		home.flushOutbox()
		owner.Turn(m.now)
		owner.flushOutbox()
		home.Turn(m.now)
		out := d.Output(c.id)
		if string(*out) != want {
			t.Fatalf("replies %q, want %q", *out, want)
		}
		*out = (*out)[:0]
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Fatalf("%.1f allocations per pipeline of two hops and two local GETs", n)
	}
	if hops := home.stats.hops; hops != int64(2*runs) {
		t.Fatalf("%d hops in %d pipelines, want 2 each", hops, runs)
	}
}

// TestCrossPathAllocs: once the pools are warm, an MSET and an MGET of
// keys on two shards allocate nothing (pooled txns, txnpool.go); and
// pooled txns run one after another, 20 clients at once, answer each
// its own: in each round every client sets the keys to the round's value
// and reads them back, which its MGET must see whole (a reply buffer a
// later txn reused would show another round's or a torn one).
func TestCrossPathAllocs(t *testing.T) {
	keys := crossKeys(3)
	mget := cmd(append([]string{"MGET"}, keys...)...)
	mset := func(v string) string {
		args := []string{"MSET"}
		for _, k := range keys {
			args = append(args, k, v)
		}
		return cmd(args...)
	}
	m := newSim(t, 2, 1)
	c := m.dial(0)
	req := []byte(mset("v") + mget)
	var w resp.Writer
	w.Array(len(keys))
	for range keys {
		w.BulkString("v")
	}
	want := "+OK\r\n" + string(w.B)
	run := func() { untilReplies(t, m, c, req, want) }
	run()
	if n := testing.AllocsPerRun(200, run); n != 0 {
		t.Fatalf("%.1f allocations per cross-shard MSET and MGET", n)
	}

	r := newRounds(t, nil, 20)
	r.keep = true
	for round := range 30 {
		v := strings.Repeat(strconv.Itoa(round), 1+round%7) // replies of several sizes
		r.run(mset(v)+mget, 2)
		var w resp.Writer
		w.Array(len(keys))
		for range keys {
			w.BulkString(v)
		}
		want := "+OK\r\n" + string(w.B)
		for i, got := range r.outs {
			if got != want {
				t.Fatalf("round %d, client %d: %q, want %q", round, i, got, want)
			}
		}
	}
}

// TestExecBuffersReused: an EXEC reuses the buffers of the shard's last
// one (newExec, alone, runCmds, assemble). Once warm, an EXEC whose keys
// all live on the other shard allocates at most its parts' keys and
// their names; and EXECs of 20 clients at once, on one other shard or
// over both, round after round, answer each its own: every client sets
// the keys to the round's value and reads them back inside its EXEC.
func TestExecBuffersReused(t *testing.T) {
	exec := func(keys []string, v string) string {
		req := cmd("MULTI")
		for _, k := range keys {
			req += cmd("SET", k, v)
		}
		for _, k := range keys {
			req += cmd("GET", k)
		}
		return req + cmd("EXEC")
	}
	want := func(keys []string, v string) string {
		w := resp.Writer{}
		w.Simple("OK")
		for range 2 * len(keys) {
			w.Simple("QUEUED")
		}
		w.Array(2 * len(keys))
		for range keys {
			w.Simple("OK")
		}
		for range keys {
			w.BulkString(v)
		}
		return string(w.B)
	}
	far := keysOn(1, 2, 2)
	m := newSim(t, 2, 1)
	c := m.dial(0)
	req, reply := []byte(exec(far, "v")), want(far, "v")
	run := func() { untilReplies(t, m, c, req, reply) }
	run()
	if n := testing.AllocsPerRun(200, run); n > 2 {
		t.Fatalf("%.1f allocations per EXEC on the other shard, want at most 2", n)
	}

	for _, keys := range [][]string{far, crossKeys(1)} {
		r := newRounds(t, nil, 20)
		r.keep = true
		for round := range 30 {
			v := strings.Repeat(strconv.Itoa(round), 1+round%7)
			r.run(exec(keys, v), 2+2*len(keys))
			for i, got := range r.outs {
				if w := want(keys, v); got != w {
					t.Fatalf("keys %q, round %d, client %d: %q, want %q", keys, round, i, got, w)
				}
			}
		}
	}
}

// TestTxnPoolsKeepNoBigReply: the txns the free lists keep hold no reply
// buffer past maxTxnBuf, after a cross-shard MGET and an EXEC on the other
// shard whose replies were bigger, and no exported value, after a RENAME
// to the other shard (the gather plan).
func TestTxnPoolsKeepNoBigReply(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	big := strings.Repeat("x", 2*maxTxnBuf)
	keys := crossKeys(1)
	for _, k := range keys {
		m.do(c, cmd("SET", k, big))
	}
	if got := m.do(c, cmd("MGET", keys[0], keys[1])); !strings.Contains(got, big) {
		t.Fatalf("MGET: %.40q", got)
	}
	m.do(c, cmd("MULTI"))
	m.do(c, cmd("GET", keys[1]))
	if got := m.do(c, cmd("EXEC")); !strings.Contains(got, big) {
		t.Fatalf("EXEC: %.40q", got)
	}
	if got := m.do(c, cmd("RENAME", keys[0], keysOn(1, 2, 2)[1])); got != "+OK\r\n" { // to the other shard
		t.Fatalf("RENAME: %q", got)
	}
	home := m.g.shards[0]
	if len(home.txns) == 0 || len(home.execs) == 0 {
		t.Fatalf("%d pooled txns, %d EXECs kept", len(home.txns), len(home.execs))
	}
	for _, tx := range home.txns {
		for _, pm := range tx.pms[:cap(tx.pms)] { // emptied, its array kept
			if bigReply(pm.reply) {
				t.Errorf("a pooled txn keeps a reply of %d bytes", cap(pm.reply))
			}
			for _, e := range pm.entries[:cap(pm.entries)] {
				if e.key != nil || e.ok {
					t.Errorf("a pooled txn keeps the export of %q", e.key)
				}
			}
		}
	}
	for _, tx := range home.execs {
		for _, ep := range tx.eps {
			for _, r := range ep.replies {
				if bigReply(r) {
					t.Errorf("a kept EXEC keeps a reply of %d bytes", cap(r))
				}
			}
		}
	}
}

// untilReplies sends req on c and turns every shard, each after handing
// its outbox over, until c's output is want (which it then empties);
// allocating nothing of its own.
func untilReplies(t testing.TB, m *sim, c *simConn, req []byte, want string) {
	d := m.drv[c.shard]
	d.in[c.id] = req
	m.g.shards[c.shard].OnData(c.id)
	out := d.Output(c.id)
	for i := 0; string(*out) != want; i++ {
		if i == 100 {
			t.Fatalf("replies %q, want %q", *out, want)
		}
		for _, s := range m.g.shards {
			s.flushOutbox()
			s.Turn(m.now)
		}
	}
	*out = (*out)[:0]
}

// keysOn returns n keys that live on shard i of n shards.
func keysOn(i, shards, n int) []string {
	var out []string
	for j := 0; len(out) < n; j++ {
		k := fmt.Sprintf("key%d", j)
		if router.ShardOf([]byte(k), shards) == i {
			out = append(out, k)
		}
	}
	return out
}

// noneLeft fails when a shard kept locks, deferred work or waiters.
func (m *sim) noneLeft() {
	m.t.Helper()
	for _, s := range m.g.shards {
		if !s.locks.Idle() || len(s.waiters) > 0 {
			m.t.Fatalf("shard %d left locks (%d queued), waiters %v", s.id, s.locks.Queued(), s.waiters)
		}
	}
}

// TestGatherAcrossShards: single-reply commands whose keys live on different
// shards run with their single-shard handler, atomically.
func TestGatherAcrossShards(t *testing.T) {
	m := newSim(t, 3, 1)
	conn := m.dial(0)
	a, b, c := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0], keysOn(0, 3, 1)[0]
	sa, sb := keysOn(1, 3, 2)[1], keysOn(2, 3, 2)[1]
	cases := []struct{ req, want string }{
		{"SET " + a + " hello\r\n", "+OK\r\n"},
		{"EXPIRE " + a + " 1000\r\n", ":1\r\n"},
		{"RENAME " + a + " " + b + "\r\n", "+OK\r\n"},
		{"EXISTS " + a + "\r\n", ":0\r\n"},
		{"GET " + b + "\r\n", "$5\r\nhello\r\n"},
		{"TTL " + b + "\r\n", ":1000\r\n"},
		{"RENAMENX " + b + " " + c + "\r\n", ":1\r\n"},
		{"SET " + b + " other\r\n", "+OK\r\n"},
		{"RENAMENX " + c + " " + b + "\r\n", ":0\r\n"},
		{"COPY " + c + " " + a + " DB 2\r\n", ":1\r\n"},
		{"COPY " + c + " " + a + " DB 2\r\n", ":0\r\n"},
		{"SELECT 2\r\nGET " + a + "\r\nSELECT 0\r\n", "+OK\r\n$5\r\nhello\r\n+OK\r\n"},
		{"RENAME nosuch " + a + "\r\n", "-ERR no such key\r\n"},
		{"MSETNX " + a + " 1 " + b + " 2\r\n", ":0\r\n"},
		{"MSETNX " + a + " 1 new" + b + " 2\r\n", ":1\r\n"},
		{"MGET " + a + " new" + b + "\r\n", "*2\r\n$1\r\n1\r\n$1\r\n2\r\n"},
		// COPY ... DB n reads its source in the client's database and its
		// destination only in n.
		{"SET " + b + " old0\r\n", "+OK\r\n"},
		{"COPY " + c + " " + b + " DB 3\r\n", ":1\r\n"},
		{"COPY " + c + " " + b + " DB 3\r\n", ":0\r\n"},
		{"SELECT 3\r\nSET " + c + " x\r\nSELECT 0\r\n", "+OK\r\n+OK\r\n+OK\r\n"},
		{"COPY " + c + " " + b + " DB 3 REPLACE\r\n", ":1\r\n"},
		{"GET " + b + "\r\nSELECT 3\r\nGET " + b + "\r\nGET " + c + "\r\nSELECT 0\r\n",
			"$4\r\nold0\r\n+OK\r\n$5\r\nhello\r\n$1\r\nx\r\n+OK\r\n"},
		// Only the keys the command changed are written back: SMOVE of a
		// member the destination has leaves it untouched (its WATCH holds).
		{"SADD " + sa + " m x\r\nSADD " + sb + " m\r\n", ":2\r\n:1\r\n"},
		{"WATCH " + sb + "\r\nSMOVE " + sa + " " + sb + " m\r\nMULTI\r\nPING\r\nEXEC\r\n",
			"+OK\r\n:1\r\n+OK\r\n+QUEUED\r\n*1\r\n+PONG\r\n"},
		{"WATCH " + sb + "\r\nSMOVE " + sa + " " + sb + " x\r\nMULTI\r\nPING\r\nEXEC\r\n",
			"+OK\r\n:1\r\n+OK\r\n+QUEUED\r\n*-1\r\n"},
		{"SMEMBERS " + sa + "\r\nSCARD " + sb + "\r\n", "*0\r\n:2\r\n"},
	}
	for _, tc := range cases {
		if got := m.do(conn, tc.req); got != tc.want {
			t.Fatalf("%q: got %q want %q", tc.req, got, tc.want)
		}
	}
	m.noneLeft()
}

// TestBlockingAcrossShards: BLPOP on keys of two shards wakes on the
// first push to either; each element goes to one waiter, FIFO; timeouts,
// disconnects and CLIENT UNBLOCK end the wait.
func TestBlockingAcrossShards(t *testing.T) {
	m := newSim(t, 3, 1)
	k1, k2 := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
	c := make([]*simConn, 5)
	for i := 1; i <= 4; i++ {
		c[i] = m.dial(0)
	}
	// Two waiters on both keys, in order.
	if got := m.do(c[1], "BLPOP "+k1+" "+k2+" 0\r\n"); got != "" {
		t.Fatalf("BLPOP replied at once: %q", got)
	}
	if got := m.do(c[2], "BLPOP "+k2+" "+k1+" 0\r\n"); got != "" {
		t.Fatalf("second BLPOP replied at once: %q", got)
	}
	// A command behind a blocked one waits with it.
	if got := m.do(c[1], "PING\r\n"); got != "" {
		t.Fatalf("blocked client answered PING: %q", got)
	}
	if got := m.do(c[3], "RPUSH "+k2+" a b c\r\n"); got != ":3\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	want1 := fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$1\r\na\r\n+PONG\r\n", len(k2), k2)
	want2 := fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$1\r\nb\r\n", len(k2), k2)
	if got := m.take(c[1]); got != want1 {
		t.Fatalf("first waiter got %q want %q", got, want1)
	}
	if got := m.take(c[2]); got != want2 {
		t.Fatalf("second waiter got %q want %q", got, want2)
	}
	if got := m.do(c[3], "LRANGE "+k2+" 0 -1\r\n"); got != "*1\r\n$1\r\nc\r\n" {
		t.Fatalf("left over %q", got)
	}
	// Timeout.
	if got := m.do(c[1], "BLPOP "+k1+" 0.01\r\n"); got != "" {
		t.Fatalf("BLPOP with timeout replied at once: %q", got)
	}
	m.tick(20 * time.Millisecond)
	if got := m.take(c[1]); got != "*-1\r\n" {
		t.Fatalf("timeout reply %q", got)
	}
	// Disconnect while blocked: the next push is not lost.
	m.do(c[4], "BLPOP "+k1+" 0\r\n")
	m.hangup(c[4])
	m.settle()
	if got := m.do(c[3], "LPUSH "+k1+" x\r\n"); got != ":1\r\n" {
		t.Fatalf("LPUSH = %q", got)
	}
	if got := m.do(c[3], "LLEN "+k1+"\r\n"); got != ":1\r\n" {
		t.Fatalf("element lost to a closed client: LLEN = %q", got)
	}
	// CLIENT UNBLOCK.
	m.do(c[2], "BLPOP nokey{"+k2+"} 0\r\n")
	if got := m.do(c[3], "CLIENT UNBLOCK 2 ERROR\r\n"); got != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK = %q", got)
	}
	if got := m.take(c[2]); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("unblocked reply %q", got)
	}
	m.noneLeft()
}

// TestBlockingMoveAcrossShards: BLMOVE whose source and destination live
// on different shards waits on the source and moves atomically.
func TestBlockingMoveAcrossShards(t *testing.T) {
	m := newSim(t, 3, 1)
	src, dst := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
	c1, c2 := m.dial(0), m.dial(0)
	if got := m.do(c1, "BLMOVE "+src+" "+dst+" LEFT RIGHT 0\r\n"); got != "" {
		t.Fatalf("BLMOVE replied at once: %q", got)
	}
	if got := m.do(c2, "RPUSH "+src+" a b\r\n"); got != ":2\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	if got := m.take(c1); got != "$1\r\na\r\n" {
		t.Fatalf("BLMOVE reply %q", got)
	}
	if got := m.do(c2, "LRANGE "+src+" 0 -1\r\nLRANGE "+dst+" 0 -1\r\n"); got != "*1\r\n$1\r\nb\r\n*1\r\n$1\r\na\r\n" {
		t.Fatalf("after BLMOVE: %q", got)
	}
	// With data already there it moves at once; an empty source times out.
	if got := m.do(c1, "BLMOVE "+src+" "+dst+" LEFT RIGHT 0\r\n"); got != "$1\r\nb\r\n" {
		t.Fatalf("BLMOVE with data = %q", got)
	}
	m.do(c1, "BLMOVE "+src+" "+dst+" LEFT RIGHT 0.01\r\n")
	m.tick(20 * time.Millisecond)
	if got := m.take(c1); got != "*-1\r\n" {
		t.Fatalf("timeout reply %q", got)
	}
	m.noneLeft()
}

// TestReadersShareLocks: two cross-shard MGETs on the same keys hold them
// together (shared intent) instead of one waiting for the other; an MSET
// of them waits for both (its request queued on shard 0, behind them),
// and every txn takes its locks in one parallel round when nothing
// conflicts.
func TestReadersShareLocks(t *testing.T) {
	m := newSim(t, 2, 1)
	a := m.g.shards[0]
	ka, kb := keysOn(0, 2, 1)[0], keysOn(1, 2, 1)[0]
	c := []*simConn{m.dial(0), m.dial(0), m.dial(0)}
	m.write(c[0], resp2("MGET "+ka+" "+kb))
	m.write(c[1], resp2("MGET "+kb+" "+ka))
	m.write(c[2], resp2("MSET "+ka+" 1 "+kb+" 2"))
	for _, cn := range c {
		m.read(cn, true)
	}
	m.turn(0) // the reads, and the try round's requests to shard 0 itself
	held, excl := a.locks.Held([]byte(ka))
	if !held || excl || a.locks.Queued() != 1 {
		t.Fatalf("after both MGETs' try round: held %v exclusive %v queued %d", held, excl, a.locks.Queued())
	}
	m.settle()
	want := []string{"*2\r\n$-1\r\n$-1\r\n", "*2\r\n$-1\r\n$-1\r\n", "+OK\r\n"}
	for i, w := range want {
		if got := m.take(c[i]); got != w {
			t.Fatalf("client %d: %q, want %q", i, got, w)
		}
	}
	m.noneLeft()
}

// TestBenchTags: benchmarks/hop.sh's hash tags land where it says, {d} on
// shard 0 of 2 and {a} on shard 1.
func TestBenchTags(t *testing.T) {
	for tag, want := range map[string]int{"{d}:1": 0, "{a}:1": 1} {
		if got := router.ShardOf([]byte(tag), 2); got != want {
			t.Errorf("%s is on shard %d of 2, hop.sh wants %d", tag, got, want)
		}
	}
}

// TestWarmHops: the owner warms the first key of each hop request of an
// inbox batch, PrefetchMax at a time, on the first request's database,
// and not at all for a batch on one key.
func TestWarmHops(t *testing.T) {
	m := newSim(t, 2, 1)
	owner := m.g.shards[1]
	keys := keysOn(1, 2, 40)
	c := m.dial(0)
	var req strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&req, "SET %s v\r\n", k)
	}
	m.do(c, req.String())
	hop := func(db int, args ...string) message {
		h := &hopMsg{db: db}
		h.setArgs(toBytes(args))
		h.spec, _ = owner.cmds.Resolve(h.args)
		return message{kind: msgHop, hop: h}
	}
	var batch []message
	for _, k := range keys {
		batch = append(batch, hop(0, "GET", k))
	}
	if seen, warmed := owner.warmHops(batch); seen != engine.PrefetchMax || warmed != engine.PrefetchMax {
		t.Fatalf("40 GETs: looked at %d, warmed %d; want %d, %d", seen, warmed, engine.PrefetchMax, engine.PrefetchMax)
	}
	mixed := []message{hop(0, "GET", keys[0]), {kind: msgUnlock, data: runMsg(func(*Shard) {})}, hop(3, "GET", keys[1]),
		hop(0, "SET", keys[2], "w"), hop(0, "PING")}
	if seen, warmed := owner.warmHops(mixed); seen != len(mixed) || warmed != 2 {
		t.Fatalf("mixed batch: looked at %d, warmed %d; want %d, 2", seen, warmed, len(mixed))
	}
	same := []message{hop(0, "GET", keys[0]), hop(0, "SET", keys[0], "w")}
	if _, warmed := owner.warmHops(same); warmed != 0 {
		t.Fatalf("one key: warmed %d", warmed)
	}
}

func toBytes(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// TestHoldPrefix: the replies a pipeline's local commands wrote before
// its first hop wait for the hop's reply and leave with it, in order:
// nothing is sent while the hop is out.
func TestHoldPrefix(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	if got := m.do(c, "SET {d}:1 v\r\nSET {a}:1 w\r\n"); got != "+OK\r\n+OK\r\n" {
		t.Fatalf("SETs: %q", got)
	}
	m.write(c, "GET {d}:1\r\nGET {a}:1\r\nGET {d}:1\r\n")
	m.read(c, true)
	m.turn(0)
	if got := m.take(c); got != "" {
		t.Fatalf("sent while the hop was out: %q", got)
	}
	m.deliverNext(0, 1)
	m.turn(1)
	m.deliverNext(1, 0)
	m.turn(0)
	if got, want := m.take(c), "$1\r\nv\r\n$1\r\nw\r\n$1\r\nv\r\n"; got != want {
		t.Fatalf("after the hop: %q, want %q", got, want)
	}
}

// TestFreeHopForgets: a pooled hop comes back with nothing of its last
// use, so a SCAN step (scanHop sets no self) never writes pushes owed to
// the RESP3 subscriber whose hop it was before.
func TestFreeHopForgets(t *testing.T) {
	s := &Shard{}
	h := s.newHop()
	h.self, h.scan, h.done = true, true, true
	s.freeHop(h)
	if g := s.newHop(); g != h || g.self || g.scan || g.done || g.c != nil || g.spec != nil {
		t.Fatalf("reused %v: self %v scan %v done %v", g == h, g.self, g.scan, g.done)
	}
}

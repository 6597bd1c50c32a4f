package shard

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/router"
)

// fakeDriver is an in-memory ioloop.Driver: tests put bytes in, run the
// shard's callbacks by hand and read what it sent.
type fakeDriver struct {
	in     map[ioloop.ConnID][]byte
	out    map[ioloop.ConnID]*[]byte
	closed map[ioloop.ConnID]bool
}

func newFake() *fakeDriver {
	return &fakeDriver{in: map[ioloop.ConnID][]byte{}, out: map[ioloop.ConnID]*[]byte{},
		closed: map[ioloop.ConnID]bool{}}
}

func (f *fakeDriver) Listen(int) error                         { return nil }
func (f *fakeDriver) Input(c ioloop.ConnID) []byte             { return f.in[c] }
func (f *fakeDriver) Consume(c ioloop.ConnID, n int)           { f.in[c] = f.in[c][n:] }
func (f *fakeDriver) Pending(ioloop.ConnID) int                { return 0 }
func (f *fakeDriver) Close(c ioloop.ConnID)                    { f.closed[c] = true }
func (f *fakeDriver) Poll(time.Duration, ioloop.Handler) error { return nil }
func (f *fakeDriver) Wake()                                    {}
func (f *fakeDriver) Shutdown() error                          { return nil }
func (f *fakeDriver) Kind() string                             { return "fake" }
func (f *fakeDriver) Output(c ioloop.ConnID) *[]byte {
	if f.out[c] == nil {
		f.out[c] = new([]byte)
	}
	return f.out[c]
}

// testGroup builds n shards with fake drivers and no goroutines: the test
// drives every turn.
func testGroup(t testing.TB, n int) *Group {
	g := &Group{
		opts: Options{Shards: n, Databases: 16},
		conf: config.New(), log: zap.NewNop(), started: time.Now(), stopped: make(chan struct{}),
	}
	g.shards = make([]*Shard, n)
	for i := range g.shards {
		g.shards[i] = newShard(g, i)
		g.shards[i].drv = newFake()
		g.shards[i].applyConfig(g.conf.Snapshot())
	}
	t.Cleanup(func() {
		for _, s := range g.shards {
			s.store.Close()
		}
	})
	return g
}

// settle runs loop turns on every shard until no messages are left.
func (g *Group) settle() {
	for {
		busy := false
		for _, s := range g.shards {
			s.now = time.Now().UnixMilli()
			if s.inbox.pending.Load() || len(s.local) > 0 {
				busy = true
			}
			s.drainInbox()
			s.runLocal()
			for _, q := range s.outbox {
				busy = busy || len(q) > 0
			}
			s.flushOutbox()
		}
		if !busy {
			return
		}
	}
}

// send feeds raw protocol to connection id of shard s, settles the group
// and returns (and clears) what the connection received.
func send(g *Group, s *Shard, id ioloop.ConnID, req string) string {
	f := s.drv.(*fakeDriver)
	f.in[id] = append(f.in[id], req...)
	s.OnData(id)
	g.settle()
	out := f.Output(id)
	got := string(*out)
	*out = (*out)[:0]
	return got
}

func TestHopsKeepReplyOrder(t *testing.T) {
	g := testGroup(t, 4)
	s := g.shards[0]
	s.OnOpen(1)
	var req, want strings.Builder
	for i := range 50 {
		k := fmt.Sprintf("k%d", i)
		fmt.Fprintf(&req, "SET %s %d\r\nGET %s\r\n", k, i, k)
		fmt.Fprintf(&want, "+OK\r\n$%d\r\n%d\r\n", len(fmt.Sprint(i)), i)
	}
	if got := send(g, s, 1, req.String()); got != want.String() {
		t.Fatalf("got %q\nwant %q", got, want.String())
	}
	remote := 0
	for i := range 50 {
		if router.ShardOf([]byte(fmt.Sprintf("k%d", i)), 4) != 0 {
			remote++
		}
	}
	if remote == 0 || s.stats.hops == 0 {
		t.Fatalf("no key hopped (remote keys %d, hops %d)", remote, s.stats.hops)
	}
	if got := send(g, s, 1, "MGET k1 k2 nokey k3\r\nDBSIZE\r\n"); got != "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n$1\r\n3\r\n:50\r\n" {
		t.Fatalf("MGET/DBSIZE = %q", got)
	}
}

// TestTxnBlocksConflictingCommands: while a cross-shard txn holds a key,
// a command on it waits and runs after, in arrival order.
func TestTxnBlocksConflictingCommands(t *testing.T) {
	g := testGroup(t, 2)
	a, b := g.shards[0], g.shards[1]
	a.OnOpen(1)
	b.OnOpen(2)
	// Find keys on each shard.
	var ka, kb string
	for i := 0; ka == "" || kb == ""; i++ {
		k := fmt.Sprintf("key%d", i)
		if router.ShardOf([]byte(k), 2) == 0 && ka == "" {
			ka = k
		} else if router.ShardOf([]byte(k), 2) == 1 && kb == "" {
			kb = k
		}
	}
	// Start MSET on shard a, but deliver nothing yet.
	fa := a.drv.(*fakeDriver)
	fa.in[1] = append(fa.in[1], fmt.Sprintf("MSET %s 1 %s 1\r\n", ka, kb)...)
	a.OnData(1)
	// The lock on ka (shard a is first in order) is taken at once.
	a.runLocal()
	if held, _ := a.locks.Held([]byte(ka)); !held {
		t.Fatalf("txn does not hold %s", ka)
	}
	// A client of shard a writes ka now: it must wait for the MSET.
	fa.in[1] = nil
	a.OnOpen(3)
	fa.in[3] = append(fa.in[3], fmt.Sprintf("SET %s 2\r\n", ka)...)
	a.OnData(3)
	if a.locks.Queued() != 1 {
		t.Fatalf("deferred = %d, want 1", a.locks.Queued())
	}
	g.settle()
	if got := string(*fa.Output(1)); got != "+OK\r\n" {
		t.Fatalf("MSET reply %q", got)
	}
	if got := string(*fa.Output(3)); got != "+OK\r\n" {
		t.Fatalf("SET reply %q", got)
	}
	*fa.Output(3) = nil
	if got := send(g, a, 3, "MGET "+ka+" "+kb+"\r\n"); got != "*2\r\n$1\r\n2\r\n$1\r\n1\r\n" {
		t.Fatalf("after: %q", got)
	}
	if !a.locks.Idle() || !b.locks.Idle() {
		t.Fatal("locks left behind")
	}
}

func TestScanWalksEveryShard(t *testing.T) {
	g := testGroup(t, 3)
	s := g.shards[1]
	s.OnOpen(1)
	var req strings.Builder
	for i := range 100 {
		fmt.Fprintf(&req, "SET s:%03d x\r\n", i)
	}
	send(g, s, 1, req.String())
	seen := map[string]bool{}
	cursor := "0"
	for range 1000 {
		out := send(g, s, 1, "SCAN "+cursor+" COUNT 7\r\n")
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
	g := testGroup(t, 1)
	s := g.shards[0]
	s.OnOpen(1)
	f := s.drv.(*fakeDriver)
	req := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n")
	run := func() {
		f.in[1] = req
		s.OnData(1)
		out := f.Output(1)
		*out = (*out)[:0]
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Fatalf("%.1f allocations per SET+GET", n)
	}
}

func (f *fakeDriver) Addrs(ioloop.ConnID) (string, string) { return "127.0.0.1:1", "127.0.0.1:6379" }

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

// TestGatherAcrossShards: single-reply commands whose keys live on different
// shards run with their single-shard handler, atomically.
func TestGatherAcrossShards(t *testing.T) {
	g := testGroup(t, 3)
	s := g.shards[0]
	s.OnOpen(1)
	a, b, c := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0], keysOn(0, 3, 1)[0]
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
	}
	for _, tc := range cases {
		if got := send(g, s, 1, tc.req); got != tc.want {
			t.Fatalf("%q: got %q want %q", tc.req, got, tc.want)
		}
	}
	for _, sh := range g.shards {
		if !sh.locks.Idle() {
			t.Fatalf("shard %d left locks", sh.id)
		}
	}
}

// TestBlockingAcrossShards: BLPOP on keys of two shards wakes on the
// first push to either; each element goes to one waiter, FIFO; timeouts,
// disconnects and CLIENT UNBLOCK end the wait.
func TestBlockingAcrossShards(t *testing.T) {
	g := testGroup(t, 3)
	home := g.shards[0]
	k1, k2 := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
	for id := ioloop.ConnID(1); id <= 4; id++ {
		home.OnOpen(id)
	}
	out := func(id ioloop.ConnID) string {
		f := home.drv.(*fakeDriver)
		o := string(*f.Output(id))
		*f.Output(id) = nil
		return o
	}
	// Two waiters on both keys, in order.
	if got := send(g, home, 1, "BLPOP "+k1+" "+k2+" 0\r\n"); got != "" {
		t.Fatalf("BLPOP replied at once: %q", got)
	}
	if got := send(g, home, 2, "BLPOP "+k2+" "+k1+" 0\r\n"); got != "" {
		t.Fatalf("second BLPOP replied at once: %q", got)
	}
	// A command behind a blocked one waits with it.
	if got := send(g, home, 1, "PING\r\n"); got != "" {
		t.Fatalf("blocked client answered PING: %q", got)
	}
	if got := send(g, home, 3, "RPUSH "+k2+" a b c\r\n"); got != ":3\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	want1 := fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$1\r\na\r\n+PONG\r\n", len(k2), k2)
	want2 := fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$1\r\nb\r\n", len(k2), k2)
	if got := out(1); got != want1 {
		t.Fatalf("first waiter got %q want %q", got, want1)
	}
	if got := out(2); got != want2 {
		t.Fatalf("second waiter got %q want %q", got, want2)
	}
	if got := send(g, home, 3, "LRANGE "+k2+" 0 -1\r\n"); got != "*1\r\n$1\r\nc\r\n" {
		t.Fatalf("left over %q", got)
	}
	// Timeout.
	if got := send(g, home, 1, "BLPOP "+k1+" 0.01\r\n"); got != "" {
		t.Fatalf("BLPOP with timeout replied at once: %q", got)
	}
	time.Sleep(20 * time.Millisecond)
	home.now = time.Now().UnixMilli()
	home.expireBlocked()
	g.settle()
	if got := out(1); got != "*-1\r\n" {
		t.Fatalf("timeout reply %q", got)
	}
	// Disconnect while blocked: the next push is not lost.
	send(g, home, 4, "BLPOP "+k1+" 0\r\n")
	home.OnClose(4, nil)
	g.settle()
	if got := send(g, home, 3, "LPUSH "+k1+" x\r\n"); got != ":1\r\n" {
		t.Fatalf("LPUSH = %q", got)
	}
	if got := send(g, home, 3, "LLEN "+k1+"\r\n"); got != ":1\r\n" {
		t.Fatalf("element lost to a closed client: LLEN = %q", got)
	}
	// CLIENT UNBLOCK.
	send(g, home, 2, "BLPOP nokey{"+k2+"} 0\r\n")
	if got := send(g, home, 3, "CLIENT UNBLOCK 2 ERROR\r\n"); got != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK = %q", got)
	}
	if got := out(2); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("unblocked reply %q", got)
	}
	for _, s := range g.shards {
		if len(s.waiters) > 0 || !s.locks.Idle() {
			t.Fatalf("shard %d left waiters %v locks %v", s.id, s.waiters, s.locks)
		}
	}
}

// TestBlockingMoveAcrossShards: BLMOVE whose source and destination live
// on different shards waits on the source and moves atomically.
func TestBlockingMoveAcrossShards(t *testing.T) {
	g := testGroup(t, 3)
	home := g.shards[0]
	src, dst := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
	home.OnOpen(1)
	home.OnOpen(2)
	if got := send(g, home, 1, "BLMOVE "+src+" "+dst+" LEFT RIGHT 0\r\n"); got != "" {
		t.Fatalf("BLMOVE replied at once: %q", got)
	}
	if got := send(g, home, 2, "RPUSH "+src+" a b\r\n"); got != ":2\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	f := home.drv.(*fakeDriver)
	if got := string(*f.Output(1)); got != "$1\r\na\r\n" {
		t.Fatalf("BLMOVE reply %q", got)
	}
	*f.Output(1) = nil
	if got := send(g, home, 2, "LRANGE "+src+" 0 -1\r\nLRANGE "+dst+" 0 -1\r\n"); got != "*1\r\n$1\r\nb\r\n*1\r\n$1\r\na\r\n" {
		t.Fatalf("after BLMOVE: %q", got)
	}
	// With data already there it moves at once; an empty source times out.
	if got := send(g, home, 1, "BLMOVE "+src+" "+dst+" LEFT RIGHT 0\r\n"); got != "$1\r\nb\r\n" {
		t.Fatalf("BLMOVE with data = %q", got)
	}
	send(g, home, 1, "BLMOVE "+src+" "+dst+" LEFT RIGHT 0.01\r\n")
	time.Sleep(20 * time.Millisecond)
	home.now = time.Now().UnixMilli()
	home.expireBlocked()
	g.settle()
	if got := string(*f.Output(1)); got != "*-1\r\n" {
		t.Fatalf("timeout reply %q", got)
	}
	for _, s := range g.shards {
		if len(s.waiters) > 0 || !s.locks.Idle() {
			t.Fatalf("shard %d left waiters %v locks %v", s.id, s.waiters, s.locks)
		}
	}
}

// TestReadersShareLocks: two cross-shard MGETs on the same keys hold them
// together (shared intent) instead of one waiting for the other; an MSET
// of one of them waits for both, and every txn takes its locks in one
// parallel round when nothing conflicts.
func TestReadersShareLocks(t *testing.T) {
	g := testGroup(t, 2)
	a := g.shards[0]
	ka, kb := keysOn(0, 2, 1)[0], keysOn(1, 2, 1)[0]
	fa := a.drv.(*fakeDriver)
	for id := ioloop.ConnID(1); id <= 3; id++ {
		a.OnOpen(id)
	}
	fa.in[1] = append(fa.in[1], resp2("MGET "+ka+" "+kb)...)
	fa.in[2] = append(fa.in[2], resp2("MGET "+kb+" "+ka)...)
	fa.in[3] = append(fa.in[3], resp2("MSET "+ka+" 1 "+kb+" 2")...)
	a.OnData(1)
	a.OnData(2)
	a.OnData(3)
	a.runLocal() // the try round's requests to a itself
	held, excl := a.locks.Held([]byte(ka))
	if !held || excl || a.locks.Queued() != 0 {
		t.Fatalf("after both MGETs' try round: held %v exclusive %v queued %d", held, excl, a.locks.Queued())
	}
	g.settle()
	want := []string{"*2\r\n$-1\r\n$-1\r\n", "*2\r\n$-1\r\n$-1\r\n", "+OK\r\n"}
	for i, w := range want {
		if got := string(*fa.Output(ioloop.ConnID(i + 1))); got != w {
			t.Fatalf("client %d: %q, want %q", i+1, got, w)
		}
	}
	if !a.locks.Idle() || !g.shards[1].locks.Idle() {
		t.Fatal("locks left behind")
	}
}

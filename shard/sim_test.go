package shard

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/net/resp"
)

// The simulator runs the shards of a group on the test's goroutine, one
// loop turn at a time, as the real loop does (Poll's completions, Turn,
// flushOutbox), with everything the real loop leaves to chance chosen by a
// seed instead: which shard takes the next turn, when a shard's outbox
// batch reaches its destination (batches between one pair of shards stay
// FIFO, as one outbox per destination flushed in order keeps them; across
// pairs any order), how a client's bytes are split into reads, and when the
// clock moves, which fires block timeouts and the cron. A failing seed
// replays the same run.

// sim is a group of shards driven by a seed.
type sim struct {
	t     testing.TB
	g     *Group
	r     *rand.Rand
	now   time.Time
	drv   []*simDriver
	queue [][][][]message // [src][dst]: batches in flight, FIFO
	// jitter: the clock moves by itself now and then (random runs), not
	// only when the test says or nothing else can happen.
	jitter bool
	// hold, when set, names the batches in flight that stay where they
	// are: step and settle deliver none whose src to dst queue starts with
	// one it holds (a test delivers it with deliverNext).
	hold   func(src, dst int, b []message) bool
	nextID ioloop.ConnID
	trace  []string // the last steps, for a failure's report
	// sockets are the connections a driver released (Release), by the
	// number standing for their socket, until a driver takes them.
	sockets map[int]*simConn
	nextFd  int
}

// simConn is a client of the simulated group.
type simConn struct {
	shard int
	id    ioloop.ConnID
	// unsent are bytes the client wrote that no read has taken yet.
	unsent []byte
	got    []byte // what the connection received, not yet taken
	closed bool   // the server closed it
	// release is the callback of a Release its driver has not carried
	// out yet.
	release func(fd int, input []byte)
}

// simEpoch is where a simulation's clock starts.
var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newSim(t testing.TB, shards int, seed uint64) *sim {
	m := &sim{t: t, r: rand.New(rand.NewPCG(seed, 0x5eed)), now: simEpoch, sockets: map[int]*simConn{}}
	g := &Group{
		opts: Options{Shards: shards, Databases: 16},
		conf: config.New(), log: zap.NewNop(), started: simEpoch, stopped: make(chan struct{}),
		clock: func() time.Time { return m.now },
	}
	m.g = g
	g.listenFDs = make([][]int, shards) // none: the simulator has no sockets
	// No save points: a simulation writes no file unless its test asks;
	// DEBUG allowed, as the tests use it; no slow log, whose entries
	// depend on how long a command took on the wall clock (a loaded
	// machine would change the messages a script expects); files, when a
	// test writes them, in a directory of the test's.
	conf, err := config.Load([]string{"--save", "", "--enable-debug-command", "yes", "--slowlog-log-slower-than", "-1",
		"--dir", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	g.conf = conf
	if err := g.initACL(conf.Snapshot()); err != nil {
		t.Fatal(err)
	}
	g.persist.init(shards, simEpoch)
	g.shards = make([]*Shard, shards)
	m.queue = make([][][][]message, shards)
	for i := range g.shards {
		s := newShard(g, i)
		d := newSimDriver(m, i)
		s.drv = d
		m.drv = append(m.drv, d)
		s.applyConfig(g.conf.Snapshot())
		s.nextTick = m.now
		g.shards[i] = s
		m.queue[i] = make([][][]message, shards)
	}
	t.Cleanup(func() {
		for _, s := range g.shards {
			s.store.Close()
			if s.scratch != nil {
				s.scratch.Close()
			}
		}
	})
	return m
}

// dial opens a connection to shard i; it is accepted in i's next turn.
func (m *sim) dial(i int) *simConn {
	m.nextID++
	c := &simConn{shard: i, id: m.nextID}
	d := m.drv[i]
	d.conns[c.id] = c
	d.opened = append(d.opened, c.id)
	m.turn(i)
	return c
}

// write queues bytes the client sends; reads take them in seed-chosen
// pieces.
func (m *sim) write(c *simConn, req string) { c.unsent = append(c.unsent, req...) }

// hangup closes the client's end.
func (m *sim) hangup(c *simConn) {
	d := m.drv[c.shard]
	d.hungup = append(d.hungup, c.id)
}

// read hands the client a piece of what it sent, as one read completion.
func (m *sim) read(c *simConn, all bool) {
	n := len(c.unsent)
	if !all && n > 1 && m.r.IntN(3) == 0 {
		n = 1 + m.r.IntN(n)
	}
	d := m.drv[c.shard]
	d.in[c.id] = append(d.in[c.id], c.unsent[:n]...)
	c.unsent = c.unsent[n:]
	d.data = append(d.data, c.id)
	m.log("read c%d %d bytes", c.id, n)
}

// turn runs one loop turn of shard i: the driver's completions, Turn, and
// the outbox into the network.
func (m *sim) turn(i int) {
	s := m.g.shards[i]
	m.drv[i].poll(s)
	s.Turn(m.now)
	s.gateOutbox()
	for dst, q := range s.outbox {
		if len(q) == 0 {
			continue
		}
		m.queue[i][dst] = append(m.queue[i][dst], append([]message(nil), q...))
		clear(q)
		s.outbox[dst] = q[:0]
	}
	m.log("turn %d", i)
}

// deliverNext hands the oldest batch from src to dst into dst's inbox.
func (m *sim) deliverNext(src, dst int) {
	b := m.queue[src][dst][0]
	m.queue[src][dst] = m.queue[src][dst][1:]
	m.g.shards[dst].deliver(b)
	if m.trace != nil {
		kinds := make([]string, len(b))
		for i, msg := range b {
			kinds[i] = msg.kind.String()
		}
		m.log("deliver %d->%d %s", src, dst, strings.Join(kinds, ","))
	}
}

// deliverable reports whether a batch from src to dst is in flight and
// not held.
func (m *sim) deliverable(src, dst int) bool {
	q := m.queue[src][dst]
	return len(q) > 0 && (m.hold == nil || !m.hold(src, dst, q[0]))
}

// advance moves the clock by d.
func (m *sim) advance(d time.Duration) {
	m.now = m.now.Add(d)
	m.log("advance %v", d)
}

func (m *sim) log(format string, args ...any) {
	if m.trace == nil {
		return
	}
	if len(m.trace) > 400 {
		m.trace = m.trace[200:]
	}
	m.trace = append(m.trace, fmt.Sprintf(format, args...))
}

// busy reports whether a turn, a delivery or a read can make progress.
func (m *sim) busy() bool {
	for i, s := range m.g.shards {
		if s.inbox.pending() || len(s.local) > 0 || m.drv[i].events() {
			return true
		}
		for dst := range m.queue[i] {
			if m.deliverable(i, dst) {
				return true
			}
		}
		for _, c := range m.drv[i].conns {
			if len(c.unsent) > 0 {
				return true
			}
		}
	}
	return false
}

// step takes one seed-chosen action that can make progress.
func (m *sim) step() {
	type pair struct{ src, dst int }
	var pairs []pair
	var reads []*simConn
	var turns []int
	for i, s := range m.g.shards {
		for dst := range m.queue[i] {
			if m.deliverable(i, dst) {
				pairs = append(pairs, pair{i, dst})
			}
		}
		if s.inbox.pending() || len(s.local) > 0 || m.drv[i].events() {
			turns = append(turns, i)
		}
		for id := ioloop.ConnID(1); id <= m.nextID; id++ {
			if c := m.drv[i].conns[id]; c != nil && len(c.unsent) > 0 {
				reads = append(reads, c)
			}
		}
	}
	switch n := len(pairs) + len(turns) + len(reads); {
	case m.jitter && m.r.IntN(20) == 0:
		// A loaded machine: a turn can start many milliseconds late.
		m.advance(time.Duration(m.r.IntN(15000)) * time.Microsecond)
	case n == 0:
		m.turn(m.r.IntN(len(m.g.shards)))
	default:
		switch k := m.r.IntN(n); {
		case k < len(pairs):
			m.deliverNext(pairs[k].src, pairs[k].dst)
		case k < len(pairs)+len(turns):
			m.turn(turns[k-len(pairs)])
		default:
			m.read(reads[k-len(pairs)-len(turns)], false)
		}
	}
}

// settle runs seed-chosen steps until nothing can make progress without
// the clock.
func (m *sim) settle() {
	for n := 0; m.busy(); n++ {
		if n > 1_000_000 {
			m.t.Fatalf("the simulation does not settle\n%s", strings.Join(m.trace, "\n"))
		}
		m.step()
	}
	m.collect()
}

// nextTimer is the earliest time at which a shard has timed work: a
// blocked client's deadline or the cron's tick.
func (m *sim) nextTimer() time.Time {
	var at time.Time
	for _, s := range m.g.shards {
		w := s.nextTick
		if d := s.nextDeadline(); d > 0 && time.UnixMilli(d).Before(w) {
			w = time.UnixMilli(d)
		}
		if at.IsZero() || w.Before(at) {
			at = w
		}
	}
	return at
}

// fire moves the clock to the next timer (at least 1 ms on) and has every
// shard take a turn.
func (m *sim) fire() {
	at := m.nextTimer()
	if !at.After(m.now) {
		at = m.now.Add(time.Millisecond)
	}
	m.advance(at.Sub(m.now))
	for i := range m.g.shards {
		m.turn(i)
	}
}

// tick moves the clock by d, has every shard take a turn, and settles.
func (m *sim) tick(d time.Duration) {
	m.advance(d)
	for i := range m.g.shards {
		m.turn(i)
	}
	m.settle()
}

// collect moves what each connection received into its client.
func (m *sim) collect() {
	for _, d := range m.drv {
		for id, out := range d.out {
			if c := d.conns[id]; c != nil && len(*out) > 0 {
				c.got = append(c.got, *out...)
				*out = (*out)[:0]
			}
		}
	}
}

// do sends req on c, settles the group and returns what c received since
// its last call.
func (m *sim) do(c *simConn, req string) string {
	m.write(c, req)
	m.settle()
	return m.take(c)
}

// take returns (and clears) what c received.
func (m *sim) take(c *simConn) string {
	m.collect()
	got := string(c.got)
	c.got = c.got[:0]
	return got
}

// replies runs the group until c received n replies (firing timers when
// nothing else can happen) and returns them.
func (m *sim) replies(c *simConn, n int) [][]byte {
	var out [][]byte
	for idle := 0; len(out) < n; {
		m.settle()
		for len(out) < n {
			_, used, err := resp.ReadReply(c.got)
			if err != nil {
				m.t.Fatalf("bad reply %q: %v", c.got, err)
			}
			if used == 0 {
				break
			}
			out = append(out, append([]byte(nil), c.got[:used]...))
			c.got = c.got[used:]
			idle = 0
		}
		if len(out) < n {
			if idle++; idle > 10_000 {
				m.t.Fatalf("%d replies of %d after %d idle timers\n%s", len(out), n, idle,
					strings.Join(m.trace, "\n"))
			}
			m.fire()
		}
	}
	return out
}

// simDriver is the ioloop.Driver of a simulated shard: bytes a client
// sent, the replies written, and the completions its next Poll reports.
type simDriver struct {
	conns   map[ioloop.ConnID]*simConn
	in      map[ioloop.ConnID][]byte
	out     map[ioloop.ConnID]*[]byte
	opened  []ioloop.ConnID // accepted, OnOpen not reported yet
	data    []ioloop.ConnID // received bytes, OnData not reported yet
	closing []ioloop.ConnID // closed by the shard, OnClose not reported yet
	hungup  []ioloop.ConnID // closed by the client
	// releasing are the connections Release was called for, handed over
	// at the next poll.
	releasing []ioloop.ConnID
	scratch   []byte
	m         *sim
	shard     int
}

func newSimDriver(m *sim, shard int) *simDriver {
	return &simDriver{conns: map[ioloop.ConnID]*simConn{}, in: map[ioloop.ConnID][]byte{},
		out: map[ioloop.ConnID]*[]byte{}, m: m, shard: shard}
}

func (d *simDriver) events() bool {
	return len(d.opened)+len(d.data)+len(d.closing)+len(d.hungup)+len(d.releasing) > 0
}

// poll reports the completions in the order they happened: accepts, then
// reads, then closes.
func (d *simDriver) poll(h ioloop.Handler) {
	for len(d.opened) > 0 {
		id := d.opened[0]
		d.opened = d.opened[1:]
		h.OnOpen(id)
	}
	for len(d.data) > 0 {
		id := d.data[0]
		d.data = d.data[1:]
		if c := d.conns[id]; c != nil && !c.closed && c.release == nil {
			h.OnData(id)
		}
	}
	for len(d.closing)+len(d.hungup) > 0 {
		var id ioloop.ConnID
		var err error
		if len(d.closing) > 0 {
			id, d.closing = d.closing[0], d.closing[1:]
		} else {
			id, d.hungup, err = d.hungup[0], d.hungup[1:], io.EOF
		}
		if c := d.conns[id]; c != nil {
			// Close flushes what was written before it.
			if out := d.out[id]; out != nil {
				c.got = append(c.got, *out...)
			}
			c.closed = true
			c.release = nil
			delete(d.conns, id)
			delete(d.out, id)
			delete(d.in, id)
			h.OnClose(id, err)
		}
	}
	// Releases after closes: a connection that closed is not handed over.
	for len(d.releasing) > 0 {
		id := d.releasing[0]
		d.releasing = d.releasing[1:]
		c := d.conns[id]
		if c == nil || c.release == nil {
			continue
		}
		if out := d.out[id]; out != nil {
			c.got = append(c.got, *out...) // sent before the hand-over
		}
		input := append([]byte(nil), d.in[id]...)
		delete(d.conns, id)
		delete(d.out, id)
		delete(d.in, id)
		done := c.release
		c.release = nil
		d.m.nextFd++
		d.m.sockets[d.m.nextFd] = c
		d.m.log("release c%d from %d", id, d.shard)
		done(d.m.nextFd, input)
	}
}

func (d *simDriver) Release(c ioloop.ConnID, done func(fd int, input []byte)) bool {
	cn := d.conns[c]
	if cn == nil || cn.closed || cn.release != nil {
		return false
	}
	cn.release = done
	d.releasing = append(d.releasing, c)
	return true
}

func (d *simDriver) Take(fd int, input []byte) (ioloop.ConnID, error) {
	c := d.m.sockets[fd]
	if c == nil {
		return 0, ioloop.ErrClosed
	}
	delete(d.m.sockets, fd)
	d.m.nextID++
	c.id, c.shard = d.m.nextID, d.shard
	d.conns[c.id] = c
	d.in[c.id] = input
	d.m.log("take c%d on %d", c.id, d.shard)
	return c.id, nil
}

func (d *simDriver) Listen(int) error                  { return nil }
func (d *simDriver) Adopt(int) error                   { return ioloop.ErrClosed } // the simulator has no sockets
func (d *simDriver) Detach(ioloop.ConnID) (int, error) { return -1, ioloop.ErrClosed }
func (d *simDriver) Input(c ioloop.ConnID) []byte {
	if cn := d.conns[c]; cn == nil || cn.release != nil {
		return nil
	}
	return d.in[c]
}
func (d *simDriver) Consume(c ioloop.ConnID, n int) { d.in[c] = d.in[c][n:] }
func (d *simDriver) Pending(ioloop.ConnID) int      { return 0 }
func (d *simDriver) Close(c ioloop.ConnID) {
	if cn := d.conns[c]; cn != nil && !cn.closed {
		cn.closed = true
		d.closing = append(d.closing, c)
	}
}
func (d *simDriver) Abort(c ioloop.ConnID) {
	*d.Output(c) = (*d.Output(c))[:0]
	d.Close(c)
}
func (d *simDriver) Poll(time.Duration, ioloop.Handler) error { return nil }
func (d *simDriver) Flush()                                   {}
func (d *simDriver) Fsync(int, func(error)) bool              { return false }
func (d *simDriver) Wake()                                    {}
func (d *simDriver) Waiting() bool                            { return len(d.opened)+len(d.data) > 0 }
func (d *simDriver) WakeOther(other ioloop.Driver)            { other.Wake() }
func (d *simDriver) Shutdown() error                          { return nil }
func (d *simDriver) Kind() string                             { return "sim" }
func (d *simDriver) Traffic() ioloop.Traffic                  { return ioloop.Traffic{} }
func (d *simDriver) Addrs(ioloop.ConnID) (string, string)     { return "127.0.0.1:1", "127.0.0.1:6379" }
func (d *simDriver) From(ioloop.ConnID) int                   { return -1 }
func (d *simDriver) Buffers(ioloop.ConnID) ioloop.Buffers     { return ioloop.Buffers{Fd: -1} }
func (d *simDriver) Output(c ioloop.ConnID) *[]byte {
	if cn := d.conns[c]; cn == nil || cn.closed {
		d.scratch = d.scratch[:0]
		return &d.scratch
	}
	if d.out[c] == nil {
		d.out[c] = new([]byte)
	}
	return d.out[c]
}

var msgKindNames = [numMsgKinds]string{
	msgHop: "hop", msgHopReply: "hop-reply", msgTryLock: "try-lock", msgTried: "tried", msgLock: "lock", msgLockGranted: "lock-granted",
	msgPartRun: "part-run", msgGather: "gather", msgGathered: "gathered", msgWriteBack: "write-back",
	msgWrittenBack: "written-back", msgUnlock: "unlock",
	msgPartDone: "part-done", msgPark: "park", msgUnpark: "unpark", msgUnparked: "unparked", msgClaim: "claim",
	msgClaimAnswer: "claim-answer", msgServed: "served", msgUnclaim: "unclaim", msgMove: "move",
	msgRetry: "retry", msgUnblock: "unblock", msgStats: "stats",
	msgPublish: "publish", msgPublished: "published", msgSSub: "ssub", msgSSubAck: "ssub-ack", msgSUnsub: "sunsub",
	msgPSQuery: "pubsub-query", msgPSAnswer: "pubsub-answer", msgWatch: "watch", msgWatched: "watched",
	msgUnwatch: "unwatch", msgExec: "exec", msgAdopt: "adopt",
	msgSave: "save", msgSaved: "saved",
	msgInvalidate: "invalidate", msgInvalidated: "invalidated", msgTrackPrefixes: "track-prefixes",
	msgScript: "script", msgScriptDone: "script-done",
	msgExport: "export", msgExported: "exported", msgPrepare: "prepare", msgSlow: "slow", msgMonitor: "monitor",
	msgRepl: "repl", msgMigrate: "migrate", msgCut: "cut", msgCutDone: "cut-done",
	msgHold: "hold", msgHeld: "held", msgPipe: "pipe",
}

// String names a message kind in a simulation's trace.
func (k msgKind) String() string { return msgKindNames[k] }

func TestMsgKindsNamed(t *testing.T) {
	for k := msgKind(1); k < numMsgKinds; k++ {
		if k.String() == "" {
			t.Errorf("message kind %d has no name", k)
		}
	}
}

// TestMessageSize: a message stays inside a cache line (msg.go), so a
// batch of hops copies no more than it did with closures.
func TestMessageSize(t *testing.T) {
	if n := unsafe.Sizeof(message{}); n > 64 {
		t.Fatalf("a message is %d bytes", n)
	}
}

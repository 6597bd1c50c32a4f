package shard

import (
	"testing"

	"github.com/radish-kv/radish/command"
)

// fakeJournal is a Log whose disk the test moves: positions count the
// effects appended.
type fakeJournal struct {
	turn, appended, durable uint64
}

func (f *fakeJournal) Append(fx *command.Effects) { f.turn += uint64(fx.Len()) }
func (f *fakeJournal) Submit() uint64 {
	f.appended += f.turn
	f.turn = 0
	return f.appended
}
func (f *fakeJournal) Appended() uint64                    { return f.appended }
func (f *fakeJournal) Durable() uint64                     { return f.durable }
func (f *fakeJournal) SetFsync(int32)                      {}
func (f *fakeJournal) SetTimestamps(bool)                  {}
func (f *fakeJournal) UseLoop(func(int, func(error)) bool) {}

// sync puts everything appended on disk and has every shard take a turn.
func (m *sim) sync(f *fakeJournal) {
	f.durable = f.appended
	for i := range m.g.shards {
		m.turn(i)
	}
	m.settle()
}

// TestGroupCommit: under appendfsync always a write's reply, and every
// reply after it on the connection, leaves only once the write's turn is
// on disk; a reply that waits for nothing leaves at once (a read on
// another connection); a cross-shard write's reply waits for every part's
// shard.
func TestGroupCommit(t *testing.T) {
	m := newSim(t, 2, 1)
	if err := m.g.conf.Set([][2]string{{"appendfsync", "always"}}); err != nil {
		t.Fatal(err)
	}
	js := []*fakeJournal{{}, {}}
	for i, s := range m.g.shards {
		s.attachAOF(js[i])
	}
	k0, k1 := keysOn(0, 2, 1)[0], keysOn(1, 2, 1)[0]
	c := m.dial(0)

	if got := m.do(c, resp2("GET "+k0)); got != "$-1\r\n" {
		t.Fatalf("a read with nothing to wait for: %q", got)
	}
	if got := m.do(c, resp2("SET "+k0+" v")+resp2("GET "+k0)); got != "" {
		t.Fatalf("before the write is on disk: %q", got)
	}
	if js[0].appended != 1 || js[0].durable != 0 {
		t.Fatalf("journal %+v", js[0])
	}
	// A read in a later turn, on another connection, does not wait.
	c2 := m.dial(0)
	if got := m.do(c2, resp2("GET "+k0)); got != "$1\r\nv\r\n" {
		t.Fatalf("another connection's read while a write waits: %q", got)
	}
	m.sync(js[0])
	if got := m.take(c); got != "+OK\r\n$1\r\nv\r\n" {
		t.Fatalf("after: %q", got)
	}

	// A hop to shard 1 writes there: its reply waits for shard 1's disk.
	if got := m.do(c, resp2("SET "+k1+" w")); got != "" {
		t.Fatalf("a hop's write before its shard's disk: %q", got)
	}
	m.sync(js[0])
	if got := m.take(c); got != "" {
		t.Fatalf("a hop's write after the home shard's disk only: %q", got)
	}
	m.sync(js[1])
	if got := m.take(c); got != "+OK\r\n" {
		t.Fatalf("a hop's write after its shard's disk: %q", got)
	}

	// An MSET over both shards waits for both: shard 0 runs its part
	// first, and what it sends after waits for its disk too.
	if got := m.do(c, resp2("MSET "+k0+" a "+k1+" b")); got != "" {
		t.Fatalf("MSET before any disk: %q", got)
	}
	m.sync(js[0])
	if got := m.take(c); got != "" || js[1].appended != 2 {
		t.Fatalf("MSET with one part on disk: %q (shard 1 %+v)", got, js[1])
	}
	m.sync(js[1])
	if got := m.take(c); got != "+OK\r\n" {
		t.Fatalf("MSET with both parts on disk: %q", got)
	}

	// QUIT closes the connection only after its held replies are out.
	m.do(c, resp2("SET "+k0+" q")+resp2("QUIT"))
	if c.closed {
		t.Fatal("closed before the held replies left")
	}
	m.sync(js[0])
	if got := m.take(c); got != "+OK\r\n+OK\r\n" || !c.closed {
		t.Fatalf("after QUIT: %q, closed %v", got, c.closed)
	}

	// appendfsync everysec: replies leave at once.
	if err := m.g.conf.Set([][2]string{{"appendfsync", "everysec"}}); err != nil {
		t.Fatal(err)
	}
	c = m.dial(0)
	if got := m.do(c, resp2("SET "+k0+" e")); got != "+OK\r\n" {
		t.Fatalf("everysec: %q", got)
	}
}

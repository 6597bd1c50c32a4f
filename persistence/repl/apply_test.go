package repl

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// laneReplica is a Replica with nothing but its offsets, for lanes.
func laneReplica() *Replica {
	r := &Replica{}
	r.off.idle = sync.NewCond(&r.off.Mutex)
	r.off.ackAt = -1
	return r
}

// sink is a Lane that keeps what is sent and answers nothing: a test
// answers for the Host (Replica.answered).
type sink struct {
	sent   []byte
	closed bool
}

func (l *sink) Send(b []byte) error {
	if l.closed {
		return errors.New("closed")
	}
	l.sent = append(l.sent, b...)
	return nil
}

func (l *sink) Close() { l.closed = true }

func (r *Replica) appliedNow() int64 {
	r.off.Lock()
	defer r.off.Unlock()
	return r.off.applied
}

// TestLanesApplied: commands on two lanes answered out of order move
// the offset applied only over a run of commands that all ran; a SELECT
// of the link's own counts for nothing; a reply cut in two counts once
// whole.
func TestLanesApplied(t *testing.T) {
	r := laneReplica()
	for range 2 {
		r.lanes = append(r.lanes, &lane{c: &sink{}})
	}
	var b batch
	cmd := appendCommand(nil, "SET", "k", "v")
	b.add(0, cmd, 10)
	b.own(1, appendCommand(nil, "SELECT", "1"))
	b.add(1, cmd, 20)
	b.add(0, cmd, 30)
	if err := r.send(&b); err != nil {
		t.Fatal(err)
	}
	if got := string(r.lanes[1].c.(*sink).sent); got != string(appendCommand(nil, "SELECT", "1"))+string(cmd) {
		t.Fatalf("lane 1 got %q", got)
	}
	steps := []struct {
		lane  int
		reply string
		want  int64
	}{
		{1, "+OK\r\n+OK\r\n", 0}, // the SELECT and the command ending at 20
		{0, "+O", 0},
		{0, "K\r\n", 20},
		{0, "-ERR no\r\n", 30},
	}
	for _, st := range steps {
		r.answered(r.lanes[st.lane], []byte(st.reply), false)
		if got := r.appliedNow(); got != st.want {
			t.Fatalf("after %q on lane %d: applied %d, want %d", st.reply, st.lane, got, st.want)
		}
	}
	r.drain()
}

// TestLaneClosed: a lane the Host closed breaks the session: no command
// stays waiting (a drain returns), the offset applied moves no more (not
// even for a command that ran on another lane after it), no send follows
// it (not even to a lane still open), and the link forgets its stream's ID (the next sync is a
// full one) when commands were waiting or one ran after the break, and
// keeps it (a partial resync) when none did; the lane opens again.
func TestLaneClosed(t *testing.T) {
	for _, waiting := range []bool{false, true} {
		r := laneReplica()
		r.h = &host{}
		r.st.ReplID = strings.Repeat("a", 40)
		if err := r.lane(1); err != nil {
			t.Fatal(err)
		}
		first := r.lanes[1]
		first.c, r.lanes[0].c = &sink{}, &sink{}
		var b batch
		b.add(0, appendCommand(nil, "SET", "j", "v"), 10)
		if waiting {
			b.add(1, appendCommand(nil, "SET", "k", "v"), 20)
		}
		b.add(0, appendCommand(nil, "SET", "j", "w"), 30)
		if err := r.send(&b); err != nil {
			t.Fatal(err)
		}
		r.answered(r.lanes[0], []byte("+OK\r\n"), false)
		if !waiting {
			r.answered(r.lanes[0], []byte("+OK\r\n"), false)
		}
		applied := r.appliedNow()
		first.c.Close()
		r.answered(first, nil, true)
		r.drain()
		if lost := r.st.ReplID == ""; !r.broken.Load() || lost != waiting {
			t.Fatalf("waiting %v: broken %v, stream forgotten %v", waiting, r.broken.Load(), lost)
		}
		if waiting {
			r.answered(r.lanes[0], []byte("+OK\r\n"), false) // the SET ending at 30 ran after the break
		}
		if got := r.appliedNow(); got != applied {
			t.Fatalf("waiting %v: applied %d after the lane closed, want %d", waiting, got, applied)
		}
		if !waiting {
			r.answered(r.lanes[0], []byte("+OK\r\n"), false) // a command that ran after the break
			if r.st.ReplID != "" {
				t.Fatal("a command that ran after the break left the link its stream's ID")
			}
		}
		b.add(0, appendCommand(nil, "SET", "k", "v"), 40)
		if err := r.send(&b); err != errLaneClosed {
			t.Fatalf("waiting %v: a send after the break: %v, want it refused", waiting, err)
		}
		r.drain()
		if err := r.lane(1); err != nil {
			t.Fatal(err)
		}
		if r.lanes[1] == first || r.lanes[1].dead.Load() {
			t.Fatalf("waiting %v: the closed lane was not opened again", waiting)
		}
	}
}

// TestLaneDatabaseAtSend: a lane's database is what the batches sent to
// it selected: a MULTI block that a cut drops before its EXEC (with a
// SELECT inside) changes neither the stream's database nor its lane's,
// and a SELECT added to a batch that is never sent is added again.
func TestLaneDatabaseAtSend(t *testing.T) {
	r := laneReplica()
	r.lanes = []*lane{{c: &sink{}}}
	cut := cmd("MULTI") + cmd("SELECT", "1") + cmd("SET", "k", "v")
	if err := r.stream(strings.NewReader(cut), nil); err != io.EOF {
		t.Fatalf("stream: %v, want EOF", err)
	}
	if r.db != 0 || r.lanes[0].db != 0 {
		t.Fatalf("after a MULTI block cut before its EXEC: stream's database %d, lane's %d, want 0 and 0", r.db, r.lanes[0].db)
	}
	r.db = 2
	var dropped batch
	r.syncLane(&dropped, nil, 0)
	var next batch
	r.syncLane(&next, nil, 0)
	if got := string(next.on(0).out); got != cmd("SELECT", "2") {
		t.Fatalf("a batch after one dropped selects %q, want SELECT 2", got)
	}
}

// TestSendDuringBreak: commands sent while a lane closed (their send
// began before the break) leave nothing for a drain to wait for once
// their replies come.
func TestSendDuringBreak(t *testing.T) {
	r := laneReplica()
	r.st.ReplID = strings.Repeat("a", 40)
	r.lanes = []*lane{{c: &sink{}}, {c: &sink{}}}
	var b batch
	b.add(0, appendCommand(nil, "SET", "j", "v"), 10)
	if err := r.send(&b); err != nil {
		t.Fatal(err)
	}
	r.answered(r.lanes[0], []byte("+OK\r\n"), false)
	// A send that passed the broken check, then the close, then its
	// pending entries (as the link's goroutine and a shard's interleave).
	r.off.Lock()
	r.off.pend, r.off.fin = append(r.off.pend, 20), append(r.off.fin, false)
	r.lanes[0].seqs = append(r.lanes[0].seqs, r.off.head)
	r.off.Unlock()
	r.answered(r.lanes[1], nil, true)
	r.off.Lock()
	r.off.pend, r.off.fin = append(r.off.pend, 30), append(r.off.fin, false)
	r.lanes[0].seqs = append(r.lanes[0].seqs, r.off.head)
	r.off.Unlock()
	r.answered(r.lanes[0], []byte("+OK\r\n+OK\r\n"), false)
	done := make(chan struct{})
	go func() { r.drain(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a drain waits for commands sent during the break")
	}
	if r.appliedNow() != 10 || r.st.ReplID != "" {
		t.Fatalf("applied %d, stream ID %q: want 10 and forgotten", r.appliedNow(), r.st.ReplID)
	}
}

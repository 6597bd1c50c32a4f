package repl

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
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

// TestLaneClosed: a lane the Host closed leaves no command waiting (a
// drain returns), the next send on it fails, and the stream opens
// another in its place.
func TestLaneClosed(t *testing.T) {
	r := laneReplica()
	h := &host{}
	r.h = h
	if err := r.lane(1); err != nil {
		t.Fatal(err)
	}
	first := r.lanes[1]
	var b batch
	b.add(1, appendCommand(nil, "SET", "k", "v"), 10)
	first.c = &sink{}
	if err := r.send(&b); err != nil {
		t.Fatal(err)
	}
	first.c.Close()
	r.answered(first, nil, true)
	r.drain()
	if got := r.appliedNow(); got != 0 {
		t.Fatalf("applied %d after the lane closed, want 0", got)
	}
	b.add(1, appendCommand(nil, "SET", "k", "v"), 10)
	if err := r.send(&b); err == nil {
		t.Fatal("a send on a closed lane did not fail")
	}
	r.drain()
	if err := r.lane(1); err != nil {
		t.Fatal(err)
	}
	if r.lanes[1] == first || r.lanes[0].dead.Load() || r.lanes[1].dead.Load() {
		t.Fatal("the closed lane was not opened again")
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

package repl

import (
	"io"
	"net"
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

// pipeLane is a lane over a pipe whose Host end (returned) reads and
// drops what the link sends.
func pipeLane(t *testing.T) (*lane, net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := b.Read(buf); err != nil {
				return
			}
		}
	}()
	return &lane{c: a}, b
}

// TestLanesApplied: commands on two lanes answered out of order move
// the offset applied only over a run of commands that all ran; a SELECT
// of the link's own counts for nothing.
func TestLanesApplied(t *testing.T) {
	r := laneReplica()
	var hosts []net.Conn
	for range 2 {
		l, b := pipeLane(t)
		r.lanes = append(r.lanes, l)
		hosts = append(hosts, b)
		go r.replies(l)
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
	applied := func() int64 {
		r.off.Lock()
		defer r.off.Unlock()
		return r.off.applied
	}
	waitApplied := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); applied() != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("applied %d, want %d", applied(), want)
			}
		}
	}
	hosts[1].Write([]byte("+OK\r\n+OK\r\n")) // the SELECT and the command ending at 20
	time.Sleep(20 * time.Millisecond)
	waitApplied(0)
	hosts[0].Write([]byte("+OK\r\n"))
	waitApplied(20)
	hosts[0].Write([]byte("+OK\r\n"))
	waitApplied(30)
	r.drain()
}

// TestLaneDatabaseAtSend: a lane's database is what the batches sent to
// it selected: a MULTI block that a cut drops before its EXEC (with a
// SELECT inside) changes neither the stream's database nor its lane's,
// and a SELECT added to a batch that is never sent is added again.
func TestLaneDatabaseAtSend(t *testing.T) {
	r := laneReplica()
	l, _ := pipeLane(t)
	r.lanes = []*lane{l}
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

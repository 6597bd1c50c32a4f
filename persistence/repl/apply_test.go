package repl

import (
	"net"
	"sync"
	"testing"
	"time"
)

// TestLanesApplied: commands on two lanes answered out of order move
// the offset applied only over a run of commands that all ran; a SELECT
// of the link's own counts for nothing.
func TestLanesApplied(t *testing.T) {
	r := &Replica{}
	r.off.idle = sync.NewCond(&r.off.Mutex)
	r.off.ackAt = -1
	var hosts []net.Conn
	for range 2 {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		go func() { // the Host's end: read what the link sends
			buf := make([]byte, 4096)
			for {
				if _, err := b.Read(buf); err != nil {
					return
				}
			}
		}()
		l := &lane{c: a}
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

package repl

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestReplicaForward drives a Replica with Forward and Reset against a
// fake primary: the bytes forwarded are those applied, each once (a
// MULTI block after its EXEC; the block a cut broke, read again after
// the partial resync, once); Chained's history ends at the offset
// forwarded; Hold keeps commands from the Host while it runs; a full
// sync and a +CONTINUE with a new ID reset the sub-replicas, a
// +CONTINUE of the same ID does not.
func TestReplicaForward(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var fwd []byte
	resets := 0
	forwarded := func() string {
		mu.Lock()
		defer mu.Unlock()
		return string(fwd)
	}
	h := &host{}
	r := Start(h, Options{Addr: ln.Addr().String(), ListenPort: 1, Dir: t.TempDir(), Timeout: 10 * time.Second,
		Backlog: 1 << 20,
		Forward: func(b []byte) { mu.Lock(); fwd = append(fwd, b...); mu.Unlock() },
		Reset:   func() { mu.Lock(); resets++; mu.Unlock() }})
	defer r.Stop()
	accept := func(psync, reply string) *primary {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		p := &primary{t: t, c: c, r: bufio.NewReader(c)}
		p.expect("PING", "+PONG\r\n")
		p.expect("REPLCONF listening-port 1", "+OK\r\n")
		p.expect("REPLCONF capa eof capa psync2", "+OK\r\n")
		p.expect(psync, reply)
		return p
	}
	a := strings.Repeat("a", 40)
	p := accept("PSYNC ? -1", "+FULLRESYNC "+a+" 100\r\n")
	p.send("$5\r\nREDIS")
	waitUntil(t, "the link up", r.Up)
	set, ping, multi, setB, exec := cmd("SET", "a", "1"), cmd("PING"), cmd("MULTI"), cmd("SET", "b", "2"), cmd("EXEC")
	p.send(set + ping + multi + setB)
	waitUntil(t, "SET a forwarded", func() bool { return forwarded() == set+ping })
	p.send(exec)
	waitUntil(t, "the block forwarded", func() bool { return forwarded() == set+ping+multi+setB+exec })
	// A cut inside a block: after +CONTINUE it comes again, forwarded once.
	setC := cmd("SET", "c", "3")
	p.send(multi + setC)
	time.Sleep(20 * time.Millisecond)
	p.c.Close()
	applied := 100 + len(set+ping+multi+setB+exec)
	p = accept("PSYNC "+a+" "+strconv.Itoa(applied+1), "+CONTINUE "+a+"\r\n")
	p.send(multi + setC + exec)
	all := set + ping + multi + setB + exec + multi + setC + exec
	waitUntil(t, "the block after the cut forwarded", func() bool { return forwarded() == all })
	r.Chained(func(c Chain) {
		if c.ReplID != a || c.Offset != int64(100+len(all)) || string(c.History) != all {
			t.Errorf("Chained: %s at %d, history %q", c.ReplID, c.Offset, c.History)
		}
	})
	// Hold: a command sent while held reaches the Host after.
	setD := cmd("SET", "d", "4")
	r.Hold(func() {
		p.send(setD)
		time.Sleep(50 * time.Millisecond)
		if strings.Contains(h.commands(), "SET d 4") {
			t.Error("the Host ran a command while the stream was held")
		}
	})
	waitUntil(t, "SET d after the hold", func() bool { return forwarded() == all+setD })
	mu.Lock()
	if resets != 1 {
		t.Errorf("%d resets after a full sync and a +CONTINUE of the same ID, want 1", resets)
	}
	mu.Unlock()
	p.c.Close()
	p = accept("PSYNC "+a+" "+strconv.Itoa(100+len(all+setD)+1), "+CONTINUE "+strings.Repeat("b", 40)+"\r\n")
	waitUntil(t, "a reset after a new ID", func() bool { mu.Lock(); defer mu.Unlock(); return resets == 2 })
	p.c.Close()
}

// TestHistoryKeepsUnforwarded: with a backlog smaller than what is read
// ahead of what ran, the history keeps the bytes not yet forwarded: the
// sub-replicas get every byte once, with no reset, and the history
// shrinks back at the next read once they are forwarded.
func TestHistoryKeepsUnforwarded(t *testing.T) {
	var fwd []byte
	resets := 0
	r := laneReplica()
	r.o = Options{Backlog: 64, Forward: func(b []byte) { fwd = append(fwd, b...) }, Reset: func() { resets++ }}
	var all []byte
	end := int64(0)
	for i := range 200 { // read 200 commands ahead of the first that ran
		b := []byte(cmd("SET", "k", strconv.Itoa(i)))
		all = append(all, b...)
		end += int64(len(b))
		r.keep(b, end)
	}
	if len(fwd) != 0 || len(r.off.hist) != len(all) {
		t.Fatalf("forwarded %d bytes before any ran, history %d of %d", len(fwd), len(r.off.hist), len(all))
	}
	ahead := end
	for applied := int64(0); applied < ahead; {
		applied = min(applied+100, ahead)
		r.off.Lock()
		r.off.applied = applied
		r.forward()
		r.off.Unlock()
		b := []byte(cmd("PING"))
		all = append(all, b...)
		end += int64(len(b))
		r.keep(b, end)
	}
	r.off.Lock()
	r.off.applied = end
	r.forward()
	r.off.Unlock()
	if string(fwd) != string(all) || resets != 0 {
		t.Fatalf("forwarded %d bytes of %d (the same: %v), %d resets", len(fwd), len(all), string(fwd) == string(all), resets)
	}
	b := []byte(cmd("PING"))
	r.keep(b, end+int64(len(b)))
	if len(r.off.hist) > 2*64 {
		t.Fatalf("the history holds %d bytes once all was forwarded", len(r.off.hist))
	}
}

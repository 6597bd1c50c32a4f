package shard

import (
	"fmt"
	"strings"
	"testing"
)

// pipeEnd is the sender's end of a pipe in a test: the replies and the
// close the pipe handed back.
type pipeEnd struct {
	got    []byte
	closed bool
	after  bool // a reply came after the close
}

func (e *pipeEnd) answered(b []byte, closed bool) {
	if e.closed {
		e.after = true
	}
	e.got = append(e.got, b...)
	e.closed = e.closed || closed
}

// command1 is args as one RESP command.
func command1(args ...string) string { return encodeBatch([][]string{args}) }

// TestPipeRunsAsMaster: a pipe's commands run in order as the master's
// (a replica refuses no write of it) over every shard (hops, a
// cross-shard MSET), their replies come back whole and in order at the
// turns' ends, what was sent is counted as run once it ran (Send would
// wait otherwise), and a close comes back last.
func TestPipeRunsAsMaster(t *testing.T) {
	for seed := range uint64(5) {
		m := newSim(t, 3, seed)
		for _, s := range m.g.shards {
			s.replica = true
		}
		end := &pipeEnd{}
		p := m.g.shards[0].openPipe("127.0.0.1:6379", end.answered)
		keys := []string{keysOn(0, 3, 1)[0], keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]}
		// A command that runs at once, alone: all of it is run at the
		// turn's end.
		if err := p.Send([]byte(command1("SET", keys[0], "0"))); err != nil {
			t.Fatal(err)
		}
		m.settle()
		if p.unrun != 0 {
			t.Fatalf("seed %d: %d bytes not run after a local SET, want 0", seed, p.unrun)
		}
		want := strings.Builder{}
		want.WriteString("+OK\r\n")
		big := strings.Repeat("v", 64<<10)
		for i := range 40 { // 2.5 MiB: more than pipeRoom, in sends that never wait for room
			var b strings.Builder
			k := keys[i%3]
			b.WriteString(command1("SET", k, big))
			b.WriteString(command1("INCR", "n:"+k))
			b.WriteString(command1("MSET", keys[0], fmt.Sprint(i), keys[2], fmt.Sprint(i)))
			want.WriteString(fmt.Sprintf("+OK\r\n:%d\r\n+OK\r\n", i/3+1))
			if err := p.Send([]byte(b.String())); err != nil {
				t.Fatal(err)
			}
			if i%3 == 2 {
				m.settle()
			}
		}
		m.settle()
		if p.unrun != 0 {
			t.Fatalf("seed %d: %d bytes not run after the run, want 0", seed, p.unrun)
		}
		if string(end.got) != want.String() {
			t.Fatalf("seed %d: replies %q..., want %q...", seed, end.got[:min(len(end.got), 200)], want.String()[:200])
		}
		c := m.dial(1)
		if got := m.do(c, "MGET "+keys[0]+" "+keys[2]+"\r\n"); got != "*2\r\n$2\r\n39\r\n$2\r\n39\r\n" {
			t.Fatalf("seed %d: MGET after the pipe's writes: %q", seed, got)
		}
		if got := m.do(c, "SET x 1\r\n"); !strings.HasPrefix(got, "-READONLY") {
			t.Fatalf("seed %d: a client's write on the replica: %q", seed, got)
		}
		p.Close()
		m.settle()
		if !end.closed || end.after {
			t.Fatalf("seed %d: closed %v, a reply after the close %v", seed, end.closed, end.after)
		}
		if err := p.Send([]byte(command1("SET", "a", "b"))); err == nil {
			t.Fatalf("seed %d: a send after the close did not fail", seed)
		}
		if n := len(m.g.shards[0].conns); n != 0 || len(m.g.shards[0].pipes) != 0 {
			t.Fatalf("seed %d: %d connections, %d pipes left on the pipe's shard", seed, n, len(m.g.shards[0].pipes))
		}
		m.noneLeft()
	}
}

// TestPipeKilled: CLIENT LIST shows a pipe as the master's client, at the
// primary's address; CLIENT KILL TYPE master closes it: its sender hears
// of it, with the replies written before.
func TestPipeKilled(t *testing.T) {
	m := newSim(t, 2, 1)
	end := &pipeEnd{}
	p := m.g.shards[1].openPipe("127.0.0.1:6379", end.answered)
	if err := p.Send([]byte(command1("SET", "k", "v"))); err != nil {
		t.Fatal(err)
	}
	m.settle()
	c := m.dial(0)
	if got := m.do(c, "CLIENT LIST TYPE master\r\n"); !strings.Contains(got, " addr=127.0.0.1:6379 ") ||
		!strings.Contains(got, " flags=M ") {
		t.Fatalf("CLIENT LIST TYPE master: %q", got)
	}
	if got := m.do(c, "CLIENT KILL TYPE master\r\n"); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL TYPE master: %q", got)
	}
	m.settle()
	if string(end.got) != "+OK\r\n" || !end.closed || end.after {
		t.Fatalf("the sender got %q, closed %v", end.got, end.closed)
	}
}

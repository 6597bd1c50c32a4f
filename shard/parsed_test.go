package shard

import (
	"strconv"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// TestParsedAheadPipeline: a pipeline whose commands prefetch parses
// ahead (long enough to look ahead, short commands and long ones that are
// not kept, arriving in random pieces) gets every reply, in order, as the
// commands parsed one at a time would.
func TestParsedAheadPipeline(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		m := newSim(t, 1, seed)
		c := m.dial(0)
		var req []byte
		var want strings.Builder
		for i := range 200 {
			k := "key:" + strconv.Itoa(i%37)
			switch i % 5 {
			case 0, 1:
				req = resp.AppendCommand(req, []byte("SET"), []byte(k), []byte("v"+strconv.Itoa(i)))
				want.WriteString("+OK\r\n")
			case 2:
				req = resp.AppendCommand(req, []byte("ECHO"), []byte("e"+strconv.Itoa(i)))
				v := "e" + strconv.Itoa(i)
				want.WriteString("$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n")
			case 3:
				// 21 args: parsed ahead but not kept, nor what follows it.
				args := [][]byte{[]byte("MSET")}
				for j := range 10 {
					args = append(args, []byte("m:"+strconv.Itoa(j)), []byte(strconv.Itoa(i)))
				}
				req = resp.AppendCommand(req, args...)
				want.WriteString("+OK\r\n")
			case 4:
				req = resp.AppendCommand(req, []byte("INCR"), []byte("n"))
				want.WriteString(":" + strconv.Itoa(i/5+1) + "\r\n")
			}
		}
		if got := m.do(c, string(req)); got != want.String() {
			t.Fatalf("seed %d: the replies differ from the commands one by one:\n got %.200q\nwant %.200q", seed, got, want.String())
		}
		s := m.g.shards[0]
		if len(s.parsed.cmds) != 0 || len(s.parsed.args) != 0 {
			t.Fatalf("seed %d: serve kept %d parsed commands after it returned", seed, len(s.parsed.cmds))
		}
	}
}

// TestParsedAheadTake: take hands out the kept commands in order while
// the input starts where the next one does, and drops them all when it
// does not.
func TestParsedAheadTake(t *testing.T) {
	in := []byte("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n")
	var p parsedAhead
	var r resp.Reader
	for rest := in; len(rest) > 0; {
		args, n, err := r.NextAppend(rest, p.args)
		if err != nil || n == 0 {
			t.Fatal(n, err)
		}
		if !p.add(rest, n, args) {
			t.Fatal("a short command was not kept")
		}
		rest = rest[n:]
	}
	args, n, _, ok := p.take(in)
	if !ok || n != 14 || len(args) != 1 || string(args[0]) != "PING" {
		t.Fatalf("first: %q %d %v", args, n, ok)
	}
	if _, _, _, ok := p.take(in); ok || p.next != 0 || len(p.cmds) != 0 {
		t.Fatalf("take of input that does not start at the next command: ok %v, %d kept", ok, len(p.cmds))
	}
	if !p.add(in, 14, [][]byte{in[8:12]}) || p.add(in[14:], 1, make([][]byte, parsedMaxArgs+1)) {
		t.Fatal("add kept a long command or refused a short one")
	}
}

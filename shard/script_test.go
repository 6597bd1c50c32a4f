package shard

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestScripts runs the simulator scripts in testdata/*.txt: one directive
// a line, '#' starts a comment. A script states one interleaving step by
// step (which shard takes a turn, which batch is delivered, when the clock
// moves) and what each client must have received.
//
//	shards 2             the group (first line; optional "seed N" after it
//	                     picks the order settle uses)
//	key a 1              $a names a key that lives on shard 1
//	dial c1 0            open connection c1 on shard 0 (accepted at once)
//	send c1 BLPOP $a 0.01
//	                     c1 writes the command; one read hands it over
//	turn 0               shard 0 takes one loop turn (Poll's completions,
//	                     Turn, its outbox into the network)
//	deliver 0 1 park     the oldest batch from 0 to 1 reaches 1's inbox;
//	                     its message kinds must be these (comma-separated)
//	tick 20ms            the clock moves
//	settle               seed-chosen steps until nothing moves
//	expect c1 (nil)      c1's next reply, written as redis-cli does
//	                     ("none": c1 has received nothing more)
//	noneleft             no shard holds locks, deferred work or waiters
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatal("no scripts in testdata:", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScript(t, f) })
	}
}

func runScript(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var m *sim
	shards := 0
	keys := map[string]string{}
	perShard := map[int]int{}
	conns := map[string]*simConn{}
	conn := func(name string) *simConn {
		c := conns[name]
		if c == nil {
			t.Fatalf("%s: no connection %s", path, name)
		}
		return c
	}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		at := fmt.Sprintf("%s:%d: %s", path, line, strings.TrimSpace(text))
		num := func(i int) int {
			if i >= len(w) {
				t.Fatalf("%s: missing argument", at)
			}
			n, err := strconv.Atoi(w[i])
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			return n
		}
		if m == nil && w[0] != "shards" {
			t.Fatalf("%s: a script starts with shards", at)
		}
		switch w[0] {
		case "shards":
			shards = num(1)
			m = newSim(t, shards, 1)
		case "seed":
			m = newSim(t, shards, uint64(num(1)))
		case "key":
			// The n-th name on a shard gets the shard's n-th key.
			sh := num(2)
			perShard[sh]++
			keys[w[1]] = keysOn(sh, shards, perShard[sh])[perShard[sh]-1]
		case "dial":
			conns[w[1]] = m.dial(num(2))
		case "send":
			c := conn(w[1])
			var b resp.Writer
			b.Array(len(w) - 2)
			for _, a := range w[2:] {
				if k, ok := keys[strings.TrimPrefix(a, "$")]; ok && a[0] == '$' {
					a = k
				}
				b.BulkString(a)
			}
			m.write(c, string(b.B))
			m.read(c, true)
		case "turn":
			m.turn(num(1))
		case "deliver":
			src, dst := num(1), num(2)
			if len(m.queue[src][dst]) == 0 {
				t.Fatalf("%s: nothing in flight from %d to %d", at, src, dst)
			}
			var kinds []string
			for _, msg := range m.queue[src][dst][0] {
				kinds = append(kinds, msg.kind.String())
			}
			if got := strings.Join(kinds, ","); len(w) > 3 && got != w[3] {
				t.Fatalf("%s: the batch is %s", at, got)
			}
			m.deliverNext(src, dst)
		case "tick":
			d, err := time.ParseDuration(w[1])
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			m.advance(d)
		case "settle":
			m.settle()
		case "expect":
			c := conn(w[1])
			want := strings.Join(w[2:], " ")
			for name, k := range keys {
				want = strings.ReplaceAll(want, "$"+name, k)
			}
			m.collect()
			got := "none"
			if v, n, err := resp.ReadReply(c.got); err == nil && n > 0 {
				got = cliFormat(v)
				c.got = c.got[n:]
			}
			if got != want {
				t.Fatalf("%s: got %s", at, got)
			}
		case "noneleft":
			m.noneLeft()
		default:
			t.Fatalf("%s: unknown directive", at)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// cliFormat writes a reply on one line, as redis-cli would: (nil),
// (integer) 1, "bulk", (error) ERR ..., arrays as [a, b].
func cliFormat(v resp.Value) string {
	switch {
	case v.Null || v.Type == '_':
		return "(nil)"
	case v.Type == ':':
		return fmt.Sprintf("(integer) %d", v.Int)
	case v.Type == '-' || v.Type == '!':
		return "(error) " + string(v.Str)
	case v.Type == '+':
		return string(v.Str)
	case v.Elems != nil || v.Type == '*' || v.Type == '~' || v.Type == '%':
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = cliFormat(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return strconv.Quote(string(v.Str))
}

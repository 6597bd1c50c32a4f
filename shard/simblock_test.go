package shard

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// TestSimBlockingConservation: several clients on several shards push
// unique elements to lists of several shards and pop them with blocking
// pops (BLPOP, BRPOP, BLMPOP over 1-3 keys, BLMOVE across shards) with short
// timeouts, all at once, in seed-chosen interleavings. Every client gets
// every reply (nothing hangs), no shard keeps a lock or a waiter, and every
// element pushed was popped by exactly one client or is still in a list:
// claims, timeouts and withdrawals racing each other lose nothing and
// duplicate nothing, SWAPDB now and then included (the lists move between
// databases 0 and 1).
func TestSimBlockingConservation(t *testing.T) {
	for seed := uint64(1); seed <= uint64(*simSeeds)*4; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { simConserve(t, seed, 6, 300) })
	}
}

func simConserve(t *testing.T, seed uint64, clients, ops int) {
	m := newSim(t, 3, seed)
	m.jitter = true
	m.trace = []string{}
	lists := []string{"l1", "l2", "l3", "{t}l2", "l4", "l5"}
	type client struct {
		c    *simConn
		cmd  []string // awaiting its reply
		done int
	}
	cs := make([]*client, clients)
	for i := range cs {
		cs[i] = &client{c: m.dial(m.r.IntN(3))}
	}
	var pushed, popped []string
	next := 0
	command := func() []string {
		l := func() string { return lists[m.r.IntN(len(lists))] }
		timeout := fmt.Sprintf("0.0%d", 1+m.r.IntN(5))
		if m.r.IntN(40) == 0 {
			return []string{"SWAPDB", "0", "1"}
		}
		switch m.r.IntN(6) {
		case 0, 1:
			args := []string{m.pick("LPUSH", "RPUSH"), l()}
			for range 1 + m.r.IntN(3) {
				next++
				args = append(args, fmt.Sprint("e", next))
				pushed = append(pushed, fmt.Sprint("e", next))
			}
			return args
		case 2:
			args := []string{m.pick("BLPOP", "BRPOP")}
			for range 1 + m.r.IntN(3) {
				args = append(args, l())
			}
			return append(args, timeout)
		case 3:
			args := []string{"BLMPOP", timeout, fmt.Sprint(1 + m.r.IntN(3))}
			for range args[2][0] - '0' {
				args = append(args, l())
			}
			return append(args, m.pick("LEFT", "RIGHT"), "COUNT", "2")
		case 4:
			return []string{"BLMOVE", l(), l(), m.pick("LEFT", "RIGHT"), m.pick("LEFT", "RIGHT"), timeout}
		default:
			return []string{m.pick("LPOP", "RPOP"), l()}
		}
	}
	// consumed records the elements a reply took out of the lists.
	consumed := func(args []string, v resp.Value) {
		switch strings.ToUpper(args[0]) {
		case "BLPOP", "BRPOP":
			if len(v.Elems) == 2 {
				popped = append(popped, string(v.Elems[1].Str))
			}
		case "BLMPOP":
			if len(v.Elems) == 2 {
				for _, e := range v.Elems[1].Elems {
					popped = append(popped, string(e.Str))
				}
			}
		case "LPOP", "RPOP":
			if v.Type == '$' && !v.Null {
				popped = append(popped, string(v.Str))
			}
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d: %s\nlast steps:\n%s", seed, fmt.Sprintf(format, args...),
			strings.Join(m.trace[max(0, len(m.trace)-80):], "\n"))
	}
	for n := 0; ; n++ {
		if n > 2_000_000 {
			fail("clients still wait for replies")
		}
		idle := 0
		for _, cl := range cs {
			if cl.cmd == nil && cl.done < ops {
				cl.cmd = command()
				var w resp.Writer
				w.Array(len(cl.cmd))
				for _, a := range cl.cmd {
					w.BulkString(a)
				}
				m.write(cl.c, string(w.B))
				m.log("c%d sends %s", cl.c.id, strings.Join(cl.cmd, " "))
			}
			if cl.cmd == nil {
				idle++
			}
		}
		if idle == len(cs) {
			break
		}
		if m.busy() {
			m.step()
		} else {
			m.fire()
		}
		m.collect()
		for _, cl := range cs {
			if cl.cmd == nil {
				continue
			}
			v, used, err := resp.ReadReply(cl.c.got)
			if err != nil {
				fail("bad reply %q: %v", cl.c.got, err)
			}
			if used == 0 {
				continue
			}
			if v.Type == '-' {
				fail("%v: %s", cl.cmd, v.Str)
			}
			consumed(cl.cmd, v)
			m.log("c%d got %q", cl.c.id, cl.c.got[:used])
			cl.c.got = cl.c.got[used:]
			cl.cmd = nil
			cl.done++
		}
	}
	m.settle()
	m.noneLeft()
	left := slices.Clone(popped)
	for db := range 2 {
		m.do(cs[0].c, fmt.Sprintf("SELECT %d\r\n", db))
		for _, l := range lists {
			out := m.do(cs[0].c, fmt.Sprintf("LRANGE %s 0 -1\r\n", l))
			v, _, err := resp.ReadReply([]byte(out))
			if err != nil {
				fail("LRANGE: %v", err)
			}
			for _, e := range v.Elems {
				left = append(left, string(e.Str))
			}
		}
	}
	slices.Sort(left)
	slices.Sort(pushed)
	if !slices.Equal(left, pushed) {
		for i := 1; i < len(left); i++ {
			if left[i] == left[i-1] {
				fail("%s was popped twice, or popped and left", left[i])
			}
		}
		var lost []string
		for _, e := range pushed {
			if !slices.Contains(left, e) {
				lost = append(lost, e)
			}
		}
		t.Fatalf("seed %d: %d elements pushed, %d popped or left; lost %v\n%s", seed, len(pushed), len(left), lost, strings.Join(m.trace, "\n"))
	}
}

// pick chooses one of s with the simulation's seed.
func (m *sim) pick(s ...string) string { return s[m.r.IntN(len(s))] }

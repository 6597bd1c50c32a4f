package shard

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
)

// TestSimPubSubQueryHeld: PUBSUB NUMSUB's parts are typed queries the
// simulator reads in flight (each names the channels it asks about), and
// their answers carry each shard's count as it was when it answered: held
// in flight while a subscriber leaves, then delivered in a seed-chosen
// order, they still add up to the counts at query time; the next query
// sees the change.
func TestSimPubSubQueryHeld(t *testing.T) {
	for seed := range uint64(16) {
		m := newSim(t, 3, seed+1)
		c := m.dial(0)
		s1, s2 := m.dial(1), m.dial(2)
		if got := m.do(s1, "SUBSCRIBE ch\r\n"); !strings.Contains(got, "subscribe") {
			t.Fatalf("seed %d: SUBSCRIBE: %q", seed, got)
		}
		if got := m.do(s2, "SUBSCRIBE ch ch2\r\n"); !strings.Contains(got, "ch2") {
			t.Fatalf("seed %d: SUBSCRIBE: %q", seed, got)
		}
		answers := 0
		m.hold = func(src, dst int, b []message) bool {
			return slices.ContainsFunc(b, func(msg message) bool { return msg.kind == msgPSAnswer }) && answers < 2
		}
		m.write(c, "PUBSUB NUMSUB ch ch2\r\n")
		asked := map[int]string{}
		for n := 0; ; n++ {
			if n > 100_000 {
				t.Fatalf("seed %d: the query does not settle", seed)
			}
			answers = 0
			m.inFlight(func(dst int, msg message) {
				switch msg.kind {
				case msgPSQuery:
					q, ok := msg.data.(*psQuery)
					if !ok || q.op != command.PSNumSub || q.home != 0 || q.at != dst {
						t.Fatalf("seed %d: %v to %d is not a typed query of home 0: %#v", seed, msg.kind, dst, msg.data)
					}
					asked[dst] = bytesJoin(q.args)
				case msgPSAnswer:
					answers++
				}
			})
			if answers == 2 || !m.busy() {
				break
			}
			m.step()
		}
		if answers != 2 || fmt.Sprint(asked) != "map[1:ch ch2 2:ch ch2]" {
			t.Fatalf("seed %d: %d answers held, queries %v", seed, answers, asked)
		}
		// While the answers are held, shard 1's subscriber leaves.
		m.hold = func(src, dst int, b []message) bool { return dst == 0 }
		if got := m.do(s1, "UNSUBSCRIBE ch\r\n"); !strings.Contains(got, "unsubscribe") {
			t.Fatalf("seed %d: UNSUBSCRIBE: %q", seed, got)
		}
		if got := m.take(c); got != "" {
			t.Fatalf("seed %d: a reply before the answers: %q", seed, got)
		}
		first, second := 1, 2
		if seed%2 == 1 {
			first, second = 2, 1
		}
		m.deliverNext(first, 0)
		m.deliverNext(second, 0)
		m.hold = nil
		m.settle()
		want := "*4\r\n$2\r\nch\r\n:2\r\n$3\r\nch2\r\n:1\r\n"
		if got := m.take(c); got != want {
			t.Fatalf("seed %d: NUMSUB %q, want %q", seed, got, want)
		}
		want = "*4\r\n$2\r\nch\r\n:1\r\n$3\r\nch2\r\n:1\r\n"
		if got := m.do(c, "PUBSUB NUMSUB ch ch2\r\n"); got != want {
			t.Fatalf("seed %d: NUMSUB after: %q, want %q", seed, got, want)
		}
		m.noneLeft()
	}
}

// TestSimScanSteps: a SCAN step on another shard is a hop the simulator
// reads in flight (a SCAN, marked so), whose owner rewrites the cursor:
// following the cursors from 0, with a seed's deliveries, visits every
// shard in order and returns every key once.
func TestSimScanSteps(t *testing.T) {
	for seed := range uint64(8) {
		m := newSim(t, 3, seed+1)
		c := m.dial(1)
		var all []string
		for sh := range 3 {
			for _, k := range keysOn(sh, 3, 4) {
				if got := m.do(c, "SET "+k+" v\r\n"); got != "+OK\r\n" {
					t.Fatalf("SET: %q", got)
				}
				all = append(all, k)
			}
		}
		var seen []string
		var hops []int
		cursor := "0"
		for steps := 0; ; steps++ {
			if steps > 10 {
				t.Fatalf("seed %d: SCAN does not end: %v", seed, seen)
			}
			m.write(c, "SCAN "+cursor+" COUNT 100\r\n")
			for n := 0; m.busy(); n++ {
				if n > 100_000 {
					t.Fatalf("seed %d: SCAN does not settle", seed)
				}
				m.inFlight(func(dst int, msg message) {
					if msg.kind != msgHop {
						return
					}
					if h := msg.hop; h == nil || !h.scan || h.spec.Name != "scan" || h.home != 1 {
						t.Fatalf("seed %d: a hop to %d that is not a SCAN step of home 1", seed, dst)
					}
					if !slices.Contains(hops, dst) {
						hops = append(hops, dst)
					}
				})
				m.step()
			}
			v, _, err := resp.ReadReply([]byte(m.take(c)))
			if err != nil || len(v.Elems) != 2 {
				t.Fatalf("seed %d: SCAN reply %v %v", seed, v, err)
			}
			for _, e := range v.Elems[1].Elems {
				seen = append(seen, string(e.Str))
			}
			if cursor = string(v.Elems[0].Str); cursor == "0" {
				break
			}
		}
		slices.Sort(seen)
		slices.Sort(all)
		if !slices.Equal(seen, all) || fmt.Sprint(hops) != "[0 2]" {
			t.Fatalf("seed %d: SCAN saw %v (want %v), hopped to %v", seed, seen, all, hops)
		}
		m.noneLeft()
	}
}

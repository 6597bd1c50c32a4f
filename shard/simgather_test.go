package shard

import (
	"fmt"
	"strings"
	"testing"
)

// TestSimGatherMessages: the gather plan's steps are values the simulator
// reads in flight, in whatever order a seed delivers them: each export
// names its part's keys and the database each is read from (COPY ... DB
// n: the destination from n), and each write-back carries the keys the
// command changed, and only those, with their new values.
func TestSimGatherMessages(t *testing.T) {
	for seed := range uint64(24) {
		m := newSim(t, 3, seed+1)
		c := m.dial(0) // no part: a message to itself would not be in flight
		src, dst := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
		if got := m.do(c, "SET "+src+" v\r\n"); got != "+OK\r\n" {
			t.Fatalf("SET: %q", got)
		}
		for _, tc := range []struct {
			req, reply      string
			exports, writes map[int]string // per shard: "db:key", "db:key=ok"
		}{
			{req: "COPY " + src + " " + dst + " DB 3", reply: ":1\r\n",
				exports: map[int]string{1: "0:" + src, 2: "3:" + dst}, writes: map[int]string{1: "", 2: "3:" + dst + "=true"}},
			{req: "COPY " + src + " " + dst + " DB 3", reply: ":0\r\n",
				exports: map[int]string{1: "0:" + src, 2: "3:" + dst}, writes: map[int]string{1: "", 2: ""}},
			{req: "RENAME " + src + " " + dst, reply: "+OK\r\n",
				exports: map[int]string{1: "0:" + src, 2: "0:" + dst},
				writes:  map[int]string{1: "0:" + src + "=false", 2: "0:" + dst + "=true"}},
		} {
			m.write(c, tc.req+"\r\n")
			exports, writes := map[int]string{}, map[int]string{}
			for n := 0; m.busy(); n++ {
				if n > 100_000 {
					t.Fatalf("seed %d: %s does not settle", seed, tc.req)
				}
				m.inFlight(func(dst int, msg message) {
					switch msg.kind {
					case msgGather, msgWriteBack:
						pm := msg.part
						if pm == nil || pm.home != c.shard || pm.p.Shard != dst {
							t.Fatalf("seed %d: %s: %v to shard %d is not a typed part message of home %d", seed, tc.req, msg.kind, dst, c.shard)
						}
						var b []string
						if msg.kind == msgGather {
							for _, r := range pm.reads {
								b = append(b, fmt.Sprintf("%d:%s", r.DB, r.Key))
							}
							exports[dst] = strings.Join(b, " ")
							return
						}
						for _, e := range pm.entries {
							b = append(b, fmt.Sprintf("%d:%s=%v", e.db, e.key, e.ok))
						}
						writes[dst] = strings.Join(b, " ")
					}
				})
				m.step()
			}
			if got := m.take(c); got != tc.reply {
				t.Fatalf("seed %d: %s: %q, want %q", seed, tc.req, got, tc.reply)
			}
			if fmt.Sprint(exports) != fmt.Sprint(tc.exports) || fmt.Sprint(writes) != fmt.Sprint(tc.writes) {
				t.Fatalf("seed %d: %s: exports %v, write-backs %v; want %v, %v", seed, tc.req, exports, writes, tc.exports, tc.writes)
			}
		}
		if got := m.do(c, "SELECT 3\r\nGET "+dst+"\r\nSELECT 0\r\nGET "+dst+"\r\nEXISTS "+src+"\r\n"); got != "+OK\r\n$1\r\nv\r\n+OK\r\n$1\r\nv\r\n:0\r\n" {
			t.Fatalf("seed %d: after: %q", seed, got)
		}
		m.noneLeft()
	}
}

// inFlight calls fn with each message in the network, and its
// destination.
func (m *sim) inFlight(fn func(dst int, msg message)) {
	for _, qs := range m.queue {
		for dst, q := range qs {
			for _, b := range q {
				for _, msg := range b {
					fn(dst, msg)
				}
			}
		}
	}
}

// TestSimPartRunMessages: a txn's part-runs and a command's on every shard
// are values the simulator reads in flight: each names its part's
// command, and each answer carries the part's reply.
func TestSimPartRunMessages(t *testing.T) {
	for seed := range uint64(12) {
		m := newSim(t, 3, seed+1)
		c := m.dial(0) // no part: a message to itself would not be in flight
		k1, k2 := keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
		if got := m.do(c, "SET "+k1+" a\r\nSET "+k2+" b\r\n"); got != "+OK\r\n+OK\r\n" {
			t.Fatalf("SET: %q", got)
		}
		for _, tc := range []struct {
			req, reply  string
			runs, dones map[int]string // per part's shard: its command, its reply
		}{
			{req: "MGET " + k1 + " " + k2, reply: "*2\r\n$1\r\na\r\n$1\r\nb\r\n",
				runs:  map[int]string{1: "MGET " + k1, 2: "MGET " + k2},
				dones: map[int]string{1: "*1\r\n$1\r\na\r\n", 2: "*1\r\n$1\r\nb\r\n"}},
			{req: "DBSIZE", reply: ":2\r\n",
				runs:  map[int]string{1: "DBSIZE", 2: "DBSIZE"},
				dones: map[int]string{1: ":1\r\n", 2: ":1\r\n"}},
		} {
			m.write(c, tc.req+"\r\n")
			runs, dones := map[int]string{}, map[int]string{}
			for n := 0; m.busy(); n++ {
				if n > 100_000 {
					t.Fatalf("seed %d: %s does not settle", seed, tc.req)
				}
				m.inFlight(func(dst int, msg message) {
					pm := msg.part
					switch {
					case msg.kind == msgPartRun && pm != nil && pm.home == 0:
						args := make([]string, len(pm.args))
						for i, a := range pm.args {
							args[i] = string(a)
						}
						runs[dst] = strings.Join(args, " ")
					case msg.kind == msgPartDone && pm != nil && pm.step == msgPartRun && dst == 0:
						dones[pm.t.parts[pm.part].Shard] = string(pm.reply)
					case msg.kind == msgPartRun || msg.kind == msgPartDone:
						t.Fatalf("seed %d: %s: %v to shard %d is not a typed part message", seed, tc.req, msg.kind, dst)
					}
				})
				m.step()
			}
			if got := m.take(c); got != tc.reply {
				t.Fatalf("seed %d: %s: %q, want %q", seed, tc.req, got, tc.reply)
			}
			if fmt.Sprint(runs) != fmt.Sprint(tc.runs) || fmt.Sprint(dones) != fmt.Sprint(tc.dones) {
				t.Fatalf("seed %d: %s: runs %v, answers %v; want %v, %v", seed, tc.req, runs, dones, tc.runs, tc.dones)
			}
		}
		m.noneLeft()
	}
}

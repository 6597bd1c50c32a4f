package shard

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// deliveries returns the deliveries a trace records.
func deliveries(trace []string) []string {
	var out []string
	for _, l := range trace {
		if strings.HasPrefix(l, "deliver") {
			out = append(out, l)
		}
	}
	return out
}

// TestExecMessages: a transaction whose keys (watched ones included) all
// live on the connection's shard costs no message; one whose keys live on
// one other shard costs one there and its answer.
func TestExecMessages(t *testing.T) {
	m := newSim(t, 4, 1)
	c := m.dial(0)
	a, b := keysOn(0, 4, 2), keysOn(2, 4, 2)
	block := func(k []string) string {
		return resp2("WATCH "+k[0]) + resp2("MULTI") + resp2("SET "+k[0]+" 1") + resp2("INCR "+k[1]) +
			resp2("PING") + resp2("MGET "+k[0]+" "+k[1]) + resp2("EXEC")
	}
	const want = "+OK\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n" +
		"*4\r\n+OK\r\n:1\r\n+PONG\r\n*2\r\n$1\r\n1\r\n$1\r\n1\r\n"
	m.trace = []string{}
	if got := m.do(c, block(a)); got != want {
		t.Fatalf("on the connection's shard: %q", got)
	}
	if d := deliveries(m.trace); len(d) != 0 {
		t.Fatalf("on the connection's shard: %v", d)
	}
	m.trace = []string{}
	if got := m.do(c, block(b)); got != want {
		t.Fatalf("on another shard: %q", got)
	}
	// WATCH's round trip, the EXEC's, and the unwatch.
	if d := deliveries(m.trace); strings.Join(d, "|") !=
		"deliver 0->2 watch|deliver 2->0 watched|deliver 0->2 exec|deliver 2->0 part-done|deliver 0->2 unwatch" {
		t.Fatalf("on another shard: %v", d)
	}
}

// TestExecEffects: an EXEC's effects on a shard are wrapped in MULTI and
// EXEC when there are several, and tagged with their part across shards.
func TestExecEffects(t *testing.T) {
	m := newSim(t, 4, 1)
	log := record(m.g)
	c := m.dial(0)
	a, b := keysOn(1, 4, 2), keysOn(3, 4, 2)
	m.do(c, resp2("MULTI")+resp2("SET "+a[0]+" 1")+resp2("INCR "+a[1])+resp2("EXEC"))
	m.do(c, resp2("MULTI")+resp2("SET "+a[0]+" 2")+resp2("SET "+b[0]+" 1")+resp2("INCR "+b[1])+resp2("GET "+a[1])+
		resp2("EXEC"))
	m.settle()
	for _, s := range m.g.shards {
		s.flushEffects()
	}
	show := func(sh int) string {
		var out []string
		for _, r := range log[sh] {
			out = append(out, fmt.Sprintf("%s %d/%d", bytesJoin(r.args), r.eff.Tag.Part, r.eff.Tag.Parts))
		}
		return strings.Join(out, "\n")
	}
	want1 := fmt.Sprintf("MULTI 0/0\nSET %s 1 0/0\nINCR %s 0/0\nEXEC 0/0\nSET %s 2 0/2", a[0], a[1], a[0])
	if got := show(1); got != want1 {
		t.Errorf("shard 1's effects:\n%s\nwant\n%s", got, want1)
	}
	want3 := fmt.Sprintf("MULTI 1/2\nSET %s 1 1/2\nINCR %s 1/2\nEXEC 1/2", b[0], b[1])
	if got := show(3); got != want3 {
		t.Errorf("shard 3's effects:\n%s\nwant\n%s", got, want3)
	}
	if log[1][4].eff.Tag.Txn == 0 || log[1][4].eff.Tag.Txn != log[3][0].eff.Tag.Txn {
		t.Errorf("the parts' tags name different txns: %v, %v", log[1][4].eff.Tag, log[3][0].eff.Tag)
	}
}

func bytesJoin(args [][]byte) string {
	var s []string
	for _, a := range args {
		s = append(s, string(a))
	}
	return strings.Join(s, " ")
}

// TestQueueAllocates: once the connection's buffers have grown, a
// command queued inside MULTI (parse, checks, copy, +QUEUED) allocates
// nothing.
func TestQueueAllocates(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	s, d := m.g.shards[0], m.drv[0]
	m.do(c, resp2("MULTI"))
	req := []byte(resp2("SET key value") + resp2("INCR counter"))
	run := func() {
		d.in[c.id] = req
		s.OnData(c.id)
		out := d.Output(c.id)
		*out = (*out)[:0]
	}
	for range 150 {
		run()
	}
	tx := s.conns[c.id].tx
	tx.reset() // empty, with the buffers as they grew
	tx.on = true
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Fatalf("%v allocations per 2 queued commands", n)
	}
}

// TestUnwatchForgets: every watch is undone, on every shard, by EXEC,
// DISCARD, UNWATCH and the connection's close.
func TestUnwatchForgets(t *testing.T) {
	m := newSim(t, 3, 2)
	keys := "a b c d e f g h"
	for _, end := range []string{"EXEC", "DISCARD", "UNWATCH", "close"} {
		c := m.dial(1)
		req := resp2("WATCH " + keys)
		if end == "EXEC" || end == "DISCARD" {
			req += resp2("MULTI") + resp2("GET a") + resp2(end)
		} else if end == "UNWATCH" {
			req += resp2(end)
		}
		m.do(c, req)
		if end == "close" {
			m.hangup(c)
			m.settle()
		}
		for _, s := range m.g.shards {
			if len(s.mut.versions) != 0 {
				t.Errorf("after %s shard %d still tracks %v", end, s.id, s.mut.versions)
			}
		}
	}
}

// TestSimExecAtomic drives clients on every shard through the simulator
// from seeds, deliveries and turns in seed-chosen orders: MULTI/EXEC
// transfers between accounts on different shards, MGET and MULTI/EXEC
// readers, and WATCH-guarded increments of one counter (some of them
// aborted by the others). Every read sums to the total, the counter ends
// at the number of EXECs that ran, and no lock is left.
func TestSimExecAtomic(t *testing.T) {
	const shards, accounts, each = 4, 8, 100
	for seed := range uint64(40) {
		m := newSim(t, shards, seed)
		m.jitter = true
		var keys []string
		for sh := range shards {
			keys = append(keys, keysOn(sh, shards, accounts/shards)...)
		}
		setup := m.dial(0)
		for _, k := range keys {
			m.do(setup, resp2(fmt.Sprintf("SET %s %d", k, each)))
		}
		sum := func(who string, v resp.Value) {
			total := 0
			for _, e := range v.Elems {
				n, err := strconv.Atoi(string(e.Str))
				if err != nil {
					t.Fatalf("seed %d: %s read %q", seed, who, e.Str)
				}
				total += n
			}
			if total != accounts*each {
				t.Fatalf("seed %d: %s saw a sum of %d", seed, who, total)
			}
		}
		var movers, readers, counters []*simConn
		for i := range shards {
			movers = append(movers, m.dial(i))
			readers = append(readers, m.dial((i+1)%shards))
			counters = append(counters, m.dial((i+2)%shards))
		}
		wins, seen, aborted := 0, make([]int, len(counters)), 0
		for round := range 30 {
			for i, c := range movers {
				a, b := (round+i)%accounts, (round+3*i+1)%accounts
				if a == b {
					b = (b + 1) % accounts
				}
				m.write(c, resp2("MULTI")+resp2("DECRBY "+keys[a]+" 7")+resp2("INCRBY "+keys[b]+" 7")+resp2("EXEC"))
			}
			for i, c := range readers {
				if i%2 == 0 {
					m.write(c, resp2("MGET "+strings.Join(keys, " ")))
					continue
				}
				req := resp2("MULTI")
				for _, k := range keys {
					req += resp2("GET " + k)
				}
				m.write(c, req+resp2("EXEC"))
			}
			for _, c := range counters {
				m.write(c, resp2("WATCH counter")+resp2("GET counter"))
			}
			for i, c := range counters {
				v, _, _ := resp.ReadReply(m.replies(c, 2)[1])
				seen[i], _ = strconv.Atoi(string(v.Str))
				m.write(c, resp2("MULTI")+resp2(fmt.Sprintf("SET counter %d", seen[i]+1))+resp2("EXEC"))
			}
			for _, c := range movers {
				if r := m.replies(c, 4); !strings.HasPrefix(string(r[3]), "*2\r\n:") {
					t.Fatalf("seed %d: transfer answered %q", seed, r)
				}
			}
			for i, c := range readers {
				if i%2 == 0 {
					v, _, _ := resp.ReadReply(m.replies(c, 1)[0])
					sum("MGET", v)
					continue
				}
				r := m.replies(c, 2+len(keys))
				v, _, _ := resp.ReadReply(r[len(r)-1])
				sum("MULTI/EXEC", v)
			}
			for _, c := range counters {
				if r := m.replies(c, 3); string(r[2]) != "*-1\r\n" {
					wins++
				} else {
					aborted++
				}
			}
		}
		if aborted == 0 {
			t.Fatalf("seed %d: no WATCH aborted an EXEC", seed)
		}
		m.settle()
		m.noneLeft()
		got := m.do(setup, resp2("GET counter"))
		if want := fmt.Sprintf("$%d\r\n%d\r\n", len(strconv.Itoa(wins)), wins); got != want {
			t.Fatalf("seed %d: counter %q after %d EXECs ran", seed, got, wins)
		}
	}
}

// TestScanInMulti: a SCAN step inside MULTI answers what it answers
// outside, its cursor naming the next shard, on the connection's shard
// and on another.
func TestScanInMulti(t *testing.T) {
	m := newSim(t, 4, 1)
	c := m.dial(0)
	for i := range 40 {
		m.do(c, resp2(fmt.Sprintf("SET key%d v", i)))
	}
	for _, cursor := range []string{"0", "4", "2", "3"} {
		step := resp2("SCAN " + cursor + " COUNT 100")
		want := m.do(c, step)
		got := m.do(c, resp2("MULTI")+step+resp2("EXEC"))
		if got != "+OK\r\n+QUEUED\r\n*1\r\n"+want {
			t.Errorf("SCAN %s inside MULTI: %q, outside %q", cursor, got, want)
		}
	}
}

// TestExecOutOfMemory: under maxmemory with noeviction, a command queued
// inside MULTI is refused (-OOM) and EXEC aborts; a queue that may grow
// memory is refused whole at EXEC when a shard it writes is out of
// memory, on the connection's shard, on another, and across shards; one
// that only reads runs.
func TestExecOutOfMemory(t *testing.T) {
	const abortOOM = "-EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'.\r\n"
	noEviction, _ := engine.ParsePolicy("noeviction")
	full := func(m *sim, sh int) {
		s := m.g.shards[sh]
		s.store.SetMaxMemory(1, noEviction, 5)
	}
	for _, tc := range []struct {
		name  string
		shard []int // the keys' shards, the first one out of memory
	}{{"here", []int{0}}, {"another shard", []int{2}}, {"across shards", []int{1, 3}}} {
		m := newSim(t, 4, 1)
		c := m.dial(0)
		var keys []string
		for _, sh := range tc.shard {
			keys = append(keys, keysOn(sh, 4, 1)[0])
		}
		m.do(c, resp2("SET "+keys[0]+" v"))
		queue := resp2("MULTI")
		for _, k := range keys {
			queue += resp2("SET " + k + " 1")
		}
		if got := m.do(c, queue); !strings.HasSuffix(got, "+QUEUED\r\n") {
			t.Fatalf("%s: queueing: %q", tc.name, got)
		}
		full(m, tc.shard[0])
		if got := m.do(c, resp2("EXEC")); got != abortOOM {
			t.Errorf("%s: EXEC answered %q", tc.name, got)
		}
		m.noneLeft()
		if tc.shard[0] == 0 {
			continue // then queueing itself is refused: below
		}
		if got := m.do(c, resp2("MULTI")+resp2("GET "+keys[0])+resp2("EXEC")); got != "+OK\r\n+QUEUED\r\n*1\r\n$1\r\nv\r\n" {
			t.Errorf("%s: a read-only EXEC answered %q", tc.name, got)
		}
	}
	m := newSim(t, 1, 1)
	c := m.dial(0)
	m.do(c, resp2("SET k v"))
	full(m, 0)
	const want = "+OK\r\n-OOM command not allowed when used memory > 'maxmemory'.\r\n" +
		"-EXECABORT Transaction discarded because of previous errors.\r\n"
	if got := m.do(c, resp2("MULTI")+resp2("GET k")+resp2("EXEC")); got != want {
		t.Errorf("queued under OOM: %q", got)
	}
}

// TestMultiClientReply: CLIENT REPLY OFF silences the transaction rows,
// queueing, WATCH across shards and EXEC, on one shard and across shards.
func TestMultiClientReply(t *testing.T) {
	m := newSim(t, 4, 1)
	c := m.dial(0)
	a, b := keysOn(0, 4, 1)[0], keysOn(3, 4, 1)[0]
	req := resp2("CLIENT REPLY OFF") + resp2("WATCH "+a+" "+b) + resp2("MULTI") + resp2("SET "+a+" 1") +
		resp2("SET "+b+" 1") + resp2("EXEC") + resp2("MULTI") + resp2("SET "+a+" 2") + resp2("EXEC") +
		resp2("CLIENT REPLY SKIP") + resp2("MULTI") + resp2("MULTI") + resp2("DISCARD") + resp2("CLIENT REPLY ON") +
		resp2("MGET "+a+" "+b)
	// As redis-server 7.0.15 answers (SKIP under OFF stays silent).
	if got := m.do(c, req); got != "+OK\r\n*2\r\n$1\r\n2\r\n$1\r\n1\r\n" {
		t.Fatalf("%q", got)
	}
}

// TestMultiClientReplySkip: SKIP silences the next reply only, a WATCH's
// across shards included (as redis-server 7.0.15 answers).
func TestMultiClientReplySkip(t *testing.T) {
	m := newSim(t, 4, 1)
	c := m.dial(0)
	a, b := keysOn(1, 4, 1)[0], keysOn(3, 4, 1)[0]
	req := resp2("CLIENT REPLY SKIP") + resp2("WATCH "+a+" "+b) + resp2("CLIENT REPLY SKIP") + resp2("MULTI") +
		resp2("SET "+a+" 1") + resp2("SET "+b+" 1") + resp2("EXEC")
	if got := m.do(c, req); got != "+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n+OK\r\n" {
		t.Fatalf("%q", got)
	}
}

// TestMultiCommandStats: INFO commandstats counts the transaction rows as
// redis-server 7.0.15 does (calls, failed and rejected calls).
func TestMultiCommandStats(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	m.do(c, resp2("MULTI")+resp2("MULTI")+resp2("EXEC")+resp2("WATCH a")+resp2("UNWATCH")+resp2("DISCARD")+
		resp2("MULTI")+resp2("SHUTDOWN")+resp2("EXEC"))
	st := &m.g.shards[0].stats
	for _, tc := range []struct {
		name                    string
		calls, failed, rejected int64
	}{{"multi", 3, 1, 0}, {"exec", 2, 1, 0}, {"watch", 1, 0, 0}, {"unwatch", 1, 0, 0}, {"discard", 1, 1, 0},
		{"shutdown", 0, 0, 1}} {
		id := command.Lookup([]byte(tc.name)).ID()
		if st.calls[id] != tc.calls || st.failed[id] != tc.failed || st.refused[id] != tc.rejected {
			t.Errorf("%s: calls=%d failed=%d rejected=%d, want %d %d %d", tc.name, st.calls[id], st.failed[id],
				st.refused[id], tc.calls, tc.failed, tc.rejected)
		}
	}
}

// TestWatchAnswerAfterClose: a client WATCHes keys of another shard and
// closes before that shard answers; the answer then finds the watched
// list emptied by the close and undoes the watches itself (it indexed the
// emptied list and crashed the server, found by e2e/TestProtocolFuzz).
func TestWatchAnswerAfterClose(t *testing.T) {
	m := newSim(t, 2, 1)
	far := keysOn(1, 2, 2)
	c := m.dial(0)
	m.write(c, "WATCH "+far[0]+" "+far[1]+"\r\n")
	m.read(c, true)
	m.turn(0) // WATCH sent to shard 1
	m.hangup(c)
	m.turn(0) // the close empties the watched list
	m.deliverNext(0, 1)
	m.turn(1) // shard 1 answers with the versions
	m.deliverNext(1, 0)
	m.turn(0)
	m.settle()
	o := m.g.shards[1]
	if n := len(o.mut.versions); n != 0 {
		t.Errorf("shard 1 still watches %d keys after the client is gone", n)
	}
}

// TestClientKillInMulti: CLIENT KILL, which runs on every shard with a
// merge its arguments choose (its Route), runs so inside MULTI too, as
// Redis answers it; it once ran as a one-reply command on key copies,
// with no connections to look at, and stopped the server.
func TestClientKillInMulti(t *testing.T) {
	m := newSim(t, 3, 1)
	c, other := m.dial(0), m.dial(2)
	m.take(other)
	got := m.do(c, "MULTI\r\nCLIENT KILL 0\r\nCLIENT KILL ID 99999\r\nCLIENT KILL ID 2\r\nEXEC\r\n")
	want := "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n-ERR No such client\r\n:0\r\n:1\r\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !other.closed {
		t.Error("CLIENT KILL ID 2 in MULTI left client 2 open")
	}
}

// TestClientInfoInExec: while its EXEC runs, a client shows its MULTI
// (flags=x, multi= the commands queued), as Redis's, on one shard and
// across shards; after it, none.
func TestClientInfoInExec(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	for _, q := range []string{"SET {a}k 1\r\n", "SET {a}k 1\r\nSET {b}k 2\r\n"} {
		n := strings.Count(q, "SET") + 1
		m.write(c, "MULTI\r\n"+q+"CLIENT INFO\r\nEXEC\r\nCLIENT INFO\r\n")
		r := m.replies(c, n+3)
		exec, _, err := resp.ReadReply(r[n+1])
		if err != nil || len(exec.Elems) != n {
			t.Fatalf("%q: EXEC %q", q, r[n+1])
		}
		if in := string(exec.Elems[n-1].Str); !strings.Contains(in, " flags=x ") || !strings.Contains(in, " multi="+strconv.Itoa(n)+" ") {
			t.Errorf("%q in EXEC: %q", q, in)
		}
		if after := string(r[n+2]); !strings.Contains(after, " flags=N ") || !strings.Contains(after, " multi=-1 ") {
			t.Errorf("%q after EXEC: %q", q, after)
		}
	}
}

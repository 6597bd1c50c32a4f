package shard

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

// recorded is one effect copied out of a turn's stream.
type recorded struct {
	eff  command.Effect
	args [][]byte
}

// record makes every shard of g keep its effects in log[shard].
func record(g *Group) [][]recorded {
	log := make([][]recorded, len(g.shards))
	for _, s := range g.shards {
		s.mut.sink = func(shard int, fx *command.Effects) {
			for i := range fx.Len() {
				e, b := fx.At(i)
				v, n, err := resp.ReadReply(b)
				if err != nil || n != len(b) {
					panic(fmt.Sprintf("effect %q: %v", b, err))
				}
				var args [][]byte
				for _, a := range v.Elems {
					args = append(args, append([]byte(nil), a.Str...))
				}
				log[shard] = append(log[shard], recorded{e, args})
			}
		}
	}
	return log
}

// replay runs shard i's effects on shard i of g, in order and each at its
// time, as loading a shard's AOF does.
func replay(t *testing.T, g *Group, log [][]recorded) {
	for i, effects := range log {
		s := g.shards[i]
		for _, r := range effects {
			s.now = r.eff.Now
			spec, errText := s.cmds.Resolve(r.args)
			if errText != "" {
				t.Fatalf("effect %q: %s", r.args, errText)
			}
			if spec.Tx == command.TxMulti || spec.Tx == command.TxExec {
				continue // an EXEC's bounds: what is between them runs whole
			}
			if out := s.execTo(false, 2, r.eff.DB, spec, r.args); len(out) > 0 && out[0] == '-' {
				t.Fatalf("shard %d: effect %q answered %q", i, bytes.Join(r.args, []byte(" ")), out)
			}
		}
	}
}

// state renders every key of every shard and database of g: type, TTL and
// value, with set members and hash fields sorted (their order depends on
// the encoding).
func state(g *Group, now int64) string {
	var lines []string
	for _, s := range g.shards {
		for d := range s.store.Databases() {
			db := s.store.DB(d)
			var keys [][]byte
			db.Keys([]byte("*"), now, func(k []byte) bool {
				keys = append(keys, append([]byte(nil), k...))
				return true
			})
			for _, k := range keys {
				r, ok := db.Export(k, now)
				if !ok {
					continue
				}
				val := string(r.Data)
				if r.Type != engine.TypeString {
					var es []string
					r.Elements(func(m, v []byte, sc float64) { es = append(es, fmt.Sprintf("%q=%q/%v", m, v, sc)) })
					if r.Type == engine.TypeSet || r.Type == engine.TypeHash {
						slices.Sort(es)
					}
					val = strings.Join(es, " ")
				}
				lines = append(lines, fmt.Sprintf("db%d %q %s ttl=%d %s", d, k, r.Type, r.ExpireAt, val))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// writeGen draws random writes over a few keys of every type, spread over
// the shards, in three databases: the differential test's mix of writes.
type writeGen struct {
	r   *rand.Rand
	now int64
}

func (g *writeGen) key(kind byte) string {
	tags := []string{"", "{x}", "{y}", "{z}"}
	return fmt.Sprintf("%c%s%d", kind, tags[g.r.IntN(len(tags))], g.r.IntN(3))
}

func (g *writeGen) cmd() string {
	r := g.r
	s, l, h, st, z := g.key('s'), g.key('l'), g.key('h'), g.key('t'), g.key('z')
	v := fmt.Sprint(r.IntN(20))
	future := fmt.Sprint(g.now/1000 + 1000 + int64(r.IntN(100)))
	switch r.IntN(48) {
	case 0:
		return "SET " + s + " " + v
	case 1:
		return "SET " + s + " " + v + " EX " + fmt.Sprint(100+r.IntN(100))
	case 2:
		return "SET " + s + " " + v + " PX 2"
	case 3:
		return "SET " + s + " " + v + " NX GET"
	case 4:
		return "SET " + s + " " + v + " XX KEEPTTL"
	case 5:
		return "SET " + s + " " + v + " EXAT " + future
	case 6:
		return "SETEX " + s + " 500 " + v
	case 7:
		return "PSETEX " + s + " 900000 " + v
	case 8:
		return "GETEX " + s + " " + []string{"EX 300", "PERSIST", "PXAT 1"}[r.IntN(3)]
	case 9:
		return "INCRBY " + s + " " + v
	case 10:
		return "INCRBYFLOAT " + s + " 0.1"
	case 11:
		return "APPEND " + s + " " + v
	case 12:
		return "SETRANGE " + s + " 2 abc"
	case 13:
		return "GETDEL " + s
	case 14:
		return "MSET " + s + " 1 " + g.key('s') + " 2 " + g.key('s') + " 3"
	case 15:
		return "MSETNX " + s + " 1 " + g.key('s') + " 2"
	case 16:
		return "DEL " + s + " " + l + " " + h
	case 17:
		return []string{"EXPIRE", "PEXPIRE"}[r.IntN(2)] + " " + g.key("slhtz"[r.IntN(5)]) + " " + fmt.Sprint(200000+r.IntN(1000)) + " " + []string{"", "NX", "XX", "GT", "LT"}[r.IntN(5)]
	case 18:
		return "EXPIREAT " + s + " " + future
	case 19:
		return "PERSIST " + s
	case 20:
		return "RENAME " + s + " " + g.key('s')
	case 21:
		return "COPY " + l + " " + g.key('l') + " DB " + fmt.Sprint(r.IntN(3)) + " REPLACE"
	case 22:
		return "MOVE " + h + " " + fmt.Sprint(r.IntN(3))
	case 23:
		if r.IntN(8) == 0 {
			return "SWAPDB 0 " + fmt.Sprint(1+r.IntN(2))
		}
		return "SELECT " + fmt.Sprint(r.IntN(3))
	case 24:
		if r.IntN(10) == 0 {
			return "FLUSHDB"
		}
		return "LPUSH " + l + " a b c"
	case 25:
		return "RPUSH " + l + " " + v
	case 26:
		return "RPOP " + l
	case 27:
		return "LMOVE " + l + " " + g.key('l') + " LEFT RIGHT"
	case 28:
		return "LTRIM " + l + " 1 -2"
	case 29:
		return "LREM " + l + " 1 a"
	case 30:
		return "LSET " + l + " 0 q"
	case 31:
		return "LINSERT " + l + " BEFORE b " + v
	case 32:
		return "HSET " + h + " f" + v + " " + v + " g 1"
	case 33:
		return "HDEL " + h + " f" + v
	case 34:
		return "HINCRBYFLOAT " + h + " g 1.5"
	case 35:
		return "HINCRBY " + h + " g 2"
	case 36:
		return "SADD " + st + " " + v + " m" + v
	case 37:
		return "SREM " + st + " " + v
	case 38:
		return "SPOP " + st + []string{"", " 2"}[r.IntN(2)]
	case 39:
		return "SMOVE " + st + " " + g.key('t') + " " + v
	case 40:
		return []string{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}[r.IntN(3)] + " " + st + " " + g.key('t') + " " + g.key('t')
	case 41:
		return "ZADD " + z + " " + fmt.Sprint(r.IntN(5)) + " m" + v + " inf top"
	case 42:
		return "ZINCRBY " + z + " 1.5 m" + v
	case 43:
		return "ZPOPMIN " + z
	case 44:
		return "ZREM " + z + " m" + v
	case 45:
		return "ZUNIONSTORE " + z + " 2 " + g.key('z') + " " + g.key('z')
	case 46:
		return "ZRANGESTORE " + z + " " + g.key('z') + " 0 1"
	default:
		return "GET " + s // a read: may expire a key lazily
	}
}

// resp2 encodes a space-separated command as a RESP array.
func resp2(cmd string) string {
	f := strings.Fields(cmd)
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(f))
	for _, a := range f {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// TestEffectsReplay: the effects of a random write workload on three
// shards, replayed shard by shard into a fresh group, give the same keys,
// values and TTLs. The workload has every kind of write, keys on one and
// on several shards (hops, MSET parts, gathered RENAME/COPY/SMOVE/...),
// database switches, FLUSHDB and SWAPDB, keys expiring during it, and
// blocking pops served by later pushes.
func TestEffectsReplay(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			m := newSim(t, 3, seed)
			g := m.g
			log := record(g)
			gen := &writeGen{r: rand.New(rand.NewPCG(seed, 7)), now: m.now.UnixMilli()}
			client := m.dial(0)
			// Blocked clients on other connections of other shards, served
			// by the workload's pushes.
			blockers := []string{"BLPOP l0 l{x}1 0", "BRPOP l{y}2 l1 0", "BLMOVE l{z}0 l{x}2 RIGHT LEFT 0",
				"BZPOPMIN z0 z{y}1 0", "BLMPOP 0 2 l2 l{z}1 LEFT COUNT 2", "BZMPOP 0 1 z{x}2 MAX COUNT 3",
				"BRPOPLPUSH l{y}0 l{y}1 0"}
			var blocked []*simConn
			for i, b := range blockers {
				c := m.dial(1 + i%2)
				m.do(c, resp2(b))
				blocked = append(blocked, c)
			}
			for range 60 {
				var req strings.Builder
				for range 1 + gen.r.IntN(20) {
					req.WriteString(resp2(gen.cmd()))
				}
				m.do(client, req.String())
				m.advance(time.Millisecond)
			}
			m.tick(5 * time.Millisecond) // the PX 2 keys expire
			now := m.now.UnixMilli()
			want := state(g, now)
			for _, s := range g.shards {
				s.flushEffects() // the lazy expiries state just did
			}
			fresh := newSim(t, 3, seed)
			replay(t, fresh.g, log)
			if got := state(fresh.g, now); got != want {
				t.Fatalf("replayed state differs:\n got:\n%s\nwant:\n%s", got, want)
			}
			n := 0
			for _, l := range log {
				n += len(l)
			}
			served := 0
			for _, c := range blocked {
				served += min(len(m.take(c)), 1)
			}
			if served < 4 {
				t.Errorf("only %d of the blocked clients were served", served)
			}
			checkReplayable(t, log)
			if n < 200 || !strings.Contains(want, "db1") {
				t.Fatalf("the workload wrote too little: %d effects\n%s", n, want)
			}
		})
	}
}

// TestEffectForms checks the propagated form of the writes that are not
// replayed as themselves, and the effects of expiry and cross-shard parts.
func TestEffectForms(t *testing.T) {
	m := newSim(t, 2, 1)
	log := record(m.g)
	c := m.dial(0)
	m.do(m.dial(1), resp2("BLPOP bl 0"))
	now := m.now.UnixMilli()
	for _, cmd := range []string{
		"SET a 1 EX 100", "SET a 2 KEEPTTL", "SETEX b 10 x", "EXPIRE b 50", "PEXPIRE b -1",
		"SET c 1.5", "INCRBYFLOAT c 1", "GETEX c PX 5000", "GETEX c PERSIST",
		"SADD st m", "SPOP st", "HSET h f 1", "HINCRBYFLOAT h f 0.5",
		"SET gone 1 PX 1", "MSET " + keysOn(0, 2, 1)[0] + " 1 " + keysOn(1, 2, 1)[0] + " 2", "RPUSH bl v", "SET n 1", "SETNX n 2", "FLUSHALL",
	} {
		m.do(c, resp2(cmd))
		if cmd == "SET gone 1 PX 1" {
			m.advance(2 * time.Millisecond)
			m.do(c, resp2("GET gone"))
		}
	}
	var got []string
	for sh, l := range log {
		for _, r := range l {
			line := fmt.Sprintf("%d: %s", sh, bytes.Join(r.args, []byte(" ")))
			if r.eff.Cause == command.CauseExpired {
				line += " (expired)"
			}
			if r.eff.Tag.Parts > 0 {
				line += fmt.Sprintf(" (part %d/%d)", r.eff.Tag.Part, r.eff.Tag.Parts)
			}
			got = append(got, line)
		}
	}
	abs := func(d int64) string { return fmt.Sprint(now + d) }
	want := map[string]bool{
		"SET a 1 PXAT " + abs(100000): true, "SET a 2 PXAT " + abs(100000): true,
		"SET b x PXAT " + abs(10000): true, "PEXPIREAT b " + abs(50000): true, "DEL b": true,
		"SET c 2.5 KEEPTTL": true, "PEXPIREAT c " + abs(5000): true, "PERSIST c": true,
		"SREM st m": true, "HSET h f 1.5": true, "DEL gone (expired)": true,
		"LPOP bl": true, "SET n 1": true,
	}
	// Times: the test's clock and the shard's may differ by a few ms.
	near := func(line, w string) bool {
		if line == w {
			return true
		}
		lf, wf := strings.Fields(line), strings.Fields(w)
		if len(lf) != len(wf) {
			return false
		}
		for i := range lf {
			if lf[i] == wf[i] {
				continue
			}
			var a, b int64
			if _, err := fmt.Sscan(lf[i], &a); err != nil {
				return false
			}
			if _, err := fmt.Sscan(wf[i], &b); err != nil || a-b > 50 || b-a > 50 {
				return false
			}
		}
		return true
	}
	for w := range want {
		found := false
		for _, line := range got {
			found = found || near(line[3:], w)
		}
		if !found {
			t.Errorf("no effect %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
	parts, flushes := 0, 0
	for _, line := range got {
		if strings.Contains(line, "SETNX") {
			t.Errorf("a SETNX that changed nothing was propagated: %s", line)
		}
		if strings.Contains(line, "MSET") && strings.Contains(line, "/2)") {
			parts++
		}
		if strings.HasSuffix(line, "FLUSHALL (part 0/2)") || strings.HasSuffix(line, "FLUSHALL (part 1/2)") {
			flushes++
		}
	}
	if parts != 2 || flushes != 2 {
		t.Errorf("MSET parts %d, FLUSHALL parts %d, want 2 each:\n%s", parts, flushes, strings.Join(got, "\n"))
	}
}

// TestVersions: a watched key's version changes exactly when the key does,
// whichever path changed it (WATCH's foundation).
func TestVersions(t *testing.T) {
	m := newSim(t, 1, 1)
	s := m.g.shards[0]
	c := m.dial(0)
	m.do(c, resp2("SET k 1"))
	for _, tc := range []struct {
		cmd     string
		changes bool
	}{
		{"SET other 1", false},
		{"GET k", false},
		{"SETNX k 2", false},
		{"SET k 2", true},
		{"EXPIRE k 100 GT", false}, // no TTL is "infinite": GT refuses
		{"EXPIRE k 100", true},
		{"PERSIST k", true},
		{"MOVE k 1", true},
		{"SWAPDB 0 1", true},
		{"FLUSHDB", true},
		{"SET k 3 PX 1", true},
		{"GET k", true}, // after the sleep below: the key expires on access
	} {
		v := s.watch(0, []byte("k"))
		if tc.cmd == "GET k" && tc.changes {
			m.advance(2 * time.Millisecond)
		}
		m.do(c, resp2(tc.cmd))
		if got := s.mut.versions[wkey{0, "k"}].v != v; got != tc.changes {
			t.Errorf("%s: version changed %v, want %v", tc.cmd, got, tc.changes)
		}
	}
}

// TestEvictionEffects: a key eviction chose is a DEL effect of its cause.
func TestEvictionEffects(t *testing.T) {
	m := newSim(t, 1, 1)
	log := record(m.g)
	s := m.g.shards[0]
	var req strings.Builder
	for i := range 200 {
		req.WriteString(resp2(fmt.Sprintf("SET key%d %s", i, strings.Repeat("v", 500))))
	}
	m.do(m.dial(0), req.String())
	policy, _ := engine.ParsePolicy("allkeys-lru")
	s.store.SetMaxMemory(s.store.UsedMemory()/2, policy, 5)
	for s.store.OverBudget() {
		s.evict()
	}
	s.flushEffects()
	evicted := 0
	for _, r := range log[0] {
		if r.eff.Cause == command.CauseEvicted {
			if string(r.args[0]) != "DEL" || len(r.args) != 2 {
				t.Fatalf("eviction effect %q", r.args)
			}
			evicted++
		}
	}
	if evicted == 0 || int64(evicted) != s.store.Stats().EvictedKeys {
		t.Fatalf("%d eviction effects, %d keys evicted", evicted, s.store.Stats().EvictedKeys)
	}
}

// TestEffectsAllocs: with a consumer, the common writes append their
// effects without allocating (once the stream's buffers have grown).
func TestEffectsAllocs(t *testing.T) {
	m := newSim(t, 1, 1)
	s, d := m.g.shards[0], m.drv[0]
	effects := 0
	s.mut.sink = func(_ int, fx *command.Effects) { effects += fx.Len() }
	c := m.dial(0)
	req := []byte(resp2("SET key value") + resp2("INCR n") + resp2("LPUSH l a") + resp2("HSET h f v") +
		resp2("SADD s m") + resp2("ZADD z 1 m") + resp2("DEL gone"))
	run := func() {
		d.in[c.id] = req
		s.OnData(c.id)
		s.flushEffects()
		out := d.Output(c.id)
		*out = (*out)[:0]
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Fatalf("%.1f allocations per batch of writes with effects", n)
	}
	// SET, INCR, LPUSH and HSET change data every time, SADD and ZADD
	// only the first, DEL never (AllocsPerRun runs once more than asked).
	if want := 6 + 4*1001; effects != want {
		t.Fatalf("%d effects, want %d", effects, want)
	}
}

// TestEffectsReplayDifferential replays the effects of the differential
// test's own stream (internal/workload: every type, wrong types, database
// switches, blocking pops with short timeouts over keys of several shards)
// on three simulated shards, shard by shard, into a fresh group: the same
// keys, values and TTLs.
func TestEffectsReplayDifferential(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			m := newSim(t, 3, seed+1)
			m.jitter = true
			log := record(m.g)
			c := m.dial(int(seed % 3))
			gen := workload.New(rand.New(rand.NewPCG(seed, 9)))
			for sent := 0; sent < 3000; {
				batch := gen.Batch(48)
				sent += len(batch)
				m.write(c, encodeBatch(batch))
				m.replies(c, len(batch))
			}
			m.settle()
			now := m.now.UnixMilli()
			want := state(m.g, now)
			for _, s := range m.g.shards {
				s.flushEffects()
			}
			fresh := newSim(t, 3, seed)
			replay(t, fresh.g, log)
			if got := state(fresh.g, now); got != want {
				t.Fatalf("replayed state differs:\n got:\n%s\nwant:\n%s", got, want)
			}
			if strings.Count(want, "\n") < 10 {
				t.Fatalf("the stream left too little data:\n%s", want)
			}
			checkReplayable(t, log)
		})
	}
}

// checkReplayable fails when an effect depends on when or where it is
// replayed: a relative time, a random choice, a float computed again, a
// blocking command. Replayed at its own time on the same shard such an
// effect may happen to give the same data (the test above), but an AOF
// loaded later, or a replica, would not.
func checkReplayable(t *testing.T, log [][]recorded) {
	t.Helper()
	never := map[string]bool{"EXPIRE": true, "PEXPIRE": true, "EXPIREAT": true, "SETEX": true, "PSETEX": true,
		"SPOP": true, "INCRBYFLOAT": true, "HINCRBYFLOAT": true, "BLPOP": true, "BRPOP": true, "BLMOVE": true,
		"BRPOPLPUSH": true, "BLMPOP": true, "BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true,
		"SRANDMEMBER": true, "RANDOMKEY": true}
	relative := map[string]bool{"EX": true, "PX": true, "EXAT": true}
	seen := map[string]int{}
	for _, l := range log {
		for _, r := range l {
			name := strings.ToUpper(string(r.args[0]))
			seen[name]++
			if never[name] {
				t.Fatalf("effect %q depends on when or where it is replayed", bytes.Join(r.args, []byte(" ")))
			}
			if name == "SET" || name == "GETEX" {
				for _, a := range r.args[3:] {
					if relative[strings.ToUpper(string(a))] {
						t.Fatalf("effect %q has a relative expiry", bytes.Join(r.args, []byte(" ")))
					}
				}
			}
		}
	}
	for _, name := range []string{"SET", "PEXPIREAT", "DEL", "SREM"} {
		if seen[name] == 0 {
			t.Fatalf("no %s effect in the log: the workload does not reach the propagated forms (%v)", name, seen)
		}
	}
}

// TestRawEffects: a command whose propagated form is itself is logged as
// the bytes its client sent (case kept), an inline command encoded anew; a
// plain SET is itself, a SET with a relative expiry is not.
func TestRawEffects(t *testing.T) {
	m := newSim(t, 1, 1)
	var got []string
	m.g.shards[0].mut.sink = func(_ int, fx *command.Effects) {
		for i := range fx.Len() {
			_, b := fx.At(i)
			got = append(got, string(b))
		}
	}
	c := m.dial(0)
	for _, tc := range []struct{ req, want string }{
		{"*3\r\n$3\r\nsEt\r\n$1\r\nk\r\n$2\r\nv1\r\n", "*3\r\n$3\r\nsEt\r\n$1\r\nk\r\n$2\r\nv1\r\n"},
		{"SET k v4\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv4\r\n"},
		{"*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n", "*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n"},
		{string(encode([]string{"SET", "k", "v5", "PXAT", "99999999999999"})), string(encode([]string{"SET", "k", "v5", "PXAT", "99999999999999"}))},
	} {
		got = got[:0]
		reply := m.do(c, tc.req)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%q (reply %q) logged as %q, want %q", tc.req, reply, got, tc.want)
		}
	}
	got = got[:0]
	m.do(c, string(encode([]string{"SET", "k", "v", "EX", "100"})))
	if want := fmt.Sprintf("PXAT\r\n$%d\r\n%d\r\n", len(fmt.Sprint(m.now.UnixMilli()+100000)), m.now.UnixMilli()+100000); len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Errorf("SET EX logged as %q, want it to end in %q", got, want)
	}
}

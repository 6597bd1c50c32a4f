package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// byKey orders pmessage frames of keyspace events by their key, stably.
func byKey(frames []string) {
	key := func(f string) string {
		v, _, _ := resp.ReadReply([]byte(f))
		if len(v.Elems) != 4 {
			return ""
		}
		ch := string(v.Elems[2].Str)
		if strings.HasPrefix(ch, "__keyspace@") {
			return ch[strings.Index(ch, "__:")+3:]
		}
		return string(v.Elems[3].Str)
	}
	slices.SortStableFunc(frames, func(a, b string) int { return strings.Compare(key(a), key(b)) })
}

// keyspaceCommand draws a write (or a read, or a wrong type) on a few keys
// of every type, some on one shard by their hash tag.
func keyspaceCommand(rng *rand.Rand) []string {
	str := []string{"s1", "s2", "{t}s"}
	lists := []string{"l0", "m1", "{t}l", "{t}m"}
	p := func(keys []string) string { return keys[rng.IntN(len(keys))] }
	v := fmt.Sprint(rng.IntN(5))
	cmds := [][]string{
		{"SET", p(str), v}, {"SET", p(str), v, "EX", "100"}, {"SETNX", p(str), v},
		{"GETSET", p(str), v}, {"MSET", "s1", v, "s2", v}, {"INCR", p(str)}, {"DECRBY", p(str), "2"},
		{"INCRBYFLOAT", p(str), "1.5"}, {"APPEND", p(str), v}, {"SETRANGE", p(str), "2", v}, {"GETDEL", p(str)},
		{"GETEX", p(str), "EX", "50"}, {"GETEX", p(str), "PERSIST"}, {"SETEX", p(str), "100", v},
		{"DEL", p(str)}, {"DEL", "s1", "s2", "nokey"}, {"UNLINK", p(str)}, {"EXPIRE", p(str), "100"},
		{"EXPIRE", p(str), "-1"}, {"PEXPIREAT", p(str), "1"}, {"PERSIST", p(str)}, {"RENAME", "{t}s", "{t}x"},
		{"RENAME", "{t}x", "{t}s"},
		{"LPUSH", p(lists), v, v}, {"RPUSH", p(lists), v}, {"LPUSHX", p(lists), v}, {"LPOP", p(lists)},
		{"RPOP", p(lists), "2"}, {"LSET", p(lists), "0", v}, {"LTRIM", p(lists), "1", "-1"},
		{"LREM", p(lists), "0", v}, {"LINSERT", p(lists), "BEFORE", v, "x"},
		{"HSET", "h1", "f" + v, v}, {"HSETNX", "h1", "g", v}, {"HDEL", "h1", "f" + v}, {"HINCRBY", "h1", "n", "3"},
		{"HINCRBYFLOAT", "h1", "x", "0.5"},
		{"SADD", "set1", v, "a"}, {"SREM", "set1", v}, {"SREM", "set1", "a", "0", "1", "2", "3", "4"},
		{"ZADD", "z1", v, "m" + v}, {"ZADD", "z1", "INCR", "1", "m"}, {"ZINCRBY", "z1", "2", "m"},
		{"ZREM", "z1", "m" + v}, {"ZPOPMIN", "z1"}, {"ZREMRANGEBYSCORE", "z1", "0", "2"},
		{"ZREMRANGEBYRANK", "z1", "0", "0"},
		{"LMOVE", "{t}l", "{t}m", "LEFT", "RIGHT"}, {"LMOVE", "{t}m", "{t}m", "RIGHT", "LEFT"},
		{"RPOPLPUSH", "{t}m", "{t}l"}, {"RENAME", "s1", "s2"}, {"RENAME", "s2", "{t}s"}, {"RENAMENX", "{t}s", "s1"},
		{"LMOVE", "l0", "{t}m", "RIGHT", "LEFT"}, {"RPOPLPUSH", "{t}l", "m1"}, {"SADD", "{t}a", v},
		{"SUNIONSTORE", "sd", "set1", "{t}a"}, {"SINTERSTORE", "sd", "set1", "{t}a"}, {"SDIFFSTORE", "sd", "set1", "set1"},
		{"ZUNIONSTORE", "zd", "1", "z1"}, {"ZINTERSTORE", "zd", "2", "z1", "nokey"}, {"ZRANGESTORE", "zr", "z1", "0", "-1"},
		{"COPY", "h1", "hc"}, {"COPY", "h1", "hc", "REPLACE"},
		{"SETBIT", "b1", v, "1"}, {"SETBIT", "b1", v, "0"}, {"SETBIT", p(str), v, "1"},
		{"BITFIELD", "b1", "SET", "u8", "0", v}, {"BITFIELD", "b2", "INCRBY", "u4", "4", v, "GET", "u8", "0"},
		{"BITFIELD", "b2", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", v}, {"BITFIELD", "b1", "GET", "u8", "0"},
		{"BITOP", "AND", "bd", "b1", "b2"}, {"BITOP", "OR", "bd", "nokey"}, {"BITOP", "XOR", "{t}s", "{t}s", "{t}x"},
		{"PFADD", "p1", v}, {"PFADD", "p2"}, {"PFMERGE", "pd", "p1", "p2"}, {"PFMERGE", "p2", "nokey"},
		{"GEOADD", "g1", v, v, "m" + v}, {"GEOADD", "g1", "XX", "CH", v, "1", "m1"},
		{"GEOSEARCHSTORE", "gd", "g1", "FROMLONLAT", "0", "0", "BYRADIUS", "300", "km"},
		{"GEORADIUS", "g1", "0", "0", "300", "km", "STORE", "gd"},
		{"GEORADIUSBYMEMBER", "g1", "m1", "200", "km", "STOREDIST", "gd"},
		{"LMPOP", "2", p(lists), p(lists), "LEFT"}, {"LMPOP", "3", "l0", "m1", "{t}l", "RIGHT", "COUNT", "2"},
		{"BLMPOP", "0.01", "2", "{t}l", "{t}m", "LEFT", "COUNT", "3"}, {"BLPOP", p(lists), p(lists), "0.01"},
		{"BRPOP", "{t}l", "{t}m", "0.01"}, {"BLMOVE", "{t}l", "{t}m", "RIGHT", "LEFT", "0.01"},
		{"BRPOPLPUSH", "{t}m", "{t}l", "0.01"}, {"ZMPOP", "1", "z1", "MIN"}, {"BZMPOP", "0.01", "2", "z1", "zd", "MAX", "COUNT", "2"},
		{"BZPOPMIN", "z1", "zd", "0.01"}, {"BZPOPMAX", "zd", "0.01"},
		{"SORT", "{t}l", "ALPHA", "STORE", "{t}sd"}, {"SORT", "set1", "STORE", "sd2"}, {"SORT", "z1", "BY", "nosort", "STORE", "z1"},
		{"GET", p(str)}, {"LPUSH", p(str), v}, {"INCR", "h1"},
	}
	return cmds[rng.IntN(len(cmds))]
}

// TestKeyspaceEventsAgainstRedis runs the same random writes on both
// servers with notify-keyspace-events KEAn, and requires that a subscriber
// of every __keyspace and __keyevent channel receives the same events in
// the same order for each key (keys on three shards; RENAME and LMOVE on
// one shard and across shards; the bitmap, HyperLogLog, geo and SORT
// writes, the multi-key and blocking pops served at once too).
func TestKeyspaceEventsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	w := []*psConn{dialPS(t, s.addr, 2), dialPS(t, ref, 2)}
	for _, c := range w {
		c.do(t, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "notify-keyspace-events", "KEAn"})
	}
	sub := []*psConn{dialPS(t, s.addr, 2), dialPS(t, ref, 2)}
	for _, c := range sub {
		c.do(t, []string{"PSUBSCRIBE", "__key*"})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var history []string
	for range 1500 {
		cmd := keyspaceCommand(rng)
		history = append(history, strings.Join(cmd, " "))
		got, want := w[0].do(t, cmd), w[1].do(t, cmd)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("after\n  %s\nradish replied %q\nredis  replied %q", strings.Join(history[max(0, len(history)-30):], "\n  "), got, want)
		}
		// Redis has published the events before it replied; radish at the
		// end of the owning shard's turn: read as many frames as Redis sent.
		events := sub[1].do(t)
		var gotEv []string
		sub[0].c.SetDeadline(time.Now().Add(2 * time.Second))
		for range events {
			f, err := sub[0].tryFrame()
			if err != nil {
				gotEv = append(gotEv, err.Error())
				break
			}
			gotEv = append(gotEv, string(f))
		}
		wantEv := make([]string, len(events))
		for i, e := range events {
			wantEv[i] = string(e)
		}
		// A command on keys of several shards (MSET, DEL) has its events
		// published by each shard: in order per key, not across keys.
		byKey(gotEv)
		byKey(wantEv)
		if len(gotEv) == len(wantEv) { // nothing more came, or the next check fails
			if extra := sub[0].do(t); len(extra) > 0 {
				gotEv = append(gotEv, fmt.Sprintf("and then %q", extra))
			}
		}
		if fmt.Sprintf("%q", gotEv) != fmt.Sprintf("%q", wantEv) {
			t.Fatalf("after\n  %s\nradish's events %q\nredis's events  %q", strings.Join(history[max(0, len(history)-30):], "\n  "), gotEv, wantEv)
		}
	}
	// A key whose TTL passes: "expired", from the active cycle or the
	// read that finds it.
	for i := range w {
		w[i].do(t, []string{"SET", "ttl", "v", "PX", "20"})
		sub[i].do(t)
	}
	time.Sleep(300 * time.Millisecond)
	var streams [2]string
	for i := range w {
		w[i].do(t, []string{"GET", "ttl"})
		sub[i].c.SetDeadline(time.Now().Add(2 * time.Second))
		for range 2 {
			f, err := sub[i].tryFrame()
			if err != nil {
				t.Fatal(err)
			}
			streams[i] += string(f)
		}
	}
	if streams[0] != streams[1] || !strings.Contains(streams[0], "expired") {
		t.Fatalf("expiry: radish %q, redis %q", streams[0], streams[1])
	}
}

// TestKeyMissAgainstRedis: with the m class on, a read command that does
// not find a key emits "keymiss" for it, on keys of every shard, and
// keyspace_hits and keyspace_misses count the same lookups after each
// command, as in Redis: those of read commands, and of the write commands
// that read as Redis's lookupKeyRead (GETEX, GETDEL, SET ... GET, a
// BITFIELD of GETs, XACK, XCLAIM, XAUTOCLAIM, XREADGROUP, a *STORE's
// sources, COPY's source, BITOP's sources,
// PFMERGE's keys, SORT's key and the keys its patterns name), not their
// destinations'; OBJECT counts a miss without an event.
func TestKeyMissAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	w := []*psConn{dialPS(t, s.addr, 2), dialPS(t, ref, 2)}
	sub := []*psConn{dialPS(t, s.addr, 2), dialPS(t, ref, 2)}
	for i := range w {
		w[i].do(t, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "notify-keyspace-events", "KEm"},
			[]string{"CONFIG", "RESETSTAT"}, []string{"SET", "a", "1"}, []string{"HSET", "h", "f", "v"},
			[]string{"SET", "gone", "v", "PX", "1"}, []string{"SET", "b1", "abc"}, []string{"SET", "b2", "xyz"},
			[]string{"SADD", "st1", "a", "b"}, []string{"SADD", "st2", "b", "c"}, []string{"ZADD", "z1", "1", "a", "2", "b"},
			[]string{"PFADD", "p1", "a"}, []string{"RPUSH", "l1", "a", "b"}, []string{"SET", "w1", "x"},
			[]string{"GEOADD", "g1", "0", "0", "m"}, []string{"XADD", "x1", "1-1", "f", "v"},
			[]string{"XGROUP", "CREATE", "x1", "grp", "0"})
		sub[i].do(t, []string{"PSUBSCRIBE", "__key*"})
	}
	time.Sleep(20 * time.Millisecond)
	cmds := [][]string{
		{"GET", "a"}, {"GET", "nokey"}, {"MGET", "a", "b", "c", "d", "e", "f"}, {"EXISTS", "x", "a", "y"},
		{"TYPE", "t1"}, {"HGET", "h", "f"}, {"HGET", "nh", "f"}, {"LRANGE", "l", "0", "-1"}, {"SMEMBERS", "s"},
		{"ZSCORE", "z", "m"}, {"STRLEN", "q"}, {"GET", "gone"}, {"TTL", "tt"}, {"SET", "w", "1"},
		{"OBJECT", "ENCODING", "nokey"}, {"OBJECT", "ENCODING", "a"},
		// Write commands.
		{"SET", "a", "2", "GET"}, {"SET", "nokey", "v", "GET"}, {"SET", "nokey2", "v", "NX"}, {"GETEX", "a"},
		{"GETEX", "nokey3", "PX", "100"}, {"GETDEL", "nokey"}, {"GETDEL", "nokey4"}, {"GETSET", "a", "3"},
		{"GETSET", "nokey5", "v"}, {"INCR", "nokey6"}, {"APPEND", "a", "x"}, {"BITFIELD", "b1", "GET", "u8", "0"},
		{"BITFIELD", "nokey7", "GET", "u8", "0"}, {"BITFIELD", "b1", "SET", "u8", "0", "1"},
		{"BITOP", "AND", "dst", "b1", "b2", "nokey"}, {"BITOP", "OR", "b1", "b1", "nokey"},
		{"PFMERGE", "dst2", "p1", "nokey"}, {"PFMERGE", "p1", "nokey"},
		{"SUNIONSTORE", "dst3", "st1", "st2", "nokey"}, {"SINTERSTORE", "dst4", "st1", "nokey"},
		{"SDIFFSTORE", "st1", "st1", "st2", "nokey"}, {"SMOVE", "st2", "nokey8", "c"},
		{"ZUNIONSTORE", "dst5", "2", "z1", "nokey"}, {"ZINTERSTORE", "dst6", "2", "z1", "nokey"},
		{"ZDIFFSTORE", "dst7", "2", "z1", "nokey"}, {"ZRANGESTORE", "dst8", "z1", "0", "-1"},
		{"ZRANGESTORE", "dst9", "nokey", "0", "-1"}, {"COPY", "a", "dst10"}, {"COPY", "nokey", "dst11"},
		{"COPY", "a", "w1"}, {"LMOVE", "l1", "dst12", "LEFT", "RIGHT"}, {"RPOPLPUSH", "nokey", "x"},
		{"SORT", "l1", "ALPHA"}, {"SORT", "nokey"}, {"SORT", "l1", "ALPHA", "STORE", "dst13"},
		{"SORT", "nokey", "STORE", "dst14"}, {"SORT", "l1", "BY", "nosort", "GET", "s*", "GET", "#"},
		{"SORT", "l1", "BY", "w*", "ALPHA", "GET", "h*->f", "STORE", "dst18"}, {"GEOSEARCHSTORE", "dst15", "g1", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"GEOSEARCHSTORE", "dst16", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"GEORADIUS", "nokey", "0", "0", "1", "km", "STORE", "dst17"}, {"GEORADIUS", "g1", "0", "0", "1", "km"},
		{"HSET", "nokey9", "f", "v"}, {"DEL", "a", "nokey"}, {"EXPIRE", "nokey", "10"}, {"RENAME", "b2", "b3"},
		{"XACK", "x1", "grp", "1-1"}, {"XACK", "nokey", "grp", "1-1"},
		{"XCLAIM", "nokey", "grp", "c", "0", "1-1"}, {"XAUTOCLAIM", "x1", "grp", "c", "0", "0"}, {"XGROUP", "CREATE", "x1", "g2", "0"},
		// XREAD and XREADGROUP look at each stream twice (once when the
		// check of every stream before it passed), blocking or not; a
		// blocked one's wake counts nothing.
		{"XREADGROUP", "GROUP", "grp", "c1", "COUNT", "1", "STREAMS", "x1", ">"},
		{"XREADGROUP", "GROUP", "grp", "c1", "COUNT", "1", "STREAMS", "x1", ">"},
		{"XREADGROUP", "GROUP", "grp", "c1", "STREAMS", "x1", "0"},
		{"XREADGROUP", "GROUP", "grp", "c1", "STREAMS", "nokey", ">"},
		{"XREADGROUP", "GROUP", "nogrp", "c1", "STREAMS", "x1", ">"},
		{"XREADGROUP", "GROUP", "grp", "c2", "BLOCK", "10", "STREAMS", "x1", ">"},
		{"XREAD", "STREAMS", "x1", "0"}, {"XREAD", "STREAMS", "x1", "$"}, {"XREAD", "STREAMS", "nokey", "0"},
		{"XREAD", "COUNT", "1", "STREAMS", "x1", "x1", "0", "0"}, {"XREAD", "STREAMS", "x1", "nokey", "0", ">"},
		{"XREAD", "BLOCK", "10", "STREAMS", "x1", "$"}, {"XREAD", "BLOCK", "10", "STREAMS", "nokey", "$"},
	}
	stats := func(c *psConn) string {
		info := string(c.do(t, []string{"INFO", "stats"})[0])
		var out []string
		for _, f := range []string{"keyspace_hits:", "keyspace_misses:"} {
			i := strings.Index(info, f)
			out = append(out, strings.TrimSpace(info[i:i+strings.Index(info[i:], "\n")]))
		}
		return strings.Join(out, " ")
	}
	for _, cmd := range cmds {
		diffEvents(t, w, sub, cmd, fmt.Sprint(cmd), true)
		if got, want := stats(w[0]), stats(w[1]); got != want {
			t.Fatalf("after %v: radish %s, redis %s", cmd, got, want)
		}
	}
}

// diffEvents runs cmd on radish (w[0]) and on redis-server (w[1]) and
// fails unless both reply the same and their subscribers (sub[0], sub[1])
// get the same events, each side's sorted by key first when sorted
// (shards publish in their own order); label names cmd in failures.
func diffEvents(t *testing.T, w, sub []*psConn, cmd []string, label string, sorted bool) {
	t.Helper()
	got, want := w[0].do(t, cmd), w[1].do(t, cmd)
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("%s: radish replied %q, redis %q", label, got, want)
	}
	events := sub[1].do(t)
	var gotEv, wantEv []string
	sub[0].c.SetDeadline(time.Now().Add(2 * time.Second))
	for _, e := range events {
		f, err := sub[0].tryFrame()
		if err != nil {
			t.Fatalf("%s: %v; redis sent %q", label, err, events)
		}
		gotEv, wantEv = append(gotEv, string(f)), append(wantEv, string(e))
	}
	if extra := sub[0].do(t); len(extra) > 0 {
		gotEv = append(gotEv, fmt.Sprintf("and then %q", extra))
	}
	if sorted {
		byKey(gotEv)
		byKey(wantEv)
	}
	if fmt.Sprintf("%q", gotEv) != fmt.Sprintf("%q", wantEv) {
		t.Fatalf("%s: radish's events %q\nredis's events %q", label, gotEv, wantEv)
	}
}

package router

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
)

// Rows shaped like Redis 7.0's (key specs as in COMMAND INFO).
var (
	mget = &command.Spec{Name: "mget", Arity: -2, Merge: command.MergeKeyOrder,
		KeySpecs: []command.KeySpec{{Flags: command.KeyRO | command.KeyAccess, Index: 1, LastKey: -1, Step: 1}}}
	mset = &command.Spec{Name: "mset", Arity: -3, Merge: command.MergeAllOK,
		KeySpecs: []command.KeySpec{{Flags: command.KeyOW | command.KeyUpdate, Index: 1, LastKey: -1, Step: 2}}}
	del = &command.Spec{Name: "del", Arity: -2, Merge: command.MergeSum,
		KeySpecs: []command.KeySpec{{Flags: command.KeyRM | command.KeyDelete, Index: 1, LastKey: -1, Step: 1}}}
	xread = &command.Spec{Name: "xread", Arity: -4, Merge: command.MergeConcat,
		KeySpecs: []command.KeySpec{{Flags: command.KeyRO, Keyword: "STREAMS", KeywordFrom: 1, LastKey: -1, Step: 1, Limit: 2}}}
	sintercard = &command.Spec{Name: "sintercard", Arity: -3, Merge: command.MergeSum, // not really summable: tests numkeys rewriting
		KeySpecs: []command.KeySpec{{Flags: command.KeyRO, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1}}}
	zunionstore = &command.Spec{Name: "zunionstore", Arity: -4,
		KeySpecs: []command.KeySpec{
			{Flags: command.KeyOW, Index: 1, LastKey: 0, Step: 1},
			{Flags: command.KeyRO, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1}}}
	rename = &command.Spec{Name: "rename", Arity: 3,
		KeySpecs: []command.KeySpec{
			{Flags: command.KeyRW, Index: 1, LastKey: 0, Step: 1},
			{Flags: command.KeyOW, Index: 2, LastKey: 0, Step: 1}}}
	get = &command.Spec{Name: "get", Arity: 2,
		KeySpecs: []command.KeySpec{{Flags: command.KeyRO, Index: 1, LastKey: 0, Step: 1}}}
)

func bs(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

func str(args [][]byte) string { return string(bytes.Join(args, []byte(" "))) }

func TestTag(t *testing.T) {
	for _, tc := range []struct{ key, tag string }{
		{"foo", "foo"},
		{"{user1}:name", "user1"},
		{"a{b}c", "b"},
		{"{}a", "{}a"},
		{"a{}{b}", "a{}{b}"},
		{"a{b", "a{b"},
		{"{a}{b}", "a"},
		{"}{a}", "a"},
		{"{{a}}", "{a"},
		{"", ""},
	} {
		if got := string(Tag([]byte(tc.key))); got != tc.tag {
			t.Errorf("Tag(%q) = %q, want %q", tc.key, got, tc.tag)
		}
	}
}

func TestSameTagSameShard(t *testing.T) {
	for n := 1; n <= 64; n++ {
		for i := 0; i < 100; i++ {
			tag := fmt.Sprintf("user%d", i)
			want := ShardOf([]byte(tag), n)
			for _, k := range []string{"{" + tag + "}", "{" + tag + "}:name", "x{" + tag + "}y{z}"} {
				if got := ShardOf([]byte(k), n); got != want {
					t.Fatalf("n=%d: ShardOf(%q) = %d, ShardOf(%q) = %d", n, k, got, tag, want)
				}
			}
		}
	}
}

// TestShardOfIsModulo: a key's shard is its tag's xxhash modulo the
// shard count, and must stay so: snapshot and AOF files
// written with N shards hold each shard's keys by that rule, and a server
// with N shards loads each file into its shard unhashed.
func TestShardOfIsModulo(t *testing.T) {
	for n := 1; n <= 70; n++ {
		for i := 0; i < 200; i++ {
			k := []byte(fmt.Sprintf("key:%d", i*7919))
			if got, want := ShardOf(k, n), int(xxhash.Sum64(k)%uint64(n)); got != want {
				t.Fatalf("ShardOf(%q, %d) = %d, want %d", k, n, got, want)
			}
		}
	}
}

func TestShardOfEven(t *testing.T) {
	const n, keys = 16, 160000
	var count [n]int
	for i := 0; i < keys; i++ {
		count[ShardOf([]byte(fmt.Sprintf("key:%d", i)), n)]++
	}
	for sh, c := range count {
		if c < keys/n*95/100 || c > keys/n*105/100 {
			t.Errorf("shard %d has %d of %d keys (want %d +-5%%)", sh, c, keys, keys/n)
		}
	}
}

func TestSplitTable(t *testing.T) {
	// Keys whose shard among 2 is known: find two keys per shard.
	var on [2][]string
	for i := 0; len(on[0]) < 3 || len(on[1]) < 3; i++ {
		k := fmt.Sprintf("k%d", i)
		sh := ShardOf([]byte(k), 2)
		on[sh] = append(on[sh], k)
	}
	a0, b0, c0 := on[0][0], on[0][1], on[0][2]
	a1, b1 := on[1][0], on[1][1]
	f := fmt.Sprintf
	for _, tc := range []struct {
		spec *command.Spec
		args string
		want []string // "shard: args | pos | keyidx"
		bad  bool     // keys cannot be determined
	}{
		{get, "get " + a1, []string{f("1: get %s | [0] | [1]", a1)}, false},
		{mget, f("mget %s %s", a0, b0), []string{f("0: mget %s %s | [0 1] | [1 2]", a0, b0)}, false},
		{mget, f("mget %s %s %s %s", a1, a0, b1, b0), []string{
			f("0: mget %s %s | [1 3] | [1 2]", a0, b0),
			f("1: mget %s %s | [0 2] | [1 2]", a1, b1)}, false},
		{mset, f("mset %s 1 %s 2 %s 3", a0, a1, b0), []string{
			f("0: mset %s 1 %s 3 | [0 2] | [1 3]", a0, b0),
			f("1: mset %s 2 | [1] | [1]", a1)}, false},
		{mset, f("mset %s 1 %s", a0, a1), []string{ // odd: the handler reports arity
			f("0: mset %s 1 | [0] | [1]", a0),
			f("1: mset %s | [1] | [1]", a1)}, false},
		{xread, f("xread COUNT 2 streams %s %s %s 1-0 2-0 3-0", a0, a1, b0), []string{
			f("0: xread COUNT 2 streams %s %s 1-0 3-0 | [0 2] | [4 5]", a0, b0),
			f("1: xread COUNT 2 streams %s 2-0 | [1] | [4]", a1)}, false},
		{xread, "xread COUNT 2", nil, false}, // no STREAMS: no keys
		{sintercard, f("sintercard 3 %s %s %s LIMIT 5", a0, a1, b0), []string{
			f("0: sintercard 2 %s %s LIMIT 5 | [0 2] | [2 3]", a0, b0),
			f("1: sintercard 1 %s LIMIT 5 | [1] | [2]", a1)}, false},
		{sintercard, f("sintercard x %s", a0), nil, true},
		{sintercard, f("sintercard 5 %s", a0), nil, true},
		{zunionstore, f("zunionstore %s 2 %s %s", a0, b0, c0), []string{
			f("0: zunionstore %s 2 %s %s | [0 1 2] | [1 3 4]", a0, b0, c0)}, false},
		// Keys from two specs: not cut; every part carries the whole command.
		{zunionstore, f("zunionstore %s 2 %s %s", a0, b0, a1), []string{
			f("0: zunionstore %s 2 %s %s | [0 1] | [1 3]", a0, b0, a1),
			f("1: zunionstore %s 2 %s %s | [2] | [4]", a0, b0, a1)}, false},
		{rename, f("rename %s %s", a0, a1), []string{
			f("0: rename %s %s | [0] | [1]", a0, a1),
			f("1: rename %s %s | [1] | [2]", a0, a1)}, false},
		{&command.Spec{Name: "ping", Arity: -1}, "ping x", nil, false},
	} {
		var s Splitter
		args := bs(tc.args)
		idx, ok := tc.spec.Keys(args, nil)
		if !ok {
			if !tc.bad {
				t.Errorf("%s: keys not found", tc.args)
			}
			continue
		}
		var got []string
		for _, p := range s.Split(tc.spec, args, idx, 2) {
			got = append(got, fmt.Sprintf("%d: %s | %v | %v", p.Shard, str(p.Args), p.Pos, p.KeyIdx))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

// shardModel is a shard's data for the round-trip tests.
type shardModel map[string]string

func (m shardModel) run(args [][]byte, proto int) []byte {
	w := resp.Writer{Proto: proto}
	switch string(args[0]) {
	case "mset":
		for i := 1; i+1 < len(args); i += 2 {
			m[string(args[i])] = string(args[i+1])
		}
		w.Simple("OK")
	case "mget":
		w.Array(len(args) - 1)
		for _, k := range args[1:] {
			if v, ok := m[string(k)]; ok {
				w.BulkString(v)
			} else {
				w.Null()
			}
		}
	case "del":
		n := 0
		for _, k := range args[1:] {
			if _, ok := m[string(k)]; ok {
				delete(m, string(k))
				n++
			}
		}
		w.Int(int64(n))
	}
	return w.B
}

// TestSplitMergeRoundTrip runs MSET, MGET and DEL split over a random number
// of shards and merged, and compares the replies with one unsplit store.
func TestSplitMergeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var s Splitter
	var m Merger
	for iter := 0; iter < 500; iter++ {
		n := 1 + rng.Intn(16)
		proto := 2 + rng.Intn(2)
		shards := make([]shardModel, n)
		for i := range shards {
			shards[i] = shardModel{}
		}
		whole := shardModel{}
		key := func() string {
			if rng.Intn(4) == 0 {
				return fmt.Sprintf("{t%d}:%d", rng.Intn(3), rng.Intn(20))
			}
			return fmt.Sprintf("k%d", rng.Intn(40))
		}
		for op := 0; op < 20; op++ {
			var spec *command.Spec
			args := [][]byte{}
			nk := 1 + rng.Intn(8)
			switch rng.Intn(3) {
			case 0:
				spec = mset
				args = append(args, []byte("mset"))
				for i := 0; i < nk; i++ {
					args = append(args, []byte(key()), []byte(fmt.Sprint(rng.Intn(1000))))
				}
			case 1:
				spec = mget
				args = append(args, []byte("mget"))
				for i := 0; i < nk; i++ {
					args = append(args, []byte(key()))
				}
			case 2:
				spec = del
				args = append(args, []byte("del"))
				for i := 0; i < nk; i++ {
					args = append(args, []byte(key()))
				}
			}
			want := whole.run(args, proto)
			idx, ok := spec.Keys(args, nil)
			if !ok {
				t.Fatalf("%s: no keys", str(args))
			}
			parts := s.Split(spec, args, idx, n)
			checkParts(t, spec, args, idx, parts, n)
			replies := make([][]byte, len(parts))
			for i, p := range parts {
				replies[i] = shards[p.Shard].run(p.Args, proto)
			}
			w := resp.Writer{Proto: proto}
			if err := m.Merge(&w, spec.Merge, parts, replies); err != nil {
				t.Fatalf("%s: merge: %v", str(args), err)
			}
			if !bytes.Equal(w.B, want) {
				t.Fatalf("n=%d %s: merged %q, want %q", n, str(args), w.B, want)
			}
		}
	}
}

// checkParts checks the invariants: every key in exactly one part, on its
// shard, in argument order, with its companions.
func checkParts(t *testing.T, spec *command.Spec, args [][]byte, idx []int, parts []Part, n int) {
	t.Helper()
	seen := map[int]bool{}
	step := spec.KeySpecs[0].Step
	for pi, p := range parts {
		if pi > 0 && parts[pi-1].Shard >= p.Shard {
			t.Fatalf("parts not in shard order")
		}
		if !bytes.Equal(p.Args[0], args[0]) {
			t.Fatalf("part lost the command name")
		}
		if len(p.Pos) != len(p.KeyIdx) {
			t.Fatalf("Pos %v and KeyIdx %v differ in length", p.Pos, p.KeyIdx)
		}
		for j, rank := range p.Pos {
			if seen[rank] {
				t.Fatalf("key %d in two parts", rank)
			}
			seen[rank] = true
			if j > 0 && p.Pos[j-1] >= rank {
				t.Fatalf("part keys out of order: %v", p.Pos)
			}
			orig := idx[rank]
			if ShardOf(args[orig], n) != p.Shard {
				t.Fatalf("key %q on shard %d", args[orig], p.Shard)
			}
			for c := 0; c < step; c++ {
				if !bytes.Equal(p.Args[p.KeyIdx[j]+c], args[orig+c]) {
					t.Fatalf("companion %d of key %q lost", c, args[orig])
				}
			}
		}
	}
	if len(seen) != len(idx) {
		t.Fatalf("%d keys in parts, want %d", len(seen), len(idx))
	}
}

func TestMerge(t *testing.T) {
	two := []Part{{Pos: []int{1}}, {Pos: []int{0, 2}}}
	for _, tc := range []struct {
		kind    command.Merge
		parts   []Part
		replies []string
		want    string
	}{
		{command.MergeSum, nil, []string{":1\r\n", ":2\r\n", ":0\r\n"}, ":3\r\n"},
		{command.MergeSum, nil, []string{":1\r\n", "-ERR a\r\n", "-ERR b\r\n"}, "-ERR a\r\n"},
		{command.MergeKeyOrder, two, []string{"*1\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n$-1\r\n"}, "*3\r\n$1\r\na\r\n$1\r\nb\r\n$-1\r\n"},
		{command.MergeKeyOrder, two, []string{"*1\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n_\r\n"}, "*3\r\n$1\r\na\r\n$1\r\nb\r\n_\r\n"},
		{command.MergeKeyOrder, two, []string{"*1\r\n$1\r\nb\r\n", "-WRONGTYPE x\r\n"}, "-WRONGTYPE x\r\n"},
		{command.MergeAllOK, nil, []string{"+OK\r\n", "+OK\r\n"}, "+OK\r\n"},
		{command.MergeConcat, nil, []string{"*1\r\n$1\r\na\r\n", "*0\r\n", "*2\r\n$1\r\nb\r\n$1\r\nc\r\n"}, "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{command.MergeConcat, nil, []string{"~1\r\n$1\r\na\r\n", "~1\r\n$1\r\nb\r\n"}, "~2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{command.MergeAny, nil, []string{"$-1\r\n", "_\r\n", "$1\r\nk\r\n"}, "$1\r\nk\r\n"},
		{command.MergeAny, nil, []string{"$-1\r\n", "$-1\r\n"}, "$-1\r\n"},
		{command.MergeNone, nil, []string{":5\r\n"}, ":5\r\n"},
		{command.MergeText, nil, []string{"$2\r\nab\r\n", "$1\r\nc\r\n"}, "$3\r\nabc\r\n"},
		{command.MergeText, nil, []string{"=6\r\ntxt:ab\r\n", "$1\r\nc\r\n"}, "$3\r\nabc\r\n"},
		{command.MergeUnion, nil, []string{"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*0\r\n", "*2\r\n$1\r\nc\r\n$1\r\na\r\n"},
			"*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{command.MergeUnionCount, nil, []string{"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*1\r\n$1\r\nb\r\n"}, ":2\r\n"},
		{command.MergePairSum, nil, []string{"*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:0\r\n", "*4\r\n$1\r\na\r\n:2\r\n$1\r\nb\r\n:5\r\n"},
			"*4\r\n$1\r\na\r\n:3\r\n$1\r\nb\r\n:5\r\n"},
		{command.MergePairSum, nil, []string{"*0\r\n", "*0\r\n"}, "*0\r\n"},
	} {
		var m Merger
		var w resp.Writer
		rs := make([][]byte, len(tc.replies))
		for i, r := range tc.replies {
			rs[i] = []byte(r)
		}
		if err := m.Merge(&w, tc.kind, tc.parts, rs); err != nil {
			t.Errorf("%q: %v", tc.replies, err)
		} else if string(w.B) != tc.want {
			t.Errorf("%q: got %q, want %q", tc.replies, w.B, tc.want)
		}
	}
	var m Merger
	var w resp.Writer
	for _, bad := range [][]string{{"+OK\r\n", ":1\r\n"}, {"*1\r\n$1\r\na\r\n"}} {
		rs := [][]byte{}
		for _, r := range bad {
			rs = append(rs, []byte(r))
		}
		if err := m.Merge(&w, command.MergeSum, nil, rs); err != ErrMerge {
			t.Errorf("%q: err %v, want ErrMerge", bad, err)
		}
	}
	for _, bad := range [][]string{{"*1\r\n:1\r\n"}, {"*2\r\n$1\r\na\r\n:1\r\n", "*0\r\n"}, {":1\r\n"}} {
		rs := [][]byte{}
		for _, r := range bad {
			rs = append(rs, []byte(r))
		}
		for _, kind := range []command.Merge{command.MergeUnion, command.MergePairSum} {
			if err := m.Merge(&w, kind, nil, rs); err != ErrMerge {
				t.Errorf("%v %q: err %v, want ErrMerge", kind, bad, err)
			}
		}
	}
}

func TestCursor(t *testing.T) {
	for _, tc := range []struct {
		shard int
		local uint64
	}{{0, 0}, {0, 5}, {3, 1<<56 - 1}, {255, 7}} {
		c := PackCursor(tc.shard, tc.local)
		sh, l, ok := UnpackCursor(c, 256)
		if !ok || sh != tc.shard || l != tc.local {
			t.Errorf("Pack(%d,%d)=%d unpacks to %d,%d,%v", tc.shard, tc.local, c, sh, l, ok)
		}
	}
	if _, _, ok := UnpackCursor(PackCursor(4, 1), 4); ok {
		t.Error("shard 4 of 4 accepted")
	}
	// Walk 3 shards, each returning one intermediate cursor.
	n, c := 3, uint64(0)
	var visited []string
	for i := 0; i < 10; i++ {
		sh, local, _ := UnpackCursor(c, n)
		next := uint64(0)
		if local == 0 {
			next = 9
		}
		visited = append(visited, fmt.Sprintf("%d/%d", sh, local))
		c = NextCursor(sh, next, n)
		if c == 0 {
			break
		}
	}
	if got := strings.Join(visited, " "); got != "0/0 0/9 1/0 1/9 2/0 2/9" {
		t.Errorf("walk %s", got)
	}
}

func TestNoAllocs(t *testing.T) {
	key := []byte("{user1}:profile")
	if a := testing.AllocsPerRun(100, func() { ShardOf(key, 16) }); a != 0 {
		t.Errorf("ShardOf allocates %v", a)
	}
	var s Splitter
	args := bs("mset a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8")
	idx, _ := mset.Keys(args, nil)
	s.Split(mset, args, idx, 16)
	if a := testing.AllocsPerRun(100, func() { s.Split(mset, args, idx, 16) }); a != 0 {
		t.Errorf("Split allocates %v", a)
	}
	var p Planner
	for _, tc := range []struct {
		args string
		n    int
	}{
		{"get {user1}:profile", 1},
		{"get {user1}:profile", 16}, // local or a hop, by the key's shard
		{"mget {user1}:a {user1}:b", 16},
		{"mset a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8", 16}, // parts
		{"ping", 16},
		{"debug object k", 16},
	} {
		args := bs(tc.args)
		spec, _ := command.Resolve(args)
		for self := 0; self < 2; self++ {
			p.Plan(spec, args, self, tc.n)
			if a := testing.AllocsPerRun(100, func() { p.Plan(spec, args, self, tc.n) }); a != 0 {
				t.Errorf("Plan(%s) from shard %d of %d allocates %v", tc.args, self, tc.n, a)
			}
		}
	}
	var m Merger
	var w resp.Writer
	margs := bs("mget a b c d e f g h")
	midx, _ := mget.Keys(margs, nil)
	parts := s.Split(mget, margs, midx, 4)
	replies := make([][]byte, len(parts))
	for i, p := range parts {
		rw := resp.Writer{}
		rw.Array(len(p.Pos))
		for range p.Pos {
			rw.BulkString("v")
		}
		replies[i] = rw.B
	}
	if a := testing.AllocsPerRun(100, func() { w.B = w.B[:0]; m.Merge(&w, command.MergeKeyOrder, parts, replies) }); a != 0 {
		t.Errorf("Merge allocates %v", a)
	}
}

func TestClone(t *testing.T) {
	var s Splitter
	args := bs("sintercard 3 a b c LIMIT 5")
	idx, _ := sintercard.Keys(args, nil)
	var kept []Part
	for _, p := range s.Split(sintercard, args, idx, 64) {
		kept = append(kept, p.Clone())
	}
	want := fmt.Sprint(kept)
	other := bs("sintercard 4 x y z w")
	oidx, _ := sintercard.Keys(other, nil)
	s.Split(sintercard, other, oidx, 64)
	args[2][0] = 'Z'
	if got := fmt.Sprint(kept); got != want {
		t.Errorf("clones changed: %s, was %s", got, want)
	}
}

// TestSplitterOwn: a part OwnAppend made, each into buffers shared with
// the parts before it, survives the next Split, keeps the arguments it had
// of args (no copy) and its own copy of a key count Split wrote; it equals
// what Clone makes.
func TestSplitterOwn(t *testing.T) {
	var s Splitter
	for _, tc := range []struct {
		spec *command.Spec
		line string
	}{
		{mget, "mget a b c d e f"}, {mset, "mset a 1 b 2 c 3 d 4"}, {del, "del a b c"},
		{sintercard, "sintercard 5 a b c d e"},
	} {
		args := bs(tc.line)
		idx, _ := tc.spec.Keys(args, nil)
		var owned, cloned []Part
		var (
			bufArgs [][]byte
			ints    []int
			num     []byte
		)
		for _, p := range s.Split(tc.spec, args, idx, 3) {
			var q Part
			q, bufArgs, ints, num = s.OwnAppend(p, bufArgs, ints, num)
			owned, cloned = append(owned, q), append(cloned, p.Clone())
		}
		at := s.numIdx
		if len(owned) < 2 {
			t.Fatalf("%s: %d parts, want keys on several shards", tc.line, len(owned))
		}
		if (at > 0) != (tc.spec == sintercard) {
			t.Errorf("%s: the key count Split wrote is at %d", tc.line, at)
		}
		other := bs("sintercard 10 q r s t u v w x y z")
		oidx, _ := sintercard.Keys(other, nil)
		s.Split(sintercard, other, oidx, 3)
		for i, p := range owned {
			if !reflect.DeepEqual(p, cloned[i]) {
				t.Errorf("%s part %d: OwnAppend %q, Clone %q", tc.line, i, p.Args, cloned[i].Args)
			}
			for j, a := range p.Args {
				aliased := slices.ContainsFunc(args, func(b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) })
				if aliased == (at > 0 && j == at) {
					t.Errorf("%s part %d: argument %d %q aliased %v", tc.line, i, j, a, aliased)
				}
			}
		}
	}
}

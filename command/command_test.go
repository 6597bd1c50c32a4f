package command

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

func split(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"get", "GET", "gEt", "command", "COMMAND"} {
		s := Lookup([]byte(name))
		if s == nil || s.Name != strings.ToLower(name) {
			t.Errorf("Lookup(%q) = %v", name, s)
		}
	}
	for _, name := range []string{"", "nosuch", "get ", strings.Repeat("x", 100), "command|info"} {
		if s := Lookup([]byte(name)); s != nil {
			t.Errorf("Lookup(%q) = %s, want nil", name, s.Name)
		}
	}
	c := Lookup([]byte("command"))
	if s := c.LookupSub([]byte("InFo")); s == nil || s.Name != "command|info" || s.Parent() != c {
		t.Errorf("LookupSub(InFo) = %v", s)
	}
	if s := c.LookupSub([]byte("nosuch")); s != nil {
		t.Errorf("LookupSub(nosuch) = %v", s.Name)
	}
	if s := Lookup([]byte("get")).LookupSub([]byte("x")); s != nil {
		t.Errorf("get has a subcommand %v", s.Name)
	}
	if s := LookupFull([]byte("COMMAND|DOCS")); s == nil || s.Name != "command|docs" {
		t.Errorf("LookupFull(COMMAND|DOCS) = %v", s)
	}
	name := []byte("MGet")
	if a := testing.AllocsPerRun(100, func() { Lookup(name) }); a != 0 {
		t.Errorf("Lookup allocates %v times", a)
	}
	sub := []byte("GETKEYS")
	if a := testing.AllocsPerRun(100, func() { c.LookupSub(sub) }); a != 0 {
		t.Errorf("LookupSub allocates %v times", a)
	}
	all := All()
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Name < all[j].Name }) {
		t.Error("All is not sorted")
	}
}

// TestResolve checks the dispatch errors against the texts redis-server
// 7.0.15 replies.
func TestResolve(t *testing.T) {
	var r Resolver
	for _, tc := range []struct{ args, spec, err string }{
		{"get a", "get", ""},
		{"GET a", "get", ""},
		{"get", "get", "ERR wrong number of arguments for 'get' command"},
		{"get a b", "get", "ERR wrong number of arguments for 'get' command"},
		{"mset a", "mset", "ERR wrong number of arguments for 'mset' command"},
		{"command", "command", ""},
		{"command info get", "command|info", ""},
		{"command count x", "command|count", "ERR wrong number of arguments for 'command|count' command"},
		{"command x", "", "ERR unknown subcommand 'x'. Try COMMAND HELP."},
		{"Command x", "", "ERR unknown subcommand 'x'. Try COMMAND HELP."},
		{"foo a b", "", "ERR unknown command 'foo', with args beginning with: 'a' 'b' "},
		{"FOO", "", "ERR unknown command 'FOO', with args beginning with: "},
		{"get a", "get", ""},
		{"get", "get", "ERR wrong number of arguments for 'get' command"},
		{"gets a", "", "ERR unknown command 'gets', with args beginning with: 'a' "},
		{"ge a", "", "ERR unknown command 'ge', with args beginning with: 'a' "},
		{"command info get", "command|info", ""},
		{"command count", "command|count", ""},
	} {
		// Resolve, then a Resolver whose cache holds the previous case.
		for i, res := range []func([][]byte) (*Spec, string){Resolve, r.Resolve} {
			s, err := res(split(tc.args))
			name := ""
			if s != nil {
				name = s.Name
			}
			if name != tc.spec || err != tc.err {
				t.Errorf("resolver %d (%s) = %q, %q; want %q, %q", i, tc.args, name, err, tc.spec, tc.err)
			}
		}
	}
	args := split("get a")
	if a := testing.AllocsPerRun(100, func() { Resolve(args) }); a != 0 {
		t.Errorf("Resolve allocates %v times", a)
	}
	if a := testing.AllocsPerRun(100, func() { r.Resolve(args) }); a != 0 {
		t.Errorf("Resolver.Resolve allocates %v times", a)
	}
}

func TestUnknownCommandLimits(t *testing.T) {
	long := strings.Repeat("x", 200)
	got := UnknownCommandError([][]byte{[]byte(long), []byte(strings.Repeat("a", 100)), []byte(strings.Repeat("b", 100)), []byte("c")})
	want := "ERR unknown command '" + long[:128] + "', with args beginning with: '" +
		strings.Repeat("a", 100) + "' '" + strings.Repeat("b", 128-103) + "' "
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := UnknownCommandError([][]byte{[]byte("f\r\no"), []byte("a\x00b")}); got != "ERR unknown command 'f  o', with args beginning with: 'a' " {
		t.Errorf("got %q", got)
	}
}

// TestKeys checks key extraction against COMMAND GETKEYS of redis-server
// 7.0.15 ("!" marks an error reply).
func TestKeys(t *testing.T) {
	for _, tc := range []struct{ args, keys string }{
		{"get a", "a"},
		{"mget a b c", "a b c"},
		{"mset a 1 b 2", "a b"},
		{"mset a 1 b", "a b"},
		{"del a", "a"},
		{"zunionstore d 2 a b WEIGHTS 1 2", "d a b"},
		{"zunionstore d 5 a", "!"},
		{"zunionstore d x a", "!"},
		{"zunionstore d -1 a", "!"},
		{"xread COUNT 2 STREAMS a b 1 2", "a b"},
		{"xread COUNT 2 streams a b 1", "a"},
		{"xread COUNT 2 STREAMS", ""},
		{"eval s 0", ""},
		{"eval s 2 a b c", "a b"},
		{"eval s 3 a b", "!"},
		{"migrate h p k 0 5", "k"},
		// A key argument that is not empty (two quotes here) makes KEYS an
		// error: no key, as Redis's finder finds.
		{"migrate h p \"\" 0 5 KEYS a b c", ""},
		{"migrate h p k 0 5 AUTH keys KEYS", ""},
		{"georadius src 1 2 3 km STORE dst", "src dst"},
		{"georadius src 1 2 3 km STOREDIST d2 STORE d1", "src d1 d2"},
		{"sort k BY x GET y", "k"},
		{"lmpop 2 a b LEFT", "a b"},
		{"lmpop 0 a LEFT", "!"},
	} {
		args := split(tc.args)
		s := Lookup(args[0])
		pos, ok := s.Keys(args, nil)
		var got []string
		for _, p := range pos {
			got = append(got, string(args[p]))
		}
		g := strings.Join(got, " ")
		if !ok {
			g = "!"
		}
		if g != tc.keys {
			t.Errorf("Keys(%s) = %q, want %q", tc.args, g, tc.keys)
		}
	}
	args := split("mset a 1 b 2 c 3")
	dst := make([]int, 0, 8)
	s := Lookup(args[0])
	if a := testing.AllocsPerRun(100, func() { s.Keys(args, dst[:0]) }); a != 0 {
		t.Errorf("Keys allocates %v times", a)
	}
}

// TestOneKey: for every row whose only key Keys finds without walking its
// key specs (oneKey), the walk finds the same for every argument count,
// and GET, SET and INCR are such rows.
func TestOneKey(t *testing.T) {
	var rows []*Spec
	for _, s := range Rows() {
		rows = append(rows, s)
		rows = append(rows, s.Sub...)
	}
	fast := 0
	for _, s := range rows {
		if s.oneKey == 0 {
			continue
		}
		fast++
		for n := 1; n <= 8; n++ {
			args := make([][]byte, n)
			for i := range args {
				args[i] = []byte("a")
			}
			got, gotOK := s.Keys(args, nil)
			want, wantOK := s.specKeys(args, nil)
			if gotOK != wantOK || !slices.Equal(got, want) {
				t.Errorf("%s with %d arguments: Keys %v %v, the key specs %v %v", s.Name, n, got, gotOK, want, wantOK)
			}
		}
	}
	for _, name := range []string{"get", "set", "incr"} {
		if Lookup([]byte(name)).oneKey != 1 {
			t.Errorf("%s: oneKey %d, want 1", name, Lookup([]byte(name)).oneKey)
		}
	}
	t.Logf("%d of %d rows have one key at a fixed index", fast, len(rows))
}

// TestLegacyRange: the first/last/step and movablekeys register derives
// from key specs (the golden test checks them for real rows too).
func TestLegacyRange(t *testing.T) {
	for _, tc := range []struct {
		name              string
		first, last, step int
		movable           bool
	}{
		{"get", 1, 1, 1, false}, {"mset", 1, -1, 2, false}, {"zunionstore", 1, 1, 1, true},
		{"xread", 0, 0, 0, true}, {"migrate", 3, 3, 1, true}, {"sort", 1, 1, 1, true},
		{"eval", 0, 0, 0, true}, {"command", 0, 0, 0, false},
	} {
		s := Lookup([]byte(tc.name))
		got := fmt.Sprint(s.First, s.Last, s.Step, s.Flags&MovableKeys != 0)
		want := fmt.Sprint(tc.first, tc.last, tc.step, tc.movable)
		if got != want {
			t.Errorf("%s: first last step movable = %s, want %s", tc.name, got, want)
		}
	}
}

// run executes one command through Resolve and the handler, as the shard
// loop does, and returns the raw reply.
func run(proto int, line string) string {
	args := split(line)
	w := resp.Writer{Proto: proto}
	c := &Ctx{W: &w}
	s, err := Resolve(args)
	if err != "" {
		w.Error(err)
	} else {
		s.Handler(c, args)
	}
	return string(w.B)
}

// TestCommandCommand checks COMMAND's subcommands against replies of
// redis-server 7.0.15.
func TestCommandCommand(t *testing.T) {
	for _, tc := range []struct {
		proto      int
		line, want string
	}{
		{2, "command count", fmt.Sprintf(":%d\r\n", len(All()))},
		{2, "command info nosuch", "*1\r\n$-1\r\n"},
		{3, "command info nosuch", "*1\r\n_\r\n"},
		{2, "command getkeys get a", "*1\r\n$1\r\na\r\n"},
		{2, "command getkeys GET A", "*1\r\n$1\r\nA\r\n"},
		{2, "command getkeys get", "-ERR wrong number of arguments for 'command|getkeys' command\r\n"},
		{2, "command getkeys get a b", "-ERR Invalid number of arguments specified for command\r\n"},
		{2, "command getkeys nosuch a", "-ERR Invalid command specified\r\n"},
		{2, "command getkeys command info", "-ERR The command has no key arguments\r\n"},
		{2, "command getkeys zunionstore d 5 a", "-ERR Invalid arguments specified for command\r\n"},
		{2, "command getkeys eval s 3 a b", "*0\r\n"},
		{2, "command getkeys xread streams a b 1 2", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{2, "command getkeysandflags mset a b c d", "*2\r\n*2\r\n$1\r\na\r\n*2\r\n+OW\r\n+update\r\n*2\r\n$1\r\nc\r\n*2\r\n+OW\r\n+update\r\n"},
		{3, "command getkeysandflags get a", "*1\r\n*2\r\n$1\r\na\r\n~2\r\n+RO\r\n+access\r\n"},
		{2, "command getkeysandflags zunionstore d 2 a b", "*3\r\n*2\r\n$1\r\nd\r\n*2\r\n+OW\r\n+update\r\n*2\r\n$1\r\na\r\n*2\r\n+RO\r\n+access\r\n*2\r\n$1\r\nb\r\n*2\r\n+RO\r\n+access\r\n"},
		{2, "command list filterby module x", "*0\r\n"},
		{2, "command list filterby aclcat nosuch", "*0\r\n"},
		{2, "command list filterby foo x", "-ERR syntax error\r\n"},
		{2, "command list x", "-ERR syntax error\r\n"},
		{2, "command docs nosuch", "*0\r\n"},
		{3, "command docs nosuch", "%0\r\n"},
		{2, "command x", "-ERR unknown subcommand 'x'. Try COMMAND HELP.\r\n"},
	} {
		if got := run(tc.proto, tc.line); got != tc.want {
			t.Errorf("RESP%d %s:\n got %q\nwant %q", tc.proto, tc.line, got, tc.want)
		}
	}

	// COMMAND LIST includes subcommands; the filters select from them.
	v, _, _ := resp.ReadReply([]byte(run(2, "command list")))
	names := map[string]bool{}
	for _, e := range v.Elems {
		names[string(e.Str)] = true
	}
	if !names["get"] || !names["command|docs"] {
		t.Errorf("command list lacks get or command|docs: %v", names)
	}
	v, _, _ = resp.ReadReply([]byte(run(2, "command list filterby aclcat string")))
	for _, e := range v.Elems {
		if !Lookup(e.Str).HasACL("string") {
			t.Errorf("aclcat string listed %s", e.Str)
		}
	}
	if len(v.Elems) == 0 {
		t.Error("aclcat string listed nothing")
	}

	// COMMAND INFO with names equals the golden entries; COMMAND and
	// COMMAND INFO without names list every row.
	for _, proto := range []int{2, 3} {
		all := run(proto, "command")
		if info := run(proto, "command info"); info != all {
			t.Errorf("RESP%d: COMMAND INFO differs from COMMAND", proto)
		}
		v, _, err := resp.ReadReply([]byte(all))
		if err != nil || len(v.Elems) != len(All()) {
			t.Errorf("RESP%d: COMMAND: %d entries, err %v", proto, len(v.Elems), err)
		}
		v, _, err = resp.ReadReply([]byte(run(proto, "command docs")))
		if err != nil || len(v.Elems) != 2*len(All()) {
			t.Errorf("RESP%d: COMMAND DOCS: %d elements, err %v", proto, len(v.Elems), err)
		}
	}
	got := run(2, "command info get nosuch command|count")
	w := resp.Writer{}
	w.Array(3)
	WriteInfo(&w, Lookup([]byte("get")))
	w.Null()
	WriteInfo(&w, LookupFull([]byte("command|count")))
	if got != string(w.B) {
		t.Errorf("command info get nosuch command|count: %q", got)
	}
	if h := run(2, "command help"); !strings.HasPrefix(h, "*21\r\n+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n") {
		t.Errorf("command help: %q", h)
	}
}

func TestRegisterPanics(t *testing.T) {
	for _, s := range []*Spec{
		{Name: "Upper", Arity: 1},
		{Name: "get", Arity: 2},
		{Name: "x", Arity: 1, ACL: []string{"nosuch"}},
		{Name: "y", Arity: -2, Sub: []*Spec{{Name: "z|a", Arity: 2}}},
		// Stated facts that register derives:
		{Name: "acl1", Arity: 1, Flags: Write, ACL: []string{"write"}},
		{Name: "acl2", Arity: 1, ACL: []string{"keyspace", "slow"}},
		{Name: "acl3", Arity: 1, Flags: Admin, ACL: []string{"dangerous"}},
		{Name: "legacy", Arity: 2, First: 1, Last: 1, Step: 1,
			KeySpecs: []KeySpec{{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1}}},
		{Name: "all", Arity: 1, ACL: []string{"keyspace"}, AllShards: true,
			Tips: []string{"request_policy:all_shards"}},
		{Name: "sum", Arity: -2, Merge: MergeSum, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"},
			KeySpecs: []KeySpec{{Flags: KeyRO, Index: 1, LastKey: -1, Step: 1}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register(%s) did not panic", s.Name)
				}
			}()
			register(s)
		}()
	}
}

// TestFanOut pins what register derives from the tips, and the few rows
// that state their fan-out because Redis's tips cannot say it (CLIENT
// KILL says it with its Route: routeClientKill).
func TestFanOut(t *testing.T) {
	for _, tt := range []struct {
		name  string
		all   bool
		merge Merge
	}{
		{"dbsize", true, MergeSum}, {"flushall", true, MergeAllOK}, {"flushdb", true, MergeAllOK},
		{"keys", true, MergeConcat}, {"randomkey", true, MergeAny}, {"swapdb", true, MergeAllOK},
		{"ping", false, MergeNone}, {"info", false, MergeNone}, {"config|set", false, MergeNone},
		{"del", false, MergeSum}, {"exists", false, MergeSum}, {"mget", false, MergeKeyOrder},
		{"mset", false, MergeAllOK}, {"msetnx", false, MergeNone}, {"get", false, MergeNone},
		{"client|list", true, MergeText}, {"client|kill", false, MergeNone},
	} {
		s := LookupFull([]byte(tt.name))
		if s == nil {
			t.Fatalf("no row %s", tt.name)
		}
		if s.AllShards != tt.all || s.Merge != tt.merge {
			t.Errorf("%s: AllShards %v, Merge %d; want %v, %d", tt.name, s.AllShards, s.Merge, tt.all, tt.merge)
		}
	}
}

func TestZAddWarmZ(t *testing.T) {
	spec := Lookup([]byte("zadd"))
	for _, tc := range []struct {
		args  string
		score float64
		ok    bool
	}{
		{"zadd z 1.5 m", 1.5, true},
		{"zadd z -inf m", math.Inf(-1), true},
		{"zadd z nx 1 m", 0, false},
		{"zadd z 1 a 2 b", 0, false},
		{"zadd z x m", 0, false},
	} {
		sc, m, ok := spec.WarmZ(split(tc.args))
		if sc != tc.score || ok != tc.ok || ok && string(m) != "m" {
			t.Errorf("WarmZ(%s) = %v, %q, %v; want %v, \"m\", %v", tc.args, sc, m, ok, tc.score, tc.ok)
		}
	}
}

// TestMigrateKeys: MIGRATE's keys are those after KEYS when the key
// argument is empty, skipping AUTH's and AUTH2's values.
func TestMigrateKeys(t *testing.T) {
	s := Lookup([]byte("migrate"))
	for _, tc := range []struct {
		args []string
		keys string
	}{
		{[]string{"migrate", "h", "p", "", "0", "5", "KEYS", "a", "b"}, "a b"},
		{[]string{"migrate", "h", "p", "", "0", "5", "COPY", "AUTH2", "keys", "pw", "keys", "a"}, "a"},
		{[]string{"migrate", "h", "p", "k", "0", "5", "REPLACE"}, "k"},
	} {
		args := make([][]byte, len(tc.args))
		for i, a := range tc.args {
			args[i] = []byte(a)
		}
		pos, ok := s.Keys(args, nil)
		var got []string
		for _, p := range pos {
			got = append(got, string(args[p]))
		}
		if !ok || strings.Join(got, " ") != tc.keys {
			t.Errorf("Keys(%q) = %q, %v; want %q", tc.args, got, ok, tc.keys)
		}
	}
}

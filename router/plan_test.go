package router

import (
	"fmt"
	"testing"

	"github.com/radish-kv/radish/command"
)

// keysOn returns count keys that live on each of n shards: keys[sh][i].
func keysOn(n, count int) [][]string {
	on := make([][]string, n)
	for i, full := 0, 0; full < n; i++ {
		k := fmt.Sprintf("k%d", i)
		sh := ShardOf([]byte(k), n)
		if len(on[sh]) < count {
			if on[sh] = append(on[sh], k); len(on[sh]) == count {
				full++
			}
		}
	}
	return on
}

// row resolves args as the shard does (a subcommand's own row).
func row(t *testing.T, args [][]byte) *command.Spec {
	t.Helper()
	spec, errText := command.Resolve(args)
	if errText != "" {
		t.Fatalf("%s: %s", str(args), errText)
	}
	return spec
}

// plan places args and prints the placement: "owned [1 2]", "hop 1".
func plan(p *Planner, spec *command.Spec, args [][]byte, self, n int) string {
	return planFirst(p, spec, args, self, n, -2)
}

// planFirst is plan through PlanFirst with first, or Plan if first is -2.
func planFirst(p *Planner, spec *command.Spec, args [][]byte, self, n, first int) string {
	var pl Placement
	if first > -2 {
		pl = p.PlanFirst(spec, args, self, n, first)
	} else {
		pl = p.Plan(spec, args, self, n)
	}
	switch pl.Kind {
	case Hop, Scan:
		return fmt.Sprintf("%v %d", pl.Kind, pl.Dst)
	case Owned, Parts:
		return fmt.Sprintf("%v %v", pl.Kind, p.Keys())
	}
	return pl.Kind.String()
}

func TestPlan(t *testing.T) {
	on := keysOn(3, 3)
	a0, b0, c0 := on[0][0], on[0][1], on[0][2]
	a1, b1, c1 := on[1][0], on[1][1], on[1][2]
	a2 := on[2][0]
	// Hash tags: keys named after a key of shard 1 share its shard.
	t1, u1 := "{"+a1+"}:x", "y{"+a1+"}"
	f := fmt.Sprintf
	for _, tc := range []struct {
		n    int
		args string
		want string
	}{
		// Keys from key specs, the client on shard 0.
		{3, "get " + a0, "owned [1]"},
		{3, "get " + a1, "hop 1"},
		{3, "get " + a2, "hop 2"},
		{3, f("mget %s %s %s", a0, b0, c0), "owned [1 2 3]"},
		{3, f("mget %s %s", a1, b1), "hop 1"},
		{3, f("mget %s %s", t1, u1), "hop 1"},
		{3, f("mget %s %s %s", a0, a1, b0), "parts [1 2 3]"},
		{3, f("del %s %s", t1, a2), "parts [1 2]"},
		{3, f("mset %s v %s v", a0, a1), "parts [1 3]"},
		{3, f("mset %s v %s v", a1, t1), "hop 1"},
		// Malformed across shards: the handler refuses it whole, here.
		{3, f("mset %s v %s", a0, a1), "local"},
		{3, f("mset %s v %s v %s", a0, a1, b0), "local"},
		// Malformed on one shard: its handler refuses it there.
		{3, f("mset %s v %s", a0, b0), "owned [1 3]"},
		{3, f("mset %s v %s", a1, b1), "hop 1"},
		// Keynum commands: the destination and the counted keys.
		{3, f("zunionstore %s 2 %s %s", a0, b0, c0), "owned [1 3 4]"},
		{3, f("zunionstore %s 2 %s %s", a1, b1, c1), "hop 1"},
		{3, f("zunionstore %s 2 %s %s", a0, b0, a1), "parts [1 3 4]"},
		{3, f("zunionstore %s 1 %s %s", a0, b0, a1), "owned [1 3]"}, // a1 is not a key
		{3, f("zunionstore %s x %s", a1, b1), "local"},              // bad numkeys: the handler answers
		{3, f("zunionstore %s 3 %s", a1, b1), "local"},
		// No keys.
		{3, "ping", "local"},
		{3, "echo " + a1, "local"},
		{3, "object help", "local"},
		// Every shard.
		{3, "keys *", "all"},
		{3, "dbsize", "all"},
		{3, "flushall", "all"},
		// Route rows.
		{3, "scan 0", "scan 0"},
		{3, f("scan %d", PackCursor(0, 7)), "scan 0"},
		{3, f("scan %d match * count 5", PackCursor(2, 7)), "scan 2"},
		{3, f("scan %d", PackCursor(3, 0)), "scan-end"},
		{3, "scan -1", "scan-end"}, // strtoul wraps: top byte 255
		{3, "scan x", "local"},     // the handler answers the error
		{3, "debug populate 10", "all"},
		{3, "debug object " + a0, "owned [2]"},
		{3, "debug object " + a2, "hop 2"},
		{3, "debug sleep 0", "local"},
		// One shard: no key to check, no txn can lock one.
		{1, "get " + a1, "local"},
		{1, f("mget %s %s %s", a0, a1, a2), "local"},
		{1, f("mset %s v %s", a0, a1), "local"},
		{1, "keys *", "all"},
		{1, "scan 0", "scan 0"},
		{1, f("scan %d", PackCursor(1, 0)), "scan-end"},
		{1, "debug object " + a1, "local"},
		{1, "debug populate 10", "all"},
	} {
		args := bs(tc.args)
		var p Planner
		if got := plan(&p, row(t, args), args, 0, tc.n); got != tc.want {
			t.Errorf("n=%d %s: got %q, want %q", tc.n, tc.args, got, tc.want)
		}
	}
}

// TestPlanSelf: the same command is local on the shard that owns its keys
// and a hop to it from every other shard.
func TestPlanSelf(t *testing.T) {
	const n = 4
	on := keysOn(n, 2)
	var p Planner
	for owner := 0; owner < n; owner++ {
		args := bs(fmt.Sprintf("mset %s 1 %s 2", on[owner][0], on[owner][1]))
		spec := row(t, args)
		for self := 0; self < n; self++ {
			want := "hop " + fmt.Sprint(owner)
			if self == owner {
				want = "owned [1 3]"
			}
			if got := plan(&p, spec, args, self, n); got != want {
				t.Errorf("self %d, keys on %d: got %q, want %q", self, owner, got, want)
			}
		}
	}
}

// TestPlanTableRows places every row of the command table, with arguments
// that fit its arity, from both shards of two, and checks the placement
// against the row's data: AllShards rows go everywhere, rows with neither
// keys nor a Route stay on the client's shard, and only rows with keys hop
// or run as parts.
func TestPlanTableRows(t *testing.T) {
	var p Planner
	for _, spec := range command.Rows() {
		args := [][]byte{[]byte(spec.Name)}
		for len(args) < max(spec.Arity, -spec.Arity, 3) {
			args = append(args, []byte(fmt.Sprint("k", len(args))))
		}
		for self := 0; self < 2; self++ {
			pl := p.Plan(spec, args, self, 2)
			switch {
			case spec.AllShards:
				if pl.Kind != All {
					t.Errorf("%s: AllShards row placed %v", spec.Name, pl)
				}
			case spec.Route != nil:
			case !spec.HasKeys():
				if pl.Kind != Local {
					t.Errorf("%s: row without keys placed %v", spec.Name, pl)
				}
			case pl.Kind == All || pl.Kind == Scan || pl.Kind == ScanEnd:
				t.Errorf("%s: keyed row placed %v", spec.Name, pl)
			}
		}
	}
}

func TestWellFormed(t *testing.T) {
	for _, tc := range []struct {
		args string
		want bool
	}{
		{"mset a 1 b 2", true},
		{"mset a 1 b", false},
		{"msetnx a 1 b 2", true},
		{"msetnx a 1 b", false},
		{"get a", true},
		{"mget a b c", true},
		{"zunionstore d 2 a b", true},
		{"zunionstore d 3 a b", true}, // keynum: the handler checks the count
		{"hset h f v f2", true},       // one key: its arguments are the handler's
	} {
		args := bs(tc.args)
		if got := wellFormed(row(t, args), args); got != tc.want {
			t.Errorf("wellFormed(%s) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestRewriteCursor(t *testing.T) {
	keys := "*2\r\n$1\r\na\r\n$1\r\nb\r\n"
	reply := func(cursor string) string { return fmt.Sprintf("*2\r\n$%d\r\n%s\r\n%s", len(cursor), cursor, keys) }
	c := func(shard int, local uint64) string { return fmt.Sprint(PackCursor(shard, local)) }
	for _, tc := range []struct {
		in       string
		shard, n int
		proto    int
		want     string
	}{
		{reply("5"), 1, 3, 2, reply(c(1, 5))},
		{reply("0"), 1, 3, 2, reply(c(2, 0))},
		{reply("0"), 2, 3, 2, reply("0")},
		{reply("0"), 0, 1, 2, reply("0")},
		{reply("9"), 0, 1, 3, reply("9")},
		{"*2\r\n$1\r\n0\r\n~1\r\n$1\r\na\r\n", 0, 2, 3, "*2\r\n$" + fmt.Sprint(len(c(1, 0))) + "\r\n" + c(1, 0) + "\r\n~1\r\n$1\r\na\r\n"},
		// Not a [cursor, keys] reply: as is.
		{"-ERR invalid cursor\r\n", 1, 3, 2, "-ERR invalid cursor\r\n"},
		{"*1\r\n$1\r\n5\r\n", 1, 3, 2, "*1\r\n$1\r\n5\r\n"},
		{reply("x"), 1, 3, 2, reply("x")},
	} {
		if got := string(RewriteCursor([]byte(tc.in), tc.shard, tc.n, tc.proto)); got != tc.want {
			t.Errorf("RewriteCursor(%q, %d, %d):\n got %q\nwant %q", tc.in, tc.shard, tc.n, got, tc.want)
		}
	}
}

// TestPlanZeroRoute: a row whose Route says nothing for these arguments
// (PFMERGE with sources) is placed by its key specs; PFMERGE destkey alone
// goes where destkey is.
func TestPlanZeroRoute(t *testing.T) {
	const n = 4
	on := keysOn(n, 2)
	var p Planner
	args := bs("pfmerge " + on[2][0])
	if got := plan(&p, row(t, args), args, 0, n); got != "hop 2" {
		t.Errorf("%s: %q, want hop 2", args, got)
	}
	args = bs(fmt.Sprintf("pfmerge %s %s", on[1][0], on[1][1]))
	if got := plan(&p, row(t, args), args, 1, n); got != "owned [1 2]" {
		t.Errorf("%s: %q, want owned [1 2]", args, got)
	}
	args = bs(fmt.Sprintf("pfmerge %s %s", on[1][0], on[3][0]))
	if got := plan(&p, row(t, args), args, 1, n); got != "parts [1 2]" {
		t.Errorf("%s: %q, want parts [1 2]", args, got)
	}
}

// TestPlanFirst: given its first key's shard, PlanFirst places a command
// as Plan does, and hashes the keys after the first itself.
func TestPlanFirst(t *testing.T) {
	on := keysOn(3, 2)
	var p Planner
	for _, line := range []string{
		"GET " + on[1][0], "GET " + on[0][0], "SET " + on[2][0] + " v",
		"MSET " + on[0][0] + " v " + on[0][1] + " v", "MSET " + on[0][0] + " v " + on[1][0] + " v",
		"MGET " + on[2][0] + " " + on[2][1], "MGET " + on[2][0] + " " + on[1][1],
	} {
		args := bs(line)
		spec := row(t, args)
		want := planFirst(&p, spec, args, 0, 3, -2)
		for _, first := range []int{ShardOf(args[spec.First], 3), -1} {
			got := planFirst(&p, spec, args, 0, 3, first)
			if got != want {
				t.Errorf("%s, first key on %d: %s, Plan says %s", line, first, got, want)
			}
		}
	}
}

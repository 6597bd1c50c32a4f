package coord

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// gatherTxn is a Txn whose parts lock the keys written "w:name" (Exclusive)
// or "name" (Shared), one part per string of space-separated keys.
func gatherTxn(parts ...string) *Txn {
	t := &Txn{ID: 1}
	for i, p := range parts {
		part := Part{Shard: i}
		for _, k := range strings.Fields(p) {
			in := Shared
			if name, ok := strings.CutPrefix(k, "w:"); ok {
				k, in = name, Exclusive
			}
			part.Keys = append(part.Keys, Key{Name: []byte(k), Intent: in})
		}
		t.Parts = append(t.Parts, part)
	}
	return t
}

// reads writes a part's reads as "db:key", a written one "db:w:key".
func reads(rs []Read) string {
	var b strings.Builder
	for _, r := range rs {
		w := ""
		if r.Write {
			w = "w:"
		}
		fmt.Fprintf(&b, "%d:%s%s ", r.DB, w, r.Key)
	}
	return strings.TrimSpace(b.String())
}

// TestGatherPlan: each key is read from the client's database but, with
// another database named, each the command writes from that one; a part's
// write-backs are its keys the command may write and changed, once each,
// a read key with a writing twin included.
func TestGatherPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parts  []string
		other  int
		reads  []string
		wrote  []string // "db:key" the command changed
		writes []string // per part, the reads going back
	}{
		{name: "rename", parts: []string{"w:a", "w:b"}, other: -1,
			reads: []string{"0:w:a", "0:w:b"}, wrote: []string{"0:a", "0:b"}, writes: []string{"0:w:a", "0:w:b"}},
		{name: "smove nothing moved", parts: []string{"w:a", "w:b"}, other: -1,
			reads: []string{"0:w:a", "0:w:b"}, writes: []string{"", ""}},
		{name: "sunionstore", parts: []string{"w:d s1", "s2"}, other: -1,
			reads: []string{"0:w:d 0:s1", "0:s2"}, wrote: []string{"0:d"}, writes: []string{"0:w:d", ""}},
		{name: "a read that changes its copy", parts: []string{"w:d h", "h2"}, other: -1,
			reads: []string{"0:w:d 0:h", "0:h2"}, wrote: []string{"0:h", "0:h2"}, writes: []string{"", ""}},
		{name: "copy db", parts: []string{"s", "w:d"}, other: 3,
			reads: []string{"0:s", "3:w:d"}, wrote: []string{"3:d"}, writes: []string{"", "3:w:d"}},
		{name: "copy to its own name in another db", parts: []string{"a w:a"}, other: 2,
			reads: []string{"0:a 2:w:a"}, wrote: []string{"2:a"}, writes: []string{"2:w:a"}},
		{name: "named twice goes back once", parts: []string{"w:a w:a", "w:b"}, other: -1,
			reads: []string{"0:w:a 0:w:a", "0:w:b"}, wrote: []string{"0:a"}, writes: []string{"0:w:a", ""}},
		{name: "read twin of a written key", parts: []string{"a w:a"}, other: -1,
			reads: []string{"0:a 0:w:a"}, wrote: []string{"0:a"}, writes: []string{"0:a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g Gather
			g.Plan(gatherTxn(tc.parts...), 0, tc.other)
			for i, want := range tc.reads {
				if got := reads(g.Reads[i]); got != want {
					t.Fatalf("part %d reads %q, want %q", i, got, want)
				}
			}
			for i := range tc.parts {
				if all := g.Exported(i); all != (i == len(tc.parts)-1) {
					t.Fatalf("export %d: last %v", i, all)
				}
			}
			changed := map[string]bool{}
			for _, k := range tc.wrote {
				changed[k] = true
			}
			wrote := func(db int, key []byte) bool {
				k := fmt.Sprintf("%d:%s", db, key)
				was := changed[k]
				delete(changed, k)
				return was
			}
			for i, want := range tc.writes {
				var back []Read
				g.Writes(i, wrote, func(j int) { back = append(back, g.Reads[i][j]) })
				if got := reads(back); got != want {
					t.Fatalf("part %d writes back %q, want %q", i, got, want)
				}
			}
			for i := range tc.parts {
				if all := g.WroteBack(i); all != (i == len(tc.parts)-1) {
					t.Fatalf("write-back %d: last %v", i, all)
				}
			}
			if g.Stage() != Gathered {
				t.Fatalf("stage %d after every write-back", g.Stage())
			}
		})
	}
}

// TestGatherOrder: from a seed, a plan of many parts is told its exports
// and then its write-backs in any order; the last of each, and only it,
// moves it on, and telling it out of order panics.
func TestGatherOrder(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		n := 1 + r.IntN(6)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("w:k%d r%d", i, i)
		}
		var g Gather
		g.Plan(gatherTxn(parts...), 0, -1)
		mustPanic(t, seed, "a write-back before the exports", func() { g.WroteBack(0) })
		for k, i := range r.Perm(n) {
			if g.Stage() != Exporting {
				t.Fatalf("seed %d: stage %d before export %d of %d", seed, g.Stage(), k+1, n)
			}
			if all := g.Exported(i); all != (k == n-1) {
				t.Fatalf("seed %d: export %d of %d: last %v", seed, k+1, n, all)
			}
		}
		mustPanic(t, seed, "an export too many", func() { g.Exported(r.IntN(n)) })
		if r.IntN(2) == 0 {
			// Nothing changed: no part is asked for its writes.
			for i := range parts {
				g.Writes(i, func(int, []byte) bool { return false }, func(int) { t.Fatalf("seed %d: a write-back", seed) })
			}
		}
		for k, i := range r.Perm(n) {
			if all := g.WroteBack(i); all != (k == n-1) {
				t.Fatalf("seed %d: write-back %d of %d: last %v", seed, k+1, n, all)
			}
		}
		if g.Stage() != Gathered {
			t.Fatalf("seed %d: stage %d at the end", seed, g.Stage())
		}
		mustPanic(t, seed, "a write-back too many", func() { g.WroteBack(r.IntN(n)) })
	}
}

func mustPanic(t *testing.T, seed uint64, what string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("seed %d: %s did not panic", seed, what)
		}
	}()
	fn()
}

// TestGatherReadsShareOneArray: the plan allocates its reads once, and
// one part's reads cannot grow into the next's.
func TestGatherReadsShareOneArray(t *testing.T) {
	var g Gather
	g.Plan(gatherTxn("w:a b", "w:c"), 0, -1)
	if cap(g.Reads[0]) != len(g.Reads[0]) {
		t.Fatalf("part 0's reads have room to grow into part 1's")
	}
	g.Reads[0] = append(g.Reads[0], Read{Key: []byte("x")})
	if got := reads(g.Reads[1]); got != "0:w:c" {
		t.Fatalf("part 1 reads %q after part 0 grew", got)
	}
	if slices.ContainsFunc(g.Reads[1], func(r Read) bool { return string(r.Key) == "x" }) {
		t.Fatal("part 0's append reached part 1")
	}
}

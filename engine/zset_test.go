package engine

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/radish-kv/radish/engine/slab"
)

type zel struct {
	m string
	s float64
}

// zmodel is a sorted set as a map; sorted gives the order.
type zmodel map[string]float64

func (m zmodel) sorted() []zel {
	out := make([]zel, 0, len(m))
	for k, v := range m {
		out = append(out, zel{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return zless(out[i].s, []byte(out[i].m), out[j].s, []byte(out[j].m)) })
	return out
}

func zsetContents(t *testing.T, db *DB, key []byte) []zel {
	t.Helper()
	if err := checkZsl(db, key); err != nil {
		t.Fatal(err)
	}
	var got []zel
	db.ZEach(key, 0, func(m []byte, s float64) bool { got = append(got, zel{string(m), s}); return true })
	return got
}

// zsetModel runs random operations on a DB and a map and compares them.
// Small limits make the listpack->skiplist conversion happen often; the
// conversion must not change any reply.
func zsetModel(t *testing.T, ops []byte, limits [2]int) {
	s := NewStore(1)
	defer s.Close()
	s.Limits.ZSetMaxListpackEntries, s.Limits.ZSetMaxListpackValue = limits[0], limits[1]
	db := s.DB(0)
	key := []byte("z")
	m := zmodel{}
	mem := func(b byte) []byte {
		if b%16 == 15 {
			return bytes.Repeat([]byte{'m'}, 70+int(b)) // past zset-max-listpack-value
		}
		return []byte(fmt.Sprintf("m%02d", b%40))
	}
	score := func(b byte) float64 {
		if limits[0] == 1 {
			return 0 // lex mode: every score equal
		}
		switch b % 16 {
		case 0:
			return math.Inf(1)
		case 1:
			return math.Inf(-1)
		case 2:
			return 0
		}
		return float64(int(b%9)-4) / 2
	}
	for i := 0; i+3 < len(ops); i += 4 {
		op, a, b, c := ops[i], ops[i+1], ops[i+2], ops[i+3]
		desc := fmt.Sprintf("op %d (%d %d %d %d)", i/4, op%10, a, b, c)
		sorted := m.sorted()
		// Lex ranges are defined only when every score is equal.
		uniform := true
		for _, e := range sorted {
			uniform = uniform && e.s == sorted[0].s
		}
		switch op % 10 {
		case 0, 1, 2: // ZADD with flags
			flags := []int{0, ZAddNX, ZAddXX, ZAddGT, ZAddLT, ZAddIncr, ZAddGT | ZAddXX, ZAddIncr | ZAddNX}[c%8]
			n := 1 + int(b%3)
			if flags&ZAddIncr != 0 {
				n = 1
			}
			pair := func(j int) (float64, []byte) { return score(a + byte(j)*7), mem(b + byte(j)*5) }
			r, err := db.ZAdd(key, flags, n, pair, 0)
			var want ZAddResult
			var wantErr error
			for j := 0; j < n; j++ {
				sc, mb := pair(j)
				cur, ok := m[string(mb)]
				if ok {
					if flags&ZAddNX != 0 {
						continue
					}
					if flags&ZAddIncr != 0 {
						sc += cur
						if math.IsNaN(sc) {
							wantErr = ErrScoreNaN
							break
						}
					}
					if flags&ZAddLT != 0 && sc >= cur || flags&ZAddGT != 0 && sc <= cur {
						continue
					}
					want.Score, want.Done = sc, true
					if sc != cur {
						m[string(mb)] = sc
						want.Updated++
					}
					continue
				}
				if flags&ZAddXX != 0 {
					continue
				}
				m[string(mb)] = sc
				want.Added++
				want.Score, want.Done = sc, true
			}
			if err != wantErr || r != want {
				t.Fatalf("%s: zadd flags %d = %+v %v, want %+v %v", desc, flags, r, err, want, wantErr)
			}
		case 3: // ZREM
			ms := [][]byte{mem(a), mem(b)}
			n, _ := db.ZRem(key, ms, 0)
			want := 0
			for _, x := range ms {
				if _, ok := m[string(x)]; ok {
					delete(m, string(x))
					want++
				}
			}
			if n != want {
				t.Fatalf("%s: zrem = %d want %d", desc, n, want)
			}
		case 4, 5: // ZRANGE by rank/score/lex, maybe REV and LIMIT
			sp := zspec(a, b, c, score, mem)
			if sp.Kind == ZByLex && !uniform {
				continue
			}
			var got []zel
			db.ZRange(key, &sp, 0, func(_, _ int, mb []byte, sc float64) { got = append(got, zel{string(mb), sc}) })
			want := modelRange(sorted, &sp)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: zrange %+v = %v, want %v", desc, sp, got, want)
			}
			if sp.Kind != ZByRank {
				n, _ := db.ZCount(key, &sp, 0)
				sp2 := sp
				sp2.Offset, sp2.Count, sp2.Rev = 0, -1, false
				if w := len(modelRange(sorted, &sp2)); n != w {
					t.Fatalf("%s: zcount = %d want %d", desc, n, w)
				}
			}
		case 6: // ZREMRANGEBY*
			if a%3 != 0 {
				continue
			}
			sp := zspec(a, b, c, score, mem)
			if sp.Kind == ZByLex && !uniform {
				continue
			}
			sp.Rev, sp.Offset, sp.Count = false, 0, -1
			want := modelRange(sorted, &sp)
			n, _ := db.ZRemRange(key, &sp, 0)
			for _, e := range want {
				delete(m, e.m)
			}
			if n != len(want) {
				t.Fatalf("%s: zremrange %+v = %d want %d", desc, sp, n, len(want))
			}
		case 7: // ZPOPMIN/MAX
			cnt := int(a % 4)
			var got []zel
			db.ZPop(key, b%2 == 0, cnt, 0, func(_, _ int, mb []byte, sc float64) { got = append(got, zel{string(mb), sc}) })
			var want []zel
			for j := 0; j < cnt && j < len(sorted); j++ {
				e := sorted[j]
				if b%2 == 0 {
					e = sorted[len(sorted)-1-j]
				}
				want = append(want, e)
				delete(m, e.m)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: zpop = %v want %v", desc, got, want)
			}
		case 8: // ZRANK/ZREVRANK, ZSCORE
			mb := mem(a)
			r, sc, ok, _ := db.ZRank(key, mb, b%2 == 0, 0)
			wr := slices.IndexFunc(sorted, func(e zel) bool { return e.m == string(mb) })
			if ok != (wr >= 0) {
				t.Fatalf("%s: zrank found=%v", desc, ok)
			}
			if ok {
				if b%2 == 0 {
					wr = len(sorted) - 1 - wr
				}
				if r != wr || sc != m[string(mb)] {
					t.Fatalf("%s: zrank = %d %v want %d", desc, r, sc, wr)
				}
			}
			s2, ok2, _ := db.ZScore(key, mb, 0)
			if ok2 != ok || ok && s2 != sc {
				t.Fatalf("%s: zscore", desc)
			}
		case 9: // export/import round trip, and ZSCAN sees every element
			if r, ok := db.Export(key, 0); ok {
				db.Import([]byte("copy"), r)
				if got := zsetContents(t, db, []byte("copy")); !slices.Equal(got, sorted) {
					t.Fatalf("%s: import %v", desc, got)
				}
				db.Delete([]byte("copy"), 0)
			}
			seen := map[string]float64{}
			var cur uint64
			for {
				cur, _ = db.ZScan(key, cur, 3, 0, func(mb []byte, sc float64) { seen[string(mb)] = sc })
				if cur == 0 {
					break
				}
			}
			if len(seen) != len(m) {
				t.Fatalf("%s: zscan saw %d of %d", desc, len(seen), len(m))
			}
		}
		got := zsetContents(t, db, key)
		want := m.sorted()
		if !slices.Equal(got, want) {
			t.Fatalf("%s: contents %v\nwant %v", desc, got, want)
		}
		if n, _ := db.ZCard(key, 0); n != len(m) {
			t.Fatalf("%s: zcard %d want %d", desc, n, len(m))
		}
		if len(m) > 0 {
			var rev []zel
			db.ZRange(key, &ZRangeSpec{Kind: ZByRank, Rev: true, Start: 0, Stop: -1}, 0, func(_, _ int, mb []byte, sc float64) {
				rev = append(rev, zel{string(mb), sc})
			})
			slices.Reverse(rev)
			if !slices.Equal(rev, want) {
				t.Fatalf("%s: reverse walk %v", desc, rev)
			}
		}
	}
	db.Delete(key, 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d slab blocks live after delete", s.SlabLive())
	}
}

func zspec(a, b, c byte, score func(byte) float64, mem func(byte) []byte) ZRangeSpec {
	sp := ZRangeSpec{Kind: ZRangeKind(a % 3), Rev: b&1 != 0, Count: -1}
	switch sp.Kind {
	case ZByRank:
		sp.Start, sp.Stop = int(int8(b))%12, int(int8(c))%12
	case ZByScore:
		sp.Min, sp.Max = score(b), score(c)
		sp.MinEx, sp.MaxEx = b&2 != 0, c&2 != 0
	case ZByLex:
		sp.LexMin = LexBound{Ex: b&2 != 0, Val: mem(b)}
		sp.LexMax = LexBound{Ex: c&2 != 0, Val: mem(c)}
		if b%7 == 0 {
			sp.LexMin = LexBound{Inf: -1}
		}
		if c%7 == 0 {
			sp.LexMax = LexBound{Inf: 1}
		}
	}
	if sp.Kind != ZByRank && c&4 != 0 {
		sp.Offset, sp.Count = int(a%3), int(b%4)-1
	}
	return sp
}

// modelRange is ZRangeSpec's definition, on a sorted slice. Lex ranges
// are only compared where all scores are equal... so the model uses the
// same prefix semantics as the engine: the members are compared in the
// set's order.
func modelRange(sorted []zel, sp *ZRangeSpec) []zel {
	var sel []zel
	switch sp.Kind {
	case ZByRank:
		f, n := listRange(sp.Start, sp.Stop, len(sorted))
		if sp.Rev {
			r := slices.Clone(sorted)
			slices.Reverse(r)
			return r[f : f+n]
		}
		return sorted[f : f+n]
	case ZByScore:
		for _, e := range sorted {
			if (e.s > sp.Min || !sp.MinEx && e.s == sp.Min) && (e.s < sp.Max || !sp.MaxEx && e.s == sp.Max) {
				sel = append(sel, e)
			}
		}
	case ZByLex:
		lo := 0
		for lo < len(sorted) && lexBeforeMin([]byte(sorted[lo].m), &sp.LexMin) {
			lo++
		}
		hi := 0
		for hi < len(sorted) && lexUpToMax([]byte(sorted[hi].m), &sp.LexMax) {
			hi++
		}
		if hi > lo {
			sel = sorted[lo:hi]
		}
	}
	if sp.Rev {
		sel = slices.Clone(sel)
		slices.Reverse(sel)
	}
	if sp.Offset >= len(sel) {
		return nil
	}
	sel = sel[sp.Offset:]
	if sp.Count >= 0 && sp.Count < len(sel) {
		sel = sel[:sp.Count]
	}
	return sel
}

func TestZSetModel(t *testing.T) {
	for _, lim := range [][2]int{{128, 64}, {4, 8}, {0, 0}, {1, 64}} {
		for seed := int64(0); seed < 6; seed++ {
			r := rand.New(rand.NewSource(seed))
			ops := make([]byte, 4*600)
			r.Read(ops)
			t.Run(fmt.Sprintf("lim%v/seed%d", lim, seed), func(t *testing.T) { zsetModel(t, ops, lim) })
		}
	}
}

func FuzzZSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 5, 6, 7, 4, 1, 2, 3, 7, 1, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		zsetModel(t, ops, [2]int{128, 64})
		zsetModel(t, ops, [2]int{3, 8})
	})
}

// TestZSetLarge crosses 128 elements with the default limits and checks
// rank arithmetic on a few thousand elements against the model.
func TestZSetLarge(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("z")
	m := zmodel{}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		mb := fmt.Sprintf("member:%d", r.Intn(4000))
		sc := float64(r.Intn(1000))
		db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return sc, []byte(mb) }, 0)
		m[mb] = sc
		if i == 100 || i == 200 {
			enc, _ := db.Encoding(key, 0)
			if want := map[int]string{100: "listpack", 200: "skiplist"}[i]; enc != want {
				t.Fatalf("after %d adds: encoding %s", i, enc)
			}
		}
	}
	sorted := m.sorted()
	for k := 0; k < 200; k++ {
		e := sorted[r.Intn(len(sorted))]
		rk, _, ok, _ := db.ZRank(key, []byte(e.m), false, 0)
		if !ok || sorted[rk] != e {
			t.Fatalf("rank of %v = %d", e, rk)
		}
	}
	if got := zsetContents(t, db, key); !slices.Equal(got, sorted) {
		t.Fatal("contents differ")
	}
	db.Delete(key, 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks live", s.SlabLive())
	}
}

// checkZsl verifies a skiplist-encoded zset's links at every level: order,
// each level's copy of its successor's score, spans, back links, length.
func checkZsl(db *DB, key []byte) error {
	z, o, err := db.openZSet(key, 0)
	if err != nil || !o.exists() || z.enc != encSkiplist {
		return err
	}
	zl := db.openZsl(z.x)
	// rank of every node by walking level 0
	rank := map[slab.Handle]int{zl.header: 0}
	prev := slab.Nil
	n := 0
	for x := zl.node(zl.header).fwd(0); x != slab.Nil; x = zl.node(x).fwd(0) {
		n++
		rank[x] = n
		xn := zl.node(x)
		if xn.back() != prev {
			return fmt.Errorf("node %d: back link %x, want %x", n, xn.back(), prev)
		}
		prev = x
	}
	if n != zl.length || prev != zl.tail {
		return fmt.Errorf("length %d tail %x, walked %d ending at %x", zl.length, zl.tail, n, prev)
	}
	for i := 0; i < zl.level; i++ {
		x := zl.header
		for {
			xn := zl.node(x)
			f := xn.fwd(i)
			if f == slab.Nil {
				break
			}
			fn := zl.node(f)
			if xn.fscore(i) != fn.score() {
				return fmt.Errorf("level %d: copy of the successor's score %v, score %v", i, xn.fscore(i), fn.score())
			}
			if xn.span(i) != rank[f]-rank[x] {
				return fmt.Errorf("level %d: span %d, ranks %d -> %d", i, xn.span(i), rank[x], rank[f])
			}
			if x != zl.header && !zless(xn.score(), xn.member(), fn.score(), fn.member()) {
				return fmt.Errorf("level %d: order", i)
			}
			x = f
		}
	}
	return nil
}

// TestPrefetchZSet: walks toward scores in a skiplist prefetch nodes and
// change nothing; other encodings and types are left alone.
func TestPrefetchZSet(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("z")
	m := func(s ...string) (b [][]byte) {
		for _, x := range s {
			b = append(b, []byte(x))
		}
		return b
	}
	if n := db.PrefetchZSet(key, []float64{1}, m("a")); n != 0 {
		t.Fatalf("absent key: %d", n)
	}
	for i := 0; i < 1000; i++ {
		m := fmt.Appendf(nil, "m%d", i)
		db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return float64(i), m }, 0)
	}
	before := zsetContents(t, db, key)
	if n := db.PrefetchZSet(key, []float64{-1, 0}, m("new1", "new2")); n != 0 {
		t.Fatalf("new members, scores before the first: %d nodes", n)
	}
	if n := db.PrefetchZSet(key, []float64{500, 999.5, 2000}, m("a", "b", "c")); n < 3 {
		t.Fatalf("scores inside and after: %d nodes", n)
	}
	// m700 exists at 700: its old score is walked to as well.
	if a, b := db.PrefetchZSet(key, []float64{-1}, m("m700")), db.PrefetchZSet(key, []float64{-1}, m("x")); a == 0 || b != 0 {
		t.Fatalf("existing member: %d nodes; new member: %d", a, b)
	}
	if got := zsetContents(t, db, key); !slices.Equal(got, before) {
		t.Fatal("contents changed")
	}
	db.SetString([]byte("s"), []byte("v"), 0, false)
	db.ZAdd([]byte("small"), 0, 1, func(int) (float64, []byte) { return 1, []byte("a") }, 0)
	if db.PrefetchZSet([]byte("s"), []float64{1}, m("a"))+db.PrefetchZSet([]byte("small"), []float64{2}, m("a")) != 0 {
		t.Fatal("prefetched a string or a listpack")
	}
}

// TestZSetSkiplist: SORT's conversion keeps members and scores, counts no
// change, and leaves a skiplist alone.
func TestZSetSkiplist(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("z")
	m := zmodel{}
	for i := range 20 {
		mb, sc := fmt.Sprintf("m%d", i), float64(i%7)
		db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return sc, []byte(mb) }, 0)
		m[mb] = sc
	}
	dirty := s.Dirty()
	db.ZSetSkiplist(key, 0)
	if enc, _ := db.Encoding(key, 0); enc != "skiplist" {
		t.Fatalf("encoding %s", enc)
	}
	if s.Dirty() != dirty {
		t.Fatal("the conversion counted as a change")
	}
	if got := zsetContents(t, db, key); !slices.Equal(got, m.sorted()) {
		t.Fatal("contents differ")
	}
	db.ZSetSkiplist(key, 0)
	db.ZSetSkiplist([]byte("missing"), 0)
	db.Delete(key, 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks live", s.SlabLive())
	}
}

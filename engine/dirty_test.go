package engine

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// keyDigests renders each key of every database (type, value, TTL), so
// that two states can be compared.
func keyDigests(s *Store, now int64) map[written]string {
	out := map[written]string{}
	for i := range s.Databases() {
		db := s.DB(i)
		db.Keys([]byte("*"), now, func(k []byte) bool {
			if r, ok := db.Export(k, now); ok {
				out[written{i, string(k)}] = fmt.Sprintf("%d %d %q", r.Type, r.ExpireAt, r.Data)
			}
			return true
		})
	}
	return out
}

// TestDirtyCountsEveryChange runs random writes of every kind and checks
// that Dirty grew whenever the data changed (unless a hook reported the
// change: an expiry or an eviction), and that the writes that change
// nothing leave it alone. A write missing from Dirty would be missing from
// the effect stream, so from the AOF and the replicas. Every key a write
// changed is one TrackWrites and NoteWrites noted (a key missing there
// would be missing from a cross-shard command's write-back, or from the
// WATCHes a command on one shard bumps).
func TestDirtyCountsEveryChange(t *testing.T) {
	s := NewStore(2)
	defer s.Close()
	hooked := 0
	s.OnExpire = func(int, []byte) { hooked++ }
	s.OnEvict = func(int, []byte) { hooked++ }
	r := rand.New(rand.NewPCG(1, 2))
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("k:1"), []byte("k:2")}
	vals := [][]byte{[]byte("1"), []byte("x"), []byte("-5"), bytes.Repeat([]byte("v"), 300), []byte("2")}
	key := func() []byte { return keys[r.IntN(len(keys))] }
	val := func() []byte { return vals[r.IntN(len(vals))] }
	now := int64(1_000_000)
	ops := []struct {
		name string
		fn   func(db *DB)
	}{
		{"SetString", func(db *DB) { db.SetString(key(), val(), 0, r.IntN(2) == 0) }},
		{"SetString TTL", func(db *DB) { db.SetString(key(), val(), now+int64(r.IntN(50)), false) }},
		{"SetRawString", func(db *DB) { db.SetRawString(key(), val()) }},
		{"SetTextString", func(db *DB) { db.SetTextString(key(), val()) }},
		{"IncrBy", func(db *DB) { db.IncrBy(key(), int64(r.IntN(3)), now) }},
		{"Append", func(db *DB) { db.Append(key(), val(), now) }},
		{"Delete", func(db *DB) { db.Delete(key(), now) }},
		{"SetExpiry", func(db *DB) { db.SetExpiry(key(), now+int64(r.IntN(40))-10, now) }},
		{"Persist", func(db *DB) { db.Persist(key(), now) }},
		{"Rename", func(db *DB) { db.Rename(key(), key(), now) }},
		{"Import", func(db *DB) {
			if rec, ok := db.Export(key(), now); ok {
				db.Import(key(), rec)
			}
		}},
		{"HSet", func(db *DB) { db.HSet(key(), [][]byte{val(), val()}, now) }},
		{"HSetNX", func(db *DB) { db.HSetNX(key(), val(), val(), now) }},
		{"HDel", func(db *DB) { db.HDel(key(), [][]byte{val()}, now) }},
		{"ListPush", func(db *DB) { db.ListPush(key(), [][]byte{val()}, r.IntN(2) == 0, r.IntN(3) == 0, now) }},
		{"ListPop", func(db *DB) { db.ListPop(key(), r.IntN(2) == 0, r.IntN(3), now, func(int, int, []byte) {}) }},
		{"ListSet", func(db *DB) { db.ListSet(key(), r.IntN(4)-2, val(), now) }},
		{"ListInsert", func(db *DB) { db.ListInsert(key(), r.IntN(2) == 0, val(), val(), now) }},
		{"ListRem", func(db *DB) { db.ListRem(key(), r.IntN(3)-1, val(), now) }},
		{"ListTrim", func(db *DB) { db.ListTrim(key(), r.IntN(3)-1, r.IntN(5)-2, now) }},
		{"ListMove", func(db *DB) { db.ListMove(key(), key(), r.IntN(2) == 0, r.IntN(2) == 0, now, func([]byte) {}) }},
		{"SAdd", func(db *DB) { db.SAdd(key(), [][]byte{val(), val()}, now) }},
		{"SRem", func(db *DB) { db.SRem(key(), [][]byte{val()}, now) }},
		{"SPop", func(db *DB) { db.SPop(key(), int64(r.IntN(3)), now, func([]byte) {}) }},
		{"SMove", func(db *DB) { db.SMove(key(), key(), val(), now) }},
		{"SetOpStore", func(db *DB) { db.SetOpStore(SetOp(r.IntN(3)), key(), [][]byte{key(), key()}, now) }},
		{"ZAdd", func(db *DB) {
			m, sc := val(), float64(r.IntN(4))
			flags := []int{0, ZAddNX, ZAddXX, ZAddGT, ZAddLT, ZAddIncr}[r.IntN(6)]
			db.ZAdd(key(), flags, 1, func(int) (float64, []byte) { return sc, m }, now)
		}},
		{"ZRem", func(db *DB) { db.ZRem(key(), [][]byte{val()}, now) }},
		{"ZRemRange", func(db *DB) {
			db.ZRemRange(key(), &ZRangeSpec{Kind: ZByRank, Start: r.IntN(3) - 1, Stop: r.IntN(3)}, now)
		}},
		{"ZPop", func(db *DB) { db.ZPop(key(), r.IntN(2) == 0, r.IntN(3), now, func(int, int, []byte, float64) {}) }},
		{"ZStore", func(db *DB) {
			m := val()
			db.ZStore(key(), r.IntN(2), func(int) (float64, []byte) { return 1, m }, now)
		}},
		{"Flush", func(db *DB) {
			if r.IntN(20) == 0 {
				db.Flush()
			}
		}},
		{"SwapDB", func(*DB) {
			if r.IntN(10) == 0 {
				s.SwapDB(0, 1)
			}
		}},
		{"FlushAll", func(*DB) {
			if r.IntN(40) == 0 {
				s.FlushAll()
			}
		}},
	}
	changed := map[string]int{}
	for i := range 30000 {
		if i%50 == 0 {
			now += int64(r.IntN(20))
		}
		op := ops[r.IntN(len(ops))]
		db := s.DB(r.IntN(2))
		before, d, h := keyDigests(s, now), s.Dirty(), hooked
		s.TrackWrites(true)
		s.NoteWrites(true)
		op.fn(db)
		s.TrackWrites(false)
		s.NoteWrites(false)
		after := keyDigests(s, now)
		if !maps.Equal(before, after) {
			changed[op.name]++
			if s.Dirty() == d && hooked == h {
				t.Fatalf("step %d: %s changed the data but not Dirty:\nbefore:\n%v\nafter:\n%v", i, op.name, before, after)
			}
		}
		if hooked != h || strings.Contains(op.name, "Flush") || op.name == "SwapDB" {
			continue // an expiry or an eviction, or a whole database
		}
		for n, v := range after {
			if before[n] != v && !s.Noted(n.db, []byte(n.key)) {
				t.Fatalf("step %d: %s changed %q of database %d but Noted does not say so", i, op.name, n.key, n.db)
			}
			if before[n] != v && !s.Wrote(n.db, []byte(n.key)) {
				t.Fatalf("step %d: %s changed %q of database %d but Wrote does not say so", i, op.name, n.key, n.db)
			}
		}
		for n := range before {
			if _, ok := after[n]; !ok && !s.Noted(n.db, []byte(n.key)) {
				t.Fatalf("step %d: %s deleted %q of database %d but Noted does not say so", i, op.name, n.key, n.db)
			}
			if _, ok := after[n]; !ok && !s.Wrote(n.db, []byte(n.key)) {
				t.Fatalf("step %d: %s deleted %q of database %d but Wrote does not say so", i, op.name, n.key, n.db)
			}
		}
	}
	for _, op := range ops {
		if changed[op.name] == 0 {
			t.Errorf("%s never changed the data: the test does not reach it", op.name)
		}
	}
}

// TestDirtyIgnoresNoops checks writes that change nothing, as Redis does
// not count them in server.dirty (so WATCH, the AOF and replicas never see
// them).
func TestDirtyIgnoresNoops(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	const now = 1000
	db.SetString([]byte("s"), []byte("v"), 0, false)
	db.SAdd([]byte("set"), [][]byte{[]byte("m")}, now)
	db.ListPush([]byte("l"), [][]byte{[]byte("x")}, true, false, now)
	d := s.Dirty()
	m := []byte("m")
	noops := map[string]func(){
		"Delete absent":     func() { db.Delete([]byte("nope"), now) },
		"HSetNX wrong type": func() { db.HSetNX([]byte("s"), m, m, now) },
		"SAdd existing":     func() { db.SAdd([]byte("set"), [][]byte{m}, now) },
		"SRem absent":       func() { db.SRem([]byte("set"), [][]byte{[]byte("zz")}, now) },
		"SMove absent":      func() { db.SMove([]byte("set"), []byte("t"), []byte("zz"), now) },
		"Persist no TTL":    func() { db.Persist([]byte("s"), now) },
		"SetExpiry absent":  func() { db.SetExpiry([]byte("nope"), now+10, now) },
		"ZAdd XX absent":    func() { db.ZAdd([]byte("z"), ZAddXX, 1, func(int) (float64, []byte) { return 1, m }, now) },
		"ListPush XX":       func() { db.ListPush([]byte("nope"), [][]byte{m}, true, true, now) },
		"ListRem absent":    func() { db.ListRem([]byte("l"), 0, []byte("zz"), now) },
		"Rename absent":     func() { db.Rename([]byte("nope"), []byte("x"), now) },
		"ZStore empty":      func() { db.ZStore([]byte("nope"), 0, nil, now) },
	}
	for name, fn := range noops {
		fn()
		if s.Dirty() != d {
			t.Errorf("%s: Dirty went from %d to %d", name, d, s.Dirty())
			d = s.Dirty()
		}
	}
}

// TestRecordBuilder: a record built element by element imports as the
// value it describes and reads back with Elements in the same order.
func TestRecordBuilder(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	var b RecordBuilder
	b.Start(TypeZSet)
	b.Add([]byte("a"))
	b.Score(1.5)
	b.Add([]byte("b"))
	b.Score(-2)
	db.Import([]byte("z"), b.Record())
	b.Start(TypeHash)
	b.Add([]byte("f"))
	b.Value([]byte("v"))
	db.Import([]byte("h"), b.Record())
	var got []string
	for _, k := range []string{"z", "h"} {
		r, ok := db.Export([]byte(k), 0)
		if !ok {
			t.Fatalf("%s not imported", k)
		}
		r.Elements(func(m, v []byte, sc float64) { got = append(got, fmt.Sprintf("%s=%s/%v", m, v, sc)) })
	}
	if want := "[b=/-2 a=/1.5 f=v/0]"; fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

// TestNoteWrites: NoteWrites notes the keys a call changed and no other
// (an SMOVE of a member the destination has leaves the destination as it
// was), and allocates nothing once warm.
func TestNoteWrites(t *testing.T) {
	s := NewStore(2)
	defer s.Close()
	db := s.DB(0)
	for _, k := range []string{"a", "b"} {
		if _, err := db.SAdd([]byte(k), [][]byte{[]byte("m")}, 0); err != nil {
			t.Fatal(err)
		}
	}
	db.SAdd([]byte("a"), [][]byte{[]byte("n")}, 0)
	s.NoteWrites(true)
	if ok, err := db.SMove([]byte("a"), []byte("b"), []byte("m"), 0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	s.NoteWrites(false)
	if !s.Noted(0, []byte("a")) || s.Noted(0, []byte("b")) || s.Noted(1, []byte("a")) {
		t.Fatalf("SMOVE of a member b has: a noted %v, b noted %v", s.Noted(0, []byte("a")), s.Noted(0, []byte("b")))
	}
	key, val := []byte("k"), []byte("v")
	allocs := testing.AllocsPerRun(100, func() {
		s.NoteWrites(true)
		db.SetString(key, val, 0, false)
		s.NoteWrites(false)
		if !s.Noted(0, key) {
			t.Fatal("SET not noted")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per noted SET", allocs)
	}
}

package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/num"
)

// The hash and set fuzz tests hold the engine to maps, with small limits so
// that values cross the listpack→hashtable and intset→hashtable thresholds
// often; the model also says which encoding a value must have (conversion
// is one way: it sticks until the key is deleted).

type hashModel struct {
	m   map[string]string
	big bool // converted to hashtable
}

func smallLimits() Limits {
	l := DefaultLimits()
	l.HashMaxListpackEntries, l.HashMaxListpackValue = 6, 5
	l.SetMaxIntsetEntries = 6
	return l
}

// fuzzStr draws a short string; integers are common (intset members).
func fuzzStr(r *opReader) []byte {
	switch r.n(4) {
	case 0, 1:
		return []byte(strconv.Itoa(r.n(12) - 3))
	case 2:
		return []byte{'a' + byte(r.n(6))}
	}
	n := r.n(9)
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(r.n(3))
	}
	return b
}

func checkEmpty(t *testing.T, s *Store) {
	t.Helper()
	for i := 0; i < s.Databases(); i++ {
		db := s.DB(i)
		var keys [][]byte
		db.Keys([]byte("*"), 0, func(k []byte) bool { keys = append(keys, slices.Clone(k)); return true })
		for _, k := range keys {
			db.Delete(k, 0)
		}
	}
	if n := s.SlabLive(); n != 0 {
		t.Fatalf("after deleting every key the slab holds %d live blocks", n)
	}
}

func FuzzHash(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\x01\x02\x03\x04\x05\x06\x07\x08\x09"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewStore(2)
		defer s.Close()
		s.Limits = smallLimits()
		db := s.DB(0)
		r := &opReader{b: data}
		model := map[string]*hashModel{}
		keys := []string{"h1", "h2", "h3"}
		for len(r.b) > 0 {
			k := keys[r.n(len(keys))]
			kb := []byte(k)
			hm := model[k]
			switch r.n(10) {
			case 0, 1, 2: // HSET of 1..3 pairs
				var pairs [][]byte
				for j := 0; j <= r.n(3); j++ {
					pairs = append(pairs, fuzzStr(r), fuzzStr(r))
				}
				if hm == nil {
					hm = &hashModel{m: map[string]string{}}
					model[k] = hm
				}
				want := 0
				for j := 0; j < len(pairs); j += 2 {
					if _, ok := hm.m[string(pairs[j])]; !ok {
						want++
					}
					hm.m[string(pairs[j])] = string(pairs[j+1])
					if len(pairs[j]) > 5 || len(pairs[j+1]) > 5 || len(hm.m) > 6 {
						hm.big = true
					}
				}
				if n, err := db.HSet(kb, pairs, 0); err != nil || n != want {
					t.Fatalf("HSET %q %q = %d %v, want %d", k, pairs, n, err, want)
				}
			case 3, 4: // HDEL
				f1, f2 := fuzzStr(r), fuzzStr(r)
				want := 0
				if hm != nil {
					for _, f := range []string{string(f1), string(f2)} {
						if _, ok := hm.m[f]; ok {
							delete(hm.m, f)
							want++
						}
					}
					if len(hm.m) == 0 {
						delete(model, k)
					}
				}
				if n, err := db.HDel(kb, [][]byte{f1, f2}, 0); err != nil || n != want {
					t.Fatalf("HDEL = %d %v, want %d", n, err, want)
				}
			case 5: // HGET
				f := fuzzStr(r)
				v, ok, err := db.HGet(kb, f, 0)
				var wv string
				var wok bool
				if hm != nil {
					wv, wok = hm.m[string(f)]
				}
				if err != nil || ok != wok || string(v) != wv {
					t.Fatalf("HGET %q %q = %q %v, want %q %v", k, f, v, ok, wv, wok)
				}
			case 6: // Export / Import into another key, RENAME back and forth
				if rec, ok := db.Export(kb, 0); ok {
					db.Import([]byte("copy"), rec)
					db.Rename([]byte("copy"), []byte("copy2"), 0)
					got := map[string]string{}
					db.HEach([]byte("copy2"), 0, func(f, v []byte) bool { got[string(f)] = string(v); return true })
					if !maps.Equal(got, hm.m) {
						t.Fatalf("import of %q = %v, want %v", k, got, hm.m)
					}
					db.Delete([]byte("copy2"), 0)
				}
			case 7: // HSCAN with small counts covers everything
				seen := map[string]string{}
				for cur := uint64(0); ; {
					var err error
					cur, err = db.HScan(kb, cur, 1+r.n(3), 0, func(f, v []byte) { seen[string(f)] = string(v) })
					if err != nil {
						t.Fatal(err)
					}
					if cur == 0 {
						break
					}
				}
				if hm == nil && len(seen) > 0 || hm != nil && !maps.Equal(seen, hm.m) {
					t.Fatalf("HSCAN %q = %v, want %v", k, seen, hm)
				}
			case 8: // HRANDFIELD
				cnt := int64(r.n(9) - 4)
				n := 0
				distinct := map[string]bool{}
				db.HRandField(kb, cnt, 0, func(f, v []byte) {
					n++
					distinct[string(f)] = true
					if hm == nil || hm.m[string(f)] != string(v) {
						t.Fatalf("HRANDFIELD gave %q=%q not in %v", f, v, hm)
					}
				})
				size := 0
				if hm != nil {
					size = len(hm.m)
				}
				want := int(max(0, min(cnt, int64(size))))
				if cnt < 0 && size > 0 {
					want = int(-cnt)
				}
				if n != want || (cnt > 0 && len(distinct) != n) {
					t.Fatalf("HRANDFIELD %d of %d: %d picks, %d distinct", cnt, size, n, len(distinct))
				}
			case 9: // DEL, or SET over the hash
				if r.n(2) == 0 {
					db.Delete(kb, 0)
				} else {
					db.SetString(kb, []byte("x"), 0, false)
					db.Delete(kb, 0)
				}
				delete(model, k)
			}
			// Invariants for every key.
			for _, k := range keys {
				hm := model[k]
				n, err := db.HLen([]byte(k), 0)
				if err != nil || (hm == nil && n != 0) || (hm != nil && n != len(hm.m)) {
					t.Fatalf("HLEN %q = %d %v, model %v", k, n, err, hm)
				}
				enc, ok := db.Encoding([]byte(k), 0)
				if ok != (hm != nil) {
					t.Fatalf("%q exists=%v, model %v", k, ok, hm)
				}
				if ok && (enc == "hashtable") != hm.big {
					t.Fatalf("%q encoding %s, model big=%v %v", k, enc, hm.big, hm.m)
				}
			}
		}
		checkEmpty(t, s)
	})
}

type setModel struct {
	m   map[string]bool
	big bool
}

// setNeedsTable reports whether members force a hashtable (limit 6).
func setNeedsTable(m map[string]bool) bool {
	if len(m) > 6 {
		return true
	}
	for k := range m {
		if _, ok := num.ParseInt([]byte(k)); !ok {
			return true
		}
	}
	return false
}

func FuzzSet(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"))
	f.Add([]byte("\x00\x00\x01\x00\x00\x01\x00\x00\x01\x00\x00\x01\x00\x00\x01\x00\x00\x01\x00\x00\x01\x00\x00\x01\x06\x01\x07\x02\x08\x00\x09\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewStore(1)
		defer s.Close()
		s.Limits = smallLimits()
		db := s.DB(0)
		r := &opReader{b: data}
		model := map[string]*setModel{}
		keys := []string{"s1", "s2", "s3"}
		add := func(k string, m string) bool {
			sm := model[k]
			if sm == nil {
				sm = &setModel{m: map[string]bool{}}
				model[k] = sm
			}
			if sm.m[m] {
				return false
			}
			sm.m[m] = true
			if setNeedsTable(sm.m) {
				sm.big = true
			}
			return true
		}
		rem := func(k string, m string) bool {
			sm := model[k]
			if sm == nil || !sm.m[m] {
				return false
			}
			delete(sm.m, m)
			if len(sm.m) == 0 {
				delete(model, k)
			}
			return true
		}
		for len(r.b) > 0 {
			k := keys[r.n(len(keys))]
			kb := []byte(k)
			switch r.n(10) {
			case 0, 1, 2: // SADD
				m1, m2 := fuzzStr(r), fuzzStr(r)
				want := 0
				for _, m := range []string{string(m1), string(m2)} {
					if add(k, m) {
						want++
					}
				}
				if n, err := db.SAdd(kb, [][]byte{m1, m2}, 0); err != nil || n != want {
					t.Fatalf("SADD %q %q %q = %d %v want %d", k, m1, m2, n, err, want)
				}
			case 3: // SREM
				m := fuzzStr(r)
				want := rem(k, string(m))
				if n, err := db.SRem(kb, [][]byte{m}, 0); err != nil || (n == 1) != want {
					t.Fatalf("SREM = %d %v want %v", n, err, want)
				}
			case 4: // SPOP
				cnt := int64(r.n(4))
				var got []string
				db.SPop(kb, cnt, 0, func(m []byte) { got = append(got, string(m)) })
				size := 0
				if model[k] != nil {
					size = len(model[k].m)
				}
				if len(got) != int(min(cnt, int64(size))) {
					t.Fatalf("SPOP %d of %d gave %q", cnt, size, got)
				}
				for _, m := range got {
					if !rem(k, m) {
						t.Fatalf("SPOP gave %q not in the set", m)
					}
				}
			case 5: // SMOVE
				dst := keys[r.n(len(keys))]
				m := fuzzStr(r)
				want := model[k] != nil && model[k].m[string(m)]
				if want && dst != k {
					rem(k, string(m))
					add(dst, string(m))
				}
				if ok, err := db.SMove(kb, []byte(dst), m, 0); err != nil || ok != want {
					t.Fatalf("SMOVE %q %q %q = %v %v", k, dst, m, ok, err)
				}
			case 6: // *STORE
				op := SetOp(r.n(3))
				a, b := keys[r.n(len(keys))], keys[r.n(len(keys))]
				res := map[string]bool{}
				ma, mb := map[string]bool{}, map[string]bool{}
				if model[a] != nil {
					ma = model[a].m
				}
				if model[b] != nil {
					mb = model[b].m
				}
				for m := range ma {
					if op == SetUnion || (op == SetInter) == mb[m] {
						res[m] = true
					}
				}
				if op == SetUnion {
					for m := range mb {
						res[m] = true
					}
				}
				n, err := db.SetOpStore(op, kb, [][]byte{[]byte(a), []byte(b)}, 0)
				if err != nil || n != len(res) {
					t.Fatalf("op %d store %q %q %q = %d %v want %d", op, k, a, b, n, err, len(res))
				}
				delete(model, k)
				if len(res) > 0 {
					model[k] = &setModel{m: res, big: setNeedsTable(res)}
				}
			case 7: // SSCAN
				seen := map[string]bool{}
				for cur := uint64(0); ; {
					var err error
					cur, err = db.SScan(kb, cur, 1+r.n(3), 0, func(m []byte) { seen[string(m)] = true })
					if err != nil {
						t.Fatal(err)
					}
					if cur == 0 {
						break
					}
				}
				var want map[string]bool
				if model[k] != nil {
					want = model[k].m
				}
				if len(seen) != len(want) || !maps.Equal(seen, want) && len(want) > 0 {
					t.Fatalf("SSCAN %q = %v want %v", k, seen, want)
				}
			case 8: // Export/Import round trip
				if rec, ok := db.Export(kb, 0); ok {
					db.Import([]byte("copy"), rec)
					got := map[string]bool{}
					db.SEach([]byte("copy"), 0, func(m []byte) bool { got[string(m)] = true; return true })
					if !maps.Equal(got, model[k].m) {
						t.Fatalf("import %q = %v want %v", k, got, model[k].m)
					}
					db.Delete([]byte("copy"), 0)
				}
			case 9:
				db.Delete(kb, 0)
				delete(model, k)
			}
			for _, k := range keys {
				sm := model[k]
				n, err := db.SCard([]byte(k), 0)
				if err != nil || (sm == nil) != (n == 0) || (sm != nil && n != len(sm.m)) {
					t.Fatalf("SCARD %q = %d %v model %v", k, n, err, sm)
				}
				if sm == nil {
					continue
				}
				got := map[string]bool{}
				db.SEach([]byte(k), 0, func(m []byte) bool { got[string(m)] = true; return true })
				if !maps.Equal(got, sm.m) {
					t.Fatalf("members %q = %v want %v", k, got, sm.m)
				}
				for m := range sm.m {
					if ok, _ := db.SIsMember([]byte(k), []byte(m), 0); !ok {
						t.Fatalf("SISMEMBER %q %q false", k, m)
					}
				}
				enc, _ := db.Encoding([]byte(k), 0)
				if (enc == "hashtable") != sm.big || (enc != "hashtable" && enc != "intset") {
					t.Fatalf("%q encoding %s model big=%v %v", k, enc, sm.big, sm.m)
				}
			}
		}
		checkEmpty(t, s)
	})
}

// TestObjectLarge crosses the default thresholds with many elements, checks
// memory is accounted and returned, and that expiry frees objects.
func TestObjectLarge(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	base := s.UsedMemory()
	for i := 0; i < 20000; i++ {
		f := []byte(fmt.Sprintf("f%d", i))
		db.HSet([]byte("h"), [][]byte{f, f}, 0)
		db.SAdd([]byte("s"), [][]byte{[]byte(strconv.Itoa(i))}, 0)
	}
	if enc, _ := db.Encoding([]byte("h"), 0); enc != "hashtable" {
		t.Fatalf("h: %s", enc)
	}
	if enc, _ := db.Encoding([]byte("s"), 0); enc != "hashtable" {
		t.Fatalf("s: %s", enc)
	}
	if used := s.UsedMemory() - base; used < 20000*16 {
		t.Fatalf("used %d bytes for 40000 elements", used)
	}
	for i := 0; i < 20000; i += 2 {
		f := []byte(fmt.Sprintf("f%d", i))
		db.HDel([]byte("h"), [][]byte{f}, 0)
		db.SRem([]byte("s"), [][]byte{[]byte(strconv.Itoa(i))}, 0)
	}
	for i := 0; i < 20000; i++ {
		f := []byte(fmt.Sprintf("f%d", i))
		v, ok, _ := db.HGet([]byte("h"), f, 0)
		in, _ := db.SIsMember([]byte("s"), []byte(strconv.Itoa(i)), 0)
		if ok != (i%2 == 1) || in != ok || (ok && string(v) != string(f)) {
			t.Fatalf("field %d: %q %v %v", i, v, ok, in)
		}
	}
	db.SetExpiry([]byte("h"), 100, 0)
	db.SetExpiry([]byte("s"), 100, 0)
	s.ActiveExpire(200, 100)
	db.Exists([]byte("h"), 200)
	db.Exists([]byte("s"), 200)
	if n := s.SlabLive(); n != 0 || s.slab.InUse() != 0 {
		t.Fatalf("after expiry: %d live blocks, %d bytes (base %d)", n, s.UsedMemory(), base)
	}
}

// TestSetOrder checks the orders Redis gives: intsets ascending, listpack
// hashes in insertion order.
func TestSetOrder(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	db.SAdd([]byte("s"), [][]byte{[]byte("5"), []byte("-70000"), []byte("3"), []byte("5000000000")}, 0)
	var got []string
	db.SEach([]byte("s"), 0, func(m []byte) bool { got = append(got, string(m)); return true })
	if !slices.Equal(got, []string{"-70000", "3", "5", "5000000000"}) {
		t.Fatalf("intset order %q", got)
	}
	db.HSet([]byte("h"), [][]byte{[]byte("b"), []byte("1"), []byte("a"), []byte("2")}, 0)
	got = got[:0]
	db.HEach([]byte("h"), 0, func(f, _ []byte) bool { got = append(got, string(f)); return true })
	if !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("listpack order %q", got)
	}
}

package engine

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// listModel runs random list operations on a DB and on a Go slice and
// compares them after every step. Elements are short (many per node) or
// long (a few per node, some larger than a node), so node splits, merges
// of the chain and the freeing of empty nodes all happen.
func listModel(t *testing.T, ops []byte, nodeLimit, depth int) {
	s := NewStore(1)
	defer s.Close()
	s.Limits.ListMaxListpackSize = nodeLimit
	s.Limits.ListCompressDepth = depth
	db := s.DB(0)
	key := []byte("l")
	var m [][]byte
	rnd := rand.New(rand.NewSource(int64(len(ops))))
	val := func(b byte) []byte {
		switch b % 8 {
		case 0:
			return bytes.Repeat([]byte{'x'}, 300+int(b)*40) // a few per node, some > 8 KB
		case 1:
			return []byte{}
		default:
			return []byte(fmt.Sprintf("v%d", b%11))
		}
	}
	idx := func(b byte) int { return int(int8(b)) % (len(m) + 3) }
	for i := 0; i+2 < len(ops); i += 3 {
		op, a, b := ops[i], ops[i+1], ops[i+2]
		desc := fmt.Sprintf("op %d (%d %d %d)", i/3, op%12, a, b)
		switch op % 12 {
		case 0, 1:
			vs := [][]byte{val(a), val(b), val(a ^ b)}
			n, err := db.ListPush(key, vs, op%2 == 0, false, 0)
			for _, v := range vs {
				if op%2 == 0 {
					m = append([][]byte{v}, m...)
				} else {
					m = append(m, v)
				}
			}
			if err != nil || n != len(m) {
				t.Fatalf("%s: push = %d %v, want %d", desc, n, err, len(m))
			}
		case 2, 3:
			cnt := int(a%5) + 1
			var got [][]byte
			n, _ := db.ListPop(key, op%2 == 0, cnt, 0, func(_, _ int, v []byte) { got = append(got, slices.Clone(v)) })
			var want [][]byte
			for j := 0; j < cnt && len(m) > 0; j++ {
				if op%2 == 0 {
					want, m = append(want, m[0]), m[1:]
				} else {
					want, m = append(want, m[len(m)-1]), m[:len(m)-1]
				}
			}
			if n != len(want) || !eqVals(got, want) {
				t.Fatalf("%s: pop = %q, want %q", desc, got, want)
			}
		case 4:
			j := idx(a)
			err := db.ListSet(key, j, val(b), 0)
			k := j
			if k < 0 {
				k += len(m)
			}
			switch {
			case len(m) == 0:
				if err != ErrNoSuchKey {
					t.Fatalf("%s: lset on empty = %v", desc, err)
				}
			case k < 0 || k >= len(m):
				if err != ErrIndexRange {
					t.Fatalf("%s: lset %d = %v", desc, j, err)
				}
			default:
				m[k] = val(b)
			}
		case 5:
			pivot := val(a)
			n, _ := db.ListInsert(key, b%2 == 0, pivot, val(b), 0)
			want := 0
			if len(m) > 0 {
				want = -1
				if k := slices.IndexFunc(m, func(v []byte) bool { return bytes.Equal(v, pivot) }); k >= 0 {
					if b%2 != 0 {
						k++
					}
					m = slices.Insert(m, k, val(b))
					want = len(m)
				}
			}
			if n != want {
				t.Fatalf("%s: linsert = %d, want %d", desc, n, want)
			}
		case 6:
			cnt := int(int8(b)) % 4
			v := val(a)
			n, _ := db.ListRem(key, cnt, v, 0)
			want := 0
			if cnt >= 0 {
				for j := 0; j < len(m); {
					if bytes.Equal(m[j], v) && (cnt == 0 || want < cnt) {
						m = slices.Delete(m, j, j+1)
						want++
						continue
					}
					j++
				}
			} else {
				for j := len(m) - 1; j >= 0; j-- {
					if bytes.Equal(m[j], v) && want < -cnt {
						m = slices.Delete(m, j, j+1)
						want++
					}
				}
			}
			if n != want {
				t.Fatalf("%s: lrem = %d, want %d", desc, n, want)
			}
		case 7:
			if rnd.Intn(4) != 0 {
				continue // trims shrink the list fast: keep them rare
			}
			start, stop := idx(a), idx(b)+len(m)/2
			db.ListTrim(key, start, stop, 0)
			f, n := listRange(start, stop, len(m))
			m = m[f : f+n]
		case 8:
			j := idx(a)
			v, ok, _ := db.ListIndex(key, j, 0)
			if j < 0 {
				j += len(m)
			}
			if ok != (j >= 0 && j < len(m)) || ok && !bytes.Equal(v, m[j]) {
				t.Fatalf("%s: lindex %d = %q %v", desc, j, v, ok)
			}
		case 9:
			v := val(a)
			rank := int(int8(b))%3 + 0
			if rank == 0 {
				rank = 1
			}
			var got []int
			db.ListPos(key, v, rank, 0, 0, func(i int) bool { got = append(got, i); return true })
			var want []int
			if rank > 0 {
				for j, e := range m {
					if bytes.Equal(e, v) {
						want = append(want, j)
					}
				}
				want = want[min(rank-1, len(want)):]
			} else {
				for j := len(m) - 1; j >= 0; j-- {
					if bytes.Equal(m[j], v) {
						want = append(want, j)
					}
				}
				want = want[min(-rank-1, len(want)):]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: lpos %q rank %d = %v, want %v", desc, v, rank, got, want)
			}
		case 10:
			ok, _ := db.ListMove(key, key, a%2 == 0, b%2 == 0, 0, func([]byte) {})
			if ok != (len(m) > 0) {
				t.Fatalf("%s: lmove = %v", desc, ok)
			}
			if ok {
				var v []byte
				if a%2 == 0 {
					v, m = m[0], m[1:]
				} else {
					v, m = m[len(m)-1], m[:len(m)-1]
				}
				if b%2 == 0 {
					m = append([][]byte{v}, m...)
				} else {
					m = append(m, v)
				}
			}
		case 11:
			start, stop := idx(a), idx(b)
			var got [][]byte
			db.ListRange(key, start, stop, 0, func(total, i int, v []byte) { got = append(got, slices.Clone(v)) })
			f, n := listRange(start, stop, len(m))
			if !eqVals(got, m[f:f+n]) {
				t.Fatalf("%s: lrange %d %d = %q, want %q", desc, start, stop, got, m[f:f+n])
			}
		}
		checkEnds(t, db, key, depth, desc)
		checkList(t, db, key, m, desc)
	}
	db.Delete(key, 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d slab blocks live after delete", s.SlabLive())
	}
}

// checkEnds checks list-compress-depth's layout after an operation: the
// depth nodes at each end plain, and, when depth > 0, no compressed node
// elsewhere that a plain one would not beat (compression pays).
func checkEnds(t *testing.T, db *DB, key []byte, depth int, desc string) {
	t.Helper()
	q, _, ok, _ := db.list(key, 0)
	if !ok {
		return
	}
	i := 0
	for n := q.head; n != 0; n = nNext(q.nb(n)) {
		b := q.nb(n)
		inEnds := i < depth || i >= q.nodes-depth
		if nCompressed(b) && (inEnds || depth == 0 || int(le32(b, 20)) >= nUsed(b)-minCompressImprove) {
			t.Fatalf("%s: node %d of %d compressed (depth %d, %d bytes into %d)", desc, i, q.nodes, depth, nUsed(b), le32(b, 20))
		}
		i++
	}
}

func eqVals(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, func(x, y []byte) bool { return bytes.Equal(x, y) })
}

// checkList compares the whole list, forwards and backwards, and the
// header's counts with the node chain.
func checkList(t *testing.T, db *DB, key []byte, m [][]byte, desc string) {
	t.Helper()
	q, _, ok, err := db.list(key, 0)
	if err != nil || ok != (len(m) > 0) {
		t.Fatalf("%s: list exists=%v err=%v, model has %d", desc, ok, err, len(m))
	}
	if !ok {
		return
	}
	if q.count != len(m) {
		t.Fatalf("%s: count %d, want %d", desc, q.count, len(m))
	}
	var got [][]byte
	q.walk(0, func(v []byte) bool { got = append(got, slices.Clone(v)); return true })
	if !eqVals(got, m) {
		t.Fatalf("%s: list %q, want %q", desc, got, m)
	}
	got = got[:0]
	q.walkBack(len(m)-1, func(v []byte) bool { got = append(got, slices.Clone(v)); return true })
	slices.Reverse(got)
	if !eqVals(got, m) {
		t.Fatalf("%s: backwards %q, want %q", desc, got, m)
	}
	nodes, total := 0, 0
	for n := q.head; n != 0; n = nNext(q.nb(n)) {
		b := q.nb(n)
		if nCount(b) == 0 {
			t.Fatalf("%s: empty node", desc)
		}
		nodes++
		total += nCount(b)
	}
	if nodes != q.nodes || total != q.count {
		t.Fatalf("%s: %d nodes %d entries, header says %d %d", desc, nodes, total, q.nodes, q.count)
	}
}

func TestListModel(t *testing.T) {
	for _, limit := range []int{-2, -1, 3} {
		for seed := int64(0); seed < 5; seed++ {
			r := rand.New(rand.NewSource(seed))
			ops := make([]byte, 3*400)
			r.Read(ops)
			for _, depth := range []int{0, 1, 2} {
				t.Run(fmt.Sprintf("limit%d/depth%d/seed%d", limit, depth, seed), func(t *testing.T) { listModel(t, ops, limit, depth) })
			}
		}
	}
}

func FuzzList(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 3, 4, 4, 0, 1, 2, 5, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		listModel(t, ops, -2, 0)
		listModel(t, ops, 2, 0)
		listModel(t, ops, 2, 1)
	})
}

func TestListExportImport(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	var vals [][]byte
	for i := 0; i < 3000; i++ {
		vals = append(vals, []byte(fmt.Sprintf("element-%d", i)))
	}
	db.ListPush([]byte("a"), vals, false, false, 0)
	r, ok := db.Export([]byte("a"), 0)
	if !ok || r.Type != TypeList {
		t.Fatal("export")
	}
	db.Import([]byte("b"), r)
	var got [][]byte
	db.ListRange([]byte("b"), 0, -1, 0, func(_, _ int, v []byte) { got = append(got, slices.Clone(v)) })
	if !eqVals(got, vals) {
		t.Fatal("import differs")
	}
	if enc, _ := db.Encoding([]byte("b"), 0); enc != "quicklist" {
		t.Fatalf("encoding %q", enc)
	}
	db.Delete([]byte("a"), 0)
	db.Delete([]byte("b"), 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks live", s.SlabLive())
	}
}

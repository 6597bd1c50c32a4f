package engine

import (
	"fmt"
	"testing"
)

// TestListCompress: a long list of compressible elements under
// list-compress-depth 1 keeps every inner node compressed and the end
// nodes plain, holds fewer slab bytes than the same list uncompressed
// (logged), reads the same at the ends and in the middle, keeps its
// OBJECT ENCODING, and goes back to plain nodes as they are used once the
// depth is 0 again.
func TestListCompress(t *testing.T) {
	build := func(depth int) (*Store, []byte) {
		s := NewStore(1)
		s.Limits.ListCompressDepth = depth
		key := []byte("l")
		for i := range 20000 {
			s.DB(0).ListPush(key, [][]byte{fmt.Appendf(nil, "user:%08d:session:active", i)}, false, false, 0)
		}
		return s, key
	}
	plain, key := build(0)
	defer plain.Close()
	s, _ := build(1)
	defer s.Close()
	db := s.DB(0)
	q, _, _, _ := db.list(key, 0)
	compressed := 0
	i := 0
	for n := q.head; n != 0; n = nNext(q.nb(n)) {
		c := nCompressed(q.nb(n))
		if (i == 0 || i == q.nodes-1) == c {
			t.Fatalf("node %d of %d: compressed %v", i, q.nodes, c)
		}
		if c {
			compressed++
		}
		i++
	}
	t.Logf("20000 elements in %d nodes: %d bytes plain, %d with depth 1 (%d nodes compressed)",
		q.nodes, plain.slab.InUse(), s.slab.InUse(), compressed)
	if s.slab.InUse()*2 > plain.slab.InUse() {
		t.Errorf("compressed list holds %d bytes, plain %d", s.slab.InUse(), plain.slab.InUse())
	}
	if enc, _ := db.Encoding(key, 0); enc != "quicklist" {
		t.Errorf("encoding %s", enc)
	}
	for _, idx := range []int{0, 1, 9999, 12345, 19998, 19999, -1} {
		v, ok, _ := db.ListIndex(key, idx, 0)
		want := idx
		if idx < 0 {
			want += 20000
		}
		if !ok || string(v) != fmt.Sprintf("user:%08d:session:active", want) {
			t.Errorf("LINDEX %d = %q", idx, v)
		}
	}
	var got []string
	db.ListRange(key, 10000, 10002, 0, func(_, _ int, v []byte) { got = append(got, string(v)) })
	if len(got) != 3 || got[2] != "user:00010002:session:active" {
		t.Errorf("LRANGE in the middle: %q", got)
	}
	before := s.slab.InUse()
	db.ListIndex(key, 10000, 0) // decompressed, then compressed back
	if s.slab.InUse() != before {
		t.Errorf("a read in the middle left %d bytes, was %d", s.slab.InUse(), before)
	}
	s.Limits.ListCompressDepth = 0
	db.ListRange(key, 0, -1, 0, func(_, _ int, _ []byte) {})
	q, _, _, _ = db.list(key, 0)
	for n := q.head; n != 0; n = nNext(q.nb(n)) {
		if nCompressed(q.nb(n)) {
			t.Fatal("a node stays compressed after a full read at depth 0")
		}
	}
	if s.slab.InUse() != plain.slab.InUse() {
		t.Logf("plain again: %d bytes (built plain: %d)", s.slab.InUse(), plain.slab.InUse())
	}
	db.Delete(key, 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks live", s.SlabLive())
	}
}

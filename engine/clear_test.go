package engine

import (
	"fmt"
	"testing"
)

// TestClear: Clear empties every database (strings, a big hash, keys
// with TTLs, a value UNLINK left to the lazy queue) and frees every block,
// yet keeps memory mapped, so that filling the store again maps nothing
// new.
func TestClear(t *testing.T) {
	s := NewStore(16)
	t.Cleanup(s.Close)
	fill := func() {
		for d := range 2 {
			db := s.DB(d)
			for i := range 100 {
				db.SetString(fmt.Appendf(nil, "k%d", i), []byte("v"), int64(i%2)*1e12, false)
			}
			var pairs [][]byte
			for i := range 1000 {
				pairs = append(pairs, fmt.Appendf(nil, "f%d", i), []byte("value"))
			}
			if _, err := db.HSet([]byte("h"), pairs, 0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DB(0).HSet([]byte("big"), [][]byte{[]byte("f"), make([]byte, 1<<20)}, 0); err != nil {
			t.Fatal(err)
		}
	}
	fill()
	s.DB(0).Unlink([]byte("h"), 0)
	if s.LazyPending() == 0 {
		t.Fatal("the UNLINK queued nothing: the test needs a lazily freed value")
	}
	dirty := s.Dirty()
	s.Clear()
	for d := range 2 {
		if n := s.DB(d).Len(); n != 0 {
			t.Errorf("db %d holds %d keys after Clear", d, n)
		}
	}
	if s.SlabLive() != 0 || s.LazyPending() != 0 {
		t.Fatalf("%d blocks live, %d lazy items after Clear", s.SlabLive(), s.LazyPending())
	}
	if s.Dirty() != dirty {
		t.Errorf("Clear counted %d changes", s.Dirty()-dirty)
	}
	mapped := s.SlabMapped()
	if mapped == 0 {
		t.Fatal("Clear returned every page")
	}
	s.DB(0).SetString([]byte("k"), []byte("v"), 0, false)
	if got := s.SlabMapped(); got != mapped {
		t.Errorf("a key after Clear mapped %d bytes more", got-mapped)
	}
	if v, ok, err := s.DB(0).GetString([]byte("k"), 0); err != nil || !ok || string(v) != "v" {
		t.Errorf("GET k after Clear: %q %v", v, ok)
	}
	s.Clear()
	fill()
	s.Clear()
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks live after the second Clear", s.SlabLive())
	}
}

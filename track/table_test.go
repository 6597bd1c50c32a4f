package track

import (
	"slices"
	"testing"
)

func TestTableRememberTake(t *testing.T) {
	var tb Table
	a, b := Reader{ID: 1, Home: 0}, Reader{ID: 2, Home: 3}
	tb.Remember([]byte("k"), a)
	tb.Remember([]byte("k"), a) // held once
	tb.Remember([]byte("k"), b)
	tb.Remember([]byte("j"), b)
	if tb.Len() != 2 || tb.Items() != 3 {
		t.Fatalf("Len %d Items %d, want 2 3", tb.Len(), tb.Items())
	}
	if got := tb.Take([]byte("k")); !slices.Equal(got, []Reader{a, b}) {
		t.Fatalf("Take k = %v, want [a b]", got)
	}
	if got := tb.Take([]byte("k")); got != nil {
		t.Fatalf("second Take k = %v, want none: a key is forgotten once invalidated", got)
	}
	if tb.Len() != 1 || tb.Items() != 1 {
		t.Fatalf("after Take: Len %d Items %d, want 1 1", tb.Len(), tb.Items())
	}
	// The freed entry is reused, and what it held before does not leak in.
	tb.Remember([]byte("m"), a)
	if got := tb.Take([]byte("m")); !slices.Equal(got, []Reader{a}) {
		t.Fatalf("Take m = %v, want [a]", got)
	}
	tb.Clear()
	if tb.Len() != 0 || tb.Items() != 0 || tb.Take([]byte("j")) != nil {
		t.Fatalf("Clear left Len %d Items %d", tb.Len(), tb.Items())
	}
	tb.Remember([]byte("n"), b)
	if got := tb.Take([]byte("n")); !slices.Equal(got, []Reader{b}) {
		t.Fatalf("after Clear, Take n = %v, want [b]", got)
	}
}

func TestTableEvict(t *testing.T) {
	var tb Table
	if _, _, ok := tb.Evict(); ok {
		t.Fatal("Evict on an empty table found a key")
	}
	tb.Remember([]byte("a"), Reader{ID: 1})
	tb.Remember([]byte("b"), Reader{ID: 2})
	seen := map[string]bool{}
	for range 2 {
		k, rs, ok := tb.Evict()
		if !ok || len(rs) != 1 || seen[k] {
			t.Fatalf("Evict = %q %v %v", k, rs, ok)
		}
		seen[k] = true
	}
	if tb.Len() != 0 || tb.Items() != 0 {
		t.Fatalf("Len %d Items %d after evicting all", tb.Len(), tb.Items())
	}
}

// A read of a key the table holds for that reader, and the churn of
// taking and remembering keys once the table has grown, allocate nothing.
func TestTableAllocs(t *testing.T) {
	var tb Table
	key := []byte("user:1")
	r := Reader{ID: 7, Home: 1}
	tb.Remember(key, r)
	if n := testing.AllocsPerRun(100, func() { tb.Remember(key, r) }); n != 0 {
		t.Errorf("Remember of a held key: %v allocations, want 0", n)
	}
	tb.Take(key)
	if n := testing.AllocsPerRun(100, func() {
		tb.Remember(key, r)
		tb.Take(key)
	}); n > 1 {
		t.Errorf("Remember of a new key then Take: %v allocations, want at most the key's string", n)
	}
}

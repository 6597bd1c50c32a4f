package command

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortScript(t *testing.T) { runScript(t, "sort.txt") }

// TestPQSort: pqsort leaves positions lo..hi as a full sort does, for
// distinct keys, whatever the range and the size (the insertion sort
// below 7, the median of 3 and of 9 above 40).
func TestPQSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		n := r.IntN(300)
		a := r.Perm(n)
		want := slices.Sorted(slices.Values(a))
		lo, hi := 0, -1
		if n > 0 {
			lo = r.IntN(n)
			hi = lo + r.IntN(n-lo)
		}
		pqsort(a, func(x, y int) int { return x - y }, lo, hi)
		if n > 0 && !slices.Equal(a[lo:hi+1], want[lo:hi+1]) {
			t.Fatalf("n %d, %d..%d: %v, want %v", n, lo, hi, a[lo:hi+1], want[lo:hi+1])
		}
	}
}

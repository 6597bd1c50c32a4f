package command

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCanonicalLen: CanonicalLen is the length of what Command writes, for
// argument counts and lengths across the digit boundaries.
func TestCanonicalLen(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		args := make([][]byte, 1+r.IntN(120))
		for i := range args {
			n := r.IntN(12)
			if r.IntN(10) == 0 {
				n = r.IntN(1200)
			}
			args[i] = bytes.Repeat([]byte{'x'}, n)
		}
		var e Effects
		e.Command(0, CauseCommand, args)
		if _, b := e.At(0); CanonicalLen(args) != len(b) {
			t.Fatalf("CanonicalLen of %d args = %d, encoded %d bytes", len(args), CanonicalLen(args), len(b))
		}
	}
}

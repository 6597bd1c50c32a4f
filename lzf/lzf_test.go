package lzf

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestLZF(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var tab Table
	for i := 0; i < 2000; i++ {
		n := 3 + r.IntN(20000)
		in := make([]byte, n)
		alphabet := 1 + r.IntN(255)
		for j := range in {
			if j > 8 && r.IntN(3) == 0 { // repeats at random distances
				in[j] = in[j-1-r.IntN(min(j, 9000))]
			} else {
				in[j] = byte(r.IntN(alphabet))
			}
		}
		c, ok := tab.Compress(nil, in, n+n/16+64)
		if !ok {
			t.Fatalf("%d bytes did not compress into %d", n, n+n/16+64)
		}
		out, err := Decompress([]byte("prefix"), c, n)
		if err != nil || !bytes.Equal(out[6:], in) || string(out[:6]) != "prefix" {
			t.Fatalf("round trip of %d bytes: %v", n, err)
		}
		// Any shorter or longer expected length is refused.
		if _, err := Decompress(nil, c, n-1); err == nil {
			t.Fatal("short output accepted")
		}
		if _, err := Decompress(nil, c, n+1); err == nil {
			t.Fatal("long output accepted")
		}
	}
	if _, ok := tab.Compress(nil, []byte("abcdefghijklmnopqrstuvwxyz"), 22); ok {
		t.Fatal("incompressible text compressed within len-4")
	}
	for _, bad := range []string{"\x05ab", "\x20\x00", "\x00a\x20\x05", "\xe0"} {
		if _, err := Decompress(nil, []byte(bad), 8); err == nil {
			t.Errorf("%q decompressed", bad)
		}
	}
}

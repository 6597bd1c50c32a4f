package command

import (
	"strconv"
	"testing"
)

// benchBits runs cmds round robin on a store holding a 1 KB bitmap at
// "bm", reporting allocations (there must be none).
func benchBits(b *testing.B, cmds ...[][]byte) {
	env := newScriptEnv()
	defer env.store.Close()
	env.run(words("SETBIT", "bm", "8191", "1"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env.run(cmds[i%len(cmds)])
	}
}

func BenchmarkSetBit(b *testing.B) {
	var cmds [][][]byte
	for i := range 64 {
		cmds = append(cmds, words("SETBIT", "bm", strconv.Itoa(i*127%8192), strconv.Itoa(i&1)))
	}
	benchBits(b, cmds...)
}

func BenchmarkGetBit(b *testing.B) { benchBits(b, words("GETBIT", "bm", "4000")) }

func BenchmarkBitCount(b *testing.B) { benchBits(b, words("BITCOUNT", "bm")) }

func BenchmarkBitPos(b *testing.B) { benchBits(b, words("BITPOS", "bm", "1")) }

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

// benchHLL runs PFADDs of fresh elements on "hll" (dense after the
// warm-up when dense) and then cmd, reporting allocations.
func benchHLL(b *testing.B, dense bool, cmd string) {
	env := newScriptEnv()
	defer env.store.Close()
	env.run(words("PFADD", "hll", "a", "b", "c"))
	if dense {
		env.run(words("PFDEBUG", "TODENSE", "hll"))
	}
	args := words(cmd, "hll")
	if cmd == "PFADD" {
		args = append(args, make([]byte, 0, 8))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if cmd == "PFADD" {
			args[2] = strconv.AppendInt(args[2][:0], int64(i%5000), 10)
		}
		env.run(args)
	}
}

func BenchmarkPFAddDense(b *testing.B)   { benchHLL(b, true, "PFADD") }
func BenchmarkPFAddSparse(b *testing.B)  { benchHLL(b, false, "PFADD") }
func BenchmarkPFCountDense(b *testing.B) { benchHLL(b, true, "PFCOUNT") }

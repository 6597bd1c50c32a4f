package command

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestHLLScript(t *testing.T) { runScript(t, "hll.txt") }

// TestHLLAgainstRedis (with -redis) adds random elements to HLLs of many
// sizes, through the sparse encoding into the dense one, and requires the
// GET of every key, PFCOUNT and PFDEBUG DECODE to be redis-server's.
func TestHLLAgainstRedis(t *testing.T) {
	real := dialReal(t)
	if real == nil {
		t.Skip("needs -redis")
	}
	env := newScriptEnv()
	defer env.store.Close()
	r := rand.New(rand.NewPCG(5, 6))
	same := func(args ...string) {
		t.Helper()
		got, want := env.run(words(args...)), real.do(t, words(args...))
		if !bytes.Equal(got, want) {
			t.Fatalf("%v:\nradish %q\n redis %q", args, got, want)
		}
	}
	for k, n := range []int{0, 1, 2, 5, 20, 100, 300, 1000, 1500, 2500, 4000, 20000} {
		key := "h" + strconv.Itoa(k)
		for i := 0; i < n; {
			args := []string{"PFADD", key}
			for j := 1 + r.IntN(8); j > 0 && i < n; j-- {
				args = append(args, fmt.Sprintf("e%d:%d", r.IntN(3*n+1), i))
				i++
			}
			same(args...)
			if r.IntN(10) == 0 {
				same("PFCOUNT", key)
				same("GET", key)
			}
		}
		same("PFADD", key)
		same("GET", key)
		same("PFCOUNT", key)
		same("GET", key)
		same("PFDEBUG", "ENCODING", key)
		same("PFDEBUG", "DECODE", key)
	}
	same("PFCOUNT", "h3", "h7", "h11", "nokey")
	same("PFMERGE", "m", "h2", "h5")
	same("GET", "m")
	same("PFMERGE", "m", "h9")
	same("GET", "m")
	same("PFMERGE", "m2", "h5", "h6", "h7")
	same("GET", "m2")
	same("PFCOUNT", "m2")
	same("PFMERGE", "m3")
	same("GET", "m3")
	same("PFDEBUG", "GETREG", "h4")
	same("GET", "h4")
	same("PFDEBUG", "TODENSE", "h5")
	same("PFDEBUG", "TODENSE", "h5")
	same("GET", "h5")
}

// TestPFSelfTest runs PFSELFTEST: register access, and the estimate's
// error at 1 to 10^7 elements, dense and sparse agreeing.
func TestPFSelfTest(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	if got := string(env.run(words("PFSELFTEST"))); got != "+OK\r\n" {
		t.Fatalf("PFSELFTEST: %q", got)
	}
}

// TestHLLRegistersModel adds random elements one at a time, under several
// hll-sparse-max-bytes, and checks after each that the registers the value
// encodes (sparse or dense) are a reference model's (register = max
// pattern length of the elements hashed to it), that a sparse value stays
// within the limit, and that the estimate is the model's.
func TestHLLRegistersModel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, maxBytes := range []int{0, 40, 300, 3000, 1 << 20} {
		var model [hllRegisters]uint8
		s := hllNew(nil)
		for i := range 6000 {
			ele := []byte(strconv.Itoa(r.IntN(1 << 30)))
			idx, count := hllPatLen(ele)
			changed := count > model[idx]
			model[idx] = max(model[idx], count)
			var res int
			s, res = hllAdd(s, ele, maxBytes)
			if (res == 1) != changed || res < 0 {
				t.Fatalf("max %d, add %d: result %d, register changed %v", maxBytes, i, res, changed)
			}
			var got [hllRegisters]uint8
			if s[4] == hllSparse {
				if len(s) > max(maxBytes, 18) {
					t.Fatalf("max %d, add %d: sparse of %d bytes", maxBytes, i, len(s))
				}
				if !hllSparseRegs(s[hllHdrSize:], &got, false) {
					t.Fatalf("max %d, add %d: sparse opcodes do not cover the registers", maxBytes, i)
				}
			} else {
				for j := range got {
					got[j] = denseGet(s[hllHdrSize:], j)
				}
			}
			if got != model {
				t.Fatalf("max %d, add %d: registers differ from the model", maxBytes, i)
			}
			if i%500 == 0 {
				if n, ok := hllCount(s); !ok || n != hllCountRegs(&model) {
					t.Fatalf("max %d, add %d: count %d %v, model %d", maxBytes, i, n, ok, hllCountRegs(&model))
				}
			}
		}
	}
}

// FuzzHLLValue: whatever bytes a key holds that pass the header check
// (a client can SET any string, or RESTORE one), counting, merging,
// adding to and converting it end in a result or a "corrupt", never a
// panic, and what an add to a value that counts leaves behind counts.
func FuzzHLLValue(f *testing.F) {
	sparse := hllNew(nil)
	for i := range 50 {
		sparse, _ = hllAdd(sparse, []byte(strconv.Itoa(i)), 3000)
	}
	dense, _ := hllToDense(bytes.Clone(sparse))
	f.Add(sparse, []byte("x"))
	f.Add(dense, []byte("y"))
	f.Add(hllNew(nil), []byte(""))
	f.Add(append(hllNew(nil)[:hllHdrSize], 0x7f, 0xff, 0xff), []byte("z")) // an XZERO past the registers
	f.Add(append(hllNew(nil)[:hllHdrSize], 0xff, 0xff), []byte("z"))       // VALs of the longest run
	f.Fuzz(func(t *testing.T, b, ele []byte) {
		if !hllValid(b) {
			return
		}
		_, valid := hllCount(b)
		var regs [hllRegisters]uint8
		hllMerge(&regs, b)
		var h [64]int
		hllHisto(b, &h)
		if d, ok := hllToDense(bytes.Clone(b)); ok && (len(d) != hllDenseSize || d[4] != hllDense) {
			t.Fatalf("converted to %d bytes, encoding %d", len(d), d[4])
		}
		for _, maxBytes := range []int{0, 100, 3000} {
			s, res := hllAdd(bytes.Clone(b), ele, maxBytes)
			if res < 0 || !valid {
				continue // an add to a value that does not count, as Redis's, may leave one
			}
			if _, ok := hllCount(s); !ok {
				t.Fatalf("an add (max %d) left a value that does not count: %x", maxBytes, s)
			}
		}
	})
}

package command

import (
	"bufio"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestBitFieldScript(t *testing.T) { runScript(t, "bitfield.txt") }

// bfModel computes a BITFIELD write with big.Int arithmetic: the value
// stored and whether it overflowed, by the rules Redis documents (WRAP:
// modulo 2^bits into the type's range; SAT: clamped; FAIL: unchanged).
func bfModel(old, incr *big.Int, bits int, signed bool, overflow string) (*big.Int, bool) {
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits))
	hi.Sub(hi, big.NewInt(1))
	if signed {
		lo.Lsh(big.NewInt(1), uint(bits-1))
		lo.Neg(lo)
		hi.Lsh(big.NewInt(1), uint(bits-1))
		hi.Sub(hi, big.NewInt(1))
	}
	v := new(big.Int).Add(old, incr)
	if v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0 {
		return v, false
	}
	switch overflow {
	case "SAT":
		if v.Cmp(hi) > 0 {
			return hi, true
		}
		return lo, true
	case "FAIL":
		return nil, true
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	v.Mod(v.Sub(v, lo), mod)
	return v.Add(v, lo), true
}

// TestBitFieldModel runs random BITFIELD commands (GET, SET, INCRBY of
// every width, each overflow mode, # offsets) on one key and checks every
// reply and the bytes against a []bool model computed with big.Int; with
// -redis, the same replies from redis-server too.
func TestBitFieldModel(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	real := dialReal(t)
	r := rand.New(rand.NewPCG(3, 4))
	var m bitModel
	read := func(off, bits int, signed bool) *big.Int {
		v := new(big.Int)
		for i := range bits {
			v.Lsh(v, 1)
			if off+i < len(m) && m[off+i] {
				v.SetBit(v, 0, 1)
			}
		}
		if signed && v.Bit(bits-1) == 1 {
			v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
		}
		return v
	}
	write := func(off, bits int, v *big.Int) {
		u := new(big.Int).Mod(v, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
		for i := range bits {
			m[off+i] = u.Bit(bits-1-i) == 1
		}
	}
	randVal := func(bits int) int64 {
		switch r.IntN(4) {
		case 0:
			return r.Int64N(7) - 3
		case 1:
			return 1<<(bits-1) - r.Int64N(3) + 1 // near the limits (wraps for 64)
		case 2:
			return -(1 << (bits - 1)) + r.Int64N(3) - 1
		}
		return int64(r.Uint64())
	}
	for step := range 5000 {
		args := []string{"BITFIELD", "k"}
		var want []string
		overflow := "WRAP"
		// Writes grow the string to their farthest bit before any runs.
		type op struct {
			kind, typ string
			off, bits int
			signed    bool
			val       int64
			overflow  string
		}
		var ops []op
		for range 1 + r.IntN(4) {
			if r.IntN(4) == 0 {
				overflow = []string{"WRAP", "SAT", "FAIL"}[r.IntN(3)]
				args = append(args, "OVERFLOW", overflow)
			}
			signed := r.IntN(2) == 0
			bits := 1 + r.IntN(63)
			if signed {
				bits = 1 + r.IntN(64)
			}
			typ := "u" + strconv.Itoa(bits)
			if signed {
				typ = "i" + strconv.Itoa(bits)
			}
			off := r.IntN(200)
			offArg := strconv.Itoa(off)
			if r.IntN(4) == 0 {
				off = r.IntN(10) * bits
				offArg = "#" + strconv.Itoa(off/bits)
			}
			o := op{kind: []string{"GET", "SET", "INCRBY"}[r.IntN(3)], typ: typ, off: off, bits: bits, signed: signed, overflow: overflow}
			args = append(args, o.kind, typ, offArg)
			if o.kind != "GET" {
				o.val = randVal(bits)
				args = append(args, strconv.FormatInt(o.val, 10))
			}
			ops = append(ops, o)
		}
		grow := 0
		for _, o := range ops {
			if o.kind != "GET" {
				grow = max(grow, ((o.off+o.bits-1)/8+1)*8)
			}
		}
		if grow > len(m) {
			m = append(m, make(bitModel, grow-len(m))...)
		}
		for _, o := range ops {
			old := read(o.off, o.bits, o.signed)
			switch o.kind {
			case "GET":
				want = append(want, ":"+old.String())
				continue
			case "SET":
				// SET checks the new value alone, and replies the old one;
				// an unsigned type reads the value as a uint64 (as Redis:
				// SAT of -1 into u8 is 255).
				nv := big.NewInt(o.val)
				if !o.signed {
					nv.SetUint64(uint64(o.val))
				}
				v, _ := bfModel(nv, new(big.Int), o.bits, o.signed, o.overflow)
				// Redis's quirk: a signed value so far below the minimum
				// that max-value overflows int64 counts as overflowing
				// upwards (SAT stores the maximum), in redis-server 7.0.15.
				if maxV := uint64(1)<<(o.bits-1) - 1; o.signed && o.bits < 64 && o.overflow == "SAT" &&
					o.val < 0 && maxV-uint64(o.val) > math.MaxInt64 {
					v = new(big.Int).SetUint64(maxV)
				}
				if v == nil {
					want = append(want, "$-1")
					continue
				}
				want = append(want, ":"+old.String())
				write(o.off, o.bits, v)
			case "INCRBY":
				v, _ := bfModel(old, big.NewInt(o.val), o.bits, o.signed, o.overflow)
				if v == nil {
					want = append(want, "$-1")
					continue
				}
				want = append(want, ":"+v.String())
				write(o.off, o.bits, v)
			}
		}
		got := string(env.run(words(args...)))
		if real != nil {
			if rg := string(real.do(t, words(args...))); rg != got {
				t.Fatalf("step %d: %v:\nradish %q\n redis %q", step, args, got, rg)
			}
			if rg, g := string(real.do(t, words("GET", "k"))), string(env.run(words("GET", "k"))); rg != g {
				t.Fatalf("step %d: %v: GET k:\nradish %q\n redis %q", step, args, g, rg)
			}
		}
		if v, _, _ := env.ctx.DB.GetString([]byte("k"), env.ctx.Now); len(v) != m.bytes() {
			t.Fatalf("step %d: %v: %d bytes, model %d", step, args, len(v), m.bytes())
		} else {
			for i, b := range m {
				if (v[i/8]&(0x80>>(i%8)) != 0) != b {
					t.Fatalf("step %d: %v: bit %d differs from the model", step, args, i)
				}
			}
		}
		wantS := "*" + strconv.Itoa(len(ops)) + "\r\n" + strings.Join(want, "\r\n") + "\r\n"
		if got != wantS {
			t.Fatalf("step %d: %v:\n got %q\nwant %q", step, args, got, wantS)
		}
	}
}

// dialReal connects to the -redis server, flushed, or returns nil.
func dialReal(t *testing.T) *realConn {
	if *realRedis == "" {
		return nil
	}
	c, err := net.Dial("unix", *realRedis)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := &realConn{c: c, r: bufio.NewReader(c)}
	rc.do(t, words("FLUSHALL"))
	return rc
}

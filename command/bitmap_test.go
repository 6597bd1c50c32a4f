package command

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestBitmapScript(t *testing.T) { runScript(t, "bitmap.txt") }

// bitModel is a bitmap as a []bool, bit 0 first: the model the bit
// commands are checked against.
type bitModel []bool

func (m bitModel) bytes() int { return (len(m) + 7) / 8 }

// span resolves start/end as Redis 7.0 does over n units into a bit range.
func span(start, end, n int64, unitBits int64) (from, to int64, ok bool) {
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end {
		return 0, 0, false
	}
	return start * unitBits, end*unitBits + unitBits - 1, true
}

// TestBitmapModel runs random SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP
// on a few keys and checks each reply against []bool models (and, with
// -redis, against redis-server).
func TestBitmapModel(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	real := dialReal(t)
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "c"}
	model := map[string]bitModel{}
	num := func(v int64) string { return strconv.FormatInt(v, 10) }
	for step := range 20000 {
		k := keys[r.IntN(len(keys))]
		m := model[k]
		// Offsets mostly near the end, sometimes far (word paths).
		maxBit := max(len(m), 8) + 70
		if r.IntN(50) == 0 {
			maxBit = 3000
		}
		var args []string
		var want string
		switch r.IntN(6) {
		case 0, 1:
			off, on := r.IntN(maxBit), r.IntN(2)
			args = []string{"SETBIT", k, num(int64(off)), num(int64(on))}
			old := off < len(m) && m[off]
			want = ":0"
			if old {
				want = ":1"
			}
			if need := (off/8 + 1) * 8; need > len(m) {
				m = append(m, make(bitModel, need-len(m))...)
			}
			m[off] = on == 1
			model[k] = m
		case 2:
			off := r.IntN(maxBit)
			args = []string{"GETBIT", k, num(int64(off))}
			want = ":0"
			if off < len(m) && m[off] {
				want = ":1"
			}
		case 3:
			n := int64(m.bytes())
			start, end := r.Int64N(2*n+3)-n-1, r.Int64N(2*n+3)-n-1
			unit, ub := "BYTE", int64(8)
			if r.IntN(2) == 0 {
				unit, ub = "BIT", 1
				start, end = r.Int64N(16*n+3)-8*n-1, r.Int64N(16*n+3)-8*n-1
			}
			args = []string{"BITCOUNT", k, num(start), num(end), unit}
			cnt := 0
			if start < 0 && end < 0 && start > end {
			} else if from, to, ok := span(start, end, n*8/ub, ub); ok {
				for i := from; i <= to; i++ {
					if m[i] {
						cnt++
					}
				}
			}
			want = ":" + strconv.Itoa(cnt)
			if m == nil {
				want = ":0"
			}
		case 4:
			n := int64(m.bytes())
			bit := r.IntN(2)
			start, end := r.Int64N(2*n+3)-n-1, r.Int64N(2*n+3)-n-1
			unit, ub := "BYTE", int64(8)
			if r.IntN(2) == 0 {
				unit, ub = "BIT", 1
				start, end = r.Int64N(16*n+3)-8*n-1, r.Int64N(16*n+3)-8*n-1
			}
			endGiven := r.IntN(3) != 0
			if endGiven {
				args = []string{"BITPOS", k, num(int64(bit)), num(start), num(end), unit}
			} else {
				args = []string{"BITPOS", k, num(int64(bit)), num(start)}
				unit, ub, end = "BYTE", 8, -1
			}
			pos := int64(-1)
			from, to, ok := span(start, end, n*8/ub, ub)
			if ok {
				for i := from; i <= to; i++ {
					if m[i] == (bit == 1) {
						pos = i
						break
					}
				}
				if pos < 0 && bit == 0 && !endGiven {
					pos = to + 1
				}
			}
			if m == nil {
				pos = -int64(bit)
			}
			want = ":" + num(pos)
		case 5:
			op := []string{"AND", "OR", "XOR", "NOT"}[r.IntN(4)]
			srcs := []string{keys[r.IntN(3)]}
			if op != "NOT" {
				srcs = append(srcs, keys[r.IntN(3)], keys[r.IntN(3)])[:1+r.IntN(3)]
			}
			args = append([]string{"BITOP", op, k}, srcs...)
			var res bitModel
			for _, s := range srcs {
				res = append(res, make(bitModel, max(0, len(model[s])-len(res)))...)
			}
			for i := range res {
				var v bool
				for j, s := range srcs {
					b := i < len(model[s]) && model[s][i]
					switch {
					case j == 0:
						v = b
					case op == "AND":
						v = v && b
					case op == "OR":
						v = v || b
					case op == "XOR":
						v = v != b
					}
				}
				if op == "NOT" {
					v = !v
				}
				res[i] = v
			}
			want = ":" + strconv.Itoa(res.bytes())
			if len(res) == 0 {
				res = nil
			}
			model[k] = res
		}
		got := string(env.run(words(args...)))
		if real != nil {
			if rg := string(real.do(t, words(args...))); rg != got {
				t.Fatalf("step %d: %v: radish %q, redis %q", step, args, got, rg)
			}
		}
		if got != want+"\r\n" {
			t.Fatalf("step %d: %v: got %q, want %q (model %v)", step, args, got, want, fmt.Sprint(m))
		}
	}
	for _, k := range keys {
		v, _, _ := env.ctx.DB.GetString([]byte(k), env.ctx.Now)
		m := model[k]
		if len(v) != m.bytes() {
			t.Fatalf("%s: %d bytes, model %d", k, len(v), m.bytes())
		}
		for i, b := range m {
			if (v[i/8]&(0x80>>(i%8)) != 0) != b {
				t.Fatalf("%s: bit %d differs", k, i)
			}
		}
	}
}

// TestBitsDirty checks which bit commands count a change (and so leave an
// effect), as redis-server 7.0.15's rdb_changes_since_last_save moves.
func TestBitsDirty(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	for _, tc := range []struct {
		cmd   []string
		dirty uint64
	}{
		{[]string{"SETBIT", "k", "3", "1"}, 1},
		{[]string{"SETBIT", "k", "3", "1"}, 0},
		{[]string{"SETBIT", "k", "3", "0"}, 1},
		{[]string{"SETBIT", "k", "3", "0"}, 0},
		{[]string{"SETBIT", "k", "20", "0"}, 1}, // grew
		{[]string{"BITOP", "AND", "d", "nokey"}, 0},
		{[]string{"BITOP", "OR", "d", "k"}, 1},
		{[]string{"BITOP", "OR", "d", "k"}, 1},
		{[]string{"BITOP", "OR", "d", "nokey"}, 1}, // deleted
	} {
		before := env.store.Dirty()
		env.run(words(tc.cmd...))
		if got := env.store.Dirty() - before; got != tc.dirty {
			t.Errorf("%v: dirty +%d, want +%d", tc.cmd, got, tc.dirty)
		}
	}
}

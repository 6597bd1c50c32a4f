package command

import (
	"bytes"
	"math"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is BITFIELD and BITFIELD_RO: integers of 1 to 64 bits (signed)
// or 1 to 63 (unsigned) at any bit offset of a string, most significant
// bit first, with Redis 7.0's parsing, overflow rules and replies.

func init() { register(bitfieldSpecs...) }

var bitfieldSpecs = []*Spec{
	{
		Name: "bitfield", Arity: -2,
		Flags: Write | DenyOOM,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate | KeyVariableFlags, Index: 1, LastKey: 0, Step: 1,
				Notes: "This command allows both access and modification of the key"},
		},
		KeyFlags: bitfieldKeyFlags,
		Handler:  CmdBitField,
		Summary:  "Perform arbitrary bitfield integer operations on strings",
		Since:    "3.2.0", Group: "bitmap",
		Complexity: "O(1) for each subcommand specified",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "operation", Type: "oneof", Flags: ArgOptional | ArgMultiple, Args: []Arg{
				{Name: "encoding_offset", Type: "block", Token: "GET", Args: []Arg{
					{Name: "encoding", Type: "string"},
					{Name: "offset", Type: "integer"},
				}},
				{Name: "write", Type: "block", Args: []Arg{
					{Name: "wrap_sat_fail", Type: "oneof", Token: "OVERFLOW", Flags: ArgOptional, Args: []Arg{
						{Name: "wrap", Type: "pure-token", Token: "WRAP"},
						{Name: "sat", Type: "pure-token", Token: "SAT"},
						{Name: "fail", Type: "pure-token", Token: "FAIL"},
					}},
					{Name: "write_operation", Type: "oneof", Args: []Arg{
						{Name: "encoding_offset_value", Type: "block", Token: "SET", Args: []Arg{
							{Name: "encoding", Type: "string"},
							{Name: "offset", Type: "integer"},
							{Name: "value", Type: "integer"},
						}},
						{Name: "encoding_offset_increment", Type: "block", Token: "INCRBY", Args: []Arg{
							{Name: "encoding", Type: "string"},
							{Name: "offset", Type: "integer"},
							{Name: "increment", Type: "integer"},
						}},
					}},
				}},
			}},
		},
	},
	{
		Name: "bitfield_ro", Arity: -2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdBitFieldRO,
		Summary: "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
		Since:   "6.0.0", Group: "bitmap",
		Complexity: "O(1) for each subcommand specified",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "encoding_offset", Type: "block", Token: "GET", Flags: ArgOptional | ArgMultiple | ArgMultipleToken, Args: []Arg{
				{Name: "encoding", Type: "string"},
				{Name: "offset", Type: "integer"},
			}},
		},
	},
}

// Overflow behaviours of BITFIELD's SET and INCRBY.
const (
	bfWrap = iota
	bfSat
	bfFail
)

// Operations of BITFIELD.
const (
	bfGet = iota
	bfSet
	bfIncrBy
)

// bfOp is one parsed BITFIELD operation.
type bfOp struct {
	off      uint64
	val      int64 // SET's value, INCRBY's increment
	op       int
	overflow int
	bits     int
	signed   bool
}

// CmdBitField is BITFIELD key [GET type offset | [OVERFLOW WRAP|SAT|FAIL]
// SET type offset value | INCRBY type offset increment ...].
func CmdBitField(c *Ctx, args [][]byte) { bitField(c, args, false) }

// CmdBitFieldRO is BITFIELD_RO key [GET type offset ...].
func CmdBitFieldRO(c *Ctx, args [][]byte) { bitField(c, args, true) }

// bitField is Redis's bitfieldGeneric: every operation is parsed (the first
// bad one is the reply) before any runs; with a write, the string is
// created or padded to cover the farthest bit written, even when every
// write then fails.
func bitField(c *Ctx, args [][]byte, readOnly bool) {
	var buf [8]bfOp
	ops := buf[:0]
	overflow := bfWrap
	writes := false
	var highest uint64
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		var op int
		switch sub := args[j]; {
		case kvIs(sub, "get") && left >= 2:
			op = bfGet
		case kvIs(sub, "set") && left >= 3:
			op = bfSet
		case kvIs(sub, "incrby") && left >= 3:
			op = bfIncrBy
		case kvIs(sub, "overflow") && left >= 1:
			j++
			switch t := args[j]; {
			case kvIs(t, "wrap"):
				overflow = bfWrap
			case kvIs(t, "sat"):
				overflow = bfSat
			case kvIs(t, "fail"):
				overflow = bfFail
			default:
				c.W.Error("ERR Invalid OVERFLOW type specified")
				return
			}
			continue
		default:
			c.W.Error(errtext.Syntax)
			return
		}
		signed, bits, ok := bitFieldType(args[j+1])
		if !ok {
			c.W.Error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
			return
		}
		off, ok := bitOffset(c, args[j+2], true, bits)
		if !ok {
			return
		}
		var val int64
		if op != bfGet {
			writes = true
			highest = max(highest, off+uint64(bits)-1)
			if val, ok = kvArgInt(c, args[j+3]); !ok {
				return
			}
			j++
		}
		ops = append(ops, bfOp{off: off, val: val, op: op, overflow: overflow, bits: bits, signed: signed})
		j += 2
	}
	if !writes {
		v, _, err := c.DB.GetString(args[1], c.Now)
		if err != nil {
			c.W.Error(err.Error())
			return
		}
		c.W.Array(len(ops))
		for i := range ops {
			c.W.Int(bitFieldGet(v, &ops[i]))
		}
		return
	}
	if readOnly {
		c.W.Error("ERR BITFIELD_RO only supports the GET subcommand")
		return
	}
	err := c.DB.EditString(args[1], int(highest>>3)+1, c.Now, func(b []byte, grew bool) int {
		c.W.Array(len(ops))
		changes := 0
		for i := range ops {
			o := &ops[i]
			if o.op == bfGet {
				c.W.Int(bitFieldGet(b, o))
				continue
			}
			old := getBits(b, o.off, o.bits)
			var cur, nv uint64
			var over bool
			if o.signed {
				oldS := signExtend(old, o.bits)
				if o.op == bfIncrBy {
					s, ov := signedOverflow(oldS, o.val, o.bits, o.overflow)
					cur, nv, over = uint64(s), uint64(s), ov
				} else {
					s, ov := signedOverflow(o.val, 0, o.bits, o.overflow)
					cur, nv, over = uint64(oldS), uint64(s), ov
				}
			} else {
				if o.op == bfIncrBy {
					u, ov := unsignedOverflow(old, o.val, o.bits, o.overflow)
					cur, nv, over = u, u, ov
				} else {
					u, ov := unsignedOverflow(uint64(o.val), 0, o.bits, o.overflow)
					cur, nv, over = old, u, ov
				}
			}
			if over && o.overflow == bfFail {
				c.W.Null()
				continue
			}
			c.W.Int(int64(cur))
			setBits(b, o.off, o.bits, nv)
			if grew || nv&bitMask(o.bits) != old {
				changes++
			}
		}
		return changes
	})
	if err != nil {
		c.W.Error(err.Error())
	}
}

// bitFieldType parses "i<bits>" (1 to 64) or "u<bits>" (1 to 63), the
// digits read up to a NUL byte as C's strlen does.
func bitFieldType(b []byte) (signed bool, bits int, ok bool) {
	if len(b) == 0 || b[0] != 'i' && b[0] != 'u' {
		return false, 0, false
	}
	signed = b[0] == 'i'
	d := b[1:]
	for i, x := range d {
		if x == 0 {
			d = d[:i]
			break
		}
	}
	n, ok := num.ParseInt(d)
	if !ok || n < 1 || signed && n > 64 || !signed && n > 63 {
		return false, 0, false
	}
	return signed, int(n), true
}

// bitFieldGet reads op's integer from b, zero-padded past its end.
func bitFieldGet(b []byte, o *bfOp) int64 {
	v := getBits(b, o.off, o.bits)
	if o.signed {
		return signExtend(v, o.bits)
	}
	return int64(v)
}

// bitMask is the low n bits set (n in 1..64).
func bitMask(n int) uint64 { return math.MaxUint64 >> (64 - n) }

// getBits reads n bits at bit offset off, the first the most significant;
// bits past the end of b read as 0.
func getBits(b []byte, off uint64, n int) uint64 {
	var v uint64
	for i := uint64(0); i < uint64(n); i++ {
		v <<= 1
		if p := off + i; p>>3 < uint64(len(b)) && b[p>>3]&(0x80>>(p&7)) != 0 {
			v |= 1
		}
	}
	return v
}

// setBits writes the low n bits of v at bit offset off, which b covers.
func setBits(b []byte, off uint64, n int, v uint64) {
	for i := uint64(0); i < uint64(n); i++ {
		p := off + i
		mask := byte(0x80) >> (p & 7)
		if v>>(uint64(n)-1-i)&1 != 0 {
			b[p>>3] |= mask
		} else {
			b[p>>3] &^= mask
		}
	}
}

// signExtend reads the low n bits of v as a two's complement integer.
func signExtend(v uint64, n int) int64 {
	if n == 64 {
		return int64(v)
	}
	if v&(1<<(n-1)) != 0 {
		return int64(v | ^bitMask(n))
	}
	return int64(v & bitMask(n))
}

// unsignedOverflow adds incr to value as an n-bit unsigned integer (n <=
// 63): the result with Redis's overflow handling (wrap modulo 2^n, or
// saturate) and whether it overflowed.
func unsignedOverflow(value uint64, incr int64, n int, overflow int) (uint64, bool) {
	maxV := bitMask(n)
	maxIncr := int64(maxV - value)
	minIncr := -int64(value)
	up := value > maxV || incr > 0 && incr > maxIncr
	down := !up && incr < 0 && incr < minIncr
	switch {
	case !up && !down:
		return value + uint64(incr), false
	case overflow == bfWrap:
		return (value + uint64(incr)) & maxV, true
	case up:
		return maxV, true
	default:
		return 0, true
	}
}

// signedOverflow is unsignedOverflow for n-bit signed integers (n <= 64):
// wrapping keeps the low n bits, sign-extended.
func signedOverflow(value, incr int64, n int, overflow int) (int64, bool) {
	maxV := int64(bitMask(n) >> 1)
	minV := -maxV - 1
	maxIncr := int64(uint64(maxV) - uint64(value))
	minIncr := minV - value
	up := value > maxV || n != 64 && incr > maxIncr || value >= 0 && incr > 0 && incr > maxIncr
	down := !up && (value < minV || n != 64 && incr < minIncr || value < 0 && incr < 0 && incr < minIncr)
	switch {
	case !up && !down:
		return value + incr, false
	case overflow == bfWrap:
		return signExtend(uint64(value)+uint64(incr), n), true
	case up:
		return maxV, true
	default:
		return minV, true
	}
}

// bitfieldKeyFlags is Redis's bitfieldGetKeys: a BITFIELD of GETs (and
// OVERFLOW) only reads its key; anything else, a syntax error included,
// may write it.
func bitfieldKeyFlags(args [][]byte) KeyFlag {
	for i := 2; i < len(args); i++ {
		rem := len(args) - i - 1
		switch a := args[i]; {
		case bytes.EqualFold(a, []byte("get")) && rem >= 2:
			i += 2
		case bytes.EqualFold(a, []byte("overflow")) && rem >= 1:
			i++
		default:
			return KeyRW | KeyAccess | KeyUpdate
		}
	}
	return KeyRO | KeyAccess
}

package command

import (
	"encoding/binary"
	"math/bits"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the bitmap family (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP):
// its rows as Redis 7.0 declares them and handlers with Redis 7.0's
// replies. Bit 0 is the most significant bit of byte 0. BITOP's keys may
// lie on several shards: the shard's gather plan runs it on copies.

func init() { register(bitmapSpecs...) }

var bitmapSpecs = []*Spec{
	{
		Name: "setbit", Arity: 4,
		Flags: Write | DenyOOM,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSetBit,
		Summary: "Sets or clears the bit at offset in the string value stored at key",
		Since:   "2.2.0", Group: "bitmap",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "offset", Type: "integer"},
			{Name: "value", Type: "integer"},
		},
	},
	{
		Name: "getbit", Arity: 3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGetBit,
		Summary: "Returns the bit value at offset in the string value stored at key",
		Since:   "2.2.0", Group: "bitmap",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "offset", Type: "integer"},
		},
	},
	{
		Name: "bitcount", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdBitCount,
		Summary: "Count set bits in a string",
		Since:   "2.6.0", Group: "bitmap",
		Complexity: "O(N)",
		History:    [][2]string{{"7.0.0", "Added the `BYTE|BIT` option."}},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "index", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "start", Type: "integer"},
				{Name: "end", Type: "integer"},
				{Name: "index_unit", Type: "oneof", Since: "7.0.0", Flags: ArgOptional, Args: []Arg{
					{Name: "byte", Type: "pure-token", Token: "BYTE"},
					{Name: "bit", Type: "pure-token", Token: "BIT"},
				}},
			}},
		},
	},
	{
		Name: "bitpos", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdBitPos,
		Summary: "Find first bit set or clear in a string",
		Since:   "2.8.7", Group: "bitmap",
		Complexity: "O(N)",
		History:    [][2]string{{"7.0.0", "Added the `BYTE|BIT` option."}},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "bit", Type: "integer"},
			{Name: "index", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "start", Type: "integer"},
				{Name: "end_index", Type: "block", Flags: ArgOptional, Args: []Arg{
					{Name: "end", Type: "integer"},
					{Name: "index_unit", Type: "oneof", Since: "7.0.0", Flags: ArgOptional, Args: []Arg{
						{Name: "byte", Type: "pure-token", Token: "BYTE"},
						{Name: "bit", Type: "pure-token", Token: "BIT"},
					}},
				}},
			}},
		},
	},
	{
		Name: "bitop", Arity: -4,
		Flags: Write | DenyOOM,
		ACL:   []string{"bitmap"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 2, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 3, LastKey: -1, Step: 1},
		},
		Handler: CmdBitOp,
		Summary: "Perform bitwise operations between strings",
		Since:   "2.6.0", Group: "bitmap",
		Complexity: "O(N)",
		Args: []Arg{
			{Name: "operation", Type: "string"},
			{Name: "destkey", Type: "key", KeySpecIndex: 0},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
		},
	},
}

// bitOffsetErr is Redis's getBitOffsetFromArgument error.
const bitOffsetErr = "ERR bit offset is not an integer or out of range"

// bitOffset parses a bit offset as Redis's getBitOffsetFromArgument: with
// hash and bits > 0 a "#n" offset means n*bits (BITFIELD). The offset's
// byte must lie within proto-max-bulk-len. ok false: the reply is written.
func bitOffset(c *Ctx, b []byte, hash bool, bits int) (uint64, bool) {
	useHash := hash && bits > 0 && len(b) > 0 && b[0] == '#'
	if useHash {
		b = b[1:]
	}
	off, ok := num.ParseInt(b)
	if ok && useHash {
		off *= int64(bits) // wraps as Redis's long long does; caught below
	}
	if !ok || off < 0 || off>>3 >= c.maxBulkLen() {
		c.W.Error(bitOffsetErr)
		return 0, false
	}
	return uint64(off), true
}

// CmdSetBit is SETBIT key offset value: the bit's old value. As Redis, it
// counts a write only when the bit or the length changed.
func CmdSetBit(c *Ctx, args [][]byte) {
	const valueErr = "ERR bit is not an integer or out of range"
	off, ok := bitOffset(c, args[2], false, 0)
	if !ok {
		return
	}
	on, ok := num.ParseInt(args[3])
	if !ok || on&^1 != 0 {
		c.W.Error(valueErr)
		return
	}
	var old byte
	err := c.DB.EditString(args[1], int(off>>3)+1, c.Now, func(b []byte, grew bool) int {
		mask := byte(0x80) >> (off & 7)
		old = b[off>>3] & mask
		if on == 1 {
			b[off>>3] |= mask
		} else {
			b[off>>3] &^= mask
		}
		if grew || (old != 0) != (on == 1) {
			return 1
		}
		return 0
	})
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case old != 0:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

// CmdGetBit is GETBIT key offset; bits past the end are 0.
func CmdGetBit(c *Ctx, args [][]byte) {
	off, ok := bitOffset(c, args[2], false, 0)
	if !ok {
		return
	}
	v, _, err := c.DB.GetString(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if i := off >> 3; i < uint64(len(v)) && v[i]&(0x80>>(off&7)) != 0 {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// bitRange resolves BITCOUNT's and BITPOS's start and end (inclusive,
// negative counting from the end, clamped as Redis 7.0 clamps) over a
// string of n units (bytes, or bits with isBit) into a bit range. empty:
// the range holds no bit.
func bitRange(start, end int64, n int64) (from, to int64, empty bool) {
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	end = min(end, n-1)
	return start, end, start > end
}

// parseBitUnit reads the optional BYTE|BIT argument; ok false: the syntax
// error is written.
func parseBitUnit(c *Ctx, b []byte) (isBit, ok bool) {
	switch {
	case kvIs(b, "bit"):
		return true, true
	case kvIs(b, "byte"):
		return false, true
	}
	c.W.Error(errtext.Syntax)
	return false, false
}

// CmdBitCount is BITCOUNT key [start end [BYTE|BIT]].
func CmdBitCount(c *Ctx, args [][]byte) {
	v, found, err := c.DB.GetString(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	from, to := int64(0), int64(len(v))*8-1
	switch len(args) {
	case 2:
	case 4, 5:
		start, ok := kvArgInt(c, args[2])
		if !ok {
			return
		}
		end, ok := kvArgInt(c, args[3])
		if !ok {
			return
		}
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return
		}
		isBit := false
		if len(args) == 5 {
			if isBit, ok = parseBitUnit(c, args[4]); !ok {
				return
			}
		}
		n := int64(len(v))
		if isBit {
			n *= 8
		}
		var empty bool
		if from, to, empty = bitRange(start, end, n); empty {
			c.W.Int(0)
			return
		}
		if !isBit {
			from, to = from*8, to*8+7
		}
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	if from > to {
		c.W.Int(0)
		return
	}
	c.W.Int(countBits(v, from, to))
}

// countBits counts the set bits of b from bit from to bit to inclusive, a
// word at a time.
func countBits(b []byte, from, to int64) int64 {
	first, last := from>>3, to>>3
	if first == last {
		return int64(bits.OnesCount8(b[first] & (0xff >> (from & 7)) & (0xff << (7 - to&7))))
	}
	n := int64(bits.OnesCount8(b[first]&(0xff>>(from&7)))) + int64(bits.OnesCount8(b[last]&(0xff<<(7-to&7))))
	return n + popcount(b[first+1:last])
}

// popcount counts the set bits of b.
func popcount(b []byte) int64 {
	var n int
	for len(b) >= 32 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b)) + bits.OnesCount64(binary.LittleEndian.Uint64(b[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[16:])) + bits.OnesCount64(binary.LittleEndian.Uint64(b[24:]))
		b = b[32:]
	}
	for len(b) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, x := range b {
		n += bits.OnesCount8(x)
	}
	return int64(n)
}

// CmdBitPos is BITPOS key bit [start [end [BYTE|BIT]]]: the first bit
// equal to bit in the range, or -1. A missing key is all zeros. Looking
// for a 0 without an explicit end, a string of ones answers the bit just
// past it, as though the string went on with zeros.
func CmdBitPos(c *Ctx, args [][]byte) {
	bit, ok := kvArgInt(c, args[2])
	if !ok {
		return
	}
	if bit != 0 && bit != 1 {
		c.W.Error("ERR The bit argument must be 1 or 0.")
		return
	}
	v, found, err := c.DB.GetString(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if !found {
		c.W.Int(-bit)
		return
	}
	from, to := int64(0), int64(len(v))*8-1
	endGiven := false
	switch len(args) {
	case 3:
	case 4, 5, 6:
		start, ok := kvArgInt(c, args[3])
		if !ok {
			return
		}
		isBit := false
		if len(args) == 6 {
			if isBit, ok = parseBitUnit(c, args[5]); !ok {
				return
			}
		}
		n := int64(len(v))
		if isBit {
			n *= 8
		}
		end := n - 1
		if len(args) >= 5 {
			if end, ok = kvArgInt(c, args[4]); !ok {
				return
			}
			endGiven = true
		}
		var empty bool
		if from, to, empty = bitRange(start, end, n); empty {
			c.W.Int(-1)
			return
		}
		if !isBit {
			from, to = from*8, to*8+7
		}
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	if from > to {
		c.W.Int(-1)
		return
	}
	pos := findBit(v, from, to, bit == 1)
	if pos < 0 && bit == 0 && !endGiven {
		pos = to + 1
	}
	c.W.Int(pos)
}

// findBit returns the first bit from bit from to bit to inclusive of b
// that is set (or clear, set false), or -1, a word at a time.
func findBit(b []byte, from, to int64, set bool) int64 {
	var flip byte // XORed in so that the bit sought reads as 1
	if !set {
		flip = 0xff
	}
	first, last := from>>3, to>>3
	edge := func(i int64, mask byte) int64 {
		if x := (b[i] ^ flip) & mask; x != 0 {
			return i*8 + int64(bits.LeadingZeros8(x))
		}
		return -1
	}
	if first == last {
		return edge(first, 0xff>>(from&7)&(0xff<<(7-to&7)))
	}
	if p := edge(first, 0xff>>(from&7)); p >= 0 {
		return p
	}
	flip64 := uint64(0)
	if !set {
		flip64 = ^uint64(0)
	}
	i := first + 1
	for ; i+8 <= last; i += 8 {
		if x := binary.BigEndian.Uint64(b[i:]) ^ flip64; x != 0 {
			return i*8 + int64(bits.LeadingZeros64(x))
		}
	}
	for ; i < last; i++ {
		if x := b[i] ^ flip; x != 0 {
			return i*8 + int64(bits.LeadingZeros8(x))
		}
	}
	return edge(last, 0xff<<(7-to&7))
}

// CmdBitOp is BITOP AND|OR|XOR|NOT destkey key [key ...]: the length of
// the string stored at destkey.
func CmdBitOp(c *Ctx, args [][]byte) {
	var op engine.BitOp
	switch name := args[1]; {
	case kvIs(name, "and"):
		op = engine.BitAnd
	case kvIs(name, "or"):
		op = engine.BitOr
	case kvIs(name, "xor"):
		op = engine.BitXor
	case kvIs(name, "not"):
		op = engine.BitNot
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	if op == engine.BitNot && len(args) != 4 {
		c.W.Error("ERR BITOP NOT must be called with a single source key.")
		return
	}
	n, err := c.DB.BitOp(op, args[2], args[3:], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

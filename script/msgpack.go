package script

import (
	"encoding/binary"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack is Redis's lua_cmsgpack (lua-cmsgpack 0.4.0): pack encodes its
// arguments, each as one MessagePack value, back to back; unpack decodes
// every value of a string, unpack_one one value from an offset, and
// unpack_limit up to a count from an offset, those two returning first the
// offset of the next value (-1 at the end). As Lua 5.1 has only doubles, a
// number that is an integer of 64 bits is encoded as the smallest integer
// encoding, else as a float when a float keeps it, else as a double; a
// table whose keys are exactly 1..n is an array, any other a map (in
// gopher-lua's iteration order, which is not Lua 5.1's hash order for
// maps of several keys); tables nested 16 deep are nil. Strings are
// always MessagePack's raw (str) family.

// msgpackMaxNesting is LUACMSGPACK_MAX_NESTING.
const msgpackMaxNesting = 16

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: a C function's stack never
// holds more, so unpack's results are bounded by it.
const luaMaxCStack = 8000

func (r *Runtime) openCMsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	L.SetFuncs(t, map[string]lua.LGFunction{
		"pack": func(L *lua.LState) int {
			n := L.GetTop()
			if n == 0 {
				r.argError(L, 0, "MessagePack pack needs input.")
			}
			var b []byte
			for i := 1; i <= n; i++ {
				b = mpEncode(L, b, L.Get(i), 0)
			}
			L.Push(lua.LString(b))
			return 1
		},
		"unpack": func(L *lua.LState) int { return r.mpUnpack(L, 0, 0) },
		"unpack_one": func(L *lua.LState) int {
			off := r.optInt(L, 2, 0)
			L.SetTop(1)
			return r.mpUnpack(L, 1, off)
		},
		"unpack_limit": func(L *lua.LState) int {
			limit := r.checkInt(L, 2)
			off := r.optInt(L, 3, 0)
			L.SetTop(1)
			return r.mpUnpack(L, limit, off)
		},
	})
	for k, v := range map[string]string{"_NAME": "cmsgpack", "_VERSION": "lua-cmsgpack 0.4.0",
		"_COPYRIGHT": "Copyright (C) 2012, Salvatore Sanfilippo", "_DESCRIPTION": "MessagePack C implementation for Lua"} {
		t.RawSetString(k, lua.LString(v))
	}
	return t
}

// mpEncode appends v's encoding at nesting level.
func mpEncode(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	switch v := v.(type) {
	case lua.LString:
		return mpBytes(b, string(v))
	case lua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(v)
		if f >= -(1<<63) && f < 1<<63 && float64(int64(f)) == f {
			return mpInt(b, int64(f))
		}
		if float64(float32(f)) == f {
			return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(float32(f)))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := mpArrayLen(v); ok {
			b = mpHeader(b, 0x90, 0xdc, n)
			for i := 1; i <= n; i++ {
				b = mpEncode(L, b, L.GetTable(v, lua.LNumber(i)), level+1)
			}
			return b
		}
		n := 0
		v.ForEach(func(lua.LValue, lua.LValue) { n++ })
		b = mpHeader(b, 0x80, 0xde, n)
		v.ForEach(func(k, e lua.LValue) {
			b = mpEncode(L, b, k, level+1)
			b = mpEncode(L, b, e, level+1)
		})
		return b
	}
	return append(b, 0xc0)
}

// mpArrayLen reports whether t's keys are exactly 1..n (table_is_an_array:
// positive numbers that are C ints, as many as the largest).
func mpArrayLen(t *lua.LTable) (int, bool) {
	count, top, ok := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !isNum || n <= 0 || n > math.MaxInt32 || float64(int32(n)) != float64(n) {
			ok = false
			return
		}
		count++
		top = max(top, int(n))
	})
	return count, ok && top == count
}

func mpBytes(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func mpInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= 0 && n <= 0xff:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		return append(b, byte(n))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// mpHeader appends an array's or map's header: fix (n <= 15), 16 or 32
// bits.
func mpHeader(b []byte, fix, b16 byte, n int) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b16+1), uint32(n))
}

// mpDecoder reads MessagePack values; err is "" or the error's text.
type mpDecoder struct {
	L     *lua.LState
	s     string
	p     int
	err   string
	stack int // values on the C stack Lua 5.1 would hold (luaL_checkstack)
}

const (
	mpEOF       = "Missing bytes in input."
	mpBadFmt    = "Bad data format in input."
	errIndexNil = "table index is nil"
	errIndexNaN = "table index is NaN"
)

func (d *mpDecoder) need(n int) bool {
	if len(d.s)-d.p < n {
		d.err = mpEOF
		return false
	}
	return true
}

func (d *mpDecoder) uint(off, n int) uint64 {
	var v uint64
	for _, c := range []byte(d.s[d.p+off : d.p+off+n]) {
		v = v<<8 | uint64(c)
	}
	return v
}

// value decodes one value (nil after an error).
func (d *mpDecoder) value() lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	if d.stack+1 > luaMaxCStack {
		d.err = "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)"
		return lua.LNil
	}
	c := d.s[d.p]
	fixed := func(n int) bool { return d.need(1 + n) }
	var v lua.LValue
	switch {
	case c == 0xcc || c == 0xd0 || c == 0xcd || c == 0xd1 || c == 0xce || c == 0xd2 || c == 0xcf || c == 0xd3:
		n := 1 << ((c - 0xcc) & 3) // 1, 2, 4, 8 bytes; 0xd0 on signed
		if !fixed(n) {
			return lua.LNil
		}
		u := d.uint(1, n)
		if c >= 0xd0 { // signed
			shift := 64 - 8*n
			v = lua.LNumber(float64(int64(u<<shift) >> shift))
		} else {
			v = lua.LNumber(float64(u))
		}
		d.p += 1 + n
	case c == 0xc0:
		v = lua.LNil
		d.p++
	case c == 0xc3 || c == 0xc2:
		v = lua.LBool(c == 0xc3)
		d.p++
	case c == 0xca:
		if !fixed(4) {
			return lua.LNil
		}
		v = lua.LNumber(float64(math.Float32frombits(uint32(d.uint(1, 4)))))
		d.p += 5
	case c == 0xcb:
		if !fixed(8) {
			return lua.LNil
		}
		v = lua.LNumber(math.Float64frombits(d.uint(1, 8)))
		d.p += 9
	case c == 0xd9 || c == 0xda || c == 0xdb:
		h := 1 << (c - 0xd9)
		if !fixed(h) {
			return lua.LNil
		}
		l := int(d.uint(1, h))
		if !d.need(1 + h + l) {
			return lua.LNil
		}
		v = lua.LString(d.s[d.p+1+h : d.p+1+h+l])
		d.p += 1 + h + l
	case c == 0xdc || c == 0xdd || c == 0xde || c == 0xdf:
		h := 2
		if c == 0xdd || c == 0xdf {
			h = 4
		}
		if !fixed(h) {
			return lua.LNil
		}
		l := int(d.uint(1, h))
		d.p += 1 + h
		if c <= 0xdd {
			return d.array(l)
		}
		return d.hash(l)
	case c&0x80 == 0:
		v = lua.LNumber(c)
		d.p++
	case c&0xe0 == 0xe0:
		v = lua.LNumber(int8(c))
		d.p++
	case c&0xe0 == 0xa0:
		l := int(c & 0x1f)
		if !d.need(1 + l) {
			return lua.LNil
		}
		v = lua.LString(d.s[d.p+1 : d.p+1+l])
		d.p += 1 + l
	case c&0xf0 == 0x90:
		d.p++
		return d.array(int(c & 0xf))
	case c&0xf0 == 0x80:
		d.p++
		return d.hash(int(c & 0xf))
	default:
		d.err = mpBadFmt
		return lua.LNil
	}
	return v
}

func (d *mpDecoder) array(n int) lua.LValue {
	t := d.L.NewTable()
	d.stack += 2 // the table and the index
	for i := 1; i <= n; i++ {
		v := d.value()
		if d.err != "" {
			return lua.LNil
		}
		t.RawSetInt(i, v)
	}
	d.stack -= 2
	return t
}

func (d *mpDecoder) hash(n int) lua.LValue {
	t := d.L.NewTable()
	d.stack++
	for range n {
		k := d.value()
		if d.err != "" {
			return lua.LNil
		}
		d.stack++
		v := d.value()
		d.stack--
		if d.err != "" {
			return lua.LNil
		}
		switch kn := k.(type) {
		case *lua.LNilType:
			d.err = errIndexNil
			return lua.LNil
		case lua.LNumber:
			if math.IsNaN(float64(kn)) {
				d.err = errIndexNaN
				return lua.LNil
			}
		}
		t.RawSet(k, v)
	}
	d.stack--
	return t
}

// mpUnpack is mp_unpack_full: every value (limit and offset 0), or up to
// limit values from offset, preceded by the next offset.
func (r *Runtime) mpUnpack(L *lua.LState, limit, offset int) int {
	s := r.checkString(L, 1)
	all := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		r.raise(L, fmt.Sprintf("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s)))
	}
	if offset > len(s) {
		r.raise(L, fmt.Sprintf("Start offset %d greater than input length %d.", offset, len(s)))
	}
	if all {
		limit = math.MaxInt32
	}
	d := mpDecoder{L: L, s: s, p: offset, stack: 1}
	var out []lua.LValue
	for d.p < len(s) && len(out) < limit {
		v := d.value()
		switch {
		case d.err == errIndexNil || d.err == errIndexNaN:
			// Lua's own error, raised inside the C function: no position.
			r.fail(L, d.err)
		case d.err != "":
			r.raise(L, d.err)
		}
		out = append(out, v)
		d.stack++
	}
	if !all {
		next := d.p
		if d.p == len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range out {
		L.Push(v)
	}
	if all {
		return len(out)
	}
	return len(out) + 1
}

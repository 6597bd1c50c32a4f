package script

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// struct is Redis's lua_struct (Roberto Ierusalimschy's struct library)
// as built for x86-64: pack(fmt, ...), unpack(fmt, data [, pos]) and
// size(fmt), with the format's options: > and < (big and little endian;
// little by default), ![n] (alignment, default 8), x (a zero byte), b B
// (byte), h H (2 bytes), l L and T (8 bytes), i[n] I[n] (n bytes,
// default 4, at most 32), c[n] (n chars; c0 packs the whole string and
// unpacks as many chars as the number unpacked before it), s (a
// zero-terminated string), f and d (float and double), and spaces.

// structMaxIntSize is MAXINTSIZE; structMaxAlign is MAXALIGN on x86-64.
const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	little bool
	align  int
}

// structFormat walks a format string, as each of the library's functions
// does.
type structFormat struct {
	r   *Runtime
	L   *lua.LState
	fmt string
	i   int
	h   structHeader
}

// num reads a number in the format, else returns df (getnum).
func (f *structFormat) num(df int) int {
	if f.i >= len(f.fmt) || !isDigit(f.fmt[f.i]) {
		return df
	}
	a := 0
	for f.i < len(f.fmt) && isDigit(f.fmt[f.i]) {
		d := int(f.fmt[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			f.r.raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// size is optsize: the size of option opt.
func (f *structFormat) size(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return f.num(1)
	case 'i', 'I':
		sz := f.num(4)
		if sz > structMaxIntSize {
			f.r.raise(f.L, fmt.Sprintf("integral size %d is larger than limit of %d", sz, structMaxIntSize))
		}
		return sz
	}
	return 0
}

// toAlign is gettoalign: the padding before an element of size at pos.
func (f *structFormat) toAlign(pos int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	size = min(size, f.h.align)
	return (size - pos&(size-1)) & (size - 1)
}

// control is controloptions: endianness, alignment, spaces; anything else
// is an invalid option.
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.h.little = false
	case '<':
		f.h.little = true
	case '!':
		a := f.num(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			f.r.raise(f.L, fmt.Sprintf("alignment %d is not a power of 2", a))
		}
		f.h.align = a
	default:
		f.r.argError(f.L, 1, fmt.Sprintf("invalid format option '%c'", opt))
	}
}

func (r *Runtime) newFormat(L *lua.LState) *structFormat {
	return &structFormat{r: r, L: L, fmt: r.checkString(L, 1), h: structHeader{little: true, align: 1}}
}

func (r *Runtime) openStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	L.SetFuncs(t, map[string]lua.LGFunction{"pack": r.structPack, "unpack": r.structUnpack, "size": r.structSize})
	return t
}

func (r *Runtime) structPack(L *lua.LState) int {
	f := r.newFormat(L)
	// b_pack pushes a nil to mark the end of its arguments: a missing one
	// is that nil.
	L.SetTop(L.GetTop())
	L.Push(lua.LNil)
	var b []byte
	arg, total := 2, 0
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.size(opt)
		pad := f.toAlign(total, opt, size)
		total += pad
		b = append(b, make([]byte, pad)...)
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := r.checkNumber(L, arg)
			arg++
			var v uint64
			if n < 0 {
				v = uint64(int64(n))
			} else {
				v = toUint64(n)
			}
			b = appendInt(b, v, size, f.h.little)
		case 'x':
			b = append(b, 0)
		case 'f':
			v := uint64(math.Float32bits(float32(r.checkNumber(L, arg))))
			arg++
			b = appendInt(b, v, 4, f.h.little)
		case 'd':
			v := math.Float64bits(r.checkNumber(L, arg))
			arg++
			b = appendInt(b, v, 8, f.h.little)
		case 'c', 's':
			s := r.checkString(L, arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				r.argError(L, arg, "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
				size++
			}
		default:
			f.control(opt)
		}
		total += size
	}
	L.Push(lua.LString(b))
	return 1
}

// toUint64 is C's conversion of a non-negative double to unsigned long on
// x86-64.
func toUint64(n float64) uint64 {
	if n < 1<<63 {
		return uint64(int64(n))
	}
	if n < 1<<64 {
		return uint64(int64(n-(1<<63))) | 1<<63
	}
	return 0
}

// appendInt appends size bytes of v (bytes past its 8 are zero).
func appendInt(b []byte, v uint64, size int, little bool) []byte {
	start := len(b)
	b = append(b, make([]byte, size)...)
	for i := range size {
		j := start + size - 1 - i
		if little {
			j = start + i
		}
		b[j] = byte(v)
		v >>= 8
	}
	return b
}

func (r *Runtime) structUnpack(L *lua.LState) int {
	f := r.newFormat(L)
	data := r.checkString(L, 2)
	pos := r.optInt(L, 3, 1)
	if pos <= 0 {
		r.argError(L, 3, "offset must be 1 or greater")
	}
	pos--
	short := func(size int) {
		if size > len(data) || pos > len(data)-size {
			r.argError(L, 2, "data string too short")
		}
	}
	var out []lua.LValue
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.size(opt)
		pos += f.toAlign(pos, opt, size)
		short(size)
		if len(out)+2 > luaMaxCStack {
			r.raise(L, "stack overflow (too many results)")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			var l uint64
			for i := range size {
				c := data[pos+i]
				if f.h.little {
					c = data[pos+size-1-i]
				}
				l = l<<8 | uint64(c)
			}
			v := float64(l)
			if opt >= 'a' { // signed
				mask := ^uint64(0) << ((size*8 - 1) & 63)
				if l&mask != 0 {
					l |= mask
				}
				v = float64(int64(l))
			}
			out = append(out, lua.LNumber(v))
		case 'x':
		case 'f':
			out = append(out, lua.LNumber(math.Float32frombits(uint32(readInt(data[pos:pos+4], f.h.little)))))
		case 'd':
			out = append(out, lua.LNumber(math.Float64frombits(readInt(data[pos:pos+8], f.h.little))))
		case 'c':
			if size == 0 {
				n, ok := lua.LNil, false
				if len(out) > 0 {
					n = out[len(out)-1]
					_, ok = toNumber(n)
				}
				if !ok {
					r.raise(L, "format 'c0' needs a previous size")
				}
				sz, _ := toNumber(n)
				size = int(sz)
				out = out[:len(out)-1]
				short(size)
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				r.raise(L, "unfinished string in data")
			}
			size = e + 1
			out = append(out, lua.LString(data[pos:pos+e]))
		default:
			f.control(opt)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(out) + 1
}

// readInt reads the 4 or 8 bytes of a float or double.
func readInt(b string, little bool) uint64 {
	var v uint64
	for i := range len(b) {
		c := b[i]
		if little {
			c = b[len(b)-1-i]
		}
		v = v<<8 | uint64(c)
	}
	return v
}

func (r *Runtime) structSize(L *lua.LState) int {
	f := r.newFormat(L)
	pos := 0
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.size(opt)
		pos += f.toAlign(pos, opt, size)
		if opt == 's' {
			r.argError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			r.argError(L, 1, "option 'c0' has no fixed size")
		}
		if !(opt >= 'a' && opt <= 'z' || opt >= 'A' && opt <= 'Z' || isDigit(opt)) {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

// Lua 5.1's argument checks, with its messages: "bad argument #2 to
// 'pack' (number expected, got nil)".

// raise fails with msg, where the script called from.
func (r *Runtime) raise(L *lua.LState, msg string) {
	r.errLine = currentLine(L)
	L.RaiseError("%s", msg)
}

// argError is luaL_argerror: argument n of the running function is bad.
func (r *Runtime) argError(L *lua.LState, n int, msg string) {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && dbg.Name != "" {
			name = dbg.Name
		}
	}
	r.raise(L, fmt.Sprintf("bad argument #%d to '%s' (%s)", n, name, msg))
}

// typeError is luaL_typerror.
func (r *Runtime) typeError(L *lua.LState, n int, want string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	r.argError(L, n, want+" expected, got "+got)
}

// toNumber is lua_tonumber: a number, or a string that reads as one.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return str2number(string(v))
	}
	return 0, false
}

func (r *Runtime) checkNumber(L *lua.LState, n int) float64 {
	v, ok := toNumber(L.Get(n))
	if !ok {
		r.typeError(L, n, "number")
	}
	return v
}

func (r *Runtime) checkInt(L *lua.LState, n int) int {
	return int(r.checkNumber(L, n))
}

func (r *Runtime) optInt(L *lua.LState, n, df int) int {
	if L.Get(n) == lua.LNil {
		return df
	}
	return r.checkInt(L, n)
}

// checkString is luaL_checklstring: a string, or a number as Lua writes
// it.
func (r *Runtime) checkString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return luaNumber(float64(v))
	}
	r.typeError(L, n, "string")
	return ""
}

package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's string.format and table.concat, which write numbers as C's
// sprintf and "%.14g" do; gopher-lua's hand their arguments to Go's fmt
// (%g of 1/3 is 0.3333333333333333 there, 0.333333 in C; a missing
// argument prints %!d(MISSING) instead of failing).

// luaFormat is string.format(fmt, ...): Lua 5.1's str_format.
func (r *Runtime) luaFormat(L *lua.LState) int {
	format := r.checkString(L, 1)
	top, arg := L.GetTop(), 1
	var b []byte
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			b = append(b, '%')
			continue
		}
		if arg++; arg > top {
			r.argError(L, arg, "no value")
		}
		spec, n := r.scanFormat(L, format[i:])
		i += n
		conv := byte(0)
		if i < len(format) {
			conv = format[i]
		}
		switch conv {
		case 'c':
			b = append(b, pad(widthOnly(spec), []byte{byte(int32(r.checkNumber(L, arg)))})...)
		case 'd', 'i':
			b = fmt.Appendf(b, "%"+spec+"d", int64(r.checkNumber(L, arg)))
		case 'o', 'u', 'x', 'X':
			verb := conv
			if verb == 'u' {
				verb = 'd'
			}
			b = fmt.Appendf(b, "%"+spec+string(verb), cUnsigned(r.checkNumber(L, arg)))
		case 'e', 'E', 'f', 'g', 'G':
			f := r.checkNumber(L, arg)
			if math.IsInf(f, 0) || math.IsNaN(f) {
				// glibc: inf, -inf, nan, -nan, padded with spaces
				s := luaNumber(f)
				if conv == 'E' || conv == 'G' {
					s = strings.ToUpper(s)
				}
				if s[0] != '-' && strings.ContainsRune(spec, '+') {
					s = "+" + s
				} else if s[0] != '-' && strings.ContainsRune(spec, ' ') {
					s = " " + s
				}
				b = append(b, pad(widthOnly(spec), []byte(s))...)
				break
			}
			if !strings.ContainsRune(spec, '.') {
				spec += ".6" // C's default precision; Go's %g has none
			}
			b = fmt.Appendf(b, "%"+spec+string(conv), f)
		case 'q':
			b = quoted(b, r.checkString(L, arg))
		case 's':
			s := r.checkString(L, arg)
			if !strings.ContainsRune(spec, '.') && len(s) >= 100 {
				b = append(b, s...) // as Lua: a long string is kept whole
				break
			}
			b = append(b, pad(spec, []byte(s))...)
		default:
			r.raise(L, "invalid option '%"+string(conv)+"' to 'format'")
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// scanFormat is Lua's scanformat: the flags, width and precision after
// a '%' (at most two digits each), and how many bytes they take.
func (r *Runtime) scanFormat(L *lua.LState, s string) (string, int) {
	p := 0
	for p < len(s) && strings.IndexByte("-+ #0", s[p]) >= 0 {
		p++
	}
	if p >= len("-+ #0")+1 {
		r.raise(L, "invalid format (repeated flags)")
	}
	digits := func() {
		for range 2 {
			if p < len(s) && '0' <= s[p] && s[p] <= '9' {
				p++
			}
		}
	}
	digits()
	if p < len(s) && s[p] == '.' {
		p++
		digits()
	}
	if p < len(s) && '0' <= s[p] && s[p] <= '9' {
		r.raise(L, "invalid format (width or precision too long)")
	}
	return s[:p], p
}

// pad is C's %s of b under spec: the precision cuts bytes, the width pads
// with spaces (on the right with '-'); bytes, not runes, as C counts.
func pad(spec string, b []byte) []byte {
	left := strings.ContainsRune(spec, '-')
	spec = strings.TrimLeft(spec, "-+ #0")
	width, prec, dot := spec, "", strings.IndexByte(spec, '.')
	if dot >= 0 {
		width, prec = spec[:dot], spec[dot+1:]
		p, _ := strconv.Atoi(prec)
		b = b[:min(len(b), p)]
	}
	w, _ := strconv.Atoi(width)
	if len(b) >= w {
		return b
	}
	fill := []byte(strings.Repeat(" ", w-len(b)))
	if left {
		return append(b, fill...)
	}
	return append(fill, b...)
}

// widthOnly is spec without its precision (and for pad, its flags but
// '-'): C's width for what a precision does not cut.
func widthOnly(spec string) string {
	if dot := strings.IndexByte(spec, '.'); dot >= 0 {
		spec = spec[:dot]
	}
	return spec
}

// cUnsigned is C's (unsigned long) of a double on x86-64: through a
// signed conversion below 2^63, so -1 is 2^64-1.
func cUnsigned(f float64) uint64 {
	if f >= 1<<63 {
		return uint64(int64(f-(1<<63))) + 1<<63
	}
	return uint64(int64(f))
}

// quoted is Lua's %q: s in double quotes, with ", \ and newline escaped
// by a backslash, \r as \r and NUL as \000.
func quoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b = append(b, '\\', c)
		case '\r':
			b = append(b, `\r`...)
		case 0:
			b = append(b, `\000`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// luaConcat is table.concat(t [, sep [, i [, j]]]): Lua 5.1's tconcat,
// numbers written as luaNumber writes them.
func (r *Runtime) luaConcat(L *lua.LState) int {
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = r.checkString(L, 2)
	}
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		r.typeError(L, 1, "table")
	}
	i := r.optInt(L, 3, 1)
	last := t.Len()
	if L.Get(4) != lua.LNil {
		last = r.checkInt(L, 4)
	}
	var b []byte
	for ; i <= last; i++ {
		switch v := t.RawGetInt(i).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = append(b, luaNumber(float64(v))...)
		default:
			r.raise(L, fmt.Sprintf("invalid value (%s) at index %d in table for 'concat'", v.Type(), i))
		}
		if i < last {
			b = append(b, sep...)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

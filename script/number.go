package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/radish-kv/radish/num"
)

// Numbers as Redis's Lua 5.1 reads and writes them, where gopher-lua's
// differ: Lua reads a string with C's strtod (inf, nan, hex, 1e400 are
// numbers) and writes a number with "%.14g" (1/3 is 0.33333333333333,
// 2^53 is 9.007199254741e+15, 1/0 is inf).

// luaNumber is a number as Lua 5.1 on glibc writes it (LUA_NUMBER_FMT).
func luaNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f) && math.Signbit(f):
		return "-nan"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// cSpace is C's isspace.
const cSpace = " \t\n\v\f\r"

// str2number is Lua 5.1's luaO_str2d: the whole of s, but for spaces
// around it, read by C's strtod (decimal or hex, with or without an
// exponent, inf, infinity, nan; out of range is ±inf or 0).
func str2number(s string) (float64, bool) {
	f, _, ok := num.ParseStrtod([]byte(strings.TrimRight(s, cSpace)))
	return f, ok
}

// strtoul is tonumber's reading of s in base (2 to 36), as C's strtoul
// followed by Lua's check that only spaces follow: a sign, and in base 16
// a 0x, may lead; a negative number wraps; too large is ULONG_MAX.
func strtoul(s string, base int) (float64, bool) {
	s = strings.TrimLeft(s, cSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if base == 16 && len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digitIn(s[2], base) {
		s = s[2:]
	}
	n := 0
	for n < len(s) && digitIn(s[n], base) {
		n++
	}
	if n == 0 || strings.Trim(s[n:], cSpace) != "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:n], base, 64)
	if err != nil {
		v = math.MaxUint64
	}
	if neg {
		v = -v
	}
	return float64(v), true
}

// digitIn reports whether c is a digit of base.
func digitIn(c byte, base int) bool {
	var d int
	switch {
	case '0' <= c && c <= '9':
		d = int(c - '0')
	case 'a' <= c && c <= 'z':
		d = int(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		d = int(c-'A') + 10
	default:
		return false
	}
	return d < base
}

// luaToNumber is Lua 5.1's tonumber(e [, base]).
func (r *Runtime) luaToNumber(L *lua.LState) int {
	base := 10
	if L.Get(2) != lua.LNil {
		base = r.checkInt(L, 2)
	}
	v := r.checkAny(L, 1)
	if base == 10 {
		if f, ok := toNumber(v); ok {
			L.Push(lua.LNumber(f))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}
	str := r.checkString(L, 1)
	if base < 2 || base > 36 {
		r.argError(L, 2, "base out of range")
	}
	if f, ok := strtoul(str, base); ok {
		L.Push(lua.LNumber(f))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// luaToString is Lua 5.1's tostring(v): a number as luaNumber writes it,
// anything else as gopher-lua does (with its __tostring).
func (r *Runtime) luaToString(L *lua.LState) int {
	v := r.checkAny(L, 1)
	if n, ok := v.(lua.LNumber); ok {
		L.Push(lua.LString(luaNumber(float64(n))))
		return 1
	}
	L.Push(L.ToStringMeta(v))
	return 1
}

// checkAny is luaL_checkany: argument n, which must be given.
func (r *Runtime) checkAny(L *lua.LState, n int) lua.LValue {
	if n > L.GetTop() {
		r.argError(L, n, "value expected")
	}
	return L.Get(n)
}

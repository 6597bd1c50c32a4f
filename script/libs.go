package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// The libraries Redis loads beside Lua's own: bit (LuaBitOp: 32-bit
// operations on numbers, results signed) and cjson (encode and decode,
// with cjson's defaults: 14 significant digits, "/" escaped, sparse
// arrays refused beyond a ratio of 2 past index 10, cjson.null for JSON's
// null).

// openBit installs the bit library.
func openBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	arg := func(L *lua.LState, i int) uint32 { return tobit(float64(L.CheckNumber(i))) }
	ret := func(L *lua.LState, v uint32) int {
		L.Push(lua.LNumber(int32(v)))
		return 1
	}
	fold := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			v := arg(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v = op(v, arg(L, i))
			}
			return ret(L, v)
		}
	}
	shift := func(op func(a uint32, n uint) uint32) lua.LGFunction {
		return func(L *lua.LState) int { return ret(L, op(arg(L, 1), uint(arg(L, 2)&31))) }
	}
	L.SetFuncs(t, map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return ret(L, arg(L, 1)) },
		"bnot":    func(L *lua.LState) int { return ret(L, ^arg(L, 1)) },
		"band":    fold(func(a, b uint32) uint32 { return a & b }),
		"bor":     fold(func(a, b uint32) uint32 { return a | b }),
		"bxor":    fold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  shift(func(a uint32, n uint) uint32 { return a << n }),
		"rshift":  shift(func(a uint32, n uint) uint32 { return a >> n }),
		"arshift": shift(func(a uint32, n uint) uint32 { return uint32(int32(a) >> n) }),
		"rol":     shift(func(a uint32, n uint) uint32 { return a<<n | a>>(32-n) }),
		"ror":     shift(func(a uint32, n uint) uint32 { return a>>n | a<<(32-n) }),
		"bswap": func(L *lua.LState) int {
			v := arg(L, 1)
			return ret(L, v>>24|v>>8&0xff00|v<<8&0xff0000|v<<24)
		},
		"tohex": func(L *lua.LState) int {
			v := arg(L, 1)
			n := 8
			if L.GetTop() >= 2 {
				n = int(int32(arg(L, 2)))
			}
			digits := "0123456789abcdef"
			if n < 0 {
				n, digits = -n, "0123456789ABCDEF"
			}
			n = min(n, 8)
			b := make([]byte, n)
			for i := n - 1; i >= 0; i-- {
				b[i] = digits[v&15]
				v >>= 4
			}
			L.Push(lua.LString(b))
			return 1
		},
	})
	return t
}

// tobit is LuaBitOp's conversion: the number modulo 2^32.
func tobit(f float64) uint32 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return uint32(int64(math.Mod(math.Trunc(f), 1<<32)))
}

// openCJSON installs the cjson library.
func openCJSON(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	null := L.NewUserData()
	t.RawSetString("null", null)
	L.SetFuncs(t, map[string]lua.LGFunction{
		"encode": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				L.ArgError(1, "expected 1 argument")
			}
			var b strings.Builder
			if err := jsonEncode(&b, L.Get(1), null, 0); err != "" {
				L.RaiseError("%s", err)
			}
			L.Push(lua.LString(b.String()))
			return 1
		},
		"decode": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				L.ArgError(1, "expected 1 argument")
			}
			d := jsonDecoder{L: L, s: L.CheckString(1), null: null}
			v := d.value()
			if d.err == "" {
				if tok, _ := d.next(); tok != "T_END" {
					d.fail("the end", tok)
				}
			}
			if d.err != "" {
				L.RaiseError("%s", d.err)
			}
			L.Push(v)
			return 1
		},
	})
	return t
}

func jsonEncode(b *strings.Builder, v lua.LValue, null *lua.LUserData, depth int) string {
	if depth > 1000 {
		return fmt.Sprintf("Cannot serialise, excessive nesting (%d)", depth)
	}
	switch v := v.(type) {
	case *lua.LNilType:
		b.WriteString("null")
	case lua.LBool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "Cannot serialise number: must not be NaN or Inf"
		}
		b.WriteString(fmt.Sprintf("%.14g", f))
	case lua.LString:
		jsonString(b, string(v))
	case *lua.LUserData:
		if v != null {
			return "Cannot serialise userdata: type not supported"
		}
		b.WriteString("null")
	case *lua.LTable:
		return jsonTable(b, v, null, depth)
	default:
		return "Cannot serialise " + v.Type().String() + ": type not supported"
	}
	return ""
}

func jsonTable(b *strings.Builder, t *lua.LTable, null *lua.LUserData, depth int) string {
	n, count, array := 0, 0, true
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		count++
		f, ok := k.(lua.LNumber)
		if !ok || float64(f) < 1 || float64(f) != math.Floor(float64(f)) {
			array = false
			continue
		}
		n = max(n, int(f))
	}
	if array && count > 0 {
		if n > 10 && n > 2*count {
			return "Cannot serialise table: excessively sparse array"
		}
		b.WriteByte('[')
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			if err := jsonEncode(b, t.RawGetInt(i), null, depth+1); err != "" {
				return err
			}
		}
		b.WriteByte(']')
		return ""
	}
	b.WriteByte('{')
	first := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		switch k := k.(type) {
		case lua.LString:
			jsonString(b, string(k))
		case lua.LNumber:
			jsonString(b, fmt.Sprintf("%.14g", float64(k)))
		default:
			return "Cannot serialise table: table key must be a number or string"
		}
		b.WriteByte(':')
		if err := jsonEncode(b, v, null, depth+1); err != "" {
			return err
		}
	}
	b.WriteByte('}')
	return ""
}

// jsonString writes s quoted as cjson does ("/" and DEL escaped too).
func jsonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '/':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// jsonDecoder is cjson.decode's parser; errors name cjson's tokens.
type jsonDecoder struct {
	L    *lua.LState
	s    string
	i    int
	null *lua.LUserData
	err  string
	val  lua.LValue // the last scalar token's value
	at   int        // where the last token began
}

// next reads a token: its name (cjson's T_...) and where it began.
func (d *jsonDecoder) next() (string, int) {
	for d.i < len(d.s) && strings.IndexByte(" \t\r\n", d.s[d.i]) >= 0 {
		d.i++
	}
	at := d.i
	d.at = at
	if d.i == len(d.s) {
		return "T_END", at
	}
	c := d.s[d.i]
	switch {
	case c == '{':
		d.i++
		return "T_OBJ_BEGIN", at
	case c == '}':
		d.i++
		return "T_OBJ_END", at
	case c == '[':
		d.i++
		return "T_ARR_BEGIN", at
	case c == ']':
		d.i++
		return "T_ARR_END", at
	case c == ',':
		d.i++
		return "T_COMMA", at
	case c == ':':
		d.i++
		return "T_COLON", at
	case c == '"':
		if s, ok := d.str(); ok {
			d.val = lua.LString(s)
			return "T_STRING", at
		}
	case c == '-' || c >= '0' && c <= '9':
		j := d.i + 1
		for j < len(d.s) && strings.IndexByte("0123456789.eE+-", d.s[j]) >= 0 {
			j++
		}
		if f, err := strconv.ParseFloat(d.s[d.i:j], 64); err == nil {
			d.i = j
			d.val = lua.LNumber(f)
			return "T_NUMBER", at
		}
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		d.val = lua.LTrue
		return "T_BOOLEAN", at
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		d.val = lua.LFalse
		return "T_BOOLEAN", at
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		d.val = d.null
		return "T_NULL", at
	}
	return "invalid token", at
}

// str reads a quoted string at d.i.
func (d *jsonDecoder) str() (string, bool) {
	var b strings.Builder
	for j := d.i + 1; j < len(d.s); j++ {
		c := d.s[j]
		switch {
		case c == '"':
			d.i = j + 1
			return b.String(), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		j++
		if j == len(d.s) {
			return "", false
		}
		switch e := d.s[j]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if j+4 >= len(d.s) {
				return "", false
			}
			r, err := strconv.ParseUint(d.s[j+1:j+5], 16, 32)
			if err != nil {
				return "", false
			}
			j += 4
			if r >= 0xd800 && r < 0xdc00 && j+6 < len(d.s) && d.s[j+1] == '\\' && d.s[j+2] == 'u' {
				if lo, err := strconv.ParseUint(d.s[j+3:j+7], 16, 32); err == nil && lo >= 0xdc00 && lo < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
					j += 6
				}
			}
			b.WriteRune(rune(r))
			if !utf8.ValidRune(rune(r)) {
				return "", false
			}
		default:
			return "", false
		}
	}
	return "", false
}

func (d *jsonDecoder) fail(want, tok string) {
	if d.err == "" {
		d.err = fmt.Sprintf("Expected %s but found %s at character %d", want, tok, d.at+1)
	}
}

// value reads one JSON value.
func (d *jsonDecoder) value() lua.LValue {
	tok, at := d.next()
	switch tok {
	case "T_STRING", "T_NUMBER", "T_BOOLEAN", "T_NULL":
		return d.val
	case "T_ARR_BEGIN":
		t := d.L.NewTable()
		save := d.i
		if tok, _ := d.next(); tok == "T_ARR_END" {
			return t
		}
		d.i = save
		for n := 1; ; n++ {
			v := d.value()
			if d.err != "" {
				return lua.LNil
			}
			t.RawSetInt(n, v)
			switch tok, _ := d.next(); tok {
			case "T_COMMA":
			case "T_ARR_END":
				return t
			default:
				d.fail("comma or array end", tok)
				return lua.LNil
			}
		}
	case "T_OBJ_BEGIN":
		t := d.L.NewTable()
		save := d.i
		if tok, _ := d.next(); tok == "T_OBJ_END" {
			return t
		}
		d.i = save
		for {
			tok, _ := d.next()
			if tok != "T_STRING" {
				d.fail("object key string", tok)
				return lua.LNil
			}
			k := d.val
			if tok, _ := d.next(); tok != "T_COLON" {
				d.fail("colon", tok)
				return lua.LNil
			}
			v := d.value()
			if d.err != "" {
				return lua.LNil
			}
			t.RawSet(k, v)
			switch tok, _ := d.next(); tok {
			case "T_COMMA":
			case "T_OBJ_END":
				return t
			default:
				d.fail("comma or object end", tok)
				return lua.LNil
			}
		}
	}
	d.at = at
	d.fail("value", tok)
	return lua.LNil
}

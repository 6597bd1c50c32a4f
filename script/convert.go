package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/radish-kv/radish/net/resp"
)

// Conversions between RESP and Lua, as Redis documents them.
//
// RESP to Lua (a command's reply, for redis.call and redis.pcall):
// integer -> number, bulk string -> string, array -> table, status ->
// {ok=...}, error -> {err=...}, RESP2 nulls -> false. Under
// redis.setresp(3) the RESP3 types too: map -> {map={...}}, set ->
// {set={member=true}}, null -> nil, double -> {double=n}, boolean ->
// boolean, big number -> {big_number="..."}, verbatim string ->
// {verbatim_string={format=..., string=...}}; attributes are skipped.
//
// Lua to RESP (the script's result): number -> integer (truncated),
// string -> bulk, table -> array up to its first nil, {ok=...} -> status,
// {err=...} -> error, {map=}, {set=}, {double=}, {big_number=},
// {verbatim_string=} -> their RESP3 types (their RESP2 forms for a RESP2
// client), nil -> null, true -> 1 and false -> null while the script
// speaks RESP2, RESP3 booleans after redis.setresp(3).

// smallNumbers are the Lua numbers 0 to 255 as values: an integer reply
// that small allocates nothing.
var smallNumbers = func() (v [256]lua.LValue) {
	for i := range v {
		v[i] = lua.LNumber(i)
	}
	return v
}()

// lastString is the last short Lua string made from a reply's bytes, made
// again from equal bytes at no cost (a Lua string is a value: which copy
// a script gets cannot be told).
type lastString struct{ v lua.LValue }

// maxLastString is the longest string a lastString keeps.
const maxLastString = 64

func (c *lastString) of(b []byte) lua.LValue {
	if s, ok := c.v.(lua.LString); ok && string(s) == string(b) {
		return c.v
	}
	v := lua.LValue(lua.LString(b))
	if len(b) <= maxLastString {
		c.v = v
	}
	return v
}

// toLua reads one RESP value from b at i and returns it as a Lua value and
// the index after it. b is a reply the server wrote, so it is well formed.
func (r *Runtime) toLua(b []byte, i int) (lua.LValue, int) {
	L := r.L
	t := b[i]
	j := i + 1
	for b[j] != '\r' {
		j++
	}
	line := b[i+1 : j]
	next := j + 2
	switch t {
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		if n >= 0 && n < int64(len(smallNumbers)) {
			return smallNumbers[n], next
		}
		return lua.LNumber(n), next
	case '$':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, next
		}
		return r.bulk.of(b[next : next+n]), next + n + 2
	case '+':
		tb := L.CreateTable(0, 1)
		tb.RawSetString("ok", r.status.of(line))
		return tb, next
	case '-':
		tb := L.CreateTable(0, 1)
		tb.RawSetString("err", lua.LString(line))
		return tb, next
	case '*', '~', '>':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, next
		}
		if t == '~' {
			set := L.CreateTable(0, n)
			for k := 0; k < n; k++ {
				var v lua.LValue
				v, next = r.toLua(b, next)
				set.RawSet(v, lua.LTrue)
			}
			tb := L.CreateTable(0, 1)
			tb.RawSetString("set", set)
			return tb, next
		}
		tb := L.CreateTable(n, 0)
		for k := 1; k <= n; k++ {
			var v lua.LValue
			v, next = r.toLua(b, next)
			tb.RawSetInt(k, v)
		}
		return tb, next
	case '%':
		n, _ := strconv.Atoi(string(line))
		m := L.CreateTable(0, n)
		for k := 0; k < n; k++ {
			var key, v lua.LValue
			key, next = r.toLua(b, next)
			v, next = r.toLua(b, next)
			m.RawSet(key, v)
		}
		tb := L.CreateTable(0, 1)
		tb.RawSetString("map", m)
		return tb, next
	case '|':
		n, _ := strconv.Atoi(string(line))
		for k := 0; k < 2*n; k++ {
			_, next = r.toLua(b, next)
		}
		return r.toLua(b, next)
	case '_':
		return lua.LNil, next
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), next
	case ',':
		f, _ := strconv.ParseFloat(string(line), 64)
		tb := L.CreateTable(0, 1)
		tb.RawSetString("double", lua.LNumber(f))
		return tb, next
	case '(':
		tb := L.CreateTable(0, 1)
		tb.RawSetString("big_number", lua.LString(line))
		return tb, next
	case '=':
		n, _ := strconv.Atoi(string(line))
		s := b[next : next+n]
		v := L.CreateTable(0, 2)
		v.RawSetString("format", lua.LString(s[:min(3, len(s))]))
		if len(s) >= 4 {
			v.RawSetString("string", lua.LString(s[4:]))
		} else {
			v.RawSetString("string", lua.LString(""))
		}
		tb := L.CreateTable(0, 1)
		tb.RawSetString("verbatim_string", v)
		return tb, next + n + 2
	}
	return lua.LNil, next
}

// maxDepth is how deep writeLua follows nested tables, as Redis's
// LUA_CMD_OBJCACHE... bound: a reply nested deeper is an error.
const maxDepth = 1000

// writeLua writes v, a script's result, to w (the client's protocol);
// resp3 is whether the script called redis.setresp(3).
func writeLua(w *resp.Writer, v lua.LValue, resp3 bool, depth int) {
	if depth > maxDepth {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		switch {
		case resp3:
			w.Bool(bool(v))
		case bool(v):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(luaInt(float64(v)))
	case *lua.LTable:
		writeTable(w, v, resp3, depth)
	default:
		w.Null()
	}
}

// luaInt truncates f as C's (long long) cast does on x86: out of range
// and NaN give the smallest integer.
func luaInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775807 || f < -9223372036854775808 {
		return math.MinInt64
	}
	return int64(f)
}

func writeTable(w *resp.Writer, t *lua.LTable, resp3 bool, depth int) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		w.Error(errorText(string(e)))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Simple(stripLines(string(s)))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		if w.Proto == 3 {
			w.B = append(w.B, '(')
			w.B = append(w.B, stripLines(string(s))...)
			w.B = append(w.B, '\r', '\n')
		} else {
			w.BulkString(string(s))
		}
		return
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		w.Map(count(m))
		for k, v := m.Next(lua.LNil); k != lua.LNil; k, v = m.Next(k) {
			writeLua(w, k, resp3, depth+1)
			writeLua(w, v, resp3, depth+1)
		}
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		w.Set(count(s))
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			writeLua(w, k, resp3, depth+1)
		}
		return
	}
	if v, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, _ := v.RawGetString("format").(lua.LString)
		s, _ := v.RawGetString("string").(lua.LString)
		w.Verbatim(string(f), []byte(s))
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		writeLua(w, t.RawGetInt(i), resp3, depth+1)
	}
}

// count is the number of entries of t. Maps and sets are written in
// the order their entries were made (a command's reply converted: its own
// order); Redis writes them in the order of Lua's hash.
func count(t *lua.LTable) int {
	n := 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n++
	}
	return n
}

// errorText is an {err=...} as an error reply's text, on one line.
func errorText(s string) string { return stripLines(s) }

// errorReply is redis.error_reply's text for s, as Redis derives it: a
// leading "-" is dropped, and a text whose first word is not followed by
// a space gets the code ERR.
func errorReply(s string) string {
	if s == "" || s[0] != '-' {
		s = "-" + s
	}
	s = s[1:]
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s
	}
	return "ERR " + s
}

// stripLines replaces CR and LF with spaces, as Redis does for status and
// error replies built from script values.
func stripLines(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] == '\r' || b[j] == '\n' {
					b[j] = ' '
				}
			}
			return string(b)
		}
	}
	return s
}

package resp

import (
	"bytes"
	"strconv"
)

// Value is one decoded reply.
//
// Type is the RESP type byte and selects the fields that are set:
//   - '+' simple string, '-' simple error, '!' blob error: Str (for errors
//     the text with its code, without the '-': "ERR syntax error").
//   - ':' integer: Int. '#' boolean: Int is 1 or 0.
//   - '$' bulk string: Str, or Null for "$-1".
//   - '=' verbatim string: Str is the whole payload including the
//     three-byte format and the colon ("txt:hello").
//   - ',' double, '(' big number: Str is the text as received ("1.5",
//     "inf", "-12345678901234567890"); see Value.Float.
//   - '*' array: Elems, or Null for "*-1". '~' set, '>' push: Elems.
//   - '%' map, '|' attribute: Elems holds keys and values alternately
//     (2 per entry).
//   - '_' null: Null is true.
//
// Str slices alias the buffer given to ReadReply: valid until that buffer
// is modified. Elems is freshly allocated.
type Value struct {
	Type  byte
	Str   []byte
	Int   int64
	Elems []Value
	Null  bool
}

// Float parses a ',' double (or any numeric Str/Int) as a float64.
func (v Value) Float() (float64, error) {
	switch v.Type {
	case ':', '#':
		return float64(v.Int), nil
	}
	return strconv.ParseFloat(string(v.Str), 64)
}

// maxReplyDepth bounds nesting so hostile input cannot grow the stack.
const maxReplyDepth = 1000

var (
	errReplyType   = &ProtocolError{"ERR Protocol error: invalid reply type"}
	errReplyLine   = &ProtocolError{"ERR Protocol error: invalid reply line"}
	errReplyLen    = &ProtocolError{"ERR Protocol error: invalid reply length"}
	errReplyInt    = &ProtocolError{"ERR Protocol error: invalid integer reply"}
	errReplyBool   = &ProtocolError{"ERR Protocol error: invalid boolean reply"}
	errReplyDepth  = &ProtocolError{"ERR Protocol error: reply nested too deeply"}
	errReplyStream = &ProtocolError{"ERR Protocol error: streamed RESP3 replies are not supported"}
)

// ReadReply parses one reply of any RESP2 or RESP3 type from the front of
// b. n is the number of bytes consumed. n == 0 && err == nil: b holds no
// complete reply yet. A large declared length never causes a large
// allocation: it is only "incomplete" until the bytes are there. Integers,
// lengths and counts accept an optional sign and leading zeros. Attributes
// ('|') are returned as a value of their own; the reply they annotate is
// the next one. Inside an aggregate an attribute is dropped and the
// element after it, which it annotates, takes its place. Streamed strings
// and aggregates ("$?", "*?") are errors.
func ReadReply(b []byte) (v Value, n int, err error) {
	return readValue(b, 0)
}

// line returns the bytes of b[1:] before the first CRLF, the index after
// it, or ok == false with err == nil when the CRLF has not arrived yet.
func line(b []byte) (l []byte, next int, err error) {
	cr := bytes.IndexByte(b, '\r')
	if cr < 0 || cr+1 >= len(b) {
		return nil, 0, nil
	}
	if b[cr+1] != '\n' {
		return nil, 0, errReplyLine
	}
	return b[1:cr], cr + 2, nil
}

// parseInt is a reply's lenient integer: an optional sign and decimal
// digits, leading zeros allowed, no overflow (what strconv.ParseInt takes
// in base 10; the conversion does not escape, so it does not allocate).
func parseInt(b []byte) (int64, bool) {
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}

func readValue(b []byte, depth int) (Value, int, error) {
	if len(b) == 0 {
		return Value{}, 0, nil
	}
	t := b[0]
	switch t {
	case '+', '-', ':', ',', '#', '(', '_':
		l, next, err := line(b)
		if next == 0 {
			return Value{}, 0, err
		}
		v := Value{Type: t}
		switch t {
		case '+', '-':
			v.Str = l
		case ',':
			if len(l) == 0 {
				return Value{}, 0, errReplyLine
			}
			v.Str = l
		case '(':
			if _, ok := parseBig(l); !ok {
				return Value{}, 0, errReplyInt
			}
			v.Str = l
		case ':':
			i, ok := parseInt(l)
			if !ok {
				return Value{}, 0, errReplyInt
			}
			v.Int = i
		case '#':
			if len(l) != 1 || (l[0] != 't' && l[0] != 'f') {
				return Value{}, 0, errReplyBool
			}
			if l[0] == 't' {
				v.Int = 1
			}
		case '_':
			if len(l) != 0 {
				return Value{}, 0, errReplyLine
			}
			v.Null = true
		}
		return v, next, nil

	case '$', '=', '!':
		l, next, err := line(b)
		if next == 0 {
			return Value{}, 0, err
		}
		if len(l) == 1 && l[0] == '?' {
			return Value{}, 0, errReplyStream
		}
		ln, ok := parseInt(l)
		if !ok || ln < -1 || (ln == -1 && t != '$') {
			return Value{}, 0, errReplyLen
		}
		if ln == -1 {
			return Value{Type: t, Null: true}, next, nil
		}
		if int64(len(b)-next) < ln+2 {
			return Value{}, 0, nil
		}
		end := next + int(ln)
		if b[end] != '\r' || b[end+1] != '\n' {
			return Value{}, 0, errReplyLine
		}
		if t == '=' && (ln < 4 || b[next+3] != ':') {
			return Value{}, 0, errReplyLen
		}
		return Value{Type: t, Str: b[next:end:end]}, end + 2, nil

	case '*', '%', '~', '>', '|':
		l, next, err := line(b)
		if next == 0 {
			return Value{}, 0, err
		}
		if len(l) == 1 && l[0] == '?' {
			return Value{}, 0, errReplyStream
		}
		cnt, ok := parseInt(l)
		if !ok || cnt < -1 || (cnt == -1 && t != '*') {
			return Value{}, 0, errReplyLen
		}
		if cnt == -1 {
			return Value{Type: t, Null: true}, next, nil
		}
		if depth >= maxReplyDepth {
			return Value{}, 0, errReplyDepth
		}
		if t == '%' || t == '|' {
			if cnt > 1<<61 {
				return Value{}, 0, errReplyLen
			}
			cnt *= 2
		}
		// Every element takes at least 3 bytes ("_\r\n"): more than that
		// can only be incomplete, so never allocate for it.
		rest := int64(len(b) - next)
		if cnt > rest/3 {
			return Value{}, 0, nil
		}
		v := Value{Type: t, Elems: make([]Value, cnt)}
		pos := next
		for i := range v.Elems {
			for {
				e, m, err := readValue(b[pos:], depth+1)
				if m == 0 {
					return Value{}, 0, err
				}
				pos += m
				if e.Type != '|' {
					v.Elems[i] = e
					break
				}
			}
		}
		return v, pos, nil
	}
	return Value{}, 0, errReplyType
}

// parseBig checks a big number: [+-]digits.
func parseBig(b []byte) ([]byte, bool) {
	d := b
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		d = d[1:]
	}
	if len(d) == 0 {
		return nil, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	return b, true
}

// AppendValue re-encodes v into w, converting RESP3-only types for a RESP2
// writer the way Redis does: map -> flat array, set/push -> array, double
// and big number -> bulk string, boolean -> integer, verbatim -> bulk
// string of the text after "fmt:", blob error -> simple error, null ->
// "$-1" ('_' and '$') or "*-1" ('*'); attributes are dropped. A map or
// attribute with an odd number of Elems writes only the complete pairs. A
// Value with an unknown Type is written as an error reply.
func AppendValue(w *Writer, v Value) {
	switch v.Type {
	case '+':
		w.appendLineBytes('+', v.Str)
	case '-':
		w.appendLineBytes('-', v.Str)
	case '!':
		if w.resp3() {
			w.header('!', int64(len(v.Str)))
			w.B = append(w.B, v.Str...)
			w.crlf()
		} else {
			w.appendLineBytes('-', v.Str)
		}
	case ':':
		w.Int(v.Int)
	case '#':
		w.Bool(v.Int != 0)
	case '$':
		if v.Null {
			w.Null()
		} else {
			w.Bulk(v.Str)
		}
	case '=':
		switch {
		case !w.resp3() && len(v.Str) >= 4:
			w.Bulk(v.Str[4:])
		case !w.resp3():
			w.Bulk(v.Str)
		default:
			w.header('=', int64(len(v.Str)))
			w.B = append(w.B, v.Str...)
			w.crlf()
		}
	case ',', '(':
		if w.resp3() {
			w.appendLineBytes(v.Type, v.Str)
		} else {
			w.Bulk(v.Str)
		}
	case '_':
		w.Null()
	case '*':
		if v.Null {
			w.NullArray()
			return
		}
		w.Array(len(v.Elems))
		appendElems(w, v.Elems)
	case '~':
		w.Set(len(v.Elems))
		appendElems(w, v.Elems)
	case '>':
		w.Push(len(v.Elems))
		appendElems(w, v.Elems)
	case '%':
		n := len(v.Elems) / 2
		w.Map(n)
		appendElems(w, v.Elems[:2*n])
	case '|':
		if w.resp3() {
			n := len(v.Elems) / 2
			w.header('|', int64(n))
			appendElems(w, v.Elems[:2*n])
		}
	default:
		w.Error("ERR invalid reply value")
	}
}

func appendElems(w *Writer, elems []Value) {
	for i := range elems {
		AppendValue(w, elems[i])
	}
}

package resp

import (
	"strconv"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// Writer appends encoded replies to B. Proto is 3 for RESP3; any other
// value (including the zero value) means RESP2, and RESP3-only types are
// written the way Redis writes them to a RESP2 client. Writer methods never
// allocate except to grow B, never keep references to their arguments, and
// write aggregate headers only: the caller writes exactly the announced
// number of elements after Array, Map (2 per entry), Set and Push.
type Writer struct {
	B     []byte
	Proto int
}

func (w *Writer) resp3() bool { return w.Proto == 3 }

func (w *Writer) crlf() { w.B = append(w.B, '\r', '\n') }

// appendLine appends prefix, s with CR and LF replaced by spaces, CRLF, so
// a status or error can never break the framing.
func (w *Writer) appendLine(prefix byte, s string) {
	w.B = append(w.B, prefix)
	i := len(w.B)
	w.B = append(w.B, s...)
	sanitize(w.B[i:])
	w.crlf()
}

func (w *Writer) appendLineBytes(prefix byte, s []byte) {
	w.B = append(w.B, prefix)
	i := len(w.B)
	w.B = append(w.B, s...)
	sanitize(w.B[i:])
	w.crlf()
}

func sanitize(b []byte) {
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
}

func (w *Writer) header(prefix byte, n int64) {
	switch {
	case uint64(n) < 10:
		w.B = append(w.B, prefix, byte('0'+n), '\r', '\n')
		return
	case uint64(n) < 100:
		w.B = append(w.B, prefix, byte('0'+n/10), byte('0'+n%10), '\r', '\n')
		return
	}
	w.B = append(w.B, prefix)
	w.B = strconv.AppendInt(w.B, n, 10)
	w.crlf()
}

// Simple writes a status reply: "+s\r\n". CR/LF in s become spaces.
func (w *Writer) Simple(s string) { w.appendLine('+', s) }

// OK writes "+OK\r\n".
func (w *Writer) OK() { w.B = append(w.B, "+OK\r\n"...) }

// Error writes an error reply. s is the full text with its code, e.g.
// "ERR syntax error" -> "-ERR syntax error\r\n"; a leading '-' in s is not
// doubled. CR/LF in s become spaces (as Redis's addReplyErrorFormat does).
func (w *Writer) Error(s string) {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	w.appendLine('-', s)
}

// WrongArgs writes ErrWrongArgs(cmd) without allocating.
func (w *Writer) WrongArgs(cmd string) {
	w.B = append(w.B, '-')
	w.B = append(w.B, errtext.WrongArgs...)
	w.appendLower(cmd)
	w.B = append(w.B, errtext.WrongArgsEnd...)
	w.crlf()
}

func (w *Writer) appendLower(cmd string) {
	if len(cmd) > 128 {
		cmd = cmd[:128] // Redis prints '%.128s'
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		} else if c == '\r' || c == '\n' {
			c = ' '
		}
		w.B = append(w.B, c)
	}
}

// ErrWrongArgs returns Redis's arity error text for cmd (its table name,
// e.g. "get" or "config|get"; lowercased, at most 128 bytes of it):
// "ERR wrong number of arguments for 'get' command".
func ErrWrongArgs(cmd string) string {
	var w Writer
	w.WrongArgs(cmd)
	return string(w.B[1 : len(w.B)-2])
}

// UnknownCommand writes Redis 7's reply to an unknown command name args[0]:
// "-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n".
// Like Redis it quotes arguments until 128 bytes of them are written and
// truncates the last one to fit.
func (w *Writer) UnknownCommand(args [][]byte) {
	start := len(w.B)
	w.B = append(w.B, "-ERR unknown command '"...)
	if len(args) > 0 {
		name := args[0]
		if len(name) > 128 {
			name = name[:128]
		}
		w.B = append(w.B, cstr(name)...)
	}
	w.B = append(w.B, "', with args beginning with: "...)
	n := 0
	for i := 1; i < len(args) && n < 128; i++ {
		a := cstr(args[i])
		if len(a) > 128-n {
			a = a[:128-n]
		}
		w.B = append(w.B, '\'')
		w.B = append(w.B, a...)
		w.B = append(w.B, '\'', ' ')
		n += len(a) + 3
	}
	sanitize(w.B[start:])
	w.crlf()
}

// cstr cuts b at its first NUL, as C's %s does.
func cstr(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// Int writes ":n\r\n".
func (w *Writer) Int(n int64) { w.header(':', n) }

// IntOrNull writes Int(n) when ok, otherwise Null().
func (w *Writer) IntOrNull(n int64, ok bool) {
	if ok {
		w.Int(n)
	} else {
		w.Null()
	}
}

// Bulk writes a bulk string. A nil or empty b is the empty string
// "$0\r\n\r\n", not a null: use Null or BulkOrNull for that.
func (w *Writer) Bulk(b []byte) {
	w.header('$', int64(len(b)))
	w.B = append(w.B, b...)
	w.crlf()
}

// BulkString is Bulk for a string.
func (w *Writer) BulkString(s string) {
	w.header('$', int64(len(s)))
	w.B = append(w.B, s...)
	w.crlf()
}

// BulkOrNull writes Bulk(b) when ok, otherwise Null().
func (w *Writer) BulkOrNull(b []byte, ok bool) {
	if ok {
		w.Bulk(b)
	} else {
		w.Null()
	}
}

// ArrayOfBulks writes an array of bulk strings.
func (w *Writer) ArrayOfBulks(items [][]byte) {
	w.Array(len(items))
	for _, b := range items {
		w.Bulk(b)
	}
}

// Null writes a null bulk string: RESP2 "$-1\r\n", RESP3 "_\r\n".
func (w *Writer) Null() {
	if w.resp3() {
		w.B = append(w.B, "_\r\n"...)
	} else {
		w.B = append(w.B, "$-1\r\n"...)
	}
}

// NullArray writes a null array: RESP2 "*-1\r\n", RESP3 "_\r\n".
func (w *Writer) NullArray() {
	if w.resp3() {
		w.B = append(w.B, "_\r\n"...)
	} else {
		w.B = append(w.B, "*-1\r\n"...)
	}
}

// Array writes an array header "*n\r\n"; n elements must follow.
func (w *Writer) Array(n int) { w.header('*', int64(n)) }

// Map writes a map header for n key/value pairs: RESP3 "%n\r\n", RESP2
// "*2n\r\n". 2n elements must follow.
func (w *Writer) Map(n int) {
	if w.resp3() {
		w.header('%', int64(n))
	} else {
		w.header('*', 2*int64(n))
	}
}

// Set writes a set header: RESP3 "~n\r\n", RESP2 "*n\r\n".
func (w *Writer) Set(n int) {
	if w.resp3() {
		w.header('~', int64(n))
	} else {
		w.header('*', int64(n))
	}
}

// Push writes a push header: RESP3 ">n\r\n", RESP2 "*n\r\n".
func (w *Writer) Push(n int) {
	if w.resp3() {
		w.header('>', int64(n))
	} else {
		w.header('*', int64(n))
	}
}

// Double writes f as Redis 7.0's addReplyDouble does (num.AppendDouble's
// "%.17g" text): RESP3 ",<text>\r\n" (",inf", ",-inf"), RESP2 a bulk
// string of the same text.
func (w *Writer) Double(f float64) {
	if w.resp3() {
		w.B = append(w.B, ',')
		w.B = num.AppendDouble(w.B, f)
		w.crlf()
		return
	}
	var tmp [32]byte
	t := num.AppendDouble(tmp[:0], f)
	w.header('$', int64(len(t)))
	w.B = append(w.B, t...)
	w.crlf()
}

// Bool writes RESP3 "#t\r\n"/"#f\r\n", RESP2 ":1\r\n"/":0\r\n".
func (w *Writer) Bool(b bool) {
	switch {
	case w.resp3() && b:
		w.B = append(w.B, "#t\r\n"...)
	case w.resp3():
		w.B = append(w.B, "#f\r\n"...)
	case b:
		w.B = append(w.B, ":1\r\n"...)
	default:
		w.B = append(w.B, ":0\r\n"...)
	}
}

// Verbatim writes a verbatim string: RESP3 "=len\r\nfmt:s\r\n", RESP2 a
// bulk string of s. format should be 3 bytes ("txt", "mkd"); it is cut or
// padded with spaces to 3 so the framing is always right.
func (w *Writer) Verbatim(format string, s []byte) {
	if !w.resp3() {
		w.Bulk(s)
		return
	}
	w.header('=', int64(len(s)+4))
	for i := 0; i < 3; i++ {
		c := byte(' ')
		if i < len(format) {
			c = format[i]
		}
		w.B = append(w.B, c)
	}
	w.B = append(w.B, ':')
	w.B = append(w.B, s...)
	w.crlf()
}

// Raw appends b unchanged: pre-encoded replies (e.g. from another shard).
func (w *Writer) Raw(b []byte) { w.B = append(w.B, b...) }

// AppendCommand appends args as a RESP multibulk request
// ("*N\r\n$len\r\narg\r\n..."), the form Reader.Next parses back.
func AppendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

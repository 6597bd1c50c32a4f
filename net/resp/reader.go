package resp

import (
	"bytes"

	"github.com/radish-kv/radish/num"
)

// Defaults used when the corresponding Reader field is zero or negative.
const (
	DefaultMaxBulkLen      = 512 << 20   // proto-max-bulk-len
	DefaultMaxMultibulkLen = 1024 * 1024 // Redis <= 6 hard limit on *N
	DefaultMaxInlineLen    = 64 << 10    // PROTO_INLINE_MAX_SIZE
)

// ProtocolError is a malformed request or reply. Error returns the full
// Redis reply text (code prefix included), ready for Writer.Error. After a
// ProtocolError from Reader.Next the stream cannot be resynchronised: Redis
// replies with the text and closes the connection once it is written.
type ProtocolError struct {
	Msg string
}

func (e *ProtocolError) Error() string { return e.Msg }

// Request errors. Reader.Next returns these exact values (compare with ==),
// except for the "expected '$'" error, which names the offending byte.
var (
	ErrInvalidMultibulkLen = &ProtocolError{"ERR Protocol error: invalid multibulk length"}
	ErrInvalidBulkLen      = &ProtocolError{"ERR Protocol error: invalid bulk length"}
	ErrTooBigInline        = &ProtocolError{"ERR Protocol error: too big inline request"}
	ErrTooBigMbulkCount    = &ProtocolError{"ERR Protocol error: too big mbulk count string"}
	ErrTooBigBulkCount     = &ProtocolError{"ERR Protocol error: too big bulk count string"}
	ErrUnbalancedQuotes    = &ProtocolError{"ERR Protocol error: unbalanced quotes in request"}
	// ErrBulkCRLF: bulk data not followed by CRLF. Redis does not check
	// this (it skips two bytes blindly); we refuse instead of desyncing.
	ErrBulkCRLF = &ProtocolError{"ERR Protocol error: expected CRLF after bulk data"}
)

// errExpectedDollar builds "expected '$', got 'X'". CR and LF are shown as a
// space, as Redis's addReplyErrorFormat does, so the reply stays one line.
func errExpectedDollar(c byte) error {
	if c == '\r' || c == '\n' {
		c = ' '
	}
	return &ProtocolError{"ERR Protocol error: expected '$', got '" + string([]byte{c}) + "'"}
}

// Reader parses requests (RESP multibulk and inline commands) from the
// front of a caller-owned buffer. It is stateless between calls apart from
// reusable memory: every call parses buf from its first byte. A Reader
// belongs to one connection and one goroutine. The zero value is ready to
// use; zero or negative limits mean the defaults above.
type Reader struct {
	MaxBulkLen      int64 // largest $len accepted (Redis proto-max-bulk-len)
	MaxMultibulkLen int64 // largest *N accepted
	MaxInlineLen    int   // longest inline line / count line without its terminator

	args    [][]byte // reused for every result; grows to the largest argc seen
	scratch []byte   // unescaped inline tokens that had quotes
	need    int      // see Need
}

// Next parses one command from the front of buf.
//
// args are slices of buf (or, for inline tokens that had quotes, of a
// buffer inside r). They stay valid until buf is modified or Next is called
// again; each has cap == len, so appending to one never overwrites buf. The
// args slice itself is reused by the next call.
//
// n is the number of bytes consumed. n == 0 && err == nil means buf holds
// no complete command yet: read more and call again with the same bytes at
// the front (see Need). An empty inline line, "*0\r\n" and "*-1\r\n"
// consume their bytes and return len(args) == 0: skip them, as Redis does.
// err is a *ProtocolError; the connection must be closed after replying.
func (r *Reader) Next(buf []byte) (args [][]byte, n int, err error) {
	r.need = 0
	if len(buf) == 0 {
		return r.incomplete(1)
	}
	if buf[0] == '*' {
		return r.multibulk(buf)
	}
	return r.inline(buf)
}

// Need reports, after Next returned incomplete, a lower bound on how many
// more bytes buf must hold before Next can return something else. While
// the parser waits inside a bulk argument it is that argument's exact
// remainder (data plus CRLF), which may be as large as MaxBulkLen+2: check
// it against the query buffer limit before growing a buffer. Otherwise it
// is 1. After a call that did not return incomplete, Need returns 0.
func (r *Reader) Need() int { return r.need }

func (r *Reader) incomplete(need int) ([][]byte, int, error) {
	r.need = need
	return nil, 0, nil
}

func (r *Reader) maxBulk() int64 {
	if r.MaxBulkLen > 0 {
		return r.MaxBulkLen
	}
	return DefaultMaxBulkLen
}

func (r *Reader) maxMultibulk() int64 {
	if r.MaxMultibulkLen > 0 {
		return r.MaxMultibulkLen
	}
	return DefaultMaxMultibulkLen
}

func (r *Reader) maxInline() int {
	if r.MaxInlineLen > 0 {
		return r.MaxInlineLen
	}
	return DefaultMaxInlineLen
}

// multibulk parses "*N\r\n" followed by N "$len\r\n<data>\r\n". The order of
// checks follows Redis's processMultibulkBuffer so the same bytes give the
// same error; in addition a CR not followed by LF in a count line is an
// invalid length, and bulk data must end in CRLF.
// NextAppend is Next with a command's args appended to dst, in dst's
// spare capacity while it lasts, rather than in the Reader's own memory:
// for a caller that keeps several commands' args at once. The Reader
// neither keeps nor reuses dst.
func (r *Reader) NextAppend(buf []byte, dst [][]byte) (args [][]byte, n int, err error) {
	own := r.args
	r.args = dst[len(dst):]
	args, n, err = r.Next(buf)
	r.args = own
	return args, n, err
}

func (r *Reader) multibulk(buf []byte) ([][]byte, int, error) {
	count, pos, ok := fastNum(buf, 1)
	if !ok {
		cr := bytes.IndexByte(buf, '\r')
		if cr < 0 {
			if len(buf) > r.maxInline() {
				return nil, 0, ErrTooBigMbulkCount
			}
			return r.incomplete(1)
		}
		if cr+1 >= len(buf) {
			return r.incomplete(1)
		}
		v, ok := num.ParseInt(buf[1:cr])
		if !ok || buf[cr+1] != '\n' {
			return nil, 0, ErrInvalidMultibulkLen
		}
		count, pos = v, cr+2
	}
	if count > r.maxMultibulk() {
		return nil, 0, ErrInvalidMultibulkLen
	}
	args := r.args[:0]
	if count <= 0 {
		return args, pos, nil
	}
	maxBulk := r.maxBulk()
	for ; count > 0; count-- {
		var ll int64
		var next int
		ok := false
		if pos < len(buf) && buf[pos] == '$' {
			ll, next, ok = fastNum(buf, pos+1)
		}
		if !ok {
			rest := buf[pos:]
			cr := bytes.IndexByte(rest, '\r')
			if cr < 0 {
				if len(rest) > r.maxInline() {
					return nil, 0, ErrTooBigBulkCount
				}
				r.args = args
				return r.incomplete(1)
			}
			if cr+1 >= len(rest) {
				r.args = args
				return r.incomplete(1)
			}
			if rest[0] != '$' {
				return nil, 0, errExpectedDollar(rest[0])
			}
			v, ok := num.ParseInt(rest[1:cr])
			if !ok || v < 0 || rest[cr+1] != '\n' {
				return nil, 0, ErrInvalidBulkLen
			}
			ll, next = v, pos+cr+2
		}
		if ll > maxBulk {
			return nil, 0, ErrInvalidBulkLen
		}
		pos = next
		if avail := int64(len(buf) - pos); avail < ll+2 {
			r.args = args
			return r.incomplete(int(ll + 2 - avail))
		}
		end := pos + int(ll)
		if buf[end] != '\r' || buf[end+1] != '\n' {
			return nil, 0, ErrBulkCRLF
		}
		args = append(args, buf[pos:end:end])
		pos = end + 2
	}
	r.args = args
	return args, pos, nil
}

// fastNum parses the common case of a count line: 1..18 decimal digits
// without a leading zero, then CRLF, starting at buf[i]. It returns the
// value and the index after the LF. ok == false means "not the common
// case", never "invalid": the caller then runs the exact slow path.
func fastNum(buf []byte, i int) (v int64, next int, ok bool) {
	start := i
	for i < len(buf) && i-start < 18 {
		d := buf[i] - '0'
		if d > 9 {
			break
		}
		v = v*10 + int64(d)
		i++
	}
	if i == start || i+1 >= len(buf) || buf[i] != '\r' || buf[i+1] != '\n' ||
		(buf[start] == '0' && i-start > 1) {
		return 0, 0, false
	}
	return v, i + 2, true
}

// inline parses one line terminated by LF (an optional CR before it is
// dropped) and splits it like Redis's sdssplitargs.
func (r *Reader) inline(buf []byte) ([][]byte, int, error) {
	nl := bytes.IndexByte(buf, '\n')
	if nl < 0 {
		if len(buf) > r.maxInline() {
			return nil, 0, ErrTooBigInline
		}
		return r.incomplete(1)
	}
	end := nl
	if end > 0 && buf[end-1] == '\r' {
		end--
	}
	line := buf[:end]
	// sdssplitargs reads a C string: a NUL byte ends the line.
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	args, err := r.split(line)
	if err != nil {
		return nil, 0, err
	}
	return args, nl + 1, nil
}

// isSpace is C's isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// split is sdssplitargs (Redis src/sds.c) transcribed: line holds no NUL,
// and at(i) returns 0 past the end just as the C code reads the
// terminator. A token without quotes is a slice of line; a token that had
// quotes is unescaped into r.scratch.
func (r *Reader) split(line []byte) ([][]byte, error) {
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	args := r.args[:0]
	r.scratch = r.scratch[:0]
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			break
		}
		start := p
		tok := -1 // start of the token in r.scratch once it has had a quote
		inq, insq, done := false, false, false
		end := p // end of a quote-free token in line
		for !done {
			c := at(p)
			switch {
			case inq:
				if c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)) {
					r.scratch = append(r.scratch, hexVal(at(p+2))<<4|hexVal(at(p+3)))
					p += 3
				} else if c == '\\' && at(p+1) != 0 {
					p++
					e := line[p]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					r.scratch = append(r.scratch, e)
				} else if c == '"' {
					// A closing quote must be followed by a space or nothing.
					if n := at(p + 1); n != 0 && !isSpace(n) {
						r.args = args
						return nil, ErrUnbalancedQuotes
					}
					done = true
				} else if c == 0 {
					r.args = args
					return nil, ErrUnbalancedQuotes
				} else {
					r.scratch = append(r.scratch, c)
				}
			case insq:
				if c == '\\' && at(p+1) == '\'' {
					p++
					r.scratch = append(r.scratch, '\'')
				} else if c == '\'' {
					if n := at(p + 1); n != 0 && !isSpace(n) {
						r.args = args
						return nil, ErrUnbalancedQuotes
					}
					done = true
				} else if c == 0 {
					r.args = args
					return nil, ErrUnbalancedQuotes
				} else {
					r.scratch = append(r.scratch, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
					end = p
				case '"', '\'':
					if tok < 0 {
						tok = len(r.scratch)
						r.scratch = append(r.scratch, line[start:p]...)
					}
					inq, insq = c == '"', c == '\''
				default:
					if tok >= 0 {
						r.scratch = append(r.scratch, c)
					}
				}
			}
			if p < len(line) {
				p++
			}
		}
		if tok < 0 {
			args = append(args, line[start:end:end])
		} else {
			s := r.scratch[tok:len(r.scratch):len(r.scratch)]
			args = append(args, s)
		}
	}
	r.args = args
	return args, nil
}

package resp

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// argsString renders args for comparison: ["a" "b"].
func argsString(args [][]byte) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = string(a)
	}
	return fmt.Sprintf("%q", s)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestNext(t *testing.T) {
	tests := []struct {
		name string
		in   string
		args []string // nil with n == 0: incomplete or error
		n    int
		err  string
	}{
		{"empty", "", nil, 0, ""},
		{"set", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n", []string{"SET", "k", "value"}, 31, ""},
		{"pipeline takes first", "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n", []string{"PING"}, 14, ""},
		{"empty bulk", "*2\r\n$3\r\nGET\r\n$0\r\n\r\n", []string{"GET", ""}, 19, ""},
		{"binary bulk", "*1\r\n$4\r\n\r\n\x00\n\r\n", []string{"\r\n\x00\n"}, 14, ""},
		{"star zero", "*0\r\n", []string{}, 4, ""},
		{"star minus one", "*-1\r\nPING\r\n", []string{}, 5, ""},
		{"star minus five", "*-5\r\n", []string{}, 5, ""},
		{"big count slow path", "*1\r\n$0000000000000000001\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"long digits", "*1\r\n$1234567890123456789\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"incomplete header", "*3", nil, 0, ""},
		{"incomplete cr", "*3\r", nil, 0, ""},
		{"incomplete bulk header", "*3\r\n$3", nil, 0, ""},
		{"incomplete data", "*1\r\n$5\r\nab", nil, 0, ""},
		{"incomplete crlf", "*1\r\n$2\r\nab\r", nil, 0, ""},
		{"huge bulk is incomplete", "*1\r\n$536870912\r\n", nil, 0, ""},
		{"inline", "PING\r\n", []string{"PING"}, 6, ""},
		{"inline lf", "SET a b\n", []string{"SET", "a", "b"}, 8, ""},
		{"inline spaces", "  SET \t a\v\fb  \r\n", []string{"SET", "a\v\fb"}, 16, ""},
		{"inline empty crlf", "\r\n", []string{}, 2, ""},
		{"inline empty lf", "\nPING\n", []string{}, 1, ""},
		{"inline blanks", "   \r\n", []string{}, 5, ""},
		{"inline cr inside", "a\rb\n", []string{"a", "b"}, 4, ""},
		{"inline nul ends tokens", "ECHO a\x00b c\r\n", []string{"ECHO", "a"}, 12, ""},
		{"inline incomplete", "PING", nil, 0, ""},
		{"inline incomplete cr", "PING\r", nil, 0, ""},
		{"inline pipeline", "PING\nPING\n", []string{"PING"}, 5, ""},
		// errors
		{"mbulk letters", "*x\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk empty", "*\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk leading zero", "*03\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk plus", "*+3\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk minus zero", "*-0\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk space", "*3 \r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk too many", "*1048577\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk max ok", "*1048576\r\n", nil, 0, ""},
		{"mbulk cr without lf", "*1\rx$1\r\na\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"mbulk overflow", "*99999999999999999999\r\n", nil, 0, ErrInvalidMultibulkLen.Msg},
		{"expected dollar", "*1\r\nX3\r\n", nil, 0, "ERR Protocol error: expected '$', got 'X'"},
		{"expected dollar waits for cr", "*1\r\nX3", nil, 0, ""},
		{"expected dollar cr shown as space", "*1\r\n\r\n", nil, 0, "ERR Protocol error: expected '$', got ' '"},
		{"bulk negative", "*1\r\n$-3\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk minus one", "*1\r\n$-1\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk letters", "*1\r\n$a\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk empty", "*1\r\n$\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk leading zero", "*1\r\n$01\r\na\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk too big", "*1\r\n$536870913\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk cr without lf", "*1\r\n$1\rxa\r\n", nil, 0, ErrInvalidBulkLen.Msg},
		{"bulk missing crlf", "*1\r\n$4\r\nPINGxx", nil, 0, ErrBulkCRLF.Msg},
		{"bulk missing lf", "*1\r\n$4\r\nPING\rx", nil, 0, ErrBulkCRLF.Msg},
		{"error in second arg", "*2\r\n$1\r\na\r\n:1\r\n", nil, 0, "ERR Protocol error: expected '$', got ':'"},
		{"unbalanced double", "SET \"a\n", nil, 0, ErrUnbalancedQuotes.Msg},
		{"unbalanced single", "SET 'a\n", nil, 0, ErrUnbalancedQuotes.Msg},
		{"quote then letter", "SET \"a\"b\n", nil, 0, ErrUnbalancedQuotes.Msg},
		{"squote then letter", "SET 'a'b\n", nil, 0, ErrUnbalancedQuotes.Msg},
		{"backslash at end in quotes", "SET \"a\\\n", nil, 0, ErrUnbalancedQuotes.Msg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Reader
			args, n, err := r.Next([]byte(tt.in))
			if errString(err) != tt.err {
				t.Fatalf("err = %q, want %q", errString(err), tt.err)
			}
			if n != tt.n {
				t.Fatalf("n = %d, want %d", n, tt.n)
			}
			if tt.args == nil {
				if args != nil {
					t.Fatalf("args = %s, want nil", argsString(args))
				}
				return
			}
			want := make([][]byte, len(tt.args))
			for i, a := range tt.args {
				want[i] = []byte(a)
			}
			if argsString(args) != argsString(want) {
				t.Fatalf("args = %s, want %s", argsString(args), argsString(want))
			}
		})
	}
}

func TestInlineQuoting(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`SET "hello world" x`, []string{"SET", "hello world", "x"}},
		{`SET 'hello world' x`, []string{"SET", "hello world", "x"}},
		{`ECHO "a\nb\rc\td\be\af"`, []string{"ECHO", "a\nb\rc\td\be\af"}},
		{`ECHO "\x41\x4a\x4B\xff\x00"`, []string{"ECHO", "AJK\xff\x00"}},
		{`ECHO "\x4" "\xZZ"`, []string{"ECHO", "x4", "xZZ"}},
		{`ECHO "\"quoted\"" "back\\slash" "\q"`, []string{"ECHO", `"quoted"`, `back\slash`, "q"}},
		{`ECHO 'it\'s' 'a\nb' 'x\\y'`, []string{"ECHO", "it's", `a\nb`, `x\\y`}},
		{`ECHO ab"cd ef"`, []string{"ECHO", "abcd ef"}},
		{`ECHO ab'cd'`, []string{"ECHO", "abcd"}},
		{`ECHO "" ''`, []string{"ECHO", "", ""}},
		{`ECHO "a"	"b"`, []string{"ECHO", "a", "b"}},
		{`ECHO "a"` + "\v" + `"b"`, []string{"ECHO", "a", "b"}},
		{`ECHO a"b"` + "\r" + `c`, []string{"ECHO", "ab", "c"}},
		{"ECHO a\vb", []string{"ECHO", "a\vb"}}, // \v separates only after a quote
		{`ECHO "a`, nil},
		{`ECHO 'a`, nil},
		{`ECHO "a"b`, nil},
		{`ECHO "a\"`, nil},
		{`ECHO 'a\'`, nil},
	}
	for _, tt := range tests {
		var r Reader
		args, n, err := r.Next([]byte(tt.in + "\r\n"))
		if tt.want == nil {
			if err != ErrUnbalancedQuotes || n != 0 {
				t.Errorf("%q: got %s, %d, %v; want unbalanced quotes", tt.in, argsString(args), n, err)
			}
			continue
		}
		want := make([][]byte, len(tt.want))
		for i, a := range tt.want {
			want[i] = []byte(a)
		}
		if err != nil || n != len(tt.in)+2 || argsString(args) != argsString(want) {
			t.Errorf("%q: got %s, %d, %v; want %s", tt.in, argsString(args), n, err, argsString(want))
		}
	}
}

func TestTooBig(t *testing.T) {
	big := strings.Repeat("a", DefaultMaxInlineLen)
	tests := []struct {
		in  string
		err error
	}{
		{big, nil},
		{big + "a", ErrTooBigInline},
		{big + "a\n", nil}, // Redis too: the limit applies only while no LF is there
		{"*" + big, ErrTooBigMbulkCount},
		{"*1" + big[2:], nil},
		{"*1\r\n$" + big, ErrTooBigBulkCount},
		{"*1\r\n" + big + "a", ErrTooBigBulkCount},
		{"*1\r\n" + big[1:], nil},
	}
	for i, tt := range tests {
		var r Reader
		_, n, err := r.Next([]byte(tt.in))
		if err != tt.err || (err != nil && n != 0) {
			t.Errorf("%d: err = %v n = %d, want %v", i, err, n, tt.err)
		}
	}
	r := Reader{MaxInlineLen: 4, MaxBulkLen: 3, MaxMultibulkLen: 2}
	for _, tt := range []struct {
		in  string
		err error
	}{
		{"PING", nil},
		{"PINGX", ErrTooBigInline},
		{"*3\r\n", ErrInvalidMultibulkLen},
		{"*2\r\n$4\r\n", ErrInvalidBulkLen},
		{"*2\r\n$3\r\n", nil},
		{"*2\r\n$3\r\nabc\r\n$12345", ErrTooBigBulkCount},
	} {
		if _, _, err := r.Next([]byte(tt.in)); err != tt.err {
			t.Errorf("limits %q: err = %v, want %v", tt.in, err, tt.err)
		}
	}
}

func TestNeed(t *testing.T) {
	var r Reader
	buf := []byte("*2\r\n$3\r\nSET\r\n$10\r\n0123")
	if _, n, err := r.Next(buf); n != 0 || err != nil {
		t.Fatal(n, err)
	}
	if got := r.Need(); got != 8 {
		t.Fatalf("Need = %d, want 8", got)
	}
	buf = append(buf, "456789\r"...)
	r.Next(buf)
	if got := r.Need(); got != 1 {
		t.Fatalf("Need = %d, want 1", got)
	}
	buf = append(buf, '\n')
	if _, n, _ := r.Next(buf); n != len(buf) || r.Need() != 0 {
		t.Fatalf("n = %d Need = %d", n, r.Need())
	}
	r.Next([]byte("*1\r\n$536870912\r\n"))
	if got := r.Need(); got != 536870914 {
		t.Fatalf("Need = %d", got)
	}
	r.Next([]byte("*1\r\n$5"))
	if got := r.Need(); got != 1 {
		t.Fatalf("Need = %d", got)
	}
	r.Next([]byte("GET"))
	if got := r.Need(); got != 1 {
		t.Fatalf("Need = %d", got)
	}
}

// TestArgsCapped: appending to an argument must not overwrite the buffer.
func TestArgsCapped(t *testing.T) {
	for _, in := range []string{"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "a b\r\n", `"a" "b"` + "\n"} {
		var r Reader
		buf := []byte(in)
		args, _, _ := r.Next(buf)
		_ = append(args[0], 'X', 'X', 'X', 'X', 'X')
		if string(buf) != in || string(args[1]) != "b" {
			t.Errorf("%q: append to arg changed the input: %q %q", in, buf, args[1])
		}
	}
}

// pipeline is a mixed pipeline and the commands it holds.
var pipeline = []struct {
	raw  string
	args []string
}{
	{"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n", []string{"SET", "key", "value"}},
	{"*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n", []string{"GET", "key"}},
	{"PING\r\n", []string{"PING"}},
	{"*0\r\n", []string{}},
	{"\r\n", []string{}},
	{"*1\r\n$0\r\n\r\n", []string{""}},
	{"SET \"a b\" 'c\\'d' \"\\x41\"\n", []string{"SET", "a b", "c'd", "A"}},
	{"*2\r\n$4\r\nECHO\r\n$11\r\n\r\n$1\r\n*1\r\n$\r\n", []string{"ECHO", "\r\n$1\r\n*1\r\n$"}},
	{"*-1\r\n", []string{}},
	{"*1\r\n$4\r\nPING\r\n", []string{"PING"}},
}

// TestPipelineSplits feeds every prefix of a pipeline: the commands parsed
// from a prefix must be exactly the complete ones it contains, and the
// remainder must be reported incomplete, never an error.
func TestPipelineSplits(t *testing.T) {
	var all []byte
	var ends []int
	for _, c := range pipeline {
		all = append(all, c.raw...)
		ends = append(ends, len(all))
	}
	var r Reader
	for k := 0; k <= len(all); k++ {
		buf := all[:k]
		pos, i := 0, 0
		for {
			args, n, err := r.Next(buf[pos:])
			if err != nil {
				t.Fatalf("prefix %d at %d: %v", k, pos, err)
			}
			if n == 0 {
				break
			}
			if got, want := argsString(args), fmt.Sprintf("%q", pipeline[i].args); got != want {
				t.Fatalf("prefix %d cmd %d: %s, want %s", k, i, got, want)
			}
			pos += n
			if pos != ends[i] {
				t.Fatalf("prefix %d cmd %d: ended at %d, want %d", k, i, pos, ends[i])
			}
			i++
		}
		wantCmds := 0
		for _, e := range ends {
			if e <= k {
				wantCmds++
			}
		}
		if i != wantCmds {
			t.Fatalf("prefix %d: parsed %d commands, want %d", k, i, wantCmds)
		}
	}
}

func TestAllocs(t *testing.T) {
	set := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n")
	inline := []byte("SET \"key\" value\r\n")
	var r Reader
	r.Next(set)
	r.Next(inline)
	for name, buf := range map[string][]byte{"multibulk": set, "inline": inline} {
		if a := testing.AllocsPerRun(100, func() {
			args, n, err := r.Next(buf)
			if err != nil || n != len(buf) || len(args) != 3 {
				t.Fatal(n, err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocs per parse", name, a)
		}
	}
	if a := testing.AllocsPerRun(100, func() { r.Next(set[:20]) }); a != 0 {
		t.Errorf("incomplete: %v allocs", a)
	}
}

// appendInline writes args as an inline line that sdssplitargs parses back
// (Redis's sdscatrepr quoting).
func appendInline(dst []byte, args [][]byte) []byte {
	for i, a := range args {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, '"')
		for _, c := range a {
			switch {
			case c == '\\' || c == '"':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, `\n`...)
			case c == '\r':
				dst = append(dst, `\r`...)
			case c == '\t':
				dst = append(dst, `\t`...)
			case c < 0x20 || c >= 0x7f:
				dst = append(dst, fmt.Sprintf(`\x%02x`, c)...)
			default:
				dst = append(dst, c)
			}
		}
		dst = append(dst, '"')
	}
	return append(dst, '\r', '\n')
}

func TestRoundTrip(t *testing.T) {
	args := [][]byte{[]byte("SET"), []byte("k\x00\r\n\"'\\ "), {}, bytes.Repeat([]byte{0xff}, 300)}
	var r Reader
	for _, enc := range [][]byte{AppendCommand(nil, args...), appendInline(nil, args)} {
		got, n, err := r.Next(enc)
		if err != nil || n != len(enc) || argsString(got) != argsString(args) {
			t.Errorf("%q: %s %d %v", enc, argsString(got), n, err)
		}
	}
}

package resp

import (
	"math"
	"testing"
)

func TestWriter(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *Writer)
		resp2 string
		resp3 string // "" means same as resp2
	}{
		{"simple", func(w *Writer) { w.Simple("OK") }, "+OK\r\n", ""},
		{"simple sanitized", func(w *Writer) { w.Simple("a\r\nb") }, "+a  b\r\n", ""},
		{"ok", func(w *Writer) { w.OK() }, "+OK\r\n", ""},
		{"error", func(w *Writer) { w.Error("ERR syntax error") }, "-ERR syntax error\r\n", ""},
		{"error dash", func(w *Writer) { w.Error("-WRONGTYPE x") }, "-WRONGTYPE x\r\n", ""},
		{"error sanitized", func(w *Writer) { w.Error("ERR a\nb") }, "-ERR a b\r\n", ""},
		{"wrong args", func(w *Writer) { w.WrongArgs("GET") }, "-ERR wrong number of arguments for 'get' command\r\n", ""},
		{"unknown command", func(w *Writer) {
			w.UnknownCommand([][]byte{[]byte("FOO"), []byte("a"), []byte("b\r\nc")})
		}, "-ERR unknown command 'FOO', with args beginning with: 'a' 'b  c' \r\n", ""},
		{"unknown command no args", func(w *Writer) { w.UnknownCommand([][]byte{[]byte("foo")}) },
			"-ERR unknown command 'foo', with args beginning with: \r\n", ""},
		{"int", func(w *Writer) { w.Int(42) }, ":42\r\n", ""},
		{"int negative", func(w *Writer) { w.Int(math.MinInt64) }, ":-9223372036854775808\r\n", ""},
		{"int or null", func(w *Writer) { w.IntOrNull(1, true); w.IntOrNull(1, false) }, ":1\r\n$-1\r\n", ":1\r\n_\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("hello")) }, "$5\r\nhello\r\n", ""},
		{"bulk empty", func(w *Writer) { w.Bulk(nil) }, "$0\r\n\r\n", ""},
		{"bulk binary", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", ""},
		{"bulk string", func(w *Writer) { w.BulkString("hi") }, "$2\r\nhi\r\n", ""},
		{"bulk or null", func(w *Writer) { w.BulkOrNull([]byte("x"), true); w.BulkOrNull(nil, false) }, "$1\r\nx\r\n$-1\r\n", "$1\r\nx\r\n_\r\n"},
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(w *Writer) { w.Array(2); w.Int(1); w.Int(2) }, "*2\r\n:1\r\n:2\r\n", ""},
		{"array of bulks", func(w *Writer) { w.ArrayOfBulks([][]byte{[]byte("a"), {}}) }, "*2\r\n$1\r\na\r\n$0\r\n\r\n", ""},
		{"map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w *Writer) { w.Set(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n"},
		{"push", func(w *Writer) { w.Push(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", ">1\r\n$1\r\nm\r\n"},
		{"double", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double %.17g", func(w *Writer) { w.Double(0.1) }, "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"double int", func(w *Writer) { w.Double(3) }, "$1\r\n3\r\n", ",3\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"double -inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double nan", func(w *Writer) { w.Double(math.NaN()) }, "$3\r\nnan\r\n", ",nan\r\n"},
		{"bool", func(w *Writer) { w.Bool(true); w.Bool(false) }, ":1\r\n:0\r\n", "#t\r\n#f\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("txt", []byte("hi")) }, "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
		{"verbatim short format", func(w *Writer) { w.Verbatim("t", []byte("hi")) }, "$2\r\nhi\r\n", "=6\r\nt  :hi\r\n"},
		{"raw", func(w *Writer) { w.Raw([]byte("+X\r\n")) }, "+X\r\n", ""},
	}
	for _, tt := range tests {
		for _, proto := range []int{2, 3} {
			want := tt.resp2
			if proto == 3 && tt.resp3 != "" {
				want = tt.resp3
			}
			w := Writer{Proto: proto}
			tt.write(&w)
			if string(w.B) != want {
				t.Errorf("%s RESP%d: got %q, want %q", tt.name, proto, w.B, want)
			}
		}
	}
	if got := ErrWrongArgs("Config|Get"); got != "ERR wrong number of arguments for 'config|get' command" {
		t.Errorf("ErrWrongArgs = %q", got)
	}
}

func TestWriterAllocs(t *testing.T) {
	val := []byte("value")
	for _, proto := range []int{2, 3} {
		w := Writer{Proto: proto, B: make([]byte, 0, 4096)}
		if a := testing.AllocsPerRun(100, func() {
			w.B = w.B[:0]
			w.Bulk(val)
			w.Int(12345)
			w.Simple("OK")
			w.OK()
			w.Error("ERR x")
			w.Null()
			w.Array(3)
			w.Map(2)
			w.Double(1.5)
			w.Double(0.1)
			w.Bool(true)
			w.WrongArgs("get")
			AppendValue(&w, Value{Type: '$', Str: val})
		}); a != 0 {
			t.Errorf("RESP%d: %v allocs", proto, a)
		}
	}
}

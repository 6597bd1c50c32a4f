package resp

import (
	"fmt"
	"strings"
	"testing"
)

// show renders a Value compactly for comparisons: type, then payload.
func show(v Value) string {
	var b strings.Builder
	var walk func(v Value)
	walk = func(v Value) {
		b.WriteByte(v.Type)
		switch {
		case v.Null:
			b.WriteString("null")
		case v.Type == ':' || v.Type == '#':
			fmt.Fprint(&b, v.Int)
		case v.Elems != nil || strings.IndexByte("*%~>|", v.Type) >= 0:
			b.WriteByte('[')
			for i, e := range v.Elems {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(e)
			}
			b.WriteByte(']')
		default:
			fmt.Fprintf(&b, "%q", v.Str)
		}
	}
	walk(v)
	return b.String()
}

func TestReadReply(t *testing.T) {
	tests := []struct {
		in    string
		want  string // show() of the value; "" with err == "": incomplete
		err   string
		resp2 string // AppendValue with Proto 2; "" means same as in
		resp3 string // AppendValue with Proto 3; "" means same as in
	}{
		{in: "+OK\r\n", want: `+"OK"`},
		{in: "-ERR bad\r\n", want: `-"ERR bad"`},
		{in: ":42\r\n", want: ":42"},
		{in: ":-9223372036854775808\r\n", want: ":-9223372036854775808"},
		{in: ":+7\r\n", want: ":7", resp2: ":7\r\n", resp3: ":7\r\n"},
		{in: "$5\r\nhello\r\n", want: `$"hello"`},
		{in: "$0\r\n\r\n", want: `$""`},
		{in: "$-1\r\n", want: "$null", resp3: "_\r\n"},
		{in: "*-1\r\n", want: "*null", resp3: "_\r\n"},
		{in: "*0\r\n", want: "*[]"},
		{in: "*2\r\n$1\r\na\r\n:1\r\n", want: `*[$"a" :1]`},
		{in: "*1\r\n*1\r\n*0\r\n", want: "*[*[*[]]]"},
		{in: "_\r\n", want: "_null", resp2: "$-1\r\n"},
		{in: ",1.5\r\n", want: `,"1.5"`, resp2: "$3\r\n1.5\r\n"},
		{in: ",inf\r\n", want: `,"inf"`, resp2: "$3\r\ninf\r\n"},
		{in: "#t\r\n", want: "#1", resp2: ":1\r\n"},
		{in: "#f\r\n", want: "#0", resp2: ":0\r\n"},
		{in: "(12345678901234567890123\r\n", want: `("12345678901234567890123"`, resp2: "$23\r\n12345678901234567890123\r\n"},
		{in: "=8\r\ntxt:abcd\r\n", want: `="txt:abcd"`, resp2: "$4\r\nabcd\r\n"},
		{in: "!8\r\nERR a\r\nb\r\n", want: `!"ERR a\r\nb"`, resp2: "-ERR a  b\r\n"},
		{in: "%1\r\n+k\r\n:1\r\n", want: `%[+"k" :1]`, resp2: "*2\r\n+k\r\n:1\r\n"},
		{in: "~2\r\n:1\r\n:2\r\n", want: "~[:1 :2]", resp2: "*2\r\n:1\r\n:2\r\n"},
		{in: ">2\r\n+message\r\n:2\r\n", want: `>[+"message" :2]`, resp2: "*2\r\n+message\r\n:2\r\n"},
		{in: "|1\r\n+ttl\r\n:3\r\n", want: `|[+"ttl" :3]`, resp2: "-"},
		// an attribute inside an aggregate annotates the element after it
		{in: "*2\r\n|1\r\n+ttl\r\n:3\r\n:7\r\n:8\r\n", want: "*[:7 :8]", resp2: "*2\r\n:7\r\n:8\r\n", resp3: "*2\r\n:7\r\n:8\r\n"},
		// incomplete
		{in: ""},
		{in: "+OK"},
		{in: "+OK\r"},
		{in: "$5\r\nhel"},
		{in: "$5\r\nhello\r"},
		{in: "*2\r\n:1\r\n"},
		{in: "*3000000000\r\n"},
		{in: "$3000000000\r\n"},
		{in: "%2\r\n:1\r\n:1\r\n"},
		{in: "*1\r\n|0\r\n"},
		// errors
		{in: "x\r\n", err: errReplyType.Msg},
		{in: "+OK\rx", err: errReplyLine.Msg},
		{in: ":1x\r\n", err: errReplyInt.Msg},
		{in: ":\r\n", err: errReplyInt.Msg},
		{in: ":99999999999999999999\r\n", err: errReplyInt.Msg},
		{in: "$-2\r\n", err: errReplyLen.Msg},
		{in: "$x\r\n", err: errReplyLen.Msg},
		{in: "$1\r\nab\r\n", err: errReplyLine.Msg},
		{in: "$?\r\n", err: errReplyStream.Msg},
		{in: "*?\r\n", err: errReplyStream.Msg},
		{in: "%-1\r\n", err: errReplyLen.Msg},
		{in: "#x\r\n", err: errReplyBool.Msg},
		{in: "_x\r\n", err: errReplyLine.Msg},
		{in: ",\r\n", err: errReplyLine.Msg},
		{in: "(1a\r\n", err: errReplyInt.Msg},
		{in: "=3\r\ntxt\r\n", err: errReplyLen.Msg},
		{in: "*1\r\nx\r\n", err: errReplyType.Msg},
		{in: strings.Repeat("*1\r\n", maxReplyDepth+1) + ":1\r\n", err: errReplyDepth.Msg},
	}
	for _, tt := range tests {
		v, n, err := ReadReply([]byte(tt.in))
		if errString(err) != tt.err {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.err)
			continue
		}
		if tt.want == "" {
			if n != 0 {
				t.Errorf("%q: n = %d, want incomplete/error", tt.in, n)
			}
			continue
		}
		if n != len(tt.in) || show(v) != tt.want {
			t.Errorf("%q: got %s n=%d, want %s", tt.in, show(v), n, tt.want)
			continue
		}
		for _, proto := range []int{2, 3} {
			want := tt.in
			if proto == 2 && tt.resp2 != "" {
				want = tt.resp2
			}
			if proto == 3 && tt.resp3 != "" {
				want = tt.resp3
			}
			if want == "-" {
				want = ""
			}
			w := Writer{Proto: proto}
			AppendValue(&w, v)
			if string(w.B) != want {
				t.Errorf("%q: AppendValue RESP%d = %q, want %q", tt.in, proto, w.B, want)
			}
		}
	}
}

// TestReplyPrefixes: every proper prefix of a valid reply is incomplete.
func TestReplyPrefixes(t *testing.T) {
	in := "*7\r\n$5\r\nhello\r\n%1\r\n+k\r\n,1.5\r\n:-3\r\n~1\r\n_\r\n=7\r\ntxt:a\r\n\r\n*-1\r\n>1\r\n#t\r\n"
	for k := 0; k < len(in); k++ {
		if _, n, err := ReadReply([]byte(in[:k])); n != 0 || err != nil {
			t.Fatalf("prefix %d: n=%d err=%v", k, n, err)
		}
	}
	if _, n, err := ReadReply([]byte(in)); n != len(in) || err != nil {
		t.Fatalf("full: n=%d err=%v", n, err)
	}
}

// TestWriterReadBack: what Writer writes, ReadReply reads, in both protocols.
func TestWriterReadBack(t *testing.T) {
	for _, proto := range []int{2, 3} {
		w := Writer{Proto: proto}
		w.Array(9)
		w.Simple("OK")
		w.Error("ERR x")
		w.Int(-5)
		w.Bulk([]byte("a\r\nb"))
		w.Null()
		w.Map(1)
		w.BulkString("k")
		w.Double(0.1)
		w.Set(0)
		w.Bool(true)
		w.Verbatim("txt", []byte("v"))
		v, n, err := ReadReply(w.B)
		if err != nil || n != len(w.B) || len(v.Elems) != 9 {
			t.Fatalf("RESP%d: %v %d %s", proto, err, n, show(v))
		}
		w2 := Writer{Proto: proto}
		AppendValue(&w2, v)
		if string(w2.B) != string(w.B) {
			t.Errorf("RESP%d: re-encoded %q, want %q", proto, w2.B, w.B)
		}
	}
}

func TestReadReplyIntAllocs(t *testing.T) {
	b := []byte(":-9223372036854775808\r\n$5\r\nhello\r\n")
	if a := testing.AllocsPerRun(100, func() {
		if v, n, err := ReadReply(b); err != nil || v.Int != -1<<63 || n != 23 {
			t.Fatal(v, n, err)
		}
		ReadReply(b[23:])
	}); a != 0 {
		t.Errorf("%v allocations per integer and bulk reply", a)
	}
}

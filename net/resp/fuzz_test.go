package resp

import (
	"bytes"
	"testing"
)

// maxQuadratic bounds the inputs on which the fuzzers run their O(n^2)
// every-prefix checks, so a long input cannot stall the fuzzer.
const maxQuadratic = 256

// splitArgs turns fuzz data into an argument list: data[0] is the
// separator byte, the rest is split on it.
func splitArgs(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data[1:], data[:1])
}

// FuzzReader: arbitrary bytes never panic, never consume more than given,
// never consume without a result; every proper prefix of a consumed command
// is incomplete; and multibulk and inline encodings of any argument list
// parse back identically, also when split anywhere.
func FuzzReader(f *testing.F) {
	for _, c := range pipeline {
		f.Add([]byte(c.raw))
	}
	f.Add([]byte("*1\r\nX3\r\n"))
	f.Add([]byte("SET \"a\\x41\" 'b\\'c'\n"))
	f.Add([]byte("*2\r\n$1\r\na\r\n$-1\r\n"))
	f.Add([]byte(" a b\x00c"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Reader{MaxInlineLen: 1 << 20}
		var p Reader
		// Walk data as a pipeline.
		buf := data
		for len(buf) > 0 {
			args, n, err := r.Next(buf)
			if n < 0 || n > len(buf) {
				t.Fatalf("n = %d, len = %d", n, len(buf))
			}
			if err != nil {
				if n != 0 || args != nil {
					t.Fatalf("error %v with n=%d", err, n)
				}
				if _, ok := err.(*ProtocolError); !ok {
					t.Fatalf("error type %T", err)
				}
				break
			}
			if n == 0 {
				if args != nil || r.Need() < 1 {
					t.Fatalf("incomplete with args or Need %d", r.Need())
				}
				break
			}
			got := argsString(args)
			for k := 0; k < n && n <= maxQuadratic; k++ {
				if _, m, err := p.Next(buf[:k]); m != 0 || err != nil {
					t.Fatalf("prefix %d of %q: n=%d err=%v", k, buf[:n], m, err)
				}
			}
			// The earlier result must not have been clobbered by p.
			if argsString(args) != got {
				t.Fatalf("args changed by another Reader")
			}
			buf = buf[n:]
		}

		// Encode an argument list both ways and parse it back.
		args := splitArgs(data)
		if len(args) == 0 {
			return
		}
		want := argsString(args)
		for _, enc := range [][]byte{AppendCommand(nil, args...), appendInline(nil, args)} {
			got, n, err := r.Next(enc)
			if err != nil || n != len(enc) || argsString(got) != want {
				t.Fatalf("%q: got %s n=%d err=%v, want %s", enc, argsString(got), n, err, want)
			}
			// Two commands back to back, split at every byte: the first
			// parse is incomplete until the first command is whole.
			two := append(append([]byte(nil), enc...), enc...)
			for k := 0; k <= len(two) && len(two) <= 4*maxQuadratic; k++ {
				_, n, err := r.Next(two[:k])
				if err != nil || (k < len(enc) && n != 0) || (k >= len(enc) && n != len(enc)) {
					t.Fatalf("%q split %d: n=%d err=%v", enc, k, n, err)
				}
			}
		}
	})
}

// FuzzReadReply: arbitrary bytes never panic, n stays in range, proper
// prefixes of a parsed reply are incomplete, and re-encoding is stable:
// AppendValue(ReadReply(x)) read back and re-encoded gives the same bytes,
// in RESP3 and in RESP2.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*-1\r\n",
		"*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n+a\r\n,1.5\r\n", "~1\r\n#t\r\n", ">1\r\n_\r\n",
		"=7\r\ntxt:abc\r\n", "!3\r\nERR\r\n", "(123\r\n", "|1\r\n+a\r\n+b\r\n+x\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, n, err := ReadReply(data)
		if n < 0 || n > len(data) || (err != nil && n != 0) {
			t.Fatalf("n = %d err = %v len = %d", n, err, len(data))
		}
		if n == 0 {
			return
		}
		for k := 0; k < n && n <= maxQuadratic; k++ {
			if _, m, err := ReadReply(data[:k]); m != 0 || err != nil {
				t.Fatalf("prefix %d of %q: n=%d err=%v", k, data[:n], m, err)
			}
		}
		for _, proto := range []int{3, 2} {
			w := Writer{Proto: proto}
			AppendValue(&w, v)
			if len(w.B) == 0 {
				continue // a RESP2 attribute
			}
			v2, n2, err := ReadReply(w.B)
			if err != nil || n2 != len(w.B) {
				t.Fatalf("RESP%d re-read of %q: n=%d err=%v", proto, w.B, n2, err)
			}
			w2 := Writer{Proto: proto}
			AppendValue(&w2, v2)
			if !bytes.Equal(w.B, w2.B) {
				t.Fatalf("RESP%d unstable: %q then %q", proto, w.B, w2.B)
			}
		}
	})
}

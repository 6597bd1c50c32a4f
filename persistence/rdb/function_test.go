package rdb

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/radish-kv/radish/engine"
)

// TestFunctionDump round-trips libraries' codes through FUNCTION DUMP's
// payload, compressed or not, and refuses bad payloads with Redis's texts.
func TestFunctionDump(t *testing.T) {
	codes := [][]byte{[]byte("#!lua name=a\n" + strings.Repeat("-- x\n", 40)), []byte("#!lua name=b\nreturn 1"), []byte("7")}
	for _, compress := range []bool{false, true} {
		e := NewEncoder(engine.Limits{})
		e.Compress = compress
		p := e.AppendFunctionDump(nil, codes)
		got, err := ParseFunctionDump(p)
		if err != nil || len(got) != len(codes) {
			t.Fatalf("compress %v: %q, %v", compress, got, err)
		}
		for i := range codes {
			if !bytes.Equal(got[i], codes[i]) {
				t.Errorf("compress %v: code %d is %q", compress, i, got[i])
			}
		}
		if compress == (len(p) >= len(codes[0])) {
			t.Errorf("compress %v: payload of %d bytes", compress, len(p))
		}
	}
	e := NewEncoder(engine.Limits{})
	p := e.AppendFunctionDump(nil, codes)
	for _, c := range []struct {
		p    []byte
		want string
	}{
		{p[:9], ErrPayload.Error()},
		{p[1:], ErrPayload.Error()},
		{append(bytes.Clone(p[:len(p)-1]), p[len(p)-1]^1), ErrPayload.Error()},
		{dump([]byte{0, 1, 'x'}), "given type is not a function"},
		{dump([]byte{OpFunctionPreGA, 1, 'x'}), "Pre-GA function format not supported"},
		{dump([]byte{OpFunction2, 0x40}), "Failed loading library payload"},
	} {
		if _, err := ParseFunctionDump(c.p); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.p, err, c.want)
		}
	}
	if got, err := ParseFunctionDump(dump(nil)); err != nil || len(got) != 0 {
		t.Errorf("empty payload: %q, %v", got, err)
	}
	if !errors.Is(func() error { _, err := ParseFunctionDump(nil); return err }(), ErrPayload) {
		t.Error("nil payload is not ErrPayload")
	}
}

// dump frames body as a payload: version and checksum.
func dump(body []byte) []byte {
	b := append(bytes.Clone(body), Version, 0)
	return append(b, le64(CRC64(0, b))...)
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

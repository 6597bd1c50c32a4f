package rdb

import (
	"bytes"
	"strings"
	"testing"

	"github.com/radish-kv/radish/engine"
)

// TestPlainNodes: under a packed threshold of 10 bytes, an element of 10
// bytes or more is a plain node of its own (container 1, the raw
// string), the packed node before it closes and a new one starts after
// it, as Redis 7.0 pushes them; the payload reads back whole; the
// threshold's bounds are Redis's.
func TestPlainNodes(t *testing.T) {
	if !SetPackedThreshold(10) {
		t.Fatal("10 refused")
	}
	defer SetPackedThreshold(0)
	long1, long2 := strings.Repeat("x", 10), strings.Repeat("y", 30)
	rec := record(engine.TypeList, "a", "b", long1, long2, "c", "123456789")
	e := Encoder{Limits: engine.DefaultLimits()}
	want := AppendLen(nil, 4)
	want = e.AppendString(AppendLen(want, containerPacked), listpack("a", "b"))
	want = e.AppendString(AppendLen(want, containerPlain), []byte(long1))
	want = e.AppendString(AppendLen(want, containerPlain), []byte(long2))
	want = e.AppendString(AppendLen(want, containerPacked), listpack("c", "123456789"))
	if got := e.AppendObject(nil, rec); !bytes.Equal(got, want) {
		t.Errorf("payload %q\nwant    %q", got, want)
	}
	for _, c := range []Encoder{e, {Limits: engine.DefaultLimits(), Compress: true}} {
		back, err := ParseDump(c.AppendDump(nil, rec))
		if err != nil || model(back) != model(rec) {
			t.Errorf("compress %v: back %q, %v", c.Compress, model(back), err)
		}
	}
	SetPackedThreshold(0)
	if got := e.AppendObject(nil, rec); !bytes.Equal(got, e.AppendString(AppendLen(AppendLen(nil, 1), containerPacked),
		listpack("a", "b", long1, long2, "c", "123456789"))) {
		t.Errorf("default threshold: %q", got)
	}
	if !SetPackedThreshold(1<<32-1<<20) || SetPackedThreshold(1<<32-1<<20+1) || largeElement() != 1<<32-1<<20 {
		t.Errorf("bounds: threshold %d", largeElement())
	}
}

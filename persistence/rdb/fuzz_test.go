package rdb

import (
	"testing"

	"github.com/radish-kv/radish/engine"
)

// FuzzReadObject decodes arbitrary bytes as a type byte and an object:
// it must return an error or a record, never panic or hang; a record it
// returns must survive an encode and decode unchanged, and SkipObject must
// read past exactly the bytes ReadObject read (on any input it must return
// an error or stop within them). The seeds are every
// sample and legacy value of the unit tests; testdata/fuzz holds DUMP
// payloads of redis-server 7.0.15 (footer cut) and inputs the fuzzer
// found.
//
//	go test ./persistence/rdb -fuzz FuzzReadObject -fuzztime 1m
func FuzzReadObject(f *testing.F) {
	e := NewEncoder(engine.DefaultLimits())
	src := engine.NewStore(1)
	for _, s := range samples() {
		s.build(src.DB(0), []byte(s.name))
		rec, _ := src.DB(0).Export([]byte(s.name), 0)
		f.Add(e.AppendValue(nil, rec))
	}
	for _, l := range legacy() {
		f.Add(l.val)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(b)
		typ, err := r.ReadByte()
		if err != nil {
			return
		}
		sk := NewReader(b[1:])
		skipErr := sk.SkipObject(typ)
		if sk.Offset() > len(b)-1 {
			t.Fatalf("skipped %d of %d bytes", sk.Offset(), len(b)-1)
		}
		if skipErr != nil && !IsFormat(skipErr) {
			t.Fatalf("skip: error of no known kind: %v", skipErr)
		}
		rec, err := r.ReadObject(typ)
		if err == nil && (skipErr != nil || sk.Offset()+1 != r.Offset()) {
			t.Fatalf("ReadObject read %d bytes; SkipObject %d, %v", r.Offset()-1, sk.Offset(), skipErr)
		}
		if err != nil {
			if !IsFormat(err) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		if r.Offset() > len(b) {
			t.Fatalf("read %d of %d bytes", r.Offset(), len(b))
		}
		again, err := ParseDump(e.AppendDump(nil, rec))
		if err != nil {
			t.Fatalf("re-encoded %q: %v", model(rec), err)
		}
		if model(again) != model(rec) {
			t.Fatalf("re-encoded %q as %q", model(rec), model(again))
		}
	})
}

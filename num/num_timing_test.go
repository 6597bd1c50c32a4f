package num

import "testing"

var sinkI int64
var sinkF float64

func BenchmarkParseInt(b *testing.B) {
	in := []byte("1234567890")
	b.ReportAllocs()
	for b.Loop() {
		v, _ := ParseInt(in)
		sinkI += v
	}
}

func BenchmarkParseIntNotInt(b *testing.B) {
	in := []byte("value:1234") // a SET value: refused at the first byte
	b.ReportAllocs()
	for b.Loop() {
		v, _ := ParseInt(in)
		sinkI += v
	}
}

func BenchmarkParseDouble(b *testing.B) {
	in := []byte("12.5")
	b.ReportAllocs()
	for b.Loop() {
		f, _ := ParseDouble(in)
		sinkF += f
	}
}

func BenchmarkAppendDouble(b *testing.B) {
	var buf [32]byte
	b.ReportAllocs()
	for b.Loop() {
		AppendDouble(buf[:0], 0.1)
	}
}

package command

import "testing"

var sinkInt int

func BenchmarkLookup(b *testing.B) {
	name := []byte("MGET")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if Lookup(name) != nil {
			sinkInt++
		}
	}
}

func BenchmarkResolveKeys(b *testing.B) {
	args := split("mset k1 v1 k2 v2 k3 v3 k4 v4")
	dst := make([]int, 0, 8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, _ := Resolve(args)
		dst, _ = s.Keys(args, dst[:0])
		sinkInt += len(dst)
	}
}

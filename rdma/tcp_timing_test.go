package rdma

import (
	"strconv"
	"testing"
)

// BenchmarkSend compares plain writes with zero-copy sends by payload
// size over loopback (where the kernel copies anyway: the cost of
// trying) — run it over a real NIC to place DefaultZeroCopyMin.
func BenchmarkSend(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20, 16 << 20} {
		for _, tr := range []struct {
			name string
			t    TCP
		}{{"write", TCP{ZeroCopyMin: -1}}, {"zerocopy", TCP{ZeroCopyMin: 1}}} {
			b.Run(tr.name+"/"+strconv.Itoa(size), func(b *testing.B) {
				fd, recv := pair(b)
				p := payload(size)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tr.t.Send(fd, p); err != nil {
						b.Fatal(err)
					}
				}
				recv()
			})
		}
	}
}

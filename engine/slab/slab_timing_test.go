package slab

import (
	"strconv"
	"testing"
)

var sinkBytes []byte

func BenchmarkAllocFree(b *testing.B) {
	for _, size := range []int{16, 48, 200, 4096} {
		b.Run(sizeName(size), func(b *testing.B) {
			s := New()
			defer s.Close()
			// A populated class, so the bitmaps have depth.
			keep := make([]Handle, 100000)
			for i := range keep {
				keep[i] = s.Alloc(size)
			}
			for i := 0; i < len(keep); i += 3 {
				s.Free(keep[i])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				h := s.Alloc(size)
				s.Free(h)
			}
		})
	}
}

// sizeName is a benchmark label for size.
func sizeName(size int) string {
	return "size=" + strconv.Itoa(size)
}

func BenchmarkAllocBatchFree(b *testing.B) {
	s := New()
	defer s.Close()
	hs := make([]Handle, 1024)
	b.ReportAllocs()
	for range b.N / len(hs) {
		for i := range hs {
			hs[i] = s.Alloc(40)
		}
		for _, h := range hs {
			s.Free(h)
		}
	}
}

func BenchmarkBytes(b *testing.B) {
	s := New()
	defer s.Close()
	hs := make([]Handle, 1<<16)
	for i := range hs {
		hs[i] = s.Alloc(16 + 8*(i%20))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sum byte
	for i := range b.N {
		sum += s.Bytes(hs[i&(len(hs)-1)])[0]
	}
	sinkBytes = []byte{sum}
}

func BenchmarkValid(b *testing.B) {
	s := New()
	defer s.Close()
	hs := make([]Handle, 1<<16)
	for i := range hs {
		hs[i] = s.Alloc(32)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := range b.N {
		if s.Valid(hs[i&(len(hs)-1)]) {
			n++
		}
	}
	if n != b.N {
		b.Fatal("invalid")
	}
}

func BenchmarkRandomTagged(b *testing.B) {
	s := New()
	defer s.Close()
	for i := range 1 << 20 {
		h := s.Alloc(32)
		if i%10 == 0 {
			s.Tag(h)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, ok := s.RandomTagged(Class(32), uint64(i)); !ok {
			b.Fatal("none")
		}
	}
}

func BenchmarkRandomOccupied(b *testing.B) {
	s := New()
	defer s.Close()
	for range 1 << 20 {
		s.Alloc(32)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, ok := s.RandomOccupied(Class(32), uint64(i)); !ok {
			b.Fatal("none")
		}
	}
}

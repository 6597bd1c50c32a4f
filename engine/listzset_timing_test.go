package engine

import (
	"strconv"
	"testing"
)

// Benchmarks of the list and sorted-set operations: ns/op and allocations
// of one engine call, on a Store warmed up so that slab pages exist.

func BenchmarkListPush(b *testing.B) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key, vals := []byte("list"), [][]byte{[]byte("job-payload-0123456789")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%100000 == 0 {
			db.Delete(key, 0)
		}
		db.ListPush(key, vals, true, false, 0)
	}
}

func BenchmarkListPushPop(b *testing.B) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key, vals := []byte("queue"), [][]byte{[]byte("job-payload-0123456789")}
	for i := 0; i < 1000; i++ {
		db.ListPush(key, vals, false, false, 0)
	}
	sink := 0
	fn := func(_, _ int, v []byte) { sink += len(v) }
	b.ReportAllocs()
	for b.Loop() {
		db.ListPush(key, vals, false, false, 0)
		db.ListPop(key, true, 1, 0, fn)
	}
}

func BenchmarkListRange100(b *testing.B) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("list")
	for i := 0; i < 10000; i++ {
		db.ListPush(key, [][]byte{[]byte("element-" + strconv.Itoa(i))}, false, false, 0)
	}
	sink := 0
	fn := func(_, _ int, v []byte) { sink += len(v) }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		start := i * 97 % 9900
		db.ListRange(key, start, start+99, 0, fn)
	}
}

func benchZAdd(b *testing.B, size int) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("z")
	members := make([][]byte, size)
	for i := range members {
		members[i] = []byte("member:" + strconv.Itoa(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := members[i%size]
		db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return float64(i % 1000), m }, 0)
	}
}

func BenchmarkZAddListpack(b *testing.B) { benchZAdd(b, 100) }
func BenchmarkZAddSkiplist(b *testing.B) { benchZAdd(b, 100000) }

func benchZRange(b *testing.B, size int, kind ZRangeKind) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("z")
	for i := 0; i < size; i++ {
		m := []byte("member:" + strconv.Itoa(i))
		db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return float64(i), m }, 0)
	}
	sink := 0
	fn := func(_, _ int, m []byte, sc float64) { sink += len(m) }
	n := min(100, size)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		start := i * 97 % (size - n + 1)
		sp := ZRangeSpec{Kind: kind, Start: start, Stop: start + n - 1, Min: float64(start), Max: float64(start + n - 1), Count: -1}
		db.ZRange(key, &sp, 0, fn)
	}
}

func BenchmarkZRange100Listpack(b *testing.B)    { benchZRange(b, 120, ZByRank) }
func BenchmarkZRange100Skiplist(b *testing.B)    { benchZRange(b, 100000, ZByRank) }
func BenchmarkZRangeByScore100Skip(b *testing.B) { benchZRange(b, 100000, ZByScore) }

func BenchmarkZScoreSkiplist(b *testing.B) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("z")
	members := make([][]byte, 100000)
	for i := range members {
		members[i] = []byte("member:" + strconv.Itoa(i))
		db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return float64(i), members[i] }, 0)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		db.ZRank(key, members[i*7919%len(members)], false, 0)
	}
}

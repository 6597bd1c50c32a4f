package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemoryPerKey measures what 1M (and with RADISH_MEM_10M=1 also 10M)
// keys `key:%d` with values `value:%d` cost: process RSS growth per key, the
// slab's and the engine's own accounting, Go heap in use, and GC work. It is
// opt-in (RADISH_MEM=1) because it needs memory and time:
//
//	RADISH_MEM=1 go test ./engine/ -run MemoryPerKey -v
//	RADISH_MEM=1 RADISH_MEM_10M=1 go test ./engine/ -run MemoryPerKey -v -timeout 30m
func TestMemoryPerKey(t *testing.T) {
	if os.Getenv("RADISH_MEM") == "" {
		t.Skip("set RADISH_MEM=1 to measure memory per key")
	}
	sizes := []int{1_000_000}
	if os.Getenv("RADISH_MEM_10M") != "" {
		sizes = append(sizes, 10_000_000)
	}
	for _, n := range sizes {
		measureMemory(t, n)
	}
}

func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

func measureMemory(t *testing.T, n int) {
	settle()
	rss0, heap0 := rss(t), heapObjects()
	var gc0 debug.GCStats
	debug.ReadGCStats(&gc0)
	start := time.Now()

	s := NewStore(16)
	db := s.DB(0)
	kb := make([]byte, 0, 32)
	vb := make([]byte, 0, 32)
	for i := 0; i < n; i++ {
		kb = strconv.AppendInt(append(kb[:0], "key:"...), int64(i), 10)
		vb = strconv.AppendInt(append(vb[:0], "value:"...), int64(i), 10)
		db.SetString(kb, vb, 0, false)
	}
	build := time.Since(start)
	var gc1 debug.GCStats
	debug.ReadGCStats(&gc1)

	settle()
	rss1, heap1 := rss(t), heapObjects()
	t0 := time.Now()
	runtime.GC()
	fullGC := time.Since(t0)

	perKey := float64(rss1-rss0) / float64(n)
	heap := heap1 - heap0
	engine := s.SlabMapped() + heap
	t.Logf("n=%d: RSS +%d B = %.1f B/key (target <= 45); slab in use %.1f B/key, mapped %.1f B/key; UsedMemory %.1f B/key",
		n, rss1-rss0, perKey, float64(s.slab.InUse())/float64(n), float64(s.SlabMapped())/float64(n), float64(s.UsedMemory())/float64(n))
	t.Logf("n=%d: Go heap +%d B = %.2f%% of engine memory (slab mapped + heap; target < 5%%)", n, heap, 100*float64(heap)/float64(engine))
	t.Logf("n=%d: build %v (%.0f ns/key), %d GCs during build, pause total %v; a forced full GC afterwards took %v",
		n, build, float64(build.Nanoseconds())/float64(n), gc1.NumGC-gc0.NumGC, gc1.PauseTotal-gc0.PauseTotal, fullGC)
	if db.Len() != n {
		t.Fatalf("Len %d", db.Len())
	}
	s.Close()
}

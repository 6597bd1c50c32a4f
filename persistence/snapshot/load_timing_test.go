package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/radish-kv/radish/engine"
)

// BenchmarkLoad loads a file of 1M keys as DEBUG POPULATE makes them
// (key:<n> value:<n>, the start-up benchmark's dataset) from its mapped
// file (in the page cache) into an empty store, as one shard loads its
// own file at start: keys/cpu-s is keys
// per second of the process's CPU time (the load is one goroutine; the
// collector's work counts too).
func BenchmarkLoad(b *testing.B) {
	const keys = 1_000_000
	src := engine.NewStore(16)
	db := src.DB(0)
	for i := range keys {
		n := strconv.Itoa(i)
		db.SetString([]byte("key:"+n), []byte("value:"+n), 0, false)
	}
	var buf bytes.Buffer
	if err := NewWriter(src, &buf, Options{Compress: true, Checksum: true, Time: testNow}).WriteAll(testNow); err != nil {
		b.Fatal(err)
	}
	src.Close()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var spent time.Duration
	for range b.N {
		b.StopTimer()
		st := engine.NewStore(16)
		b.StartTimer()
		t0 := cpuTime()
		f, err := Open(dir, "dump.rdb")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := LoadRDB(f.Images[0].Data, "dump.rdb", LoadOptions{Store: st, Now: testNow, Verify: true}); err != nil {
			b.Fatal(err)
		}
		f.Close()
		spent += cpuTime() - t0
		b.StopTimer()
		if got := st.DB(0).Len(); got != keys {
			b.Fatalf("loaded %d keys, want %d", got, keys)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(keys)*float64(b.N)/spent.Seconds(), "keys/cpu-s")
}

// cpuTime is the CPU time the process used so far, every thread's (the
// garbage collector's too, as a server's start-up counts it).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

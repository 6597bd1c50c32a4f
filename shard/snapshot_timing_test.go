package shard

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkBgSaveStall is one BGSAVE on one simulated shard on the wall
// clock, of 1M keys as DEBUG POPULATE makes them (key:<n> value:<n>) and
// of 50k keys of 4 KiB values (DEBUG POPULATE's padding, LZF-compressed
// under rdbcompression yes), turned until its file is complete, sleeping
// (as the loop's Poll would) while the save waits for its next slice:
// what a turn that steps the save takes is the longest wait a GET
// arriving then could see. It reports the longest such turn and their
// 99th percentile, in wall time (max-turn-µs, p99-turn-µs: a loaded
// machine's scheduling included) and in the thread's CPU time
// (max-turn-cpu-µs, p99-turn-cpu-µs), how many the save took
// (steps/save), its wall time and the GC cycles during it; nothing is
// asserted on them.
func BenchmarkBgSaveStall(b *testing.B) {
	for _, c := range []struct {
		name     string
		populate string
	}{{"keys=1M", "DEBUG POPULATE 1000000"}, {"keys=50k,value=4KiB", "DEBUG POPULATE 50000 key 4096"}} {
		b.Run(c.name, func(b *testing.B) { benchBgSaveStall(b, c.populate) })
	}
}

func benchBgSaveStall(b *testing.B, populate string) {
	m, s, c := saveSim(b, populate)
	m.g.clock = time.Now   // the slices' bound is in time
	runtime.LockOSThread() // threadCPU is this goroutine's
	defer runtime.UnlockOSThread()
	var turns, cpus []time.Duration
	var wall time.Duration
	var gcs uint32
	b.ResetTimer()
	for range b.N {
		if got := m.do(c, "BGSAVE\r\n"); got != "+Background saving started\r\n" {
			b.Fatalf("BGSAVE: %q", got)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		gc0 := ms.NumGC
		start := time.Now()
		for {
			steps := s.snap != nil && !s.snap.busy() && !time.Now().Before(s.snapAt)
			t0, c0 := time.Now(), threadCPU()
			m.turn(0)
			if steps {
				turns = append(turns, time.Since(t0))
				cpus = append(cpus, threadCPU()-c0)
			}
			m.g.persist.mu.Lock()
			done := m.g.persist.run == nil
			m.g.persist.mu.Unlock()
			if done {
				break
			}
			if !steps {
				// As the loop's Poll: until the next slice, the file's
				// writer draining, or its sync and rename.
				time.Sleep(max(time.Until(s.snapAt), 20*time.Microsecond))
			}
		}
		wall += time.Since(start)
		runtime.ReadMemStats(&ms)
		gcs += ms.NumGC - gc0
		if m.g.persist.lastErr.Load() {
			b.Fatal("the save failed")
		}
	}
	b.StopTimer()
	slices.Sort(turns)
	slices.Sort(cpus)
	b.ReportMetric(float64(turns[len(turns)-1].Microseconds()), "max-turn-µs")
	b.ReportMetric(float64(turns[len(turns)*99/100].Microseconds()), "p99-turn-µs")
	b.ReportMetric(float64(cpus[len(cpus)-1].Microseconds()), "max-turn-cpu-µs")
	b.ReportMetric(float64(cpus[len(cpus)*99/100].Microseconds()), "p99-turn-cpu-µs")
	b.ReportMetric(float64(len(turns))/float64(b.N), "steps/save")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "save-ms")
	b.ReportMetric(float64(gcs)/float64(b.N), "gcs/save")
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

package aof

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkSparseTurns submits one small turn every 30 ms (slower than
// writeEvery) under everysec and reports the process's CPU time per turn:
// the loop's Submit and the writer's wake, write and wait, which is what
// a shard whose turns come that seldom pays per turn (the loop's own
// sleep between turns counts too). Faster turns are
// shard.BenchmarkPipelinedSetAOF's.
func BenchmarkSparseTurns(b *testing.B) {
	opts := testOpts(b, b.TempDir(), 1)
	opts.Fsync = "everysec"
	s, err := Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(func(int) {}); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := s.Log(0)
	fx := fxOf(b, "0 - SET key:000000000001 xxx")
	cpu0 := cpuTime()
	for b.Loop() {
		l.Append(fx)
		l.Submit()
		time.Sleep(30 * time.Millisecond)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/turn")
	_, writes, _ := s.Counts()
	b.ReportMetric(float64(b.N)/float64(max(writes, 1)), "turns/write")
}

// cpuTime is the process's user and system CPU time in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

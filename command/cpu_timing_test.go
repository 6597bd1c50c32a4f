//go:build unix

package command

import (
	"syscall"
	"testing"
)

// cpuTimer reports process CPU time per op as "cpu-ns/op" next to the
// wall-clock ns/op: on a shared machine the wall clock also counts the
// time other processes held our core (the collector's CPU is counted).
func cpuTimer(b *testing.B) func() {
	cpu := func() int64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}

package shard

import (
	"math"
	"os"
	"strings"
	"sync"
	"time"
)

// The command clock (cmdClock) counts ticks: the CPU's time-stamp
// counter where the kernel itself keeps time by it (clocksource tsc:
// invariant, and the same on every CPU, or the kernel would not use
// it), read in one instruction, 8 ns here against 21 for the runtime's
// nanotime through the vDSO; with any other clocksource or CPU, the
// nanotime's nanoseconds. A command costs one reading (slowlog.go), so
// the difference was 4% of a pipelined GET's server CPU. Durations are
// compared in ticks; only a duration that is reported (a slow command, a
// latency sample) and the thresholds set by CONFIG are converted.

var (
	ticksOnce  sync.Once
	useTSC     bool  // ticks reads the time-stamp counter
	ticksPerNs = 1.0 // the counter's rate, measured at start
)

// ticks is the command clock's reading.
func ticks() int64 {
	if useTSC {
		return rdtsc()
	}
	return nanotime()
}

// initTicks decides, once per process, what ticks reads, and measures
// the counter's rate against nanotime over 2 ms.
func initTicks() {
	ticksOnce.Do(func() {
		if !haveTSC {
			return
		}
		b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
		if err != nil || strings.TrimSpace(string(b)) != "tsc" {
			return
		}
		t0, n0 := tickPair()
		time.Sleep(2 * time.Millisecond)
		t1, n1 := tickPair()
		if t1 <= t0 || n1 <= n0 {
			return
		}
		ticksPerNs = float64(t1-t0) / float64(n1-n0)
		useTSC = true
	})
}

// tickPair reads the counter and nanotime at one moment: of a few
// tries, the nanotime whose two counter readings around it are closest,
// with their midpoint.
func tickPair() (tick, ns int64) {
	best := int64(math.MaxInt64)
	for range 5 {
		a := rdtsc()
		n := nanotime()
		b := rdtsc()
		if b-a < best {
			best, tick, ns = b-a, a+(b-a)/2, n
		}
	}
	return tick, ns
}

// ticksToNs converts a duration in ticks.
func ticksToNs(t int64) time.Duration { return time.Duration(float64(t) / ticksPerNs) }

// nsToTicks converts a threshold in ns (MaxInt64: none, kept).
func nsToTicks(ns int64) int64 {
	t := float64(ns) * ticksPerNs
	if ns == math.MaxInt64 || t >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(t)
}

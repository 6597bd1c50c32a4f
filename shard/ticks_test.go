package shard

import (
	"math"
	"testing"
	"time"
)

// TestTicks: the command clock's ticks, converted, measure a sleep as
// the runtime's clock does, and thresholds survive the conversion.
func TestTicks(t *testing.T) {
	initTicks()
	t.Logf("time-stamp counter: %v, %.4f ticks per ns", useTSC, ticksPerNs)
	if ticksPerNs <= 0 || math.IsInf(ticksPerNs, 0) || math.IsNaN(ticksPerNs) {
		t.Fatalf("rate %v", ticksPerNs)
	}
	n0, t0 := nanotime(), ticks()
	time.Sleep(20 * time.Millisecond)
	t1, n1 := ticks(), nanotime()
	got, want := ticksToNs(t1-t0), time.Duration(n1-n0)
	// The two pairs of readings are a few ns apart; the rate's own error
	// is far under 1%.
	if diff := got - want; diff > want/100 || -diff > want/100 {
		t.Errorf("a sleep of %v measured %v in ticks", want, got)
	}
	if nsToTicks(math.MaxInt64) != math.MaxInt64 {
		t.Error("no threshold (MaxInt64) became one")
	}
	ms := nsToTicks(int64(time.Millisecond))
	if d := ticksToNs(ms) - time.Millisecond; d > time.Microsecond || d < -time.Microsecond {
		t.Errorf("1 ms -> %d ticks -> %v", ms, ticksToNs(ms))
	}
}

package shard

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/metrics"
)

// Command latency. Reading the clock around every command would cost a
// tenth of a pipelined GET, so a shard times one call in latencyEvery
// (whatever the command; while the slow log times every command, one in
// latencyEvery and each command's first) and files its duration in a histogram per
// command row whose buckets are powers of two of a second: bucket k holds
// durations in (2^(k-1), 2^k] s, which is Prometheus's native histogram
// schema 0. INFO commandstats' usec scales the sampled sum back to every
// call; INFO latencystats and the metrics endpoint read the histograms.
//
// A histogram is written by its shard only (a load and a store, no
// read-modify-write across goroutines) and read by INFO and scrapes at
// any time.

// latencyEvery is the sampling period: one timed call in so many.
const latencyEvery = 16

// Bucket exponents kept: 2^minLatExp s (about 1 ns) to 2^maxLatExp s;
// durations outside are counted in the end buckets.
const (
	minLatExp  = -30
	maxLatExp  = 7
	latBuckets = maxLatExp - minLatExp + 1
)

// latency is one command row's sampled durations.
type latency struct {
	count   atomic.Uint64 // timed calls
	sumNs   atomic.Uint64
	buckets [latBuckets]atomic.Uint64
}

// observe files one timed call of spec.
func (st *shardStats) observe(spec *command.Spec, d time.Duration) {
	h := &st.lat[spec.ID()]
	h.count.Store(h.count.Load() + 1)
	h.sumNs.Store(h.sumNs.Load() + uint64(d))
	b := &h.buckets[latBucket(d)-minLatExp]
	b.Store(b.Load() + 1)
}

// latBucket is the exponent k of the bucket (2^(k-1), 2^k] s holding d,
// clamped to the kept range.
func latBucket(d time.Duration) int {
	if d <= 0 {
		return minLatExp
	}
	frac, exp := math.Frexp(d.Seconds()) // d = frac * 2^exp, frac in [0.5, 1)
	if frac == 0.5 {
		exp-- // exactly 2^(exp-1): the upper bound of the bucket below
	}
	return min(max(exp, minLatExp), maxLatExp)
}

// read copies a histogram.
func (h *latency) read() metrics.Histogram {
	s := metrics.Histogram{Count: h.count.Load(), Sum: float64(h.sumNs.Load()) / 1e9}
	for i := range h.buckets {
		if n := h.buckets[i].Load(); n != 0 {
			if s.Buckets == nil {
				s.Buckets = map[int]uint64{}
			}
			s.Buckets[i+minLatExp] = n
		}
	}
	return s
}

// reset clears a histogram (CONFIG RESETSTAT), on its shard.
func (h *latency) reset() {
	h.count.Store(0)
	h.sumNs.Store(0)
	for i := range h.buckets {
		h.buckets[i].Store(0)
	}
}

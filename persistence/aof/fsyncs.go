package aof

import (
	"errors"
	"math"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Bucket exponents of the fsync histogram: bucket k holds durations in
// (2^(k-1), 2^k] s (Prometheus's native schema 0), from 2^DurMinExp s
// (about 1 ns) to 2^DurMaxExp s; durations outside count in the end
// buckets.
const (
	DurMinExp  = -30
	DurMaxExp  = 7
	durBuckets = DurMaxExp - DurMinExp + 1
)

// Durations is a copy of a Log's fsync histogram: Buckets[k-DurMinExp]
// counts the fsyncs that took (2^(k-1), 2^k] s.
type Durations struct {
	Count, SumNs uint64
	Buckets      [durBuckets]uint64
}

// durations is the histogram, written by the Log's writer and syncers,
// read at any time.
type durations struct {
	count, sumNs atomic.Uint64
	buckets      [durBuckets]atomic.Uint64
}

func (h *durations) observe(d time.Duration) {
	h.count.Add(1)
	h.sumNs.Add(uint64(max(d, 0)))
	k := DurMinExp
	if d > 0 {
		frac, exp := math.Frexp(d.Seconds()) // d = frac * 2^exp, frac in [0.5, 1)
		if frac == 0.5 {
			exp-- // exactly 2^(exp-1): the upper bound of the bucket below
		}
		k = min(max(exp, DurMinExp), DurMaxExp)
	}
	h.buckets[k-DurMinExp].Add(1)
}

func (h *durations) read() Durations {
	d := Durations{Count: h.count.Load(), SumNs: h.sumNs.Load()}
	for i := range h.buckets {
		d.Buckets[i] = h.buckets[i].Load()
	}
	return d
}

// sync makes the Log's file durable and files how long it took: with
// fdatasync, as Redis does on Linux (the data and the size that reads it
// back, not the times).
func (l *Log) sync() error {
	start := time.Now()
	err := fdatasync(l.f)
	l.fsyncs.observe(time.Since(start))
	return err
}

// fdatasync is fdatasync(2) on f, retried on EINTR, its error an
// *os.PathError as File.Sync's.
func fdatasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
		}
		return nil
	}
}

// Fsyncs is the histogram of the Log's fsyncs (of every file it wrote).
// Safe from any goroutine.
func (l *Log) Fsyncs() Durations { return l.fsyncs.read() }

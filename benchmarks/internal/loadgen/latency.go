package loadgen

import (
	"math/bits"
	"time"
)

// Latency is a histogram of batch round trips (a batch's write to its
// last reply; one request's at Pipeline 1): log-linear buckets, subBits
// bits below each power of two, so a bucket is within 1/32 of its value.
type Latency struct {
	counts [64 << subBits]int64
	n      int64
	max    time.Duration
}

const subBits = 5

// bucket is d's bucket: d itself below 2^(subBits+1) ns, else its top
// subBits+1 bits and its exponent.
func bucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < 2<<subBits {
		return int(v)
	}
	e := bits.Len64(v) - subBits - 1
	return e<<subBits + int(v>>e)
}

// lower is the least duration in bucket i.
func lower(i int) time.Duration {
	if i < 2<<subBits {
		return time.Duration(i)
	}
	e := i>>subBits - 1
	return time.Duration(uint64(i-e<<subBits) << e)
}

// Add counts one round trip.
func (l *Latency) Add(d time.Duration) {
	l.counts[bucket(d)]++
	l.n++
	l.max = max(l.max, d)
}

// Merge adds o's counts to l's.
func (l *Latency) Merge(o *Latency) {
	for i, c := range o.counts {
		l.counts[i] += c
	}
	l.n += o.n
	l.max = max(l.max, o.max)
}

// Quantile is the round trip below which a share q of them were (the
// lower bound of its bucket); 0 with none counted.
func (l *Latency) Quantile(q float64) time.Duration {
	if l.n == 0 {
		return 0
	}
	rank := int64(q * float64(l.n))
	if rank >= l.n {
		return l.max
	}
	for i, c := range l.counts {
		if rank < c {
			return lower(i)
		}
		rank -= c
	}
	return l.max
}

// Max is the longest round trip.
func (l *Latency) Max() time.Duration { return l.max }

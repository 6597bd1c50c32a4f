package loadgen

import (
	"testing"
	"time"
)

// TestLatencyBuckets: every duration falls in a bucket whose lower bound
// is at most it and within 1/32 of it, and buckets are in order.
func TestLatencyBuckets(t *testing.T) {
	prev := -1
	for d := time.Duration(0); d < 10*time.Second; d = d*17/16 + 1 {
		i := bucket(d)
		if i < prev {
			t.Fatalf("bucket(%v) = %d after %d", d, i, prev)
		}
		prev = i
		if lo := lower(i); lo > d || float64(d-lo) > float64(d)/32 {
			t.Fatalf("bucket(%v) = %d, whose lower bound is %v", d, i, lo)
		}
	}
}

// TestLatencyQuantile: quantiles of 1..1000 µs come out within a bucket.
func TestLatencyQuantile(t *testing.T) {
	var l, m Latency
	for i := 1; i <= 1000; i++ {
		if i%2 == 0 {
			l.Add(time.Duration(i) * time.Microsecond)
		} else {
			m.Add(time.Duration(i) * time.Microsecond)
		}
	}
	l.Merge(&m)
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 501 * time.Microsecond}, {0.99, 991 * time.Microsecond}, {1, 1000 * time.Microsecond}} {
		if got := l.Quantile(c.q); got > c.want || float64(c.want-got) > float64(c.want)/32 {
			t.Errorf("Quantile(%v) = %v, want about %v", c.q, got, c.want)
		}
	}
	if l.Max() != time.Millisecond {
		t.Errorf("Max = %v", l.Max())
	}
}

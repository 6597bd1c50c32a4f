package shard

import (
	"testing"
	"time"
)

// TestLatBucket: bucket k holds durations in (2^(k-1), 2^k] seconds.
func TestLatBucket(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{0, minLatExp}, {time.Nanosecond, -29}, {time.Second, 0}, {time.Second + 1, 1}, {1500 * time.Millisecond, 1},
		{2 * time.Second, 1}, {time.Second / 2, -1}, {time.Second/2 + 1, 0}, {100 * time.Nanosecond, -23},
		{time.Hour, maxLatExp},
	} {
		if got := latBucket(c.d); got != c.want {
			t.Errorf("latBucket(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

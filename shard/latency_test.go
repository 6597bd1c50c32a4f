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

// TestRedisLabel checks LATENCY HISTOGRAM's bucket labels against those
// redis-server 7.0.15 prints for buckets of up to 2^10 ... 2^30 ns (a
// label of 2^n + 2^(n-7) - 1 ns, the highest equivalent value alone, is
// 1 to 66 µs short from 2^24 ns on).
func TestRedisLabel(t *testing.T) {
	want := []int64{1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16909, 33818,
		67637, 135274, 270549, 541098, 1082196}
	for i, w := range want {
		if got := redisLabel(10 + i); got != w {
			t.Errorf("redisLabel(%d) = %d, want %d", 10+i, got, w)
		}
	}
}

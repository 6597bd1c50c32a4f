//go:build linux

package ioloop

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// waker wakes the other loop each time its own is woken, until left runs
// out.
type waker struct {
	lineHandler
	self, other Driver
	wake        func(self, other Driver)
	left, stop  *atomic.Int64
}

func (w *waker) OnWake() {
	if w.left.Add(-1) <= 0 {
		w.stop.Store(1)
		w.other.Wake()
		return
	}
	w.wake(w.self, w.other)
}

// BenchmarkCrossWake: two loops on their own threads wake each other in
// turn, as two shards do for a hop and its reply at -P 1; an op is one
// round trip (two wakes), mostly the kernel waking a sleeping thread.
func BenchmarkCrossWake(b *testing.B) {
	for _, c := range []struct {
		name string
		wake func(self, other Driver)
	}{
		{"Wake", func(_, other Driver) { other.Wake() }},
		{"WakeOther", func(self, other Driver) { self.WakeOther(other) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			crossWake(b, c.wake)
		})
	}
}

func crossWake(b *testing.B, wake func(self, other Driver)) {
	var left, stop atomic.Int64
	left.Store(int64(2 * b.N))
	drivers := make([]Driver, 2)
	ready, done := sync.WaitGroup{}, sync.WaitGroup{}
	start := make(chan struct{})
	ready.Add(2)
	done.Add(2)
	for i := range drivers {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			d, err := NewUring(Options{})
			drivers[i] = d
			ready.Done()
			if err != nil {
				return
			}
			<-start
			h := &waker{self: d, other: drivers[1-i], wake: wake, left: &left, stop: &stop}
			for stop.Load() == 0 {
				if err := d.Poll(-1, h); err != nil {
					b.Error(err)
					break
				}
			}
			d.Shutdown()
		}()
	}
	ready.Wait()
	if drivers[0] == nil || drivers[1] == nil {
		b.Skip("no io_uring")
	}
	b.ResetTimer()
	close(start)
	drivers[0].Wake()
	done.Wait()
}

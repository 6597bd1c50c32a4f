package shard

import (
	"runtime"
	"time"
)

// A shard's goroutine is locked to its thread and never blocks in the Go
// scheduler (it waits in io_uring_enter), so its P's schedule tick never
// moves. The runtime's sysmon takes a P whose tick stood still for 10 ms
// for a goroutine hogging it: it sends the thread a preemption signal
// (SIGURG) when the shard runs Go code, or takes the P away when the
// shard is in a system call, and every such take puts sysmon back to
// waking every 20 µs. Under load that was thousands of sysmon wake-ups a
// second and about 80 preemption signals (each a hand-off of the locked
// thread through another thread) on the server's CPU, every one a
// context switch away from the shards (PUBLISH -P 1 to 1 subscriber, 2
// shards on one CPU: sysmon took 10 to 15% of the server's CPU time). A
// yield to the scheduler every yieldEvery moves the tick, so sysmon sees
// no hog and backs off to its 10 ms period; the yield costs one hand-off
// of the thread, 200 times a second at most.

// yieldEvery is how long a shard runs between yields: under the 10 ms
// after which sysmon acts.
const yieldEvery = 5 * time.Millisecond

// yield yields the shard's goroutine to the scheduler when yieldEvery
// passed since it last did (at last), and returns when it last did.
func yield(now, last time.Time) time.Time {
	if now.Sub(last) < yieldEvery {
		return last
	}
	runtime.Gosched()
	return now
}

package aof

import (
	"os"
	"time"
)

// The loop's own path under appendfsync always. Handing each turn's bytes
// to the writer, and the writer's fdatasync to a syncer, costs three
// threads taking turns on the shard's core for every group commit: the
// loop wakes the writer, the writer a syncer, the syncer the loop (a
// futex or an eventfd write, a thread switch, the Go scheduler's work,
// each time). Where the shard's driver runs fdatasyncs off its thread
// (io_uring: IORING_OP_FSYNC, done by a kernel worker, its completion
// reaped by the loop's own wait), the loop instead writes the turn's
// bytes itself, a copy into the page cache, and asks its driver for the
// fdatasync; the completion moves Durable in the loop's next poll, and the
// turn after it releases the replies. One fdatasync is in flight at a
// time, as with the syncer: while it is, the turns' bytes wait in the
// buffer, counted as submitted, and go in one write and one fdatasync at
// its completion.
//
// The Log is "direct" while the loop owns the file that way; the writer
// then stays parked. The loop goes direct only when the writer is parked
// with nothing taken, nothing failing and no rotation ahead, and leaves
// (leave) at a rotation, a failed write or fdatasync, a policy other than
// always, a driver that refuses, or the loop's detaching (UseLoop(nil))
// or end (Close): what the buffer still holds goes to the writer as a
// turn's bytes, and the writer fdatasyncs what the loop wrote before it
// writes anything (resync). Bytes are only ever written by the one that
// owns the file, so they reach it in order; an fdatasync in flight at a
// hand-over ends on its own, moving Durable up to what it covers.

// ringSync is the loop's fdatasync: busy while in flight, the position it
// covers, when and of which file.
type ringSync struct {
	busy  bool
	at    uint64
	start time.Time
	name  string
	done  func(error)
}

// UseLoop gives the Log the shard's driver's way to run an fdatasync off
// the loop (ioloop.Driver.Fsync), or takes it back (nil): the Log stops
// using the loop at once. Called on the shard's goroutine.
func (l *Log) UseLoop(fsync func(fd int, done func(error)) bool) {
	if fsync == nil && l.direct {
		l.handBack()
	}
	l.loopSync = fsync
	if l.ring.done == nil {
		l.ring.done = l.ringDone
	}
}

// submitDirect is Submit's path under always with a loop that runs
// fdatasyncs: it reports whether the Log is (or went) direct, and then
// writes the buffer, unless its fdatasync is in flight.
func (l *Log) submitDirect() bool {
	if l.fsync.Load() != FsyncAlways {
		if l.direct {
			l.handBack()
		}
		return false
	}
	if !l.direct {
		l.mu.Lock()
		l.direct = l.idle && len(l.pending) == 0 && len(l.rots) == 0 && !l.stop && !l.resync && l.failed.Load() == nil
		l.mu.Unlock()
		if !l.direct {
			return false
		}
	}
	l.writeDirect()
	return true
}

// writeDirect writes the bytes submitted (the first held of the buffer)
// and asks the driver for their fdatasync, unless one is in flight: then
// they wait for its completion.
func (l *Log) writeDirect() {
	r := &l.ring
	if r.busy || l.held == 0 {
		return
	}
	// The writer's own write (its scratch is the loop's while it is
	// parked): the file never ends in half a turn.
	l.one[0] = l.buf[:l.held]
	n, err := l.write(l.one[:], 0, l.held)
	l.one[0] = nil
	at := l.written.Add(uint64(n))
	// What a busy loop's poll found mid-turn stays: appended since.
	l.buf = l.buf[:copy(l.buf, l.buf[n:])]
	l.held -= n
	if err != nil {
		l.fail(err)
		l.handBack() // the writer tries again
		return
	}
	r.busy, r.at, r.start, r.name = true, at, time.Now(), l.f.Name()
	if !l.loopSync(int(l.f.Fd()), r.done) {
		r.busy = false
		l.handBack() // the writer fdatasyncs it
	}
}

// ringDone is the completion of the loop's fdatasync, on the shard's
// goroutine: Durable moves to what it covered, and the bytes that waited
// for it go; a failure hands the file to the writer, which fdatasyncs
// again until it works, MISCONF meanwhile.
func (l *Log) ringDone(err error) {
	r := &l.ring
	r.busy = false
	l.fsyncs.observe(time.Since(r.start))
	if err != nil {
		l.fail(&os.PathError{Op: "fdatasync", Path: r.name, Err: err})
		l.mu.Lock()
		if l.direct {
			l.leave()
		} else {
			l.resync = true
			l.poke()
		}
		l.mu.Unlock()
		return
	}
	advance(&l.fsynced, r.at)
	advance(&l.durable, r.at)
	if l.direct && l.held > 0 {
		l.submitDirect() // what waited, unless the policy changed meanwhile
	}
}

// handBack is leave with l.mu taken.
func (l *Log) handBack() {
	l.mu.Lock()
	l.leave()
	l.mu.Unlock()
}

// leave hands the file back to the writer (l.mu held, on the shard's
// goroutine or once it ended): the bytes submitted and not written become
// a turn's bytes for it, and it fdatasyncs what the loop wrote.
func (l *Log) leave() {
	l.direct = false
	l.resync = true
	if l.held > 0 {
		rest := l.buf[l.held:]
		l.pending = append(l.pending, l.buf[:l.held])
		l.buf = append(l.takeFree(len(rest)), rest...)
		l.held = 0
	}
	l.poke()
}

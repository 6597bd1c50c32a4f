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
// turn after it releases the replies. At most syncers fdatasyncs are in
// flight, as with the syncers: while all are, the turns' bytes wait in the
// buffer, counted as submitted, and go in one write and one fdatasync at
// the next completion.
//
// The Log is "direct" while the loop owns the file that way; the writer
// then stays parked. The loop goes direct only when the writer is parked
// with nothing taken, nothing failing and no rotation ahead, and leaves
// (leave) at a rotation, a failed write or fdatasync, a policy other than
// always, a driver that refuses, or the loop's detaching (UseLoop(nil))
// or end (Close): what the buffer still holds goes to the writer as a
// turn's bytes, and the writer fdatasyncs what the loop wrote before it
// writes anything (resync). Bytes are only ever written by the one that
// owns the file, so they reach it in order; the fdatasyncs in flight at a
// hand-over end on their own, each moving Durable up to what it covers.

// ringSync is one of the loop's fdatasyncs: busy while in flight, the
// position it covers, the Log's failure count when it was asked (a
// success asked before a failure moves nothing: the failure's bytes may
// be lost whatever a later fdatasync says), when and of which file.
type ringSync struct {
	busy  bool
	at    uint64
	gen   uint64
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
	for i := range l.rings {
		if l.rings[i].done == nil {
			l.rings[i].done = func(err error) { l.ringDone(i, err) }
		}
	}
}

// submitDirect is Submit's path under always with a loop that runs
// fdatasyncs: it reports whether the Log is (or went) direct, and then
// writes the buffer, unless every fdatasync is in flight.
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
// and asks the driver for their fdatasync, unless every one is in flight:
// then they wait for the next completion.
func (l *Log) writeDirect() {
	slot := -1
	for i := range l.rings {
		if !l.rings[i].busy {
			slot = i
			break
		}
	}
	if slot < 0 || l.held == 0 {
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
	r := &l.rings[slot]
	r.busy, r.at, r.gen, r.start, r.name = true, at, l.ringGen, time.Now(), l.f.Name()
	if !l.loopSync(int(l.f.Fd()), r.done) {
		r.busy = false
		l.handBack() // the writer fdatasyncs it
	}
}

// ringDone is the completion of the loop's fdatasync i, on the shard's
// goroutine: Durable moves to what it covered, and the bytes that waited
// for it go; a failure hands the file to the writer, which fdatasyncs
// again until it works, MISCONF meanwhile.
func (l *Log) ringDone(i int, err error) {
	r := &l.rings[i]
	r.busy = false
	l.fsyncs.observe(time.Since(r.start))
	if err != nil {
		l.ringGen++
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
	if r.gen == l.ringGen {
		advance(&l.fsynced, r.at)
		advance(&l.durable, r.at)
	}
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

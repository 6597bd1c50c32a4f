package aof

import "time"

// Under appendfsync always the writer does not wait for its fdatasyncs:
// each write's is handed to a syncer goroutine, and the writer goes on to
// the next write while it runs, until syncers fdatasyncs are in flight;
// then it waits for one to end, and what the loop submitted meanwhile goes
// in one write and one fdatasync.
//
// One at a time, as Redis's own fdatasync in beforeSleep: while one
// runs, the writes of the clients whose replies the last one released
// gather, and the next covers them all. Two in flight let a request wait
// for about one fdatasync instead of up to two, but each covers half as
// many writes: on a virtual disk, where an fdatasync costs the server
// 50-70 µs of CPU (the kernel's worker, the device's doorbell and
// interrupts), two cost 3-20% more CPU per SET and served fewer, whether
// the loop or this writer ran them, and four served no more than two
// (benchmarks/results/2026-12-08-aof-one-in-flight.txt).
//
// An fdatasync covers every byte written before it started, so each one
// moves Durable (and Fsynced) to the position written when it was handed
// over, never back: one that ends before an earlier one covers the
// earlier one's bytes too.

// syncers is how many fdatasyncs a Log has in flight at most.
const syncers = 1

// startSyncers starts the Log's syncers.
func (l *Log) startSyncers() {
	l.slots = make(chan struct{}, syncers)
	l.syncReq = make(chan uint64, syncers)
	l.syncWG.Add(syncers)
	for range syncers {
		go l.syncer()
	}
}

// stopSyncers ends the syncers once their fdatasyncs ended (the writer's,
// at its end, before the file is closed).
func (l *Log) stopSyncers() {
	close(l.syncReq)
	l.syncWG.Wait()
}

// handOff hands the fdatasync of everything written up to at to a
// syncer; the writer took a slot for it (takeSlot).
func (l *Log) handOff(at uint64) { l.syncReq <- at }

// takeSlot waits until fewer than syncers fdatasyncs are in flight and
// takes a slot for the next; freeSlot gives back one not used.
func (l *Log) takeSlot() { l.slots <- struct{}{} }
func (l *Log) freeSlot() { <-l.slots }

// syncer runs the fdatasyncs handed to it, each until it works (every
// retryEvery while it fails, as the writer's), or, after Close, once:
// the writer's last fdatasync then covers it.
func (l *Log) syncer() {
	defer l.syncWG.Done()
	for at := range l.syncReq {
		for !l.syncTo(at) && !l.stopping() {
			time.Sleep(retryEvery)
		}
		l.freeSlot()
	}
}

// syncTo fdatasyncs the file, everything up to at being written, and on
// success moves Durable and Fsynced up to at and wakes the shard.
func (l *Log) syncTo(at uint64) bool {
	l.fileMu.RLock()
	err := l.sync()
	l.fileMu.RUnlock()
	if err != nil {
		l.syncFailing.Store(true)
		l.fail(err)
		return false
	}
	l.syncFailing.Store(false)
	l.settle()
	advance(&l.fsynced, at)
	if advance(&l.durable, at) {
		l.wake()
	}
	return true
}

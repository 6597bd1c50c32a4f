package aof

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/command"
)

// Fsync policies (appendfsync).
const (
	FsyncNo       = iota // write only; the kernel flushes when it likes
	FsyncEverySec        // write at once, fsync about once a second
	FsyncAlways          // write and fsync before the writes are acknowledged
)

// ParseFsync maps appendfsync's value to its policy.
func ParseFsync(s string) int32 {
	switch s {
	case "always":
		return FsyncAlways
	case "no":
		return FsyncNo
	}
	return FsyncEverySec
}

// retryEvery is how often a failed write or fsync is tried again.
const retryEvery = 100 * time.Millisecond

// writeEvery is, under everysec and no, the least time between two of the
// writer's writes: the turns submitted meanwhile go in the next one. While
// turns come faster than that the writer sleeps writeEvery after each
// write and then takes what came, so a busy shard's loop never wakes it
// (no futex, no thread switch on the loop's core: each costs more than
// the turn's SETs) and it runs once per writeEvery; slower turns wake it,
// and it writes at once and waits again, one wake per write. A
// kill -9 loses at most what the last writeEvery submitted, well inside
// the second everysec may lose. An idle writer woken by a submission
// writes at once. 10 ms rather than 1: a shard serving pipelined SETs
// spent 12% more CPU per SET with the AOF than without at 1 ms, 7% at 10
// and no less at 50 (the rest is the bytes' encoding and write(2)'s copy;
// benchmarks/HISTORY.md, "The eleventh session's findings").
const writeEvery = 10 * time.Millisecond

// iovMax is the most chunks one writev takes (Linux's IOV_MAX).
const iovMax = 1024

// freeMax is the most emptied buffers the writer keeps for the loop's next
// turns, and freeCap the largest it keeps (a burst's buffers go back to
// the heap).
const (
	freeMax = 1024
	freeCap = 1 << 20
	minBuf  = 4096 // the least a new buffer holds
)

// Log is one shard's open incremental file and its writer.
//
// The shard's goroutine encodes each turn's effects (Append) into the
// turn's buffer and hands the buffer over (Submit: a lock to append it to
// the pending chunks and take an emptied one, no copy); the writer, a
// goroutine of its own, writes every chunk handed over with one writev and,
// as the policy says, fsyncs it, then gives the chunks back. Nothing the
// loop does waits for the disk: a slow or failing disk makes the handed
// over bytes pile up in memory, and Durable and Err say where the writer
// stands. Positions are byte counts since the Log opened (sequence
// numbers): Submit returns the position after the turn's bytes, Durable
// the position up to which the bytes are on disk as the policy requires
// (written for no and everysec; written and fsynced for always).
type Log struct {
	f     *os.File
	path  string
	epoch int64
	fsync atomic.Int32
	stamp atomic.Bool // aof-timestamp-enabled
	// wake is called by the writer once Durable moved under always, or Err
	// changed: the shard's loop then releases what waited for it.
	wake func()

	// Owned by the shard's goroutine. held is, while the Log is direct,
	// how many bytes at the head of buf are submitted and not written.
	buf      []byte
	held     int
	db       int   // the database the log last SELECTed; -1 before the first
	stamped  int64 // the unix second of the last #TS annotation
	started  bool
	appended uint64
	// submitted is appended, for other goroutines.
	submitted atomic.Uint64
	// logged counts the commands appended, markers aside (INFO's
	// aof_logged_commands).
	logged atomic.Uint64

	// The loop's path under always (direct.go): its driver's fdatasync,
	// and the one it asked for.
	loopSync func(fd int, done func(error)) bool
	ring     ringSync

	mu      sync.Mutex
	direct  bool       // the loop writes the file (direct.go); set by it, under mu
	resync  bool       // the loop left direct: the writer fdatasyncs what it wrote
	pending [][]byte   // turns handed over, not yet taken by the writer
	free    [][]byte   // emptied buffers for the next turns (at most freeMax)
	idle    bool       // the writer waits for a kick, which the next Submit sends
	rots    []rotation // file switches at positions ahead of the writer (Rotate)
	stop    bool
	kick    chan struct{}
	done    chan struct{}

	// Owned by the writer (and by the loop while it is direct). one is
	// the loop's turn as write's one chunk.
	iov    []unix.Iovec
	one    [1][]byte
	writes atomic.Uint64 // write system calls (INFO's aof_writes)
	// written is the position written up to, by the writer or, direct,
	// the loop.
	written atomic.Uint64

	// The syncers (always, syncers.go). fileMu is held shared by their
	// fdatasyncs and exclusively by a rotation's switch of f.
	fileMu       sync.RWMutex
	slots        chan struct{} // one per fdatasync in flight
	syncReq      chan uint64   // the position an fdatasync covers
	syncWG       sync.WaitGroup
	writeFailing atomic.Bool // the writer's last write or fdatasync failed
	syncFailing  atomic.Bool // a syncer's last fdatasync failed

	durable atomic.Uint64
	fsynced atomic.Uint64          // written and fsynced, whatever the policy (WAITAOF)
	failed  atomic.Pointer[string] // the reason of the failing write or fsync; nil when the last one worked
	size    atomic.Int64           // the incremental file's size
	fsyncs  durations              // how long each fsync took
	failing *atomic.Int32          // the Set's count of failing Logs
}

// openLog opens path for appending and starts its writer.
func openLog(path string, epoch int64, fsync int32, failing *atomic.Int32, wake func()) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &Log{f: f, path: path, epoch: epoch, wake: wake, failing: failing, db: -1, kick: make(chan struct{}, 1), done: make(chan struct{})}
	l.fsync.Store(fsync)
	l.size.Store(st.Size())
	l.startSyncers()
	go l.run()
	return l, nil
}

// SetFsync changes the policy (CONFIG SET appendfsync); safe from any
// goroutine.
func (l *Log) SetFsync(p int32) {
	l.fsync.Store(p)
	l.poke()
}

// SetTimestamps turns the "#TS:<unix seconds>" annotations on or off
// (aof-timestamp-enabled); safe from any goroutine.
func (l *Log) SetTimestamps(on bool) { l.stamp.Store(on) }

// Append encodes a turn's effects at the end of the turn's bytes: each as
// its RESP command, a SELECT before one in another database than the one
// before, and a RADISH.PART marker before the effects of one shard's part
// of a cross-shard transaction, which says how many commands follow (see
// doc.go), and one with no command after it for each part that wrote
// nothing here. The first bytes a Log writes are a RADISH.EPOCH marker. With
// aof-timestamp-enabled a turn in a new second starts with Redis's
// annotation "#TS:<unix seconds>". It allocates nothing once the buffer
// has grown. A PUBLISH (command.CausePublish) is not logged, as Redis
// logs none (a part of a transaction that only published is marked as
// one that wrote nothing).
func (l *Log) Append(fx *command.Effects) {
	k := fx.Len()
	first := 0
	for first < k && fx.Peek(first).Cause == command.CausePublish && fx.Peek(first).Tag.Txn == 0 {
		first++
	}
	if first == k && len(fx.EmptyParts()) == 0 {
		return
	}
	if !l.started {
		l.started = true
		l.buf = appendCmd(l.buf, "RADISH.EPOCH", l.epoch)
	}
	if sec := fx.Now / 1000; l.stamp.Load() && sec > l.stamped {
		l.stamped = sec
		l.buf = append(l.buf, "#TS:"...)
		l.buf = strconv.AppendInt(l.buf, sec, 10)
		l.buf = append(l.buf, "\r\n"...)
	}
	logged := 0
	for i := first; i < k; {
		e := fx.Peek(i)
		j := i + 1
		if e.Cause == command.CausePublish && e.Tag.Txn == 0 {
			i = j
			continue
		}
		if e.Tag.Txn == 0 {
			// A run of effects in one database, outside a part: one copy.
			for j < k {
				if f := fx.Peek(j); f.DB != e.DB || f.Tag.Txn != 0 || f.Cause == command.CausePublish {
					break
				}
				j++
			}
			l.selectDB(e.DB)
			l.buf = append(l.buf, fx.Span(i, j)...)
			logged += j - i
			i = j
			continue
		}
		// The part's effects are adjacent: count them, and the SELECTs
		// among them, for the marker.
		n, db := 0, l.db
		for j = i; j < k; j++ {
			f := fx.Peek(j)
			if f.Tag != e.Tag {
				break
			}
			if f.Cause == command.CausePublish {
				continue
			}
			if f.DB != db {
				n++
				db = f.DB
			}
			logged++
			n++
		}
		l.buf = appendCmd(l.buf, "RADISH.PART", int64(e.Tag.Txn), int64(e.Tag.Part), int64(e.Tag.Parts), int64(n))
		for ; i < j; i++ {
			f, cmd := fx.At(i)
			if f.Cause == command.CausePublish {
				continue
			}
			l.selectDB(f.DB)
			l.buf = append(l.buf, cmd...)
		}
	}
	for _, t := range fx.EmptyParts() {
		l.buf = appendCmd(l.buf, "RADISH.PART", int64(t.Txn), int64(t.Part), int64(t.Parts), 0)
	}
	l.logged.Store(l.logged.Load() + uint64(logged))
}

// selectDB appends a SELECT when db is not the database the log is in.
func (l *Log) selectDB(db int) {
	if db != l.db {
		l.buf = appendCmd(l.buf, "SELECT", int64(db))
		l.db = db
	}
}

// appendCmd appends a command of a name and integer arguments.
func appendCmd(b []byte, name string, ints ...int64) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(1+len(ints)), 10)
	b = append(b, "\r\n$"...)
	b = strconv.AppendInt(b, int64(len(name)), 10)
	b = append(b, "\r\n"...)
	b = append(b, name...)
	b = append(b, "\r\n"...)
	for _, v := range ints {
		var d [20]byte
		s := strconv.AppendInt(d[:0], v, 10)
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, "\r\n"...)
		b = append(b, s...)
		b = append(b, "\r\n"...)
	}
	return b
}

// Submit hands the turn's bytes to the writer and returns the position
// after them. Called on the shard's goroutine, once per turn that wrote:
// the turn's buffer joins the pending chunks and an emptied one becomes
// the next turn's; the writer is woken only when it waits for work. Under
// always, with a loop that runs fdatasyncs (UseLoop), the loop may write
// them itself instead (direct.go).
func (l *Log) Submit() uint64 {
	if len(l.buf) == l.held {
		return l.appended
	}
	l.appended += uint64(len(l.buf) - l.held)
	l.submitted.Store(l.appended)
	l.held = len(l.buf)
	if l.loopSync != nil && l.submitDirect() || len(l.buf) == 0 {
		return l.appended // direct, or leaving it handed them over
	}
	l.held = 0
	l.mu.Lock()
	l.pending = append(l.pending, l.buf)
	l.buf = l.takeFree(len(l.buf))
	wake := l.idle
	l.idle = false
	l.mu.Unlock()
	if wake {
		l.poke()
	}
	return l.appended
}

// takeFree returns an emptied buffer for the next turn's bytes (l.mu
// held): one the writer gave back or, every one pending (a slow disk, or
// a longer run of turns than before), a new one of at least size bytes.
func (l *Log) takeFree(size int) []byte {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		return b
	}
	return make([]byte, 0, max(size, minBuf))
}

// rotation is a switch to a new incremental file at position at: the
// writer fsyncs the file it writes up to at, then calls open with that
// file's size for the new one and its size, which it writes after from
// then on, then done.
type rotation struct {
	at   uint64
	open func(oldSize int64) (*os.File, int64, error)
	done func()
}

// Rotate ends the turn's bytes with the marker RADISH.CUT <cut> and
// moves the Log to another file from there on (a rewrite, see doc.go):
// the bytes after the marker go to the file open returns with its size,
// which open created holding RADISH.EPOCH and RADISH.BASE <cut>, fsynced:
// so the file names its cut before done runs, whether or not the shard
// logs anything after it. The writer makes the old file durable
// before it calls open (on its goroutine, retried every 100 ms while it
// fails, as a failed write), and calls done once the new file is the
// Log's. Positions run on across the files (the markers open wrote are
// not in them). Called on the shard's goroutine.
func (l *Log) Rotate(cut int64, open func(oldSize int64) (*os.File, int64, error), done func()) {
	if l.direct {
		l.mu.Lock()
		l.leave() // the writer switches files
		l.mu.Unlock()
	}
	l.buf = appendCmd(l.buf, "RADISH.CUT", cut)
	at := l.appended + uint64(len(l.buf))
	l.mu.Lock()
	l.rots = append(l.rots, rotation{at: at, open: open, done: done})
	l.mu.Unlock()
	l.Submit()
	l.started, l.db, l.stamped = true, -1, 0
}

// Begin starts a Log an AOF turned on at run time writes from its cut on:
// RADISH.EPOCH, then RADISH.BASE <cut>. Called on the shard's goroutine
// before anything is appended.
func (l *Log) Begin(cut int64) {
	l.started = true
	l.buf = appendCmd(l.buf, "RADISH.EPOCH", l.epoch)
	l.buf = appendCmd(l.buf, "RADISH.BASE", cut)
}

// Submitted is the position after the bytes handed over (Submit); safe
// from any goroutine.
func (l *Log) Submitted() uint64 { return l.submitted.Load() }

// Fsynced is the position up to which the bytes are written and fsynced,
// whatever the policy (everysec: within about a second); safe from any
// goroutine.
func (l *Log) Fsynced() uint64 { return l.fsynced.Load() }

// Appended is the position after the last bytes submitted (shard's
// goroutine only).
func (l *Log) Appended() uint64 { return l.appended }

// Durable is the position up to which the bytes are on disk as the
// policy requires. Safe from any goroutine.
func (l *Log) Durable() uint64 { return l.durable.Load() }

// Err is the reason the last write or fsync failed ("" when it worked),
// in the words of C's strerror. Safe from any goroutine.
func (l *Log) Err() string {
	if p := l.failed.Load(); p != nil {
		return *p
	}
	return ""
}

// Logged is the number of commands appended, markers aside; Writes the
// number of write system calls and Fsyncs().Count of fsyncs the writer
// made: Logged over Fsyncs is how many commands one fsync covered. Safe
// from any goroutine.
func (l *Log) Logged() uint64 { return l.logged.Load() }

// Writes is the number of the writer's write system calls (see Logged).
func (l *Log) Writes() uint64 { return l.writes.Load() }

// Size is the incremental file's size in bytes, as written so far.
func (l *Log) Size() int64 { return l.size.Load() }

// Pending is the number of bytes submitted and not yet on disk (INFO's
// aof_buffer_length). Safe from any goroutine.
func (l *Log) Pending() uint64 { return l.submitted.Load() - l.durable.Load() }

// stopping reports whether Close was called.
func (l *Log) stopping() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stop
}

func (l *Log) poke() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Close writes and fsyncs what was submitted (waiting for a failing disk
// at most a few retries), stops the writer and closes the file. Called
// once the shard's loop ended or stopped using the Log (UseLoop(nil)).
func (l *Log) Close() error {
	l.mu.Lock()
	l.stop = true
	if l.direct {
		l.leave()
	}
	l.mu.Unlock()
	l.poke()
	<-l.done
	return l.f.Close()
}

// run is the writer. It takes every chunk submitted in one go, writes
// them with one writev, then fsyncs as the policy says; on a failure it
// keeps the bytes, reports the reason in Err and tries again every
// retryEvery (or at the next submission). Under everysec and no it writes
// at most once per writeEvery: woken within writeEvery of its last write,
// it sleeps until then, and from then on naps after each write and takes
// what came, until a nap finds nothing (turns faster than writeEvery never
// wake it; a turn after a pause is written at once). Under always it
// hands each write's fdatasync to a syncer (syncers.go) and writes the
// next at once while fewer than syncers run; once all run it waits, and
// what came meanwhile goes in one write and one fdatasync.
func (l *Log) run() {
	defer close(l.done)
	defer l.stopSyncers()
	tick := time.NewTicker(retryEvery)
	defer tick.Stop()
	var (
		chunks    [][]byte // taken, not yet written: chunks[0][off:] first
		off       int
		written   uint64 // bytes written since the Log opened
		covered   uint64 // bytes an fdatasync ran or was handed to a syncer for
		synced    = true
		lastSync  = time.Now()
		lastWrite time.Time
		again     bool // the rest of chunks goes to the file a rotation opened
		// busy: submissions came within writeEvery of the last write, so
		// the writer naps after each write rather than wait to be woken
		// (until a nap finds nothing).
		busy    bool
		retries int // after Close, with the disk failing
	)
	for {
		if busy {
			l.napAfter(lastWrite)
		}
		l.mu.Lock()
		if len(l.pending) == 0 && !again && !l.resync && (!l.stop || retries > 0) {
			busy = false
			l.idle = true
			l.mu.Unlock()
			select {
			case <-l.kick:
			case <-tick.C:
			}
			if time.Since(lastWrite) < writeEvery {
				// Turns come faster than writeEvery: nap after each write.
				busy = true
				l.napAfter(lastWrite)
			}
			l.mu.Lock()
			l.idle = false
		}
		again = false
		policy := l.fsync.Load()
		slot := policy == FsyncAlways && len(l.pending) > 0 && !l.stop
		if slot {
			// Wait for a free syncer: what comes meanwhile goes in this
			// write and its fdatasync.
			l.mu.Unlock()
			l.takeSlot()
			l.mu.Lock()
		}
		chunks = append(chunks, l.pending...)
		clear(l.pending)
		l.pending = l.pending[:0]
		if !l.direct {
			// What the loop wrote while it was direct is not fdatasynced
			// by this writer yet.
			if w := l.written.Load(); w != written {
				written, synced = w, false
			}
			l.resync = false
		}
		stop := l.stop
		var rot *rotation
		if len(l.rots) > 0 {
			rot = &l.rots[0]
		}
		l.mu.Unlock()
		var err error
		if held := heldBytes(chunks, off); held > 0 {
			limit := held
			if rot != nil && rot.at-written < uint64(limit) {
				limit = int(rot.at - written) // the rest goes to the next file
			}
			var n int
			n, err = l.write(chunks, off, limit)
			lastWrite = time.Now()
			written += uint64(n)
			l.written.Store(written)
			chunks, off = l.consume(chunks, off, n)
			if n > 0 {
				synced = false
			}
		}
		if err == nil && rot != nil && written == rot.at {
			if err = l.rotate(*rot, synced || l.fsynced.Load() >= written); err == nil {
				synced, lastSync, covered = true, time.Now(), written
				advance(&l.fsynced, written)
				again = len(chunks) > 0 // write the rest to the new file
			}
		}
		if slot && err == nil && covered < written {
			l.handOff(written) // the syncer frees the slot
			slot, covered = false, written
		}
		if slot {
			l.freeSlot()
		}
		if err == nil && !synced && (stop || policy == FsyncEverySec && time.Since(lastSync) >= time.Second ||
			policy == FsyncAlways && covered < written) {
			// everysec's, the last one, and always's for bytes written
			// without a slot (the rest of a failed write).
			if err = l.sync(); err == nil {
				synced, lastSync, covered = true, time.Now(), written
				advance(&l.fsynced, written)
			}
		}
		if err != nil {
			l.writeFailing.Store(true)
			l.fail(err)
		} else {
			l.writeFailing.Store(false)
			l.settle()
			if (synced || policy != FsyncAlways) && advance(&l.durable, written) && policy == FsyncAlways {
				l.wake()
			}
		}
		if stop {
			if err == nil && synced && len(chunks) == 0 || retries == 20 {
				return
			}
			retries++
		}
	}
}

// napAfter sleeps, under everysec and no and unless Close was called,
// until writeEvery after the write at last: what is submitted meanwhile
// goes in the next write.
func (l *Log) napAfter(last time.Time) {
	if wait := writeEvery - time.Since(last); wait > 0 && l.fsync.Load() != FsyncAlways && !l.stopping() {
		time.Sleep(wait)
	}
}

// heldBytes is the number of bytes in chunks from chunks[0][off:] on.
func heldBytes(chunks [][]byte, off int) int {
	n := -off
	for _, c := range chunks {
		n += len(c)
	}
	return max(n, 0)
}

// consume drops the first n bytes of chunks (from chunks[0][off:]) and
// gives the chunks emptied back to the loop (free), keeping at most
// freeMax of at most freeCap bytes each.
func (l *Log) consume(chunks [][]byte, off, n int) ([][]byte, int) {
	k := 0
	for k < len(chunks) && n >= len(chunks[k])-off {
		n -= len(chunks[k]) - off
		off = 0
		k++
	}
	off += n
	if k == 0 {
		return chunks, off
	}
	l.mu.Lock()
	for _, c := range chunks[:k] {
		if len(l.free) < freeMax && cap(c) <= freeCap {
			l.free = append(l.free, c[:0])
		}
	}
	l.mu.Unlock()
	m := copy(chunks, chunks[k:])
	clear(chunks[m:])
	return chunks[:m], off
}

// rotate switches to r's file: the current one made durable first.
func (l *Log) rotate(r rotation, synced bool) error {
	if !synced {
		if err := l.sync(); err != nil {
			return err
		}
	}
	f, size, err := r.open(l.size.Load())
	if err != nil {
		return err
	}
	l.fileMu.Lock()
	l.f.Close()
	l.f = f
	l.fileMu.Unlock()
	l.size.Store(size)
	l.mu.Lock()
	l.rots = l.rots[1:]
	l.mu.Unlock()
	r.done()
	return nil
}

// write writes the first limit bytes of chunks (from chunks[0][off:]) at
// the end of the file, with writev, up to iovMax chunks a call. After an
// error it takes back what it wrote of them (ftruncate, as Redis does), so
// that the file never ends in half a command; when it cannot, n says how
// much stays in the file.
func (l *Log) write(chunks [][]byte, off, limit int) (n int, err error) {
	size := l.size.Load()
	fd := l.f.Fd()
	for n < limit {
		iov, skip, want := l.iov[:0], off+n, limit-n
		for _, c := range chunks {
			if skip >= len(c) {
				skip -= len(c)
				continue
			}
			c = c[skip:min(len(c), skip+want)]
			skip = 0
			v := unix.Iovec{Base: &c[0]}
			v.SetLen(len(c))
			iov = append(iov, v)
			if want -= len(c); want == 0 || len(iov) == iovMax {
				break
			}
		}
		l.iov = iov
		l.writes.Add(1)
		r, _, errno := unix.Syscall(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
		clear(iov) // no pointer into the loop's buffers stays
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			err = &os.PathError{Op: "write", Path: l.f.Name(), Err: errno}
			break
		}
		if r == 0 {
			err = &os.PathError{Op: "write", Path: l.f.Name(), Err: io.ErrShortWrite}
			break
		}
		n += int(r)
	}
	runtime.KeepAlive(l.f)
	if err != nil && n > 0 {
		if l.f.Truncate(size) == nil {
			n = 0
		}
	}
	l.size.Store(size + int64(n))
	return n, err
}

// fail records that a write or fsync failed.
func (l *Log) fail(err error) {
	msg := strerror(err)
	if old := l.failed.Swap(&msg); old == nil && l.failing != nil {
		l.failing.Add(1)
	}
}

// settle records that the writer's and the syncers' last writes and
// fsyncs worked, when they did.
func (l *Log) settle() {
	if !l.writeFailing.Load() && !l.syncFailing.Load() {
		l.recovered()
	}
}

// advance moves p up to at, never down, and reports whether it moved.
func advance(p *atomic.Uint64, at uint64) bool {
	for {
		v := p.Load()
		if at <= v {
			return false
		}
		if p.CompareAndSwap(v, at) {
			return true
		}
	}
}

// recovered records that the last write and fsync worked.
func (l *Log) recovered() {
	if old := l.failed.Swap(nil); old != nil && l.failing != nil {
		l.failing.Add(-1)
	}
}

// strerror is err's errno in C's words ("No space left on device"), which
// Redis puts in its MISCONF error; Go's are the same in lower case.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

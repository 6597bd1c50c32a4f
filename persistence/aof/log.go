package aof

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
// writer's writes: the turns submitted meanwhile go in the next one. A
// busy shard's loop then wakes the writer about once per writeEvery, not
// once per turn (each wake costs the loop's core a thread switch and a
// write system call, which cost more than the turn's SETs), and a kill -9
// loses at most what the last writeEvery submitted, well inside the second
// everysec may lose. An idle writer woken by a submission writes at once.
const writeEvery = time.Millisecond

// Log is one shard's open incremental file and its writer.
//
// The shard's goroutine encodes each turn's effects (Append) and hands
// them over (Submit); the writer, a goroutine of its own, writes what was
// handed over in one write and, as the policy says, fsyncs it. Nothing the
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

	// Owned by the shard's goroutine.
	buf      []byte
	db       int   // the database the log last SELECTed; -1 before the first
	stamped  int64 // the unix second of the last #TS annotation
	started  bool
	appended uint64
	// submitted is appended, for other goroutines.
	submitted atomic.Uint64

	mu      sync.Mutex
	pending []byte     // handed over, not yet taken by the writer
	rots    []rotation // file switches at positions ahead of the writer (Rotate)
	stop    bool
	kick    chan struct{}
	done    chan struct{}

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
// has grown.
func (l *Log) Append(fx *command.Effects) {
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
	for i := 0; i < fx.Len(); {
		e, _ := fx.At(i)
		j := i + 1
		if e.Tag.Txn == 0 {
			// A run of effects in one database, outside a part: one copy.
			for j < fx.Len() {
				if f, _ := fx.At(j); f.DB != e.DB || f.Tag.Txn != 0 {
					break
				}
				j++
			}
			l.selectDB(e.DB)
			l.buf = append(l.buf, fx.Span(i, j)...)
			i = j
			continue
		}
		// The part's effects are adjacent: count them, and the SELECTs
		// among them, for the marker.
		n, db := 0, l.db
		for j = i; j < fx.Len(); j++ {
			f, _ := fx.At(j)
			if f.Tag != e.Tag {
				break
			}
			if f.DB != db {
				n++
				db = f.DB
			}
			n++
		}
		l.buf = appendCmd(l.buf, "RADISH.PART", int64(e.Tag.Txn), int64(e.Tag.Part), int64(e.Tag.Parts), int64(n))
		for ; i < j; i++ {
			f, cmd := fx.At(i)
			l.selectDB(f.DB)
			l.buf = append(l.buf, cmd...)
		}
	}
	for _, t := range fx.EmptyParts() {
		l.buf = appendCmd(l.buf, "RADISH.PART", int64(t.Txn), int64(t.Part), int64(t.Parts), 0)
	}
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
// after them. Called on the shard's goroutine, once per turn that wrote.
func (l *Log) Submit() uint64 {
	if len(l.buf) == 0 {
		return l.appended
	}
	l.appended += uint64(len(l.buf))
	l.submitted.Store(l.appended)
	l.mu.Lock()
	if len(l.pending) == 0 {
		l.pending, l.buf = l.buf, l.pending[:0]
	} else {
		l.pending = append(l.pending, l.buf...)
		l.buf = l.buf[:0]
	}
	l.mu.Unlock()
	l.poke()
	return l.appended
}

// rotation is a switch to a new incremental file at position at: the
// writer fsyncs the file it writes up to at, then calls open with that
// file's size for the new one, which it writes from then on, then done.
type rotation struct {
	at   uint64
	open func(oldSize int64) (*os.File, error)
	done func()
}

// Rotate ends the turn's bytes with the marker RADISH.CUT <cut> and
// moves the Log to another file from there on (a rewrite, see doc.go):
// the bytes after the marker go to the file open returns, which starts
// with RADISH.EPOCH and RADISH.BASE <cut>. The writer makes the old file
// durable before it calls open (on its goroutine, retried every 100 ms
// while it fails, as a failed write), and calls done once the new file is
// the Log's. Positions run on across the files. Called on the shard's
// goroutine.
func (l *Log) Rotate(cut int64, open func(oldSize int64) (*os.File, error), done func()) {
	l.buf = appendCmd(l.buf, "RADISH.CUT", cut)
	at := l.appended + uint64(len(l.buf))
	l.mu.Lock()
	l.rots = append(l.rots, rotation{at: at, open: open, done: done})
	l.mu.Unlock()
	l.Submit()
	l.started, l.db, l.stamped = true, -1, 0
	l.buf = appendCmd(l.buf, "RADISH.EPOCH", l.epoch)
	l.buf = appendCmd(l.buf, "RADISH.BASE", cut)
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
// at most a few retries), stops the writer and closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	l.stop = true
	l.mu.Unlock()
	l.poke()
	<-l.done
	return l.f.Close()
}

// run is the writer. It takes everything submitted in one go, writes it
// with one write, then fsyncs as the policy says; on a failure it keeps
// the bytes, reports the reason in Err and tries again every retryEvery.
func (l *Log) run() {
	defer close(l.done)
	tick := time.NewTicker(retryEvery)
	defer tick.Stop()
	var (
		buf       []byte
		written   uint64 // bytes written since the Log opened
		synced    = true
		lastSync  = time.Now()
		lastWrite time.Time
		retries   int // after Close, with the disk failing
	)
	for {
		select {
		case <-l.kick:
		case <-tick.C:
		}
		if wait := writeEvery - time.Since(lastWrite); wait > 0 && l.fsync.Load() != FsyncAlways && !l.stopping() {
			time.Sleep(wait) // submissions meanwhile fill kick, and go in this write
		}
		l.mu.Lock()
		if len(buf) == 0 {
			buf, l.pending = l.pending, buf[:0]
		} else {
			buf = append(buf, l.pending...)
			l.pending = l.pending[:0]
		}
		stop := l.stop
		var rot *rotation
		if len(l.rots) > 0 {
			rot = &l.rots[0]
		}
		l.mu.Unlock()
		policy := l.fsync.Load()
		var err error
		if len(buf) > 0 {
			limit := len(buf)
			if rot != nil && rot.at-written < uint64(limit) {
				limit = int(rot.at - written) // the rest goes to the next file
			}
			var n int
			n, err = l.write(buf[:limit])
			lastWrite = time.Now()
			written += uint64(n)
			buf = buf[:copy(buf, buf[n:])]
			if n > 0 {
				synced = false
			}
		}
		if err == nil && rot != nil && written == rot.at {
			if err = l.rotate(*rot, synced); err == nil {
				synced, lastSync = true, time.Now()
				l.fsynced.Store(written)
				if len(buf) > 0 {
					l.poke() // write the rest to the new file
				}
			}
		}
		if err == nil && !synced && (policy == FsyncAlways || stop ||
			policy == FsyncEverySec && time.Since(lastSync) >= time.Second) {
			if err = l.sync(); err == nil {
				synced, lastSync = true, time.Now()
				l.fsynced.Store(written)
			}
		}
		if err != nil {
			l.fail(err)
		} else {
			l.recovered()
			if written != l.durable.Load() && (synced || policy != FsyncAlways) {
				l.durable.Store(written)
				if policy == FsyncAlways {
					l.wake()
				}
			}
		}
		if stop {
			if err == nil && synced && len(buf) == 0 || retries == 20 {
				return
			}
			retries++
		}
	}
}

// rotate switches to r's file: the current one made durable first.
func (l *Log) rotate(r rotation, synced bool) error {
	if !synced {
		if err := l.sync(); err != nil {
			return err
		}
	}
	f, err := r.open(l.size.Load())
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	l.size.Store(0)
	l.mu.Lock()
	l.rots = l.rots[1:]
	l.mu.Unlock()
	r.done()
	return nil
}

// write writes b at the end of the file. After an error it takes back
// what it wrote of b (ftruncate, as Redis does), so that the file never
// ends in half a command; when it cannot, n says how much of b stays in
// the file.
func (l *Log) write(b []byte) (n int, err error) {
	size := l.size.Load()
	n, err = l.f.Write(b)
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

package snapshot

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/persistence/rdb"
)

// RDB file opcodes (rdb.h RDB_OPCODE_*).
const (
	opSlotInfo  = 244
	opFunction2 = 245
	opFunction  = 246
	opModuleAux = 247
	opIdle      = 248
	opFreq      = 249
	opAux       = 250
	opResizeDB  = 251
	opExpireMs  = 252
	opExpireSec = 253
	opSelectDB  = 254
	opEOF       = 255
)

const (
	redisVer = "7.0.15" // the redis-ver aux field, as INFO's redis_version
	flushAt  = 64 << 10 // the buffer goes to out once it holds this much
	// stepBytes bounds a step's work: the bytes of the keys and values
	// it writes (the last one may pass it).
	stepBytes = 32 << 10
)

// Options are what a Writer writes besides the keys.
type Options struct {
	// Compress is rdbcompression: strings over 20 bytes are stored LZF
	// compressed when that makes them shorter.
	Compress bool
	// Checksum is rdbchecksum: the file ends with the CRC64 of everything
	// before it, else with 8 zero bytes (a loader then checks nothing).
	Checksum bool
	// Time is the ctime aux field, unix milliseconds.
	Time int64
	// AOFBase is the aof-base aux field: the file is an AOF's base.
	AOFBase bool
	// Access is the access information written before each key, as Redis
	// does under an LRU or LFU maxmemory policy: AccessLRU writes the idle
	// time (RDB_OPCODE_IDLE), AccessLFU the counter (RDB_OPCODE_FREQ).
	Access Access
	// Functions are the codes of the FUNCTION libraries, written after the
	// aux fields as Redis 7.0 writes them (RDB_OPCODE_FUNCTION2).
	Functions [][]byte
	// Body: only the databases, without the magic, the aux fields, the
	// EOF and the checksum: one shard's part of an RDB stream that
	// AppendHeader and AppendTrailer frame (a full sync's).
	Body bool
}

// AppendHeader appends the magic and Redis 7.0's aux fields of an RDB
// stream written at opt.Time by a server using usedMem bytes.
func AppendHeader(dst []byte, opt Options, usedMem int64) []byte {
	w := &Writer{opt: opt, enc: rdb.NewEncoder(engine.Limits{}), buf: dst}
	w.header(usedMem)
	return w.buf
}

// AppendTrailer appends the EOF opcode and the checksum of a stream whose
// bytes before it have the CRC64 crc (8 zero bytes without opt.Checksum).
func AppendTrailer(dst []byte, opt Options, crc uint64) []byte {
	dst = append(dst, opEOF)
	crc = rdb.CRC64(crc, dst[len(dst)-1:])
	if !opt.Checksum {
		crc = 0
	}
	return binary.LittleEndian.AppendUint64(dst, crc)
}

// Access is which access clock a file carries (Options.Access).
type Access uint8

// Access kinds.
const (
	AccessNone Access = iota
	AccessLRU
	AccessLFU
)

// Writer writes one shard's store as an RDB file of version 10, laid out
// as Redis 7.0 writes one: the magic and aux fields, then each database
// that holds keys (SELECTDB, RESIZEDB, its keys in key order), then EOF
// and the checksum. It writes at once (WriteAll) or in bounded steps
// (Step), between which the store may be used and changed.
//
// A Writer belongs to the goroutine that owns the store; it calls out from
// that goroutine, with chunks of about 64 KiB.
type Writer struct {
	store *engine.Store
	out   io.Writer
	opt   Options
	enc   *rdb.Encoder

	buf     []byte
	crc     uint64 // of everything handed to out
	written int64
	keys    int64
	ahead   int64 // keys Before wrote
	err     error

	begun, done bool
	db          int    // the database the walk is in
	inDB        bool   // the walk wrote db's SELECTDB and RESIZEDB
	sel         int    // the database the stream last selected (-1: none)
	last        []byte // the last key the walk reached in db (hasLast)
	hasLast     bool

	work int    // the bytes of keys and values the step wrote
	val  []byte // scratch: an exported value
	// walk's: the keys it passed, its bound, whether it stopped there,
	// and early's set of its database.
	passed, limit int
	stopped       bool
	early1        map[string]struct{}
	// early[db] holds the keys Before wrote that the walk has not reached.
	early []map[string]struct{}
}

// NewWriter returns a Writer of store's keyspace to out, in the encodings
// store.Limits call for.
func NewWriter(store *engine.Store, out io.Writer, opt Options) *Writer {
	enc := rdb.NewEncoder(store.Limits)
	enc.Compress = opt.Compress
	return &Writer{store: store, out: out, opt: opt, enc: enc, sel: -1}
}

// Written is the number of bytes handed to out so far: once the file is
// complete, its size.
func (w *Writer) Written() int64 { return w.written }

// Keys is the number of keys written so far.
func (w *Writer) Keys() int64 { return w.keys }

// WriteAll writes the whole file at now: every key, except those whose
// TTL passed by now (any load after now would drop them).
func (w *Writer) WriteAll(now int64) error {
	for {
		done, err := w.Step(now, 4096)
		if err != nil || done {
			return err
		}
	}
}

// Step writes about n more keys at now, in key order, in one walk of the
// tree per database (fewer keys once it wrote about 32 KiB of keys and
// values, so a step of large values stays short), and reports whether
// the file is complete (its end and checksum handed to out). A key whose
// TTL passed by now is left out. The first error out returns ends the
// file: Step returns it from then on.
//
// Between steps the store may change: a key the walk has not reached yet
// is written with the value it has when the walk reaches it, unless
// Before wrote it first.
func (w *Writer) Step(now int64, n int) (done bool, err error) {
	if w.err != nil || w.done {
		return w.done, w.err
	}
	if !w.begun {
		if !w.opt.Body {
			w.header(w.store.UsedMemory())
		}
		w.begun = true
	}
	for w.work = 0; n > 0 && w.work < stepBytes && w.db < w.store.Databases(); {
		db := w.store.DB(w.db)
		if db.Len() == 0 {
			w.nextDB()
			continue
		}
		if !w.inDB {
			w.selectDB(w.db)
			w.buf = append(w.buf, opResizeDB)
			w.buf = rdb.AppendLen(w.buf, uint64(db.Len()))
			w.buf = rdb.AppendLen(w.buf, uint64(db.ExpiresLen()))
			w.inDB = true
		}
		k, stopped := w.walk(db, now, n)
		n -= max(k, 1)
		if !stopped {
			w.nextDB()
		}
		if len(w.buf) >= flushAt && w.flush() != nil {
			return false, w.err
		}
	}
	if w.db < w.store.Databases() {
		return false, nil
	}
	if w.opt.Body {
		w.done = true
		w.flush()
		return true, w.err
	}
	w.buf = append(w.buf, opEOF)
	w.crc = rdb.CRC64(w.crc, w.buf)
	sum := uint64(0)
	if w.opt.Checksum {
		sum = w.crc
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf, sum)
	w.done = true
	w.write()
	return true, w.err
}

// walk writes up to n keys of db after the walk's last one in one walk
// of the tree (skipping those Before wrote), fewer once the step's work
// reaches stepBytes. It returns how many keys it passed and whether it
// stopped before db's end.
func (w *Writer) walk(db *engine.DB, now int64, n int) (k int, stopped bool) {
	w.early1 = nil
	if w.early != nil {
		w.early1 = w.early[w.db]
	}
	w.passed, w.limit, w.stopped = 0, n, false
	w.val = db.ExportAfter(w.last, w.hasLast, now, w.val, (*exporter)(w))
	return w.passed, w.stopped
}

// exporter is a Writer as walk's engine.Exporter.
type exporter Writer

func (x *exporter) Export(key []byte, rec engine.Record, idle int64, freq int) bool {
	w := (*Writer)(x)
	w.passed++
	w.last, w.hasLast = append(w.last[:0], key...), true
	if _, ok := w.early1[string(key)]; ok {
		delete(w.early1, string(key)) // Before wrote it
	} else {
		w.writeRecord(w.db, key, rec, idle, freq)
		w.work += len(key) + len(rec.Data)
	}
	w.stopped = w.passed == w.limit || w.work >= stepBytes
	return !w.stopped
}

func (w *Writer) nextDB() {
	if w.early != nil {
		w.early[w.db] = nil // keys Before wrote that the walk did not meet (deleted since)
	}
	w.db++
	w.inDB, w.hasLast = false, false
	w.last = w.last[:0]
}

func (w *Writer) selectDB(i int) {
	if w.sel == i {
		return
	}
	w.buf = append(w.buf, opSelectDB)
	w.buf = rdb.AppendLen(w.buf, uint64(i))
	w.sel = i
}

// header writes the magic and Redis 7.0's aux fields.
func (w *Writer) header(usedMem int64) {
	w.buf = append(w.buf, "REDIS00"+strconv.Itoa(rdb.Version)...)
	w.aux("redis-ver", redisVer)
	w.aux("redis-bits", "64")
	w.aux("ctime", strconv.FormatInt(w.opt.Time/1000, 10))
	w.aux("used-mem", strconv.FormatInt(usedMem, 10))
	aof := "0"
	if w.opt.AOFBase {
		aof = "1"
	}
	w.aux("aof-base", aof)
	for _, code := range w.opt.Functions {
		w.buf = w.enc.AppendFunction(w.buf, code)
	}
}

func (w *Writer) aux(k, v string) {
	w.buf = append(w.buf, opAux)
	w.buf = w.enc.AppendString(w.buf, []byte(k))
	w.buf = w.enc.AppendString(w.buf, []byte(v))
}

// Before writes key of database dbi as it is now, unless the walk has
// reached it or Before wrote it already; the walk then skips it. Called
// ahead of every change to the store between the steps (and of every key
// a command is about to write), it makes the file the keyspace as it was
// when the Writer started, whatever changes follow: a key changed before
// the walk reaches it is written with its old value, one created is
// skipped (it did not exist), one deleted is written. It changes nothing
// in the store, so it may run inside engine.Store.BeforeEvict.
func (w *Writer) Before(dbi int, key []byte, now int64) {
	if w.done || w.err != nil || w.reached(dbi, key) {
		return
	}
	if w.early == nil {
		w.early = make([]map[string]struct{}, w.store.Databases())
	}
	m := w.early[dbi]
	if m == nil {
		m = make(map[string]struct{})
		w.early[dbi] = m
	}
	if _, ok := m[string(key)]; ok {
		return
	}
	m[string(key)] = struct{}{}
	w.ahead++
	if !w.begun {
		if !w.opt.Body {
			w.header(w.store.UsedMemory())
		}
		w.begun = true
	}
	w.writeKey(w.store.DB(dbi), dbi, key, now)
	if len(w.buf) >= flushAt {
		w.flush()
	}
}

// reached reports whether the walk has written (or passed) key of dbi.
func (w *Writer) reached(dbi int, key []byte) bool {
	switch {
	case dbi != w.db:
		return dbi < w.db
	case !w.hasLast:
		return false
	}
	return string(key) <= string(w.last)
}

// Ahead is the number of keys Before wrote so far: writes that reached
// keys ahead of the walk.
func (w *Writer) Ahead() int64 { return w.ahead }

// Early is the number of keys Before wrote ahead of the walk that it has
// not passed yet (the memory a point-in-time file costs).
func (w *Writer) Early() int {
	n := 0
	for _, m := range w.early {
		n += len(m)
	}
	return n
}

// writeKey writes key of database dbi with its expiry and access clock,
// if it is live at now.
func (w *Writer) writeKey(db *engine.DB, dbi int, key []byte, now int64) {
	rec, idle, freq, val, ok := db.ExportAppend(w.val[:0], key, now)
	w.val = val
	if ok {
		w.writeRecord(dbi, key, rec, idle, freq)
	}
}

// writeRecord writes key of database dbi, rec its value (expiry
// included), idle and freq its access clock.
func (w *Writer) writeRecord(dbi int, key []byte, rec engine.Record, idle int64, freq int) {
	w.selectDB(dbi)
	if rec.ExpireAt != 0 {
		w.buf = append(w.buf, opExpireMs)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(rec.ExpireAt))
	}
	switch w.opt.Access {
	case AccessLRU:
		w.buf = rdb.AppendLen(append(w.buf, opIdle), uint64(idle))
	case AccessLFU:
		w.buf = append(w.buf, opFreq, byte(freq))
	}
	w.buf = append(w.buf, w.enc.Type(rec))
	w.buf = w.enc.AppendString(w.buf, key)
	w.buf = w.enc.AppendObject(w.buf, rec)
	w.keys++
}

// flush hands the buffer to out, counting it into the checksum.
func (w *Writer) flush() error {
	w.crc = rdb.CRC64(w.crc, w.buf)
	return w.write()
}

func (w *Writer) write() error {
	if len(w.buf) == 0 {
		return w.err
	}
	k, err := w.out.Write(w.buf)
	w.written += int64(k)
	if err == nil && k < len(w.buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
	}
	w.buf = w.buf[:0]
	return w.err
}

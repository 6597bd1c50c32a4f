package engine

import (
	"errors"
	"math"
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/lzf"
)

// Type is the type of a key's value, as TYPE reports it.
type Type uint8

// Value types. The numbers are stored in leaves: never renumber them.
const (
	TypeNone Type = iota
	TypeString
	TypeList
	TypeSet
	TypeZSet
	TypeHash
	TypeStream
)

var typeNames = [...]string{"none", "string", "list", "set", "zset", "hash", "stream"}

// String returns the name TYPE replies with.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "none"
}

// Errors carry Redis's full error text.
var (
	ErrWrongType  = errors.New(errtext.WrongType)
	ErrNotInteger = errors.New(errtext.NotInt)
	ErrOverflow   = errors.New(errtext.Overflow)
	ErrTooLarge   = errors.New(errtext.TooLarge)
)

// MaxValueLen is the largest string value (Redis's proto-max-bulk-len default).
const MaxValueLen = 512 << 20

// Store is one shard's data: a slab and numbered databases sharing it.
// It is owned by one goroutine; no method is safe for concurrent use.
type Store struct {
	slab *slab.Slab
	dbs  []*DB

	// leaves[c] counts the leaves (keys, all databases) in slab class c, so
	// RandomKey and the expiry sampler pick a class in proportion to its keys.
	leaves [slab.NumClasses]int
	ttl    [slab.NumClasses]int // leaves with a TTL per class

	// scratch holds values the engine formats (integers) and hands out as
	// borrowed []byte: valid until the next call on the Store.
	scratch []byte
	tmp     []byte   // working buffer (APPEND of inline values, packed entries)
	offs    []int    // working buffer (element offsets of a packed block)
	fv      [][]byte // working buffer (a stream entry's fields and values)

	// groups are the consumer groups of the streams that have some,
	// keyed by the stream's root block (streamgroup.go).
	groups map[slab.Handle]*cgroups
	// freeNacks are pending entries XACK freed, for the next deliveries.
	freeNacks []*nack

	// GroupEffects and GroupDeleted are the command layer's buffers for
	// what a claim did (XClaim, XAutoClaim): the handler fills them, its
	// propagation reads them right after.
	GroupEffects []GroupEffect
	GroupDeleted []StreamID

	// dirty counts changes to the data: every exported call that changes
	// a key adds at least one (Dirty).
	dirty uint64

	// lastNow is the largest `now` any call passed in. SetString has no now
	// argument; it uses lastNow to treat a KEEPTTL of an expired key as absent.
	lastNow int64

	// replica: keys past their TTL are hidden from reads but kept until
	// the primary's DEL removes them (SetReplica).
	replica bool

	rnd uint64 // xorshift state for RandomKey and expiry sampling (no clock)

	// reads: lookups of keys are counted as hits and misses
	// (CountReads); hits and misses are the counts.
	reads        bool
	hits, misses int64
	// lastRead is the key the last counted lookup was for (the address
	// of its first byte, which keeps nothing alive, and its length): a
	// handler that looks one argument up twice counts once.
	lastRead    uintptr
	lastReadLen int
	// recMisses: the keys counted lookups do not find are kept, in
	// missBuf (missEnds: where each ends), until Misses hands them over
	// (keymiss notifications). The key is copied, never kept: a lookup's
	// key does not escape.
	recMisses bool
	missBuf   []byte
	missEnds  []int

	// Limits are the compact-encoding thresholds; the server copies its
	// configuration here (NewStore sets Redis's defaults).
	Limits Limits

	// OnExpire and OnEvict, when set, are called with a key's database and
	// name just before the key is deleted because its TTL passed (lazily or
	// actively) or because eviction chose it: the shard logs them as DELs
	// for replicas and the AOF. key is borrowed for the call; the hook must
	// not call the Store.
	OnExpire func(db int, key []byte)
	OnEvict  func(db int, key []byte)
	// BeforeEvict, when set, is called before eviction takes a key out
	// of its tree, with the Store whole: the hook may read the Store with
	// the calls that change nothing (ExportAppend), but change nothing
	// (a snapshot in progress writes the key's value first).
	BeforeEvict func(db int, key []byte)

	// lzf, zbuf and qtouched serve list-compress-depth (qlcompress.go):
	// the compressor, its output or input, and the nodes an operation
	// on a list made plain; qcreated counts the nodes it created.
	lzf      *lzf.Table
	zbuf     []byte
	qtouched []slab.Handle
	qzone    [2][]slab.Handle // the plain nodes at each end, while settling
	qcreated int

	// lazy is the queue of values and trees freed a slice at a time
	// (lazyfree.go); lazyFreed counts those it finished.
	lazy      []lazyItem
	lazyFreed int64

	// written, while tracking (TrackWrites), is tracked: the keys changes
	// were counted for.
	written, tracked map[written]bool
	// notes, while noting (NoteWrites), are the keys changes were
	// counted for, in the order written: their bytes one after another
	// in noteBuf.
	noting  bool
	notes   []note
	noteBuf []byte

	exp expiry // expire.go: expiry wheel and counters
	mem budget // evict.go: maxmemory, policy, eviction pool, access clock
}

// NewStore returns a Store with the given number of databases (at least 1).
func NewStore(databases int) *Store {
	if databases < 1 {
		databases = 1
	}
	s := &Store{slab: slab.New(), rnd: 0x9e3779b97f4a7c15, Limits: DefaultLimits()}
	s.mem = budget{samples: 5, logFactor: 10, decayTime: 1} // Redis's defaults
	s.dbs = make([]*DB, databases)
	for i := range s.dbs {
		s.dbs[i] = &DB{s: s}
	}
	return s
}

// Dirty counts the changes made to the Store's data so far: every call
// that changed a key (a write, a delete, a TTL, FLUSHDB, SWAPDB ...) added
// at least one, a call that changed nothing added none (a SETNX of an
// existing key, an SREM of absent members), as Redis counts server.dirty.
// Keys deleted because their TTL passed or by eviction are not counted:
// OnExpire and OnEvict report those. A caller compares the value before
// and after a command to learn whether it wrote.
func (s *Store) Dirty() uint64 { return s.dirty }

// changed counts n changes to key (none when n is 0).
func (db *DB) changed(key []byte, n uint64) {
	db.s.dirty += n
	if n > 0 && (db.s.written != nil || db.s.noting) {
		db.wrote(key)
	}
}

// wrote notes, while the Store tracks or notes writes, that key changed,
// without counting it (a call that changed two keys counts one change, as
// Redis does).
func (db *DB) wrote(key []byte) {
	s := db.s
	if s.written != nil {
		s.written[written{s.dbIndex(db), string(key)}] = true
	}
	if s.noting {
		if n := len(s.notes); n > 0 && s.notes[n-1].db == db && string(s.noteBuf[s.notes[n-1].at:]) == string(key) {
			return // the key just noted, changed again
		}
		s.notes = append(s.notes, note{db, len(s.noteBuf)})
		s.noteBuf = append(s.noteBuf, key...)
	}
}

// note is a key noted while noting writes: its database and where its
// bytes start in noteBuf (they end where the next note's start).
type note struct {
	db *DB
	at int
}

// NoteWrites starts (on), forgetting the keys noted before, or stops
// noting the keys that changes are counted for, as TrackWrites tracks
// them; the keys noted stay readable (Noted) until it starts again. It
// allocates nothing once its buffers have grown to a command's writes: for
// the one command a caller runs, whose few keys it asks Noted about.
func (s *Store) NoteWrites(on bool) {
	if on {
		s.notes, s.noteBuf = s.notes[:0], s.noteBuf[:0]
	}
	s.noting = on
}

// Noted reports whether a change to key of database db was noted since
// NoteWrites last started.
func (s *Store) Noted(db int, key []byte) bool {
	d := s.dbs[db]
	for i, n := range s.notes {
		end := len(s.noteBuf)
		if i+1 < len(s.notes) {
			end = s.notes[i+1].at
		}
		if n.db == d && string(s.noteBuf[n.at:end]) == string(key) {
			return true
		}
	}
	return false
}

// written is a key a change was counted for while the Store tracked writes.
type written struct {
	db  int
	key string
}

// TrackWrites starts (on), forgetting the keys noted before, or stops
// noting the keys that changes are counted for (Dirty), expiry and
// eviction excluded: a caller running a command on a store of copies
// learns which keys it wrote (the gather plan).
func (s *Store) TrackWrites(on bool) {
	switch {
	case !on:
		s.written = nil
	case s.tracked == nil:
		s.tracked = make(map[written]bool)
		s.written = s.tracked
	default:
		clear(s.tracked)
		s.written = s.tracked
	}
}

// Wrote reports whether a change to key of database db was counted since
// TrackWrites started, and forgets it: a key is reported once.
func (s *Store) Wrote(db int, key []byte) bool {
	k := written{db, string(key)}
	if !s.tracked[k] {
		return false
	}
	delete(s.tracked, k)
	return true
}

// Changed counts a change to what the server keeps that is not a key's
// (FUNCTION LOAD), as Redis counts it in server.dirty: the command is then
// propagated and persisted as a write is.
func (s *Store) Changed() { s.dirty++ }

// DB returns database i (0 <= i < the number given to NewStore). The *DB is
// stable for the Store's life: SwapDB exchanges contents, not pointers.
func (s *Store) DB(i int) *DB { return s.dbs[i] }

// Databases returns the number of databases.
func (s *Store) Databases() int { return len(s.dbs) }

// SwapDB exchanges the contents of databases i and j (SWAPDB): clients of
// database i see j's keys afterwards. Outstanding SCAN cursors follow the
// contents they were issued for.
func (s *Store) SwapDB(i, j int) {
	a, b := s.dbs[i], s.dbs[j]
	s.dirty++
	a.contents, b.contents = b.contents, a.contents
	a.walks, b.walks = nil, nil
}

// FlushAll empties every database at once and returns all memory to the OS.
func (s *Store) FlushAll() {
	for _, db := range s.dbs {
		s.dirty += uint64(db.keys)
	}
	s.dirty++ // always a change, as FLUSHALL always propagates
	s.reset()
}

// Clear empties every database, as FlushAll does, but keeps memory
// mapped for what comes next (the slab keeps an empty page per class) and
// counts no change: for a store filled and emptied for each command (a
// shard's scratch store), where mapping and writing fresh pages each time
// costs far more than the command.
func (s *Store) Clear() {
	for _, db := range s.dbs {
		db.freeTree(db.root)
		db.contents = contents{}
	}
	for len(s.lazy) > 0 {
		s.LazyFreeStep(math.MaxInt)
	}
}

// reset empties every database and returns all memory to the OS.
func (s *Store) reset() {
	for _, db := range s.dbs {
		db.contents = contents{}
	}
	s.slab.Reset()
	s.groups = nil
	s.lazyFreed += int64(len(s.lazy))
	s.lazy = nil
	s.exp.wheelReset()
	s.leaves = [slab.NumClasses]int{}
	s.ttl = [slab.NumClasses]int{}
}

// UsedMemory returns the bytes the Store holds: every live slab block's size
// plus the Go heap the engine keeps (databases, cursor tables, scratch
// buffers). It does not count the slab's own bookkeeping (page headers and
// slot bitmaps): see SlabOverhead.
func (s *Store) UsedMemory() int64 {
	n := s.slab.InUse()
	n += int64(unsafe.Sizeof(*s)) + int64(cap(s.scratch)+cap(s.tmp)+8*cap(s.offs)+24*cap(s.fv)) + int64(cap(s.dbs))*8
	for _, db := range s.dbs {
		n += db.heapBytes()
	}
	return n
}

// SlabMapped returns the bytes the slab has mapped from the OS (an upper
// bound of its resident memory, including page headers and free slots).
func (s *Store) SlabMapped() int64 { return s.slab.Mapped() }

// SlabLive returns the number of live slab blocks (tests: zero after every
// key is gone).
func (s *Store) SlabLive() int { return s.slab.Live() }

// Purge gives the memory of free slab space back to the OS: the holes a
// mass expiry or eviction left in partly used pages and the empty spare
// pages. The caller decides when (the shard does when memory in use fell
// well below its last peak).
func (s *Store) Purge() { s.slab.Purge() }

// Close unmaps all memory. The Store must not be used afterwards.
func (s *Store) Close() {
	for _, db := range s.dbs {
		db.contents = contents{}
	}
	s.slab.Close()
}

// random returns the next value of the Store's xorshift64* generator.
func (s *Store) random() uint64 {
	x := s.rnd
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	s.rnd = x
	return x * 0x2545f4914f6cdd1d
}

func (s *Store) seen(now int64) {
	if now > s.lastNow {
		s.lastNow = now
	}
}

// DB is one numbered database: a radix tree over the Store's slab. Single
// goroutine only (the Store's).
type DB struct {
	s *Store
	contents
	w walker // reused by Keys/Scan so that iteration does not allocate
	// walks is allocated by the first Prefetch; it belongs with the tree
	// (SwapDB clears it).
	walks  *walkCache
	absent bool // ImportNew's: the key being set is known not to be here
}

// contents is what SwapDB exchanges.
type contents struct {
	root    slab.Handle
	keys    int
	expires int
	cursors *cursorTable // allocated by the first Scan that returns a cursor
	// avgTTL is INFO's avg_ttl (ms), Redis's estimate from the active
	// expiry's samples (ActiveExpireCycle); ttlSum and ttlN are the
	// current cycle's live samples that carry a TTL.
	avgTTL, ttlSum, ttlN int64
}

func (db *DB) heapBytes() int64 {
	n := int64(unsafe.Sizeof(*db)) + int64(cap(db.w.g.prefix))
	if db.cursors != nil {
		n += db.cursors.heapBytes()
	}
	if db.walks != nil {
		n += int64(unsafe.Sizeof(*db.walks))
	}
	return n
}

// Len returns the number of keys, counting expired keys not yet deleted
// (as DBSIZE does).
func (db *DB) Len() int { return db.keys }

// ExpiresLen returns the number of keys that carry a TTL.
func (db *DB) ExpiresLen() int { return db.expires }

// AvgTTL is the estimate of the TTL left to this database's keys that
// carry one, in milliseconds, as Redis's avg_ttl: a running average of the
// active expiry's samples (0 before any, and when no key carries a TTL).
func (db *DB) AvgTTL() int64 { return db.avgTTL }

package engine

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
)

// Active expiry.
//
// Lazy expiry (find, GetString) deletes a key its reader finds expired.
// Keys nobody reads are deleted by ActiveExpireCycle, which the shard calls
// hz times a second with a bounded amount of work. Random sampling alone
// (Redis's activeExpireCycle) keeps the share of expired keys low but lets
// one untouched key linger for a time that grows with the number of keys:
// once fewer than 10% of the sampled keys are stale the cycle stops, so at
// steady state a key waits about 10% of its TTL. So every leaf that gets a
// TTL is also filed in a timing wheel by its deadline, and the cycle walks
// the wheel up to now: a key is deleted within a wheel tick (128 ms) plus
// the call period of its deadline, whatever the number of keys, at a cost
// proportional to the keys that expire. Redis's sampling loop runs after the
// wheel, as a fallback and to measure expired_stale_perc.
//
// # The wheel
//
// Time is counted in ticks of 128 ms (deadline >> tickShift); tick is the
// first tick not drained yet. The wheel has wheelLevels levels; level k
// sorts deadlines into buckets of 64^k ticks (bucket number u = d >> 6k),
// kept in a ring of 128 slots (u mod 128). A deadline d goes to the lowest
// level whose ring reaches it: (d >> 6k) - (tick >> 6k) < 128. Level 0's
// slot of tick t is drained (its keys expired) once now has passed the end
// of t. A bucket u of level k >= 1 must be cascaded (its entries filed
// again, lower) before tick reaches its start, and can be as soon as tick
// enters bucket u-1, because the ring below spans two buckets of level k:
// so each level cascades its next bucket in the background while the
// current one runs (next[k] is the first bucket not cascaded yet), with
// the work left over after the draining, and draining never waits for a
// whole bucket to be cascaded at once. Empty stretches are skipped with
// bitmaps of non-empty slots, so a clock jump of years costs O(levels).
// A bucket is a FIFO chain of chunk blocks in the slab (so the Go heap stays
// flat and UsedMemory counts it), each holding up to chunkCap leaf handles.
//
// An entry is a bare Handle, checked when it is taken out: the block must
// still be a live, tagged leaf (tags mark exactly the leaves with a TTL),
// and its deadline must still fall in the bucket (a leaf whose TTL moved to
// another bucket was filed again there). Deleting a key or moving its leaf
// leaves a stale entry behind, dropped when its bucket comes up or by
// compaction (compactStep) when stale entries outnumber live TTL keys.
// A handle whose slot was reused by another TTL leaf is harmless: any
// expired leaf may be deleted.
const (
	tickShift   = 7  // a wheel tick is 128 ms
	wheelBits   = 6  // a bucket of level k+1 spans 64 of level k
	wheelLevels = 10 // 7 + 6*9 bits of ticks cover every int64 deadline
	ringSlots   = 128
	ringMask    = ringSlots - 1

	// Chunk block layout: 0 byte (not a leaf), pad, lo uint16 @2 (next entry
	// to take), hi uint16 @4 (entries written), pad, next Handle @8, then
	// chunkCap handles from @12.
	chunkSize = 256
	chunkHdr  = 12
	chunkCap  = (chunkSize - chunkHdr) / 4
)

// Redis's activeExpireCycle tuning (expire.c), for active-expire-effort 1;
// effort e (1..10) adds (e-1) times the step.
const (
	expireKeysPerLoop  = 20 // ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP
	expireAcceptStale  = 10 // ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE (percent)
	expireSlowTimePerc = 25 // ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC
	expireFastUs       = 1000
	// unitNs is the cost assumed for one unit of work (one key examined,
	// possibly deleted) when converting Redis's time limits into units.
	unitNs = 1000
)

// expiry is the Store's active-expiry state: the wheel, the hook and the
// counters.
type expiry struct {
	started  bool
	tick     int64
	head     [wheelLevels][ringSlots]slab.Handle
	tail     [wheelLevels][ringSlots]slab.Handle
	count    [wheelLevels][ringSlots]int32
	nonEmpty [wheelLevels][ringSlots / 64]uint64
	next     [wheelLevels]int64 // level k: first bucket not cascaded yet
	entries  int                // entries in the wheel, stale ones included

	// compaction cursor: bucket (level cl, index cb), entries left to look at
	cl, cb int
	cleft  int32

	hookBuf []byte // the key handed to OnExpire/OnEvict

	capped bool // the last cycle stopped at its work limit with work left

	expiredKeys     int64   // expired_keys
	stalePerc       float64 // expired_stale_perc (0..100)
	timeCapReached  int64   // expired_time_cap_reached_count
	expiredByCycles int64   // keys the active cycle deleted (tests)
}

// OnExpire, when set, is called once for every key deleted because its TTL
// passed (lazily by a reader, by ActiveExpireCycle, by RandomKey), before
// the key is deleted: the shard turns it into a DEL for replicas and the
// AOF. key is borrowed for the call. The hook must not call the Store.
//
// It is a field of Store (engine.go): OnExpire func(db int, key []byte).

// ExpireCycleWork returns the work units (keys examined) of one
// ActiveExpireCycle called hz times a second, from Redis's slow-cycle time
// limit (25% of the CPU plus 2% per effort step above 1), at an assumed
// unitNs per unit: 25000 at hz 10, effort 1.
func ExpireCycleWork(hz, effort int) int {
	hz = min(max(hz, 1), 500)
	e := min(max(effort, 1), 10) - 1
	perc := expireSlowTimePerc + 2*e
	return perc * 10_000_000 / hz / unitNs // perc% of 1e9/hz ns
}

// ExpireFastWork returns the work units of a fast cycle (Redis's 1 ms
// ACTIVE_EXPIRE_CYCLE_FAST_DURATION plus 25% per effort step), for the
// loop turns after a cycle that ExpireCapped reports.
func ExpireFastWork(effort int) int {
	e := min(max(effort, 1), 10) - 1
	return (expireFastUs + expireFastUs/4*e) * 1000 / unitNs
}

// ActiveExpireCycle deletes keys whose TTL passed, doing at most work units
// of work (one unit per key examined): first every wheel entry due by now
// (in deadline order), then Redis's sampling loop: sample 20 (+5 per effort
// step) keys carrying a TTL, delete the expired ones, and repeat while more
// than 10% (-1% per effort step) of them were expired. It returns the keys
// examined and deleted. effort is active-expire-effort (1..10).
// ExpireCapped reports afterwards whether it stopped at the work limit with
// expired keys left.
func (s *Store) ActiveExpireCycle(now int64, effort, work int) (sampled, expired int) {
	s.seen(now)
	e := min(max(effort, 1), 10) - 1
	x := &s.exp
	x.capped = false
	done := true
	sampled, expired, done = s.wheelAdvance(now, work)
	if done && x.entries > 2*s.slab.LiveTagged()+4*chunkCap {
		sampled += s.compactStep((work - sampled) / 4)
	}
	// Redis's loop: also the fallback for a leaf the wheel missed, and the
	// measure of expired_stale_perc.
	perLoop := expireKeysPerLoop + expireKeysPerLoop/4*e
	accept := expireAcceptStale - e
	var tSampled, tExpired int
	for round := 0; ; round++ {
		left := work - sampled
		if left <= 0 {
			if round > 0 {
				done = false
			}
			break
		}
		sm, ex := s.ActiveExpire(now, min(perLoop, left))
		sampled += sm
		expired += ex
		tSampled += sm
		tExpired += ex
		if sm == 0 || ex*100/sm <= accept {
			break
		}
	}
	x.expiredByCycles += int64(expired)
	for _, db := range s.dbs {
		// Redis's running average: each cycle's samples weigh 1/50.
		switch {
		case db.expires == 0:
			db.avgTTL = 0
		case db.ttlN > 0:
			avg := db.ttlSum / db.ttlN
			if db.avgTTL == 0 {
				db.avgTTL = avg
			}
			db.avgTTL = db.avgTTL/50*49 + avg/50
		}
		db.ttlSum, db.ttlN = 0, 0
	}
	if tSampled > 0 {
		cur := float64(tExpired) * 100 / float64(tSampled)
		x.stalePerc = cur*0.05 + x.stalePerc*0.95
	}
	if !done {
		x.capped = true
		x.timeCapReached++
	}
	return sampled, expired
}

// ExpireCapped reports whether the last ActiveExpireCycle stopped at its
// work limit with expired keys left: the shard then runs fast cycles
// (ExpireFastWork) on the next loop turns, as Redis's beforeSleep does.
func (s *Store) ExpireCapped() bool { return s.exp.capped }

// SetReplica turns the replica's expiry rules on or off. On, a key past
// its TTL reads as absent but stays (a lookup reports it missing and
// deletes nothing), writes that name no time (SET KEEPTTL) keep it, and
// the caller runs no active expiry: the primary's DEL removes it, and
// its writes run with now 0, which never finds a key expired.
func (s *Store) SetReplica(on bool) { s.replica = on }

// expireKey deletes key, whose TTL has passed, counting it and calling
// OnExpire first. key may alias the leaf.
func (db *DB) expireKey(key []byte) {
	s := db.s
	if s.replica {
		return // hidden, not deleted: the primary's DEL removes it
	}
	s.exp.expiredKeys++
	if s.OnExpire != nil {
		s.OnExpire(s.dbIndex(db), s.hookKey(key))
	}
	db.deleteKey(key)
}

// expireLeaf deletes the expired leaf h, whose key k aliases it, counting
// it and calling OnExpire before the block is freed. It reports whether a
// database held h.
func (s *Store) expireLeaf(h slab.Handle, k []byte) bool {
	db := s.unlinkLeaf(h, k)
	if db == nil {
		return false
	}
	s.exp.expiredKeys++
	if s.OnExpire != nil {
		s.OnExpire(s.dbIndex(db), s.hookKey(k))
	}
	db.dropLeaf(h)
	return true
}

// unlinkLeaf takes leaf h, whose key k aliases it, out of the tree of the
// database holding it (one descent per database tried) and returns that
// database, nil if none holds h. The caller frees the leaf (dropLeaf).
func (s *Store) unlinkLeaf(h slab.Handle, k []byte) *DB {
	for _, db := range s.dbs {
		if db.keys != 0 && db.remove(k, h) != slab.Nil {
			return db
		}
	}
	return nil
}

// hookKey copies key for a hook: passing the caller's key to a function
// value would make every key argument of the engine escape to the heap.
func (s *Store) hookKey(key []byte) []byte {
	if cap(s.exp.hookBuf) > 4096 {
		s.exp.hookBuf = nil // a huge key once: do not keep its buffer
	}
	s.exp.hookBuf = append(s.exp.hookBuf[:0], key...)
	return s.exp.hookBuf
}

// dbIndex returns db's number.
func (s *Store) dbIndex(db *DB) int {
	for i, d := range s.dbs {
		if d == db {
			return i
		}
	}
	return -1
}

// liveTTLLeaf returns the leaf at h if h (a handle taken from the wheel or
// a pool, possibly stale) is a live leaf carrying a TTL.
func (s *Store) liveTTLLeaf(h slab.Handle) (leaf, bool) {
	if !s.slab.Valid(h) || !s.slab.Tagged(h) || !isLeaf(s.slab.Pointer(h)) {
		return leaf{}, false
	}
	b := s.slab.Bytes(h)
	if n := b[1]; n < 0x80 {
		return leaf{flags: b[0], key: b[2 : 2+int(n) : 2+int(n)], off: 2 + int(n), b: b}, true
	}
	n, w := binary.Uvarint(b[1:11])
	o := 1 + w + int(n)
	return leaf{flags: b[0], key: b[1+w : o : o], off: o, b: b}, true
}

// wheelPos returns the level and slot of deadline tick d (>= x.tick).
func (x *expiry) wheelPos(d int64) (int, int) {
	k := 0
	for k < wheelLevels-1 && d>>(wheelBits*k)-x.tick>>(wheelBits*k) >= ringSlots {
		k++
	}
	return k, int(d>>(wheelBits*k)) & ringMask
}

// deadlineTick is the tick an entry with deadline expireAt is filed under.
func (x *expiry) deadlineTick(expireAt int64) int64 {
	return max(expireAt>>tickShift, x.tick)
}

// The pending bucket holds entries filed before the Store saw any time (a
// SET with a TTL before any call that passes now): the wheel starts at the
// first time seen and files them then. It is a top-level bucket no real
// deadline reaches (tick digit 9 = 63 is beyond year 10^9).
const pendK, pendB = wheelLevels - 1, ringMask

// wheelFile files leaf h (which has just been given deadline expireAt).
func (s *Store) wheelFile(h slab.Handle, expireAt int64) {
	x := &s.exp
	if !x.started {
		if s.lastNow <= 0 {
			s.wheelPush(pendK, pendB, h)
			return
		}
		x.start(s.lastNow)
	}
	k, b := x.wheelPos(x.deadlineTick(expireAt))
	s.wheelPush(k, b, h)
}

// wheelMoved reports whether a leaf whose deadline changes from old to new
// (both nonzero) must be filed again: whether they fall in different
// buckets. Same bucket: the entry filed for old covers new too.
func (s *Store) wheelMoved(old, new int64) bool {
	if !s.exp.started {
		return true
	}
	x := &s.exp
	k1, b1 := x.wheelPos(x.deadlineTick(old))
	k2, b2 := x.wheelPos(x.deadlineTick(new))
	return k1 != k2 || b1 != b2
}

func chunkLo(c []byte) int                 { return int(binary.LittleEndian.Uint16(c[2:])) }
func chunkHi(c []byte) int                 { return int(binary.LittleEndian.Uint16(c[4:])) }
func chunkNext(c []byte) slab.Handle       { return slab.Handle(binary.LittleEndian.Uint32(c[8:])) }
func chunkAt(c []byte, i int) []byte       { return c[chunkHdr+4*i:] }
func setChunkLo(c []byte, v int)           { binary.LittleEndian.PutUint16(c[2:], uint16(v)) }
func setChunkHi(c []byte, v int)           { binary.LittleEndian.PutUint16(c[4:], uint16(v)) }
func setChunkNext(c []byte, h slab.Handle) { binary.LittleEndian.PutUint32(c[8:], uint32(h)) }

// wheelPush appends h to bucket (k, b).
func (s *Store) wheelPush(k, b int, h slab.Handle) {
	x := &s.exp
	t := x.tail[k][b]
	var c []byte
	if t != slab.Nil {
		c = s.slab.Bytes(t)
	}
	if t == slab.Nil || chunkHi(c) == chunkCap {
		n := s.alloc(chunkSize)
		nc := s.slab.Bytes(n)
		clear(nc[:chunkHdr])
		if t == slab.Nil {
			x.head[k][b] = n
			x.nonEmpty[k][b>>6] |= 1 << (b & 63)
		} else {
			setChunkNext(c, n)
		}
		x.tail[k][b] = n
		c = nc
	}
	i := chunkHi(c)
	binary.LittleEndian.PutUint32(chunkAt(c, i), uint32(h))
	setChunkHi(c, i+1)
	x.count[k][b]++
	x.entries++
}

// wheelPop takes the oldest entry of bucket (k, b), which must not be empty.
func (s *Store) wheelPop(k, b int) slab.Handle {
	x := &s.exp
	hh := x.head[k][b]
	c := s.slab.Bytes(hh)
	i := chunkLo(c)
	h := slab.Handle(binary.LittleEndian.Uint32(chunkAt(c, i)))
	i++
	if i == chunkHi(c) {
		// Used up. Only the tail chunk is ever partly filled, so a chunk
		// used up with a successor was full.
		next := chunkNext(c)
		s.slab.Free(hh)
		x.head[k][b] = next
		if next == slab.Nil {
			x.tail[k][b] = slab.Nil
			x.nonEmpty[k][b>>6] &^= 1 << (b & 63)
		}
	} else {
		setChunkLo(c, i)
	}
	x.count[k][b]--
	x.entries--
	return h
}

// start sets the wheel's time: the tick before now's, so that deadlines
// already past are drained by the next cycle.
func (x *expiry) start(now int64) {
	x.started, x.tick = true, max(now>>tickShift-1, 0)
	for k := range x.next {
		x.next[k] = x.tick>>(wheelBits*k) + 1
	}
}

// firstSlot returns the first non-empty slot of level k at or after slot
// from (circularly) as an offset 0..127 from it, or -1.
func (x *expiry) firstSlot(k, from int) int {
	ne := &x.nonEmpty[k]
	for off := 0; off < ringSlots; {
		i := (from + off) & ringMask
		w := ne[i>>6] >> (i & 63)
		if k == pendK && i <= pendB && pendB < i+64 {
			w &^= 1 << (pendB - i)
		}
		if w != 0 {
			off += bits.TrailingZeros64(w)
			if off >= ringSlots {
				return -1
			}
			return off
		}
		off += 64 - i&63
	}
	return -1
}

// firstBucket returns the first non-empty bucket number of level k >= 1
// at or after next[k] (ok false if none).
func (x *expiry) firstBucket(k int) (int64, bool) {
	u := x.next[k]
	off := x.firstSlot(k, int(u)&ringMask)
	if off < 0 {
		return 0, false
	}
	return u + int64(off), true
}

// cascade files again the entries of level k's bucket u (k >= 1); false if
// work ran out first.
func (s *Store) cascade(k int, u int64, work int, examined *int) bool {
	x := &s.exp
	b := int(u) & ringMask
	for x.head[k][b] != slab.Nil {
		if *examined >= work {
			return false
		}
		h := s.wheelPop(k, b)
		*examined++
		l, ok := s.liveTTLLeaf(h)
		if !ok {
			continue
		}
		d := x.deadlineTick(l.expireAt())
		if d>>(wheelBits*k) != u {
			continue // its TTL moved: filed elsewhere
		}
		nk, nb := x.wheelPos(d)
		s.wheelPush(nk, nb, h)
	}
	return true
}

// cascadeUpTo cascades, highest level first, every bucket of level k whose
// number is at most (tick >> 6k) + ahead; false if work ran out.
func (s *Store) cascadeUpTo(ahead int64, work int, examined *int) bool {
	x := &s.exp
	for k := wheelLevels - 1; k >= 1; k-- {
		limit := x.tick>>(wheelBits*k) + ahead
		for x.next[k] <= limit {
			u, ok := x.firstBucket(k)
			if !ok || u > limit {
				x.next[k] = limit + 1
				break
			}
			if !s.cascade(k, u, work, examined) {
				x.next[k] = u
				return false
			}
			x.next[k] = u + 1
		}
	}
	return true
}

// nextTick returns the first tick after x.tick at which a level-0 slot is
// to be drained or a bucket becomes due for cascading (MaxInt64 if none).
func (x *expiry) nextTick() int64 {
	next := int64(1<<63 - 1)
	if off := x.firstSlot(0, int(x.tick+1)&ringMask); off >= 0 {
		next = x.tick + 1 + int64(off)
	}
	for k := 1; k < wheelLevels; k++ {
		if u, ok := x.firstBucket(k); ok {
			next = min(next, max(u<<(wheelBits*k), x.tick+1))
		}
	}
	return next
}

// wheelAdvance drains every tick that ended by now, then cascades ahead,
// within work units. done is false when it stopped at the limit with
// entries left.
func (s *Store) wheelAdvance(now int64, work int) (examined, expired int, done bool) {
	x := &s.exp
	if !x.started {
		x.start(now)
	}
	for x.head[pendK][pendB] != slab.Nil {
		if examined >= work {
			return examined, expired, false
		}
		h := s.wheelPop(pendK, pendB)
		examined++
		if l, ok := s.liveTTLLeaf(h); ok {
			k, b := x.wheelPos(x.deadlineTick(l.expireAt()))
			s.wheelPush(k, b, h)
		}
	}
	target := now >> tickShift // ticks < target have ended
	for x.tick < target {
		// Buckets that reach tick must be cascaded first (normally done
		// ahead, below).
		if !s.cascadeUpTo(0, work, &examined) {
			return examined, expired, false
		}
		b := int(x.tick) & ringMask
		for x.head[0][b] != slab.Nil {
			if examined >= work {
				return examined, expired, false
			}
			h := s.wheelPop(0, b)
			examined++
			l, ok := s.liveTTLLeaf(h)
			if !ok || !l.expired(now) {
				continue
			}
			if s.expireLeaf(h, l.key) {
				expired++
			}
		}
		x.tick = min(x.nextTick(), target)
	}
	// Ahead: the next bucket of every level, in the background.
	if !s.cascadeUpTo(1, work, &examined) {
		return examined, expired, false
	}
	return examined, expired, true
}

// compactStep looks at up to work entries of the bucket under the
// compaction cursor (moving on to the next non-empty bucket when it is
// done) and drops the stale ones. It returns the entries looked at.
func (s *Store) compactStep(work int) int {
	x := &s.exp
	n := 0
	for n < work {
		if x.cleft <= 0 {
			if x.entries == 0 {
				return n
			}
			// Next non-empty bucket after the cursor, levels in turn.
			for {
				x.cb++
				if x.cb > ringMask {
					x.cb = 0
					x.cl = (x.cl + 1) % wheelLevels
				}
				if x.nonEmpty[x.cl][x.cb>>6]&(1<<(x.cb&63)) != 0 && (x.cl != pendK || x.cb != pendB) {
					break
				}
			}
			x.cleft = x.count[x.cl][x.cb]
		}
		k, b := x.cl, x.cb
		if x.head[k][b] == slab.Nil {
			x.cleft = 0
			continue
		}
		h := s.wheelPop(k, b)
		x.cleft--
		n++
		l, ok := s.liveTTLLeaf(h)
		if !ok {
			continue
		}
		// Still in this slot's bucket (possibly cascadable by now: keep it).
		if int(x.deadlineTick(l.expireAt())>>(wheelBits*k))&ringMask == b {
			s.wheelPush(k, b, h)
		}
	}
	return n
}

// ttlDropped is called when a leaf loses its TTL: once none is left, the
// wheel's stale entries are freed (after every key is deleted the slab
// holds no live block).
func (s *Store) ttlDropped() {
	if s.exp.entries == 0 || s.slab.LiveTagged() != 0 {
		return
	}
	x := &s.exp
	for k := range x.head {
		for b := range x.head[k] {
			for h := x.head[k][b]; h != slab.Nil; {
				next := chunkNext(s.slab.Bytes(h))
				s.slab.Free(h)
				h = next
			}
		}
	}
	started, tick, next := x.started, x.tick, x.next
	x.wheelReset()
	x.started, x.tick, x.next = started, tick, next
}

// wheelReset forgets every entry (the slab was reset).
func (x *expiry) wheelReset() {
	x.head = [wheelLevels][ringSlots]slab.Handle{}
	x.tail = [wheelLevels][ringSlots]slab.Handle{}
	x.count = [wheelLevels][ringSlots]int32{}
	x.nonEmpty = [wheelLevels][ringSlots / 64]uint64{}
	x.entries, x.cleft, x.started = 0, 0, false
}

// Stats are the engine's counters, named as INFO names them.
type Stats struct {
	ExpiredKeys           int64   // expired_keys
	ExpiredStalePerc      float64 // expired_stale_perc
	ExpiredTimeCapReached int64   // expired_time_cap_reached_count
	EvictedKeys           int64   // evicted_keys
	KeyspaceHits          int64   // keyspace_hits: keys found by a counted lookup (CountReads)
	KeyspaceMisses        int64   // keyspace_misses: keys not found
}

// Stats returns the counters.
func (s *Store) Stats() Stats {
	return Stats{
		ExpiredKeys:           s.exp.expiredKeys,
		ExpiredStalePerc:      s.exp.stalePerc,
		ExpiredTimeCapReached: s.exp.timeCapReached,
		EvictedKeys:           s.mem.evicted,
		KeyspaceHits:          s.hits,
		KeyspaceMisses:        s.misses,
	}
}

// ResetStats clears the counters (CONFIG RESETSTAT).
func (s *Store) ResetStats() {
	s.exp.expiredKeys, s.exp.stalePerc, s.exp.timeCapReached = 0, 0, 0
	s.mem.evicted = 0
	s.hits, s.misses = 0, 0
	s.lazyFreed = 0
}

// CountReads turns on (or off) the counting of key lookups as keyspace
// hits and misses, as Redis counts the lookups of read commands: the
// server turns it on for the duration of each read-only command.
func (s *Store) CountReads(on bool) { s.reads, s.lastRead = on, 0 }

// ReadAgain makes the next counted lookup count even when it is for the
// same bytes as the last (a key built in a reused buffer, as SORT's
// patterns build theirs): the two are different lookups.
func (db *DB) ReadAgain() { db.s.lastRead = 0 }

// EndReads stops the counting of lookups for the rest of the command
// (SORT ... STORE writes its destination after reading).
func (db *DB) EndReads() { db.s.reads = false }

// ReadsAgain has the next counted lookup count even when it is of the
// key the last one looked up (the lookups of one key in a row count once):
// XREAD and XREADGROUP look at their streams twice, as Redis's
// xreadCommand does.
func (db *DB) ReadsAgain() { db.s.lastRead = 0 }

// AddReads adds the hits and misses other counted to s's and clears
// other's: a command run on copies of its keys (a scratch store) counts
// on the store the keys came from.
func (s *Store) AddReads(other *Store) {
	s.hits += other.hits
	s.misses += other.misses
	other.hits, other.misses = 0, 0
}

// counted files the outcome of one lookup of key when reads are counted.
func (s *Store) counted(key []byte, found bool) {
	if s.reads {
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(key))); p != s.lastRead || len(key) != s.lastReadLen {
			s.lastRead, s.lastReadLen = p, len(key)
		} else {
			return
		}
		if found {
			s.hits++
		} else {
			s.misses++
			if s.recMisses {
				s.missBuf = append(s.missBuf, key...)
				s.missEnds = append(s.missEnds, len(s.missBuf))
			}
		}
	}
}

// RecordMisses turns on (or off) the recording of the keys a counted
// lookup does not find (those keyspace_misses counts: Redis's keymiss
// events), which Misses hands over.
func (s *Store) RecordMisses(on bool) {
	s.recMisses = on
	s.missBuf, s.missEnds = s.missBuf[:0], s.missEnds[:0]
}

// Misses calls fn with each key recorded since the last call, in order,
// and forgets them. The key is valid only during the call.
func (s *Store) Misses(fn func(key []byte)) {
	start := 0
	for _, end := range s.missEnds {
		fn(s.missBuf[start:end:end])
		start = end
	}
	s.missBuf, s.missEnds = s.missBuf[:0], s.missEnds[:0]
}

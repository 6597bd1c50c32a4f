package engine

import (
	"math"

	"github.com/radish-kv/radish/engine/slab"
)

// The access clock and the memory budget.
//
// Every leaf ends with clockBytes (3) bytes, the last ones of its block
// (leaf.go), holding what Redis keeps in an object's 24-bit lru field:
//
//   - under an LRU (or any non-LFU) policy, the LRU clock of the last
//     access: unix seconds mod 2^24 (Redis's LRU_CLOCK, 1 s resolution);
//   - under an LFU policy, the minutes clock of the last decrement (16 bits,
//     unix minutes mod 2^16) and an 8-bit logarithmic access counter
//     (Redis's LFU: new keys start at 5, an access increments it with
//     probability 1/((counter-5)*lfu-log-factor+1), and it loses one per
//     lfu-decay-time minutes idle).
//
// Switching between LRU and LFU policies does not convert the field, as in
// Redis: the values take a while to become meaningful.
//
// Reads and writes touch the clock (find, GetString, SetString), except
// while SetNoTouch(true) is in force (CLIENT NO-TOUCH; the TOUCH command
// still touches) and for the commands Redis looks keys up without touching
// (EXISTS, TYPE, TTL, OBJECT: the engine's Exists, TypeOf, Expiry,
// Encoding, IdleTime, Freq). A value written anew gets a fresh clock under
// LRU and keeps its counter under LFU (Redis's dbOverwrite).
//
// Eviction (Evict) runs between commands: with maxmemory set and
// UsedMemory above it, it deletes keys chosen by the policy until the Store
// is within the budget, at most evictMaxKeys per call. The LRU, LFU and TTL
// policies keep Redis's eviction pool: each step samples maxmemory-samples
// leaves (through the slab's random pick, from every database; tagged
// leaves only for the volatile policies) into a pool of the 16 best
// candidates seen so far, ordered by idle score, and evicts the best one
// that still exists. The pool holds slab.Refs, so a key deleted or moved
// since it was sampled is recognised and skipped; so is one whose score
// dropped (accessed since).

// Policy is a maxmemory-policy.
type Policy uint8

// Policies, as Redis names them (Policy.String).
const (
	NoEviction Policy = iota
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	VolatileLRU
	VolatileLFU
	VolatileRandom
	VolatileTTL
)

var policyNames = [...]string{"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}

// String returns the maxmemory-policy name.
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "noeviction"
}

// ParsePolicy returns the Policy named name (a maxmemory-policy value).
func ParsePolicy(name string) (Policy, bool) {
	for i, n := range policyNames {
		if n == name {
			return Policy(i), true
		}
	}
	return NoEviction, false
}

func (p Policy) lfu() bool      { return p == AllKeysLFU || p == VolatileLFU }
func (p Policy) volatile() bool { return p >= VolatileLRU }

const (
	clockBytes = 3
	lruMax     = 1<<24 - 1 // LRU_CLOCK_MAX
	lfuInit    = 5         // LFU_INIT_VAL
	evpoolSize = 16        // EVPOOL_SIZE
	// evictMaxKeys bounds the keys one Evict call deletes (Redis bounds
	// performEvictions by time: 500 us at the default tenacity).
	evictMaxKeys = 256
)

// budget is the Store's memory budget and access-clock state.
type budget struct {
	max       int64
	policy    Policy
	samples   int
	logFactor int
	decayTime int
	noTouch   bool
	pool      [evpoolSize]poolEntry
	evicted   int64 // evicted_keys
}

// poolEntry is a candidate of the eviction pool; ref 0 is an empty slot.
type poolEntry struct {
	ref  slab.Ref
	idle uint64
}

// SetMaxMemory sets the budget (maxmemory, 0: none), the policy and
// maxmemory-samples (at least 1). Call it at start-up and whenever one of
// them changes; the shard's share of maxmemory is the caller's business.
func (s *Store) SetMaxMemory(bytes int64, policy Policy, samples int) {
	m := &s.mem
	if policy != m.policy {
		m.pool = [evpoolSize]poolEntry{}
	}
	m.max, m.policy, m.samples = max(bytes, 0), policy, max(samples, 1)
}

// SetLFU sets lfu-log-factor and lfu-decay-time (minutes).
func (s *Store) SetLFU(logFactor, decayTime int) {
	s.mem.logFactor, s.mem.decayTime = max(logFactor, 0), max(decayTime, 0)
}

// SetNoTouch turns off (on=true) access-clock updates by reads and writes
// until it is turned back on: the shard sets it around each command of a
// client in CLIENT NO-TOUCH mode (except TOUCH, which touches anyway).
func (s *Store) SetNoTouch(on bool) { s.mem.noTouch = on }

// MaxMemory returns the budget in bytes (0: none) and the policy.
func (s *Store) MaxMemory() (int64, Policy) { return s.mem.max, s.mem.policy }

// LFU reports whether the access clocks hold LFU counters.
func (s *Store) LFU() bool { return s.mem.policy.lfu() }

// OverBudget reports whether maxmemory is set and UsedMemory exceeds it.
// The shard refuses a denyoom command with
// "-OOM command not allowed when used memory > 'maxmemory'." when
// OverBudget is still true after Evict returned ok == false.
func (s *Store) OverBudget() bool {
	return s.mem.max > 0 && s.UsedMemory() > s.mem.max
}

// Evict deletes keys chosen by the policy until UsedMemory is within
// maxmemory, deleting at most evictMaxKeys keys per call. ok is false when
// the Store is still over budget and nothing can be evicted (noeviction, no
// key, or for the volatile policies no key with a TTL); when ok is true but
// OverBudget still holds, the call stopped at its bound: call it again
// (next loop turn) and let commands run meanwhile, as Redis does.
// OnEvict is called for every key evicted.
func (s *Store) Evict(now int64) (evicted int, ok bool) {
	s.seen(now)
	m := &s.mem
	if m.max <= 0 {
		return 0, true
	}
	for evicted < evictMaxKeys {
		if s.UsedMemory() <= m.max {
			return evicted, true
		}
		if !s.evictOne() {
			return evicted, false
		}
		evicted++
	}
	return evicted, true
}

// evictOne deletes one key chosen by the policy; false if there is none.
func (s *Store) evictOne() bool {
	m := &s.mem
	vol := m.policy.volatile()
	switch m.policy {
	case NoEviction:
		return false
	case AllKeysRandom, VolatileRandom:
		for tries := 0; tries < 16; tries++ {
			h, ok := s.pickLeaf(vol)
			if !ok {
				return false
			}
			if s.evictLeaf(h) {
				return true
			}
		}
		return false
	}
	for tries := 0; tries < 64; tries++ {
		if !s.poolPopulate(vol) {
			return false
		}
		for k := evpoolSize - 1; k >= 0; k-- {
			e := m.pool[k]
			if e.ref == 0 {
				continue
			}
			m.pool[k] = poolEntry{}
			h, ok := s.slab.Resolve(e.ref)
			if !ok || !isLeaf(s.slab.Pointer(h)) || (vol && !s.slab.Tagged(h)) {
				continue // deleted or moved since: a ghost
			}
			l := s.leafAt(h)
			if s.evictScore(&l) < e.idle {
				continue // accessed since it was sampled
			}
			if s.evictLeaf(h) {
				return true
			}
		}
	}
	return false
}

// poolPopulate samples maxmemory-samples leaves into the pool (Redis's
// evictionPoolPopulate); false when there is no candidate at all.
func (s *Store) poolPopulate(vol bool) bool {
	m := &s.mem
	pool := &m.pool
	any := false
	for i := 0; i < m.samples; i++ {
		h, ok := s.pickLeaf(vol)
		if !ok {
			break
		}
		any = true
		l := s.leafAt(h)
		idle := s.evictScore(&l)
		ref := s.slab.Ref(h)
		dup := false
		for j := range pool {
			if pool[j].ref == ref {
				pool[j].idle = idle
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		// Insert keeping ascending idle order; a full pool drops its worst.
		k := 0
		for k < evpoolSize && pool[k].ref != 0 && pool[k].idle < idle {
			k++
		}
		switch {
		case k == 0 && pool[evpoolSize-1].ref != 0:
			continue // worse than every candidate of a full pool
		case k < evpoolSize && pool[k].ref == 0:
		case pool[evpoolSize-1].ref == 0:
			copy(pool[k+1:], pool[k:evpoolSize-1])
		default:
			k--
			copy(pool[:k], pool[1:k+1])
		}
		pool[k] = poolEntry{ref: ref, idle: idle}
	}
	if !any {
		for _, e := range pool {
			if e.ref != 0 {
				return true
			}
		}
	}
	return any
}

// evictScore is the pool's idle score of l: the higher, the better to
// evict (Redis: idle time, 255 minus the LFU counter, or the inverse TTL).
func (s *Store) evictScore(l *leaf) uint64 {
	switch s.mem.policy {
	case VolatileTTL:
		return math.MaxUint64 - uint64(l.expireAt())
	case AllKeysLFU, VolatileLFU:
		return 255 - uint64(s.lfuDecr(getClock(l.b)))
	default:
		return s.idleMs(getClock(l.b))
	}
}

// evictLeaf deletes the live leaf h, counting it, calling BeforeEvict
// while it is still in its tree and OnEvict before the block is freed. It
// reports whether a database held h.
func (s *Store) evictLeaf(h slab.Handle) bool {
	k := s.leafAt(h).key
	if s.BeforeEvict != nil {
		for i, db := range s.dbs {
			if _, lh := db.lookup(k); lh == h {
				s.BeforeEvict(i, s.hookKey(k))
				break
			}
		}
	}
	db := s.unlinkLeaf(h, k)
	if db == nil {
		return false
	}
	s.mem.evicted++
	if s.OnEvict != nil {
		s.OnEvict(s.dbIndex(db), s.hookKey(k))
	}
	db.dropLeaf(h)
	return true
}

// leafAt decodes the live leaf h.
func (s *Store) leafAt(h slab.Handle) leaf {
	return s.dbs[0].readLeaf(h)
}

// getClock returns the access clock of the leaf block b.
func getClock(b []byte) uint32 {
	t := b[len(b)-clockBytes:]
	return uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16
}

func putClock(b []byte, v uint32) {
	t := b[len(b)-clockBytes:]
	t[0], t[1], t[2] = byte(v), byte(v>>8), byte(v>>16)
}

// copyClock gives leaf block dst the access clock of leaf block src.
func copyClock(dst, src []byte) { putClock(dst, getClock(src)) }

func (s *Store) lruClock() uint32   { return uint32(s.lastNow/1000) & lruMax }
func (s *Store) lfuMinutes() uint32 { return uint32(s.lastNow/60000) & 0xffff }

// freshClock is the clock of a new value (createObject).
func (s *Store) freshClock() uint32 {
	if s.mem.policy.lfu() {
		return s.lfuMinutes()<<8 | lfuInit
	}
	return s.lruClock()
}

// rewrittenClock is the clock a value written over an existing one keeps:
// the old LFU counter, or a fresh LRU clock.
func (s *Store) rewrittenClock(old []byte) uint32 {
	if s.mem.policy.lfu() {
		return getClock(old)
	}
	return s.lruClock()
}

// touch records an access to the leaf block b, unless SetNoTouch is on.
func (s *Store) touch(b []byte) {
	if !s.mem.noTouch {
		s.touchAlways(b)
	}
}

// touchAlways is Redis's updateLFU / lru = LRU_CLOCK().
func (s *Store) touchAlways(b []byte) {
	if !s.mem.policy.lfu() {
		if c := s.lruClock(); getClock(b) != c {
			putClock(b, c)
		}
		return
	}
	n := s.lfuIncr(s.lfuDecr(getClock(b)))
	putClock(b, s.lfuMinutes()<<8|n)
}

// idleMs is Redis's estimateObjectIdleTime.
func (s *Store) idleMs(v uint32) uint64 {
	c := s.lruClock()
	if c >= v {
		return uint64(c-v) * 1000
	}
	return uint64(c+(lruMax-v)) * 1000
}

// lfuDecr is Redis's LFUDecrAndReturn: the counter of v after decay.
func (s *Store) lfuDecr(v uint32) uint32 {
	ldt, counter := v>>8, v&255
	if s.mem.decayTime <= 0 {
		return counter
	}
	now := s.lfuMinutes()
	var elapsed uint32
	if now >= ldt {
		elapsed = now - ldt
	} else {
		elapsed = 65535 - ldt + now
	}
	periods := elapsed / uint32(s.mem.decayTime)
	if periods > counter {
		return 0
	}
	return counter - periods
}

// lfuIncr is Redis's LFULogIncr.
func (s *Store) lfuIncr(counter uint32) uint32 {
	if counter == 255 {
		return 255
	}
	r := float64(s.random()>>11) / (1 << 53)
	base := max(float64(counter)-lfuInit, 0)
	if r < 1/(base*float64(s.mem.logFactor)+1) {
		counter++
	}
	return counter
}

// Touch records an access to key (the TOUCH command: it touches even under
// SetNoTouch) and reports whether key exists.
func (db *DB) Touch(key []byte, now int64) bool {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return false
	}
	db.s.touchAlways(l.b)
	return true
}

// IdleTime returns OBJECT IDLETIME's answer: seconds since key was last
// accessed (meaningful under a non-LFU policy). It does not touch key.
func (db *DB) IdleTime(key []byte, now int64) (seconds int64, found bool) {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return 0, false
	}
	return int64(db.s.idleMs(getClock(l.b)) / 1000), true
}

// Freq returns OBJECT FREQ's answer: key's LFU counter after decay
// (meaningful under an LFU policy). It does not touch key.
func (db *DB) Freq(key []byte, now int64) (int, bool) {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return 0, false
	}
	return int(db.s.lfuDecr(getClock(l.b))), true
}

// SetAccess sets key's access clock as RESTORE's IDLETIME and FREQ do
// (Redis's objectSetLRUOrLFU): under an LFU policy a freq >= 0 (at most
// 255) becomes the counter; under another policy an idle >= 0 (seconds)
// dates the last access back; anything else is ignored. It reports
// whether key exists.
func (db *DB) SetAccess(key []byte, freq int, idle int64, now int64) bool {
	_, h, l := db.peek(key, now)
	if h == slab.Nil {
		return false
	}
	s := db.s
	switch {
	case s.mem.policy.lfu() && freq >= 0:
		putClock(l.b, s.lfuMinutes()<<8|uint32(freq)&255)
	case !s.mem.policy.lfu() && idle >= 0:
		v := int64(s.lruClock()) - idle
		if v < 0 {
			v += lruMax // then cut to 24 bits, as Redis's bit field does
		}
		putClock(l.b, uint32(v)&lruMax)
	}
	return true
}

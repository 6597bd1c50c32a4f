package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"

	"github.com/radish-kv/radish/engine/slab"
)

// This file is the sorted-set type. Two encodings, as in Redis:
//
//   - listpack: one packed block (object.go) of elements sorted by
//     (score, member), each the member as a serialized string then the
//     score's 8 bytes; while the set has at most zset-max-listpack-entries
//     elements and no member longer than zset-max-listpack-value.
//   - skiplist: skiplist.go. A set converts once and never back, except
//     that a stored result (ZUNIONSTORE, ZRANGESTORE...) gets the encoding
//     its size calls for.
//
// Everything is addressed by rank (0-based, ascending): ranges by score or
// lex become a pair of ranks found with countBefore, so both encodings
// implement only count, lookup, insert, remove, walk and deleteRange.
//
// Member slices handed to callbacks are borrowed: valid during the
// callback only, and the callback must not call into the Store.

// ErrScoreNaN is the error of an increment that makes a score NaN.
var ErrScoreNaN = errors.New("ERR resulting score is not a number (NaN)")

func init() {
	registerObj(TypeZSet, &objType{free: zsetFree, export: zsetExport, load: zsetLoad, size: zsetSize})
}

func zsetFree(db *DB, enc int, x slab.Handle) {
	if enc == encSkiplist {
		z := db.openZsl(x)
		z.free()
		return
	}
	db.s.slab.Free(x)
}

// zsetExport: uvarint count, then per element the member (serialized
// string) and the score's 8 bytes, in order.
func zsetExport(db *DB, enc int, x slab.Handle, dst []byte) []byte {
	z := zset{db: db, enc: enc, x: x}
	dst = binary.AppendUvarint(dst, uint64(z.card()))
	z.walk(0, false, func(m []byte, s float64) bool {
		dst = appendStr(dst, m)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s))
		return true
	})
	return dst
}

func zsetLoad(db *DB, data []byte) (int, slab.Handle, bool) {
	n, w := binary.Uvarint(data)
	if w <= 0 || n == 0 || n > uint64(len(data)) {
		return 0, slab.Nil, false
	}
	// Validate first so nothing is allocated for a bad record.
	maxLen := 0
	for i, o := uint64(0), w; i < n; i++ {
		m, next := readStr(data, o)
		if next < 0 || next+8 > len(data) || math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(data[next:]))) {
			return 0, slab.Nil, false
		}
		maxLen = max(maxLen, len(m))
		o = next + 8
	}
	z := db.newZSet(int(n), maxLen)
	for i, o := uint64(0), w; i < n; i++ {
		m, next := readStr(data, o)
		s := math.Float64frombits(binary.LittleEndian.Uint64(data[next:]))
		o = next + 8
		if _, ok := z.score(m); !ok {
			z.insert(s, m)
		}
	}
	return z.enc, z.x, true
}

// zset is an open sorted set.
type zset struct {
	db  *DB
	enc int
	x   slab.Handle
}

// newZSet creates an empty set whose encoding suits n elements with
// members up to maxLen bytes (Redis's zsetTypeCreate).
func (db *DB) newZSet(n, maxLen int) zset {
	l := &db.s.Limits
	if n <= l.ZSetMaxListpackEntries && maxLen <= l.ZSetMaxListpackValue {
		return zset{db: db, enc: encListpack, x: db.newPack(max(16, n*16))}
	}
	z := db.newZsl(n)
	return zset{db: db, enc: encSkiplist, x: z.h}
}

func (z *zset) card() int {
	if z.enc == encListpack {
		return packCount(z.db.packBytes(z.x))
	}
	return int(binary.LittleEndian.Uint64(z.db.s.slab.Bytes(z.x)[16:]))
}

// packScore reads the score that follows a member ending at offset o.
func packScore(e []byte, o int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(e[o:]))
}

// packFind returns member's entry offset, its end and score.
func (z *zset) packFind(member []byte) (off, end int, score float64, ok bool) {
	e := packEntries(z.db.packBytes(z.x))
	for o := 0; o < len(e); {
		m, next := readStr(e, o)
		if bytes.Equal(m, member) {
			return o, next + 8, packScore(e, next), true
		}
		o = next + 8
	}
	return 0, 0, 0, false
}

// score returns member's score.
func (z *zset) score(member []byte) (float64, bool) {
	s, _, ok := z.find(member)
	return s, ok
}

// find returns member's score and, in a skiplist, its node (for setScore).
func (z *zset) find(member []byte) (float64, slab.Handle, bool) {
	if z.enc == encListpack {
		_, _, s, ok := z.packFind(member)
		return s, slab.Nil, ok
	}
	zl := z.db.openZsl(z.x)
	x := zl.lookup(member)
	if x == slab.Nil {
		return 0, slab.Nil, false
	}
	return zl.node(x).score(), x, true
}

// insert adds an absent member, converting to a skiplist when the
// listpack limits would be exceeded.
func (z *zset) insert(score float64, member []byte) {
	if z.enc == encListpack {
		l := &z.db.s.Limits
		if z.card()+1 > l.ZSetMaxListpackEntries || len(member) > l.ZSetMaxListpackValue {
			z.convert()
		} else {
			score += 0 // Redis's listpack stores -0 as the integer 0
			e := packEntries(z.db.packBytes(z.x))
			o := 0
			for o < len(e) {
				m, next := readStr(e, o)
				if zless(score, member, packScore(e, next), m) {
					break
				}
				o = next + 8
			}
			buf := appendStr(z.db.s.tmp[:0], member)
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(score))
			z.db.s.tmp = buf
			z.x = z.db.packSplice(z.x, o, 0, buf, 1)
			return
		}
	}
	zl := z.db.openZsl(z.x)
	zl.insert(score, member)
	zl.save()
}

// convert turns a listpack set into a skiplist.
func (z *zset) convert() {
	b := z.db.packBytes(z.x)
	zl := z.db.newZsl(packCount(b) + 1)
	e := packEntries(z.db.packBytes(z.x))
	for o := 0; o < len(e); {
		m, next := readStr(e, o)
		zl.insert(packScore(e, next), m)
		o = next + 8
	}
	zl.save()
	z.db.s.slab.Free(z.x)
	z.enc, z.x = encSkiplist, zl.h
}

// remove deletes member; false when absent.
func (z *zset) remove(member []byte) bool {
	if z.enc == encListpack {
		off, end, _, ok := z.packFind(member)
		if ok {
			z.x = z.db.packSplice(z.x, off, end-off, nil, -1)
		}
		return ok
	}
	zl := z.db.openZsl(z.x)
	x := zl.lookup(member)
	if x == slab.Nil {
		return false
	}
	zl.remove(x)
	zl.save()
	return true
}

// setScore changes an existing member's score; x is its node as find
// returned it.
func (z *zset) setScore(member []byte, x slab.Handle, score float64) {
	if z.enc == encListpack {
		z.remove(member) // member does not alias the block
		z.insert(score, member)
		return
	}
	zl := z.db.openZsl(z.x)
	zl.updateScore(x, score)
	zl.save()
}

// rank returns member's 0-based ascending rank and score.
func (z *zset) rank(member []byte) (int, float64, bool) {
	if z.enc == encListpack {
		e := packEntries(z.db.packBytes(z.x))
		r := 0
		for o := 0; o < len(e); r++ {
			m, next := readStr(e, o)
			if bytes.Equal(m, member) {
				return r, packScore(e, next), true
			}
			o = next + 8
		}
		return 0, 0, false
	}
	zl := z.db.openZsl(z.x)
	x := zl.lookup(member)
	if x == slab.Nil {
		return 0, 0, false
	}
	return zl.rankOf(x), zl.node(x).score(), true
}

// countBefore returns the number of leading elements for which before
// holds (it must hold for a prefix of the order).
func (z *zset) countBefore(before func(score float64, member []byte) bool) int {
	if z.enc == encListpack {
		e := packEntries(z.db.packBytes(z.x))
		r := 0
		for o := 0; o < len(e); r++ {
			m, next := readStr(e, o)
			if !before(packScore(e, next), m) {
				break
			}
			o = next + 8
		}
		return r
	}
	zl := z.db.openZsl(z.x)
	return zl.countBefore(before)
}

// walk calls fn from rank r on, ascending (or descending when rev), until
// fn returns false or the set ends.
func (z *zset) walk(r int, rev bool, fn func(member []byte, score float64) bool) {
	n := z.card()
	if r < 0 || r >= n {
		return
	}
	if z.enc == encListpack {
		e := packEntries(z.db.packBytes(z.x))
		if !rev {
			i := 0
			for o := 0; o < len(e); i++ {
				m, next := readStr(e, o)
				if i >= r && !fn(m, packScore(e, next)) {
					return
				}
				o = next + 8
			}
			return
		}
		var offs [256]uint32 // listpack sets stay small: see zsetOffsets
		idx := zsetOffsets(e, offs[:0])
		for i := r; i >= 0; i-- {
			m, next := readStr(e, int(idx[i]))
			if !fn(m, packScore(e, next)) {
				return
			}
		}
		return
	}
	zl := z.db.openZsl(z.x)
	x := zl.byRank(r)
	for x != slab.Nil {
		xn := zl.node(x)
		if !fn(xn.member(), xn.score()) {
			return
		}
		if rev {
			x = xn.back()
		} else {
			x = xn.fwd(0)
		}
	}
}

// zsetOffsets appends the entry offsets of a packed zset to dst.
func zsetOffsets(e []byte, dst []uint32) []uint32 {
	for o := 0; o < len(e); {
		dst = append(dst, uint32(o))
		_, next := readStr(e, o)
		o = next + 8
	}
	return dst
}

// deleteRange deletes ranks [start, end).
func (z *zset) deleteRange(start, end int) {
	if start >= end {
		return
	}
	if z.enc == encListpack {
		e := packEntries(z.db.packBytes(z.x))
		var offs [256]uint32
		idx := zsetOffsets(e, offs[:0])
		lo := int(idx[start])
		hi := len(e)
		if end < len(idx) {
			hi = int(idx[end])
		}
		z.x = z.db.packSplice(z.x, lo, hi-lo, nil, -(end - start))
		return
	}
	zl := z.db.openZsl(z.x)
	zl.deleteRange(start, end)
	zl.save()
}

// ---- DB operations ----

// openZSet opens key's sorted set (o.h Nil when absent).
func (db *DB) openZSet(key []byte, now int64) (zset, obj, error) {
	o, err := db.getObj(key, TypeZSet, now)
	if err != nil || !o.exists() {
		return zset{}, o, err
	}
	return zset{db: db, enc: o.enc, x: o.x}, o, nil
}

// commitZSet records a moved root and deletes the key when it emptied.
func (db *DB) commitZSet(key []byte, z *zset, o *obj) {
	db.setObj(o, z.enc, z.x)
	if z.card() == 0 {
		db.delObj(key, o)
	}
}

// ZAdd flags (ZADD's options; ZAddIncr is ZINCRBY and ZADD INCR).
const (
	ZAddNX = 1 << iota
	ZAddXX
	ZAddGT
	ZAddLT
	ZAddIncr
)

// ZAddResult is what ZADD replies with.
type ZAddResult struct {
	Added   int     // new members
	Updated int     // existing members whose score changed
	Score   float64 // ZAddIncr: the member's new score
	Done    bool    // ZAddIncr: the increment was applied (else a nil reply)
}

// ZAdd adds or updates n (score, member) pairs given by pair, as ZADD
// with flags (combinations must already be validated: NX excludes XX, GT
// and LT; GT excludes LT; ZAddIncr means n == 1). The key is created
// unless XX. An increment producing NaN returns ErrScoreNaN (nothing
// changes).
func (db *DB) ZAdd(key []byte, flags int, n int, pair func(i int) (float64, []byte), now int64) (ZAddResult, error) {
	var r ZAddResult
	z, o, err := db.openZSet(key, now)
	if err != nil {
		return r, err
	}
	if !o.exists() {
		if flags&ZAddXX != 0 || n == 0 {
			return r, nil
		}
		maxLen := 0
		for i := 0; i < n; i++ {
			_, m := pair(i)
			maxLen = max(maxLen, len(m))
		}
		z = db.newZSet(n, maxLen)
		o = db.newObj(key, TypeZSet, z.enc, z.x)
	}
	for i := 0; i < n; i++ {
		score, m := pair(i)
		cur, x, exists := z.find(m)
		if exists {
			if flags&ZAddNX != 0 {
				continue
			}
			if flags&ZAddIncr != 0 {
				score += cur
				if math.IsNaN(score) {
					db.commitZSet(key, &z, &o)
					return r, ErrScoreNaN
				}
			}
			if flags&ZAddLT != 0 && score >= cur || flags&ZAddGT != 0 && score <= cur {
				continue
			}
			r.Score, r.Done = score, true
			if score != cur {
				z.setScore(m, x, score)
				r.Updated++
			}
			continue
		}
		if flags&ZAddXX != 0 {
			continue
		}
		z.insert(score, m)
		r.Added++
		r.Score, r.Done = score, true
	}
	db.commitZSet(key, &z, &o)
	db.changed(key, uint64(r.Added+r.Updated))
	return r, nil
}

// ZRem removes members; it returns how many were there.
func (db *DB) ZRem(key []byte, members [][]byte, now int64) (int, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	n := 0
	for _, m := range members {
		if z.remove(m) {
			n++
		}
	}
	db.commitZSet(key, &z, &o)
	db.changed(key, uint64(n))
	return n, nil
}

// ZCard returns the number of elements (0 when absent).
func (db *DB) ZCard(key []byte, now int64) (int, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	return z.card(), nil
}

// ZScore returns member's score.
func (db *DB) ZScore(key, member []byte, now int64) (float64, bool, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, false, err
	}
	s, ok := z.score(member)
	return s, ok, nil
}

// ZMScore calls fn with each member's score (ok false: absent).
func (db *DB) ZMScore(key []byte, members [][]byte, now int64, fn func(score float64, ok bool)) error {
	z, o, err := db.openZSet(key, now)
	if err != nil {
		return err
	}
	for _, m := range members {
		if !o.exists() {
			fn(0, false)
			continue
		}
		fn(z.score(m))
	}
	return nil
}

// ZRank returns member's rank (descending when rev) and its score.
func (db *DB) ZRank(key, member []byte, rev bool, now int64) (int, float64, bool, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, 0, false, err
	}
	r, s, ok := z.rank(member)
	if ok && rev {
		r = z.card() - 1 - r
	}
	return r, s, ok, nil
}

// ZRangeKind says what a ZRangeSpec's bounds are.
type ZRangeKind uint8

// Range kinds.
const (
	ZByRank ZRangeKind = iota
	ZByScore
	ZByLex
)

// LexBound is one end of a lex range: Inf -1 is "-", +1 is "+", 0 a
// member (Ex: exclusive, "(").
type LexBound struct {
	Inf int8
	Ex  bool
	Val []byte
}

// ZRangeSpec describes a range of a sorted set, as ZRANGE's arguments do.
// For ZByRank, Start and Stop are indexes (negative from the end) into the
// order the command reads in (descending when Rev). For ZByScore and
// ZByLex, Min/Max (or LexMin/LexMax) bound the values whatever Rev says,
// and Offset/Count (Count < 0: no limit) apply in the reading order.
type ZRangeSpec struct {
	Kind         ZRangeKind
	Rev          bool
	Start, Stop  int
	Min, Max     float64
	MinEx, MaxEx bool
	LexMin       LexBound
	LexMax       LexBound
	Offset       int
	Count        int
}

// lexBefore reports whether m is before the range's lower bound b.
func lexBeforeMin(m []byte, b *LexBound) bool {
	switch b.Inf {
	case -1:
		return false
	case 1:
		return true
	}
	c := bytes.Compare(m, b.Val)
	return c < 0 || b.Ex && c == 0
}

// lexUpToMax reports whether m is not after the upper bound b.
func lexUpToMax(m []byte, b *LexBound) bool {
	switch b.Inf {
	case -1:
		return false
	case 1:
		return true
	}
	c := bytes.Compare(m, b.Val)
	return c < 0 || !b.Ex && c == 0
}

// bounds returns the ascending ranks [lo, hi) a score or lex spec covers
// (before LIMIT).
func (z *zset) bounds(sp *ZRangeSpec) (int, int) {
	var lo, hi int
	if sp.Kind == ZByScore {
		lo = z.countBefore(func(s float64, _ []byte) bool { return s < sp.Min || sp.MinEx && s == sp.Min })
		hi = z.countBefore(func(s float64, _ []byte) bool { return s < sp.Max || !sp.MaxEx && s == sp.Max })
	} else {
		lo = z.countBefore(func(_ float64, m []byte) bool { return lexBeforeMin(m, &sp.LexMin) })
		hi = z.countBefore(func(_ float64, m []byte) bool { return lexUpToMax(m, &sp.LexMax) })
	}
	return lo, max(hi, lo)
}

// span resolves a spec to the first rank read, the direction and the
// number of elements.
func (z *zset) span(sp *ZRangeSpec) (first, n int) {
	card := z.card()
	if sp.Kind == ZByRank {
		start, stop := sp.Start, sp.Stop
		f, n := listRange(start, stop, card)
		if n == 0 {
			return 0, 0
		}
		if sp.Rev {
			return card - 1 - f, n
		}
		return f, n
	}
	lo, hi := z.bounds(sp)
	n = hi - lo
	off := sp.Offset
	if off < 0 {
		return 0, 0
	}
	if off >= n {
		return 0, 0
	}
	n -= off
	if sp.Count >= 0 && sp.Count < n {
		n = sp.Count
	}
	if sp.Rev {
		return hi - 1 - off, n
	}
	return lo + off, n
}

// ZRange calls fn for the elements sp selects, in the reading order, with
// their number and the position; it returns that number.
func (db *DB) ZRange(key []byte, sp *ZRangeSpec, now int64, fn func(total, i int, member []byte, score float64)) (int, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	first, n := z.span(sp)
	if n == 0 {
		return 0, nil
	}
	i := 0
	z.walk(first, sp.Rev, func(m []byte, s float64) bool {
		fn(n, i, m, s)
		i++
		return i < n
	})
	return n, nil
}

// ZWalkScores calls fn for the elements whose score is at least lo and
// below hi, in ascending order, until fn returns false: one search for
// the first, then a walk, where ZRange counts the range first (two ranked
// searches more). GEOSEARCH reads its boxes so.
func (db *DB) ZWalkScores(key []byte, lo, hi float64, now int64, fn func(member []byte, score float64) bool) error {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return err
	}
	if z.enc == encListpack {
		e := packEntries(z.db.packBytes(z.x))
		for off := 0; off < len(e); {
			m, next := readStr(e, off)
			sc := packScore(e, next)
			off = next + 8
			if sc < lo {
				continue
			}
			if sc >= hi || !fn(m, sc) {
				return nil
			}
		}
		return nil
	}
	zl := z.db.openZsl(z.x)
	for x := zl.firstFrom(lo); x != slab.Nil; {
		xn := zl.node(x)
		sc := xn.score()
		if sc >= hi || !fn(xn.member(), sc) {
			return nil
		}
		x = xn.fwd(0)
	}
	return nil
}

// ZCount returns how many elements a score or lex spec covers (ZCOUNT,
// ZLEXCOUNT; no LIMIT).
func (db *DB) ZCount(key []byte, sp *ZRangeSpec, now int64) (int, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	lo, hi := z.bounds(sp)
	return hi - lo, nil
}

// ZRemRange removes the elements sp selects (ZREMRANGEBYRANK/SCORE/LEX;
// Rev and LIMIT are not used) and returns how many.
func (db *DB) ZRemRange(key []byte, sp *ZRangeSpec, now int64) (int, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	var lo, hi int
	if sp.Kind == ZByRank {
		f, n := listRange(sp.Start, sp.Stop, z.card())
		lo, hi = f, f+n
	} else {
		lo, hi = z.bounds(sp)
	}
	z.deleteRange(lo, hi)
	db.commitZSet(key, &z, &o)
	db.changed(key, uint64(hi-lo))
	return hi - lo, nil
}

// ZPop removes up to count elements with the lowest scores (the highest
// when max), calling fn for each in that order with their number and the
// position; it returns that number.
func (db *DB) ZPop(key []byte, max bool, count int, now int64, fn func(total, i int, member []byte, score float64)) (int, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	card := z.card()
	n := min(count, card)
	if n <= 0 {
		return 0, nil
	}
	i := 0
	first := 0
	if max {
		first = card - 1
	}
	z.walk(first, max, func(m []byte, s float64) bool {
		fn(n, i, m, s)
		i++
		return i < n
	})
	if max {
		z.deleteRange(card-n, card)
	} else {
		z.deleteRange(0, n)
	}
	db.commitZSet(key, &z, &o)
	db.changed(key, uint64(n))
	return n, nil
}

// ZEach calls fn for every element in ascending order (found false when
// the key is absent).
func (db *DB) ZEach(key []byte, now int64, fn func(member []byte, score float64) bool) (bool, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return false, err
	}
	z.walk(0, false, fn)
	return true, nil
}

// ZRandom calls fn for a uniformly random element, times times (with
// repetition). Nothing happens when the key is absent.
func (db *DB) ZRandom(key []byte, times int, now int64, fn func(member []byte, score float64)) error {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return err
	}
	card := z.card()
	for k := 0; k < times; k++ {
		r := int(db.s.random() % uint64(card))
		z.walk(r, false, func(m []byte, s float64) bool { fn(m, s); return false })
	}
	return nil
}

// ZRandomDistinct calls fn for count distinct random elements (count <
// the set's size), each once, in ascending order; it uses Floyd's
// sampling of ranks.
func (db *DB) ZRandomDistinct(key []byte, count int, now int64, fn func(member []byte, score float64)) error {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return err
	}
	card := z.card()
	picked := make(map[int]struct{}, count)
	for j := card - count; j < card; j++ {
		t := int(db.s.random() % uint64(j+1))
		if _, dup := picked[t]; dup {
			t = j
		}
		picked[t] = struct{}{}
	}
	for r := range picked {
		z.walk(r, false, func(m []byte, s float64) bool { fn(m, s); return false })
	}
	return nil
}

// ZScan visits elements as ZSCAN: a listpack set whole in one call (next
// cursor 0), a skiplist through its member table like SSCAN/HSCAN.
func (db *DB) ZScan(key []byte, cursor uint64, count int, now int64, fn func(member []byte, score float64)) (uint64, error) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() {
		return 0, err
	}
	if z.enc == encListpack {
		z.walk(0, false, func(m []byte, s float64) bool { fn(m, s); return true })
		return 0, nil
	}
	zl := db.openZsl(z.x)
	return db.tabScan(zl.tab, cursor, count, func(e slab.Handle) {
		n := zl.node(e)
		fn(n.member(), n.score())
	}), nil
}

// ZStore replaces dst with the n elements pair gives (members must be
// distinct), in the encoding their number and sizes call for; n == 0
// deletes dst. It returns n.
func (db *DB) ZStore(dst []byte, n int, pair func(i int) (float64, []byte), now int64) int {
	db.s.seen(now)
	if n == 0 {
		if db.deleteKey(dst) {
			db.changed(dst, 1)
		}
		return 0
	}
	maxLen := 0
	for i := 0; i < n; i++ {
		_, m := pair(i)
		maxLen = max(maxLen, len(m))
	}
	z := db.newZSet(n, maxLen)
	for i := 0; i < n; i++ {
		s, m := pair(i)
		z.insert(s, m)
	}
	db.storeObj(dst, TypeZSet, z.enc, z.x)
	db.changed(dst, 1)
	return n
}

// ZSetSkiplist turns key's sorted set into the skiplist encoding when it
// is a listpack, as Redis's SORT does to the sorted set it sorts. The
// members and scores stay, so Dirty does not count it.
func (db *DB) ZSetSkiplist(key []byte, now int64) {
	z, o, err := db.openZSet(key, now)
	if err != nil || !o.exists() || z.enc != encListpack {
		return
	}
	z.convert()
	db.setObj(&o, z.enc, z.x)
}

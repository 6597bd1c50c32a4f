package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
)

// The large zset encoding: Redis's skiplist with spans (O(log n) rank,
// range and insert), plus the slab hash table of object.go mapping each
// member to its node for O(1) ZSCORE. A node is an entry block of that
// table, so the member is stored once.
//
// Header block (zslHdrSize bytes), the object's root:
//
//	0      0
//	1      level (1..zslMaxLevel)
//	4..8   header node (a node of zslMaxLevel levels and no member)
//	8..12  tail node (Nil when empty)
//	12..16 member table (object.go's slab hash table)
//	16..24 length
//
// Node block: what a traversal reads first, at fixed offsets; the member
// (read on equal scores and for replies) last.
//
//	0      0
//	1..9   score float64 bits
//	9..13  backward node
//	13     level (1..zslMaxLevel)
//	14..   level × (forward node 4, span 4, forward node's score 8)
//	then   member as a serialized string (uvarint length, bytes)
//
// A level keeps its successor's score, so a walk decides to stop at a
// level without reading the successor: it reads only the nodes it moves
// to (and a successor of equal score, to compare members).
// The member table (a tabZsl table) finds a node's member through this
// layout.
const (
	zslHdrSize  = 24
	zslMaxLevel = 32
)

type zsl struct {
	db     *DB
	h      slab.Handle
	level  int
	header slab.Handle
	tail   slab.Handle
	tab    slab.Handle
	length int
}

func (db *DB) openZsl(h slab.Handle) zsl {
	b := db.s.slab.Bytes(h)
	return zsl{db: db, h: h, level: int(b[1]),
		header: slab.Handle(le32(b, 4)), tail: slab.Handle(le32(b, 8)),
		tab: slab.Handle(le32(b, 12)), length: int(binary.LittleEndian.Uint64(b[16:]))}
}

func (z *zsl) save() {
	b := z.db.s.slab.Bytes(z.h)
	b[1] = byte(z.level)
	put32(b, 4, uint32(z.header))
	put32(b, 8, uint32(z.tail))
	put32(b, 12, uint32(z.tab))
	binary.LittleEndian.PutUint64(b[16:], uint64(z.length))
}

func (db *DB) newZsl(n int) zsl {
	h := db.s.alloc(zslHdrSize)
	b := db.s.slab.Bytes(h)
	clear(b[:zslHdrSize])
	z := zsl{db: db, h: h, level: 1, tab: db.newTable(n)}
	setTabKind(z.db.s.slab.Bytes(z.tab), tabZsl)
	z.header = z.newNode(zslMaxLevel, 0, nil)
	z.save()
	return z
}

// free frees every node, the table and the header.
func (z *zsl) free() {
	s := z.db.s
	for x := z.header; x != slab.Nil; {
		next := z.fwd(x, 0)
		s.slab.Free(x)
		x = next
	}
	s.slab.Free(z.tab)
	s.slab.Free(z.h)
}

// zn is a node's address: the fixed offsets above are read through it
// without bounds checks (a traversal is all such reads).
type zn struct{ p unsafe.Pointer }

func (z *zsl) node(x slab.Handle) zn { return zn{z.db.s.slab.Pointer(x)} }

// zslMember returns the member of the node at p.
func zslMember(p unsafe.Pointer) []byte {
	o := 14 + 16*uintptr(*(*uint8)(unsafe.Add(p, 13)))
	if c := *(*uint8)(unsafe.Add(p, o)); c < 0x80 {
		return unsafe.Slice((*byte)(unsafe.Add(p, o+1)), c)
	}
	n, w := binary.Uvarint(unsafe.Slice((*byte)(unsafe.Add(p, o)), binary.MaxVarintLen64))
	return unsafe.Slice((*byte)(unsafe.Add(p, o+uintptr(w))), n)
}

func (n zn) member() []byte { return zslMember(n.p) }

func (n zn) u32(o uintptr) *uint32 { return (*uint32)(unsafe.Add(n.p, o)) }
func (n zn) score() float64 {
	return math.Float64frombits(*(*uint64)(unsafe.Add(n.p, 1)))
}
func (n zn) setScore(f float64)    { *(*uint64)(unsafe.Add(n.p, 1)) = math.Float64bits(f) }
func (n zn) back() slab.Handle     { return slab.Handle(*n.u32(9)) }
func (n zn) setBack(x slab.Handle) { *n.u32(9) = uint32(x) }
func (n zn) levels() int           { return int(*(*uint8)(unsafe.Add(n.p, 13))) }
func (n zn) fwd(i int) slab.Handle { return slab.Handle(*n.u32(14 + 16*uintptr(i))) }
func (n zn) span(i int) int        { return int(*n.u32(18 + 16*uintptr(i))) }
func (n zn) setSpan(i, s int)      { *n.u32(18 + 16*uintptr(i)) = uint32(s) }
func (n zn) fscore(i int) float64 {
	return math.Float64frombits(*(*uint64)(unsafe.Add(n.p, 22+16*uintptr(i))))
}

// setFwd links level i to x, whose score is xs.
func (n zn) setFwd(i int, x slab.Handle, xs float64) {
	*n.u32(14 + 16*uintptr(i)) = uint32(x)
	*(*uint64)(unsafe.Add(n.p, 22+16*uintptr(i))) = math.Float64bits(xs)
}

func (z *zsl) fwd(x slab.Handle, i int) slab.Handle { return z.node(x).fwd(i) }

func (z *zsl) newNode(level int, score float64, member []byte) slab.Handle {
	mo := 14 + 16*level
	x := z.db.s.alloc(mo + strSize(len(member)))
	b := z.db.s.slab.Bytes(x)
	b[0] = 0
	binary.LittleEndian.PutUint64(b[1:], math.Float64bits(score))
	put32(b, 9, 0)
	b[13] = byte(level)
	clear(b[14:mo])
	o := mo + binary.PutUvarint(b[mo:], uint64(len(member)))
	copy(b[o:], member)
	return x
}

func (z *zsl) randomLevel() int {
	l := 1
	for l < zslMaxLevel && z.db.s.random()&0xFFFF < 0xFFFF/4 {
		l++
	}
	return l
}

// zless reports whether (s1, m1) sorts before (s2, m2).
func zless(s1 float64, m1 []byte, s2 float64, m2 []byte) bool {
	return s1 < s2 || s1 == s2 && bytes.Compare(m1, m2) < 0
}

// insert adds a member that must be absent; it returns its node.
func (z *zsl) insert(score float64, member []byte) slab.Handle {
	x := z.newNode(z.randomLevel(), score, member)
	z.link(x, score, member)
	z.tab = z.db.tabAdd(z.tab, x)
	return x
}

// search fills update with the last node before (score, member) at every
// level, and rank with those nodes' ranks; a walk also stops before node
// stop (the node being unlinked).
func (z *zsl) search(score float64, member []byte, stop slab.Handle, update *[zslMaxLevel]slab.Handle, rank *[zslMaxLevel]int) {
	y := z.header
	yn := z.node(y)
	for i := z.level - 1; i >= 0; i-- {
		if i < z.level-1 {
			rank[i] = rank[i+1]
		}
		for {
			f := yn.fwd(i)
			if f == slab.Nil || f == stop {
				break
			}
			fs := yn.fscore(i)
			if fs > score {
				break
			}
			fn := z.node(f)
			if fs == score && bytes.Compare(fn.member(), member) >= 0 {
				break
			}
			rank[i] += yn.span(i)
			y, yn = f, fn
		}
		update[i] = y
	}
}

// link inserts the unlinked node x, of the given score and member, at its
// place in the order.
func (z *zsl) link(x slab.Handle, score float64, member []byte) {
	var update [zslMaxLevel]slab.Handle
	var rank [zslMaxLevel]int
	z.search(score, member, slab.Nil, &update, &rank)
	xn := z.node(x)
	lvl := xn.levels()
	if lvl > z.level {
		hn := z.node(z.header)
		for i := z.level; i < lvl; i++ {
			rank[i] = 0
			update[i] = z.header
			hn.setSpan(i, z.length)
		}
		z.level = lvl
	}
	for i := 0; i < lvl; i++ {
		un := z.node(update[i])
		xn.setFwd(i, un.fwd(i), un.fscore(i))
		un.setFwd(i, x, score)
		xn.setSpan(i, un.span(i)-(rank[0]-rank[i]))
		un.setSpan(i, rank[0]-rank[i]+1)
	}
	for i := lvl; i < z.level; i++ {
		un := z.node(update[i])
		un.setSpan(i, un.span(i)+1)
	}
	if update[0] != z.header {
		xn.setBack(update[0])
	} else {
		xn.setBack(slab.Nil)
	}
	if f := xn.fwd(0); f != slab.Nil {
		z.node(f).setBack(x)
	} else {
		z.tail = x
	}
	z.length++
}

// deleteNode unlinks x given the update vector (it does not free it or
// touch the table).
func (z *zsl) deleteNode(x slab.Handle, update *[zslMaxLevel]slab.Handle) {
	xn := z.node(x)
	for i := 0; i < z.level; i++ {
		un := z.node(update[i])
		if un.fwd(i) == x {
			un.setSpan(i, un.span(i)+xn.span(i)-1)
			un.setFwd(i, xn.fwd(i), xn.fscore(i))
		} else {
			un.setSpan(i, un.span(i)-1)
		}
	}
	if f := xn.fwd(0); f != slab.Nil {
		z.node(f).setBack(xn.back())
	} else {
		z.tail = xn.back()
	}
	hn := z.node(z.header)
	for z.level > 1 && hn.fwd(z.level-1) == slab.Nil {
		z.level--
	}
	z.length--
}

// unindex removes x's member from the table and frees x.
func (z *zsl) unindex(x slab.Handle) {
	slot, _ := z.db.tabFind(z.tab, z.node(x).member())
	z.tab = z.db.tabDel(z.tab, slot)
	z.db.s.slab.Free(x)
}

// lookup returns member's node (Nil when absent).
func (z *zsl) lookup(member []byte) slab.Handle { return z.db.tabGet(z.tab, member) }

// remove deletes the node x (found by lookup).
func (z *zsl) remove(x slab.Handle) {
	z.unlink(x)
	z.unindex(x)
}

// unlink takes node x out of the order, leaving it and the table as they
// are.
func (z *zsl) unlink(x slab.Handle) {
	var update [zslMaxLevel]slab.Handle
	var rank [zslMaxLevel]int
	xn := z.node(x)
	z.search(xn.score(), xn.member(), x, &update, &rank)
	z.deleteNode(x, &update)
}

// updateScore gives node x a new score, in place when its position does
// not change (its predecessors' copies of its score are updated), else by
// moving the same node (its level, block and table entry stay), as Redis's
// zslUpdateScore.
func (z *zsl) updateScore(x slab.Handle, score float64) {
	xn := z.node(x)
	var update [zslMaxLevel]slab.Handle
	var rank [zslMaxLevel]int
	z.search(xn.score(), xn.member(), x, &update, &rank)
	b, f := xn.back(), xn.fwd(0)
	if (b == slab.Nil || z.node(b).score() < score) && (f == slab.Nil || xn.fscore(0) > score) {
		xn.setScore(score)
		for i := range xn.levels() {
			z.node(update[i]).setFwd(i, x, score)
		}
		return
	}
	z.deleteNode(x, &update)
	xn.setScore(score)
	z.link(x, score, xn.member())
}

// countBefore returns how many elements satisfy before, which must hold
// for a prefix of the order (true, ..., true, false, ...).
func (z *zsl) countBefore(before func(score float64, member []byte) bool) int {
	rank := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		xn := z.node(x)
		for {
			f := xn.fwd(i)
			if f == slab.Nil {
				break
			}
			fn := z.node(f)
			if !before(fn.score(), fn.member()) {
				break
			}
			rank += xn.span(i)
			x, xn = f, fn
		}
	}
	return rank
}

// firstFrom returns the first node whose score is at least lo (slab.Nil
// when none is).
func (z *zsl) firstFrom(lo float64) slab.Handle {
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		xn := z.node(x)
		for {
			f := xn.fwd(i)
			if f == slab.Nil || z.node(f).score() >= lo {
				break
			}
			x, xn = f, z.node(f)
		}
	}
	return z.node(x).fwd(0)
}

// byRank returns the node at 0-based rank r (0 <= r < length).
func (z *zsl) byRank(r int) slab.Handle {
	r++
	traversed := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		xn := z.node(x)
		for {
			f := xn.fwd(i)
			if f == slab.Nil || traversed+xn.span(i) > r {
				break
			}
			traversed += xn.span(i)
			x = f
			xn = z.node(x)
		}
		if traversed == r {
			return x
		}
	}
	return slab.Nil
}

// rankOf returns the 0-based rank of node x.
func (z *zsl) rankOf(x slab.Handle) int {
	xn := z.node(x)
	score, member := xn.score(), xn.member()
	return z.countBefore(func(s float64, m []byte) bool { return zless(s, m, score, member) })
}

// deleteRange deletes the elements of 0-based ranks [start, end).
func (z *zsl) deleteRange(start, end int) {
	var update [zslMaxLevel]slab.Handle
	traversed := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		xn := z.node(x)
		for {
			f := xn.fwd(i)
			if f == slab.Nil || traversed+xn.span(i) > start {
				break
			}
			traversed += xn.span(i)
			x = f
			xn = z.node(x)
		}
		update[i] = x
	}
	x = z.fwd(x, 0)
	for k := start; k < end && x != slab.Nil; k++ {
		next := z.fwd(x, 0)
		z.deleteNode(x, &update)
		z.unindex(x)
		x = next
	}
}

// PrefetchZSet warms the CPU cache for adding the given (score, member)
// pairs (at most PrefetchMax) to the sorted set at key: it looks the
// members up in the member table, and walks the skiplist toward every new
// score and every old score found (the walk that unlinks a member), all at
// once, a step of every walk per round, prefetching what each step moves
// to, as Prefetch does for the tree. It changes nothing (an expired key is
// left for the command to find); it returns the nodes its walks prefetched
// (for tests).
func (db *DB) PrefetchZSet(key []byte, scores []float64, members [][]byte) int {
	_, h := db.lookup(key)
	if h == slab.Nil {
		return 0
	}
	l := db.readLeaf(h)
	if leafTyp(l.flags) != TypeZSet || l.enc() != encSkiplist {
		return 0
	}
	x, _ := l.extRef()
	z := db.openZsl(x)
	n := min(len(scores), len(members), PrefetchMax)
	// The members' table slots, then the nodes they name.
	tb := db.s.slab.Bytes(z.tab)
	mask := tabMask(tb)
	var hv [PrefetchMax]uint32
	for i := range n {
		hv[i] = strHash(members[i])
		prefetch(unsafe.Pointer(&tb[tabHdr+8*(hv[i]&mask)]))
	}
	var old [PrefetchMax]zn
	for i := range n {
		for j, k := hv[i]&mask, 0; k < 4; j, k = (j+1)&mask, k+1 {
			e := tabSlot(tb, j)
			if e == slab.Nil {
				break
			}
			if tabHash(tb, j) == hv[i] {
				old[i] = z.node(e)
				prefetch(old[i].p)
				break
			}
		}
	}
	var target [2 * PrefetchMax]float64
	w := 0
	for i := range n {
		target[w] = scores[i]
		w++
		if old[i].p != nil {
			target[w] = old[i].score()
			w++
		}
	}
	var cur [2 * PrefetchMax]zn
	var lvl [2 * PrefetchMax]int
	hn := z.node(z.header)
	for i := range w {
		cur[i], lvl[i] = hn, z.level-1
	}
	fetched := 0
	for active := w; active > 0; {
		active = 0
		for i := range w {
			if lvl[i] < 0 {
				continue
			}
			yn := cur[i]
			for lvl[i] >= 0 {
				f := yn.fwd(lvl[i])
				if f != slab.Nil && yn.fscore(lvl[i]) < target[i] {
					cur[i] = z.node(f)
					prefetch(cur[i].p)
					fetched++
					active++
					break
				}
				lvl[i]--
			}
		}
	}
	return fetched
}

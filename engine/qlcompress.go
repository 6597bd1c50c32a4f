package engine

import (
	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/lzf"
)

// list-compress-depth, as Redis's quicklist: the depth nodes at each end
// of a list stay plain, and the nodes between them are kept LZF-compressed
// when that saves at least minCompressImprove bytes of a node of at least
// minCompressBytes. A compressed node is a block of its own:
//
//	0..20  the node header (kind, gap, prev, next, count, used: the bytes
//	       of its entries uncompressed), gap = gapCompressed
//	20..24 compressed length
//	24..   the LZF data
//
// Every code path that reads or changes a node's entries first makes it
// plain (qlist.plain: decompressed into a new block, which takes the old
// one's place in the chain), so the rest of the quicklist never sees a
// compressed node but through the header fields, which both kinds share;
// save, which every operation ends with, then settles the list
// (qlist.settle): the nodes the operation made plain or created, and the
// ones it pushed past the ends' depth, are compressed again if they lie
// inside, and the ends' nodes are made plain. So an operation at an end
// touches only the nodes there, as in Redis, and a read in the middle
// (LINDEX, LRANGE) decompresses what it reads and compresses it back.

const (
	gapCompressed      = 1<<24 - 1 // the gap field of a compressed node
	lnzHdr             = 24
	minCompressBytes   = 48 // Redis's MIN_COMPRESS_BYTES
	minCompressImprove = 8  // Redis's MIN_COMPRESS_IMPROVE
)

func nCompressed(b []byte) bool { return nGap(b) == gapCompressed }

// replaceNode puts node block nn in old's place in the chain and frees old.
func (q *qlist) replaceNode(old, nn slab.Handle) {
	b := q.nb(nn)
	if p := nPrev(b); p == slab.Nil {
		q.head = nn
	} else {
		put32(q.nb(p), 8, uint32(nn))
	}
	if nx := nNext(b); nx == slab.Nil {
		q.tail = nn
	} else {
		put32(q.nb(nx), 4, uint32(nn))
	}
	q.s.slab.Free(old)
}

// plain returns node n uncompressed: n itself, or the plain block that
// replaced it.
func (q *qlist) plain(n slab.Handle) slab.Handle {
	b := q.nb(n)
	if !nCompressed(b) {
		return n
	}
	s := q.s
	used := nUsed(b)
	out, err := lzf.Decompress(s.zbuf[:0], b[lnzHdr:lnzHdr+int(le32(b, 20))], used)
	if err != nil {
		panic("engine: a compressed list node does not decompress: " + err.Error())
	}
	s.zbuf = out
	nn := s.alloc(lnHdr + max(used, 64))
	nb := q.nb(nn)
	copy(nb[:lnHdr], b[:lnHdr])
	setGap(nb, 0)
	copy(nb[lnHdr:], out)
	q.replaceNode(n, nn)
	s.qtouched = append(s.qtouched, nn)
	return nn
}

// compress replaces plain node n by its compressed form when that is
// worth it, as Redis's __quicklistCompressNode decides.
func (q *qlist) compress(n slab.Handle) {
	b := q.nb(n)
	used := nUsed(b)
	if nCompressed(b) || used < minCompressBytes {
		return
	}
	s := q.s
	if s.lzf == nil {
		s.lzf = new(lzf.Table)
	}
	start := nStart(b)
	c, ok := s.lzf.Compress(s.zbuf[:0], b[start:start+used], used-minCompressImprove-1)
	if !ok {
		return
	}
	s.zbuf = c
	nn := s.alloc(lnzHdr + len(c))
	nb := q.nb(nn)
	copy(nb[:lnHdr], b[:lnHdr])
	setGap(nb, gapCompressed)
	put32(nb, 20, uint32(len(c)))
	copy(nb[lnzHdr:], c)
	q.replaceNode(n, nn)
}

// settle compresses the inner nodes the operation made plain, created or
// pushed inwards, and makes the depth nodes at each end plain; with depth
// 0 it leaves everything plain (nodes compressed before list-compress-depth
// was set to 0 become plain as they are used).
func (q *qlist) settle() {
	s := q.s
	created := s.qcreated
	s.qcreated = 0
	if q.depth == 0 || q.nodes <= 2*q.depth {
		s.qtouched = s.qtouched[:0]
		return
	}
	// The ends: depth plain nodes each, then the nodes an operation may
	// have pushed inwards (one per node it created, and one more).
	zone := &s.qzone
	zone[0], zone[1] = zone[0][:0], zone[1][:0]
	for side := range 2 {
		n := q.head
		if side == 1 {
			n = q.tail
		}
		for i := 0; n != slab.Nil && i < q.depth+created+1; i++ {
			if i < q.depth {
				n = q.plain(n)
				zone[side] = append(zone[side], n)
			} else if !isZone(zone, n) {
				next := q.step(n, side)
				q.compress(n)
				n = next
				continue
			}
			n = q.step(n, side)
		}
	}
	for _, n := range s.qtouched {
		if s.slab.Valid(n) && q.linked(n) && !isZone(zone, n) {
			q.compress(n)
		}
	}
	s.qtouched = s.qtouched[:0]
}

// step is the node after n going inwards from the head (side 0) or the
// tail (side 1).
func (q *qlist) step(n slab.Handle, side int) slab.Handle {
	if side == 0 {
		return nNext(q.nb(n))
	}
	return nPrev(q.nb(n))
}

func isZone(zone *[2][]slab.Handle, n slab.Handle) bool {
	for _, z := range zone {
		for _, h := range z {
			if h == n {
				return true
			}
		}
	}
	return false
}

// linked reports whether block n is a node of this list's chain (a
// handle the operation made plain may have been freed since, and its
// slot reused).
func (q *qlist) linked(n slab.Handle) bool {
	b := q.nb(n)
	if b[0] != 0 || len(b) < lnHdr {
		return false
	}
	p := nPrev(b)
	if p == slab.Nil {
		return q.head == n
	}
	return q.s.slab.Valid(p) && nNext(q.nb(p)) == n
}

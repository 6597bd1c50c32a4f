package engine

import (
	"bytes"
	"encoding/binary"

	"github.com/radish-kv/radish/engine/slab"
)

// A list is a quicklist: a header block and a doubly linked chain of node
// blocks, each a packed run of entries (a listpack in spirit) of at most
// listNodeMax bytes (list-max-listpack-size -2), except that a node always
// takes at least one entry however long. All blocks are slab blocks; links
// are handles. Every block starts with a 0 byte (not a leaf).
//
// Header block (listHdrSize bytes):
//
//	0      0 (kind)
//	4..8   head node
//	8..12  tail node
//	12..16 number of nodes
//	16..24 number of entries
//
// Node block:
//
//	0      0 (kind)
//	1..4   gap: free bytes before the first entry (uint24), so that a push
//	       or pop at the head moves no other entry
//	4..8   previous node (Nil for the head)
//	8..12  next node (Nil for the tail)
//	12..16 entries in this node (>= 1)
//	16..20 bytes of entries (used)
//	20..   gap, entries, free bytes; the block's size is the capacity
//
// Entry: uvarint(len) | bytes | backlen, where backlen holds t = the size
// of the first two parts, 7 bits per byte, written so that it reads from
// its last byte backwards (the last byte holds the low bits; a set high
// bit means another byte precedes), which lets RPOP and negative indexes
// walk a node from its end.
const (
	listHdrSize = 24
	lnHdr       = 20
	// listNodeMax is the entry bytes a node may hold before a new node is
	// started: Redis's list-max-listpack-size -2 (8 KB).
	listNodeMax = 8192
)

func le32(b []byte, o int) uint32     { return binary.LittleEndian.Uint32(b[o:]) }
func put32(b []byte, o int, v uint32) { binary.LittleEndian.PutUint32(b[o:], v) }

func entrySize(n int) int {
	t := uvarintLen(uint64(n)) + n
	return t + uvarintLen(uint64(t))
}

// putEntry writes v as an entry at the start of b and returns its size.
func putEntry(b []byte, v []byte) int {
	o := binary.PutUvarint(b, uint64(len(v)))
	o += copy(b[o:], v)
	t := o
	k := uvarintLen(uint64(t))
	for i := 0; i < k; i++ {
		c := byte(t>>(7*i)) & 0x7f
		if i < k-1 {
			c |= 0x80
		}
		b[o+k-1-i] = c
	}
	return o + k
}

// getEntry returns the value of the entry at offset o of b and the offset
// just past it. v aliases b.
func getEntry(b []byte, o int) (v []byte, next int) {
	n, w := binary.Uvarint(b[o:])
	s := o + w
	e := s + int(n)
	return b[s:e:e], e + uvarintLen(uint64(w)+n)
}

// prevEntry returns the offset of the entry ending at offset e of b.
func prevEntry(b []byte, e int) int {
	t, shift := 0, 0
	p := e - 1
	for {
		c := b[p]
		t |= int(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
		shift += 7
		p--
	}
	return p - t
}

// qlist is a list opened for one operation: the header fields are cached
// and written back by save.
type qlist struct {
	s          *Store
	h          slab.Handle
	head, tail slab.Handle
	nodes      int
	count      int
	maxBytes   int // entry bytes per node (list-max-listpack-size < 0)
	maxCount   int // entries per node (list-max-listpack-size > 0), else 0
	depth      int // list-compress-depth: nodes kept plain at each end (0: none compressed)
}

// setLimits reads list-max-listpack-size: -1..-5 are 4..64 KB per node,
// a positive n is n entries per node (with the 8 KB safety limit Redis
// applies too).
func (q *qlist) setLimits() {
	q.maxBytes, q.maxCount = listNodeMax, 0
	q.depth = max(q.s.Limits.ListCompressDepth, 0)
	switch n := q.s.Limits.ListMaxListpackSize; {
	case n > 0:
		q.maxCount = n
	case n < 0 && n >= -5:
		q.maxBytes = 4096 << (-n - 1)
	}
}

func (s *Store) newList() qlist {
	h := s.alloc(listHdrSize)
	b := s.slab.Bytes(h)
	clear(b[:listHdrSize])
	q := qlist{s: s, h: h}
	q.setLimits()
	return q
}

func (s *Store) openList(h slab.Handle) qlist {
	b := s.slab.Bytes(h)
	q := qlist{s: s, h: h,
		head: slab.Handle(le32(b, 4)), tail: slab.Handle(le32(b, 8)),
		nodes: int(le32(b, 12)), count: int(binary.LittleEndian.Uint64(b[16:]))}
	q.setLimits()
	return q
}

func (q *qlist) save() {
	q.settle()
	b := q.s.slab.Bytes(q.h)
	put32(b, 4, uint32(q.head))
	put32(b, 8, uint32(q.tail))
	put32(b, 12, uint32(q.nodes))
	binary.LittleEndian.PutUint64(b[16:], uint64(q.count))
}

// free releases every block of the list.
func (q *qlist) free() {
	for n := q.head; n != slab.Nil; {
		next := slab.Handle(le32(q.s.slab.Bytes(n), 8))
		q.s.slab.Free(n)
		n = next
	}
	q.s.slab.Free(q.h)
	q.head, q.tail, q.nodes, q.count = slab.Nil, slab.Nil, 0, 0
}

func (q *qlist) nb(n slab.Handle) []byte { return q.s.slab.Bytes(n) }

func nPrev(b []byte) slab.Handle { return slab.Handle(le32(b, 4)) }
func nNext(b []byte) slab.Handle { return slab.Handle(le32(b, 8)) }
func nCount(b []byte) int        { return int(le32(b, 12)) }
func nUsed(b []byte) int         { return int(le32(b, 16)) }
func nGap(b []byte) int          { return int(b[1]) | int(b[2])<<8 | int(b[3])<<16 }
func nStart(b []byte) int        { return lnHdr + nGap(b) }
func nEnd(b []byte) int          { return nStart(b) + nUsed(b) }

// maxGap bounds the gap to what its 3 bytes hold, less the one value
// that marks a compressed node (qlcompress.go).
const maxGap = gapCompressed - 1

func setGap(b []byte, g int) { b[1], b[2], b[3] = byte(g), byte(g>>8), byte(g>>16) }

// newNode allocates an empty node with room for at least need entry bytes.
func (q *qlist) newNode(need int) slab.Handle {
	c := need
	if c < 64 {
		c = 64
	}
	n := q.s.alloc(lnHdr + c)
	clear(q.nb(n)[:lnHdr])
	q.s.qcreated++
	return n
}

// linkAfter links the new node n after node at (Nil: at the head).
func (q *qlist) linkAfter(at, n slab.Handle) {
	b := q.nb(n)
	var next slab.Handle
	if at == slab.Nil {
		next = q.head
		q.head = n
	} else {
		ab := q.nb(at)
		next = nNext(ab)
		put32(ab, 8, uint32(n))
	}
	put32(b, 4, uint32(at))
	put32(b, 8, uint32(next))
	if next == slab.Nil {
		q.tail = n
	} else {
		put32(q.nb(next), 4, uint32(n))
	}
	q.nodes++
}

// unlink removes node n from the chain and frees it.
func (q *qlist) unlink(n slab.Handle) {
	b := q.nb(n)
	p, nx := nPrev(b), nNext(b)
	if p == slab.Nil {
		q.head = nx
	} else {
		put32(q.nb(p), 8, uint32(nx))
	}
	if nx == slab.Nil {
		q.tail = p
	} else {
		put32(q.nb(nx), 4, uint32(p))
	}
	q.nodes--
	q.s.slab.Free(n)
}

// relayout makes node n's block hold need entry bytes (growing it with
// slack, or shrinking one far too big) and moves its entries to the
// block's end when front (the free bytes become the gap), else to its
// start. It returns n's handle, which changes when the block does.
func (q *qlist) relayout(n slab.Handle, need int, front bool) slab.Handle {
	s := q.s
	b := s.slab.Bytes(n)
	used, start := nUsed(b), nStart(b)
	want := lnHdr + need
	nn, nb := n, b
	if want > len(b) {
		// Grow with slack, up to a full node, so that a run of pushes
		// does not move the node every time.
		want = max(want, lnHdr+min(2*need, q.maxBytes))
		nn = s.alloc(want)
	} else if len(b) > 128 && want*2 < len(b) {
		nn = s.alloc(want)
	}
	if nn != n {
		nb = s.slab.Bytes(nn)
		copy(nb[:lnHdr], b[:lnHdr])
	}
	dst := lnHdr
	if front && len(nb)-used-lnHdr <= maxGap {
		dst = len(nb) - used
	}
	copy(nb[dst:dst+used], b[start:start+used])
	setGap(nb, dst-lnHdr)
	if nn == n {
		return n
	}
	if p := nPrev(nb); p == slab.Nil {
		q.head = nn
	} else {
		put32(q.nb(p), 8, uint32(nn))
	}
	if nx := nNext(nb); nx == slab.Nil {
		q.tail = nn
	} else {
		put32(q.nb(nx), 4, uint32(nn))
	}
	s.slab.Free(n)
	return nn
}

// shrink moves node n to a smaller block when its block is far too big
// for its entries, and returns n's handle.
func (q *qlist) shrink(n slab.Handle) slab.Handle {
	b := q.nb(n)
	if used := nUsed(b); len(b) > 128 && (lnHdr+used)*2 < len(b) {
		return q.relayout(n, used, false)
	}
	return n
}

// insertBytes inserts v as an entry at offset off of node n (which has
// room in its limit or is empty) and returns n's handle (it may move). An
// entry put before the first one goes into the gap.
func (q *qlist) insertBytes(n slab.Handle, off int, v []byte) slab.Handle {
	es := entrySize(len(v))
	b := q.nb(n)
	used, start := nUsed(b), nStart(b)
	front := off == start
	if front && start-lnHdr < es || !front && start+used+es > len(b) {
		rel := off - start
		n = q.relayout(n, used+es, front)
		b = q.nb(n)
		start = nStart(b)
		off = start + rel
	}
	if front && start-lnHdr >= es {
		start -= es
		putEntry(b[start:], v)
		setGap(b, start-lnHdr)
	} else {
		// relayout left room after the entries.
		copy(b[off+es:start+used+es], b[off:start+used])
		putEntry(b[off:], v)
	}
	put32(b, 16, uint32(used+es))
	put32(b, 12, uint32(nCount(b)+1))
	q.count++
	return n
}

// deleteBytes removes cnt entries occupying [off, end) of node n, freeing
// the node when it empties. It returns the node's handle (Nil if freed).
// Entries taken from the head widen the gap.
func (q *qlist) deleteBytes(n slab.Handle, off, end, cnt int) slab.Handle {
	b := q.nb(n)
	q.count -= cnt
	c := nCount(b) - cnt
	if c == 0 {
		q.unlink(n)
		return slab.Nil
	}
	used, start := nUsed(b), nStart(b)
	if off == start && end-lnHdr <= maxGap {
		setGap(b, end-lnHdr)
	} else {
		copy(b[off:], b[end:start+used])
	}
	used -= end - off
	put32(b, 16, uint32(used))
	put32(b, 12, uint32(c))
	return q.shrink(n)
}

func (q *qlist) fits(b []byte, es int) bool {
	c := nCount(b)
	return c == 0 || nUsed(b)+es <= q.maxBytes && (q.maxCount == 0 || c < q.maxCount)
}

// push adds v at the head (left) or the tail.
func (q *qlist) push(v []byte, left bool) {
	es := entrySize(len(v))
	if left {
		if q.head == slab.Nil || !q.fits(q.nb(q.head), es) {
			q.linkAfter(slab.Nil, q.newNode(es))
		}
		h := q.plain(q.head)
		q.insertBytes(h, nStart(q.nb(h)), v)
		return
	}
	if q.tail == slab.Nil || !q.fits(q.nb(q.tail), es) {
		q.linkAfter(q.tail, q.newNode(es))
	}
	t := q.plain(q.tail)
	q.insertBytes(t, nEnd(q.nb(t)), v)
}

// pop removes the head (left) or tail entry, first handing its value to
// fn (the slice is valid during fn only). The list must not be empty.
func (q *qlist) pop(left bool, fn func(v []byte)) {
	if left {
		n := q.plain(q.head)
		b := q.nb(n)
		o := nStart(b)
		v, next := getEntry(b, o)
		fn(v)
		q.deleteBytes(n, o, next, 1)
		return
	}
	n := q.plain(q.tail)
	b := q.nb(n)
	e := nEnd(b)
	o := prevEntry(b, e)
	v, _ := getEntry(b, o)
	fn(v)
	q.deleteBytes(n, o, e, 1)
}

// locate returns the node and offset of entry i (0 <= i < count).
func (q *qlist) locate(i int) (slab.Handle, int) {
	if i < q.count/2 {
		n := q.head
		for {
			b := q.nb(n)
			if c := nCount(b); i >= c {
				i -= c
				n = nNext(b)
				continue
			}
			n = q.plain(n)
			b = q.nb(n)
			o := nStart(b)
			for ; i > 0; i-- {
				_, o = getEntry(b, o)
			}
			return n, o
		}
	}
	r := q.count - 1 - i // index from the tail
	n := q.tail
	for {
		b := q.nb(n)
		if c := nCount(b); r >= c {
			r -= c
			n = nPrev(b)
			continue
		}
		n = q.plain(n)
		b = q.nb(n)
		o := prevEntry(b, nEnd(b))
		for ; r > 0; r-- {
			o = prevEntry(b, o)
		}
		return n, o
	}
}

// insertAt inserts v before the entry at offset off of node n (off may be
// the node's end: after its last entry).
func (q *qlist) insertAt(n slab.Handle, off int, v []byte) {
	es := entrySize(len(v))
	b := q.nb(n)
	if q.fits(b, es) {
		q.insertBytes(n, off, v)
		return
	}
	start, end := nStart(b), nEnd(b)
	switch {
	case off == start:
		p := nPrev(b)
		if p != slab.Nil && q.fits(q.nb(p), es) {
			p = q.plain(p)
			q.insertBytes(p, nEnd(q.nb(p)), v)
			return
		}
		nn := q.newNode(es)
		q.linkAfter(p, nn)
		q.insertBytes(nn, lnHdr, v)
	case off == end:
		nx := nNext(b)
		if nx != slab.Nil && q.fits(q.nb(nx), es) {
			nx = q.plain(nx)
			q.insertBytes(nx, nStart(q.nb(nx)), v)
			return
		}
		nn := q.newNode(es)
		q.linkAfter(n, nn)
		q.insertBytes(nn, lnHdr, v)
	default:
		// Split n at off: the entries from off on move to a new node.
		k := 0
		for o := start; o < off; _, o = getEntry(b, o) {
			k++
		}
		tail := end - off
		nn := q.newNode(tail)
		nb := q.nb(nn)
		b = q.nb(n)
		copy(nb[lnHdr:], b[off:end])
		put32(nb, 16, uint32(tail))
		put32(nb, 12, uint32(nCount(b)-k))
		put32(b, 16, uint32(off-start))
		put32(b, 12, uint32(k))
		q.linkAfter(n, nn)
		if q.fits(q.nb(n), es) {
			q.insertBytes(n, off, v)
			return
		}
		mid := q.newNode(es)
		q.linkAfter(n, mid)
		q.insertBytes(mid, lnHdr, v)
	}
}

// replaceAt overwrites the entry at offset off of node n with v.
func (q *qlist) replaceAt(n slab.Handle, off int, v []byte) {
	b := q.nb(n)
	_, end := getEntry(b, off)
	old := end - off
	es := entrySize(len(v))
	used, start := nUsed(b), nStart(b)
	if nCount(b) == 1 || used-old+es <= q.maxBytes {
		if start+used-old+es > len(b) {
			rel := off - start
			n = q.relayout(n, used-old+es, false)
			b = q.nb(n)
			start = nStart(b)
			off = start + rel
		}
		copy(b[off+es:], b[off+old:start+used])
		putEntry(b[off:], v)
		used += es - old
		put32(b, 16, uint32(used))
		if es < old {
			q.shrink(n)
		}
		return
	}
	// Too big for this node: delete the entry, then insert at its place.
	nx := nNext(b)
	last := end == start+used
	q.deleteBytes(n, off, end, 1)
	if last {
		if nx == slab.Nil {
			q.push(v, false)
		} else {
			nx = q.plain(nx)
			q.insertAt(nx, nStart(q.nb(nx)), v)
		}
		return
	}
	// n still holds entries after off (nCount was > 1 and off not last).
	// deleteBytes may have moved n, and its entries within it: find it
	// again through its neighbour; the entries before off are as many
	// bytes as before.
	if nx == slab.Nil {
		n = q.tail
	} else {
		n = nPrev(q.nb(nx))
	}
	q.insertAt(n, nStart(q.nb(n))+off-start, v)
}

// delHead removes the first k entries (k <= count).
func (q *qlist) delHead(k int) {
	for k > 0 {
		n := q.head
		b := q.nb(n)
		c := nCount(b)
		if c <= k {
			q.count -= c
			k -= c
			q.unlink(n)
			continue
		}
		n = q.plain(n)
		b = q.nb(n)
		start := nStart(b)
		o := start
		for i := 0; i < k; i++ {
			_, o = getEntry(b, o)
		}
		q.deleteBytes(n, start, o, k)
		return
	}
}

// delTail removes the last k entries (k <= count).
func (q *qlist) delTail(k int) {
	for k > 0 {
		n := q.tail
		b := q.nb(n)
		c := nCount(b)
		if c <= k {
			q.count -= c
			k -= c
			q.unlink(n)
			continue
		}
		n = q.plain(n)
		b = q.nb(n)
		e := nEnd(b)
		o := e
		for i := 0; i < k; i++ {
			o = prevEntry(b, o)
		}
		q.deleteBytes(n, o, e, k)
		return
	}
}

// walk calls fn for the entries from index i on, forwards, until fn
// returns false. v is valid during fn only; fn must not modify the list.
func (q *qlist) walk(i int, fn func(v []byte) bool) {
	if i >= q.count {
		return
	}
	n, o := q.locate(i)
	for n != slab.Nil {
		b := q.nb(n)
		e := nEnd(b)
		for o < e {
			var v []byte
			v, o = getEntry(b, o)
			if !fn(v) {
				return
			}
		}
		n = nNext(b)
		if n != slab.Nil {
			n = q.plain(n)
			o = nStart(q.nb(n))
		}
	}
}

// walkBack calls fn for the entries from index i down to 0 until fn
// returns false.
func (q *qlist) walkBack(i int, fn func(v []byte) bool) {
	if i < 0 {
		return
	}
	n, o := q.locate(i)
	for n != slab.Nil {
		b := q.nb(n)
		for {
			v, _ := getEntry(b, o)
			if !fn(v) {
				return
			}
			if o == nStart(b) {
				break
			}
			o = prevEntry(b, o)
		}
		n = nPrev(b)
		if n != slab.Nil {
			n = q.plain(n)
			b = q.nb(n)
			o = prevEntry(b, nEnd(b))
		}
	}
}

// removeMatching removes entries equal to v: all of them (limit 0), the
// first limit ones (limit > 0) or the last -limit ones (limit < 0). It
// returns how many it removed.
func (q *qlist) removeMatching(v []byte, limit int) int {
	skip := 0 // matches to keep before removing (limit < 0)
	if limit < 0 {
		total := 0
		q.walk(0, func(e []byte) bool {
			if bytes.Equal(e, v) {
				total++
			}
			return true
		})
		if total > -limit {
			skip = total + limit
		}
		limit = 0
	}
	removed := 0
	for n := q.head; n != slab.Nil; {
		n = q.plain(n)
		b := q.nb(n)
		next := nNext(b)
		e := nEnd(b)
		start := nStart(b)
		w := start
		gone := 0
		for r := start; r < e; {
			ev, nr := getEntry(b, r)
			if (limit == 0 || removed < limit) && bytes.Equal(ev, v) {
				if skip > 0 {
					skip--
				} else {
					removed++
					gone++
					r = nr
					continue
				}
			}
			if w != r {
				copy(b[w:], b[r:nr])
			}
			w += nr - r
			r = nr
		}
		if gone > 0 {
			c := nCount(b) - gone
			q.count -= gone
			if c == 0 {
				q.unlink(n)
			} else {
				put32(b, 12, uint32(c))
				put32(b, 16, uint32(w-start))
				q.shrink(n)
			}
		}
		if limit > 0 && removed >= limit {
			break
		}
		n = next
	}
	return removed
}

// encode appends the list's portable form: uvarint count, then each entry
// as uvarint length and bytes.
func (q *qlist) encode(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(q.count))
	q.walk(0, func(v []byte) bool {
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
		return true
	})
	return dst
}

// decodeList builds a list from encode's form; ok is false when data is
// malformed (nothing is left allocated then).
func (s *Store) decodeList(data []byte) (slab.Handle, bool) {
	cnt, w := binary.Uvarint(data)
	if w <= 0 {
		return slab.Nil, false
	}
	data = data[w:]
	q := s.newList()
	for i := uint64(0); i < cnt; i++ {
		n, w := binary.Uvarint(data)
		if w <= 0 || uint64(len(data)-w) < n {
			q.save()
			q.free()
			return slab.Nil, false
		}
		q.push(data[w:w+int(n)], false)
		data = data[w+int(n):]
	}
	q.save()
	return q.h, true
}

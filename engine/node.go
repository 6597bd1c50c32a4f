package engine

import (
	"math/bits"
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
)

// Inner node layout. Every node is a whole number of 64-byte cache lines
// (the slab aligns such blocks to 64 bytes) and starts with hdr:
//
//	off 0  kind   uint8    nodeN10..nodeN256 (a leaf's first byte has bit 7 set)
//	off 1  -      uint8
//	off 2  count  uint16   children, not counting end
//	off 4  plen   uint32   length of the compressed path (prefix)
//	off 8  end    Handle   leaf whose key ends exactly after the prefix, or Nil
//	off 12 prefix [pcap]   first min(plen, pcap) bytes of the prefix
//
//	N10  (64 B):  keys [10]byte @14, children [10]Handle @24; keys sorted
//	N16  (128 B): keys [16]byte @48, children [16]Handle @64; keys sorted
//	N48  (512 B): index [256]byte @64 (slot+1, 0 = none), children [48]Handle @320
//	N256 (1088 B, a 1280-byte block): children [256]Handle @64
//
// A prefix longer than pcap is checked optimistically on lookup (the leaf
// holds the whole key and is compared at the end); code that needs its bytes
// reads them from the node's minimum leaf (fullPrefix).
const (
	nodeN10  = 1
	nodeN16  = 2
	nodeN48  = 3
	nodeN256 = 4

	hdrSize = 12
)

type kindInfo struct {
	size, pcap, keys, kids, cap int
}

var kinds = [5]kindInfo{
	{},
	{64, 2, 14, 24, 10},
	{128, 36, 48, 64, 16},
	{512, 52, 64, 320, 48},
	{1088, 52, 0, 64, 256},
}

// Shrink thresholds: a node whose count drops to this moves to the next
// smaller kind (below the smaller kind's capacity, for hysteresis).
var shrinkAt = [5]int{0, 0, 8, 12, 40}

type hdr struct {
	kind  uint8
	_     uint8
	count uint16
	plen  uint32
	end   slab.Handle
}

func (db *DB) ptr(h slab.Handle) unsafe.Pointer { return db.s.slab.Pointer(h) }

func isLeaf(p unsafe.Pointer) bool { return *(*uint8)(p)&leafBit != 0 }

func hdrOf(p unsafe.Pointer) *hdr { return (*hdr)(p) }

func keysOf(p unsafe.Pointer, k *kindInfo) *[256]byte {
	return (*[256]byte)(unsafe.Add(p, k.keys))
}

func kidsOf(p unsafe.Pointer, k *kindInfo) *[256]slab.Handle {
	return (*[256]slab.Handle)(unsafe.Add(p, k.kids))
}

// inlinePrefix returns the stored prefix bytes (all of them when plen <=
// pcap). The slice aliases the node.
func inlinePrefix(p unsafe.Pointer) []byte {
	h := hdrOf(p)
	n := min(int(h.plen), kinds[h.kind].pcap)
	return unsafe.Slice((*byte)(unsafe.Add(p, hdrSize)), n)
}

// setPrefix stores prefix pf (its first pcap bytes inline).
func setPrefix(p unsafe.Pointer, pf []byte) {
	h := hdrOf(p)
	h.plen = uint32(len(pf))
	n := min(len(pf), kinds[h.kind].pcap)
	copy(unsafe.Slice((*byte)(unsafe.Add(p, hdrSize)), n), pf[:n])
}

// findChild returns the address of the child slot for byte c, or nil.
func findChild(p unsafe.Pointer, c byte) *slab.Handle {
	h := hdrOf(p)
	switch h.kind {
	case nodeN10:
		// Bytes past count may hold stale keys; they sit above every live
		// one, so the lowest match decides.
		i := findByte(*(*uint64)(unsafe.Add(p, 14)), c)
		if i == 8 {
			i = 8 + findByte(uint64(*(*uint16)(unsafe.Add(p, 22))), c) // bytes 2-7 are >= count
		}
		if i < uint(h.count) {
			return (*slab.Handle)(unsafe.Add(p, 24+4*uintptr(i)))
		}
	case nodeN16:
		i := findByte(*(*uint64)(unsafe.Add(p, 48)), c)
		if i == 8 {
			i = 8 + findByte(*(*uint64)(unsafe.Add(p, 56)), c)
		}
		if i < uint(h.count) {
			return (*slab.Handle)(unsafe.Add(p, 64+4*uintptr(i)))
		}
	case nodeN48:
		if i := (*[256]byte)(unsafe.Add(p, 64))[c]; i != 0 {
			return (*slab.Handle)(unsafe.Add(p, 320+4*(uintptr(i)-1)))
		}
	case nodeN256:
		s := (*slab.Handle)(unsafe.Add(p, 64+4*uintptr(c)))
		if *s != slab.Nil {
			return s
		}
	}
	return nil
}

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// findByte returns the index of the lowest byte of x equal to c, or 8. The
// zero-byte test may flag bytes above a true match, never below one.
func findByte(x uint64, c byte) uint {
	v := x ^ uint64(c)*lsb8
	t := (v - lsb8) &^ v & msb8
	return uint(bits.TrailingZeros64(t)) >> 3
}

// newNode allocates an empty node of kind k.
func (db *DB) newNode(k int) (slab.Handle, unsafe.Pointer) {
	var h slab.Handle
	if k >= nodeN48 {
		h = db.s.slab.AllocZeroed(kinds[k].size)
	} else {
		h = db.s.slab.Alloc(kinds[k].size)
	}
	if h == slab.Nil {
		panic("engine: out of memory")
	}
	p := db.ptr(h)
	*hdrOf(p) = hdr{kind: uint8(k)}
	return h, p
}

// addChild adds child ch under byte c to node p, which must have room and
// must not hold c.
func addChild(p unsafe.Pointer, c byte, ch slab.Handle) {
	h := hdrOf(p)
	k := &kinds[h.kind]
	n := int(h.count)
	switch h.kind {
	case nodeN10, nodeN16:
		keys, kids := keysOf(p, k), kidsOf(p, k)
		i := 0
		for i < n && keys[i] < c {
			i++
		}
		copy(keys[i+1:n+1], keys[i:n])
		copy(kids[i+1:n+1], kids[i:n])
		keys[i] = c
		kids[i] = ch
	case nodeN48:
		idx, kids := keysOf(p, k), kidsOf(p, k)
		// Slots are kept dense: [0, count) are in use.
		kids[n] = ch
		idx[c] = uint8(n + 1)
	case nodeN256:
		kidsOf(p, k)[c] = ch
	}
	h.count++
}

// full reports whether node p has no room for another child.
func full(p unsafe.Pointer) bool {
	h := hdrOf(p)
	return int(h.count) >= kinds[h.kind].cap
}

// insertChild adds child ch under byte c to the node h (at *ref), growing it
// into the next kind when full. pf is the node's whole prefix (needed when
// the bigger kind stores more of it inline).
func (db *DB) insertChild(ref *slab.Handle, h slab.Handle, p unsafe.Pointer, c byte, ch slab.Handle, pf []byte) {
	if !full(p) {
		addChild(p, c, ch)
		return
	}
	nh, np := db.newNode(int(hdrOf(p).kind) + 1)
	db.copyNode(np, p, pf)
	db.s.slab.Free(h)
	*ref = nh
	addChild(np, c, ch)
}

// copyNode moves the prefix, end leaf and children of src into the empty
// node dst of another kind. pf is src's whole prefix.
func (db *DB) copyNode(dst, src unsafe.Pointer, pf []byte) {
	sh := hdrOf(src)
	setPrefix(dst, pf)
	hdrOf(dst).end = sh.end
	forEachChild(src, func(c byte, ch slab.Handle) bool {
		addChild(dst, c, ch)
		return true
	})
}

// forEachChild calls fn for the children of p in byte order until fn
// returns false.
func forEachChild(p unsafe.Pointer, fn func(c byte, ch slab.Handle) bool) bool {
	h := hdrOf(p)
	k := &kinds[h.kind]
	n := int(h.count)
	switch h.kind {
	case nodeN10, nodeN16:
		keys, kids := keysOf(p, k), kidsOf(p, k)
		for i := 0; i < n; i++ {
			if !fn(keys[i], kids[i]) {
				return false
			}
		}
	case nodeN48:
		idx, kids := keysOf(p, k), kidsOf(p, k)
		for c := 0; c < 256; c++ {
			if i := idx[c]; i != 0 {
				if !fn(byte(c), kids[i-1]) {
					return false
				}
			}
		}
	case nodeN256:
		kids := kidsOf(p, k)
		for c := 0; c < 256; c++ {
			if kids[c] != slab.Nil {
				if !fn(byte(c), kids[c]) {
					return false
				}
			}
		}
	}
	return true
}

// firstChild returns the child with the smallest byte (the node must have
// one).
func firstChild(p unsafe.Pointer) (byte, slab.Handle) {
	h := hdrOf(p)
	k := &kinds[h.kind]
	switch h.kind {
	case nodeN10, nodeN16:
		return keysOf(p, k)[0], kidsOf(p, k)[0]
	case nodeN48:
		idx := keysOf(p, k)
		for c := 0; c < 256; c++ {
			if i := idx[c]; i != 0 {
				return byte(c), kidsOf(p, k)[i-1]
			}
		}
	case nodeN256:
		kids := kidsOf(p, k)
		for c := 0; c < 256; c++ {
			if kids[c] != slab.Nil {
				return byte(c), kids[c]
			}
		}
	}
	panic("engine: firstChild of a node without children")
}

// removeChild deletes byte c's child from p (it must be present).
func removeChild(p unsafe.Pointer, c byte) {
	h := hdrOf(p)
	k := &kinds[h.kind]
	n := int(h.count)
	switch h.kind {
	case nodeN10, nodeN16:
		keys, kids := keysOf(p, k), kidsOf(p, k)
		i := 0
		for keys[i] != c {
			i++
		}
		copy(keys[i:n-1], keys[i+1:n])
		copy(kids[i:n-1], kids[i+1:n])
	case nodeN48:
		idx, kids := keysOf(p, k), kidsOf(p, k)
		i := int(idx[c]) - 1
		idx[c] = 0
		if i != n-1 {
			// Keep slots dense: move the last slot into the hole.
			kids[i] = kids[n-1]
			for b := 0; b < 256; b++ {
				if int(idx[b]) == n {
					idx[b] = uint8(i + 1)
					break
				}
			}
		}
		kids[n-1] = slab.Nil
	case nodeN256:
		kidsOf(p, k)[c] = slab.Nil
	}
	h.count--
}

// minLeaf returns the smallest leaf below h.
func (db *DB) minLeaf(h slab.Handle) unsafe.Pointer {
	for {
		p := db.ptr(h)
		if isLeaf(p) {
			return p
		}
		if e := hdrOf(p).end; e != slab.Nil {
			h = e
			continue
		}
		_, h = firstChild(p)
	}
}

// fullPrefix returns the whole prefix of node p, which starts at byte depth
// of every key below it. The slice aliases slab memory: valid until the tree
// changes.
func (db *DB) fullPrefix(h slab.Handle, p unsafe.Pointer, depth int) []byte {
	hd := hdrOf(p)
	plen := int(hd.plen)
	if plen <= kinds[hd.kind].pcap {
		return inlinePrefix(p)
	}
	k := leafKey(db.minLeaf(h))
	return k[depth : depth+plen]
}

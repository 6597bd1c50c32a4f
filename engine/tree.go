package engine

import (
	"unsafe"

	"github.com/radish-kv/radish/engine/slab"
)

// lookup finds key's leaf. It returns the slot that refers to the leaf (in
// the parent node, in a node's end field, or the root) and the leaf's
// handle; Nil when key is absent. Prefixes longer than a node stores inline
// are skipped (optimistic) and the final key comparison settles it. The slot
// stays valid until the tree's shape changes (insert or remove).
func (db *DB) lookup(key []byte) (*slab.Handle, slab.Handle) {
	ref, h, _ := db.lookupLeaf(key)
	return ref, h
}

// lookupLeaf is lookup that also returns the leaf's address: from the walk
// cache when the last Prefetch walked to key's leaf, else by walkLeaf.
func (db *DB) lookupLeaf(key []byte) (*slab.Handle, slab.Handle, unsafe.Pointer) {
	if ref, h, p := db.cachedLeaf(key); p != nil {
		return ref, h, p
	}
	return db.walkLeaf(key)
}

// walkLeaf walks the tree to key's leaf.
//
// It is the hot path of every read: one dependent load per level, so it
// keeps each level to the node's first cache line where it can (header,
// inline prefix, N10/N16 keys) and searches N10/N16 keys inline with a
// SWAR byte match.
func (db *DB) walkLeaf(key []byte) (*slab.Handle, slab.Handle, unsafe.Pointer) {
	sl := db.s.slab
	ref := &db.root
	depth := 0
	for {
		h := *ref
		if h == slab.Nil {
			return nil, slab.Nil, nil
		}
		p := sl.Pointer(h)
		kind := *(*uint8)(p)
		if kind&leafBit != 0 {
			if string(leafKey(p)) == string(key) {
				return ref, h, p
			}
			return nil, slab.Nil, nil
		}
		hd := hdrOf(p)
		if plen := int(hd.plen); plen != 0 {
			if len(key)-depth < plen {
				return nil, slab.Nil, nil
			}
			if !prefixMatch(p, kind, plen, key[depth:]) {
				return nil, slab.Nil, nil
			}
			depth += plen
		}
		if depth == len(key) {
			ref = &hd.end
			continue
		}
		ref = childRef(p, kind, uint(hd.count), key[depth])
		depth++
		if ref == nil {
			return nil, slab.Nil, nil
		}
	}
}

// childRef returns the slot of node p (of the given kind and child count)
// that holds the child for byte c, or nil when there is none.
func childRef(p unsafe.Pointer, kind uint8, count uint, c byte) *slab.Handle {
	switch kind {
	case nodeN10:
		// Bytes past count may hold stale keys; they sit above every
		// live one, so the lowest match decides (see findByte).
		i := findByte(*(*uint64)(unsafe.Add(p, 14)), c)
		if i == 8 {
			i = 8 + findByte(uint64(*(*uint16)(unsafe.Add(p, 22))), c)
		}
		if i >= count {
			return nil
		}
		return (*slab.Handle)(unsafe.Add(p, 24+4*uintptr(i)))
	case nodeN16:
		i := findByte(*(*uint64)(unsafe.Add(p, 48)), c)
		if i == 8 {
			i = 8 + findByte(*(*uint64)(unsafe.Add(p, 56)), c)
		}
		if i >= count {
			return nil
		}
		return (*slab.Handle)(unsafe.Add(p, 64+4*uintptr(i)))
	case nodeN48:
		i := (*[256]byte)(unsafe.Add(p, 64))[c]
		if i == 0 {
			return nil
		}
		return (*slab.Handle)(unsafe.Add(p, 320+4*(uintptr(i)-1)))
	default: // nodeN256: a Nil child ends the walk at the caller
		return (*slab.Handle)(unsafe.Add(p, 64+4*uintptr(c)))
	}
}

// PrefetchMax is the most keys one Prefetch call walks.
const PrefetchMax = 32

// Prefetch warms the CPU cache for a batch of keys about to be looked up
// (at most PrefetchMax): it walks the tree toward every key at once, one
// level of every walk per round, and issues a prefetch for each next node
// instead of waiting for it, so the cache misses of a round overlap and a
// node is read a round later, once it has arrived. It changes no data; it
// remembers where each walk ended (walkCache) and returns how many walks
// ended on a leaf (the key's, or the one a lookup would compare with).
func (db *DB) Prefetch(keys [][]byte) int {
	sl := db.s.slab
	var cur [PrefetchMax]unsafe.Pointer
	var refs [PrefetchMax]*slab.Handle
	var depth [PrefetchMax]int
	n := min(len(keys), PrefetchMax)
	if db.root == slab.Nil {
		return 0
	}
	root := sl.Pointer(db.root)
	for i := range n {
		cur[i], refs[i] = root, &db.root
	}
	if db.walks == nil {
		db.walks = new(walkCache)
	}
	leaves := 0
	for active := n; active > 0; {
		active = 0
		for i := range n {
			p := cur[i]
			if p == nil {
				continue
			}
			kind := *(*uint8)(p)
			if kind&leafBit != 0 {
				leaves++
				cur[i] = nil
				db.walks.put(keys[i], refs[i], sl.Epoch())
				continue
			}
			// Compressed paths are skipped, not compared: a wrong turn
			// only warms the wrong lines.
			hd := hdrOf(p)
			d := depth[i] + int(hd.plen)
			key := keys[i]
			var ref *slab.Handle
			switch {
			case d > len(key):
			case d == len(key):
				ref = &hd.end
			default:
				ref = childRef(p, kind, uint(hd.count), key[d])
			}
			if ref == nil || *ref == slab.Nil {
				cur[i] = nil
				continue
			}
			next := sl.Pointer(*ref)
			prefetch(next)
			cur[i], refs[i], depth[i] = next, ref, d+1
			active++
		}
	}
	return leaves
}

// walkCache remembers where the last Prefetch walks ended, so that the
// lookups that follow, of the same keys in the same request buffer, do not
// walk the tree again. An entry holds the key's address and length (only a
// tag: the leaf's key is compared before the entry is used), the slot that
// referred to the leaf the walk reached, that leaf, and the slab's Epoch at
// the time. An entry is used only at the same Epoch: no block was freed
// since, so the slot's node is still live and where it was, and a slot
// still holding the leaf is still the one that refers to it.
type walkCache [walkSlots]walkEntry

const walkSlots = 64 // a power of two, twice PrefetchMax

type walkEntry struct {
	key   uintptr
	ref   *slab.Handle
	epoch uint64
	n     int
	h     slab.Handle
}

func (c *walkCache) slot(key []byte) (*walkEntry, uintptr) {
	a := uintptr(unsafe.Pointer(unsafe.SliceData(key)))
	return &c[uint64(a)*0x9e3779b97f4a7c15>>58], a
}

func (c *walkCache) put(key []byte, ref *slab.Handle, epoch uint64) {
	if len(key) == 0 {
		return
	}
	e, a := c.slot(key)
	*e = walkEntry{key: a, ref: ref, epoch: epoch, n: len(key), h: *ref}
}

// cachedLeaf is lookupLeaf from the walk cache, or nils.
func (db *DB) cachedLeaf(key []byte) (*slab.Handle, slab.Handle, unsafe.Pointer) {
	if db.walks == nil || len(key) == 0 {
		return nil, slab.Nil, nil
	}
	e, a := db.walks.slot(key)
	if e.key != a || e.n != len(key) || e.epoch != db.s.slab.Epoch() || *e.ref != e.h {
		return nil, slab.Nil, nil
	}
	p := db.ptr(e.h)
	if string(leafKey(p)) != string(key) {
		return nil, slab.Nil, nil
	}
	return e.ref, e.h, p
}

// prefixMatch reports whether the inline part of node p's prefix (plen
// bytes long, plen <= len(k)) equals the start of k. Inline parts of up to
// 8 bytes compare as one masked little-endian word (every node has 8
// readable bytes at the prefix offset) when k has 8 bytes to load.
func prefixMatch(p unsafe.Pointer, kind uint8, plen int, k []byte) bool {
	n := min(plen, kinds[kind].pcap)
	if n <= 8 && len(k) >= 8 {
		mask := ^uint64(0) >> (64 - 8*uint(n))
		a := *(*uint64)(unsafe.Add(p, hdrSize))
		b := *(*uint64)(unsafe.Pointer(unsafe.SliceData(k)))
		return (a^b)&mask == 0
	}
	return string(unsafe.Slice((*byte)(unsafe.Add(p, hdrSize)), n)) == string(k[:n])
}

func commonLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && string(a[i:i+8]) == string(b[i:i+8]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// place hangs leaf lh of key k under node p, which spans k up to depth d.
func place(p unsafe.Pointer, k []byte, d int, lh slab.Handle) {
	if d == len(k) {
		hdrOf(p).end = lh
		return
	}
	addChild(p, k[d], lh)
}

// insert adds leaf lh for key, which must be absent from the tree.
func (db *DB) insert(key []byte, lh slab.Handle) {
	ref := &db.root
	depth := 0
	for {
		h := *ref
		if h == slab.Nil {
			*ref = lh
			return
		}
		p := db.ptr(h)
		if isLeaf(p) {
			// Two keys share this slot: a new node spans their common part.
			lk := leafKey(p)
			i := depth + commonLen(lk[depth:], key[depth:])
			nh, np := db.newNode(nodeN10)
			setPrefix(np, key[depth:i])
			place(np, lk, i, h)
			place(np, key, i, lh)
			*ref = nh
			return
		}
		hd := hdrOf(p)
		plen := int(hd.plen)
		var pf []byte
		if plen != 0 {
			pf = db.fullPrefix(h, p, depth)
			m := commonLen(pf, key[depth:])
			if m < plen {
				// key leaves the compressed path at m: split it there.
				nh, np := db.newNode(nodeN10)
				setPrefix(np, pf[:m])
				b := pf[m]
				setPrefix(p, pf[m+1:]) // copy handles the overlap with p's own bytes
				addChild(np, b, h)
				place(np, key, depth+m, lh)
				*ref = nh
				return
			}
			depth += plen
		}
		if depth == len(key) {
			hd.end = lh
			return
		}
		c := key[depth]
		if next := findChild(p, c); next != nil {
			ref = next
			depth++
			continue
		}
		db.insertChild(ref, h, p, c, lh, pf)
		return
	}
}

// remove unlinks key's leaf from the tree and returns it (Nil if absent,
// or if want is not Nil and the leaf is not want). The leaf block itself
// is not freed.
func (db *DB) remove(key []byte, want slab.Handle) slab.Handle {
	ref := &db.root
	var nref *slab.Handle // the slot that refers to the node holding ref
	var nh slab.Handle
	var np unsafe.Pointer
	ndepth, depth := 0, 0
	atEnd := false
	var cb byte
	for {
		h := *ref
		if h == slab.Nil {
			return slab.Nil
		}
		p := db.ptr(h)
		if isLeaf(p) {
			if string(leafKey(p)) != string(key) || want != slab.Nil && h != want {
				return slab.Nil
			}
			if nref == nil {
				db.root = slab.Nil
			} else {
				db.unlink(nref, nh, np, ndepth, atEnd, cb, key)
			}
			return h
		}
		hd := hdrOf(p)
		nref, nh, np, ndepth = ref, h, p, depth
		if plen := int(hd.plen); plen != 0 {
			if len(key)-depth < plen {
				return slab.Nil
			}
			in := inlinePrefix(p)
			if string(in) != string(key[depth:depth+len(in)]) {
				return slab.Nil
			}
			depth += plen
		}
		if depth == len(key) {
			ref = &hd.end
			atEnd = true
			continue
		}
		cb = key[depth]
		ref = findChild(p, cb)
		if ref == nil {
			return slab.Nil
		}
		atEnd = false
		depth++
	}
}

// unlink drops one entry (the end leaf, or byte cb's child) of node nh at
// *nref, whose prefix starts at ndepth of key, then restores the invariants:
// a node keeps at least two entries (else it is replaced by the one left,
// merging compressed paths) and the smallest kind that holds its children
// with hysteresis.
func (db *DB) unlink(nref *slab.Handle, nh slab.Handle, np unsafe.Pointer, ndepth int, atEnd bool, cb byte, key []byte) {
	hd := hdrOf(np)
	if atEnd {
		hd.end = slab.Nil
	} else {
		removeChild(np, cb)
	}
	// The removed key matched its leaf in full, so it spells the prefix.
	pf := key[ndepth : ndepth+int(hd.plen)]
	n := int(hd.count)
	switch {
	case n == 0:
		*nref = hd.end
		db.s.slab.Free(nh)
	case n == 1 && hd.end == slab.Nil:
		c, ch := firstChild(np)
		cp := db.ptr(ch)
		if !isLeaf(cp) {
			// ch's path becomes pf + c + its own prefix.
			chd := hdrOf(cp)
			pc := kinds[chd.kind].pcap
			var buf [128]byte
			b := append(buf[:0], pf[:min(len(pf), pc)]...)
			b = append(b, c)
			b = append(b, inlinePrefix(cp)...)
			b = b[:min(len(b), pc)]
			copy(unsafe.Slice((*byte)(unsafe.Add(cp, hdrSize)), len(b)), b)
			chd.plen += uint32(len(pf) + 1)
		}
		*nref = ch
		db.s.slab.Free(nh)
	case n <= shrinkAt[hd.kind]:
		sh, sp := db.newNode(int(hd.kind) - 1)
		db.copyNode(sp, np, pf)
		*nref = sh
		db.s.slab.Free(nh)
	}
}

// freeTree frees every block below h (nodes, leaves and their values) and
// returns the number of leaves freed.
func (db *DB) freeTree(h slab.Handle) int {
	if h == slab.Nil {
		return 0
	}
	p := db.ptr(h)
	if isLeaf(p) {
		db.freeLeaf(h)
		return 1
	}
	n := db.freeTree(hdrOf(p).end)
	forEachChild(p, func(_ byte, ch slab.Handle) bool {
		n += db.freeTree(ch)
		return true
	})
	db.s.slab.Free(h)
	return n
}

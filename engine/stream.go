package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine/slab"
	"github.com/radish-kv/radish/num"
)

// Streams, as Redis 7.0 keeps them: an ordered index of nodes keyed by the
// ID of each node's first (master) entry, every node a packed run of
// entries of at most stream-node-max-entries entries and about
// stream-node-max-bytes bytes, entries deleted in place by a flag and a
// node freed when its last live entry goes. All of it lives in slab
// blocks that start with a 0 byte:
//
//   - the root block (fixed size, so the leaf never changes): length, the
//     last ID, the first live ID (Redis's first_id), the largest deleted
//     ID, the count of entries ever added, and the handle of the index.
//   - the index block: a sorted array of (master ID, node handle) with a
//     start offset, so appending a node and dropping the first (trimming)
//     are O(1) amortized and finding the node of an ID is a binary search.
//   - node blocks: a header (live and deleted counts, the master ID, the
//     size Redis's listpack of the same entries would have), the master
//     fields (the fields of the node's first entry), then the entries:
//
//     flags    1 byte: xDeleted, xSameFields
//     ms       uvarint: ID.Ms - master.Ms
//     seq      zigzag varint: ID.Seq - master.Seq (may be negative)
//     nfields  uvarint, absent with xSameFields
//     fields   field and value as serialized strings (values only with
//     xSameFields: the fields are the master's)
//
// A node is closed (a new one started) exactly where Redis closes its
// listpack: when the listpack would reach stream-node-max-bytes or holds
// stream-node-max-entries entries (live and deleted). So approximate
// trimming (MAXLEN ~), which removes whole nodes only, removes the same
// entries as Redis. A node being filled grows by half; a closed node is
// shrunk to fit. Memory per entry is bounded by the entry's bytes plus a
// few header bytes.

// encStream is the object encoding of streams; it shares the number of
// encListpack (no other type uses it for streams), and OBJECT ENCODING
// says "stream".
const encStream = encListpack

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest ID ("+").
var MaxStreamID = StreamID{math.MaxUint64, math.MaxUint64}

// Cmp compares two IDs: -1, 0 or 1.
func (a StreamID) Cmp(b StreamID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports a < b.
func (a StreamID) Less(b StreamID) bool { return a.Cmp(b) < 0 }

// IsZero reports whether a is 0-0.
func (a StreamID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Next returns the ID after a; false when a is the largest.
func (a StreamID) Next() (StreamID, bool) {
	switch {
	case a.Seq < math.MaxUint64:
		return StreamID{a.Ms, a.Seq + 1}, true
	case a.Ms < math.MaxUint64:
		return StreamID{a.Ms + 1, 0}, true
	}
	return a, false
}

// Prev returns the ID before a; false when a is 0-0.
func (a StreamID) Prev() (StreamID, bool) {
	switch {
	case a.Seq > 0:
		return StreamID{a.Ms, a.Seq - 1}, true
	case a.Ms > 0:
		return StreamID{a.Ms - 1, math.MaxUint64}, true
	}
	return a, false
}

// Append appends the ID as Redis prints it ("ms-seq").
func (a StreamID) Append(dst []byte) []byte {
	dst = strconv.AppendUint(dst, a.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, a.Seq, 10)
}

// String returns the ID as Redis prints it.
func (a StreamID) String() string { return string(a.Append(nil)) }

// Stream errors, with Redis's text.
var (
	ErrXAddIDSmall = errors.New("ERR The ID specified in XADD is equal or smaller than the target stream top item")
	// ErrXAddSeqOverflow is Redis 7.0's answer to an ms-* whose sequence
	// would overflow.
	ErrXAddSeqOverflow = errors.New("ERR Elements are too large to be stored")
	ErrStreamExhausted = errors.New("ERR The stream has exhausted the last possible ID, unable to add more items")
)

// Entry flags.
const (
	xDeleted    = 1
	xSameFields = 2
)

func init() {
	registerObj(TypeStream, &objType{free: streamFree, export: streamExport, load: streamLoad, size: streamSize})
}

// ---- root block ----

const (
	xsLen    = 8
	xsLast   = 16
	xsFirst  = 32
	xsMaxDel = 48
	xsAdded  = 64
	xsIndex  = 72
	xsSize   = 80
)

// stream is an open stream: its root block.
type stream struct {
	db *DB
	x  slab.Handle
}

func (st stream) root() []byte { return st.db.s.slab.Bytes(st.x) }

func getID(b []byte, off int) StreamID {
	return StreamID{binary.LittleEndian.Uint64(b[off:]), binary.LittleEndian.Uint64(b[off+8:])}
}

func putID(b []byte, off int, id StreamID) {
	binary.LittleEndian.PutUint64(b[off:], id.Ms)
	binary.LittleEndian.PutUint64(b[off+8:], id.Seq)
}

func (st stream) length() uint64 { return binary.LittleEndian.Uint64(st.root()[xsLen:]) }
func (st stream) setLength(n uint64) {
	binary.LittleEndian.PutUint64(st.root()[xsLen:], n)
}
func (st stream) lastID() StreamID      { return getID(st.root(), xsLast) }
func (st stream) firstID() StreamID     { return getID(st.root(), xsFirst) }
func (st stream) maxDeleted() StreamID  { return getID(st.root(), xsMaxDel) }
func (st stream) setLast(id StreamID)   { putID(st.root(), xsLast, id) }
func (st stream) setFirst(id StreamID)  { putID(st.root(), xsFirst, id) }
func (st stream) setMaxDel(id StreamID) { putID(st.root(), xsMaxDel, id) }
func (st stream) added() uint64         { return binary.LittleEndian.Uint64(st.root()[xsAdded:]) }
func (st stream) setAdded(n uint64) {
	binary.LittleEndian.PutUint64(st.root()[xsAdded:], n)
}
func (st stream) index() slab.Handle {
	return slab.Handle(binary.LittleEndian.Uint32(st.root()[xsIndex:]))
}
func (st stream) setIndex(h slab.Handle) {
	binary.LittleEndian.PutUint32(st.root()[xsIndex:], uint32(h))
}

// newStream allocates an empty stream (root and an empty index).
func (db *DB) newStream() stream {
	x := db.s.slab.AllocZeroed(xsSize)
	if x == slab.Nil {
		panic("engine: out of memory")
	}
	st := stream{db, x}
	st.setIndex(db.newIndex(4))
	return st
}

func streamFree(db *DB, _ int, x slab.Handle) {
	st := stream{db, x}
	ix := st.index()
	b := db.s.slab.Bytes(ix)
	for i := 0; i < ixCount(b); i++ {
		db.s.slab.Free(ixNode(b, i))
	}
	db.s.slab.Free(ix)
	db.s.slab.Free(x)
	db.s.dropGroups(x)
}

// ---- index block ----
//
//	0      1 byte 0, 3 bytes padding
//	start  uint32: the first used slot
//	count  uint32: used slots
//	       4 bytes padding
//	slots  20 bytes each: master ID (ms, seq: uint64 LE), node handle

const (
	ixHdr = 16
	ixEnt = 20
)

func ixStart(b []byte) int { return int(binary.LittleEndian.Uint32(b[4:])) }
func ixCount(b []byte) int { return int(binary.LittleEndian.Uint32(b[8:])) }
func ixCap(b []byte) int   { return (len(b) - ixHdr) / ixEnt }
func setIxStart(b []byte, n int) {
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
}
func setIxCount(b []byte, n int) {
	binary.LittleEndian.PutUint32(b[8:], uint32(n))
}
func ixOff(b []byte, i int) int { return ixHdr + (ixStart(b)+i)*ixEnt }
func ixKey(b []byte, i int) StreamID {
	return getID(b, ixOff(b, i))
}
func ixNode(b []byte, i int) slab.Handle {
	return slab.Handle(binary.LittleEndian.Uint32(b[ixOff(b, i)+16:]))
}
func setIxNode(b []byte, i int, h slab.Handle) {
	binary.LittleEndian.PutUint32(b[ixOff(b, i)+16:], uint32(h))
}

func (db *DB) newIndex(slots int) slab.Handle {
	x := db.s.slab.AllocZeroed(ixHdr + slots*ixEnt)
	if x == slab.Nil {
		panic("engine: out of memory")
	}
	return x
}

// ixFind returns the position of the last node whose master ID is <= id,
// or -1 when every node starts after id.
func ixFind(b []byte, id StreamID) int {
	lo, hi := 0, ixCount(b) // first node with key > id
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if id.Less(ixKey(b, m)) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// ixAppend adds a node at the end (its master ID is the largest).
func (st stream) ixAppend(id StreamID, node slab.Handle) {
	sl := st.db.s.slab
	ix := st.index()
	b := sl.Bytes(ix)
	n, start := ixCount(b), ixStart(b)
	if start+n == ixCap(b) {
		slots := max(4, 2*n)
		if start > 0 && n < ixCap(b)/2 {
			slots = ixCap(b) // compact in place of growing
		}
		nx := st.db.newIndex(slots)
		nb := sl.Bytes(nx)
		copy(nb[ixHdr:], b[ixHdr+start*ixEnt:ixHdr+(start+n)*ixEnt])
		setIxCount(nb, n)
		sl.Free(ix)
		st.setIndex(nx)
		b = nb
	}
	setIxCount(b, n+1)
	o := ixOff(b, n)
	putID(b, o, id)
	binary.LittleEndian.PutUint32(b[o+16:], uint32(node))
}

// ixRemove drops node i from the index (not freeing it).
func (st stream) ixRemove(i int) {
	sl := st.db.s.slab
	ix := st.index()
	b := sl.Bytes(ix)
	n := ixCount(b)
	if i == 0 {
		setIxStart(b, ixStart(b)+1)
	} else {
		o := ixOff(b, i)
		copy(b[o:], b[o+ixEnt:ixOff(b, n)])
	}
	n--
	setIxCount(b, n)
	if n == 0 {
		setIxStart(b, 0)
	}
	if c := ixCap(b); c > 16 && n*4 < c {
		nx := st.db.newIndex(max(4, 2*n))
		nb := sl.Bytes(nx)
		start := ixStart(b)
		copy(nb[ixHdr:], b[ixHdr+start*ixEnt:ixHdr+(start+n)*ixEnt])
		setIxCount(nb, n)
		sl.Free(ix)
		st.setIndex(nx)
	}
}

// ---- node blocks ----
//
//	0       1 byte 0
//	used    uint32: bytes from the master fields' start to the end of
//	        the last entry
//	live    uint32: entries not deleted
//	deleted uint32: entries flagged deleted
//	master  ms, seq (uint64 LE each)
//	lpBody  uint32: the bytes of Redis's listpack for this node other than
//	        its header, end byte, and the count and deleted elements
//	first   uint16: offset of the first entry
//	master fields: uvarint count, then each field as a serialized string
//	entries

const (
	ndUsed   = 1
	ndLive   = 5
	ndDel    = 9
	ndMaster = 13
	ndLP     = 29
	ndFirst  = 33
	ndHdr    = 35
)

func u32(b []byte, off int) int { return int(binary.LittleEndian.Uint32(b[off:])) }
func putU32(b []byte, off, v int) {
	binary.LittleEndian.PutUint32(b[off:], uint32(v))
}

// ndEnd is the offset just past a node's last entry.
func ndEnd(b []byte) int { return ndHdr + u32(b, ndUsed) }

// ndEntries returns the offset of the first entry.
func ndEntries(b []byte) int { return int(binary.LittleEndian.Uint16(b[ndFirst:])) }

// ndLPBytes is the size of Redis's listpack holding the node.
func ndLPBytes(b []byte) int {
	return 7 + lpIntEntrySize(int64(u32(b, ndLive))) + lpIntEntrySize(int64(u32(b, ndDel))) + u32(b, ndLP)
}

// xentry is a decoded entry of a node.
type xentry struct {
	id     StreamID
	flags  byte
	nf     int
	fields int // offset of the first string
	end    int // offset after the entry
}

// ndMasterFields returns the offset of the first master field string and
// the count.
func ndMasterFields(b []byte) (off, n int) {
	c, w := binary.Uvarint(b[ndHdr:])
	return ndHdr + w, int(c)
}

// readEntry decodes the entry at off of node b with master ID m.
func readEntry(b []byte, off int, m StreamID) xentry {
	e := xentry{flags: b[off]}
	o := off + 1
	dms, w := binary.Uvarint(b[o:])
	o += w
	zs, w := binary.Uvarint(b[o:])
	o += w
	e.id = StreamID{m.Ms + dms, m.Seq + uint64(int64(zs>>1)^-int64(zs&1))}
	nstr := 0
	if e.flags&xSameFields != 0 {
		_, e.nf = ndMasterFields(b)
		nstr = e.nf
	} else {
		nf, w := binary.Uvarint(b[o:])
		o += w
		e.nf = int(nf)
		nstr = 2 * e.nf
	}
	e.fields = o
	for i := 0; i < nstr; i++ {
		n, w := binary.Uvarint(b[o:])
		o += w + int(n)
	}
	e.end = o
	return e
}

// entryFields fills fv with e's fields and values (aliasing b).
func entryFields(b []byte, e *xentry, fv [][]byte) [][]byte {
	fv = fv[:0]
	o := e.fields
	if e.flags&xSameFields != 0 {
		mo, _ := ndMasterFields(b)
		for i := 0; i < e.nf; i++ {
			var f, v []byte
			f, mo = readStr(b, mo)
			v, o = readStr(b, o)
			fv = append(fv, f, v)
		}
		return fv
	}
	for i := 0; i < 2*e.nf; i++ {
		var s []byte
		s, o = readStr(b, o)
		fv = append(fv, s)
	}
	return fv
}

// ---- Redis's listpack sizes (node boundaries) ----

func lpIntEntrySize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= -32768 && v <= 32767:
		return 4
	case v >= -8388608 && v <= 8388607:
		return 5
	case v >= -2147483648 && v <= 2147483647:
		return 6
	}
	return 10
}

// lpStrEntrySize is the size of the listpack entry lpAppend writes for s
// (an integer when s is a canonical int64).
func lpStrEntrySize(s []byte) int {
	if v, ok := num.ParseInt(s); ok {
		return lpIntEntrySize(v)
	}
	n := len(s)
	l := n + 1
	switch {
	case n >= 4096:
		l = n + 5
	case n >= 64:
		l = n + 2
	}
	switch {
	case l <= 127:
		return l + 1
	case l < 16383:
		return l + 2
	case l < 2097151:
		return l + 3
	case l < 268435455:
		return l + 4
	}
	return l + 5
}

// ---- appending ----

// streamNodeLimits returns stream-node-max-bytes and -entries as Redis
// applies them (0 bytes or too many: the listpack maximum).
func (s *Store) streamNodeLimits() (maxBytes, maxEntries int) {
	maxBytes = s.Limits.StreamNodeMaxBytes
	if maxBytes <= 0 || maxBytes > 1<<30 {
		maxBytes = 1 << 30
	}
	return maxBytes, s.Limits.StreamNodeMaxEntries
}

// appendEntry adds an entry with the given ID (larger than every ID in
// the stream) and fields/values, in a new node where Redis would start
// one.
func (st stream) appendEntry(id StreamID, fv [][]byte) {
	sl := st.db.s.slab
	ix := sl.Bytes(st.index())
	newNode := true
	if n := ixCount(ix); n > 0 {
		nb := sl.Bytes(ixNode(ix, n-1))
		tot := 0
		for _, s := range fv {
			tot += len(s)
		}
		maxBytes, maxEntries := st.db.s.streamNodeLimits()
		newNode = ndLPBytes(nb)+tot >= maxBytes || maxEntries > 0 && u32(nb, ndLive)+u32(nb, ndDel) >= maxEntries
	}
	st.appendTo(id, fv, newNode, nil, 0)
	st.setLast(id)
	st.setAdded(st.added() + 1)
}

// appendTo adds an entry (ID larger than every ID in the stream; flags
// xDeleted for a deleted one) to the last node, or (newNode, or no node
// yet) to a new node whose master fields are master (nil: the entry's
// fields). It keeps the length and, for the first live entry, the first
// ID; the last ID and the count of entries added are the caller's.
func (st stream) appendTo(id StreamID, fv [][]byte, newNode bool, master [][]byte, flags byte) {
	db := st.db
	sl := db.s.slab
	ix := sl.Bytes(st.index())
	n := ixCount(ix)
	node := slab.Nil
	var nb []byte
	if n > 0 {
		if newNode {
			st.shrinkNode(n - 1)
		} else {
			node = ixNode(ix, n-1)
			nb = sl.Bytes(node)
		}
	}
	t := db.s.tmp[:0]
	var m StreamID
	same := false
	lp := 0
	if node == slab.Nil {
		m = id
		if master == nil {
			same = true
			t = binary.AppendUvarint(t, uint64(len(fv)/2))
			for i := 0; i < len(fv); i += 2 {
				t = appendStr(t, fv[i])
				lp += lpStrEntrySize(fv[i])
			}
		} else {
			same = sameMaster(master, fv)
			t = binary.AppendUvarint(t, uint64(len(master)))
			for _, f := range master {
				t = appendStr(t, f)
				lp += lpStrEntrySize(f)
			}
		}
		lp += lpIntEntrySize(int64(uvarintAt(t))) + 2 // the field count, the master entry's 0
	} else {
		m = getID(nb, ndMaster)
		mo, mn := ndMasterFields(nb)
		if mn == len(fv)/2 {
			same = true
			for i := 0; i < mn && same; i++ {
				var f []byte
				f, mo = readStr(nb, mo)
				same = string(f) == string(fv[2*i])
			}
		}
	}
	start := len(t)
	if same {
		flags |= xSameFields
	}
	dms := id.Ms - m.Ms
	dseq := int64(id.Seq - m.Seq)
	t = append(t, flags)
	t = binary.AppendUvarint(t, dms)
	t = binary.AppendUvarint(t, zigzag(dseq))
	lp += 2 + lpIntEntrySize(int64(dms)) + lpIntEntrySize(dseq)
	lpCount := 3 + len(fv)/2
	if !same {
		t = binary.AppendUvarint(t, uint64(len(fv)/2))
		lp += lpIntEntrySize(int64(len(fv) / 2))
		lpCount += len(fv)/2 + 1
	}
	for i := 0; i < len(fv); i += 2 {
		if !same {
			t = appendStr(t, fv[i])
			lp += lpStrEntrySize(fv[i])
		}
		t = appendStr(t, fv[i+1])
		lp += lpStrEntrySize(fv[i+1])
	}
	lp += lpIntEntrySize(int64(lpCount))
	db.s.tmp = t
	live, del := 1, 0
	if flags&xDeleted != 0 {
		live, del = 0, 1
	}
	if node == slab.Nil {
		x := db.s.alloc(ndHdr + len(t))
		b := sl.Bytes(x)
		b[0] = 0
		putU32(b, ndUsed, len(t))
		putU32(b, ndLive, live)
		putU32(b, ndDel, del)
		putID(b, ndMaster, id)
		putU32(b, ndLP, lp)
		binary.LittleEndian.PutUint16(b[ndFirst:], uint16(ndHdr+start))
		copy(b[ndHdr:], t)
		st.ixAppend(id, x)
	} else {
		end := ndEnd(nb)
		if end+len(t) > len(nb) {
			grown := db.s.alloc(end + len(t) + (end+len(t))/2)
			gb := sl.Bytes(grown)
			copy(gb, nb[:end])
			sl.Free(node)
			setIxNode(sl.Bytes(st.index()), n-1, grown)
			nb = gb
		}
		copy(nb[end:], t)
		putU32(nb, ndUsed, u32(nb, ndUsed)+len(t))
		putU32(nb, ndLive, u32(nb, ndLive)+live)
		putU32(nb, ndDel, u32(nb, ndDel)+del)
		putU32(nb, ndLP, u32(nb, ndLP)+lp)
	}
	if live == 1 {
		if st.length() == 0 {
			st.setFirst(id)
		}
		st.setLength(st.length() + 1)
	}
}

// uvarintAt decodes the uvarint at the start of b.
func uvarintAt(b []byte) uint64 {
	v, _ := binary.Uvarint(b)
	return v
}

// sameMaster reports whether fv's fields are master's.
func sameMaster(master, fv [][]byte) bool {
	if len(master) != len(fv)/2 {
		return false
	}
	for i, f := range master {
		if string(f) != string(fv[2*i]) {
			return false
		}
	}
	return true
}

// shrinkNode moves node i into a block of the size its bytes need.
func (st stream) shrinkNode(i int) {
	sl := st.db.s.slab
	ix := sl.Bytes(st.index())
	h := ixNode(ix, i)
	b := sl.Bytes(h)
	end := ndEnd(b)
	if slab.Class(end) == slab.HandleClass(h) && (slab.HandleClass(h) != slab.LargeClass || len(b)-end < 4096) {
		return
	}
	nx := st.db.s.alloc(end)
	copy(sl.Bytes(nx), b[:end])
	sl.Free(h)
	setIxNode(sl.Bytes(st.index()), i, nx)
}

// ---- iteration ----

// each walks the entries with start <= ID <= end, deleted ones too when
// tombs is set, forward or (rev) backward, calling fn with the node's
// position, its bytes and the entry until fn returns false. fn may flag
// the entry deleted in place but must not otherwise change the stream.
func (st stream) each(start, end StreamID, rev, tombs bool, fn func(ni int, b []byte, e xentry) bool) {
	if end.Less(start) {
		return
	}
	db := st.db
	sl := db.s.slab
	ixh := st.index()
	ix := sl.Bytes(ixh)
	if !rev {
		st.eachFrom(max(ixFind(ix, start), 0), -1, start, end, tombs, fn)
		return
	}
	for i := ixFind(ix, end); i >= 0; i-- {
		ix = sl.Bytes(ixh)
		b := sl.Bytes(ixNode(ix, i))
		m := getID(b, ndMaster)
		offs := db.s.offs[:0]
		for o, stop := ndEntries(b), ndEnd(b); o < stop; {
			offs = append(offs, o)
			o = readEntry(b, o, m).end
		}
		db.s.offs = offs
		for k := len(offs) - 1; k >= 0; k-- {
			e := readEntry(b, db.s.offs[k], m)
			if end.Less(e.id) || !tombs && e.flags&xDeleted != 0 {
				continue
			}
			if e.id.Less(start) || !fn(i, b, e) {
				return
			}
		}
	}
}

// eachFrom is each forward from node i, at offset off of that node (an
// entry's start; -1: the node's first entry), on.
func (st stream) eachFrom(i, off int, start, end StreamID, tombs bool, fn func(ni int, b []byte, e xentry) bool) {
	sl := st.db.s.slab
	ixh := st.index()
	for n := ixCount(sl.Bytes(ixh)); i < n; i++ {
		b := sl.Bytes(ixNode(sl.Bytes(ixh), i))
		m := getID(b, ndMaster)
		if end.Less(m) {
			return
		}
		o := ndEntries(b)
		if off >= 0 {
			o, off = off, -1
		}
		for stop := ndEnd(b); o < stop; {
			e := readEntry(b, o, m)
			o = e.end
			if e.id.Less(start) || !tombs && e.flags&xDeleted != 0 {
				continue
			}
			if end.Less(e.id) || !fn(i, b, e) {
				return
			}
		}
	}
}

// edge returns the first (or last) entry's ID, deleted entries counted
// when tombs is set; ok is false when there is none.
func (st stream) edge(first, tombs bool) (id StreamID, ok bool) {
	st.each(StreamID{}, MaxStreamID, !first, tombs, func(_ int, _ []byte, e xentry) bool {
		id, ok = e.id, true
		return false
	})
	return id, ok
}

// edgeOrMax is Redis's streamGetEdgeID: as edge, but an empty stream's
// first edge is the largest ID and its last 0-0.
func (st stream) edgeOrMax(first, tombs bool) StreamID {
	if id, ok := st.edge(first, tombs); ok {
		return id
	}
	if first {
		return MaxStreamID
	}
	return StreamID{}
}

// ---- deleting ----

// deleteAt flags the live entry at offset off of node ni (bytes b)
// deleted, and frees the node when it was its last live entry.
func (st stream) deleteAt(ni int, b []byte, off int) {
	st.setLength(st.length() - 1)
	if u32(b, ndLive) == 1 {
		st.db.s.slab.Free(ixNode(st.db.s.slab.Bytes(st.index()), ni))
		st.ixRemove(ni)
		return
	}
	b[off] |= xDeleted
	putU32(b, ndLive, u32(b, ndLive)-1)
	putU32(b, ndDel, u32(b, ndDel)+1)
}

// deleteID deletes the live entry id; false when there is none.
func (st stream) deleteID(id StreamID) bool {
	sl := st.db.s.slab
	ix := sl.Bytes(st.index())
	ni := ixFind(ix, id)
	if ni < 0 {
		return false
	}
	b := sl.Bytes(ixNode(ix, ni))
	m := getID(b, ndMaster)
	for o, stop := ndEntries(b), ndEnd(b); o < stop; {
		e := readEntry(b, o, m)
		switch c := e.id.Cmp(id); {
		case c > 0:
			return false
		case c == 0:
			if e.flags&xDeleted != 0 {
				return false
			}
			st.deleteAt(ni, b, o)
			return true
		}
		o = e.end
	}
	return false
}

// XTrimStrategy is how XTRIM and XADD's trimming option pick entries.
type XTrimStrategy uint8

// Trimming strategies.
const (
	XTrimNone XTrimStrategy = iota
	XTrimMaxLen
	XTrimMinID
)

// XTrimArgs is a trimming request (Redis's streamAddTrimArgs).
type XTrimArgs struct {
	Strategy XTrimStrategy
	MaxLen   int64    // XTrimMaxLen: entries to keep
	MinID    StreamID // XTrimMinID: the smallest ID to keep
	Approx   bool     // ~: whole nodes only
	// Limit bounds the entries removed (0: no bound); the command sets
	// Redis's default for ~ (100 * stream-node-max-entries).
	Limit int64
}

// trim is Redis's streamTrim: whole nodes from the start while they can
// go, then (unless approximate) single entries of the next node. It
// returns the entries removed.
func (st stream) trim(a *XTrimArgs) int64 {
	if a.Strategy == XTrimNone {
		return 0
	}
	sl := st.db.s.slab
	var deleted int64
	for {
		ix := sl.Bytes(st.index())
		if ixCount(ix) == 0 {
			break
		}
		if a.Strategy == XTrimMaxLen && st.length() <= uint64(a.MaxLen) {
			break
		}
		h := ixNode(ix, 0)
		b := sl.Bytes(h)
		entries := int64(u32(b, ndLive))
		if a.Limit > 0 && deleted+entries > a.Limit {
			break
		}
		m := getID(b, ndMaster)
		var remove bool
		if a.Strategy == XTrimMaxLen {
			remove = int64(st.length())-entries >= a.MaxLen
		} else {
			var last xentry
			for o, stop := ndEntries(b), ndEnd(b); o < stop; o = last.end {
				last = readEntry(b, o, m)
			}
			remove = last.id.Less(a.MinID)
		}
		if remove {
			sl.Free(h)
			st.ixRemove(0)
			st.setLength(st.length() - uint64(entries))
			deleted += entries
			continue
		}
		if a.Approx {
			break
		}
		for o, stop := ndEntries(b), ndEnd(b); o < stop; {
			e := readEntry(b, o, m)
			if a.Strategy == XTrimMaxLen && st.length() <= uint64(a.MaxLen) ||
				a.Strategy == XTrimMinID && !e.id.Less(a.MinID) {
				break
			}
			if e.flags&xDeleted == 0 {
				b[o] |= xDeleted
				putU32(b, ndLive, u32(b, ndLive)-1)
				putU32(b, ndDel, u32(b, ndDel)+1)
				st.setLength(st.length() - 1)
				deleted++
			}
			o = e.end
		}
		break
	}
	if deleted > 0 {
		first, _ := st.edge(true, false) // 0-0 when empty, as Redis 7.0.15
		st.setFirst(first)
	}
	return deleted
}

// ---- the key API ----

// openStream opens key as a stream: absent (ok false) or ErrWrongType.
func (db *DB) openStream(key []byte, now int64) (stream, bool, error) {
	o, err := db.getObj(key, TypeStream, now)
	if err != nil || !o.exists() {
		return stream{}, false, err
	}
	return stream{db, o.x}, true, nil
}

// XAddID is the ID argument of XADD.
type XAddID struct {
	Auto    bool     // "*": the time, or the last ID's successor
	ID      StreamID // explicit, or (SeqAuto) only its Ms
	SeqAuto bool     // "ms-*": the sequence is chosen
}

// XAddResult is what XADD did.
type XAddResult struct {
	ID      StreamID // the new entry's ID
	Trimmed int64    // entries trimmed
}

// XAdd appends an entry (fv: field, value, ...; at least one pair) to the
// stream at key, creating it unless noMkStream (ok false: absent, nothing
// done), then trims it by trim when set. now picks the ID of "*".
func (db *DB) XAdd(key []byte, id XAddID, fv [][]byte, noMkStream bool, trim *XTrimArgs, now int64) (res XAddResult, ok bool, err error) {
	st, found, err := db.openStream(key, now)
	if err != nil {
		return res, false, err
	}
	if !found && noMkStream {
		return res, false, nil
	}
	var last StreamID
	if found {
		last = st.lastID()
		if last == MaxStreamID {
			return res, false, ErrStreamExhausted
		}
	}
	var nid StreamID
	switch {
	case id.Auto:
		if uint64(now) > last.Ms {
			nid = StreamID{uint64(now), 0}
		} else {
			nid, _ = last.Next()
		}
	case id.SeqAuto:
		nid = StreamID{id.ID.Ms, 0}
		if id.ID.Ms == last.Ms {
			if last.Seq == math.MaxUint64 {
				return res, false, ErrXAddSeqOverflow
			}
			nid.Seq = last.Seq + 1
		}
	default:
		nid = id.ID
	}
	if !last.Less(nid) {
		return res, false, ErrXAddIDSmall
	}
	if !found {
		st = db.newStream()
		db.newObj(key, TypeStream, encStream, st.x)
	}
	st.appendEntry(nid, fv)
	db.changed(key, 1)
	res.ID = nid
	if trim != nil {
		res.Trimmed = st.trim(trim)
		db.changed(key, uint64(res.Trimmed))
	}
	return res, true, nil
}

// XTrim trims the stream at key; it returns the entries removed.
func (db *DB) XTrim(key []byte, a *XTrimArgs, now int64) (int64, error) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found {
		return 0, err
	}
	trimmed := st.trim(a)
	db.changed(key, uint64(trimmed))
	return trimmed, nil
}

// XLen returns the stream's length (0 when absent).
func (db *DB) XLen(key []byte, now int64) (uint64, error) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found {
		return 0, err
	}
	return st.length(), nil
}

// XRange calls fn for the entries with start <= ID <= end, oldest first
// (rev: newest first), at most count of them (count <= 0: all), until fn
// returns false. found is false when the key is absent. fv holds field,
// value, ...; it and its bytes are valid during the call, and fn must not
// call the Store.
func (db *DB) XRange(key []byte, start, end StreamID, count int, rev bool, now int64,
	fn func(id StreamID, fv [][]byte) bool) (found bool, err error) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found {
		return false, err
	}
	st.rangeEach(start, end, count, rev, fn)
	return true, nil
}

func (st stream) rangeEach(start, end StreamID, count int, rev bool, fn func(id StreamID, fv [][]byte) bool) int {
	n := 0
	s := st.db.s
	st.each(start, end, rev, false, func(_ int, b []byte, e xentry) bool {
		s.fv = entryFields(b, &e, s.fv)
		n++
		return fn(e.id, s.fv) && (count <= 0 || n < count)
	})
	return n
}

// XDel deletes the entries with the IDs id(0) ... id(n-1) and returns how
// many existed. The stream stays (empty) when its last entry goes, as in
// Redis.
func (db *DB) XDel(key []byte, count int, id func(i int) StreamID, now int64) (int, error) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found {
		return 0, err
	}
	n := 0
	firstGone := false
	for i := 0; i < count; i++ {
		id := id(i)
		if !st.deleteID(id) {
			continue
		}
		n++
		firstGone = firstGone || id == st.firstID()
		if st.maxDeleted().Less(id) {
			st.setMaxDel(id)
		}
	}
	if n > 0 {
		switch {
		case st.length() == 0:
			st.setFirst(StreamID{})
		case firstGone:
			st.setFirst(st.edgeOrMax(true, false))
		}
	}
	db.changed(key, uint64(n))
	return n, nil
}

// XSetID errors, with Redis's text.
var (
	ErrXSetIDSmall    = errors.New("ERR The ID specified in XSETID is smaller than the target stream top item")
	ErrXSetIDAdded    = errors.New("ERR The entries_added specified in XSETID is smaller than the target stream length")
	ErrXSetIDNoStream = errors.New("ERR no such key")
)

// XSetID sets the stream's last ID and, when given (entriesAdded >= 0,
// maxDeleted non-zero), its entries-added count and largest deleted ID, as
// XSETID does in Redis 7.0 (which does not compare id with the stream's
// largest deleted ID).
func (db *DB) XSetID(key []byte, id StreamID, entriesAdded int64, maxDeleted StreamID, now int64) error {
	st, found, err := db.openStream(key, now)
	if err != nil {
		return err
	}
	if !found {
		return ErrXSetIDNoStream
	}
	if st.length() > 0 {
		if last, _ := st.edge(false, false); id.Less(last) {
			return ErrXSetIDSmall
		}
		if entriesAdded >= 0 && st.length() > uint64(entriesAdded) {
			return ErrXSetIDAdded
		}
	}
	st.setLast(id)
	if entriesAdded >= 0 {
		st.setAdded(uint64(entriesAdded))
	}
	if !maxDeleted.IsZero() {
		st.setMaxDel(maxDeleted)
	}
	db.changed(key, 1)
	return nil
}

// StreamInfo is a stream's metadata (XINFO STREAM).
type StreamInfo struct {
	Length       uint64
	Nodes        int
	LastID       StreamID
	FirstID      StreamID // Redis's recorded first_id
	MaxDeletedID StreamID
	EntriesAdded uint64
	// Edge is the first entry's ID, deleted entries counted (the largest
	// ID when empty): the MINID an approximate trim is propagated with.
	Edge StreamID
	// LastLive is the last live entry's ID (0-0 when empty).
	LastLive StreamID
	// RaxNodes is the node count of the radix tree Redis would keep the
	// nodes in (XINFO's radix-tree-nodes).
	RaxNodes int
}

// XInfo returns the stream's metadata; found is false when absent.
func (db *DB) XInfo(key []byte, now int64) (StreamInfo, bool, error) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found {
		return StreamInfo{}, false, err
	}
	return st.info(), true, nil
}

// XLast returns what XREAD reads of the stream at key, its length, last
// ID and last live entry's ID, in a StreamInfo whose other fields are
// zero: without XInfo's walks of the whole index (RaxNodes, Nodes) and of
// the first node (Edge).
func (db *DB) XLast(key []byte, now int64) (StreamInfo, bool, error) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found {
		return StreamInfo{}, false, err
	}
	info := StreamInfo{Length: st.length(), LastID: st.lastID()}
	if info.Length > 0 {
		info.LastLive = st.edgeOrMax(false, false)
	}
	return info, true, nil
}

func (st stream) info() StreamInfo {
	return StreamInfo{
		Length: st.length(), Nodes: ixCount(st.db.s.slab.Bytes(st.index())),
		LastID: st.lastID(), FirstID: st.firstID(), MaxDeletedID: st.maxDeleted(),
		EntriesAdded: st.added(), Edge: st.edgeOrMax(true, true), LastLive: st.edgeOrMax(false, false),
		RaxNodes: raxNodes(st.db.s.slab.Bytes(st.index())),
	}
}

// raxNodes counts the nodes of Redis's rax holding the index's master IDs
// as 16-byte big-endian keys: where all the keys below a node share bytes,
// one compressed node holds them; where they part, a branching node; each
// key ends in a node of its own; an empty tree is its root.
func raxNodes(ix []byte) int {
	n := ixCount(ix)
	if n == 0 {
		return 1
	}
	key := func(i, d int) byte {
		id := ixKey(ix, i)
		if d < 8 {
			return byte(id.Ms >> (56 - 8*d))
		}
		return byte(id.Seq >> (56 - 8*(d-8)))
	}
	var count func(lo, hi, d int) int
	branch := func(lo, hi, d int) int {
		nodes := 1
		for i := lo; i < hi; {
			j := i + 1
			for j < hi && key(j, d) == key(i, d) {
				j++
			}
			nodes += count(i, j, d+1)
			i = j
		}
		return nodes
	}
	count = func(lo, hi, d int) int {
		if hi-lo == 1 {
			if d == 16 {
				return 1
			}
			return 2
		}
		l := d
		for l < 16 && key(lo, l) == key(hi-1, l) {
			l++
		}
		if l > d {
			return 1 + branch(lo, hi, l)
		}
		return branch(lo, hi, d)
	}
	return count(0, n, 0)
}

// ---- Record ----
//
// A stream's Record keeps its nodes as they are, deleted entries
// included, so that a copy (COPY, RESTORE, a snapshot) splits and trims as
// the original: the last ID, the first ID, the largest deleted ID (ms and
// seq as uvarints each), the entries-added count, the live entry count,
// the node count; per node its master fields (a uvarint count, then
// serialized strings) and its entry count, then each entry: a flags byte
// (1: deleted), its ID, a uvarint field count and field, value as
// serialized strings.

func appendIDVarint(dst []byte, id StreamID) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(dst, id.Ms), id.Seq)
}

func streamExport(db *DB, _ int, x slab.Handle, dst []byte) []byte {
	st := stream{db, x}
	dst = appendIDVarint(dst, st.lastID())
	dst = appendIDVarint(dst, st.firstID())
	dst = appendIDVarint(dst, st.maxDeleted())
	dst = binary.AppendUvarint(dst, st.added())
	dst = binary.AppendUvarint(dst, st.length())
	sl := db.s.slab
	ix := sl.Bytes(st.index())
	dst = binary.AppendUvarint(dst, uint64(ixCount(ix)))
	for i := 0; i < ixCount(ix); i++ {
		b := sl.Bytes(ixNode(ix, i))
		mo, mn := ndMasterFields(b)
		dst = binary.AppendUvarint(dst, uint64(mn))
		for j := 0; j < mn; j++ {
			var f []byte
			f, mo = readStr(b, mo)
			dst = appendStr(dst, f)
		}
		dst = binary.AppendUvarint(dst, uint64(u32(b, ndLive)+u32(b, ndDel)))
		m := getID(b, ndMaster)
		for o := ndEntries(b); o < ndEnd(b); {
			e := readEntry(b, o, m)
			dst = append(dst, e.flags&xDeleted)
			dst = appendIDVarint(dst, e.id)
			dst = binary.AppendUvarint(dst, uint64(e.nf))
			db.s.fv = entryFields(b, &e, db.s.fv)
			for _, f := range db.s.fv {
				dst = appendStr(dst, f)
			}
			o = e.end
		}
	}
	return appendGroups(dst, st.groups())
}

// recReader reads a Record's uvarints and strings; a malformed record
// sets bad.
type recReader struct {
	b   []byte
	off int
	bad bool
}

func (r *recReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, w := binary.Uvarint(r.b[r.off:])
	if w <= 0 {
		r.bad = true
		return 0
	}
	r.off += w
	return v
}

func (r *recReader) id() StreamID {
	ms := r.uvarint()
	return StreamID{ms, r.uvarint()}
}

func (r *recReader) str() []byte {
	if r.bad {
		return nil
	}
	s, next := readStr(r.b, r.off)
	if next < 0 {
		r.bad = true
		return nil
	}
	r.off = next
	return s
}

// count reads a count of items of at least min bytes each.
func (r *recReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)-r.off)/uint64(min) {
		r.bad = true
		return 0
	}
	return int(n)
}

func streamLoad(db *DB, data []byte) (int, slab.Handle, bool) {
	sr, ok := OpenStreamRecord(data)
	st := db.newStream()
	var prev StreamID
	seen := false
	for ok {
		master, n, more := sr.NextNode()
		if !more {
			ok = sr.nodes == 0 && !sr.r.bad && (sr.r.off == len(data) || st.loadGroups(&sr.r))
			break
		}
		for k := 0; k < n && ok; k++ {
			id, deleted, fv, valid := sr.NextEntry()
			if !valid || len(fv) == 0 || seen && !prev.Less(id) || sr.Last.Less(id) {
				ok = false
				break
			}
			flags := byte(0)
			if deleted {
				flags = xDeleted
			}
			st.appendTo(id, fv, k == 0, master, flags)
			prev, seen = id, true
		}
		ok = ok && n > 0
	}
	if !ok || st.length() != uint64(sr.Len) {
		streamFree(db, encStream, st.x)
		return 0, slab.Nil, false
	}
	st.setLast(sr.Last)
	st.setFirst(sr.First)
	st.setMaxDel(sr.MaxDeleted)
	st.setAdded(sr.EntriesAdded)
	return encStream, st.x, true
}

// StreamRecord reads a stream's Record (Export's serialization).
type StreamRecord struct {
	Last, First, MaxDeleted StreamID
	EntriesAdded            uint64
	Len                     int // live entries
	Nodes                   int

	r        recReader
	nodes    int // nodes not yet started
	left     int // entries left in the current node
	fv, mfv  [][]byte
	anyNodes bool
}

// OpenStreamRecord starts reading a stream record; false when its
// header is malformed.
func OpenStreamRecord(data []byte) (StreamRecord, bool) {
	s := StreamRecord{r: recReader{b: data}}
	s.Last, s.First, s.MaxDeleted = s.r.id(), s.r.id(), s.r.id()
	s.EntriesAdded = s.r.uvarint()
	s.Len = s.r.count(1)
	s.Nodes = s.r.count(2)
	s.nodes = s.Nodes
	return s, !s.r.bad
}

// NextNode starts the next node (the entries of the current one not read
// are skipped): its master fields (valid until the next NextNode,
// aliasing the record) and its entry count; false after the last or on
// malformed data.
func (s *StreamRecord) NextNode() (master [][]byte, entries int, ok bool) {
	for s.left > 0 && !s.r.bad {
		s.NextEntry()
	}
	if s.nodes == 0 || s.r.bad {
		return nil, 0, false
	}
	s.nodes--
	nm := s.r.count(1)
	s.mfv = s.mfv[:0]
	for range nm {
		s.mfv = append(s.mfv, s.r.str())
	}
	s.left = s.r.count(4)
	return s.mfv, s.left, !s.r.bad
}

// NextEntry returns the current node's next entry, deleted or not (fv:
// field, value, ...; valid until the next call, aliasing the record);
// false at the node's end or on malformed data.
func (s *StreamRecord) NextEntry() (id StreamID, deleted bool, fv [][]byte, ok bool) {
	if s.left == 0 || s.r.bad || s.r.off >= len(s.r.b) {
		s.r.bad = s.r.bad || s.left > 0
		return id, false, nil, false
	}
	s.left--
	flags := s.r.b[s.r.off]
	s.r.off++
	id = s.r.id()
	nf := s.r.count(2)
	s.fv = s.fv[:0]
	for range 2 * nf {
		s.fv = append(s.fv, s.r.str())
	}
	return id, flags&xDeleted != 0, s.fv, !s.r.bad && flags&^xDeleted == 0
}

// Next returns the next live entry, across nodes; false after the last
// or on malformed data.
func (s *StreamRecord) Next() (id StreamID, fv [][]byte, ok bool) {
	for {
		if s.left == 0 {
			if _, _, more := s.NextNode(); !more {
				return id, nil, false
			}
			continue
		}
		id, deleted, fv, ok := s.NextEntry()
		if !ok {
			return id, nil, false
		}
		if !deleted {
			return id, fv, true
		}
	}
}

// StreamRecordBuilder writes a stream's Record node by node (the RDB
// loader's side of StreamRecord). Its checks are the loader's; the
// engine refuses a record whose entries are out of order or whose groups
// do not hold together.
type StreamRecordBuilder struct {
	body  []byte
	nodes int
	live  int
	// Groups are the stream's consumer groups, written after the nodes.
	Groups []GroupRecord
}

// Node starts a node of the given entries with these master fields.
func (b *StreamRecordBuilder) Node(master [][]byte, entries int) {
	b.nodes++
	b.body = binary.AppendUvarint(b.body, uint64(len(master)))
	for _, f := range master {
		b.body = appendStr(b.body, f)
	}
	b.body = binary.AppendUvarint(b.body, uint64(entries))
}

// Entry appends an entry to the node begun last (fv: field, value, ...;
// copied).
func (b *StreamRecordBuilder) Entry(id StreamID, deleted bool, fv [][]byte) {
	flags := byte(0)
	if deleted {
		flags = xDeleted
	} else {
		b.live++
	}
	b.body = append(b.body, flags)
	b.body = appendIDVarint(b.body, id)
	b.body = binary.AppendUvarint(b.body, uint64(len(fv)/2))
	for _, s := range fv {
		b.body = appendStr(b.body, s)
	}
}

// Record returns the stream's Record.
func (b *StreamRecordBuilder) Record(last, first, maxDeleted StreamID, entriesAdded uint64) Record {
	d := appendIDVarint(nil, last)
	d = appendIDVarint(d, first)
	d = appendIDVarint(d, maxDeleted)
	d = binary.AppendUvarint(d, entriesAdded)
	d = binary.AppendUvarint(d, uint64(b.live))
	d = binary.AppendUvarint(d, uint64(b.nodes))
	return Record{Type: TypeStream, Data: appendGroupRecords(append(d, b.body...), b.Groups)}
}

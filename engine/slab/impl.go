package slab

import (
	"math/bits"
	"unsafe"
)

// decoder is what Bytes and Pointer need of a class, packed so that the
// decoders of all classes fill a few cache lines: page p = slot*magic>>msh
// (slot / spp, exact for every slot < MaxSlots), block address =
// pages[p] + (slot - p*spp)*size. LargeClass has spp 1 and size 0.
type decoder struct {
	pages unsafe.Pointer // &class.pages[0], nil while the class has none
	size  uintptr
	magic uint64
	msh   uint32
	spp   uint32
}

// class is one size class: its pages, its slot sets and its counters.
type class struct {
	size  uintptr // block size; 0 for LargeClass and for class 0
	spp   uint32  // slots per page (1 for LargeClass)
	msh   uint32  // page(i) = i*magic >> msh == i/spp
	magic uint64
	hdr   uintptr // bytes of the generation header before a page's blocks
	span  uintptr // bytes mapped per page: hdr + chunk

	// pages[p] is the address of the first block of page p (a multiple of
	// chunk), or nil while the page is not mapped (never yet, or released).
	// For LargeClass, page p is the single block of slot p.
	pages []unsafe.Pointer
	used  []int32 // live blocks per page (not for LargeClass)
	huge  []bool  // page p was handed to the OS for huge pages (see alloc)
	slots uint32  // slots covered by pages and bitmaps

	free hbits // slots that exist and are free
	occ  hbits // live slots
	tag  hbits // live tagged slots

	spare int // index of the one empty page kept mapped, -1 if none

	// LargeClass only, per slot: mapping length and generation (kept on the
	// heap so that unmapping a block keeps its generation).
	lsize []uintptr
	lgen  []uint16

	live, tagged int
	pagesMapped  int
	mapped       int64
	inUse        int64
}

// impl holds the Slab's state; Slab embeds it so that slab.go shows the API.
type impl struct {
	dec        [1 << ClassBits]decoder // indexed by h >> classShift: no bounds check
	cls        [1 << ClassBits]class
	live       int
	liveTagged int
	inUse      int64
	mapped     int64
	epoch      uint64 // Free and Reset count here (Epoch)
	seed       uint16 // first generation of the next generation storage created
}

func newSlab() *Slab {
	s := &Slab{}
	s.seed = 1
	s.initClasses()
	return s
}

func (s *Slab) initClasses() {
	for ci := 1; ci < numClasses; ci++ {
		c := &s.cls[ci]
		*c = class{spare: -1, spp: 1}
		if ci != LargeClass {
			size := classSizes[ci]
			c.size = uintptr(size)
			c.spp = uint32(chunk / size)
			c.hdr = uintptr(roundUp(int(c.spp)*2, osPage))
			c.span = c.hdr + chunk
		}
		c.magic, c.msh = divMagic(c.spp)
		s.dec[ci] = decoder{size: c.size, magic: c.magic, msh: c.msh, spp: c.spp}
	}
}

// divMagic returns m, sh such that n*m>>sh == n/d for every n < MaxSlots
// (round-up reciprocal: m = ceil(2^(SlotBits+l) / d), l = ceil(log2 d)).
func divMagic(d uint32) (uint64, uint32) {
	l := uint32(bits.Len32(d - 1))
	sh := SlotBits + l
	return (uint64(1)<<sh + uint64(d) - 1) / uint64(d), sh
}

// page returns the page of slot i.
func (c *class) page(i uint32) uint32 { return uint32(uint64(i) * c.magic >> c.msh) }

// nextSeed returns the first generation for new generation storage: a
// value far from the previous ones so that a Ref from before a page was
// released is unlikely to match the fresh slots.
func (s *Slab) nextSeed() uint16 {
	g := s.seed
	s.seed += 0x9e3b // odd: cycles through all 65536 values
	return g
}

// genp returns the address of slot i's generation. Slot i must be in a
// mapped page (or in LargeClass).
func (c *class) genp(i uint32) *uint16 {
	if c.size == 0 {
		return &c.lgen[i]
	}
	p := c.page(i)
	return (*uint16)(unsafe.Add(c.pages[p], -int(c.hdr)+2*int(i-p*c.spp)))
}

func (s *Slab) alloc(size int) Handle {
	ci := classOf(size)
	c := &s.cls[ci]
	if ci == LargeClass {
		return s.allocLarge(c, size)
	}
	i, ok := c.free.first()
	if !ok {
		if !s.growClass(c) {
			return Nil
		}
		i, _ = c.free.first()
	}
	p := c.page(i)
	if c.pages[p] == nil && !s.mapPage(c, p) {
		return Nil
	}
	if c.used[p] == 0 && c.spare == int(p) {
		c.spare = -1
	}
	c.used[p]++
	if uint32(c.used[p]) == c.spp && !c.huge[p] {
		c.huge[p] = true
		osHuge(c.pages[p], chunk)
	}
	return s.take(c, ci, i)
}

// take marks slot i of class ci live and returns its handle.
func (s *Slab) take(c *class, ci int, i uint32) Handle {
	c.free.clear(i)
	c.occ.set(i)
	c.live++
	s.live++
	n := int64(c.size)
	if c.size == 0 {
		n = int64(c.lsize[i])
	}
	c.inUse += n
	s.inUse += n
	g := uint32(*c.genp(i)) & (1<<GenBits - 1)
	return Handle(uint32(ci)<<classShift | g<<genShift | i)
}

// growClass appends one page worth of free, unmapped slots to c (the last
// page of a class may hold fewer than spp slots: slots stay < MaxSlots).
func (s *Slab) growClass(c *class) bool {
	lo := c.slots
	if lo >= MaxSlots {
		return false
	}
	hi := min(lo+c.spp, MaxSlots)
	if c.size == 0 {
		hi = lo + 64 // LargeClass grows its slot table 64 slots at a time
		for range hi - lo {
			c.pages = append(c.pages, nil)
		}
	} else {
		c.pages = append(c.pages, nil)
		c.used = append(c.used, 0)
		c.huge = append(c.huge, false)
	}
	s.dec[s.classIndex(c)].pages = unsafe.Pointer(unsafe.SliceData(c.pages))
	if c.size == 0 {
		seed := s.nextSeed()
		for range hi - lo {
			c.lsize = append(c.lsize, 0)
			c.lgen = append(c.lgen, seed)
		}
	}
	c.slots = hi
	c.free.grow(int(hi))
	c.occ.grow(int(hi))
	c.tag.grow(int(hi))
	c.free.setRange(lo, hi)
	return true
}

// classIndex returns the number of class c.
func (s *Slab) classIndex(c *class) int {
	return int((uintptr(unsafe.Pointer(c)) - uintptr(unsafe.Pointer(&s.cls[0]))) / unsafe.Sizeof(class{}))
}

// mapPage maps page p of c and seeds its generations.
func (s *Slab) mapPage(c *class, p uint32) bool {
	m, err := osMapAligned(c.hdr, chunk)
	if err != nil {
		return false
	}
	// A class this large gets its next page as one huge page at the first
	// touch rather than 512 small ones copied into one when it fills (see
	// doc.go, Huge pages).
	c.huge[p] = c.pagesMapped >= hugeAfter
	if c.huge[p] {
		osAdviseHuge(m, c.span)
	}
	gens := unsafe.Slice((*uint16)(m), c.spp)
	seed := s.nextSeed()
	for k := range gens {
		gens[k] = seed
	}
	c.pages[p] = unsafe.Add(m, c.hdr)
	c.pagesMapped++
	c.mapped += int64(c.span)
	s.mapped += int64(c.span)
	return true
}

// releasePage unmaps the empty page p of c; its slots stay free.
func (s *Slab) releasePage(c *class, p uint32) {
	osUnmap(unsafe.Add(c.pages[p], -int(c.hdr)), c.span)
	c.pages[p] = nil
	c.pagesMapped--
	c.mapped -= int64(c.span)
	s.mapped -= int64(c.span)
}

func (s *Slab) allocLarge(c *class, size int) Handle {
	i, ok := c.free.first()
	if !ok {
		if !s.growClass(c) {
			return Nil
		}
		i, _ = c.free.first()
	}
	n := uintptr(roundUp(max(size, 1), osPage))
	m, err := osMap(n)
	if err != nil {
		return Nil
	}
	c.pages[i] = m
	c.lsize[i] = n
	c.pagesMapped++
	c.mapped += int64(n)
	s.mapped += int64(n)
	return s.take(c, LargeClass, i)
}

func (s *Slab) allocZeroed(size int) Handle {
	h := s.alloc(size)
	if h != Nil {
		clear(s.bytes(h))
	}
	return h
}

func (s *Slab) free(h Handle) {
	if !s.valid(h) {
		panic("slab: Free of a handle that is not live")
	}
	s.epoch++
	ci := h >> classShift
	c := &s.cls[ci]
	i := uint32(h) & slotMask
	*c.genp(i)++
	if c.tag.has(i) {
		c.tag.clear(i)
		c.tagged--
		s.liveTagged--
	}
	c.occ.clear(i)
	c.free.set(i)
	c.live--
	s.live--
	if c.size == 0 {
		n := c.lsize[i]
		c.inUse -= int64(n)
		s.inUse -= int64(n)
		osUnmap(c.pages[i], n)
		c.pages[i] = nil
		c.lsize[i] = 0
		c.pagesMapped--
		c.mapped -= int64(n)
		s.mapped -= int64(n)
		return
	}
	c.inUse -= int64(c.size)
	s.inUse -= int64(c.size)
	p := c.page(i)
	c.used[p]--
	if c.used[p] != 0 {
		return
	}
	// Keep one empty page per class so that alloc/free around a page
	// boundary does not map and unmap each time; release the higher one
	// because allocation fills the lowest free slots first.
	if c.spare < 0 {
		c.spare = int(p)
		return
	}
	lo, hi := min(c.spare, int(p)), max(c.spare, int(p))
	s.releasePage(c, uint32(hi))
	c.spare = lo
}

func (s *Slab) bytes(h Handle) []byte {
	c := &s.cls[h>>classShift]
	i := uint32(h) & slotMask
	if c.size == 0 {
		return s.largeBytes(c, i)
	}
	return unsafe.Slice((*byte)(s.pointer(h)), c.size)
}

// pointer decodes h without a branch: LargeClass has spp 1 and size 0.
func (s *Slab) pointer(h Handle) unsafe.Pointer {
	d := &s.dec[h>>classShift]
	i := uint64(h) & slotMask
	p := i * d.magic >> d.msh
	base := *(*unsafe.Pointer)(unsafe.Add(d.pages, uintptr(p)*ptrSize))
	return unsafe.Add(base, uintptr(i-p*uint64(d.spp))*d.size)
}

const ptrSize = unsafe.Sizeof(unsafe.Pointer(nil))

func (s *Slab) largeBytes(c *class, i uint32) []byte {
	return unsafe.Slice((*byte)(c.pages[i]), c.lsize[i])
}

func (s *Slab) lookup(h Handle) ([]byte, bool) {
	if !s.valid(h) {
		return nil, false
	}
	return s.bytes(h), true
}

func (s *Slab) valid(h Handle) bool {
	ci := h >> classShift
	if ci == 0 || ci >= numClasses {
		return false
	}
	c := &s.cls[ci]
	i := uint32(h) & slotMask
	if i >= c.slots || !c.occ.has(i) {
		return false
	}
	return uint32(*c.genp(i))&(1<<GenBits-1) == uint32(h)>>genShift&(1<<GenBits-1)
}

func (s *Slab) blockSize(h Handle) int {
	c := &s.cls[h>>classShift]
	if c.size == 0 {
		return int(c.lsize[uint32(h)&slotMask])
	}
	return int(c.size)
}

func (s *Slab) ref(h Handle) Ref {
	if !s.valid(h) {
		panic("slab: Ref of a handle that is not live")
	}
	c := &s.cls[h>>classShift]
	return Ref(uint64(*c.genp(uint32(h) & slotMask))<<32 | uint64(h))
}

func (s *Slab) resolve(r Ref) (Handle, bool) {
	h := Handle(r)
	if !s.valid(h) {
		return Nil, false
	}
	c := &s.cls[h>>classShift]
	if uint64(*c.genp(uint32(h) & slotMask)) != uint64(r)>>32 {
		return Nil, false
	}
	return h, true
}

func (s *Slab) tag(h Handle) {
	if !s.valid(h) {
		panic("slab: Tag of a handle that is not live")
	}
	c := &s.cls[h>>classShift]
	i := uint32(h) & slotMask
	if c.tag.has(i) {
		return
	}
	c.tag.set(i)
	c.tagged++
	s.liveTagged++
}

func (s *Slab) untag(h Handle) {
	if !s.valid(h) {
		panic("slab: Untag of a handle that is not live")
	}
	c := &s.cls[h>>classShift]
	i := uint32(h) & slotMask
	if !c.tag.has(i) {
		return
	}
	c.tag.clear(i)
	c.tagged--
	s.liveTagged--
}

func (s *Slab) tagged(h Handle) bool {
	if !s.valid(h) {
		return false
	}
	c := &s.cls[h>>classShift]
	return c.tag.has(uint32(h) & slotMask)
}

func (s *Slab) randomPick(ci int, rnd uint64, tagged bool) (Handle, bool) {
	if ci <= 0 || ci >= numClasses {
		return Nil, false
	}
	c := &s.cls[ci]
	set := &c.occ
	if tagged {
		set = &c.tag
	}
	i, ok := set.random(rnd)
	if !ok {
		return Nil, false
	}
	g := uint32(*c.genp(i)) & (1<<GenBits - 1)
	return Handle(uint32(ci)<<classShift | g<<genShift | i), true
}

func (s *Slab) stats(ci int) ClassStats {
	if ci <= 0 || ci >= numClasses {
		return ClassStats{}
	}
	c := &s.cls[ci]
	return ClassStats{
		Size:   int(c.size),
		Live:   c.live,
		Tagged: c.tagged,
		Pages:  c.pagesMapped,
		Mapped: c.mapped,
		InUse:  c.inUse,
	}
}

func (s *Slab) purge() {
	for ci := 1; ci < LargeClass; ci++ {
		c := &s.cls[ci]
		for p, base := range c.pages {
			if base == nil {
				continue
			}
			if c.used[p] == 0 {
				// The empty spare page stays mapped (no map/unmap churn
				// around a page boundary) but gives its memory back.
				osRelease(base, chunk)
				c.huge[p] = false
				continue
			}
			lo := uint32(p) * c.spp
			hi := min(lo+c.spp, c.slots)
			for i := c.occ.nextClear(lo, hi); i < hi; {
				j := c.occ.nextSet(i, hi)
				a := roundUp(int(uintptr(i-lo)*c.size), osPage)
				b := int(uintptr(j-lo)*c.size) &^ (osPage - 1)
				if j == hi {
					b = chunk // the tail past the last block goes too
				}
				if b > a {
					osRelease(unsafe.Add(base, a), uintptr(b-a))
					c.huge[p] = false
				}
				i = c.occ.nextClear(j, hi)
			}
		}
	}
}

func (s *Slab) reset() {
	for ci := 1; ci < numClasses; ci++ {
		c := &s.cls[ci]
		for p, base := range c.pages {
			switch {
			case base == nil:
			case c.size == 0:
				osUnmap(base, c.lsize[p])
			default:
				osUnmap(unsafe.Add(base, -int(c.hdr)), c.span)
			}
		}
	}
	s.live, s.liveTagged, s.inUse, s.mapped = 0, 0, 0, 0
	s.epoch++
	s.initClasses()
}

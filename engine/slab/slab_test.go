package slab

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"testing"
)

func newTest(t testing.TB) *Slab {
	s := New()
	t.Cleanup(s.Close)
	return s
}

// checkInvariants verifies the invariants of doc.go on every class.
func checkInvariants(t testing.TB, s *Slab) {
	t.Helper()
	var live, tagged int
	var inUse, mapped int64
	for ci := 1; ci < NumClasses; ci++ {
		c := &s.cls[ci]
		checkSummaries(t, ci, "free", &c.free)
		checkSummaries(t, ci, "occ", &c.occ)
		checkSummaries(t, ci, "tag", &c.tag)
		n, nt := 0, 0
		for w := range int(c.slots+63) / 64 {
			exist := ^uint64(0)
			if rest := int(c.slots) - w*64; rest < 64 {
				exist = 1<<rest - 1
			}
			f, o, g := c.free.l0[w], c.occ.l0[w], c.tag.l0[w]
			if f&o != 0 || f|o != exist || g&^o != 0 {
				t.Fatalf("class %d word %d: free %#x occupied %#x tagged %#x", ci, w, f, o, g)
			}
			n += bits.OnesCount64(o)
			nt += bits.OnesCount64(g)
		}
		if n != c.live || nt != c.tagged {
			t.Fatalf("class %d: counted %d live %d tagged, class says %d %d", ci, n, nt, c.live, c.tagged)
		}
		if c.size == 0 {
			for i := range c.slots {
				if c.occ.has(i) != (c.pages[i] != nil) {
					t.Fatalf("large slot %d: occupied %v, mapped %v", i, c.occ.has(i), c.pages[i] != nil)
				}
			}
		} else {
			for p := range c.pages {
				lo, hi := uint32(p)*c.spp, min(uint32(p+1)*c.spp, c.slots)
				u := 0
				for i := lo; i < hi; {
					if i&63 == 0 && hi-i >= 64 {
						u += bits.OnesCount64(c.occ.l0[i>>6])
						i += 64
						continue
					}
					if c.occ.has(i) {
						u++
					}
					i++
				}
				if int(c.used[p]) != u {
					t.Fatalf("class %d page %d: used %d, counted %d", ci, p, c.used[p], u)
				}
				if u > 0 && c.pages[p] == nil {
					t.Fatalf("class %d page %d: %d live blocks, not mapped", ci, p, u)
				}
			}
		}
		live += c.live
		tagged += c.tagged
		inUse += c.inUse
		mapped += c.mapped
	}
	if live != s.Live() || tagged != s.LiveTagged() || inUse != s.InUse() || mapped != s.Mapped() {
		t.Fatalf("totals: %d %d %d %d, slab says %d %d %d %d", live, tagged, inUse, mapped,
			s.Live(), s.LiveTagged(), s.InUse(), s.Mapped())
	}
}

func checkSummaries(t testing.TB, ci int, name string, b *hbits) {
	t.Helper()
	for g := range len(b.l1) * 64 {
		want := g*8 < len(b.l0) && !groupZero(b.l0, uint32(g))
		if got := b.l1[g>>6]&(1<<(g&63)) != 0; got != want {
			t.Fatalf("class %d %s: l1 bit %d = %v, want %v", ci, name, g, got, want)
		}
	}
	for g := range len(b.l2) * 64 {
		want := g*8 < len(b.l1) && !groupZero(b.l1, uint32(g))
		if got := b.l2[g>>6]&(1<<(g&63)) != 0; got != want {
			t.Fatalf("class %d %s: l2 bit %d = %v, want %v", ci, name, g, got, want)
		}
	}
}

func TestClasses(t *testing.T) {
	prev := 0
	for c := 1; c < LargeClass; c++ {
		sz := ClassSize(c)
		if sz <= prev || sz%Align != 0 {
			t.Fatalf("class %d size %d after %d", c, sz, prev)
		}
		if Class(sz) != c || Class(prev+1) != c {
			t.Fatalf("Class(%d)=%d Class(%d)=%d, want %d", sz, Class(sz), prev+1, Class(prev+1), c)
		}
		// Waste bound of doc.go.
		req := prev + 1
		switch {
		case sz <= 128:
			if sz-req >= 8 && sz > 16 {
				t.Fatalf("class %d wastes %d on %d", c, sz-req, req)
			}
		case sz <= 256:
			if sz-req >= 16 {
				t.Fatalf("class %d wastes %d on %d", c, sz-req, req)
			}
		default:
			if 4*(sz-req) >= req {
				t.Fatalf("class %d wastes %d on %d", c, sz-req, req)
			}
		}
		prev = sz
	}
	if prev != MaxSmall || ClassSize(1) != MinSize || ClassSize(16) != 144 || ClassSize(24) != 320 {
		t.Fatalf("class table: last %d first %d", prev, ClassSize(1))
	}
	for _, sz := range []int{0, 1, 16} {
		if Class(sz) != 1 {
			t.Fatalf("Class(%d) = %d", sz, Class(sz))
		}
	}
	if Class(MaxSmall+1) != LargeClass || Class(MaxSize) != LargeClass {
		t.Fatal("large sizes not in LargeClass")
	}
	for _, bad := range []int{-1, MaxSize + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("Class(%d) did not panic", bad)
				}
			}()
			Class(bad)
		}()
	}
}

func TestAllocFreeReuse(t *testing.T) {
	s := newTest(t)
	if s.Valid(Nil) {
		t.Fatal("Nil is valid")
	}
	var hs []Handle
	for _, sz := range []int{1, 16, 17, 100, 128, 129, 256, 1000, 4096, 5000, 65536, 65537, 3 << 20} {
		h := s.Alloc(sz)
		if h == Nil || !s.Valid(h) || HandleClass(h) != Class(sz) {
			t.Fatalf("Alloc(%d) = %#x", sz, h)
		}
		b := s.Bytes(h)
		if len(b) < sz || len(b) != s.BlockSize(h) || cap(b) != len(b) {
			t.Fatalf("Alloc(%d): len %d blocksize %d", sz, len(b), s.BlockSize(h))
		}
		if uintptr(s.Pointer(h))%Align != 0 {
			t.Fatalf("block of %d misaligned", sz)
		}
		if sz := s.BlockSize(h); sz%64 == 0 && uintptr(s.Pointer(h))%64 != 0 {
			t.Fatalf("block of %d not cache-line aligned", sz)
		}
		for i := range b {
			b[i] = byte(sz + i)
		}
		hs = append(hs, h)
	}
	checkInvariants(t, s)
	for _, h := range hs {
		b := s.Bytes(h)
		if b[0] != b[1]-1 {
			t.Fatalf("block %#x lost its contents", h)
		}
	}
	if s.Live() != len(hs) {
		t.Fatalf("Live = %d", s.Live())
	}
	// Free then Alloc of the same class reuses the lowest slot with the
	// other generation bit.
	h := hs[3]
	s.Free(h)
	if s.Valid(h) {
		t.Fatal("freed handle still valid")
	}
	if _, ok := s.Lookup(h); ok {
		t.Fatal("Lookup of freed handle succeeded")
	}
	h2 := s.Alloc(100)
	if h2&slotMask != h&slotMask || h2 == h {
		t.Fatalf("reuse: %#x after %#x", h2, h)
	}
	if s.Valid(h) || !s.Valid(h2) {
		t.Fatal("stale handle not detected after reuse")
	}
	hs[3] = h2
	for _, h := range hs {
		s.Free(h)
	}
	checkInvariants(t, s)
	if s.Live() != 0 || s.InUse() != 0 {
		t.Fatalf("after freeing all: Live %d InUse %d", s.Live(), s.InUse())
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("double Free did not panic")
			}
		}()
		s.Free(hs[0])
	}()
}

func TestGenerationAndRef(t *testing.T) {
	s := newTest(t)
	h := s.Alloc(40)
	r := s.Ref(h)
	if uint64(r) >= 1<<48 {
		t.Fatalf("Ref %#x too wide", r)
	}
	if got, ok := s.Resolve(r); !ok || got != h {
		t.Fatal("Resolve of a live Ref failed")
	}
	prev := h
	for k := range 4 {
		s.Free(prev)
		if _, ok := s.Resolve(r); ok {
			t.Fatalf("Ref resolves after %d frees", k+1)
		}
		prev = s.Alloc(40)
		if prev&slotMask != h&slotMask {
			t.Fatal("slot not reused")
		}
		if _, ok := s.Resolve(r); ok {
			t.Fatalf("Ref resolves after %d reuses", k+1)
		}
		// The one-bit generation alternates.
		if (k%2 == 0) == s.Valid(h) {
			t.Fatalf("reuse %d: Valid(original) = %v", k+1, s.Valid(h))
		}
	}
	if _, ok := s.Resolve(Ref(Nil)); ok {
		t.Fatal("Nil resolves")
	}
	if s.Valid(Handle(uint32(LargeClass+1) << classShift)) {
		t.Fatal("unused class valid")
	}
}

func TestBitmapBoundaries(t *testing.T) {
	s := newTest(t)
	// 16-byte class: 65536 slots per page; cross the 512 (l1) and 262144
	// (l2) boundaries, i.e. four pages.
	const n = 262144 + 1024
	hs := make([]Handle, n)
	for i := range hs {
		hs[i] = s.Alloc(16)
		if int(hs[i]&slotMask) != i {
			t.Fatalf("alloc %d got slot %d", i, hs[i]&slotMask)
		}
		binary.LittleEndian.PutUint64(s.Bytes(hs[i]), uint64(i))
	}
	checkInvariants(t, s)
	for _, i := range []int{511, 512, 513, 262143, 262144, 262145} {
		s.Free(hs[i])
	}
	checkInvariants(t, s)
	for _, i := range []int{511, 512, 513, 262143, 262144, 262145} {
		h := s.Alloc(16)
		if int(h&slotMask) != i {
			t.Fatalf("realloc got slot %d, want %d", h&slotMask, i)
		}
		hs[i] = h
		binary.LittleEndian.PutUint64(s.Bytes(h), uint64(i))
	}
	for i, h := range hs {
		if got := binary.LittleEndian.Uint64(s.Bytes(h)); got != uint64(i) {
			t.Fatalf("slot %d holds %d", i, got)
		}
	}
	// Free everything but one block per 512: summaries stay set.
	for i, h := range hs {
		if i%512 != 7 {
			s.Free(h)
		}
	}
	checkInvariants(t, s)
	for i, h := range hs {
		if i%512 == 7 {
			s.Free(h)
		}
	}
	checkInvariants(t, s)
	if s.Live() != 0 {
		t.Fatal("Live != 0")
	}
	// All pages empty: only the spare stays mapped.
	if st := s.Stats(1); st.Pages != 1 {
		t.Fatalf("pages mapped after freeing all: %d", st.Pages)
	}
}

func TestRandomPick(t *testing.T) {
	s := newTest(t)
	if _, ok := s.RandomOccupied(3, 1); ok {
		t.Fatal("random pick in an empty class")
	}
	if _, ok := s.RandomOccupied(0, 1); ok {
		t.Fatal("random pick in class 0")
	}
	const n = 3000
	hs := make([]Handle, n)
	for i := range hs {
		hs[i] = s.Alloc(24)
	}
	live := map[Handle]bool{}
	tagged := map[Handle]bool{}
	for i, h := range hs {
		if i%3 == 0 {
			s.Free(h)
			continue
		}
		live[h] = true
		if i%7 == 0 {
			s.Tag(h)
			s.Tag(h)
			tagged[h] = true
		}
	}
	// Spread across a second l1 region too.
	checkInvariants(t, s)
	if s.LiveTagged() != len(tagged) {
		t.Fatalf("LiveTagged %d want %d", s.LiveTagged(), len(tagged))
	}
	seenO, seenT := map[Handle]bool{}, map[Handle]bool{}
	for r := uint64(0); r < 200000 && (len(seenO) < len(live) || len(seenT) < len(tagged)); r++ {
		h, ok := s.RandomOccupied(2, r)
		if !ok || !live[h] || !s.Valid(h) {
			t.Fatalf("RandomOccupied returned %#x %v", h, ok)
		}
		seenO[h] = true
		h, ok = s.RandomTagged(2, r)
		if !ok || !tagged[h] || !s.Tagged(h) {
			t.Fatalf("RandomTagged returned %#x %v", h, ok)
		}
		seenT[h] = true
	}
	if len(seenO) != len(live) || len(seenT) != len(tagged) {
		t.Fatalf("covered %d/%d occupied, %d/%d tagged", len(seenO), len(live), len(seenT), len(tagged))
	}
	// Untag and Free remove from the tagged subset.
	for h := range tagged {
		if uint32(h)%2 == 0 {
			s.Untag(h)
		} else {
			s.Free(h)
			delete(live, h)
		}
	}
	for h := range live {
		s.Untag(h) // untagged already: a no-op
	}
	if s.LiveTagged() != 0 {
		t.Fatalf("LiveTagged = %d", s.LiveTagged())
	}
	if _, ok := s.RandomTagged(2, 99); ok {
		t.Fatal("RandomTagged in a class without tags")
	}
	checkInvariants(t, s)
}

func TestReset(t *testing.T) {
	s := newTest(t)
	var hs []Handle
	var refs []Ref
	for i := range 5000 {
		h := s.Alloc(i%300 + 1)
		if i%5 == 0 {
			s.Tag(h)
		}
		hs = append(hs, h)
		refs = append(refs, s.Ref(h))
	}
	big := s.Alloc(1 << 20)
	hs = append(hs, big)
	if s.Mapped() == 0 {
		t.Fatal("nothing mapped")
	}
	s.Reset()
	if s.Live() != 0 || s.LiveTagged() != 0 || s.InUse() != 0 || s.Mapped() != 0 {
		t.Fatalf("after Reset: %d %d %d %d", s.Live(), s.LiveTagged(), s.InUse(), s.Mapped())
	}
	for _, h := range hs {
		if s.Valid(h) {
			t.Fatalf("%#x valid after Reset", h)
		}
	}
	checkInvariants(t, s)
	// Usable again; old Refs do not resolve to the new blocks.
	for i := range 5000 {
		s.Alloc(i%300 + 1)
	}
	for _, r := range refs {
		if _, ok := s.Resolve(r); ok {
			t.Fatalf("Ref %#x resolves after Reset", r)
		}
	}
	checkInvariants(t, s)
}

func TestLarge(t *testing.T) {
	s := newTest(t)
	h := s.Alloc(10<<20 + 1)
	if HandleClass(h) != LargeClass || s.BlockSize(h) != 10<<20+4096 {
		t.Fatalf("large block: class %d size %d", HandleClass(h), s.BlockSize(h))
	}
	b := s.Bytes(h)
	b[0], b[len(b)-1] = 1, 2
	if s.Stats(LargeClass).Live != 1 || s.InUse() != int64(len(b)) {
		t.Fatal("large accounting")
	}
	s.Tag(h)
	if g, ok := s.RandomTagged(LargeClass, 5); !ok || g != h {
		t.Fatal("RandomTagged large")
	}
	s.Free(h)
	if s.Mapped() != 0 || s.Valid(h) {
		t.Fatalf("large Free left %d mapped", s.Mapped())
	}
	h2 := s.AllocZeroed(70000)
	if !bytes.Equal(s.Bytes(h2), make([]byte, s.BlockSize(h2))) || h2 == h {
		t.Fatal("AllocZeroed large")
	}
}

func TestAllocZeroed(t *testing.T) {
	s := newTest(t)
	h := s.Alloc(48)
	copy(s.Bytes(h), "dirty dirty dirty")
	s.Free(h)
	h = s.AllocZeroed(48)
	if !bytes.Equal(s.Bytes(h), make([]byte, 48)) {
		t.Fatal("AllocZeroed returned dirty memory")
	}
}

// rss returns the resident set size in bytes from /proc/self/statm.
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(b))
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n * int64(os.Getpagesize())
}

func TestReleaseToOS(t *testing.T) {
	s := newTest(t)
	const total = 64 << 20
	base := rss(t)
	// Pages emptied by Free are unmapped.
	hs := make([]Handle, 0, total/1024)
	for range total / 1024 {
		h := s.Alloc(1024)
		clear(s.Bytes(h))
		hs = append(hs, h)
	}
	grown := rss(t)
	if grown-base < total*9/10 {
		t.Fatalf("RSS grew by %d for %d bytes", grown-base, total)
	}
	for _, h := range hs {
		s.Free(h)
	}
	freed := rss(t)
	if grown-freed < total*9/10 {
		t.Fatalf("RSS fell by %d after freeing %d bytes", grown-freed, total)
	}
	if spare := int64(s.cls[Class(1024)].span); s.Mapped() > spare {
		t.Fatalf("Mapped %d after freeing all, want at most one spare page (%d)", s.Mapped(), spare)
	}
	// Purge gives back the spare page's memory too (it stays mapped).
	spareRSS := rss(t)
	s.Purge()
	if released := spareRSS - rss(t); released < int64(s.cls[Class(1024)].span)/2 {
		t.Fatalf("Purge released %d of the spare page", released)
	}

	// Purge returns the holes of partly used pages: keep one block in 64.
	hs = hs[:0]
	for range total / 64 {
		h := s.Alloc(64)
		clear(s.Bytes(h))
		hs = append(hs, h)
	}
	for i, h := range hs {
		if i%512 != 0 {
			s.Free(h)
		}
	}
	before := rss(t)
	s.Purge()
	after := rss(t)
	if before-after < total*8/10 {
		t.Fatalf("Purge released %d of %d", before-after, total)
	}
	for i, h := range hs {
		if i%512 == 0 {
			if !s.Valid(h) {
				t.Fatal("Purge invalidated a live block")
			}
			s.Free(h)
		}
	}
	checkInvariants(t, s)

	// Reset unmaps everything.
	for range total / 256 {
		clear(s.Bytes(s.Alloc(256)))
	}
	before = rss(t)
	s.Reset()
	if after := rss(t); before-after < total*9/10 {
		t.Fatalf("Reset released %d of %d", before-after, total)
	}
}

// FuzzSlab runs random operations against a map model.
func FuzzSlab(f *testing.F) {
	f.Add([]byte{0, 10, 0, 200, 1, 0, 2, 0, 3, 1, 4, 0})
	f.Add([]byte("\x00\xff\x00\x10\x00\x01\x05\x00\x01\x01\x02\x00"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := New()
		defer s.Close()
		type blk struct {
			size int
			fill byte
			tag  bool
		}
		model := map[Handle]*blk{}
		var order []Handle // insertion order, for deterministic picks
		var dead []Handle
		pick := func(k byte) (Handle, bool) {
			if len(order) == 0 {
				return Nil, false
			}
			return order[int(k)%len(order)], true
		}
		remove := func(h Handle) {
			for i, x := range order {
				if x == h {
					order[i] = order[len(order)-1]
					order = order[:len(order)-1]
					break
				}
			}
			delete(model, h)
		}
		for len(ops) >= 2 {
			op, arg := ops[0], ops[1]
			ops = ops[2:]
			switch op % 8 {
			case 0, 1: // alloc
				size := int(arg)*int(arg) + int(op>>3)
				if op&0x80 != 0 {
					size = int(arg) << 10 // up to 255 KiB: large blocks too
				}
				h := s.Alloc(size)
				if h == Nil || model[h] != nil || !s.Valid(h) {
					t.Fatalf("Alloc(%d) = %#x", size, h)
				}
				if len(s.Bytes(h)) < size {
					t.Fatal("short block")
				}
				b := &blk{size: size, fill: byte(len(order)) ^ arg}
				fillBlock(s.Bytes(h)[:size], b.fill)
				model[h] = b
				order = append(order, h)
			case 2: // free
				if h, ok := pick(arg); ok {
					s.Free(h)
					remove(h)
					dead = append(dead, h)
				}
			case 3: // write
				if h, ok := pick(arg); ok {
					b := model[h]
					b.fill += 13
					fillBlock(s.Bytes(h)[:b.size], b.fill)
				}
			case 4: // read
				if h, ok := pick(arg); ok {
					checkBlock(t, s, h, model[h].size, model[h].fill)
				}
			case 5: // tag / untag
				if h, ok := pick(arg); ok {
					b := model[h]
					if b.tag {
						s.Untag(h)
					} else {
						s.Tag(h)
					}
					b.tag = !b.tag
				}
			case 6: // random picks
				c := Class(int(arg) * int(arg))
				if h, ok := s.RandomOccupied(c, uint64(arg)*0x9e3779b97f4a7c15); ok {
					if model[h] == nil || HandleClass(h) != c {
						t.Fatalf("RandomOccupied returned %#x", h)
					}
				}
				if h, ok := s.RandomTagged(c, uint64(op)<<8|uint64(arg)); ok {
					if model[h] == nil || !model[h].tag {
						t.Fatalf("RandomTagged returned %#x", h)
					}
				}
			case 7: // stale handles
				if len(dead) > 0 {
					h := dead[int(arg)%len(dead)]
					if model[h] == nil && s.Valid(h) {
						// Allowed only when the slot was reused an even
						// number of times: the model knows it is live then.
						t.Fatalf("stale handle %#x valid", h)
					}
				}
				if arg == 0 {
					s.Purge()
				}
			}
			if s.Live() != len(model) {
				t.Fatalf("Live %d, model %d", s.Live(), len(model))
			}
		}
		nt := 0
		for h, b := range model {
			checkBlock(t, s, h, b.size, b.fill)
			if b.tag != s.Tagged(h) {
				t.Fatalf("tag of %#x", h)
			}
			if b.tag {
				nt++
			}
		}
		if nt != s.LiveTagged() {
			t.Fatalf("LiveTagged %d, model %d", s.LiveTagged(), nt)
		}
		checkInvariants(t, s)
		for h := range model {
			s.Free(h)
		}
		if s.Live() != 0 || s.LiveTagged() != 0 || s.InUse() != 0 {
			t.Fatalf("after freeing all: Live %d tagged %d InUse %d", s.Live(), s.LiveTagged(), s.InUse())
		}
		checkInvariants(t, s)
	})
}

func fillBlock(b []byte, fill byte) {
	for i := range b {
		b[i] = fill + byte(i)
	}
}

func checkBlock(t *testing.T, s *Slab, h Handle, size int, fill byte) {
	t.Helper()
	b := s.Bytes(h)[:size]
	for i := range b {
		if b[i] != fill+byte(i) {
			t.Fatalf("block %#x byte %d = %d, want %d", h, i, b[i], fill+byte(i))
		}
	}
}

func TestSelect64(t *testing.T) {
	ws := []uint64{1, 1 << 63, ^uint64(0), 0x8000000000000001, 0xf0f0f0f0f0f0f0f0, 0x0123456789abcdef}
	x := uint64(0x9e3779b97f4a7c15)
	for range 1000 {
		x = mix64(x)
		ws = append(ws, x, x&mix64(x+1), x&mix64(x+1)&mix64(x+2))
	}
	for _, w := range ws {
		k := 0
		for i := range 64 {
			if w&(1<<i) == 0 {
				continue
			}
			if got := select64(w, k); got != i {
				t.Fatalf("select64(%#x, %d) = %d, want %d", w, k, got, i)
			}
			k++
		}
	}
}

// TestDivMagic checks the page computation of every class around every page
// boundary and at the ends of the slot range.
func TestDivMagic(t *testing.T) {
	s := newTest(t)
	for ci := 1; ci < NumClasses; ci++ {
		d := &s.dec[ci]
		spp := uint64(s.cls[ci].spp)
		if d.spp != uint32(spp) || spp == 0 {
			t.Fatalf("class %d: spp %d, decoder %d", ci, spp, d.spp)
		}
		check := func(n uint64) {
			if n >= MaxSlots {
				return
			}
			if got := n * d.magic >> d.msh; got != n/spp {
				t.Fatalf("class %d (spp %d): %d*magic>>sh = %d, want %d", ci, spp, n, got, n/spp)
			}
		}
		step := max(spp, MaxSlots/4096)
		for b := uint64(0); b <= MaxSlots; b += step {
			for _, n := range []uint64{b - 1, b, b + 1} {
				check(n)
			}
		}
		for b := MaxSlots / spp * spp; b > MaxSlots-3*spp && b >= spp; b -= spp {
			check(b - 1)
			check(b)
		}
		check(MaxSlots - 1)
	}
}

// TestPageBoundaries fills three pages of a class with a non-power-of-two
// slot count and checks that blocks are disjoint, in their page, and keep
// their contents.
func TestPageBoundaries(t *testing.T) {
	s := newTest(t)
	const size = 48
	c := &s.cls[Class(size)]
	n := int(c.spp)*3 + 5
	hs := make([]Handle, n)
	for i := range hs {
		hs[i] = s.Alloc(size)
		b := s.Bytes(hs[i])
		if len(b) != size {
			t.Fatalf("len %d", len(b))
		}
		binary.LittleEndian.PutUint64(b, uint64(i))
		binary.LittleEndian.PutUint64(b[size-8:], ^uint64(i))
	}
	for i, h := range hs {
		b := s.Bytes(h)
		if binary.LittleEndian.Uint64(b) != uint64(i) || binary.LittleEndian.Uint64(b[size-8:]) != ^uint64(i) {
			t.Fatalf("block %d overwritten", i)
		}
		slot := uint32(h) & slotMask
		p := c.page(slot)
		off := uintptr(s.Pointer(h)) - uintptr(c.pages[p])
		if off != uintptr(slot-p*c.spp)*size || off+size > chunk {
			t.Fatalf("block %d at offset %d of page %d", i, off, p)
		}
	}
	checkInvariants(t, s)
	for _, h := range hs {
		s.Free(h)
	}
	checkInvariants(t, s)
}

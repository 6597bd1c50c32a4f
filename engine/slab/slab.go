package slab

import "unsafe"

// Handle names one block: 6 bits of class, 1 bit of generation, 25 bits of
// slot index (see doc.go for the layout). The zero Handle is Nil and never
// names a block. A Handle is a plain integer: store it anywhere (tree nodes,
// other blocks); it keeps no memory alive.
type Handle uint32

// Nil is the zero Handle; Alloc returns it when it cannot allocate.
const Nil Handle = 0

// Ref is a Handle widened with the slot's full 16-bit generation:
// gen<<32 | handle, always < 1<<48. Hold a Ref, not a Handle, for anything
// kept outside the tree across commands (SCAN cursors, eviction pools):
// Resolve detects a reused slot unless it was reused an exact multiple of
// 65536 times.
type Ref uint64

// Handle layout.
const (
	SlotBits   = 25                 // slot index bits: each class holds up to 1<<25 blocks
	MaxSlots   = 1 << SlotBits      // slots per class
	GenBits    = 1                  // generation bits carried in a Handle
	ClassBits  = 6                  // class bits
	classShift = SlotBits + GenBits // 26
	genShift   = SlotBits           // 25
	slotMask   = 1<<SlotBits - 1
)

// Sizes.
const (
	// Align is the alignment of every block: each block address is a multiple
	// of 8; blocks of classes whose size is a multiple of 64 are 64-byte
	// aligned (one cache line), and of a power of two >= 4096, 4096-aligned.
	Align = 8
	// MinSize is the smallest block size (smaller requests get 16 bytes).
	MinSize = 16
	// MaxSmall is the largest block served from slab pages; larger requests
	// take the large path (one mmap per block, rounded up to 4096).
	MaxSmall = 64 << 10
	// MaxSize is the largest block Alloc accepts.
	MaxSize = 1 << 30
	// LargeClass is the class of every block larger than MaxSmall.
	LargeClass = NumClasses - 1
)

// NumClasses counts the class numbers in use, 1..NumClasses-1; class 0 is
// reserved so that Nil (0) is never a live handle.
const NumClasses = numClasses

// ClassStats describes one class at a moment.
type ClassStats struct {
	Size   int   // block size in bytes (0 for LargeClass: blocks vary)
	Live   int   // live blocks
	Tagged int   // live blocks carrying the tag
	Pages  int   // pages mapped now (large class: one per block)
	Mapped int64 // bytes mapped for this class (pages incl. their gen headers)
	InUse  int64 // sum of BlockSize over live blocks
}

// Slab is one shard's allocator. It is owned by a single goroutine: no
// method is safe for concurrent use. The zero value is not usable; call New.
type Slab struct {
	impl
}

// New returns an empty Slab. It maps nothing until the first Alloc.
func New() *Slab { return newSlab() }

// Class returns the class that Alloc(size) uses: 1..NumClasses-2 for
// 0 <= size <= MaxSmall, LargeClass above. It panics if size < 0 or
// size > MaxSize.
func Class(size int) int { return classOf(size) }

// ClassSize returns the block size of class c (0 for LargeClass and for
// class numbers not in use).
func ClassSize(c int) int { return classSize(c) }

// HandleClass returns the class bits of h. It does not check that h is live.
func HandleClass(h Handle) int { return int(h >> classShift) }

// Alloc returns a live block of at least size bytes, with unspecified
// contents (fresh memory is zero, reused memory is not). It returns Nil when
// the class already holds MaxSlots blocks or the OS refuses memory. It panics
// if size < 0 or size > MaxSize.
func (s *Slab) Alloc(size int) Handle { return s.alloc(size) }

// AllocZeroed is Alloc followed by clearing the whole block.
func (s *Slab) AllocZeroed(size int) Handle { return s.allocZeroed(size) }

// Free releases the block h. It clears h's tag. h must be live: freeing Nil,
// a stale or a foreign handle panics. All []byte obtained from Bytes(h) are
// invalid afterwards (the memory may be reused or returned to the OS).
func (s *Slab) Free(h Handle) { s.free(h) }

// Bytes returns the whole block h (len == cap == BlockSize(h)), a slice of
// memory outside the Go heap. It stays valid until Free(h), Reset or Close;
// using it later reads another block or faults. h must be live: Bytes does no
// generation check (use Valid or Lookup for handles held from outside).
// It is the hot path: an index computation, no allocation.
func (s *Slab) Bytes(h Handle) []byte { return s.bytes(h) }

// Pointer returns the address of block h (same validity as Bytes). For
// callers that overlay fixed layouts on a block.
func (s *Slab) Pointer(h Handle) unsafe.Pointer { return s.pointer(h) }

// Lookup is Bytes for a handle that may be stale: it returns false instead
// of touching a free or reused slot (as far as the generation bit tells).
func (s *Slab) Lookup(h Handle) ([]byte, bool) { return s.lookup(h) }

// Valid reports whether h names a live block whose generation bit matches.
// A stale handle whose slot was reused an even number of times since still
// reads valid: hold a Ref when that matters.
func (s *Slab) Valid(h Handle) bool { return s.valid(h) }

// BlockSize returns the size of the live block h: its class size, or for a
// large block the requested size rounded up to 4096.
func (s *Slab) BlockSize(h Handle) int { return s.blockSize(h) }

// Ref returns the long reference of the live handle h.
func (s *Slab) Ref(h Handle) Ref { return s.ref(h) }

// Resolve returns the handle of r if its block is still the one r was taken
// from (same slot, same 16-bit generation, still live).
func (s *Slab) Resolve(r Ref) (Handle, bool) { return s.resolve(r) }

// Tag marks the live block h as a member of the tagged subset of its class
// (the engine tags keys that carry a TTL). Tagging twice is a no-op.
func (s *Slab) Tag(h Handle) { s.tag(h) }

// Untag removes h from the tagged subset; a no-op if it is not tagged.
func (s *Slab) Untag(h Handle) { s.untag(h) }

// Tagged reports whether the live block h is tagged.
func (s *Slab) Tagged(h Handle) bool { return s.tagged(h) }

// RandomOccupied returns a live block of class c chosen from rnd (any 64-bit
// value; the Slab keeps no random state), or false if the class is empty.
// Cost O(levels). Not uniform: see doc.go for the bias.
func (s *Slab) RandomOccupied(c int, rnd uint64) (Handle, bool) { return s.randomPick(c, rnd, false) }

// RandomTagged is RandomOccupied restricted to tagged blocks.
func (s *Slab) RandomTagged(c int, rnd uint64) (Handle, bool) { return s.randomPick(c, rnd, true) }

// Live returns the number of live blocks.
func (s *Slab) Live() int { return s.live }

// LiveTagged returns the number of live tagged blocks.
func (s *Slab) LiveTagged() int { return s.liveTagged }

// InUse returns the sum of BlockSize over live blocks, in bytes.
func (s *Slab) InUse() int64 { return s.inUse }

// Mapped returns the bytes currently mapped from the OS: an upper bound on
// the resident memory the Slab causes (pages are touched lazily).
func (s *Slab) Mapped() int64 { return s.mapped }

// Epoch changes whenever a block is freed (Free, Reset): an address
// obtained from a live block stays valid, and so does what it points to
// within the block, as long as Epoch has not changed.
func (s *Slab) Epoch() uint64 { return s.epoch }

// Stats returns the statistics of class c.
func (s *Slab) Stats(c int) ClassStats { return s.stats(c) }

// Purge returns to the OS the memory of every run of 512 free slots inside
// still-mapped pages (whole OS pages only). Free already unmaps pages that
// become entirely free; Purge also reclaims the holes left in partly used
// pages, e.g. after a mass expiry, and the memory of each class's empty
// spare page (which stays mapped). Cost O(mapped slots / 512).
func (s *Slab) Purge() { s.purge() }

// Reset frees every block at once (FLUSHALL) and unmaps all memory. Every
// handle and slice obtained before is invalid; Refs taken before will not
// resolve.
func (s *Slab) Reset() { s.reset() }

// Close unmaps all memory. The Slab must not be used afterwards.
func (s *Slab) Close() { s.reset() }

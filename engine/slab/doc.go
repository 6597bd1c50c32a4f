// Package slab is the off-heap block allocator of one shard: the engine's
// radix tree nodes, leaves and values live in its blocks, in memory mapped
// from the OS that holds no Go pointers, so the garbage collector never
// scans it and the Go heap stays small however many keys there are.
//
// # Nouns
//
//   - Block: a fixed-size piece of memory handed out by Alloc, read and
//     written through Bytes (or Pointer). Blocks hold no Go pointers.
//
//   - Class: the set of blocks of one size. Class 0 is reserved so that the
//     zero Handle (Nil) is never live. Classes 1..15 are 16..128 bytes by
//     steps of 8; 16..23 are 144..256 by 16; 24..55 are four per doubling
//     from 320 to 65536 (320, 384, 448, 512, 640, ..., 49152, 57344, 65536).
//     Class 56 (LargeClass) holds blocks above 64 KiB, each its own mmap,
//     rounded up to 4096, up to MaxSize (1 GiB).
//     Waste bound: a block exceeds the request by < 8 bytes up to 128, < 16
//     bytes up to 256, < 25% of the request up to 64 KiB, < 4096 bytes
//     (< 6.25%) above.
//
//   - Slot: the index of a block within its class, 0..MaxSlots-1 (1<<25).
//
//   - Page: the unit of mapping of a class: one 2 MiB chunk of blocks,
//     2 MiB-aligned (one huge page), holding spp = floor(2 MiB / size) slots
//     (131072 of 16 bytes, 32 of 64 KiB; the remainder, < size, is unused),
//     preceded by a header of one 16-bit generation per slot, padded to a
//     4096-byte boundary. A page is mapped when allocation first reaches it
//     and unmapped when it becomes empty (one empty page per class is kept
//     as a spare, see Free).
//
//   - Huge pages: a page is mapped with small pages, touched lazily, so a
//     class's partly filled last page costs only what was touched. When a
//     page becomes full (every slot live at once) its blocks are collapsed
//     into one huge page (MADV_COLLAPSE; where the kernel lacks it,
//     MADV_HUGEPAGE for khugepaged): a large tree is then walked with one
//     TLB entry per 2 MiB instead of per 4 KiB, and RSS does not grow (all
//     of the page was already touched). Purge splits a huge page it punches
//     holes into; the page is collapsed again when it is full again. The
//     Alloc that fills a page pays for the collapse (one madvise that copies
//     2 MiB, amortized over the page's slots). A page a class maps while
//     hugeAfter (16) of its pages are mapped (32 MiB, full or nearly:
//     Alloc takes the lowest free slot) is advised MADV_HUGEPAGE instead,
//     before anything touches it, so its first touch faults in a huge page
//     and nothing is copied when it fills (a start-up load of 10M keys
//     spent a quarter of its CPU in the collapses' copies); what the class
//     does not fill of it costs at most 2 MiB, 1/16 of the class.
//
//   - Generation: a 16-bit counter per slot, incremented by Free. A Handle
//     carries its low bit, a Ref all 16 bits.
//
//   - Handle: a uint32 naming a block:
//
//     bit 31       26 25  24                      0
//     +-----------+---+----------------------------+
//     |  class(6) |gen|          slot (25)         |
//     +-----------+---+----------------------------+
//
//     Pointer decodes it without a branch: page p = slot*magic>>shift (an
//     exact reciprocal of spp for every slot < 2^25), one load of the
//     page's address from the class's page table, plus (slot-p*spp)*size
//     (LargeClass: spp 1, size 0). Bytes adds the block length. Neither
//     checks anything. 32 bits cannot hold 56 classes × 2^25 slots and a wide
//     generation, so the Handle keeps one generation bit (it catches a
//     handle used after one reuse of its slot) and Ref keeps all 16.
//
//   - Ref: uint64(generation)<<32 | uint64(handle), below 1<<48 (it fits a
//     SCAN cursor below 1<<56). Resolve rejects it once the slot was freed,
//     unless the slot was reused an exact multiple of 65536 times.
//
//   - Tag: one bit per live slot marking a subset of the class (the engine
//     tags keys carrying a TTL). Free clears it.
//
//   - Slot sets: per class three bitmaps, free, occupied and tagged, each with
//     two summary levels of fan-out 512 (a cache line of bits per 512 slots
//     below it). Alloc takes the lowest free slot (three trailing-zero scans),
//     RandomOccupied/RandomTagged descend the summaries.
//
// # Random picks and their bias
//
// RandomOccupied and RandomTagged descend three levels and at each take a
// set bit uniformly (from 21 bits of a mix of rnd) among the set bits of the
// current group. So every non-empty 512-slot group of a 262144-slot region
// is equally likely, whatever it holds: a block alone in its group is chosen
// up to 512 times more often than one in a full group. Every member has a
// nonzero chance (at least 1/(128·512·512) per pick), so repeated picks
// reach all of them; for expiry sampling, as in Redis, that is enough.
//
// # Memory returned to the OS
//
// Free unmaps a page as soon as it is empty, except one spare page per class
// (the lower of two empties is kept, since allocation fills the lowest free
// slots first: alternating Alloc/Free never maps and unmaps each time). A
// large block is unmapped by its Free. Purge madvises(MADV_DONTNEED) the
// whole OS pages inside runs of free slots of partly used pages. Reset
// unmaps everything.
//
// # What it never does
//
// It never allocates on the Go heap on the hot paths (Bytes, Valid, Tag,
// Random*; Alloc/Free only when a class grows its bitmaps), never starts a
// goroutine, never locks: a Slab belongs to one goroutine. It never zeroes
// reused blocks (AllocZeroed does).
//
// # Invariants
//
//   - A slot is in exactly one of free and occupied once its class covers it;
//     tagged ⊆ occupied.
//   - A summary bit is set iff the 512 bits below it are not all zero.
//   - Every occupied slot lies in a mapped page; an unmapped page has all its
//     slots free; used[p] counts the occupied slots of page p.
//   - A live Handle's generation bit equals the low bit of its slot's
//     generation; Free changes that bit, so the freed Handle stops being
//     Valid until the slot is reused again.
//   - Live, LiveTagged, InUse and Mapped equal the sums over classes.
package slab

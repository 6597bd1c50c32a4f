package slab

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// osMap maps n bytes of zeroed, private, anonymous memory.
func osMap(n uintptr) (unsafe.Pointer, error) {
	return unix.MmapPtr(-1, 0, nil, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
}

// osMapAligned maps hdr+n bytes (hdr and n multiples of the OS page, n a
// power of two) such that the address hdr bytes in is a multiple of n: a
// mapping of n+hdr+n bytes trimmed at both ends. It returns the start.
func osMapAligned(hdr, n uintptr) (unsafe.Pointer, error) {
	total := hdr + 2*n
	m, err := osMap(total)
	if err != nil {
		return nil, err
	}
	// Offset of the first n-aligned address at or after m+hdr.
	head := (n - (uintptr(m)+hdr)&(n-1)) & (n - 1)
	if head != 0 {
		osUnmap(m, head)
	}
	if tail := total - head - hdr - n; tail != 0 {
		osUnmap(unsafe.Add(m, head+hdr+n), tail)
	}
	return unsafe.Add(m, head), nil
}

// osUnmap unmaps memory mapped by osMap.
func osUnmap(p unsafe.Pointer, n uintptr) {
	if err := unix.MunmapPtr(p, n); err != nil {
		panic("slab: munmap: " + err.Error())
	}
}

// osRelease gives the pages of [p, p+n) back to the OS; they read as zero
// when touched again. p and n must be multiples of the OS page size.
func osRelease(p unsafe.Pointer, n uintptr) {
	// Advice failure only means the memory stays resident.
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_DONTNEED)
}

// collapseBad is set once MADV_COLLAPSE fails as unsupported (kernels
// before 6.1); osHuge then only marks ranges for khugepaged.
var collapseBad atomic.Bool

// osHuge asks the OS to back [p, p+n) (huge-page aligned, every page
// already touched) with huge pages now: MADV_COLLAPSE, which works whatever
// the system THP mode (except never). Where it is unsupported the range is
// marked MADV_HUGEPAGE for khugepaged to collapse later. Failure only means
// more TLB misses.
func osHuge(p unsafe.Pointer, n uintptr) {
	b := unsafe.Slice((*byte)(p), n)
	if !collapseBad.Load() {
		err := unix.Madvise(b, unix.MADV_COLLAPSE)
		if err == nil {
			return
		}
		if err != unix.EINVAL {
			return // EAGAIN/ENOMEM: no huge page free now; stay on small pages
		}
		collapseBad.Store(true)
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}

// osAdviseHuge marks the mapping [p, p+n) MADV_HUGEPAGE (all of it, so
// that the advice splits no mapping in two): the first touch of each
// huge-page aligned 2 MiB inside it faults in a huge page where one is
// free (THP enabled, madvise or always), the rest stays on small pages.
// Failure only means small pages.
func osAdviseHuge(p unsafe.Pointer, n uintptr) {
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_HUGEPAGE)
}

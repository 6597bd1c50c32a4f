package slab

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// osMap maps n bytes of zeroed, private, anonymous memory.
func osMap(n uintptr) (unsafe.Pointer, error) {
	return unix.MmapPtr(-1, 0, nil, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
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

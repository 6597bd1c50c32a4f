package engine

import "unsafe"

// prefetch asks the CPU to bring the cache line at p into its caches
// without waiting for it (PREFETCHT0). It never faults.
//
//go:noescape
func prefetch(p unsafe.Pointer)

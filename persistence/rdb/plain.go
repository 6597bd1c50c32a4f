package rdb

import "sync/atomic"

// packedThreshold is Redis's quicklist packed_threshold: a list element
// of at least this many bytes is a plain node of its own
// (QUICKLIST_NODE_CONTAINER_PLAIN), written with container 1. One for
// the process, as Redis's is; 0 stands for the default, 1 GB.
var packedThreshold atomic.Uint64

// SetPackedThreshold is Redis 7.0's quicklistisSetPackedThreshold (DEBUG
// QUICKLIST-PACKED-THRESHOLD): false, changing nothing, above 4 GB less
// 1 MB; 0 restores the default.
func SetPackedThreshold(sz uint64) bool {
	if sz > 1<<32-1<<20 {
		return false
	}
	packedThreshold.Store(sz)
	return true
}

// largeElement is the size from which a list element is a plain node.
func largeElement() int {
	if t := packedThreshold.Load(); t != 0 {
		return int(t)
	}
	return 1 << 30
}

package router

// SCAN across shards: the client sees one cursor; its top byte is the
// shard being scanned and its low 56 bits are that shard's own cursor
// (engine cursors are < 1<<56). Cursor 0 starts at shard 0, and the scan
// is over when the last shard's cursor returns to 0. At most 256 shards.

const (
	cursorShift = 56
	cursorMask  = 1<<cursorShift - 1
	// MaxShards is the most shards a packed cursor can name.
	MaxShards = 1 << (64 - cursorShift)
)

// PackCursor returns the client cursor for shard's local cursor c.
func PackCursor(shard int, c uint64) uint64 {
	return uint64(shard)<<cursorShift | c&cursorMask
}

// UnpackCursor splits a client cursor into the shard to scan and that
// shard's local cursor. ok is false when the shard index is not below n
// (a cursor from a server with more shards): the caller may treat it as a
// finished scan.
func UnpackCursor(c uint64, n int) (shard int, local uint64, ok bool) {
	shard = int(c >> cursorShift)
	return shard, c & cursorMask, shard < n
}

// NextCursor is the cursor to return to the client after shard returned
// its local cursor next: the same shard while it has more, else the start
// of the following shard, or 0 when shard was the last of n.
func NextCursor(shard int, next uint64, n int) uint64 {
	if next != 0 {
		return PackCursor(shard, next)
	}
	if shard+1 < n {
		return PackCursor(shard+1, 0)
	}
	return 0
}

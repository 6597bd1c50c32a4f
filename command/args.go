package command

// CopyArgs copies args into one fresh buffer (one allocation for the
// bytes, one for the slice headers) so they outlive the read buffer they
// alias: for a command that waits (blocked, locked) or travels to another
// shard. Each copy's capacity ends at its length, so appending to one
// cannot overwrite the next.
func CopyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}

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
	_, out := AppendArgs(make([]byte, 0, n), make([][]byte, 0, len(args)), args)
	return out
}

// AppendArgs is CopyArgs into buffers the caller reuses: args' bytes
// appended to buf[:0] and their slices to out[:0], each capped as
// CopyArgs caps them. It returns both buffers, grown if they had to be;
// args must not alias buf.
func AppendArgs(buf []byte, out, args [][]byte) ([]byte, [][]byte) {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	if cap(buf) < n {
		buf = make([]byte, 0, n)
	}
	buf, out = buf[:0], out[:0]
	for _, a := range args {
		buf = append(buf, a...)
		out = append(out, buf[len(buf)-len(a):len(buf):len(buf)])
	}
	return buf, out
}

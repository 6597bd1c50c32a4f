package command

// XREAD BLOCK (block.go): the shard parks the client on the streams' keys
// and runs BlockXRead again when one of them is written.

func init() {
	registerBlocking("xread", BlockXRead)
	blocksIf["xread"] = xreadBlocks
}

// xreadBlocks reports whether XREAD's arguments hold BLOCK (before
// STREAMS; its errors are the handler's to report).
func xreadBlocks(args [][]byte) bool {
	for i := 1; i+1 < len(args); i++ {
		switch {
		case eqFold(args[i], "streams"):
			return false
		case eqFold(args[i], "block"):
			return true
		case eqFold(args[i], "count"):
			i++
		}
	}
	return false
}

func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// BlockXRead is XREAD with BLOCK: the entries after each ID if any
// stream has some, else it waits on the streams' keys. On its first
// attempt where a stream's shard runs it, "$" (and "+" of an empty
// stream) becomes the stream's last ID then, written into args, so that
// later attempts serve what arrived since, as Redis does.
func BlockXRead(c *Ctx, args [][]byte, wait *Wait) bool {
	var a xreadArgs
	if !parseXRead(c, args, &a, false) {
		return false
	}
	for i := 0; i < a.n; i++ {
		after, ok := xreadAfter(c, args, &a, i)
		if !ok {
			return false
		}
		if id := args[a.streams+a.n+i]; len(id) == 1 && (id[0] == '$' || id[0] == '+') && c.Owns != nil && c.Owns(args[a.streams+i]) {
			args[a.streams+a.n+i] = after.Append(nil)
		}
	}
	c.DB.ReadsAgain()
	if xreadServe(c, args, &a, nil) {
		return false
	}
	wait.set(a.deadline, a.streams, a.streams+a.n)
	return true
}

package shard

import "unsafe"

// parsedAhead is what prefetch's look-ahead parsed of a connection's input,
// kept so that serve takes those commands as they are instead of parsing
// each a second time (the parse is a fifth of a pipelined GET). It holds a
// run of whole commands from the front of the input as prefetch saw it;
// serve takes them in order while the input still starts where the next
// one does, and parses for itself otherwise. It lives within one serve
// call: serve drops it before it returns, so it never outlives the input
// bytes it points into, and a nested serve (of another connection) finds
// its own input elsewhere and starts over.
type parsedAhead struct {
	args [][]byte    // every command's args, one after another (resp.Reader.NextAppend)
	cmds []parsedCmd // the commands, in input order
	next int         // the next command serve takes
}

// parsedCmd is one command of a parsedAhead.
type parsedCmd struct {
	at   *byte    // its first byte in the input
	n    int      // its length in the input
	args [][]byte // its args, in parsedAhead.args
	// owner is the shard of its first key (args[spec.First]) where
	// prefetch hashed it, else -1 (router.Planner.PlanFirst).
	owner int
}

// parsedMaxArgs is the most args a command may have to be kept: a long
// one (an MSET of thousands of keys) is parsed again rather than kept.
const parsedMaxArgs = 16

// add keeps a command that starts at the front of in, n bytes long, whose
// args resp.Reader.NextAppend appended to p.args, after those kept before
// it; false: it was not kept, and the caller keeps none after it (the
// kept ones are a run).
func (p *parsedAhead) add(in []byte, n int, args [][]byte) bool {
	if len(args) == 0 || len(args) > parsedMaxArgs {
		return false
	}
	if len(args) > cap(p.args)-len(p.args) {
		// NextAppend outgrew p.args: args are elsewhere.
		p.args = append(p.args, args...)
	} else {
		p.args = p.args[:len(p.args)+len(args)]
	}
	args = p.args[len(p.args)-len(args):]
	p.cmds = append(p.cmds, parsedCmd{at: unsafe.SliceData(in), n: n, args: args[:len(args):len(args)], owner: -1})
	return true
}

// take returns the kept command at the front of in, if it is the next one
// (there is one: p.next < len(p.cmds)), and its first key's shard (owner).
func (p *parsedAhead) take(in []byte) ([][]byte, int, int, bool) {
	pc := &p.cmds[p.next]
	if pc.at != unsafe.SliceData(in) || pc.n > len(in) {
		p.drop()
		return nil, 0, -1, false
	}
	p.next++
	return pc.args, pc.n, pc.owner, true
}

// drop forgets every kept command, and the references into the input.
func (p *parsedAhead) drop() {
	if len(p.cmds) == 0 {
		return
	}
	clear(p.args)
	clear(p.cmds)
	p.args, p.cmds, p.next = p.args[:0], p.cmds[:0], 0
}

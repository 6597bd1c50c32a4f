package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/router"
)

// A plain cross-shard command (an MSET, MGET, RENAME or LMOVE whose keys
// span shards: multi, its replies merged or its keys gathered) runs as a
// pooled txn: the shard takes it from a free list of its own, with the
// buffers of the txns it ran before, and puts it back once its reply is
// written. Its copy of the arguments, its parts, their keys, its lock
// requests (coord.Txn.Begin's, one per part), its part messages, their
// replies and exports live in those buffers, and its reply goes into a
// pooled slot (hop.go), so that once the pool is warm a merged command
// allocates nothing of its own, as a hop does not (a gathered one still
// copies its keys' values there and back).
//
// What must stay true: a pooled txn goes back only at finish, when every
// message that carried a pointer into it came home (each part answered;
// Begin's requests answered before any part ran) and its keys are
// unlocked on every shard; nothing it ran keeps a reference into its
// buffers (the lock table, the slow log, MONITOR and the effects copy
// what they keep; the reply is the pooled slot's). An EXEC's txn is kept
// for a later EXEC (multi.go); a script's or a blocking command's is made
// and dropped.

// txnBufs are the buffers a pooled txn keeps for the next.
type txnBufs struct {
	argBuf   []byte
	partArgs [][]byte
	ints     []int
	num      []byte
	keys     []coord.Key
	coParts  []coord.Part
	lms      []lockMsg
}

// Limits of the free lists (pooled txns, and EXECs' in multi.go): how
// many txns each keeps (about one per connection with a txn in flight),
// and the largest buffer worth keeping, in bytes, or in elements for a
// list (a command of that many keys or arguments): a txn that grew one
// past it is dropped, and a reply buffer past it is.
const (
	maxFreeTxns = 128
	maxTxnBuf   = 16 << 10
	maxTxnList  = 1024
)

// bigReply reports whether a reply buffer is past what a free list keeps.
func bigReply(b []byte) bool { return cap(b) > maxTxnBuf }

// takeTxn returns a pooled txn from the free list, or a new one.
func (s *Shard) takeTxn() *txn {
	if t := popFree(&s.txns); t != nil {
		return t
	}
	return &txn{pooled: true}
}

// freeTxn puts the answered t back, its buffers emptied.
func (s *Shard) freeTxn(t *txn) {
	b := &t.bufs
	if len(s.txns) >= maxFreeTxns || cap(b.argBuf) > maxTxnBuf || cap(b.num) > maxTxnBuf ||
		cap(t.args) > maxTxnList || cap(b.partArgs) > maxTxnList || cap(b.keys) > maxTxnList {
		return
	}
	for i := range t.pms {
		if bigReply(t.pms[i].reply) {
			t.pms[i].reply = nil
		}
		if cap(t.pms[i].entries) > maxTxnList {
			t.pms[i].entries = nil
		}
	}
	clear(t.reply) // the parts' replies, which pms keeps
	args, parts, reply, pms, gp := t.args[:0], t.parts[:0], t.reply[:0], t.pms[:0], t.gp
	*t = txn{pooled: true, bufs: *b, args: args, parts: parts, reply: reply, pms: pms, gp: gp}
	s.txns = append(s.txns, t)
}

// planTxn fills t (initTxn's) for a command whose keys span shards: its
// copy of args, its parts and their keys, in t's buffers.
func (s *Shard) planTxn(t *txn, spec *command.Spec, args [][]byte, idx []int) {
	b := &t.bufs
	b.argBuf, t.args = command.AppendArgs(b.argBuf, t.args, args)
	b.partArgs, b.ints, b.num, b.keys = b.partArgs[:0], b.ints[:0], b.num[:0], b.keys[:0]
	t.parts = t.parts[:0]
	for _, p := range s.split.Split(spec, t.args, idx, len(s.group.shards)) {
		var q router.Part
		q, b.partArgs, b.ints, b.num = s.split.OwnAppend(p, b.partArgs, b.ints, b.num)
		t.parts = append(t.parts, q)
	}
	n := len(t.parts)
	b.coParts = slices.Grow(b.coParts[:0], n)[:n]
	for i, p := range t.parts {
		from := len(b.keys)
		b.keys = s.partKeys(b.keys, spec, p)
		b.coParts[i] = coord.Part{Shard: p.Shard, Keys: b.keys[from:len(b.keys):len(b.keys)]}
	}
	t.co = coord.Txn{ID: t.id, Parts: b.coParts}
	t.reply = slices.Grow(t.reply[:0], n)[:n]
	clear(t.reply)
	if t.pooled {
		b.lms = slices.Grow(b.lms[:0], n)[:n]
	}
}

// partMsgs returns t's part messages, n of them, each empty but for the
// reply buffer and the entries' array a pooled txn keeps.
func (t *txn) partMsgs(n int) []partMsg {
	if !t.pooled {
		return make([]partMsg, n)
	}
	pms := slices.Grow(t.pms[:0], n)[:n]
	for i := range pms {
		pms[i] = partMsg{reply: pms[i].reply[:0], entries: pms[i].entries[:0]}
	}
	return pms
}

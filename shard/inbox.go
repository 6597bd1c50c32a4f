package shard

import "sync/atomic"

// The inbox takes no lock and copies no message. A sender hands over a
// turn's messages for one destination as one batch: the outbox slice
// itself, in a batch node from the sender's free list, pushed with one
// compare-and-swap onto the destination's stack of batches. The
// destination takes the whole stack with one swap, runs its batches
// oldest first (the stack holds them newest first: its order is the
// order of the pushes, as a locked queue's was), and pushes each node
// back onto its sender's stack of freed nodes, which the sender takes
// whole when its own free list runs dry. So a batch costs two atomic
// operations and a share of two more, whatever it holds, and a message
// is written once, by the handler that queued it.
//
// The push also says whether the destination must be woken: only when
// the stack was empty. Else whoever pushed onto the empty stack woke it
// after pushing, and it has not taken the stack since (a take leaves it
// empty, so the next push wakes again).

// batch is the messages of one sender's loop turn for one destination,
// in order. Its sender fills it, the destination runs and empties it;
// next links it in a stack while neither holds it.
type batch struct {
	next *batch
	msgs []message
	// owner is the shard whose free list the node goes back to, nil for
	// a node deliver made (a goroutine that is no shard's) or one made
	// beyond maxBatches, dropped after its run.
	owner *Shard
}

// inbox is the stacks other goroutines push onto. Each word is written
// by other shards: a cache line of its own keeps those writes off the
// lines of the shard's own fields.
type inbox struct {
	_     [64]byte
	head  atomic.Pointer[batch] // batches to run, newest first
	_     [56]byte
	freed atomic.Pointer[batch] // this shard's nodes that their destination ran
	_     [56]byte
}

// Limits of the batch nodes a shard recycles: how many it makes (more
// are in flight only while a destination is slow: one per destination
// and turn; those are made without an owner, and dropped after their
// run), and the largest buffer a node keeps.
const (
	maxBatches   = 256
	maxBatchMsgs = 4096
)

// push adds b to the stack, and reports whether the destination must be
// woken (the stack was empty).
func (in *inbox) push(b *batch) bool {
	for {
		old := in.head.Load()
		b.next = old
		if in.head.CompareAndSwap(old, b) {
			return old == nil
		}
	}
}

// pending reports whether batches wait to be run.
func (in *inbox) pending() bool { return in.head.Load() != nil }

// takeBatch returns a free node of this shard for a batch, with an empty
// buffer.
func (s *Shard) takeBatch() *batch {
	b := s.freeBatch
	if b == nil {
		b = s.inbox.freed.Swap(nil)
		if b == nil {
			if s.batches == maxBatches {
				return &batch{}
			}
			s.batches++
			return &batch{owner: s}
		}
	}
	s.freeBatch, b.next = b.next, nil
	return b
}

// release hands b, run and cleared, back to its owner.
func (s *Shard) release(b *batch) {
	o := b.owner
	if o == nil {
		return
	}
	if cap(b.msgs) > maxBatchMsgs {
		b.msgs = nil
	} else {
		b.msgs = b.msgs[:0]
	}
	if o == s {
		b.next, s.freeBatch = s.freeBatch, b
		return
	}
	for {
		old := o.inbox.freed.Load()
		b.next = old
		if o.inbox.freed.CompareAndSwap(old, b) {
			return
		}
	}
}

// drainInbox runs every batch the inbox holds, and those pushed while it
// runs them, oldest first.
func (s *Shard) drainInbox() {
	for s.inbox.pending() {
		var first *batch
		for b := s.inbox.head.Swap(nil); b != nil; {
			next := b.next
			b.next = first
			first = b
			b = next
		}
		for b := first; b != nil; {
			next := b.next
			b.next = nil
			s.runBatch(b.msgs)
			s.release(b)
			b = next
		}
	}
}

// runBatch runs a batch's messages in order, clearing each.
func (s *Shard) runBatch(q []message) {
	for i := 0; i < len(q); {
		// Warm the keys of the next hop requests, then run them.
		n, _ := s.warmHops(q[i:])
		for end := i + n; i < end; i++ {
			if h := q[i].hop; h != nil && q[i].kind == msgHopReply {
				s.hopDone(h, moreFor(q[i+1:], h.c))
			} else {
				if q[i].kind != msgHop {
					s.stats.touched = true // a hop moves commands
				}
				s.handle(q[i])
			}
			q[i] = message{}
		}
	}
}

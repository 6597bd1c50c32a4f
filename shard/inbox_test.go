package shard

import (
	"sync"
	"testing"
)

// TestInboxOrder has three shards' loops (goroutines here) push batches
// onto a fourth's inbox while it drains them, as flushOutbox and Turn
// do: every message runs once, each sender's in the order it sent them,
// a push reports a wake only when the inbox was empty, and the nodes go
// back to their senders, which make no more of them than were in flight.
func TestInboxOrder(t *testing.T) {
	const senders, batches, per = 3, 2000, 5
	m := newSim(t, senders+1, 1)
	dst := m.g.shards[senders]
	got := make([][]int, senders) // written by dst's loop only
	var wg sync.WaitGroup
	for i := range senders {
		src := m.g.shards[i]
		wg.Go(func() {
			for n := range batches {
				b := src.takeBatch()
				for k := range per {
					seq := n*per + k
					b.msgs = append(b.msgs, message{kind: msgStats, data: runMsg(func(*Shard) { got[i] = append(got[i], seq) })})
				}
				dst.pushBy(src, b)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		dst.drainInbox()
	}
	dst.drainInbox()
	for i, seqs := range got {
		if len(seqs) != batches*per {
			t.Fatalf("sender %d: %d messages ran, want %d", i, len(seqs), batches*per)
		}
		for k, seq := range seqs {
			if seq != k {
				t.Fatalf("sender %d: message %d ran as the %dth", i, seq, k)
			}
		}
		src := m.g.shards[i]
		free := 0
		for b := src.freeBatch; b != nil; b = b.next {
			free++
		}
		for b := src.inbox.freed.Load(); b != nil; b = b.next {
			free++
		}
		if free != src.batches || src.batches > maxBatches {
			t.Errorf("sender %d made %d nodes, %d came back", i, src.batches, free)
		}
	}
	if dst.inbox.pending() {
		t.Error("inbox pending after the drain")
	}
	b := m.g.shards[0].takeBatch()
	b.msgs = append(b.msgs, message{kind: msgStats, data: runMsg(func(*Shard) {})})
	if !dst.inbox.push(b) {
		t.Error("a push onto an empty inbox does not wake it")
	}
	b = m.g.shards[1].takeBatch()
	b.msgs = append(b.msgs, message{kind: msgStats, data: runMsg(func(*Shard) {})})
	if dst.inbox.push(b) {
		t.Error("a push onto a pending inbox wakes it again")
	}
}

package shard

import (
	"bytes"

	"github.com/radish-kv/radish/pubsub"
)

// Runs of publishes. A pipeline of PUBLISHes to one channel (a client
// streaming messages) reaches the subscribers here as one run: each
// message's frame is built once per protocol into the run's buffer, and
// each subscriber gets the whole run with one write into its output when
// the run ends: at the end of the publisher's input in this turn, before
// its next command that is not a PUBLISH to that channel, or once the run
// holds runMax bytes. A batch from another shard is delivered the same
// way, its consecutive entries on one channel as one run. So a
// subscriber costs one output append, one limit check and one driver
// lookup per run instead of per message, and a message's frame costs a
// copy of the run's head (written once) and its payload's bulk.
//
// Order is kept. While a run is open only the publisher's PUBLISHes to
// the run's channel are dispatched here, and they write nothing to a
// subscriber but the run (the publisher, not subscribed to anything,
// is none; their replies go to it), so a subscriber receives the run's
// messages in their order and after everything written to it before.
// Only channels no pattern here can match make runs: a subscriber of both
// the channel and a pattern gets each publish's message before its
// pmessage, which a run would put after all of them. The registry does
// not change while a run is open (no (un)subscribe runs), so its
// subscriber slice stays valid. The count a run's publish answers is its
// subscribers here, as deliverHere's.

// runMax is the most bytes a run holds per protocol before it is
// delivered: it bounds what a pipeline of large messages keeps twice.
const runMax = 64 << 10

// pubRun is the open run of publishes from one connection, if any.
type pubRun struct {
	pub  *conn // the publisher; nil when no run is open
	ch   []byte
	subs []*conn   // the registry's subscribers of ch
	need [2]bool   // some subscriber speaks protocol 2+p
	head [2][]byte // the frame's part before the message, per protocol
	buf  [2][]byte
}

// deliverFrom is deliverHere for a PUBLISH that c runs from its input: it
// joins or opens a run when it can (see above).
func (s *Shard) deliverFrom(c *conn, ch, msg []byte) int64 {
	r := &s.ps.run
	if r.pub != nil {
		if r.pub == c && bytes.Equal(r.ch, ch) {
			s.addToRun(msg)
			return int64(len(r.subs))
		}
		s.endRun()
	}
	if !c.running || c.subscribed() || s.ps.reg.Patterns() > 0 {
		return s.deliverHere(pubsub.Channel, ch, msg)
	}
	subs := s.ps.reg.Subscribers(pubsub.Channel, ch)
	if len(subs) == 0 {
		return 0
	}
	r.pub, r.subs, r.ch = c, subs, append(r.ch[:0], ch...)
	r.need = protocols(subs)
	for p, need := range r.need {
		if need {
			r.head[p] = pubsub.AppendMessageHead(r.head[p][:0], p+2, pubsub.Channel, ch)
		}
	}
	s.addToRun(msg)
	return int64(len(subs))
}

// addToRun appends msg's frames to the open run, and delivers the run
// once it is full.
func (s *Shard) addToRun(msg []byte) {
	r := &s.ps.run
	for p, need := range r.need {
		if need {
			r.buf[p] = pubsub.AppendPayload(append(r.buf[p], r.head[p]...), msg)
		}
	}
	if len(r.buf[0]) >= runMax || len(r.buf[1]) >= runMax {
		s.endRun()
	}
}

// endRun delivers the open run, if any, to its subscribers. It inlines:
// where no run is open, one branch.
func (s *Shard) endRun() {
	if s.ps.run.pub != nil {
		s.deliverRun()
	}
}

// deliverRun is endRun's delivery.
func (s *Shard) deliverRun() {
	r := &s.ps.run
	for _, c := range r.subs {
		s.push(c, r.buf[c.cl.Proto-2])
	}
	r.pub, r.subs = nil, nil
	for p := range r.buf {
		if r.buf[p] = r.buf[p][:0]; cap(r.buf[p]) > maxHopBuf {
			r.buf[p] = nil
		}
	}
}

// continuesRun reports whether args may belong to the open run: a
// PUBLISH (deliverFrom checks its channel). Anything else ends the run
// before it is dispatched.
func continuesRun(args [][]byte) bool {
	return len(args) == 3 && len(args[0]) == 7 && bytes.EqualFold(args[0], []byte("publish"))
}

// protocols reports which protocols subs speak.
func protocols(subs []*conn) (need [2]bool) {
	for _, c := range subs {
		need[c.cl.Proto-2] = true
	}
	return need
}

// deliverBatchRun delivers the entries b.ents[i:j] of a batch from
// another shard, all of op (pubChannel or pubShard) on one channel, to
// the subscribers here as one run, and returns how many there are.
// Channel runs are only made while no pattern has subscribers here.
func (s *Shard) deliverBatchRun(b *pubBatch, op pubOp, i, j int) int64 {
	kind := pubsub.Channel
	if op == pubShard {
		kind = pubsub.Shard
	}
	ch, _ := b.at(i)
	subs := s.ps.reg.Subscribers(kind, ch)
	if len(subs) == 0 {
		return 0
	}
	need := protocols(subs)
	ps := &s.ps
	for p := range ps.frames {
		ps.frames[p] = ps.frames[p][:0]
		if !need[p] {
			continue
		}
		ps.head[p] = pubsub.AppendMessageHead(ps.head[p][:0], p+2, kind, ch)
		for k := i; k < j; k++ {
			_, msg := b.at(k)
			ps.frames[p] = pubsub.AppendPayload(append(ps.frames[p], ps.head[p]...), msg)
		}
	}
	for _, c := range subs {
		s.push(c, ps.frames[c.cl.Proto-2])
	}
	for p := range ps.frames {
		if cap(ps.frames[p]) > maxHopBuf {
			ps.frames[p] = nil
		}
	}
	return int64(len(subs))
}

// runEnd returns the end of the run of b's entries from i: the first
// entry after i that is not of i's op or not on i's channel, or that
// cannot join a run (one that skips a connection).
func (s *Shard) runEnd(b *pubBatch, i int) int {
	op := b.ents[i].op
	if op == pubOwner || op == pubChannel && s.ps.reg.Patterns() > 0 || b.ents[i].skip != nil {
		return i + 1
	}
	ch, _ := b.at(i)
	j := i + 1
	for j < len(b.ents) && b.ents[j].op == op && b.ents[j].skip == nil {
		if next, _ := b.at(j); !bytes.Equal(next, ch) {
			break
		}
		j++
	}
	return j
}

// at returns the channel and message of b's entry i.
func (b *pubBatch) at(i int) (ch, msg []byte) {
	start := 0
	if i > 0 {
		start = b.ents[i-1].msgEnd
	}
	e := &b.ents[i]
	return b.buf[start:e.chEnd], b.buf[e.chEnd:e.msgEnd]
}

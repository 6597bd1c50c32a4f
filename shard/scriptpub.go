package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/pubsub"
)

// PUBLISH in a script on several shards. A script's call must answer at
// once, and the other shards' subscribers are theirs to count, so a run
// learns them first: the first call of PUBLISH on a channel the job has
// no counts for abandons the run as a key of another shard would (a
// fault with pub set), home asks every shard how many of its connections
// receive a message on that channel (receivers: its subscribers and those
// of its matching patterns) and runs the script again, where it ran.
// Then each PUBLISH answers the other shards' counts plus this shard's,
// read at the call, and is kept in the run's order (scriptPubs); once the
// run is done, and before its reply, the messages go out as a PUBLISH's
// do: to this shard's subscribers at once, to every shard whose Filter
// wants the channel in this turn's batch. An abandoned run's publishes
// are dropped with its writes. So a subscriber receives a script's
// messages after the run and before anything its caller sends next, in
// the order the script published them. The count is the other shards'
// as they were when asked: a subscription made or dropped there between
// the question and the run is counted as it was. SPUBLISH, and PUBLISH in
// a script queued in MULTI, are still refused on several shards.
//
// While a replication stream is fed the publishes are effects of the
// script, inside its MULTI ... EXEC: a run on one shard's store appends
// each where it is called (an abandoned run's are truncated with its
// writes); a run on gathered copies hands them to its first part's
// write-back, whose shard appends them after the part's writes.

// scriptPubs are the publishes of a script run, in order: channels and
// messages back to back in buf.
type scriptPubs struct {
	buf  []byte
	ends []int // publish i is buf[ends[2i-1]:ends[2i]] (channel), buf[ends[2i]:ends[2i+1]] (message)
}

// scriptPublish answers a script's PUBLISH on several shards from the
// job's counts and keeps it in pubs, or reports that the run must stop
// for the channel's counts (false).
func (s *Shard) scriptPublish(j *scriptCall, pubs *scriptPubs, args [][]byte, w *resp.Writer) bool {
	per, ok := j.counts[string(args[1])]
	if !ok {
		return false
	}
	n := s.receivers(args[1])
	for q, k := range per {
		if q != s.id {
			n += k
		}
	}
	pubs.add(args[1], args[2])
	w.Int(n)
	return true
}

// add appends a publish of msg to ch.
func (p *scriptPubs) add(ch, msg []byte) {
	p.buf = append(p.buf, ch...)
	p.ends = append(p.ends, len(p.buf))
	p.buf = append(p.buf, msg...)
	p.ends = append(p.ends, len(p.buf))
}

// each calls fn with every publish of p, in order.
func (p *scriptPubs) each(fn func(ch, msg []byte)) {
	start := 0
	for i := 0; i+1 < len(p.ends); i += 2 {
		fn(p.buf[start:p.ends[i]], p.buf[p.ends[i]:p.ends[i+1]])
		start = p.ends[i+1]
	}
}

// clone is a copy of p that shares nothing with it.
func (p *scriptPubs) clone() scriptPubs {
	return scriptPubs{buf: slices.Clone(p.buf), ends: slices.Clone(p.ends)}
}

// isPublish reports whether a script's call of spec is a PUBLISH that
// scriptPublish answers: on several shards.
func (s *Shard) isPublish(spec *command.Spec) bool {
	return spec.PubSub == command.PSPublish && len(s.group.shards) > 1
}

// sendPubs publishes a finished run's messages, in order, and empties
// pubs.
func (s *Shard) sendPubs(pubs *scriptPubs) {
	pubs.each(s.notifyPublish)
	pubs.reset()
}

func (p *scriptPubs) reset() { p.buf, p.ends = p.buf[:0], p.ends[:0] }

// receivers is how many of this shard's connections a message on ch
// reaches: its subscribers and those of every matching pattern.
func (s *Shard) receivers(ch []byte) int64 {
	n := int64(s.ps.reg.NumSub(pubsub.Channel, ch))
	if s.ps.reg.Patterns() > 0 {
		s.ps.reg.Matching(ch, func(_ string, subs []*conn) { n += int64(len(subs)) })
	}
	return n
}

// countReceivers asks every shard for its receivers of ch, keeps the
// answers in j.counts, then runs then.
func (s *Shard) countReceivers(j *scriptJob, ch []byte, then func()) {
	answers := make([]pubAnswer, len(s.group.shards))
	ch = slices.Clone(ch)
	args := [][]byte{ch}
	answers[s.id] = s.pubsubPart(command.PSPublish, args, nil)
	s.queryShards(command.PSPublish, args, nil, answers, func() {
		per := make([]int64, len(answers))
		for q, a := range answers {
			per[q] = a.counts[0]
		}
		if j.counts == nil {
			j.counts = make(map[string][]int64)
		}
		j.counts[string(ch)] = per
		then()
	})
}

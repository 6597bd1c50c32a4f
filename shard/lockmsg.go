package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
)

// lockMsg is one step of a txn's lock taking (coord.Txn's Steps) as a
// message's contents: the request to one part's shard (msgTryLock,
// msgLock, msgUnlock) and its answer home (msgTried, msgLockGranted). The
// part's shard reads only the request's fields and writes only the
// answer's; t is home's, carried there and back and read by nobody else.
// A test (the simulator) can read what a message asks and answers.
type lockMsg struct {
	t     *txn // home's only
	home  int
	id    uint64 // the txn's
	part  int    // the part's index in the txn
	p     coord.Part
	spec  *command.Spec // whether an out-of-memory shard refuses it
	watch []watched     // an EXEC's watched keys on the part's shard
	queue bool          // msgTryLock of coord.LockFirst: queue it when not granted now

	// The answer: the keys were taken (msgTried), the shard is out of
	// memory, a watched key changed.
	ok, oom, dirty bool
}

// sendLock sends l to shard dst as a message of kind k.
func (s *Shard) sendLock(dst int, k msgKind, l *lockMsg) {
	m := message{kind: k, lock: l}
	if dst == s.id {
		s.local = append(s.local, m)
		return
	}
	s.outbox[dst] = append(s.outbox[dst], m)
}

// lockStep sends the request of step st of t's lock taking.
func (s *Shard) lockStep(t *txn, st coord.Step) {
	i, p := st.Part, t.co.Parts[st.Part]
	var l *lockMsg
	if t.pooled && (st.Kind == coord.TryLock || st.Kind == coord.LockFirst) {
		// Begin's request, one per part, answered before any part runs.
		l = &t.bufs.lms[i]
		*l = lockMsg{t: t, home: s.id, id: t.id, part: i, p: p, spec: t.spec}
	} else {
		l = &lockMsg{t: t, home: s.id, id: t.id, part: i, p: p, spec: t.spec}
	}
	if t.watch != nil {
		l.watch = t.watch[i]
	}
	switch st.Kind {
	case coord.TryLock:
		s.sendLock(p.Shard, msgTryLock, l)
	case coord.LockFirst:
		l.queue = true
		s.sendLock(p.Shard, msgTryLock, l)
	case coord.Lock:
		s.sendLock(p.Shard, msgLock, l)
	case coord.Unlock:
		s.sendLock(p.Shard, msgUnlock, l)
	}
}

// handleLock runs a lock message on its destination: a request on the
// part's shard, an answer at home. An EXEC's watched keys are checked as
// each grant is made: from then on the txn holds them.
func (s *Shard) handleLock(k msgKind, l *lockMsg) {
	switch k {
	case msgTryLock:
		l.ok = s.tryLockPart(l.id, l.p)
		if !l.ok && l.queue {
			// Queued (the keys are as busy as a moment ago): the grant
			// answers again, in a message of its own.
			g := *l
			s.lockPart(l.id, l.p, func() { s.granted(&g) })
		}
		l.oom = l.ok && s.oom(l.spec)
		l.dirty = l.ok && !s.unchanged(l.watch)
		s.sendLock(l.home, msgTried, l)
	case msgLock:
		s.lockPart(l.id, l.p, func() { s.granted(l) })
	case msgUnlock:
		s.unlockPart(l.id, l.p)
	case msgTried:
		t := l.t
		t.dirty = t.dirty || l.dirty
		s.steps(t, t.co.Tried(l.part, l.ok, l.oom))
	case msgLockGranted:
		t := l.t
		t.dirty = t.dirty || l.dirty
		s.steps(t, t.co.Locked(l.part, l.oom))
	}
}

// granted answers home that l's keys are held.
func (s *Shard) granted(l *lockMsg) {
	l.oom = s.oom(l.spec)
	l.dirty = !s.unchanged(l.watch)
	s.sendLock(l.home, msgLockGranted, l)
}

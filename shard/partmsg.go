package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
)

// partMsg is one step of a locked txn on one of its parts as a message's
// contents: the gather plan's export (msgGather, answered msgGathered with
// the keys' values) and write-back (msgWriteBack, answered
// msgWrittenBack). The part's shard reads the request's fields and writes
// only the answer's; t is home's, carried there and back and read by
// nobody else. What the part's shard reads of the command (args, the keys
// of reads and p) is the txn's copy, which nothing changes until the txn
// is over. A test (the simulator) can read what a message asks and
// answers.
type partMsg struct {
	t    *txn // home's only
	home int
	part int // the part's index in the txn
	id   uint64
	p    coord.Part  // the part's keys, which it releases unless held
	held bool        // an EXEC's locks cover the part: it releases nothing
	tag  command.Tag // the effects' tag (msgWriteBack)

	// msgGather: the keys to export, each from its database (the gather
	// plan's coord.Read), after spec.BeforeGather on args in database db.
	reads []coord.Read
	spec  *command.Spec
	args  [][]byte
	db    int

	// entries: msgGathered's exports, in reads' order; msgWriteBack's keys
	// to write. events: msgWriteBack's keyspace events for the part's
	// keys, emitted in database db.
	entries []entry
	events  []heldEvent
}

// sendPart sends pm to shard dst as a message of kind k.
func (s *Shard) sendPart(dst int, k msgKind, pm *partMsg) {
	m := message{kind: k, part: pm}
	if dst == s.id {
		s.local = append(s.local, m)
		return
	}
	s.outbox[dst] = append(s.outbox[dst], m)
}

// handlePart runs a part message on its destination: a request on the
// part's shard, an answer at home.
func (s *Shard) handlePart(k msgKind, pm *partMsg) {
	switch k {
	case msgGather:
		if pm.spec.BeforeGather != nil {
			pm.spec.BeforeGather(s.store.DB(pm.db), pm.args, s.now)
		}
		s.countSources(pm.db, pm.spec, pm.args)
		pm.entries = make([]entry, len(pm.reads))
		for j, r := range pm.reads {
			rec, ok := s.store.DB(r.DB).Export(r.Key, s.now)
			pm.entries[j] = entry{db: r.DB, key: r.Key, rec: rec, ok: ok}
		}
		s.sendPart(pm.home, msgGathered, pm)
	case msgWriteBack:
		for _, e := range pm.entries {
			s.writeBack(e, pm.tag)
		}
		s.kev.db = pm.db
		for _, e := range pm.events {
			s.emitEvent(e.class, e.name, e.key)
		}
		if !pm.held {
			s.unlockPart(pm.id, pm.p)
		}
		pm.entries, pm.events = nil, nil
		s.sendPart(pm.home, msgWrittenBack, pm)
	case msgGathered:
		if pm.t.gp.Exported(pm.part) {
			s.runGathered(pm.t)
		}
	case msgWrittenBack:
		s.wroteBack(pm.t, pm.part)
	}
}

package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/net/resp"
)

// partMsg is one step of a locked txn on one of its parts as a message's
// contents: its run (msgPartRun, of a txn's part, of a command on every
// shard or of an EXEC's round, answered msgPartDone with the reply; an
// EXEC's whole run on the one shard of its keys, msgExec, likewise), the
// release of a refused txn's part (msgUnlock, answered msgPartDone), and
// the gather plan's export (msgGather, answered msgGathered with the
// keys' values) and write-back (msgWriteBack, answered msgWrittenBack);
// and WATCH's registration of keys on their shard (msgWatch, answered
// msgWatched) and their release (msgUnwatch), watchmsg.go. The part's
// shard reads the request's fields and writes only the answer's; t is
// home's, carried there and back and read by nobody else. What the
// part's shard reads of the command (args, the keys of reads and p) is
// the txn's copy, which nothing changes until the txn is over. A test
// (the simulator) can read what a message asks and answers.
type partMsg struct {
	t    *txn // home's only
	home int
	part int // the part's index in the txn
	id   uint64
	p    coord.Part  // the part's keys, which it releases unless held
	held bool        // an EXEC's locks cover the part: it releases nothing
	wrap bool        // msgWriteBack: its effects are one transaction's (a held script's)
	tag  command.Tag // the effects' tag (msgPartRun, msgWriteBack)
	step msgKind     // msgPartDone: the request it answers

	// msgPartRun: the command (spec, args: the part's; whole: all of a
	// txn's, for the first part's slow log and MONITOR line) as the client
	// runs it; all: a command on every shard (fanOutAll), which waits
	// behind every lock and queued command there. reply: the answer.
	proto   int
	noTouch bool
	who     reader
	whole   [][]byte
	all     bool
	locked  bool // all, holding the shard whole (p): it runs at once and releases it
	// reply is written by w, into the buffer a pooled txn's message
	// keeps (txnpool.go), or a new one.
	reply []byte
	w     resp.Writer

	// msgGather: the keys to export, each from its database (the gather
	// plan's coord.Read), after spec.BeforeGather on args in database db.
	reads []coord.Read
	spec  *command.Spec
	args  [][]byte
	db    int

	// entries: msgGathered's exports, in reads' order; msgWriteBack's keys
	// to write. events: msgWriteBack's keyspace events for the part's
	// keys, each in its own database.
	entries []entry
	events  []heldEvent
	// pubs: msgWriteBack's publishes to propagate after its writes (a
	// held script's, in database db: scriptpub.go), or nil.
	pubs *scriptPubs

	// ex: an EXEC's commands on the part and their answer (execmsg.go).
	ex *execPart
	// wp: a WATCH's keys on the shard and their versions (watchmsg.go).
	wp *watchPart
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
	switch {
	case pm.wp != nil:
		s.handleWatch(k, pm)
		return
	case pm.ex != nil && k == msgPartDone:
		s.execPartDone(pm)
		return
	case pm.ex != nil:
		s.runExecPart(k, pm)
		return
	}
	switch k {
	case msgPartRun:
		if pm.all && !pm.locked {
			// Behind every lock and deferred command on the shard, so that
			// it sees (or flushes, or swaps) what was sent before it.
			s.runOrDeferAll(func() { s.runPart(pm) })
			return
		}
		s.runPart(pm)
	case msgUnlock:
		s.unlockPart(pm.id, pm.p)
		pm.step = msgUnlock
		s.sendPart(pm.home, msgPartDone, pm)
	case msgPartDone:
		if pm.step == msgUnlock {
			s.refused(pm.t)
			return
		}
		s.partDone(pm.t, pm.part, pm.reply)
	case msgGather:
		if pm.spec.BeforeGather != nil {
			pm.spec.BeforeGather(s.store.DB(pm.db), pm.args, s.now)
		}
		s.countSources(pm.db, pm.spec, pm.args)
		pm.entries = slices.Grow(pm.entries[:0], len(pm.reads))[:len(pm.reads)] // a pooled txn's array
		for j, r := range pm.reads {
			rec, ok := s.store.DB(r.DB).Export(r.Key, s.now)
			pm.entries[j] = entry{db: r.DB, key: r.Key, rec: rec, ok: ok}
		}
		s.sendPart(pm.home, msgGathered, pm)
	case msgWriteBack:
		mark := s.fxMark()
		for _, e := range pm.entries {
			s.writeBack(e, pm.tag)
		}
		if pm.pubs != nil {
			s.mut.fx.Tag = pm.tag
			pm.pubs.each(func(ch, msg []byte) { s.propagatePub(pm.db, "PUBLISH", ch, msg) })
			s.mut.fx.Tag = command.Tag{}
			pm.pubs = nil
		}
		if pm.wrap {
			s.fxWrap(mark, pm.tag)
		}
		for _, e := range pm.events {
			s.kev.db = e.db
			s.emitEvent(e.class, e.name, e.key)
		}
		if !pm.held {
			s.unlockPart(pm.id, pm.p)
		}
		clear(pm.entries[:cap(pm.entries)]) // no exported record stays
		pm.entries, pm.events = pm.entries[:0], nil
		s.sendPart(pm.home, msgWrittenBack, pm)
	case msgGathered:
		if pm.t.gp.Exported(pm.part) {
			s.runGathered(pm.t)
		}
	case msgWrittenBack:
		s.wroteBack(pm.t, pm.part)
	}
}

// runPart runs pm's command on this shard, releases the part's keys
// unless an EXEC holds them or it ran on every shard, and answers home.
func (s *Shard) runPart(pm *partMsg) {
	w := &pm.w
	w.Proto, w.B = pm.proto, pm.reply[:0]
	s.mut.fx.Tag = pm.tag
	s.who = pm.who
	s.laterPart, s.wholeArgs = pm.part > 0, pm.whole
	mark := s.fxMark()
	switch {
	case pm.all:
		s.exec(w, nil, pm.noTouch, pm.db, pm.spec, pm.args)
	case s.id == pm.home:
		// The connection's own shard: the txn is this shard's to touch.
		s.ps.self = selfPush{c: pm.t.c, buf: &pm.t.pushed}
		s.run1(w, nil, pm.noTouch, pm.db, pm.spec, pm.args)
		s.ps.self = selfPush{}
	default:
		s.run1(w, nil, pm.noTouch, pm.db, pm.spec, pm.args)
	}
	s.partRan(mark, pm.tag)
	s.laterPart, s.wholeArgs = false, nil
	s.who = reader{}
	s.mut.fx.Tag = command.Tag{}
	switch {
	case pm.locked:
		s.unlockPart(pm.id, pm.p)
	case !pm.held && !pm.all:
		s.unlock(pm.id, pm.p.Keys)
	}
	pm.reply, pm.step, w.B = w.B, msgPartRun, nil
	s.sendPart(pm.home, msgPartDone, pm)
}

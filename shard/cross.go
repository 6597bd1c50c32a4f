package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/engine"
)

// The gather plan runs a command whose keys span shards and whose reply
// is not a merge of per-shard parts (RENAME, MSETNX, SMOVE, ZUNIONSTORE,
// LMOVE ...) with the very handler that runs it on one shard: while the
// txn holds every key, the coordinator copies the keys into a scratch
// store, runs the handler there, and writes back each key the handler
// changed. One mechanism, Redis's exact semantics, atomic.
//
// Which keys each shard exports, from which database (the client's, or for
// a key the command writes, the one OtherDB names: COPY ... DB n), and
// which go back, is the plan's (coord.Gather); the messages are partMsg
// values (partmsg.go). The keys the handler changed are those the scratch
// store noted as it counted each change (engine.Store.TrackWrites);
// nothing is exported again to compare.

// entry is one key of one database, as exported from its shard.
type entry struct {
	db  int
	key []byte
	rec engine.Record
	ok  bool // the key exists
}

// gather runs t with the gather plan (coord.Gather: which keys each
// part's shard exports, from which database): every part's export goes
// out at once, each a partMsg.
func (s *Shard) gather(t *txn) {
	other := -1
	if t.spec.OtherDB != nil {
		if other = t.spec.OtherDB(t.args); other == t.db || other >= s.group.opts.Databases {
			other = -1
		}
	}
	t.gp.Plan(&t.co, t.db, other)
	t.pms = t.partMsgs(len(t.parts))
	for i := range t.parts {
		t.pms[i] = partMsg{t: t, home: s.id, part: i, id: t.id, p: t.co.Parts[i], held: t.in != nil,
			reads: t.gp.Reads[i], spec: t.spec, args: t.args, db: t.db, entries: t.pms[i].entries}
		s.sendPart(t.parts[i].Shard, msgGather, &t.pms[i])
	}
}

// runGathered runs the handler on the scratch store, once every export is
// in, and writes back what the plan says.
func (s *Shard) runGathered(t *txn) {
	sc := s.scratchStore()
	sc.Clear()
	sc.Limits = s.store.Limits // the encodings a write there picks are the shard's
	got := slices.Grow(s.got[:0], len(t.pms))[:len(t.pms)]
	s.got = got
	defer clear(got) // no exported record stays in the scratch
	for i := range t.pms {
		got[i] = t.pms[i].entries
		for _, e := range got[i] {
			if e.ok {
				sc.DB(e.db).Import(e.key, e.rec)
			}
		}
	}
	w := &s.gatherW
	w.Proto, w.B = t.proto, nil
	if t.pooled {
		w.B = t.sl.buf[:0] // the reply goes into the pooled slot's buffer
	}
	ctx := &s.gatherCtx
	ctx.Reset(command.Ctx{Store: sc, DB: sc.DB(t.db), DBIndex: t.db, W: w, Now: s.now, MaxBulkLen: s.conf.ProtoMaxBulkLen,
		Server: s.group, Owns: func([]byte) bool { return true }, Scripts: s, Access: t.who.access()})
	s.stats.commands++
	s.stats.count(t.spec)
	dirty := sc.Dirty()
	sc.TrackWrites(true)
	// The copies hold the keys as their shards do, so a lookup there finds
	// what it would have found on its shard: it counts here (the keys'
	// own shards counted a ReadsAccessKeys command's sources in gather).
	reads := t.spec.Reads(t.args)
	sc.RecordMisses(s.kev.flags&config.NotifyKeyMiss != 0)
	sc.CountReads(reads == command.ReadsLookups || reads == command.ReadsSilently)
	if t.blockFn != nil {
		var wait command.Wait
		t.gBlocked = t.blockFn(ctx, t.args, &wait)
	} else {
		t.spec.Handler(ctx, t.args)
	}
	ctx.Reset(command.Ctx{}) // keep no reference to the copies or the writer
	sc.TrackWrites(false)
	sc.CountReads(false)
	s.store.AddReads(sc)
	if s.kev.flags&config.NotifyKeyMiss != 0 {
		s.kev.db = t.db
		sc.Misses(s.keyMiss)
	}
	var events []heldEvent
	if sc.Dirty() != dirty && s.kev.flags != 0 {
		events = s.gatheredEvents(t, sc, got, sc.Dirty()-dirty)
	}
	t.gReply, w.B = w.B, nil
	// What goes back to each part is the plan's (coord.Gather.Writes):
	// the keys the command may write that the handler changed, each once;
	// an export's entries are rewritten in place with the new values.
	changed := sc.Dirty() != dirty
	wrote := func(db int, key []byte) bool { return changed && sc.Wrote(db, key) }
	for i := range t.pms {
		pm := &t.pms[i]
		es := pm.entries[:0]
		t.gp.Writes(i, wrote, func(j int) {
			e := pm.entries[j]
			e.rec, e.ok = sc.DB(e.db).Export(e.key, s.now)
			es = append(es, e)
		})
		pm.entries, pm.events, pm.tag = es, s.heldFor(events, t.parts[i].Shard), t.tag(i)
		s.sendPart(t.parts[i].Shard, msgWriteBack, pm)
	}
	sc.Clear()
}

// wroteBack is told that t's write-back to part i is done: once every
// part's is, t is over (a held script's answered already: gFeedOnly).
func (s *Shard) wroteBack(t *txn, i int) {
	if !t.gp.WroteBack(i) {
		return
	}
	if t.gFeedOnly {
		s.feedDone(t)
		return
	}
	if t.gBlocked {
		t.wouldBlock()
		return
	}
	s.finish(t, t.gReply)
}

// scratchStore is the scratch store, made on first use.
func (s *Shard) scratchStore() *engine.Store {
	if s.scratch == nil {
		s.scratch = engine.NewStore(s.group.opts.Databases)
	}
	return s.scratch
}

package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// The gather plan runs a command whose keys span shards and whose reply
// is not a merge of per-shard parts (RENAME, MSETNX, SMOVE, ZUNIONSTORE,
// LMOVE ...) with the very handler that runs it on one shard: while the
// txn holds every key, the coordinator copies the keys into a scratch
// store, runs the handler there, and writes back each key the handler
// changed. One mechanism, Redis's exact semantics, atomic.
//
// Each shard exports only its part's keys, each from the one database the
// command uses it in: the client's, or for a key the command writes, the
// database OtherDB names (COPY ... DB n). The keys the handler changed are
// those the scratch store noted as it counted each change
// (engine.Store.TrackWrites); nothing is exported again to compare.

// entry is one key of one database, as exported from its shard.
type entry struct {
	db  int
	key []byte
	rec engine.Record
	ok  bool // the key exists
}

// gather runs t with the gather plan. Each part's shard exports its keys,
// those t writes from the other database the command names (COPY ... DB
// n), if any, the others from the client's.
func (s *Shard) gather(t *txn) {
	got := make([][]entry, len(t.parts))
	left := len(t.parts)
	other := -1
	if t.spec.OtherDB != nil {
		if other = t.spec.OtherDB(t.args); other == t.db || other >= s.group.opts.Databases {
			other = -1
		}
	}
	for i := range t.parts {
		keys, db := t.co.Parts[i].Keys, t.db
		pre, args, spec := t.spec.BeforeGather, t.args, t.spec
		s.on(t, i, msgGather, func(o *Shard) any {
			if pre != nil {
				pre(o.store.DB(db), args, o.now)
			}
			o.countSources(db, spec, args)
			es := make([]entry, len(keys))
			for j, k := range keys {
				kdb := db
				if k.Intent == coord.Exclusive && other >= 0 {
					kdb = other
				}
				rec, ok := o.store.DB(kdb).Export(k.Name, o.now)
				es[j] = entry{db: kdb, key: k.Name, rec: rec, ok: ok}
			}
			return es
		}, func(r any) {
			got[i] = r.([]entry)
			if left--; left == 0 {
				s.runGathered(t, got)
			}
		})
	}
}

// runGathered runs the handler on the scratch store and writes back.
func (s *Shard) runGathered(t *txn, got [][]entry) {
	sc := s.scratchStore()
	sc.Clear()
	sc.Limits = s.store.Limits // the encodings a write there picks are the shard's
	for _, es := range got {
		for _, e := range es {
			if e.ok {
				sc.DB(e.db).Import(e.key, e.rec)
			}
		}
	}
	w := resp.Writer{Proto: t.proto}
	ctx := command.Ctx{Store: sc, DB: sc.DB(t.db), DBIndex: t.db, W: &w, Now: s.now, MaxBulkLen: s.conf.ProtoMaxBulkLen,
		Server: s.group, Owns: func([]byte) bool { return true }, Scripts: s, Access: t.who.access()}
	s.stats.commands++
	s.stats.count(t.spec)
	dirty := sc.Dirty()
	sc.TrackWrites(true)
	blocked := false
	// The copies hold the keys as their shards do, so a lookup there finds
	// what it would have found on its shard: it counts here (the keys'
	// own shards counted a ReadsAccessKeys command's sources in gather).
	reads := t.spec.Reads(t.args)
	sc.RecordMisses(s.kev.flags&config.NotifyKeyMiss != 0)
	sc.CountReads(reads == command.ReadsLookups || reads == command.ReadsSilently)
	if t.blockFn != nil {
		var wait command.Wait
		blocked = t.blockFn(&ctx, t.args, &wait)
	} else {
		t.spec.Handler(&ctx, t.args)
	}
	sc.TrackWrites(false)
	sc.CountReads(false)
	s.store.AddReads(sc)
	if s.kev.flags&config.NotifyKeyMiss != 0 {
		s.kev.db = t.db
		sc.Misses(s.keyMiss)
	}
	var events []heldEvent
	if sc.Dirty() != dirty && s.kev.flags != 0 {
		events = s.gatheredEvents(t, sc, got)
	}
	// A key is written back when the handler changed it and the command
	// may write it (a read that changes a key, PFCOUNT caching its count,
	// changes only its own copy here); Wrote says so once, so a key the
	// command names twice is written back once.
	var writable map[string]bool
	if sc.Dirty() != dirty {
		writable = make(map[string]bool)
		idx, _ := t.spec.WriteKeys(t.args, nil)
		for _, j := range idx {
			writable[string(t.args[j])] = true
		}
	}
	left := len(t.parts)
	for i, es := range got {
		var writes []entry
		for _, e := range es {
			if !writable[string(e.key)] || !sc.Wrote(e.db, e.key) {
				continue
			}
			rec, ok := sc.DB(e.db).Export(e.key, s.now)
			writes = append(writes, entry{db: e.db, key: e.key, rec: rec, ok: ok})
		}
		tag, id, part, held, db := t.tag(i), t.id, t.co.Parts[i], t.in != nil, t.db
		evs := s.heldFor(events, t.parts[i].Shard)
		s.on(t, i, msgWriteBack, func(o *Shard) any {
			for _, e := range writes {
				o.writeBack(e, tag)
			}
			o.kev.db = db
			for _, e := range evs {
				o.emitEvent(e.class, e.name, e.key)
			}
			if !held {
				o.unlockPart(id, part)
			}
			return nil
		}, func(any) {
			if left--; left > 0 {
				return
			}
			if blocked {
				t.wouldBlock()
				return
			}
			s.finish(t, w.B)
		})
	}
	sc.Clear()
}

// scratchStore is the scratch store, made on first use.
func (s *Shard) scratchStore() *engine.Store {
	if s.scratch == nil {
		s.scratch = engine.NewStore(s.group.opts.Databases)
	}
	return s.scratch
}

// on runs fn for part i on its shard as a message of kind k and hands the
// result to then on this shard (msgPartDone): every step of a txn, a
// gather or a fan-out is one on.
func (s *Shard) on(t *txn, i int, k msgKind, fn func(o *Shard) any, then func(r any)) {
	home := s.id
	s.send(t.parts[i].Shard, k, func(o *Shard) {
		r := fn(o)
		o.send(home, msgPartDone, func(*Shard) { then(r) })
	})
}

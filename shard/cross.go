package shard

import (
	"bytes"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// The gather plan runs a command whose keys span shards and whose reply
// is not a merge of per-shard parts (RENAME, MSETNX, SMOVE, ZUNIONSTORE,
// LMOVE ...) with the very handler that runs it on one shard: while the txn holds every key, the coordinator copies the keys
// into a scratch store, runs the handler there, and writes back each key
// whose value changed. One mechanism, Redis's exact semantics, atomic.

// entry is one key of one database, as exported from its shard.
type entry struct {
	db  int
	key []byte
	rec engine.Record
	ok  bool // the key exists
}

// gather runs t with the gather plan.
func (s *Shard) gather(t *txn) {
	dbs := s.group.opts.Databases
	got := make([][]entry, len(t.parts))
	left := len(t.parts)
	for i := range t.parts {
		s.on(t, i, msgGather, func(o *Shard) any {
			var es []entry
			// Every database: a handler may reach another one (COPY ... DB n).
			for db := range dbs {
				for _, k := range t.keys[i] {
					rec, ok := o.store.DB(db).Export(k, o.now)
					es = append(es, entry{db: db, key: k, rec: rec, ok: ok})
				}
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
	if s.scratch == nil {
		s.scratch = engine.NewStore(s.group.opts.Databases)
	}
	sc := s.scratch
	sc.FlushAll()
	for _, es := range got {
		for _, e := range es {
			if e.ok {
				sc.DB(e.db).Import(e.key, e.rec)
			}
		}
	}
	w := resp.Writer{Proto: t.proto}
	ctx := command.Ctx{Store: sc, DB: sc.DB(t.db), DBIndex: t.db, W: &w, Now: s.now,
		Server: s.group, Owns: func([]byte) bool { return true }}
	s.stats.commands++
	s.stats.count(t.spec)
	blocked := false
	if t.blockFn != nil {
		var wait command.Wait
		blocked = t.blockFn(&ctx, t.args, &wait)
	} else {
		t.spec.Handler(&ctx, t.args)
	}
	left := len(t.parts)
	for i, es := range got {
		var writes []entry
		for _, e := range es {
			rec, ok := sc.DB(e.db).Export(e.key, s.now)
			if ok != e.ok || ok && !sameRecord(rec, e.rec) {
				writes = append(writes, entry{db: e.db, key: e.key, rec: rec, ok: ok})
			}
		}
		s.on(t, i, msgWriteBack, func(o *Shard) any {
			for _, e := range writes {
				if e.ok {
					o.store.DB(e.db).Import(e.key, e.rec)
					if _, ok := o.waiters[wkey{e.db, string(e.key)}]; ok {
						o.markReady(wkey{e.db, string(e.key)})
					}
				} else {
					o.store.DB(e.db).Delete(e.key, o.now)
				}
			}
			o.unlock(t.id, t.keys[i])
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
	sc.FlushAll()
}

func sameRecord(a, b engine.Record) bool {
	return a.Type == b.Type && a.ExpireAt == b.ExpireAt && bytes.Equal(a.Data, b.Data)
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

package shard

import (
	"strconv"
	"strings"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// Cross plans: commands whose keys span shards and whose parts depend on
// each other (RENAME moves a value from one shard to another). They run
// while the txn holds every key, so each plan is atomic.

// result is what a plan's step sends back to the coordinator.
type result struct {
	rec    engine.Record
	found  bool
	exists int
}

// on runs fn for part i on its shard while the txn holds its keys, and
// hands the result to then on this shard.
func (s *Shard) on(t *txn, i int, fn func(o *Shard, db *engine.DB) result, then func(r result)) {
	home := s.id
	s.send(t.parts[i].Shard, func(o *Shard) {
		r := fn(o, o.store.DB(t.db))
		o.send(home, func(*Shard) { then(r) })
	})
}

// release unlocks every part of t, each on its shard.
func (s *Shard) release(t *txn) {
	for i, p := range t.parts {
		s.send(p.Shard, func(o *Shard) { o.unlock(t.id, t.keys[i]) })
	}
}

// partOf returns the index of the part holding the command's k-th key.
func partOf(t *txn, k int) int {
	for i, p := range t.parts {
		for _, pos := range p.Pos {
			if pos == k {
				return i
			}
		}
	}
	return -1
}

// reply1 finishes t with a reply written by fn.
func (s *Shard) reply1(t *txn, fn func(w *resp.Writer)) {
	var w resp.Writer
	w.Proto = t.proto
	fn(&w)
	s.finish(t, w.B)
}

func (s *Shard) runCross(t *txn) {
	switch t.spec.Cross {
	case command.CrossRename, command.CrossRenameNX, command.CrossCopy:
		s.crossMove(t)
	case command.CrossMSetNX:
		s.crossMSetNX(t)
	}
}

// crossMove is RENAME, RENAMENX and COPY with source and destination on
// different shards: export the source, check the destination, import, and
// (unless COPY) delete the source.
func (s *Shard) crossMove(t *txn) {
	args := t.parts[0].Args // every part shares the command's arguments
	src, dst := partOf(t, 0), partOf(t, 1)
	srcKey, dstKey := t.keys[src][0], t.keys[dst][0]
	kind := t.spec.Cross
	dstDB, replace := t.db, kind == command.CrossRename
	if kind == command.CrossCopy {
		var errText string
		dstDB, replace, errText = copyOptions(args, t.db, s.group.opts.Databases)
		if errText != "" {
			s.release(t)
			s.reply1(t, func(w *resp.Writer) { w.Error(errText) })
			return
		}
	}
	s.on(t, src, func(o *Shard, db *engine.DB) result {
		rec, ok := db.Export(srcKey, o.now)
		return result{rec: rec, found: ok}
	}, func(r result) {
		if !r.found {
			s.release(t)
			s.reply1(t, func(w *resp.Writer) {
				if kind == command.CrossCopy {
					w.Int(0)
				} else {
					w.Error("ERR no such key")
				}
			})
			return
		}
		s.on(t, dst, func(o *Shard, _ *engine.DB) result {
			db := o.store.DB(dstDB)
			if !replace && db.Exists(dstKey, o.now) {
				return result{exists: 1}
			}
			db.Import(dstKey, r.rec)
			return result{}
		}, func(d result) {
			if d.exists == 0 && kind != command.CrossCopy {
				s.on(t, src, func(o *Shard, db *engine.DB) result {
					db.Delete(srcKey, o.now)
					return result{}
				}, func(result) {})
			}
			s.release(t)
			s.reply1(t, func(w *resp.Writer) {
				switch {
				case kind == command.CrossRename:
					w.Simple("OK")
				default:
					w.Int(int64(1 - d.exists))
				}
			})
		})
	})
}

// copyOptions parses COPY's [DB n] [REPLACE] as Redis does.
func copyOptions(args [][]byte, db, databases int) (int, bool, string) {
	replace := false
	for i := 3; i < len(args); i++ {
		switch {
		case strings.EqualFold(string(args[i]), "replace"):
			replace = true
		case strings.EqualFold(string(args[i]), "db") && i+1 < len(args):
			n, err := strconv.ParseInt(string(args[i+1]), 10, 64)
			if err != nil {
				return 0, false, "ERR value is not an integer or out of range"
			}
			if n < 0 || n >= int64(databases) {
				return 0, false, "ERR DB index is out of range"
			}
			db = int(n)
			i++
		default:
			return 0, false, "ERR syntax error"
		}
	}
	return db, replace, ""
}

// crossMSetNX checks every key on every shard, then sets all or none.
func (s *Shard) crossMSetNX(t *txn) {
	left, any := len(t.parts), false
	for i := range t.parts {
		s.on(t, i, func(o *Shard, db *engine.DB) result {
			for _, k := range t.keys[i] {
				if db.Exists(k, o.now) {
					return result{exists: 1}
				}
			}
			return result{}
		}, func(r result) {
			any = any || r.exists > 0
			if left--; left > 0 {
				return
			}
			if any {
				s.release(t)
				s.reply1(t, func(w *resp.Writer) { w.Int(0) })
				return
			}
			s.crossMSet(t)
		})
	}
}

func (s *Shard) crossMSet(t *txn) {
	left := len(t.parts)
	for i := range t.parts {
		s.on(t, i, func(o *Shard, db *engine.DB) result {
			p := t.parts[i]
			for _, k := range p.KeyIdx {
				db.SetString(p.Args[k], p.Args[k+1], 0, false)
			}
			o.unlock(t.id, t.keys[i])
			return result{}
		}, func(result) {
			if left--; left == 0 {
				s.reply1(t, func(w *resp.Writer) { w.Int(1) })
			}
		})
	}
}

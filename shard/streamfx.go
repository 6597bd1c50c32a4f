package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
)

// rebuildStream appends the commands that recreate a stream from its
// record, as Redis's AOF rewrite does (rewriteStreamObject): an XADD per
// entry (an empty stream: XADD MAXLEN 0 of a dummy entry 0-1), then
// XSETID with the last ID, the entries-added count and the largest
// deleted ID.
func rebuildStream(fx *command.Effects, db int, key []byte, rec engine.Record) {
	sr, ok := engine.OpenStreamRecord(rec.Data)
	if !ok {
		return
	}
	var buf []byte
	if sr.Len == 0 {
		fx.Begin(db, command.CauseMoved, 7)
		fx.ArgString("XADD")
		fx.Arg(key)
		fx.ArgString("MAXLEN")
		fx.ArgString("0")
		fx.ArgString("0-1")
		fx.ArgString("x")
		fx.ArgString("y")
	}
	for id, fv, ok := sr.Next(); ok; id, fv, ok = sr.Next() {
		fx.Begin(db, command.CauseMoved, 3+len(fv))
		fx.ArgString("XADD")
		fx.Arg(key)
		buf = id.Append(buf[:0])
		fx.Arg(buf)
		for _, s := range fv {
			fx.Arg(s)
		}
	}
	fx.Begin(db, command.CauseMoved, 7)
	fx.ArgString("XSETID")
	fx.Arg(key)
	fx.Arg(sr.Last.Append(buf[:0]))
	fx.ArgString("ENTRIESADDED")
	fx.ArgInt(int64(sr.EntriesAdded))
	fx.ArgString("MAXDELETEDID")
	fx.Arg(sr.MaxDeleted.Append(buf[:0]))
}

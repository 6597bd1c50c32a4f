package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
)

// rebuildStream appends the commands that recreate a stream from its
// record, as Redis's AOF rewrite does (rewriteStreamObject): an XADD per
// entry (an empty stream: XADD MAXLEN 0 of a dummy entry 0-1), then
// XSETID with the last ID, the entries-added count and the largest
// deleted ID, then per consumer group an XGROUP CREATE with its last ID
// and entries-read, and per consumer an XCLAIM ... JUSTID FORCE of each
// entry it owns (with its delivery time and count), or an XGROUP
// CREATECONSUMER when it owns none.
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
	gs, _ := sr.Groups()
	for _, g := range gs {
		fx.Begin(db, command.CauseMoved, 7)
		fx.ArgString("XGROUP")
		fx.ArgString("CREATE")
		fx.Arg(key)
		fx.Arg(g.Name)
		fx.Arg(g.LastID.Append(buf[:0]))
		fx.ArgString("ENTRIESREAD")
		fx.ArgInt(g.EntriesRead)
		pel := make(map[engine.StreamID]engine.PendingEntry, len(g.PEL))
		for _, p := range g.PEL {
			pel[p.ID] = p
		}
		for _, c := range g.Consumers {
			if len(c.PEL) == 0 {
				fx.Begin(db, command.CauseMoved, 5)
				fx.ArgString("XGROUP")
				fx.ArgString("CREATECONSUMER")
				fx.Arg(key)
				fx.Arg(g.Name)
				fx.Arg(c.Name)
				continue
			}
			for _, id := range c.PEL {
				p := pel[id]
				fx.Begin(db, command.CauseMoved, 12)
				fx.ArgString("XCLAIM")
				fx.Arg(key)
				fx.Arg(g.Name)
				fx.Arg(c.Name)
				fx.ArgString("0")
				fx.Arg(id.Append(buf[:0]))
				fx.ArgString("TIME")
				fx.ArgInt(p.Time)
				fx.ArgString("RETRYCOUNT")
				fx.ArgInt(int64(p.Count))
				fx.ArgString("JUSTID")
				fx.ArgString("FORCE")
			}
		}
	}
}

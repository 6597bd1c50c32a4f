package shard

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
)

// The mutation path. Every change to a key of this shard passes through
// one of the functions below, and each does the same four things: it
// counts the change (rdb_changes_since_last_save), bumps the versions of
// the keys it changed that someone watches, marks those keys ready for
// the clients blocked on them, and appends the change to the turn's
// effects (command.Effects) in the form it must be replayed.
//
//   - wrote: a command (or a shard's part of one) whose handler changed
//     data, which engine.Store.Dirty tells. Its keys are the row's write
//     keys (and OtherDB's); its propagated form is the row's Propagate,
//     or the command itself: for a command serve is dispatching, a copy
//     of the bytes its client sent (rawOf).
//   - vanished: a key deleted by expiry or eviction (the engine's
//     OnExpire/OnEvict hooks): a DEL.
//   - writeBack: a key a cross-shard command computed elsewhere (the
//     gather plan): its new value, as commands that rebuild it.
//
// At the end of the turn, before any of its replies leaves, flushEffects
// hands the effects to the consumer (Options.Effects), then forgets them.

// EffectSink consumes a shard's effects: it is called on the shard's
// goroutine at the end of every loop turn that wrote, with the turn's
// effects in the order they happened, and must keep nothing of fx.
type EffectSink func(shard int, fx *command.Effects)

// mutations is the mutation path's state.
type mutations struct {
	fx   command.Effects
	sink EffectSink
	// dirty counts changes since start (INFO's rdb_changes_since_last_save).
	dirty uint64
	// versions holds the version of every key a client watches, and how
	// many watch it: bumped by each change to it. Keys nobody watches are
	// not tracked.
	versions map[wkey]version
	// existed and touched serve a command that touches whole databases
	// (FLUSHDB, FLUSHALL, SWAPDB) while someone watches: the databases each
	// watched key's name existed in before it ran, and those it touched
	// (TouchDB). Redis bumps only the watched keys that existed in them.
	existed map[string]uint64
	touched uint64
	prop    command.Prop
	keys    []int // scratch: write-key positions
	noting  bool  // the engine notes a command's writes (noteWrites)
	// raw is the request serve dispatches, as its client sent it, and
	// rawArgs the args the reader parsed it into (see rawOf).
	raw     []byte
	rawArgs *[]byte
}

// rawOf is the request's bytes when args are the arguments serve is
// dispatching (not those of a queued, blocked, scripted or hopped
// command, which live elsewhere) and the bytes are their RESP encoding;
// nil otherwise.
func (m *mutations) rawOf(args [][]byte) []byte {
	if m.raw == nil || len(args) == 0 || unsafe.SliceData(args) != m.rawArgs || len(m.raw) != command.CanonicalLen(args) {
		return nil
	}
	return m.raw
}

// version is a watched key's version and how many watch it.
type version struct {
	v uint64
	n int
}

// effects returns the turn's effect stream, stamped with the shard's time,
// or nil when nobody consumes effects: no sink and no keyspace
// notifications (then nothing is appended).
func (s *Shard) effects() *command.Effects {
	if s.mut.sink == nil && s.kev.flags == 0 {
		return nil
	}
	if s.aof.hold && !s.aof.wrote {
		s.wroteNow()
	}
	s.mut.fx.Now = s.now
	return &s.mut.fx
}

// watchers reports whether a change to a key bumps anything: a WATCH, a
// blocked client, client tracking.
func (s *Shard) watchers() bool {
	return len(s.waiters) > 0 || len(s.mut.versions) > 0 || s.trk.active()
}

// noteWrites has the engine note the keys the command about to run
// changes (engine.Store.NoteWrites), when a change bumps anything and no
// command it runs inside notes them already; it reports whether it did.
func (s *Shard) noteWrites() bool {
	if s.mut.noting || !s.watchers() {
		return false
	}
	s.mut.noting = true
	s.store.NoteWrites(true)
	return true
}

// notedWrites ends noteWrites.
func (s *Shard) notedWrites() {
	s.mut.noting = false
	s.store.NoteWrites(false)
}

// wrote records that a command changed data: n changes (the growth of
// engine.Store.Dirty), reply its reply. Its write keys that changed are
// touched: when noted (noteWrites ran for it), those the engine noted, as
// Redis signals a key only when the command changed it (an SMOVE of a
// member the destination holds leaves the destination's WATCH alone);
// otherwise every one. Where nothing follows writes (no effect consumer,
// no notifications, no watcher) and the command touches no database
// whole, counting them is all.
func (s *Shard) wrote(db int, spec *command.Spec, args [][]byte, reply []byte, n uint64, noted bool) {
	m := &s.mut
	m.dirty += n
	w := s.watchers()
	if !w && m.sink == nil && s.kev.flags == 0 && !spec.Touches {
		return
	}
	if w {
		idx, _ := spec.WriteKeys(args, m.keys[:0])
		m.keys = idx
		other := -1
		if spec.OtherDB != nil {
			other = spec.OtherDB(args)
		}
		for _, i := range idx {
			if !noted || s.store.Noted(db, args[i]) {
				s.Touch(db, args[i])
			}
			if other >= 0 && (!noted || s.store.Noted(other, args[i])) {
				s.Touch(other, args[i])
			}
		}
	}
	fx := s.effects()
	switch {
	case fx != nil && len(args) == spec.Verbatim:
		// SET key value: its own form whatever Propagate says, so no Prop.
		if raw := m.rawOf(args); raw != nil {
			fx.Raw(db, command.CauseCommand, raw)
		} else {
			fx.Command(db, command.CauseCommand, args)
		}
	case spec.Propagate != nil && (fx != nil || spec.Touches):
		// A row's Propagate reads what the write did (a TTL, a result):
		// it runs only when someone consumes effects, or when it also
		// touches keys (FLUSHDB).
		m.prop = command.Prop{Args: args, Reply: reply, DB: s.store.DB(db), DBIndex: db, Now: s.now, FX: fx, Touch: s,
			Obey: s.ctx.Obey}
		if fx != nil {
			m.prop.Raw = m.rawOf(args)
		}
		spec.Propagate(&m.prop)
		m.prop = command.Prop{}
	case spec.Propagate == nil && fx != nil:
		if raw := m.rawOf(args); raw != nil {
			fx.Raw(db, command.CauseCommand, raw)
		} else {
			fx.Command(db, command.CauseCommand, args)
		}
	}
	if s.kev.flags != 0 {
		s.wroteEvents(db, spec, args, n)
	}
}

// vanished records that key was deleted by expiry or eviction. It runs
// inside the engine's hook: it must not call the Store.
func (s *Shard) vanished(db int, key []byte, cause command.Cause) {
	s.mut.dirty++
	s.touch(db, key, false)
	if fx := s.effects(); fx != nil {
		fx.Begin(db, cause, 2)
		fx.ArgString("DEL")
		fx.Arg(key)
		if s.kev.flags != 0 {
			s.kev.db = db
			if cause == command.CauseExpired {
				s.emitEvent('x', "expired", key)
			} else {
				s.emitEvent('e', "evicted", key)
			}
		}
	}
}

// writeBack stores the value a cross-shard command computed for a key of
// this shard (or deletes the key), tagged as part of transaction tag.
func (s *Shard) writeBack(e entry, tag command.Tag) {
	db := s.store.DB(e.db)
	if s.snap != nil {
		s.snap.w.Before(e.db, e.key, s.now)
	}
	if e.ok {
		db.Import(e.key, e.rec)
	} else {
		db.Delete(e.key, s.now)
	}
	s.mut.dirty++
	s.Touch(e.db, e.key)
	if fx := s.effects(); fx != nil {
		fx.Tag = tag
		rebuild(fx, e.db, e.key, e.rec, e.ok)
		fx.Tag = command.Tag{}
	}
}

// Touch implements command.Toucher: key of database db changed.
func (s *Shard) Touch(db int, key []byte) { s.touch(db, key, true) }

// touch is Touch; own says whether the running command changed key
// itself (not an expiry or eviction inside it), so that the invalidation
// its client owes itself may follow its reply (tracking.go).
func (s *Shard) touch(db int, key []byte, own bool) {
	wk := wkey{db, string(key)}
	if v, ok := s.mut.versions[wk]; ok {
		v.v++
		s.mut.versions[wk] = v
	}
	if _, ok := s.waiters[wk]; ok {
		s.markReady(wk)
	}
	if s.trk.active() {
		s.invalidate(key, own)
	}
}

// TouchDB implements command.Toucher: every key of database db (every
// database when db is -1) may have changed (FLUSHDB, SWAPDB). Watched
// keys are bumped once the command is done (touchedDBs).
func (s *Shard) TouchDB(db int) {
	if db < 0 {
		s.mut.touched = ^uint64(0)
	} else {
		s.mut.touched |= dbBit(db)
	}
	// In key order, so that a seeded simulation replays the same way.
	var ready []wkey
	for wk := range s.waiters {
		if db < 0 || wk.db == db {
			ready = append(ready, wk)
		}
	}
	slices.SortFunc(ready, func(a, b wkey) int { return cmp.Or(cmp.Compare(a.db, b.db), strings.Compare(a.key, b.key)) })
	for _, wk := range ready {
		s.markReady(wk)
	}
}

// dbBit is database db's bit in a mask (databases from 63 on share one).
func dbBit(db int) uint64 { return 1 << min(db, 63) }

// beforeTouches notes the databases each watched key's name exists in,
// before a command that touches whole databases runs.
func (s *Shard) beforeTouches() {
	s.mut.touched = 0
	s.mut.existed = make(map[string]uint64, len(s.mut.versions))
	for wk := range s.mut.versions {
		if _, ok := s.mut.existed[wk.key]; ok {
			continue
		}
		var mask uint64
		for d := range s.store.Databases() {
			if s.store.DB(d).Exists([]byte(wk.key), s.now) {
				mask |= dbBit(d)
			}
		}
		s.mut.existed[wk.key] = mask
	}
}

// touchedDBs bumps, after a command that touched whole databases, the
// watched keys Redis's touchAllWatchedKeysInDb bumps: in a database it
// touched, one that existed there, or (SWAPDB) in the other database.
func (s *Shard) touchedDBs() {
	all := s.mut.touched == ^uint64(0)
	for wk, v := range s.mut.versions {
		if s.mut.touched&dbBit(wk.db) == 0 {
			continue
		}
		had := s.mut.existed[wk.key]
		if all && had&dbBit(wk.db) != 0 || !all && had&s.mut.touched != 0 {
			v.v++
			s.mut.versions[wk] = v
		}
	}
	s.mut.existed, s.mut.touched = nil, 0
}

// watch starts tracking key's version (once more, when others watch it)
// and returns it; a later version differs exactly when the key changed
// in between (WATCH). A key past its TTL is deleted first, so that its
// expiry, which already happened, is no change.
func (s *Shard) watch(db int, key []byte) uint64 {
	if s.mut.versions == nil {
		s.mut.versions = make(map[wkey]version)
	}
	s.store.DB(db).Exists(key, s.now)
	wk := wkey{db, string(key)}
	v := s.mut.versions[wk]
	v.n++
	s.mut.versions[wk] = v
	return v.v
}

// unwatch undoes one watch of key: it is no longer tracked once nobody
// watches it.
func (s *Shard) unwatch(db int, key []byte) {
	wk := wkey{db, string(key)}
	v, ok := s.mut.versions[wk]
	switch {
	case !ok:
	case v.n > 1:
		v.n--
		s.mut.versions[wk] = v
	default:
		delete(s.mut.versions, wk)
	}
}

// unchanged reports whether no key of ws changed since it was watched. A
// key whose TTL passed since is deleted now, which changes it: a watched
// key that expires before EXEC aborts it, as in Redis.
func (s *Shard) unchanged(ws []watched) bool {
	for _, w := range ws {
		s.store.DB(w.db).Exists(w.key, s.now)
		if v, ok := s.mut.versions[wkey{w.db, string(w.key)}]; !ok || v.v != w.v {
			return false
		}
	}
	return true
}

// flushEffects hands the turn's effects to the consumer, then publishes
// their keyspace events (notify.go).
func (s *Shard) flushEffects() {
	fx := &s.mut.fx
	if s.feed.on {
		s.feedTurn()
	}
	if fx.Len() == 0 && fx.Events() == 0 && len(fx.EmptyParts()) == 0 {
		return
	}
	if s.mut.sink != nil && (fx.Len() > 0 || len(fx.EmptyParts()) > 0) {
		s.mut.sink(s.id, fx)
	}
	if fx.Events() > 0 {
		s.publishEvents(fx)
	}
	fx.Reset()
}

// hookEngine points the store's expiry and eviction hooks at the mutation
// path.
func (s *Shard) hookEngine() {
	s.store.OnExpire = func(db int, key []byte) { s.vanished(db, key, command.CauseExpired) }
	s.store.OnEvict = func(db int, key []byte) { s.vanished(db, key, command.CauseEvicted) }
}

// rebuild appends the commands that make key hold rec (or delete it):
// DEL, then one command that recreates the value, then its expiry. The
// persistence issue's RDB encoding will replace this with one RESTORE.
func rebuild(fx *command.Effects, db int, key []byte, rec engine.Record, ok bool) {
	fx.Begin(db, command.CauseMoved, 2)
	fx.ArgString("DEL")
	fx.Arg(key)
	if !ok {
		return
	}
	switch rec.Type {
	case engine.TypeString:
		fx.Begin(db, command.CauseMoved, 3)
		fx.ArgString("SET")
		fx.Arg(key)
		fx.Arg(rec.Data)
	case engine.TypeStream:
		rebuildStream(fx, db, key, rec)
	default:
		name, per := rebuildCmd(rec.Type)
		fx.Begin(db, command.CauseMoved, 2+per*rec.Elements(nil))
		fx.ArgString(name)
		fx.Arg(key)
		rec.Elements(func(m, v []byte, score float64) {
			switch rec.Type {
			case engine.TypeHash:
				fx.Arg(m)
				fx.Arg(v)
			case engine.TypeZSet:
				fx.Arg(formatScore(score))
				fx.Arg(m)
			default:
				fx.Arg(m)
			}
		})
	}
	if rec.ExpireAt != 0 {
		fx.Begin(db, command.CauseMoved, 3)
		fx.ArgString("PEXPIREAT")
		fx.Arg(key)
		fx.ArgInt(rec.ExpireAt)
	}
}

// rebuildCmd is the command that creates a collection from its items and
// how many items make one of its elements.
func rebuildCmd(t engine.Type) (name string, per int) {
	switch t {
	case engine.TypeList:
		return "RPUSH", 1
	case engine.TypeSet:
		return "SADD", 1
	case engine.TypeHash:
		return "HSET", 2
	default:
		return "ZADD", 2
	}
}

// formatScore writes a score so that ZADD reads it back exactly.
func formatScore(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// partRan notes a shard's part of a cross-shard transaction that wrote
// nothing here (mark: the effects' length before it ran, -1 when nobody
// consumes effects), so that the AOF still marks the part (and, under
// appendfsync always, the reply waits for that mark as for a write).
func (s *Shard) partRan(mark int, tag command.Tag) {
	if mark >= 0 && tag.Parts > 1 && s.mut.fx.Len() == mark {
		s.effects().EmptyPart(tag) // effects(): under always, the reply waits for it
	}
}

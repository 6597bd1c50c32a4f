package shard

import (
	"slices"
	"strconv"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/pubsub"
	"github.com/radish-kv/radish/router"
)

// Keyspace notifications (notify-keyspace-events). They are a consumer
// of the effect stream: the mutation path appends each write's events to
// the turn's effects (wrote asks the row, command.EventsOf, and adds
// "new" and "del" from whether each write key existed before the command
// and after it; vanished adds "expired" and "evicted"; a command run on
// gathered copies has its events computed where it ran, and each key's
// shard appends those of its keys with the write-back), and flushEffects
// publishes them at the end of the turn, from this shard, the one that
// owns the keys, as a PUBLISH from here would be. While notifications are
// on, effects are built even when no other consumer reads them; while
// they are off (the default) a command pays one branch.

// keyEvents is the notification state of a shard.
type keyEvents struct {
	flags  uint32 // notify-keyspace-events; 0 unless K or E is set
	idx    []int  // the write keys of the command running (run1)
	before []bool // whether each existed before it ran
	db     int    // the database of the events being emitted
	emit   command.EmitEvent
	emitIn func(db int, class byte, event string, key []byte)
	kw     command.KeyWrite // the write key a row is asked the events of
	ch     []byte           // scratch: a notification's channel
	// held, when set, takes the events instead of the turn's effects: a
	// command run on gathered copies (cross.go) holds them for the shards
	// that own their keys.
	held *[]heldEvent
	self selfEvents // the pushes to a command's own connection (notifyself.go)
}

// heldEvent is an event on its way to the shard that owns its key.
type heldEvent struct {
	db    int
	class byte
	name  string
	key   []byte
}

// setNotify takes notify-keyspace-events from a configuration.
func (s *Shard) setNotify(c *config.Snapshot) {
	f := c.NotifyKeyspaceEvents
	if f&(config.NotifyKeyspace|config.NotifyKeyevent) == 0 {
		f = 0
	}
	s.kev.flags = f
	if s.kev.emit == nil {
		s.kev.emit, s.kev.emitIn = s.emitEvent, s.emitEventIn
	}
	s.store.RecordMisses(f&config.NotifyKeyMiss != 0)
}

// keyMiss emits "keymiss" for a key a read command did not find (the
// engine's counted lookups, those keyspace_misses counts, as Redis emits
// it where it counts a miss); run1 hands it the engine's record after
// each command while m is on.
func (s *Shard) keyMiss(key []byte) { s.emitEvent('m', "keymiss", key) }

// keyMisses emits the keymiss events of the command that just ran.
func (s *Shard) keyMisses() {
	if s.kev.flags&config.NotifyKeyMiss != 0 {
		s.store.Misses(s.keyMiss)
	}
}

// eventsBefore notes which write keys of a command exist before it runs.
func (s *Shard) eventsBefore(db int, spec *command.Spec, args [][]byte) {
	idx, _ := spec.WriteKeys(args, s.kev.idx[:0])
	s.kev.idx = idx
	s.kev.before = s.kev.before[:0]
	d := s.store.DB(db)
	for _, i := range idx {
		s.kev.before = append(s.kev.before, d.Exists(args[i], s.now))
	}
}

// wroteEvents appends the events of a command that changed data (n
// changes), for each write key in order: "new" when it created the key,
// the row's own, "del" when it removed the key.
func (s *Shard) wroteEvents(db int, spec *command.Spec, args [][]byte, n uint64) {
	s.eventsAfter(s.store.DB(db), db, spec, args, n)
}

// createdEvents emits "new" for each write key a command that changed no
// data created all the same (a BITFIELD whose INCRBY overflowed under
// OVERFLOW FAIL: Redis's dbAdd emits it, though nothing counts a change).
func (s *Shard) createdEvents(db int, args [][]byte) {
	if s.kev.flags&config.NotifyNew == 0 {
		return
	}
	d := s.store.DB(db)
	for j, i := range s.kev.idx {
		if j < len(s.kev.before) && !s.kev.before[j] && d.Exists(args[i], s.now) {
			s.emitEvent('n', "new", args[i])
		}
	}
}

// eventsAfter emits a command's events from the state of its write keys
// before (kev.before) and after it ran in d, database db, counting n
// changes.
func (s *Shard) eventsAfter(d *engine.DB, db int, spec *command.Spec, args [][]byte, n uint64) {
	ev := command.EventsOf(spec)
	s.kev.db = db
	kw := &s.kev.kw
	*kw = command.KeyWrite{DB: d, Other: -1, Now: s.now, Args: args, Changes: n, Emit: s.kev.emit, EmitIn: s.kev.emitIn}
	if spec.OtherDB != nil {
		kw.Other = spec.OtherDB(args)
	}
	popped := false // Popped: the key popped from had its events
	for k := range s.kev.idx {
		j := k
		if ev.Reverse() {
			j = len(s.kev.idx) - 1 - k
		}
		i := s.kev.idx[j]
		key := args[i]
		after := d.Exists(key, s.now)
		before := j < len(s.kev.before) && s.kev.before[j]
		if ev.Popped() {
			// Only the key popped from changed (named again, it is
			// still that one key).
			if !before || popped {
				continue
			}
			popped = true
		}
		if !before && after && !ev.NoNew() {
			s.emitEvent('n', "new", key)
		}
		kw.I, kw.Gone, kw.Exists = i, before && !after, after
		ev.Emit(kw)
		if before && !after && !ev.NoDel() {
			s.emitEvent('g', "del", key)
		}
	}
	*kw = command.KeyWrite{} // keep no reference to args
}

// emitEvent appends one event of database kev.db, when its class is on
// (run1 sets kev.db to the command's database while notifications are
// on; a write's events set it again).
func (s *Shard) emitEvent(class byte, event string, key []byte) {
	switch {
	case s.kev.flags&config.NotifyClass(class) == 0:
	case s.kev.held != nil:
		*s.kev.held = append(*s.kev.held, heldEvent{s.kev.db, class, event, slices.Clone(key)})
	default:
		s.mut.fx.Event(s.kev.db, class, event, key)
		if s.kev.self.on {
			s.toSelf(event, key)
		}
	}
}

// emitEventIn is emitEvent in database db.
func (s *Shard) emitEventIn(db int, class byte, event string, key []byte) {
	was := s.kev.db
	s.kev.db = db
	s.emitEvent(class, event, key)
	s.kev.db = was
}

// gatheredEvents returns the events of a command that ran on gathered
// copies in sc: got holds its keys as they were before.
func (s *Shard) gatheredEvents(t *txn, sc *engine.Store, got [][]entry, n uint64) []heldEvent {
	idx, _ := t.spec.WriteKeys(t.args, s.kev.idx[:0])
	s.kev.idx = idx
	s.kev.before = s.kev.before[:0]
	for _, i := range idx {
		existed := false
		for _, es := range got {
			for _, e := range es {
				existed = existed || e.ok && e.db == t.db && string(e.key) == string(t.args[i])
			}
		}
		s.kev.before = append(s.kev.before, existed)
	}
	var held []heldEvent
	s.kev.held = &held
	s.eventsAfter(sc.DB(t.db), t.db, t.spec, t.args, n)
	s.kev.held = nil
	return held
}

// heldFor returns the events of held whose key shard owns.
func (s *Shard) heldFor(held []heldEvent, shard int) []heldEvent {
	var out []heldEvent
	for _, e := range held {
		if router.ShardOf(e.key, len(s.group.shards)) == shard {
			out = append(out, e)
		}
	}
	return out
}

// publishEvents publishes the turn's events on __keyspace@<db>__:<key>
// (the event) and __keyevent@<db>__:<event> (the key), as K and E say.
func (s *Shard) publishEvents(fx *command.Effects) {
	k := 0
	for i := range fx.Events() {
		s.ps.skip = s.kev.self.delivered(i, &k)
		db, _, name, key := fx.EventAt(i)
		if s.kev.flags&config.NotifyKeyspace != 0 {
			s.kev.ch = append(strconv.AppendInt(append(s.kev.ch[:0], "__keyspace@"...), int64(db), 10), "__:"...)
			s.kev.ch = append(s.kev.ch, key...)
			s.notifyPublish(s.kev.ch, []byte(name))
		}
		if s.kev.flags&config.NotifyKeyevent != 0 {
			s.kev.ch = append(strconv.AppendInt(append(s.kev.ch[:0], "__keyevent@"...), int64(db), 10), "__:"...)
			s.kev.ch = append(s.kev.ch, name...)
			s.notifyPublish(s.kev.ch, key)
		}
	}
	s.ps.skip = nil
	s.kev.self.published()
}

// notifyPublish publishes a notification as PUBLISH does, with no one
// waiting for the count.
func (s *Shard) notifyPublish(ch, msg []byte) {
	s.deliverHere(pubsub.Channel, ch, msg)
	h := pubsub.Hash(ch)
	for q, o := range s.group.shards {
		if q != s.id && o.ps.reg.Filter.Wants(h) {
			s.pubEntry(q, pubChannel, ch, msg, nil)
			if s.ps.skip != nil {
				b := s.ps.open[q]
				b.ents[len(b.ents)-1].skip = s.ps.skip
			}
		}
	}
}

package command

import (
	"strings"

	"github.com/radish-kv/radish/engine"
)

// Keyspace notifications: the events a write emits (Redis's
// notifyKeyspaceEvent calls), stated per row. The shard's mutation path
// asks KeyEvents after a command changed data and appends what it says to
// the turn's effects (Effects.Event), beside the write's propagated form;
// the notification consumer publishes them. Besides a row's own events
// the mutation path adds the two every write may cause: "new" for a key
// the command created and "del" for one it removed (a popped list's last
// element, an EXPIRE in the past, DEL itself).

// keyEvent is one row's events.
type keyEvent struct {
	event string // emitted on every key the row writes ("": only new/del)
	class byte   // its notify-keyspace-events letter
	// fn, when set, emits the row's events on args[i] itself (depending on
	// the arguments, or on which key it is).
	fn func(args [][]byte, i int, emit EmitEvent)
	// on, when set, emits the row's events from all the mutation path
	// knows of the write (how many changes it counted, the other
	// database it wrote in).
	on func(k *KeyWrite)
	// reverse: the events go from the last write key to the first
	// (LMOVE: the push to the destination, then the pop).
	reverse bool
	// noDel: a key the command removes gets no "del" (RENAME's source);
	// noNew: nor does a key it creates get "new" (fn states it).
	noDel, noNew bool
	// delOnly: a key the command removes gets "del" instead of the event
	// (EXPIRE with a time in the past); stored: the event only when the
	// key exists after the command (a *STORE of an empty result stores
	// nothing: only "del" when there was a key).
	delOnly, stored bool
	// popped: events (new and del too) only on the first write key that
	// existed before the command, the one it popped from (BLPOP, LMPOP,
	// ZMPOP ...).
	popped bool
	// consumerOf, when set, names the consumer group of the stream
	// args[i] in which the command may create a consumer (XREADGROUP,
	// XCLAIM, XAUTOCLAIM): xgroup-createconsumer when it did.
	consumerOf func(args [][]byte) (group []byte)
}

// EmitEvent receives one event: its class letter, its name, its key.
type EmitEvent func(class byte, event string, key []byte)

// KeyWrite is one write key of a command that changed data, as the
// mutation path asks the row for its events (RowEvents.Emit).
type KeyWrite struct {
	DB    *engine.DB // the database the command ran in
	Other int        // the database its OtherDB names, or -1
	Now   int64
	Args  [][]byte
	I     int // the key is Args[I]
	// Gone: the command removed the key; Exists: it exists after it.
	Gone, Exists bool
	// Changes is what the command counted (engine.Store.Dirty's growth).
	Changes uint64
	Emit    EmitEvent
	// EmitIn emits an event in database db (another than the command's).
	EmitIn func(db int, class byte, event string, key []byte)
}

// RowEvents says which events a write row emits: Redis's per command
// (keyEvents). A row without events of its own still has new and del.
type RowEvents struct {
	ev *keyEvent
}

// EventsOf returns s's events.
func EventsOf(s *Spec) RowEvents { return RowEvents{keyEvents[s.Name]} }

// Reverse reports whether the events go from the last write key to the
// first.
func (r RowEvents) Reverse() bool { return r.ev != nil && r.ev.reverse }

// NoNew reports whether a key the row created gets no "new" of the
// mutation path (the row emits it).
func (r RowEvents) NoNew() bool { return r.ev != nil && r.ev.noNew }

// Popped reports whether only the first write key that existed before
// the command gets events, the row's and del (the key it popped from).
func (r RowEvents) Popped() bool { return r.ev != nil && r.ev.popped }

// NoDel reports whether a key the row removed gets no "del".
func (r RowEvents) NoDel() bool { return r.ev != nil && r.ev.noDel }

// Emit emits the row's own events for one of its write keys, k.Args[k.I].
// The mutation path calls it per write key, in order (Reverse: from the
// last), between that key's "new" and its "del", which is the order Redis
// emits them in.
func (r RowEvents) Emit(k *KeyWrite) {
	switch e, key := r.ev, k.Args[k.I]; {
	case e == nil:
	case e.consumerOf != nil:
		if k.DB.XGroupFresh(key, e.consumerOf(k.Args), k.Now) != "" {
			k.Emit('t', "xgroup-createconsumer", key)
		}
	case e.delOnly && k.Gone, e.stored && !k.Exists:
	case e.on != nil:
		e.on(k)
	case e.fn != nil:
		e.fn(k.Args, k.I, k.Emit)
	case e.event != "":
		k.Emit(e.class, e.event, key)
	}
}

func each(event string, class byte) *keyEvent { return &keyEvent{event: event, class: class} }

// store is a *STORE command's event on its destination.
func store(event string, class byte) *keyEvent {
	return &keyEvent{event: event, class: class, delOnly: true, stored: true}
}

// copyEvents: COPY's destination is always "new", then "copy_to", in
// the database its DB option names when it has one.
func copyEvents(k *KeyWrite) {
	if k.I != 2 {
		return
	}
	if k.Other >= 0 {
		k.EmitIn(k.Other, 'n', "new", k.Args[2])
		k.EmitIn(k.Other, 'g', "copy_to", k.Args[2])
		return
	}
	k.Emit('n', "new", k.Args[2])
	k.Emit('g', "copy_to", k.Args[2])
}

// moveDBEvents: MOVE adds the key to the other database ("new" there),
// then "move_from" in its own and "move_to" in the other.
func moveDBEvents(k *KeyWrite) {
	if k.Other < 0 {
		return
	}
	key := k.Args[1]
	k.EmitIn(k.Other, 'n', "new", key)
	k.Emit('g', "move_from", key)
	k.EmitIn(k.Other, 'g', "move_to", key)
}

// setEvents: SET's "set", then "expire" when it set a TTL.
func setEvents(args [][]byte, _ int, emit EmitEvent) {
	emit('$', "set", args[1])
	for _, a := range args[3:] {
		switch strings.ToUpper(string(a)) {
		case "EX", "PX", "EXAT", "PXAT":
			emit('g', "expire", args[1])
			return
		}
	}
}

// getexEvents: GETEX's "expire", or "persist".
func getexEvents(args [][]byte, _ int, emit EmitEvent) {
	for _, a := range args[2:] {
		switch strings.ToUpper(string(a)) {
		case "EX", "PX", "EXAT", "PXAT":
			emit('g', "expire", args[1])
		case "PERSIST":
			emit('g', "persist", args[1])
		}
	}
}

// moveEvents: a pop from the source, args[1], and a push to the
// destination, args[2] (LMOVE, RPOPLPUSH, SMOVE), named by the arguments.
func moveEvents(names func(args [][]byte) (string, string), class byte) func([][]byte, int, EmitEvent) {
	return func(args [][]byte, i int, emit EmitEvent) {
		from, to := names(args)
		if i == 1 {
			emit(class, from, args[1])
		} else {
			emit(class, to, args[2])
		}
	}
}

// smoveEvents: SMOVE's "srem" on the source, "sadd" on the destination
// unless it held the member already (the engine counts a change for each).
func smoveEvents(k *KeyWrite) {
	switch {
	case k.I == 1:
		k.Emit('s', "srem", k.Args[1])
	case k.Changes > 1:
		k.Emit('s', "sadd", k.Args[2])
	}
}

// side is LMOVE's LEFT or RIGHT as its events name it: "l" or "r".
func side(b []byte) string {
	if strings.EqualFold(string(b), "left") {
		return "l"
	}
	return "r"
}

// setExpire: SETEX's and PSETEX's "set" and "expire".
func setExpire(args [][]byte, _ int, emit EmitEvent) {
	emit('$', "set", args[1])
	emit('g', "expire", args[1])
}

// renameEvents: RENAME's "rename_from" and "rename_to"; the destination
// is always "new", as Redis deletes it and adds it again.
func renameEvents(args [][]byte, i int, emit EmitEvent) {
	if i == 1 {
		emit('g', "rename_from", args[1])
		return
	}
	emit('n', "new", args[2])
	emit('g', "rename_to", args[2])
}

// zaddEvents: ZADD's "zadd", or "zincr" with INCR.
func zaddEvents(args [][]byte, _ int, emit EmitEvent) {
	for _, a := range args[2:] {
		if strings.EqualFold(string(a), "incr") {
			emit('z', "zincr", args[1])
			return
		}
	}
	emit('z', "zadd", args[1])
}

var keyEvents = map[string]*keyEvent{
	// strings
	"set":         {fn: setEvents},
	"setnx":       each("set", '$'),
	"getset":      each("set", '$'),
	"mset":        each("set", '$'),
	"msetnx":      each("set", '$'),
	"setex":       {fn: setExpire},
	"psetex":      {fn: setExpire},
	"getex":       {fn: getexEvents},
	"incr":        each("incrby", '$'),
	"decr":        each("incrby", '$'),
	"incrby":      each("incrby", '$'),
	"decrby":      each("incrby", '$'),
	"incrbyfloat": each("incrbyfloat", '$'),
	"append":      each("append", '$'),
	"setrange":    each("setrange", '$'),
	// keys
	"expire":    {event: "expire", class: 'g', delOnly: true},
	"pexpire":   {event: "expire", class: 'g', delOnly: true},
	"expireat":  {event: "expire", class: 'g', delOnly: true},
	"pexpireat": {event: "expire", class: 'g', delOnly: true},
	"persist":   each("persist", 'g'),
	"copy":      {noNew: true, on: copyEvents},
	"move":      {noNew: true, noDel: true, on: moveDBEvents},
	"rename":    {noDel: true, noNew: true, fn: renameEvents},
	"renamenx":  {noDel: true, noNew: true, fn: renameEvents},
	// lists
	"lpush":     each("lpush", 'l'),
	"lpushx":    each("lpush", 'l'),
	"rpush":     each("rpush", 'l'),
	"rpushx":    each("rpush", 'l'),
	"lpop":      each("lpop", 'l'),
	"rpop":      each("rpop", 'l'),
	"linsert":   each("linsert", 'l'),
	"lset":      each("lset", 'l'),
	"ltrim":     each("ltrim", 'l'),
	"lrem":      each("lrem", 'l'),
	"rpoplpush": {reverse: true, fn: moveEvents(func([][]byte) (string, string) { return "rpop", "lpush" }, 'l')},
	"lmove": {reverse: true, fn: moveEvents(func(args [][]byte) (string, string) {
		return side(args[3]) + "pop", side(args[4]) + "push"
	}, 'l')},
	// hashes
	"hset":         each("hset", 'h'),
	"hmset":        each("hset", 'h'),
	"hsetnx":       each("hset", 'h'),
	"hdel":         each("hdel", 'h'),
	"hincrby":      each("hincrby", 'h'),
	"hincrbyfloat": each("hincrbyfloat", 'h'),
	// sets
	"sadd":        each("sadd", 's'),
	"srem":        each("srem", 's'),
	"spop":        each("spop", 's'),
	"sunionstore": store("sunionstore", 's'),
	"sinterstore": store("sinterstore", 's'),
	"sdiffstore":  store("sdiffstore", 's'),
	"smove":       {on: smoveEvents},
	// sorted sets
	"zadd":             {fn: zaddEvents},
	"zincrby":          each("zincr", 'z'),
	"zrem":             each("zrem", 'z'),
	"zpopmin":          each("zpopmin", 'z'),
	"zpopmax":          each("zpopmax", 'z'),
	"zremrangebyscore": each("zremrangebyscore", 'z'),
	"zremrangebyrank":  each("zremrangebyrank", 'z'),
	"zunionstore":      store("zunionstore", 'z'),
	"zinterstore":      store("zinterstore", 'z'),
	"zdiffstore":       store("zdiffstore", 'z'),
	"zrangestore":      store("zrangestore", 'z'),
	"zremrangebylex":   each("zremrangebylex", 'z'),
}

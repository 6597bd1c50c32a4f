package command

import (
	"slices"
	"strconv"

	"github.com/radish-kv/radish/engine"
)

// Effects: what the writes of a shard did, in the form in which they must
// be replayed.
//
// Every change to a key passes through the shard's mutation path, which
// appends one or more effects to the shard's Effects: a command that
// changed data (engine.Store.Dirty moved) as its propagated form, a key
// deleted by expiry or eviction as a DEL, a key a cross-shard command
// wrote back as commands that rebuild it. Consumers (the AOF, replication,
// keyspace notifications, MONITOR, client tracking) read a turn's effects
// in order; none of them re-derives what a command did.
//
// The propagated form is the command itself unless its row has a
// Propagate function, which states it: relative times as absolute ones
// (SET EX as SET PXAT, EXPIRE as PEXPIREAT), a random choice as what it
// chose (SPOP as SREM), a float computation as its result (INCRBYFLOAT as
// SET ... KEEPTTL), a blocking command as the non-blocking command it ran.
// A command that is its own propagated form is copied from its client's
// bytes when the shard has them (Prop.Raw, Effects.Raw), not encoded again.

// Cause says why an effect happened.
type Cause uint8

// Causes.
const (
	CauseCommand Cause = iota // a command (or a shard's part of one) changed data
	CauseExpired              // a key's TTL passed: a DEL
	CauseEvicted              // eviction chose the key: a DEL
	CauseMoved                // a cross-shard command's result written back: commands that rebuild the key
	// CausePublish: a PUBLISH or SPUBLISH, which changes no key. Redis
	// propagates it to replicas (their subscribers get the message) but
	// never writes it to the AOF: a consumer that logs skips it.
	CausePublish
)

// Tag marks the effects of one shard's part of a cross-shard transaction:
// Part of Parts (0-based) of transaction Txn. The zero Tag: not part of one.
type Tag struct {
	Txn         uint64
	Part, Parts int
	// Seq is the transaction's place in the order in which cross-shard
	// transactions took their locks, while a replication stream is fed
	// (0 otherwise, and for work on every shard that takes no lock).
	Seq uint64
	// Cmd is the place in the transaction of the command the effect
	// came from (an EXEC's queue; 0 for a single command), so that one
	// stream of the whole keyspace replays the parts in the
	// transaction's order.
	Cmd int
	// All: the effect is this shard's copy of a command that ran on
	// every shard over its keys (FLUSHALL, FLUSHDB, SWAPDB): one stream
	// of the whole keyspace replays it once.
	All bool
}

// Effect is one write: a command (RESP-encoded in the Effects it belongs
// to) to run in database DB.
type Effect struct {
	DB    int
	Cause Cause
	Tag   Tag
	// Now is the shard's time when it happened (unix ms): a replay at
	// that time finds the keys it touched alive or expired as they were.
	Now int64
	off int
}

// Effects is a shard's effect stream for one loop turn: a list of effects
// whose commands lie back to back in one buffer, so that appending one
// allocates nothing once the buffers have grown. Owned by the shard's
// goroutine; a consumer reads it during the call that hands it over and
// keeps nothing.
type Effects struct {
	buf  []byte
	list []Effect
	// evs are the keyspace events of the writes (see notify.go), their
	// keys back to back in evKeys.
	evs    []keyEventRec
	evKeys []byte
	// Tag is stamped on every effect appended while it is set, and Now.
	Tag Tag
	Now int64
	// empty are the parts of cross-shard transactions that ran here and
	// wrote nothing (EmptyPart).
	empty []Tag
}

// EmptyPart records that this shard ran part t of a cross-shard
// transaction, which wrote nothing here (a DEL whose keys on this shard
// did not exist): the AOF still marks the part, so that its load does not
// take the transaction for one a crash cut short. No other consumer sees
// it.
func (e *Effects) EmptyPart(t Tag) { e.empty = append(e.empty, t) }

// EmptyParts returns the parts EmptyPart recorded.
func (e *Effects) EmptyParts() []Tag { return e.empty }

// Len returns the number of effects.
func (e *Effects) Len() int { return len(e.list) }

// At returns effect i and its command, a RESP array of bulk strings. The
// bytes are borrowed: valid until Reset.
func (e *Effects) At(i int) (Effect, []byte) {
	end := len(e.buf)
	if i+1 < len(e.list) {
		end = e.list[i+1].off
	}
	return e.list[i], e.buf[e.list[i].off:end]
}

// Peek returns effect i without its command, in place (At copies it):
// for a consumer that looks at many effects' fields. Borrowed as At's,
// not to be changed.
func (e *Effects) Peek(i int) *Effect { return &e.list[i] }

// Span returns the commands of effects i to j-1, back to back: one copy
// for a run of effects that need nothing between them. Borrowed as At's.
func (e *Effects) Span(i, j int) []byte {
	end := len(e.buf)
	if j < len(e.list) {
		end = e.list[j].off
	}
	return e.buf[e.list[i].off:end]
}

// Reset empties the stream, keeping its buffers.
func (e *Effects) Reset() {
	e.buf = e.buf[:0]
	e.list = e.list[:0]
	e.evs = e.evs[:0]
	e.evKeys = e.evKeys[:0]
	e.empty = e.empty[:0]
}

// keyEventRec is one keyspace event: its key is evKeys[end-len:end].
type keyEventRec struct {
	db    int
	class byte
	name  string
	end   int
	len   int
}

// Event appends a keyspace event of the writes: class is its
// notify-keyspace-events letter, name Redis's event name.
func (e *Effects) Event(db int, class byte, name string, key []byte) {
	e.evKeys = append(e.evKeys, key...)
	e.evs = append(e.evs, keyEventRec{db: db, class: class, name: name, end: len(e.evKeys), len: len(key)})
}

// Events returns the number of keyspace events.
func (e *Effects) Events() int { return len(e.evs) }

// EventAt returns keyspace event i; key is borrowed until Reset.
func (e *Effects) EventAt(i int) (db int, class byte, name string, key []byte) {
	r := e.evs[i]
	return r.db, r.class, r.name, e.evKeys[r.end-r.len : r.end]
}

// Begin starts an effect of n arguments in db; exactly n Arg calls follow.
func (e *Effects) Begin(db int, cause Cause, n int) {
	e.list = append(e.list, Effect{DB: db, Cause: cause, Tag: e.Tag, Now: e.Now, off: len(e.buf)})
	e.buf = append(e.buf, '*')
	e.buf = strconv.AppendInt(e.buf, int64(n), 10)
	e.buf = append(e.buf, '\r', '\n')
}

// Arg appends one argument of the effect begun last.
func (e *Effects) Arg(b []byte) { e.buf = appendBulk(e.buf, b) }

// ArgString is Arg for a string.
func (e *Effects) ArgString(s string) { e.buf = appendBulk(e.buf, s) }

// appendBulk appends b as a RESP bulk string.
func appendBulk[T ~string | ~[]byte](buf []byte, b T) []byte {
	buf = append(buf, '$')
	buf = strconv.AppendInt(buf, int64(len(b)), 10)
	buf = append(buf, '\r', '\n')
	buf = append(buf, b...)
	return append(buf, '\r', '\n')
}

// ArgInt is Arg for an integer in decimal.
func (e *Effects) ArgInt(i int64) {
	var b [20]byte
	e.Arg(strconv.AppendInt(b[:0], i, 10))
}

// Wrap makes the effects from index from on, more than one, one
// transaction, as Redis propagates an EXEC: MULTI before them and EXEC
// after, in the first one's database, with its tag. The MULTI and EXEC
// of publishes alone are publishes too (CausePublish: what logs skips
// them all).
func (e *Effects) Wrap(from int) {
	e.flatten(from)
	if len(e.list)-from < 2 {
		return
	}
	cause := CausePublish
	for _, f := range e.list[from:] {
		if f.Cause != CausePublish {
			cause = CauseCommand
			break
		}
	}
	first := e.list[from]
	e.Begin(first.DB, cause, 1)
	e.ArgString("EXEC")
	e.list[len(e.list)-1].Tag = first.Tag
	const multi = "*1\r\n$5\r\nMULTI\r\n"
	e.buf = slices.Insert(e.buf, first.off, []byte(multi)...)
	for i := from; i < len(e.list); i++ {
		e.list[i].off += len(multi)
	}
	first.Cause = cause
	e.list = slices.Insert(e.list, from, first)
}

// flatten drops the MULTI and EXEC of transactions among the effects
// from index from on (a command that propagates several writes wraps
// them itself, as Redis does; inside MULTI or a script only the outer
// transaction stays).
func (e *Effects) flatten(from int) {
	const multi, exec = "*1\r\n$5\r\nMULTI\r\n", "*1\r\n$4\r\nEXEC\r\n"
	j := from
	w := len(e.buf)
	if from < len(e.list) {
		w = e.list[from].off
	}
	for i := from; i < len(e.list); i++ {
		_, b := e.At(i)
		if string(b) == multi || string(b) == exec {
			continue
		}
		f := e.list[i]
		copy(e.buf[w:], b)
		f.off = w
		w += len(b)
		e.list[j] = f
		j++
	}
	e.buf = e.buf[:w]
	e.list = e.list[:j]
}

// Truncate drops the effects from index n on: writes that were undone
// (a script's run abandoned on the shard it began on).
func (e *Effects) Truncate(n int) {
	if n < len(e.list) {
		e.buf = e.buf[:e.list[n].off]
		e.list = e.list[:n]
	}
}

// Raw appends one effect whose command is cmd, a RESP array of bulk
// strings (a client's request as it sent it, when that is the encoding
// Command would write: a copy instead of an encoding).
func (e *Effects) Raw(db int, cause Cause, cmd []byte) {
	e.list = append(e.list, Effect{DB: db, Cause: cause, Tag: e.Tag, Now: e.Now, off: len(e.buf)})
	e.buf = append(e.buf, cmd...)
}

// Command appends args as one effect.
func (e *Effects) Command(db int, cause Cause, args [][]byte) {
	e.Begin(db, cause, len(args))
	for _, a := range args {
		e.Arg(a)
	}
}

// Toucher is told about keys a write changed beyond those its key specs
// name (MOVE's key in the target database, every key of a flushed or
// swapped database): the shard bumps their versions and wakes their
// waiters.
type Toucher interface {
	Touch(db int, key []byte)
	TouchDB(db int) // every key of database db (-1: of every database)
	// Flushed: a FLUSHDB or FLUSHALL ran (client tracking's null
	// invalidation, which SWAPDB does not send).
	Flushed()
}

// Prop is what a row's Propagate function gets: the command that ran, its
// reply and the database after it, and where to state the propagated form.
// When no consumer reads effects, FX is nil and the function only touches.
type Prop struct {
	Args    [][]byte
	Reply   []byte // the command's RESP reply
	DB      *engine.DB
	DBIndex int
	Now     int64
	FX      *Effects // nil: nobody consumes effects
	Touch   Toucher
	Obey    bool // the command ran obeyed (Ctx.Obey)
	// Raw is Args as the client sent them when those bytes are Args's
	// RESP encoding (CanonicalLen), which Verbatim then copies; nil when
	// unknown.
	Raw []byte
}

// Verbatim states the command itself as its propagated form.
func (p *Prop) Verbatim() {
	switch {
	case p.FX == nil:
	case p.Raw != nil:
		p.FX.Raw(p.DBIndex, CauseCommand, p.Raw)
	default:
		p.FX.Command(p.DBIndex, CauseCommand, p.Args)
	}
}

// CanonicalLen is the length of args's RESP encoding as Command writes
// it: "*<n>\r\n", then "$<len>\r\n<arg>\r\n" each, every number in
// its shortest decimal form. A request of args that is exactly this long
// is this encoding (any other form of a number is longer, and CRLF is
// required), so its bytes can be copied. The reader accepts no other form
// today; the length check keeps the copy exact if it ever does.
func CanonicalLen(args [][]byte) int {
	n := 3 + decimalLen(len(args))
	for _, a := range args {
		n += 5 + decimalLen(len(a)) + len(a)
	}
	return n
}

// decimalLen is the number of decimal digits of v >= 0.
func decimalLen(v int) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// Begin starts a propagated command of n arguments (see Effects.Begin);
// Arg, ArgString and ArgInt do nothing when FX is nil.
func (p *Prop) Begin(n int) {
	if p.FX != nil {
		p.FX.Begin(p.DBIndex, CauseCommand, n)
	}
}

// Arg appends an argument to the command begun last.
func (p *Prop) Arg(b []byte) {
	if p.FX != nil {
		p.FX.Arg(b)
	}
}

// ArgString appends an argument to the command begun last.
func (p *Prop) ArgString(s string) {
	if p.FX != nil {
		p.FX.ArgString(s)
	}
}

// ArgInt appends an integer argument to the command begun last.
func (p *Prop) ArgInt(i int64) {
	if p.FX != nil {
		p.FX.ArgInt(i)
	}
}

// WriteKeys appends to dst the argument indexes of the keys args may
// write: the keys of the row's key specs flagged RW, OW or RM (all keys of
// a write row without key specs; the RO keys of a WritesRO row too; the
// key a write row's Route runs it on when its key specs find none, as
// PFMERGE's destination alone). It does not allocate when dst has room.
func (s *Spec) WriteKeys(args [][]byte, dst []int) (out []int, ok bool) {
	if len(s.KeySpecs) == 0 {
		if s.Flags&Write == 0 {
			return dst, true
		}
		return s.Keys(args, dst)
	}
	var buf [4]KeyRange
	rs, ok := s.KeyRanges(args, buf[:0])
	if !ok {
		if s.Route != nil && s.Flags&Write != 0 {
			if r := s.Route(args); r.Key > 0 {
				return append(dst, r.Key), true
			}
		}
		return dst, false
	}
	for _, r := range rs {
		if r.Spec >= 0 && s.KeySpecs[r.Spec].Flags&(KeyRW|KeyOW|KeyRM) == 0 && !s.WritesRO {
			continue
		}
		for i := r.First; i <= r.Last; i += r.Step {
			dst = append(dst, i)
		}
	}
	return dst, true
}

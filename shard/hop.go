package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/router"
)

// A hop is a command sent to the one shard that owns its keys, and its
// reply coming back (msgHop, msgHopReply). Once the pools are warm it
// allocates nothing: the command and its reply travel in a hopMsg that the
// connection's shard (home) takes from its own free list, fills and sends;
// the owner reads the command, writes the reply into the hopMsg's slot
// and sends the hopMsg back; home writes the reply out in order and, once
// it has left the queue, puts the hopMsg back on its list. Between the two
// sends only the owner touches it, and home reads none of it until the
// reply arrives: a slot that is not done is read by nobody.

// hopMsg is a hop's payload, owned by home except while the owner runs it.
type hopMsg struct {
	// slot is the reply's place in the connection's queue; the owner
	// writes its buf. A pooled slot that is only a ready slot (a local
	// reply queued behind a hop, see reply) uses nothing else.
	slot
	c       *conn // home's only
	spec    *command.Spec
	args    [][]byte // the command, pointing into argBuf
	argBuf  []byte
	db      int
	proto   int
	noTouch bool
	reply   command.ReplyMode // the client's CLIENT REPLY when it was sent
	who     reader            // the client it runs for (tracking.go)
	home    int
	// self: the client is RESP3 and subscribed while notifications are
	// on; the owner then notes the events the command emits, for home to
	// write the pushes the client owes itself into the reply
	// (notifyself.go).
	self  bool
	notes selfNotes
	// scan: a SCAN step, whose owner rewrites the reply's cursor into
	// the group's (router.RewriteCursor).
	scan bool
	// argv and small are where args, argBuf and the reply's buf start
	// (inline): a small command (up to 3 arguments, hopArgBytes bytes)
	// and its small reply stay in the hopMsg's own cache lines, which
	// home and the owner touch anyway, and need no buffer of their own.
	argv  [3][]byte
	small [hopArgBytes + hopReplyBytes]byte
}

// The bytes of small that a command's arguments and its reply start in.
const (
	hopArgBytes   = 48
	hopReplyBytes = 32
)

// inline points args, argBuf and buf at h's own arrays.
func (h *hopMsg) inline() {
	h.args = h.argv[:0]
	h.argBuf = h.small[:0:hopArgBytes]
	h.buf = h.small[hopArgBytes:hopArgBytes]
}

// Limits of what the free list keeps: how many hopMsgs (more are in
// flight only under a burst), and the largest buffer worth keeping.
const (
	maxFreeHops = 4096
	maxHopBuf   = 64 << 10
)

// newHop takes a hopMsg from the free list, or makes one.
func (s *Shard) newHop() *hopMsg {
	if h := popFree(&s.hops); h != nil {
		return h
	}
	h := &hopMsg{}
	h.slot.hop = h
	h.inline()
	return h
}

// popFree takes the last item off a free list, or returns nil when it
// is empty.
func popFree[T any](list *[]*T) *T {
	n := len(*list)
	if n == 0 {
		return nil
	}
	x := (*list)[n-1]
	(*list)[n-1] = nil
	*list = (*list)[:n-1]
	return x
}

// freeHop puts h back once its slot has left the connection's queue.
func (s *Shard) freeHop(h *hopMsg) {
	if len(s.hops) >= maxFreeHops {
		return
	}
	h.c, h.spec, h.done, h.scan, h.self = nil, nil, false, false, false
	h.buf = h.buf[:0]
	h.notes.reset()
	if cap(h.buf) > maxHopBuf || cap(h.argBuf) > maxHopBuf {
		clear(h.args[:cap(h.args)]) // no reference into a buffer let go
		h.inline()
	}
	s.hops = append(s.hops, h)
}

// readySlot is a pooled slot, done, for replies queued behind a hop.
func (s *Shard) readySlot() *slot {
	h := s.newHop()
	h.done = true
	return &h.slot
}

// pooledSlot queues a pooled slot, not done, for c's next reply (a pooled
// txn's, txnpool.go).
func (s *Shard) pooledSlot(c *conn) *slot {
	sl := &s.newHop().slot
	c.queue = append(c.queue, sl)
	return sl
}

// setArgs copies args into h's own buffers (command.AppendArgs).
func (h *hopMsg) setArgs(args [][]byte) {
	h.argBuf, h.args = command.AppendArgs(h.argBuf, h.args, args)
}

// hop sends a command whose keys all live on shard dst and queues its reply.
func (s *Shard) hop(c *conn, dst int, spec *command.Spec, args [][]byte) {
	s.stats.hops++
	h := s.newHop()
	h.c, h.spec, h.home = c, spec, s.id
	h.db, h.proto, h.noTouch, h.reply = c.cl.DB, c.cl.Proto, c.cl.NoTouch, c.cl.Reply
	h.self = s.kev.flags != 0 && c.cl.Proto == 3 && c.subscribed()
	h.who = c.reader(s.id, true)
	h.setArgs(args)
	if len(c.queue) == 0 && s.prefix.c == c {
		s.holdPrefix(c)
	}
	c.queue = append(c.queue, &h.slot)
	if h.reply == command.ReplySkip {
		c.cl.Reply = command.ReplyOn
	}
	s.outbox[dst] = append(s.outbox[dst], message{kind: msgHop, hop: h})
}

// holdPrefix is for c's first hop since serve began: the replies its
// commands wrote before it wait in a ready slot at the head of its queue
// and leave with the hop's reply, in one send, not in one of their own
// ahead of it (a pipeline of random keys over two shards took 1.5 sends,
// each waking the client). What is written to c after it queues behind
// them, as behind any hop (reply, push). Not under appendfsync always,
// whose held replies have their own order (aof.go).
func (s *Shard) holdPrefix(c *conn) {
	if s.aof.hold {
		return
	}
	out := s.rawOut(c)
	m := s.prefix.mark
	if len(*out) <= m {
		return
	}
	sl := s.readySlot()
	sl.buf = append(sl.buf, (*out)[m:]...)
	*out = (*out)[:m]
	c.queue = append(c.queue, sl)
}

// scanHop sends a SCAN step to shard dst, the one its cursor names, as a
// hop that counts as none (INFO's hops are the keyed commands'), runs
// without touching the keys it reads, and for no tracking reader.
func (s *Shard) scanHop(c *conn, spec *command.Spec, args [][]byte, dst int) {
	h := s.newHop()
	h.c, h.spec, h.home, h.scan = c, spec, s.id, true
	h.db, h.proto, h.noTouch, h.reply = c.cl.DB, c.cl.Proto, true, c.cl.Reply
	h.setArgs(args)
	c.queue = append(c.queue, &h.slot)
	if h.reply == command.ReplySkip {
		c.cl.Reply = command.ReplyOn
	}
	s.outbox[dst] = append(s.outbox[dst], message{kind: msgHop, hop: h})
}

// runHop runs a hop on the shard that owns its keys, now or, when they are
// busy, behind the work they wait for.
func (s *Shard) runHop(h *hopMsg) {
	if s.locks.Idle() { // nothing locked, nothing waits: no key to look at
		s.execHop(h)
		return
	}
	idx, _ := h.spec.Keys(h.args, s.keyIdx[:0])
	s.keyIdx = idx
	if s.blocked(h.spec, h.args, idx) {
		s.locks.Enqueue(&coord.Item{Keys: pick(h.args, idx, intentOf(h.spec)), Run: func() { s.execHop(h) }})
		return
	}
	s.execHop(h)
}

// execHop executes h, writes its reply into h's slot and sends h home.
func (s *Shard) execHop(h *hopMsg) {
	w := &s.hopW
	w.B, w.Proto = h.buf[:0], h.proto
	s.who = h.who
	if h.self {
		s.selfRemote(h.c, w, &h.notes)
	}
	s.exec(w, nil, h.noTouch, h.db, h.spec, h.args)
	if h.self {
		s.selfOff()
	}
	s.who = reader{}
	h.buf, w.B = w.B, nil
	if h.scan {
		h.buf = router.RewriteCursor(h.buf, s.id, len(s.group.shards), h.proto)
	}
	s.outbox[h.home] = append(s.outbox[h.home], message{kind: msgHopReply, hop: h})
}

// hopDone takes a hop's reply at home. more: the next message of the
// batch is another reply to the same connection, whose hopDone writes
// both out (flushQueue).
func (s *Shard) hopDone(h *hopMsg, more bool) {
	if h.reply != command.ReplyOn {
		h.buf = h.buf[:0]
	}
	h.done = true
	if len(h.notes.ev) > 0 {
		h.buf = s.placeNotes(&h.notes, h.c, h.buf)
	}
	if !more {
		s.flushQueue(h.c)
	}
}

// moreFor reports whether q's first message is a hop reply to c.
func moreFor(q []message, c *conn) bool {
	return len(q) > 0 && q[0].kind == msgHopReply && q[0].hop != nil && q[0].hop.c == c
}

// warmHops has the engine warm the cache for the first key of each hop
// request among the next messages of a batch, as prefetch does for a
// connection's pipeline. It returns how many messages it looked at (at
// most engine.PrefetchMax requests among them) and how many walks ended on
// a leaf (engine.DB.Prefetch). Only requests on the first one's database
// count; a batch on one key is not worth the walk.
func (s *Shard) warmHops(q []message) (seen, warmed int) {
	keys := s.warmKeys[:0]
	db := -1
	for _, m := range q {
		if len(keys) == cap(keys) {
			break
		}
		seen++
		h := m.hop
		if m.kind != msgHop || h == nil || h.spec.First <= 0 || h.spec.First >= len(h.args) {
			continue
		}
		if db < 0 {
			db = h.db
		}
		if h.db == db {
			keys = append(keys, h.args[h.spec.First])
		}
	}
	if len(keys) > 1 && !sameKeys(keys) {
		warmed = s.store.DB(db).Prefetch(keys)
	}
	clear(keys) // keep no reference into a payload
	return seen, warmed
}

// handle runs one message on its destination shard.
func (s *Shard) handle(m message) {
	switch {
	case m.pub != nil && m.kind == msgPublish:
		s.runPublish(m.pub)
	case m.pub != nil:
		s.published(m.pub)
	case m.lock != nil:
		s.handleLock(m.kind, m.lock)
	case m.part != nil:
		s.handlePart(m.kind, m.part)
	case m.data != nil:
		m.data.handle(s, m.kind)
	case m.kind == msgHop:
		s.runHop(m.hop)
	default:
		s.hopDone(m.hop, false)
	}
}

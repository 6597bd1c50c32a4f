package shard

import (
	"bytes"
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/pubsub"
	"github.com/radish-kv/radish/router"
)

// Pub/Sub across shards. Each shard keeps the subscriptions of its own
// connections (pubsub.Registry); no shard reads another's but for the
// registry's Filter, the compact summary of which channels (by hash
// bucket) and whether any patterns have subscribers there.
//
// A PUBLISH is delivered at once to the publisher's shard's subscribers;
// for every other shard whose Filter wants the channel it becomes one
// entry of that shard's pubBatch, the one message per destination shard
// that carries every publish of the loop turn (a new batch starts only
// when another message to that shard was queued after it, so a batch never
// overtakes what was sent before it). The destination delivers each entry
// to its subscribers, writes how many received it into the entry and
// sends the batch back; the publisher's reply (a pooled slot in its queue)
// is filled with the sum once every shard it was sent to answered. So the
// count is exact, as Redis's: the clients that received the message. The
// price is a round trip before the reply when another shard has
// subscribers (the publisher's later commands do not wait for it), and a
// false positive of the Filter (another channel in the same bucket, or any
// pattern at all there) costs an entry that answers 0.
//
// Order: every message a connection publishes goes the same way to a
// given subscriber (straight into its output on the same shard, or in
// batches to its shard, which the inbox keeps in order), so each
// subscriber gets a publisher's messages in the order they were published.
//
// Sharded channels live on the shard their name hashes to (the owner,
// router.ShardOf, like a key). A connection's SSUBSCRIBE registers it in
// its own shard's registry and adds one to the owner's count for that
// shard (pubsub.Owned); its confirmation waits for the owner's
// acknowledgement, so an SPUBLISH that follows it counts the subscriber.
// An SPUBLISH runs on the owner (a batch entry when the publisher's shard
// is not the owner), which knows its count at once and sends one entry to
// each shard holding subscribers.
//
// Replication: while a replication stream is fed, a PUBLISH or SPUBLISH a
// client sends is an effect of its shard's turn (command.CausePublish),
// in order with the shard's writes, as Redis 7 propagates it to replicas;
// the AOF skips it. One inside EXEC or a script is an effect of the
// transaction, inside its MULTI ... EXEC: the first part of a PUBLISH in
// EXEC (which runs on every shard) emits it, a script's on the shard it
// ran on, or with the first part's write-back of a script that held
// several shards (scriptpub.go). A replica runs it from its master link
// like any client's, so its own subscribers get the message.

// pubBatch is one turn's publishes from one shard to another, in order;
// channels and messages lie back to back in buf. Owned by the sender but
// while the destination runs it (between msgPublish and msgPublished).
type pubBatch struct {
	from int
	buf  []byte
	ents []pubEnt
}

// pubEnt is one publish in a batch.
type pubEnt struct {
	op     pubOp
	chEnd  int // the channel is buf[previous msgEnd:chEnd]
	msgEnd int // the message is buf[chEnd:msgEnd]
	wait   *pubWait
	n      int64 // receivers, written by the destination
	joined bool  // a publish that joined wait's (joinWait): wait counts the first's only
	// skip, when set, is a connection of the destination that has the
	// message already (a keyspace event of its own hopped command,
	// notifyself.go): it receives nothing from this entry.
	skip *conn
}

type pubOp uint8

const (
	pubChannel pubOp = iota // deliver to the channel's and matching patterns' subscribers, count them
	pubShard                // deliver to a sharded channel's subscribers here
	pubOwner                // run an SPUBLISH on the channel's owner, count its subscribers
)

// pubWait is a publish waiting for its count from other shards, with the
// publishes that joined it (joinWait): k replies of the same count.
type pubWait struct {
	c     *conn
	h     *hopMsg // the replies' slot in c's queue
	n     int64
	local int64 // the count here
	left  int   // shards yet to answer
	dests int   // shards it was sent to
	k     int   // replies
}

// pubState is a shard's Pub/Sub state.
type pubState struct {
	reg   *pubsub.Registry[*conn]
	owned pubsub.Owned
	open  []*pubBatch // per destination: the batch this turn's publishes join
	free  []*pubBatch
	waits []*pubWait
	// frames[p] is the message being delivered as protocol 2+p sees it,
	// built once per delivery for all its subscribers.
	frames [2][]byte
	built  [2]bool
	head   [2][]byte // deliverBatchRun's frame heads
	run    pubRun    // the open run of publishes (pubrun.go)
	last   *pubWait  // the wait of the last PUBLISH that made one
	lastCh []byte    // its channel
	hashCh []byte    // the channel hashOf hashed last
	hash   uint64    // its hash
	self   selfPush  // where messages to the connection running an EXEC go
	skip   *conn     // receives nothing from push: it has the message (notifyself.go)
}

// selfPush is where the messages to one connection go while a
// transaction of its own runs here: into the reply being written, so
// that a PUBLISH inside EXEC to a channel the connection subscribes to
// puts the message in the middle of EXEC's array, before the PUBLISH's
// own reply, as Redis 7.0 writes it (RESP2 and RESP3). Only the
// transaction's commands run while it is set, so no other publisher's
// message lands there.
type selfPush struct {
	c   *conn
	buf *[]byte
}

func (ps *pubState) init(shards int) {
	ps.reg = pubsub.NewRegistry[*conn]()
	ps.open = make([]*pubBatch, shards)
}

// subscribed reports whether c holds any subscription.
func (c *conn) subscribed() bool { return c.cl.Subs|c.cl.PSubs|c.cl.SSubs != 0 }

// pubsubCmd runs args when it is a Pub/Sub command, or refuses it when c
// is a RESP2 client in subscribed mode and it is not one of the commands
// that mode allows; it reports whether it did either.
func (s *Shard) pubsubCmd(c *conn, spec *command.Spec, args [][]byte) bool {
	if c.cl.Proto == 2 && c.subscribed() && !command.SubscribedOK(spec) {
		e := "Can't execute '" + spec.Name + "': only (P|S)SUBSCRIBE / " +
			"(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
		if spec.Name == "exec" {
			// As Redis's rejectCommand: an EXEC refused is an aborted one.
			e = errtext.ExecAbortWhy + e
		} else {
			e = "ERR " + e
		}
		s.stats.refusedCall(spec, e)
		s.reply(c, func(w *resp.Writer) { w.Error(e) })
		return true
	}
	op := command.PubSubOf(spec)
	if op == command.PSNone {
		return false
	}
	s.stats.commands++
	s.stats.count(spec)
	switch op {
	case command.PSSubscribe:
		s.subscribe(c, pubsub.Channel, "subscribe", args[1:])
	case command.PSPSubscribe:
		s.subscribe(c, pubsub.Pattern, "psubscribe", args[1:])
	case command.PSSSubscribe:
		s.ssubscribe(c, args[1:])
	case command.PSUnsubscribe:
		s.unsubscribe(c, pubsub.Channel, "unsubscribe", args[1:])
	case command.PSPUnsubscribe:
		s.unsubscribe(c, pubsub.Pattern, "punsubscribe", args[1:])
	case command.PSSUnsubscribe:
		s.unsubscribe(c, pubsub.Shard, "sunsubscribe", args[1:])
	case command.PSPublish:
		s.publish(c, args[1], args[2])
		s.propagatePublish(c, args)
	case command.PSSPublish:
		s.spublish(c, args[1], args[2])
		s.propagatePublish(c, args)
	default:
		s.pubsubQuery(c, op, args)
	}
	return true
}

// counted copies c's subscription counts into its Client (CLIENT LIST,
// PING's subscribed-mode reply, subscribed).
func (s *Shard) counted(c *conn) {
	r := s.ps.reg
	c.cl.Subs, c.cl.PSubs, c.cl.SSubs = r.Count(c, pubsub.Channel), r.Count(c, pubsub.Pattern), r.Count(c, pubsub.Shard)
}

// subscribe subscribes c to channels or patterns and confirms each.
func (s *Shard) subscribe(c *conn, kind pubsub.Kind, verb string, names [][]byte) {
	s.reply(c, func(w *resp.Writer) { s.subscribeTo(w, c, kind, verb, names) })
}

// subscribeTo is subscribe writing to w.
func (s *Shard) subscribeTo(w *resp.Writer, c *conn, kind pubsub.Kind, verb string, names [][]byte) {
	for _, name := range names {
		_, n := s.ps.reg.Subscribe(c, kind, name)
		w.B = pubsub.AppendSubscription(w.B, w.Proto, verb, name, false, n)
	}
	s.counted(c)
}

// ssubscribe subscribes c to sharded channels; the confirmations leave
// once every owner counted the new subscriptions.
func (s *Shard) ssubscribe(c *conn, names [][]byte) {
	w := resp.Writer{Proto: c.cl.Proto}
	nshards := len(s.group.shards)
	sl := s.pend(c)
	var ack *ssubAck
	home := s.id
	for _, name := range names {
		added, n := s.ps.reg.Subscribe(c, pubsub.Shard, name)
		w.B = pubsub.AppendSubscription(w.B, w.Proto, "ssubscribe", name, false, n)
		if !added {
			continue
		}
		owner := router.ShardOf(name, nshards)
		if owner == s.id {
			s.ps.owned.Add(name, home, nshards, 1)
			continue
		}
		if ack == nil {
			ack = &ssubAck{c: c, sl: sl}
		}
		ack.left++
		s.post(owner, msgSSub, &ssubMsg{name: slices.Clone(name), home: home, delta: 1, ack: ack})
	}
	s.counted(c)
	if ack == nil {
		s.fill(c, sl, w.B)
		return
	}
	ack.reply = w.B
}

// ssubMsg is a change of a sharded channel's subscribers on shard home
// (delta: +1 for SSUBSCRIBE, msgSSub, which the owner acknowledges with
// msgSSubAck in the same value; -1 for SSUNSUBSCRIBE, msgSUnsub), for the
// shard that owns the channel. The owner reads name, home and delta; ack
// is home's only.
type ssubMsg struct {
	name  []byte
	home  int
	delta int
	ack   *ssubAck
}

// ssubAck is home's side of an SSUBSCRIBE: its confirmations leave once
// every owner counted its channel.
type ssubAck struct {
	c     *conn
	sl    *slot
	left  int
	reply []byte
}

func (m *ssubMsg) handle(s *Shard, k msgKind) {
	switch k {
	case msgSSubAck:
		a := m.ack
		if a.left--; a.left == 0 {
			s.fill(a.c, a.sl, a.reply)
		}
	default:
		s.ps.owned.Add(m.name, m.home, len(s.group.shards), m.delta)
		if k == msgSSub {
			s.post(m.home, msgSSubAck, m)
		}
	}
}

// unsubscribe unsubscribes c from names, or from everything of kind when
// names is empty, and confirms each.
func (s *Shard) unsubscribe(c *conn, kind pubsub.Kind, verb string, names [][]byte) {
	s.reply(c, func(w *resp.Writer) { s.unsubscribeFrom(w, c, kind, verb, names) })
}

// unsubscribeFrom is unsubscribe writing to w.
func (s *Shard) unsubscribeFrom(w *resp.Writer, c *conn, kind pubsub.Kind, verb string, names [][]byte) {
	switch all := s.ps.reg.Names(c, kind); {
	case len(names) > 0:
		for _, name := range names {
			w.B = s.unsubscribe1(w.B, w.Proto, c, kind, verb, name)
		}
	case len(all) > 0:
		for _, name := range slices.Clone(all) {
			w.B = s.unsubscribe1(w.B, w.Proto, c, kind, verb, []byte(name))
		}
	default:
		n := s.ps.reg.Count(c, pubsub.Channel) + s.ps.reg.Count(c, pubsub.Pattern)
		if kind == pubsub.Shard {
			n = s.ps.reg.Count(c, pubsub.Shard)
		}
		w.B = pubsub.AppendSubscription(w.B, w.Proto, verb, nil, true, n)
	}
	s.counted(c)
}

// unsubscribe1 unsubscribes c from one name and appends its confirmation.
func (s *Shard) unsubscribe1(b []byte, proto int, c *conn, kind pubsub.Kind, verb string, name []byte) []byte {
	removed, n := s.ps.reg.Unsubscribe(c, kind, name)
	if removed && kind == pubsub.Shard {
		s.sunsubscribed(name)
	}
	return pubsub.AppendSubscription(b, proto, verb, name, false, n)
}

// sunsubscribed tells the owner of a sharded channel that a subscriber
// here left it.
func (s *Shard) sunsubscribed(name []byte) {
	nshards, home := len(s.group.shards), s.id
	owner := router.ShardOf(name, nshards)
	if owner == s.id {
		s.ps.owned.Add(name, home, nshards, -1)
		return
	}
	s.post(owner, msgSUnsub, &ssubMsg{name: slices.Clone(name), home: home, delta: -1})
}

// dropSubscriptions forgets every subscription of c (its connection
// closed, or RESET).
func (s *Shard) dropSubscriptions(c *conn) {
	for _, name := range s.ps.reg.Drop(c) {
		s.sunsubscribed([]byte(name))
	}
	s.counted(c)
}

// Unsubscribe implements command.Local: RESET drops every subscription.
func (s *Shard) Unsubscribe(cl *command.Client) {
	if !cl.Subscribed() {
		return
	}
	for _, c := range s.conns {
		if &c.cl == cl {
			s.dropSubscriptions(c)
			return
		}
	}
}

// Publish implements command.Local (PUBLISH inside EXEC, on every shard,
// and in a script on a single-shard server).
func (s *Shard) Publish(ch, msg []byte) int64 {
	s.propagateRun("PUBLISH", ch, msg)
	return s.deliverHere(pubsub.Channel, ch, msg)
}

// SPublish implements command.Local (SPUBLISH inside EXEC, on every
// shard, and in a script on its channel's shard).
func (s *Shard) SPublish(ch, msg []byte) int64 {
	s.propagateRun("SPUBLISH", ch, msg)
	return s.deliverHere(pubsub.Shard, ch, msg)
}

// propagateRun is propagatePublish of a PUBLISH or SPUBLISH (name) that
// a handler runs (inside EXEC, in a script), in the database it runs in,
// with the tag of the work it is part of: inside the EXEC's or script's
// MULTI ... EXEC, as Redis propagates it. A publish inside EXEC runs on
// every shard; its first part propagates it, the others deliver only.
func (s *Shard) propagateRun(name string, ch, msg []byte) {
	if s.laterPart {
		return
	}
	s.propagatePub(s.ctx.DBIndex, name, ch, msg)
}

// propagatePub hands a publish (PUBLISH or SPUBLISH: name) of a
// transaction or a script to the replicas, as propagatePublish does a
// client's.
func (s *Shard) propagatePub(db int, name string, ch, msg []byte) {
	if !s.feed.on {
		return
	}
	fx := &s.mut.fx
	fx.Now = s.now
	fx.Begin(db, command.CausePublish, 3)
	fx.ArgString(name)
	fx.Arg(ch)
	fx.Arg(msg)
}

// Subscribe implements command.Local: (P)SUBSCRIBE and (P|S)UNSUBSCRIBE
// inside EXEC.
func (s *Shard) Subscribe(cl *command.Client, op command.PubSubOp, names [][]byte, w *resp.Writer) bool {
	for _, c := range s.conns {
		if &c.cl != cl {
			continue
		}
		switch op {
		case command.PSSubscribe:
			s.subscribeTo(w, c, pubsub.Channel, "subscribe", names)
		case command.PSPSubscribe:
			s.subscribeTo(w, c, pubsub.Pattern, "psubscribe", names)
		case command.PSUnsubscribe:
			s.unsubscribeFrom(w, c, pubsub.Channel, "unsubscribe", names)
		case command.PSPUnsubscribe:
			s.unsubscribeFrom(w, c, pubsub.Pattern, "punsubscribe", names)
		case command.PSSUnsubscribe:
			s.unsubscribeFrom(w, c, pubsub.Shard, "sunsubscribe", names)
		default:
			return false
		}
		return true
	}
	return false
}

// PubSubQuery implements command.Local: this shard's part of a PUBSUB
// introspection subcommand inside EXEC.
func (s *Shard) PubSubQuery(op command.PubSubOp, args [][]byte) ([]string, []int64) {
	var pattern []byte
	if len(args) == 1 && (op == command.PSChannels || op == command.PSShardChannels) {
		pattern = args[0]
	}
	a := s.pubsubPart(op, args, pattern)
	if op == command.PSNumSub || op == command.PSShardNumSub {
		return nil, a.counts
	}
	return a.names, nil
}

// publish delivers msg to channel's subscribers here and sends it to every
// shard that may have more; the reply counts them all.
func (s *Shard) publish(c *conn, ch, msg []byte) {
	n := s.deliverFrom(c, ch, msg)
	h := s.ps.hashOf(ch)
	if p := s.ps.last; p != nil && s.joinWait(p, c, ch, h, n) {
		p.k++
		for q, o := range s.group.shards {
			if q != s.id && o.ps.reg.Filter.Wants(h) {
				s.pubEntry(q, pubChannel, ch, msg, p)
				s.lastEnt(q).joined = true
			}
		}
		return
	}
	var wait *pubWait
	for q, o := range s.group.shards {
		if q == s.id || !o.ps.reg.Filter.Wants(h) {
			continue
		}
		if wait == nil {
			wait = s.newWait(c, n)
		}
		wait.left++
		wait.dests++
		s.pubEntry(q, pubChannel, ch, msg, wait)
	}
	s.ps.last = wait
	if wait == nil {
		s.replyCount(c, n)
		return
	}
	s.ps.lastCh = append(s.ps.lastCh[:0], ch...)
}

// propagatePublish hands a PUBLISH or SPUBLISH to the replicas while a
// replication stream is fed, as Redis 7 propagates it (its replicas'
// subscribers get the message), as the client sent it when the shard has
// its bytes. It is no write: it counts no change, and the AOF skips it
// (command.CausePublish).
func (s *Shard) propagatePublish(c *conn, args [][]byte) {
	if !s.feed.on {
		return
	}
	fx := &s.mut.fx
	fx.Now = s.now
	if raw := s.mut.rawOf(args); raw != nil {
		fx.Raw(c.cl.DB, command.CausePublish, raw)
	} else {
		fx.Command(c.cl.DB, command.CausePublish, args)
	}
}

// hashOf is pubsub.Hash(ch), kept for the next publish: a pipeline's
// publishes to one channel hash it once.
func (ps *pubState) hashOf(ch []byte) uint64 {
	if !bytes.Equal(ps.hashCh, ch) || ps.hashCh == nil {
		ps.hash, ps.hashCh = pubsub.Hash(ch), append(ps.hashCh[:0], ch...)
	}
	return ps.hash
}

// joinWait reports whether a PUBLISH of c to ch (hashed h), counted n
// here, may join p, the wait of the last PUBLISH that made one, instead
// of making its own: a pipeline of PUBLISHes to one channel with
// subscribers on other shards then costs one reply slot and one count per
// shard, not one per publish. It may when p is c's, on ch, its reply slot
// is the last of c's queue (nothing was replied or pushed to c since),
// this shard counted the same, and the last entry of this turn's open
// batch to each shard the publish goes to is p's, to exactly p's shards:
// then the entries are delivered in one run of each destination's batch,
// whose registry does not change during it, so every one of them counts
// what p's first entry counts.
func (s *Shard) joinWait(p *pubWait, c *conn, ch []byte, h uint64, n int64) bool {
	if p.c != c || p.local != n || c.cl.Reply != command.ReplyOn || p.h.reply != command.ReplyOn ||
		len(c.queue) == 0 || c.queue[len(c.queue)-1] != &p.h.slot || !bytes.Equal(s.ps.lastCh, ch) {
		return false
	}
	dests := 0
	for q, o := range s.group.shards {
		if q == s.id || !o.ps.reg.Filter.Wants(h) {
			continue
		}
		b := s.ps.open[q]
		if out := s.outbox[q]; b == nil || len(out) == 0 || out[len(out)-1].pub != b || len(b.ents) == 0 {
			return false
		}
		if e := &b.ents[len(b.ents)-1]; e.wait != p || e.op != pubChannel {
			return false
		}
		dests++
	}
	return dests == p.dests
}

// lastEnt is the last entry of this turn's batch to shard q.
func (s *Shard) lastEnt(q int) *pubEnt {
	b := s.ps.open[q]
	return &b.ents[len(b.ents)-1]
}

// spublish runs an SPUBLISH on the channel's owner. The subscribers here
// get the message at once, before the reply, as a PUBLISH's do; the owner
// counts them and sends the message to the other shards.
func (s *Shard) spublish(c *conn, ch, msg []byte) {
	owner := router.ShardOf(ch, len(s.group.shards))
	if owner == s.id {
		s.replyCount(c, s.spublishOwned(ch, msg, -1))
		return
	}
	s.deliverHere(pubsub.Shard, ch, msg)
	wait := s.newWait(c, 0)
	wait.left, wait.dests = 1, 1
	s.pubEntry(owner, pubOwner, ch, msg, wait)
}

// spublishOwned publishes on a sharded channel this shard owns: to its
// subscribers here and to every shard that holds some but skip (the
// publisher's, which delivered it already). It returns how many there are.
func (s *Shard) spublishOwned(ch, msg []byte, skip int) int64 {
	per, total := s.ps.owned.Homes(ch)
	for home, k := range per {
		switch {
		case k == 0 || home == skip:
		case home == s.id:
			s.deliverHere(pubsub.Shard, ch, msg)
		default:
			s.pubEntry(home, pubShard, ch, msg, nil)
		}
	}
	return int64(total)
}

// replyCount writes a publish's reply, as CLIENT REPLY allows.
func (s *Shard) replyCount(c *conn, n int64) {
	switch c.cl.Reply {
	case command.ReplyOn:
		s.reply(c, func(w *resp.Writer) { w.Int(n) })
	case command.ReplySkip:
		c.cl.Reply = command.ReplyOn
	}
}

// newWait takes a pubWait from the free list and queues its reply slot.
func (s *Shard) newWait(c *conn, n int64) *pubWait {
	var p *pubWait
	if k := len(s.ps.waits); k > 0 {
		p = s.ps.waits[k-1]
		s.ps.waits = s.ps.waits[:k-1]
	} else {
		p = &pubWait{}
	}
	p.c, p.n, p.local, p.left, p.dests, p.k = c, n, n, 0, 0, 1
	p.h = s.newHop()
	c.queue = append(c.queue, &p.h.slot)
	if c.cl.Reply == command.ReplySkip {
		c.cl.Reply = command.ReplyOn
		p.h.reply = command.ReplySkip
	} else {
		p.h.reply = c.cl.Reply
	}
	return p
}

// answered adds a shard's count to p, and fills p's slot when it was the
// last.
func (s *Shard) answered(p *pubWait, n int64) {
	p.n += n
	if p.left--; p.left > 0 {
		return
	}
	h := p.h
	h.buf = h.buf[:0]
	if h.reply == command.ReplyOn {
		w := resp.Writer{B: h.buf}
		for range p.k {
			w.Int(p.n)
		}
		h.buf = w.B
	}
	s.fill(p.c, &h.slot, h.buf)
	p.c, p.h = nil, nil
	if len(s.ps.waits) < maxFreeHops {
		s.ps.waits = append(s.ps.waits, p)
	}
}

// pubEntry appends a publish to this turn's batch for shard dst.
func (s *Shard) pubEntry(dst int, op pubOp, ch, msg []byte, wait *pubWait) {
	b := s.ps.open[dst]
	if q := s.outbox[dst]; b == nil || len(q) == 0 || q[len(q)-1].pub != b {
		b = s.newBatch()
		s.ps.open[dst] = b
		s.outbox[dst] = append(s.outbox[dst], message{kind: msgPublish, pub: b})
	}
	b.buf = append(b.buf, ch...)
	chEnd := len(b.buf)
	b.buf = append(b.buf, msg...)
	b.ents = append(b.ents, pubEnt{op: op, chEnd: chEnd, msgEnd: len(b.buf), wait: wait})
}

func (s *Shard) newBatch() *pubBatch {
	if k := len(s.ps.free); k > 0 {
		b := s.ps.free[k-1]
		s.ps.free = s.ps.free[:k-1]
		return b
	}
	return &pubBatch{from: s.id}
}

// runPublish delivers a batch from another shard and sends it back with
// the counts.
func (s *Shard) runPublish(b *pubBatch) {
	for i := 0; i < len(b.ents); {
		e := &b.ents[i]
		if j := s.runEnd(b, i); j > i+1 {
			n := s.deliverBatchRun(b, e.op, i, j)
			if e.op == pubChannel {
				for k := i; k < j; k++ {
					b.ents[k].n = n
				}
			}
			i = j
			continue
		}
		ch, msg := b.at(i)
		switch e.op {
		case pubChannel:
			s.ps.skip = e.skip
			e.n = s.deliverHere(pubsub.Channel, ch, msg)
			s.ps.skip = nil
		case pubShard:
			s.deliverHere(pubsub.Shard, ch, msg)
		case pubOwner:
			e.n = s.spublishOwned(ch, msg, b.from)
		}
		i++
	}
	s.outbox[b.from] = append(s.outbox[b.from], message{kind: msgPublished, pub: b})
}

// published takes a batch back: its counts go to the publishes waiting
// for them, and the batch to the free list.
func (s *Shard) published(b *pubBatch) {
	for i := range b.ents {
		if e := &b.ents[i]; e.wait != nil && !e.joined {
			s.answered(e.wait, e.n)
		}
	}
	clear(b.ents)
	b.ents, b.buf = b.ents[:0], b.buf[:0]
	if cap(b.buf) > maxHopBuf {
		b.buf = nil
	}
	if len(s.ps.free) < maxFreeHops {
		s.ps.free = append(s.ps.free, b)
	}
}

// deliverHere writes msg to every subscriber here of channel in kind's
// namespace (and, for Channel, of every matching pattern) and returns how
// many received it.
func (s *Shard) deliverHere(kind pubsub.Kind, ch, msg []byte) int64 {
	ps := &s.ps
	subs := ps.reg.Subscribers(kind, ch)
	n := int64(len(subs))
	if len(subs) > 0 {
		ps.built = [2]bool{}
		for _, c := range subs {
			p := c.cl.Proto - 2
			if !ps.built[p] {
				ps.frames[p] = pubsub.AppendMessage(ps.frames[p][:0], c.cl.Proto, kind, ch, msg)
				ps.built[p] = true
			}
			s.push(c, ps.frames[p])
		}
	}
	if kind == pubsub.Channel && ps.reg.Patterns() > 0 {
		ps.reg.Matching(ch, func(pattern string, subs []*conn) {
			n += int64(len(subs))
			ps.built = [2]bool{}
			for _, c := range subs {
				p := c.cl.Proto - 2
				if !ps.built[p] {
					ps.frames[p] = pubsub.AppendPMessage(ps.frames[p][:0], c.cl.Proto, pattern, ch, msg)
					ps.built[p] = true
				}
				s.push(c, ps.frames[p])
			}
		})
	}
	return n
}

// push writes a message to a subscriber, in order behind its replies.
func (s *Shard) push(c *conn, frame []byte) {
	if c.closing || c.dead || c == s.ps.skip {
		return
	}
	if c == s.ps.self.c {
		*s.ps.self.buf = append(*s.ps.self.buf, frame...)
		return
	}
	if len(c.queue) == 0 {
		out := s.output(c)
		*out = append(*out, frame...)
		s.checkOutput(c)
		return
	}
	last := c.queue[len(c.queue)-1]
	if !last.done {
		last = s.readySlot()
		c.queue = append(c.queue, last)
	}
	last.buf = append(last.buf, frame...)
}

// pubAnswer is one shard's part of a PUBSUB introspection command.
type pubAnswer struct {
	names  []string
	counts []int64
}

// pubsubQuery runs PUBSUB CHANNELS, NUMSUB, NUMPAT, SHARDCHANNELS or
// SHARDNUMSUB on every shard and merges the answers.
func (s *Shard) pubsubQuery(c *conn, op command.PubSubOp, args [][]byte) {
	if (op == command.PSChannels || op == command.PSShardChannels) && len(args) > 3 {
		s.reply(c, func(w *resp.Writer) {
			w.Error(errtext.SubSyntax(args[0], args[1]))
		})
		return
	}
	args = command.CopyArgs(args)
	var pattern []byte
	if len(args) == 3 && (op == command.PSChannels || op == command.PSShardChannels) {
		pattern = args[2]
	}
	answers := make([]pubAnswer, len(s.group.shards))
	// This shard answers now, before the client's next command changes
	// what it holds.
	answers[s.id] = s.pubsubPart(op, args[2:], pattern)
	proto := c.cl.Proto
	if len(answers) == 1 {
		s.reply(c, func(w *resp.Writer) { w.Raw(mergePubSub(op, args[2:], answers, proto)) })
		return
	}
	sl := s.pend(c)
	s.queryShards(op, args[2:], pattern, answers, func() { s.fill(c, sl, mergePubSub(op, args[2:], answers, proto)) })
}

// psQuery is one shard's part of a PUBSUB introspection command, or of
// a script's count of a channel's receivers (op PSPublish, the channel
// args[0]), as a message's contents: the request (msgPSQuery) and, in the
// same value, the answer (msgPSAnswer). The destination reads op, args
// and pattern, home's copy of the command's, which nothing changes until
// the last answer, and writes only a; g is home's only.
type psQuery struct {
	op      command.PubSubOp
	args    [][]byte
	pattern []byte
	home    int
	at      int // the shard asked
	a       pubAnswer
	g       *psGather
}

// psGather is home's side of a query on every shard: the answers by
// shard, how many are out, and what runs once the last is in.
type psGather struct {
	answers []pubAnswer
	left    int
	done    func()
}

// queryShards asks every other shard its part of op into answers (this
// shard's is there already), then runs done.
func (s *Shard) queryShards(op command.PubSubOp, args [][]byte, pattern []byte, answers []pubAnswer, done func()) {
	g := &psGather{answers: answers, left: len(answers) - 1, done: done}
	if g.left == 0 {
		done()
		return
	}
	for i := range answers {
		if i != s.id {
			s.post(i, msgPSQuery, &psQuery{op: op, args: args, pattern: pattern, home: s.id, at: i, g: g})
		}
	}
}

func (q *psQuery) handle(s *Shard, k msgKind) {
	if k == msgPSQuery {
		q.a = s.pubsubPart(q.op, q.args, q.pattern)
		s.post(q.home, msgPSAnswer, q)
		return
	}
	g := q.g
	g.answers[q.at] = q.a
	if g.left--; g.left == 0 {
		g.done()
	}
}

// pubsubPart is one shard's answer to a PUBSUB introspection command.
func (s *Shard) pubsubPart(op command.PubSubOp, args [][]byte, pattern []byte) pubAnswer {
	var a pubAnswer
	switch op {
	case command.PSPublish: // a script's PUBLISH: its channel's receivers
		a.counts = []int64{s.receivers(args[0])}
	case command.PSChannels:
		a.names = s.ps.reg.Channels(nil, pubsub.Channel, pattern)
	case command.PSNumPat:
		a.names = s.ps.reg.Channels(nil, pubsub.Pattern, nil)
	case command.PSShardChannels:
		a.names = s.ps.owned.Channels(nil, pattern)
	case command.PSNumSub, command.PSShardNumSub:
		a.counts = make([]int64, len(args))
		for i, ch := range args {
			if op == command.PSNumSub {
				a.counts[i] = int64(s.ps.reg.NumSub(pubsub.Channel, ch))
			} else {
				_, n := s.ps.owned.Homes(ch)
				a.counts[i] = int64(n)
			}
		}
	}
	return a
}

// mergePubSub writes the reply of a PUBSUB introspection command from
// every shard's answer: channels and patterns subscribed on several
// shards are counted once, subscriber counts are added.
func mergePubSub(op command.PubSubOp, args [][]byte, answers []pubAnswer, proto int) []byte {
	w := resp.Writer{Proto: proto}
	switch op {
	case command.PSNumSub, command.PSShardNumSub:
		w.Array(2 * len(args))
		for i, ch := range args {
			var n int64
			for _, a := range answers {
				n += a.counts[i]
			}
			w.Bulk(ch)
			w.Int(n)
		}
		return w.B
	}
	seen := make(map[string]struct{})
	var names []string
	for _, a := range answers {
		for _, name := range a.names {
			if _, dup := seen[name]; !dup {
				seen[name] = struct{}{}
				names = append(names, name)
			}
		}
	}
	if op == command.PSNumPat {
		w.Int(int64(len(names)))
		return w.B
	}
	w.Array(len(names))
	for _, name := range names {
		w.BulkString(name)
	}
	return w.B
}

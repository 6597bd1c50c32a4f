package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

// Blocking commands (BLPOP, BLMOVE, BZPOPMIN ...).
//
// The connection's shard (home) decides; the shards that own the keys
// (holders) keep a FIFO of waiters per key. When a write on a holder may
// have filled a key, the holder runs the command's BlockFunc for the first
// waiter. A waiter whose home is another shard is claimed first: the holder
// locks the waiter's keys there and asks home whether the client still
// waits (it may have timed out, disconnected or been served by another
// holder); only a granted claim pops. So every element goes to exactly one
// client, and none is popped for a client that is gone. A claim that finds
// another holder's claim in flight is refused but keeps its waiter: the
// other may not serve after all (its key had data of another reader, or
// none left by the time it locked), and then home has every holder look at
// its keys again (retry). A wait that ends at
// home (its deadline, CLIENT UNBLOCK) ends only once every holder has
// withdrawn its waiter, behind the waiter's park: a holder that served the
// client first wins (endWait). Home's decisions (grant or refuse a claim,
// retry, expire, end) are a coord.Wait's, a holder's (pass, claim, drop,
// serve a waiter; move, forget, keep or pop on home's answer) its
// waiter's coord.Waiting; coord's doc.go states the protocol and why it
// cannot deadlock. This file carries it out.

// blockState is a blocked connection's state on its home shard: its
// claims and end as coord.Wait decides them, and what home needs to carry
// them out.
type blockState struct {
	id      uint64
	w       coord.Wait
	holders []holder
	sl      *slot
	spec    *command.Spec
	args    [][]byte // the command, copied
	idx     []int    // its key positions
}

// holder is a shard that keeps a waiter for a blocked client, and the
// keys it watches.
type holder struct {
	shard int
	keys  [][]byte
}

// waiter is a blocked command as a holder shard keeps it.
type waiter struct {
	id    uint64
	home  int
	c     *conn // only for the home shard's use
	spec  *command.Spec
	fn    command.BlockFunc
	args  [][]byte
	db    int
	proto int
	keys  [][]byte // the keys this holder watches for it
	// hold is its state in the claim protocol, which decides what the
	// holder does with it (its Remote: home is another shard; ViaHome:
	// home runs the command across shards, BLMOVE to another shard's
	// list).
	hold coord.Waiting
	// self: the client is RESP3 and subscribed while notifications are
	// on: a holder that serves it at once notes its events for home in
	// notes (notifyself.go).
	self  bool
	notes selfNotes
}

// wkey is a key of one database.
type wkey struct {
	db  int
	key string
}

// block dispatches a blocking command for connection c.
func (s *Shard) block(c *conn, spec *command.Spec, fn command.BlockFunc, args [][]byte) {
	// A dry run on the empty scratch store validates the arguments and
	// tells the deadline and the keys waited on, without touching data.
	var wait command.Wait
	sc := s.scratchStore()
	var w resp.Writer
	w.Proto = c.cl.Proto
	ctx := command.Ctx{Store: sc, DB: sc.DB(c.cl.DB), DBIndex: c.cl.DB, W: &w, Now: s.now,
		Server: s.group}
	if !fn(&ctx, args, &wait) {
		s.reply(c, func(out *resp.Writer) { out.B = append(out.B, w.B...) })
		return
	}
	args = command.CopyArgs(args)
	n := len(s.group.shards)
	idx, _ := spec.Keys(args, nil)
	moves := len(idx) > len(wait.Keys) // BLMOVE: the destination is not waited on
	var hs []holder
	for _, i := range wait.Keys {
		sh := router.ShardOf(args[i], n)
		j := slices.IndexFunc(hs, func(h holder) bool { return h.shard == sh })
		if j < 0 {
			j = len(hs)
			hs = append(hs, holder{shard: sh})
		}
		hs[j].keys = append(hs[j].keys, args[i])
	}
	// A moving command (BLMOVE) whose destination is on another shard
	// than its source cannot pop on the holder: its waiter only signals,
	// and home runs the command as a txn (see moveAcross).
	viaHome := false
	for _, i := range idx {
		viaHome = viaHome || moves && router.ShardOf(args[i], n) != hs[0].shard
	}
	s.txnSeq++
	b := &blockState{id: uint64(s.id+1)<<48 | s.txnSeq, w: coord.Wait{Holders: len(hs), Deadline: wait.Deadline},
		holders: hs, spec: spec, args: args, idx: idx}
	b.sl = s.pend(c)
	c.barrier = true
	if len(hs) > 1 || viaHome {
		// Keys on several shards: the first attempt is a txn over all of
		// them, so that they are tried in order as Redis does (the first
		// key of another type answers WRONGTYPE, the first with data is
		// popped), and so that it is decided before the client waits:
		// the deadline only counts from then (a BLMOVE across shards used
		// to wait for a claim first, and could time out on a source that
		// had data or another type). Only if it would block does the
		// client wait.
		t := s.newTxn(c, spec, args, idx)
		t.sl = b.sl
		t.blockFn = fn
		t.wouldBlock = func() {
			if !c.dead {
				b.args = t.args // as the attempt left them (XREAD's "$" resolved)
				s.waitOn(c, b, fn, viaHome)
			}
		}
		s.acquire(t)
		return
	}
	s.waitOn(c, b, fn, viaHome)
}

// waitOn parks connection c's blocked command b on the shards holding the
// keys it waits on; with one holder, it first tries to serve it there.
func (s *Shard) waitOn(c *conn, b *blockState, fn command.BlockFunc, viaHome bool) {
	c.blocked = b
	s.stats.blocked++
	hs, spec, args, id := b.holders, b.spec, b.args, b.id
	home, db, proto := s.id, c.cl.DB, c.cl.Proto
	self := s.kev.flags != 0 && proto == 3 && c.subscribed()
	for _, h := range hs {
		// Each holder's own args: a BlockFunc may rewrite them (block.go
		// in command).
		wt := &waiter{id: id, home: home, c: c, spec: spec, fn: fn, args: command.CopyArgs(args), db: db, proto: proto,
			keys: h.keys, hold: coord.Waiting{Remote: h.shard != home, ViaHome: viaHome}, self: self}
		s.sendWait(h.shard, msgPark, &waitMsg{id: id, home: home, db: db, keys: h.keys, spec: spec, args: args, wt: wt,
			single: len(hs) == 1 && !viaHome})
	}
}

// tryServe runs the waiter's BlockFunc on this shard: the reply and true
// when it could answer, false when it would still block. first: the
// command's first attempt, whose lookups count as keyspace hits and
// misses as the command's would (XREAD's); a wake's count nothing, as in
// Redis.
func (s *Shard) tryServe(wt *waiter, first bool) ([]byte, bool) {
	var w resp.Writer
	w.Proto = wt.proto
	var wait command.Wait
	ctx := command.Ctx{Store: s.store, DB: s.store.DB(wt.db), DBIndex: wt.db, W: &w, Now: s.now,
		Server: s.group, Owns: s.owns, Local: s}
	s.stats.commands++
	s.stats.count(wt.spec)
	if s.snap != nil {
		s.snapBefore(wt.db, wt.spec, wt.args)
	}
	dirty := s.store.Dirty()
	if s.kev.flags != 0 {
		s.eventsBefore(wt.db, wt.spec, wt.args)
	}
	reads := wt.spec.Reads(wt.args)
	s.store.CountReads(first && (reads == command.ReadsLookups || reads == command.ReadsSilently))
	noted := s.noteWrites()
	blocks := wt.fn(&ctx, wt.args, &wait)
	if noted {
		s.notedWrites()
	}
	s.store.CountReads(false)
	if first && s.kev.flags != 0 {
		s.kev.db = wt.db
		s.keyMisses()
	}
	if blocks {
		return nil, false
	}
	// Served at once: the pushes its connection owes itself go into its
	// reply, as for a command run on its shard or hopping there
	// (notifyself.go).
	self := first && (wt.home == s.id || wt.self)
	if self {
		if wt.home == s.id {
			s.selfOn(wt.c, &w)
		} else {
			s.selfRemote(wt.c, &w, &wt.notes)
		}
		s.kev.self.on, s.kev.self.cmd = s.kev.self.c != nil, wt.spec.Name
	}
	if n := s.store.Dirty() - dirty; n != 0 {
		s.wrote(wt.db, wt.spec, wt.args, w.B, n, noted)
	}
	if self {
		if s.kev.self.on {
			s.placeSelf(&w, 0)
			s.kev.self.on = false
		}
		s.selfOff()
	}
	return w.B, true
}

// park registers a waiter on its keys of this shard, then serves it at once
// if one of them already has data (a push raced with the registration).
func (s *Shard) park(wt *waiter) {
	for _, k := range wt.keys {
		wk := wkey{wt.db, string(k)}
		s.waiters[wk] = append(s.waiters[wk], wt)
		s.markReady(wk)
	}
}

// unpark removes waiter id from this shard. The waiters left on its keys
// are looked at again: it may have stood first, refused (a claim found
// its client claimed), in front of waiters a key's data could serve.
func (s *Shard) unpark(id uint64, db int, keys [][]byte) {
	for _, k := range keys {
		wk := wkey{db, string(k)}
		q := slices.DeleteFunc(s.waiters[wk], func(w *waiter) bool { return w.id == id })
		if len(q) == 0 {
			delete(s.waiters, wk)
		} else {
			s.waiters[wk] = q
			s.markReady(wk)
		}
	}
}

// markReady queues a key whose waiters serveReady must look at.
func (s *Shard) markReady(wk wkey) {
	if n := len(s.ready); n > 0 && s.ready[n-1] == wk {
		return
	}
	s.ready = append(s.ready, wk)
}

// serveReady serves the waiters of keys that may have received data, in
// FIFO order per key, until a key would block again.
func (s *Shard) serveReady() {
	if len(s.ready) > 0 { // inlined: most commands ready no key
		s.serveKeys()
	}
}

// serveKeys is serveReady's work.
func (s *Shard) serveKeys() {
	// In the order the keys became ready, so that a run is reproducible
	// (a simulator replays it from a seed).
	for i := 0; i < len(s.ready); i++ {
		s.serveKey(s.ready[i])
	}
	clear(s.ready)
	s.ready = s.ready[:0]
}

func (s *Shard) serveKey(wk wkey) {
	for {
		q := s.waiters[wk]
		if len(q) == 0 {
			return
		}
		wt := q[0]
		look := wt.hold.Look(s.anyExists(wt) || command.ServesGone(wt.spec)) // blocking types delete emptied keys
		c := wt.c
		if look == coord.AtHome {
			b := c.blocked
			gone := c.dead || b == nil || b.id != wt.id
			look = wt.hold.AtHome(gone, !gone && b.w.Claimed())
		}
		switch look {
		case coord.Pass:
			return
		case coord.Claim:
			s.claim(wt, wk)
			return
		case coord.Drop:
			s.unpark(wt.id, wt.db, wt.keys)
			continue
		case coord.Stand:
			// Another holder serves it, or tries: look again if it
			// cannot (releaseClaim).
			c.blocked.w.Refuse()
			return
		}
		if !s.locks.Idle() {
			if keys := s.cmdKeys(wt); !s.locks.Free(keys) {
				// A txn holds one of the command's keys here (a BLMOVE's
				// destination too), or work waits on one: serving now
				// would change a key the txn has read and will write
				// back. Look again after it, in arrival order.
				s.locks.Enqueue(&coord.Item{Keys: keys, Run: func() { s.markReady(wk) }})
				return
			}
		}
		out, served := s.tryServe(wt, false)
		if !served {
			return
		}
		s.unblock(c, wt.id, out)
	}
}

// cmdKeys returns, with exclusive intent, the keys of the waiter's command that live on this
// shard: what serving it reads and writes here.
func (s *Shard) cmdKeys(wt *waiter) []coord.Key {
	idx, _ := wt.spec.Keys(wt.args, nil)
	var keys []coord.Key
	for _, i := range idx {
		if s.owns(wt.args[i]) {
			keys = append(keys, coord.Key{Name: wt.args[i], Intent: coord.Exclusive})
		}
	}
	return keys
}

// anyExists reports whether one of the waiter's keys here holds a value.
func (s *Shard) anyExists(wt *waiter) bool {
	db := s.store.DB(wt.db)
	for _, k := range wt.keys {
		if db.Exists(k, s.now) {
			return true
		}
	}
	return false
}

// claim locks the command's keys here and asks its home shard whether the
// client still waits (claimMsg); granted, it serves the client, else
// forgets it.
func (s *Shard) claim(wt *waiter, wk wkey) {
	s.txnSeq++
	cm := &claimMsg{id: wt.id, home: wt.home, holder: s.id, c: wt.c, wt: wt, db: wt.db, wk: wk,
		lockID: uint64(s.id+1)<<48 | s.txnSeq, keys: s.cmdKeys(wt)}
	s.lock(cm.lockID, cm.keys, func() { s.sendClaim(cm.home, msgClaim, cm) })
}

// answerClaim answers a holder's claim at home, as the client's
// coord.Wait decides.
func (s *Shard) answerClaim(cm *claimMsg) {
	c := cm.c
	b := c.blocked
	cm.gone = c.dead || b == nil || b.id != cm.id
	cm.ok = !cm.gone && b.w.Claim()
	s.sendClaim(cm.holder, msgClaimAnswer, cm)
}

// claimAnswered carries out home's answer to a claim on the holder.
func (s *Shard) claimAnswered(cm *claimMsg) {
	wt := cm.wt
	again := false // look at the key's next waiter
	switch wt.hold.Answered(cm.ok, cm.gone) {
	case coord.Move:
		// Home runs it; the waiter stays, busy, until home says whether
		// it was served.
		s.sendClaim(cm.home, msgMove, cm)
	case coord.Forget:
		s.unpark(cm.id, wt.db, wt.keys)
		again = true
	case coord.Keep:
		// Another holder's claim: the waiter stays first, and home has
		// it look again if that one does not serve.
	case coord.Pop:
		if out, served := s.tryServe(wt, false); served {
			s.unpark(cm.id, wt.db, wt.keys)
			cm.out = out
			s.sendClaim(cm.home, msgServed, cm)
			again = true
		} else {
			s.sendClaim(cm.home, msgUnclaim, cm)
		}
	}
	s.unlock(cm.lockID, cm.keys)
	if again {
		s.markReady(cm.wk)
	}
}

// moveAcross runs a blocked client's moving command (BLMOVE across shards)
// as a txn with its non-blocking handler, after a holder saw data. Served:
// the client gets the reply. Nothing to move (another client took it
// between the claim and the txn): the client keeps waiting.
func (s *Shard) moveAcross(c *conn, id uint64) {
	b := c.blocked
	if b == nil || b.id != id || c.dead {
		return
	}
	t := s.newTxn(c, b.spec, b.args, b.idx)
	t.done = func(out []byte) {
		if c.blocked == nil || c.blocked.id != id {
			return
		}
		if !isNull(out) {
			s.unblock(c, id, out)
			return
		}
		b.w.Refuse() // the granted holder's waiter waits for its retry
		s.releaseClaim(b, t.db)
	}
	s.acquire(t)
}

// releaseClaim ends the claim on b of a holder that could not serve it
// after all. If another holder's claim (or home's waiter) was refused
// meanwhile, every holder looks at b's keys again: a key may have had data
// for it while the claim was in flight (msgRetry; the waiter that moved
// for it is free again).
func (s *Shard) releaseClaim(b *blockState, db int) {
	if !b.w.Release() {
		return
	}
	for _, h := range b.holders {
		s.sendWait(h.shard, msgRetry, &waitMsg{id: b.id, home: s.id, db: db, keys: h.keys})
	}
}

// isNull reports whether a reply is a RESP2 or RESP3 null.
func isNull(b []byte) bool {
	return string(b) == "$-1\r\n" || string(b) == "*-1\r\n" || string(b) == "_\r\n"
}

// unblock answers a blocked client on its home shard and withdraws its
// waiters everywhere else.
func (s *Shard) unblock(c *conn, id uint64, out []byte) {
	b := c.blocked
	if b == nil || b.id != id {
		return
	}
	s.withdraw(c, b)
	s.answer(c, b, out)
}

// answer writes a blocked command's reply and lets the connection read on.
func (s *Shard) answer(c *conn, b *blockState, out []byte) {
	c.barrier = false
	s.fill(c, b.sl, out)
	if !c.dead && !c.closing {
		s.serve(c)
	}
}

// withdraw forgets c's blocked command here and on every holder shard. A
// claim still in flight for it is then denied by home (c no longer waits),
// and the holder's answer handling finds the waiter already gone.
func (s *Shard) withdraw(c *conn, b *blockState) {
	c.blocked = nil
	c.cl.LastMs = s.now // its answer is an interaction (timeout), as Redis's reply write is
	s.stats.blocked--
	for _, h := range b.holders {
		s.sendWait(h.shard, msgUnpark, &waitMsg{id: b.id, home: s.id, db: c.cl.DB, keys: h.keys, spec: b.spec, args: b.args})
	}
}

// endWait ends c's wait with out (the timeout reply, CLIENT UNBLOCK's)
// once every holder has withdrawn its waiter. A holder may serve the
// client on its own (the first try of a waiter with one holder pops at
// once) while the deadline passes at home; its answer reaches home before
// its withdrawal's, and then the client gets that answer, not out: an
// element popped is never lost to a timeout. Meanwhile b counts as claimed:
// no other holder's claim is granted.
func (s *Shard) endWait(c *conn, b *blockState, out []byte) {
	b.w.End()
	for _, h := range b.holders {
		s.sendWait(h.shard, msgUnpark, &waitMsg{id: b.id, home: s.id, db: c.cl.DB, keys: h.keys, spec: b.spec, args: b.args,
			answer: true, c: c, b: b, out: out})
	}
}

// withdrawn takes, at home, a holder's word that it withdrew its waiter
// for b's end: after the last, the client gets out, unless a holder
// served it first.
func (s *Shard) withdrawn(c *conn, b *blockState, out []byte) {
	if !b.w.Withdrawn() || c.blocked != b {
		return
	}
	c.blocked = nil
	s.stats.blocked--
	s.answer(c, b, out)
}

// expireBlocked answers blocked clients whose deadline passed.
func (s *Shard) expireBlocked() {
	if s.stats.blocked == 0 {
		return
	}
	for _, c := range s.conns {
		b := c.blocked
		if b == nil || !b.w.Expired(s.now) {
			continue
		}
		var w resp.Writer
		w.Proto = c.cl.Proto
		command.WriteTimeout(&command.Ctx{W: &w}, b.spec)
		s.endWait(c, b, w.B)
	}
}

// nextDeadline is the earliest deadline of a blocked client, or 0.
func (s *Shard) nextDeadline() int64 {
	s.stats.timeouts = 0
	if s.stats.blocked == 0 {
		return 0
	}
	var d int64
	for _, c := range s.conns {
		if b := c.blocked; b != nil && b.w.Deadline > 0 {
			s.stats.timeouts++
			if d == 0 || b.w.Deadline < d {
				d = b.w.Deadline
			}
		}
	}
	return d
}

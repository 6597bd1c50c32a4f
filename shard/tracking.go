package shard

import (
	"slices"
	"strings"

	"github.com/radish-kv/radish/acl"
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/track"
)

// Client-side caching (CLIENT TRACKING) across shards.
//
// Default mode: a key is remembered by the shard that owns it, in its
// track.Table, with the readers (client ID and home shard) of every
// tracking client whose read-only command read it there, whichever shard
// the client's connection lives on: a hop, a txn's part or an EXEC's
// commands carry who they run for (reader), and run1 remembers the keys of
// a read-only command when that reader tracks. Every change to a key on
// the mutation path (Touch: a command, an expiry, an eviction, a
// write-back) takes the key's readers out of the table and queues one
// invalidation per reader in the invBatch for the reader's home shard: one
// batch per destination per loop turn, as Pub/Sub's publishes travel
// (never one message per client), and one for the shard's own clients,
// delivered at the end of the turn, after the reply of the command that
// wrote (a push never lands inside a reply being written). A FLUSHDB or
// FLUSHALL runs on every shard: each forgets its table and sends a null
// invalidation to its own tracking clients, so each gets exactly one.
//
// The home shard decides what an invalidation becomes (deliverInv): none
// when the client left, stopped tracking, switched to BCAST, or wrote the
// key itself under NOLOOP; else a RESP3 push to it, or, with REDIRECT, a
// message to the redirect client (on its own shard, forwarded in that
// shard's batch), a RESP3 push or, when it is RESP2 and subscribed, a
// message on __redis__:invalidate, as Redis sends them.
//
// BCAST: every shard keeps every BCAST client's prefixes (a CLIENT
// TRACKING that changes them sends the client's registration to every
// shard); a change to a key under a prefix queues the key on that prefix,
// and at the end of the turn each prefix's keys (sorted, once each) go to
// each of its clients in one invalidation, less, under NOLOOP, the keys
// only that client changed.
//
// The read path's cost without tracking is one predictable branch in
// run1 (the reader's track flag); with tracking, a read of a key the
// table holds for that reader allocates nothing.

// reader is the client a command runs for: its ID, home shard, and whether
// its reads are remembered (command.Tracking.Reads, when it was placed).
type reader struct {
	id    int64
	home  int32
	track bool
	// self, when set, has the invalidations the command's own writes
	// cause written right after its reply (writeSelf), as Redis does,
	// rather than later in a batch; quiet: none (NOLOOP); proto: the
	// client's. A txn's commands leave self unset: their replies are
	// parts of one.
	self, quiet bool
	proto       int8
	// user is the connection's ACL user: a script the command runs checks
	// its calls with it.
	user *acl.User
	addr string // the client's address, for MONITOR
}

// reader returns who c's command runs for, placed on shard home; self
// says whether it may write its own invalidations after its reply.
func (c *conn) reader(home int, self bool) reader {
	t := &c.cl.Track
	return reader{id: c.cl.ID, home: int32(home), track: t.Reads, self: self && t.Self, quiet: t.NoLoop,
		proto: int8(c.cl.Proto), addr: c.cl.Addr, user: c.checked()}
}

// trackState is a shard's client tracking state.
type trackState struct {
	table track.Table
	// ids are this shard's connections by client ID; tracking those that
	// track.
	ids      map[int64]*conn
	tracking map[int64]*conn
	prefixes []*bcastPrefix // sorted by prefix
	changed  []*bcastPrefix // prefixes with keys this turn
	open     []*invBatch    // per destination: the batch this turn's invalidations join
	opened   bool           // open holds a batch
	openAt   []int          // where open[dst] lies in the outbox
	own      *invBatch      // this shard's own clients', delivered at the end of the turn
	free     []*invBatch
	keyIdx   []int
	frame    []byte
	keys     [][]byte // scratch: an entry's keys
	// self holds the keys the running command's own writes invalidated
	// for its client (reader.self), back to back, until writeSelf.
	self     []byte
	selfEnds []int
	// early holds, per client on its way here (migrate.go), the
	// redirected invalidations that reached this shard before it did.
	early map[int64]*invBatch
}

// bcastPrefix is one BCAST prefix: its clients and the keys changed under
// it this turn, each with who changed it (0 when several did, or none).
type bcastPrefix struct {
	prefix  string
	readers []bcastReader
	keys    []string
	by      []int64
}

type bcastReader struct {
	track.Reader
	noloop bool
}

// invBatch is one turn's invalidations from one shard to another (or to
// itself), in order; keys lie back to back in buf. Owned by the sender but
// while the destination runs it.
type invBatch struct {
	from int
	buf  []byte
	ends []int32 // key i is buf[ends[i-1]:ends[i]]
	ents []invEnt
}

// handle delivers the batch on its destination (msgInvalidate) or takes
// it back on its sender's free list (msgInvalidated).
func (b *invBatch) handle(s *Shard, k msgKind) {
	if k == msgInvalidate {
		s.deliverInv(b)
		return
	}
	s.recycleInv(b)
}

// invEnt is one invalidation: for client to, keys ends[keys:keys+n], or a
// null (a flush).
type invEnt struct {
	to      int64
	keys, n int32
	null    bool
	self    bool // the client's own command changed the key (NOLOOP)
	bcast   bool // a BCAST prefix's keys
	redir   bool // to is a redirect client, receiving for another
}

func (ts *trackState) init(shards int) {
	ts.ids = make(map[int64]*conn)
	ts.early = make(map[int64]*invBatch)
	ts.tracking = make(map[int64]*conn)
	ts.open = make([]*invBatch, shards)
	ts.openAt = make([]int, shards)
}

// active reports whether a change to a key may invalidate anything here.
func (ts *trackState) active() bool { return ts.table.Len() > 0 || len(ts.prefixes) > 0 }

// opened registers a new connection's client ID, here and in the group's
// directory (CLIENT TRACKING REDIRECT looks clients up there).
func (s *Shard) opened(c *conn) {
	s.trk.ids[c.cl.ID] = c
	s.group.clientShard.Store(c.cl.ID, s.id)
}

// closed forgets a closed connection's client.
func (s *Shard) closed(c *conn) {
	if c.cl.Track.On {
		old := slices.Clone(c.cl.Track.Prefixes)
		c.cl.Track.Off()
		s.Tracked(&c.cl, old)
	}
	delete(s.trk.ids, c.cl.ID)
	s.group.clientShard.Delete(c.cl.ID)
}

// ClientExists implements command.Local.
func (s *Shard) ClientExists(id int64) bool {
	_, ok := s.group.clientShard.Load(id)
	return ok
}

// Tracked implements command.Local: cl's tracking changed. Its BCAST
// registration (its prefixes, or none) goes to every shard, this one at
// once.
func (s *Shard) Tracked(cl *command.Client, old []string) {
	c := s.trk.ids[cl.ID]
	if c == nil {
		return
	}
	t := &cl.Track
	if t.On {
		s.trk.tracking[cl.ID] = c
	} else {
		delete(s.trk.tracking, cl.ID)
	}
	if len(old) == 0 && !t.BCast {
		return
	}
	var prefixes []string
	if t.On && t.BCast {
		prefixes = slices.Clone(t.Prefixes)
	}
	b := &bcastMsg{bcastReader{track.Reader{ID: cl.ID, Home: int32(s.id)}, t.NoLoop}, prefixes}
	for q := range s.group.shards {
		if q == s.id {
			s.register(b.r, b.prefixes)
			continue
		}
		s.post(q, msgTrackPrefixes, b)
	}
}

// bcastMsg is a BCAST client's prefixes (none: it stopped tracking) as
// the contents of the message to every other shard (msgTrackPrefixes);
// one value for them all, which none writes.
type bcastMsg struct {
	r        bcastReader
	prefixes []string
}

func (b *bcastMsg) handle(s *Shard, _ msgKind) { s.register(b.r, b.prefixes) }

// register replaces r's BCAST prefixes with prefixes (none: r is gone).
func (s *Shard) register(r bcastReader, prefixes []string) {
	ts := &s.trk
	kept := ts.prefixes[:0]
	for _, p := range ts.prefixes {
		p.readers = slices.DeleteFunc(p.readers, func(o bcastReader) bool { return o.ID == r.ID })
		if len(p.readers) > 0 || len(p.keys) > 0 {
			kept = append(kept, p)
		}
	}
	clear(ts.prefixes[len(kept):])
	ts.prefixes = kept
	for _, name := range prefixes {
		i, found := slices.BinarySearchFunc(ts.prefixes, name, func(p *bcastPrefix, n string) int { return strings.Compare(p.prefix, n) })
		if !found {
			ts.prefixes = slices.Insert(ts.prefixes, i, &bcastPrefix{prefix: name})
		}
		ts.prefixes[i].readers = append(ts.prefixes[i].readers, r)
	}
}

// remember records that s.who read the keys of a read-only command here.
func (s *Shard) remember(spec *command.Spec, args [][]byte) {
	if spec.Flags&command.PubSub != 0 {
		return
	}
	idx, _ := spec.Keys(args, s.trk.keyIdx[:0])
	s.trk.keyIdx = idx
	r := track.Reader{ID: s.who.id, Home: s.who.home}
	for _, i := range idx {
		s.trk.table.Remember(args[i], r)
	}
	if max := s.conf.TrackingTableMaxKeys; max > 0 {
		s.limitTable((max-1)/len(s.group.shards) + 1) // its share, rounded up, with no overflow
	}
}

// limitTable forgets keys while the table holds more than its share of
// tracking-table-max-keys, invalidating each for its readers, as Redis
// does past the limit.
func (s *Shard) limitTable(limit int) {
	ts := &s.trk
	for ts.table.Len() > limit {
		key, readers, _ := ts.table.Evict()
		for _, r := range readers {
			s.invBatchFor(int(r.Home)).add(invEnt{to: r.ID}, []byte(key))
		}
	}
}

// invalidate sends the invalidations a change to key owes: one to each of
// its readers, which the table forgets, and the key to each BCAST prefix
// it falls under. own: the running command wrote key (writeSelf then
// writes its client's own invalidation after its reply).
func (s *Shard) invalidate(key []byte, own bool) {
	ts := &s.trk
	for _, r := range ts.table.Take(key) {
		if own && r.ID == s.who.id && s.who.self {
			ts.self = append(ts.self, key...)
			ts.selfEnds = append(ts.selfEnds, len(ts.self))
			continue
		}
		b := s.invBatchFor(int(r.Home))
		b.add(invEnt{to: r.ID, self: r.ID == s.who.id}, key)
	}
	for _, p := range ts.prefixes {
		if len(key) < len(p.prefix) || string(key[:len(p.prefix)]) != p.prefix || len(p.readers) == 0 {
			continue
		}
		if len(p.keys) == 0 {
			ts.changed = append(ts.changed, p)
		}
		p.keys = append(p.keys, string(key))
		p.by = append(p.by, s.who.id)
	}
}

// writeSelf writes, after a command's reply in w, the invalidations its
// own writes caused for its client: one RESP3 push per key, none under
// NOLOOP or to a RESP2 client, as Redis.
func (s *Shard) writeSelf(w *resp.Writer) {
	ts := &s.trk
	if !s.who.quiet && s.who.proto == 3 {
		start := 0
		for _, end := range ts.selfEnds {
			w.Push(2)
			w.BulkString("invalidate")
			w.Array(1)
			w.Bulk(ts.self[start:end])
			start = end
		}
	}
	ts.self, ts.selfEnds = ts.self[:0], ts.selfEnds[:0]
}

// Flushed implements command.Toucher: a FLUSHDB or FLUSHALL ran here. The
// table is forgotten, and every tracking client of this shard gets a null
// invalidation (the other shards run the flush too, for theirs).
func (s *Shard) Flushed() {
	ts := &s.trk
	ts.table.Clear()
	if len(ts.tracking) == 0 {
		return
	}
	ids := make([]int64, 0, len(ts.tracking))
	for id := range ts.tracking {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the order a seeded simulation replays
	b := s.invBatchFor(s.id)
	for _, id := range ids {
		b.add(invEnt{to: id, null: true})
	}
}

// invBatchFor is this turn's batch for shard dst. A batch to another
// shard is queued in its outbox when made; a new one starts when another
// message was queued behind it, so a batch never overtakes what was sent
// before it.
func (s *Shard) invBatchFor(dst int) *invBatch {
	ts := &s.trk
	if dst == s.id {
		if ts.own == nil {
			ts.own = s.newInvBatch()
		}
		return ts.own
	}
	b := ts.open[dst]
	if b == nil || ts.openAt[dst] != len(s.outbox[dst])-1 {
		b = s.newInvBatch()
		ts.open[dst], ts.opened = b, true
		s.outbox[dst] = append(s.outbox[dst], message{kind: msgInvalidate, data: b})
		ts.openAt[dst] = len(s.outbox[dst]) - 1
	}
	return b
}

func (s *Shard) newInvBatch() *invBatch {
	ts := &s.trk
	if n := len(ts.free); n > 0 {
		b := ts.free[n-1]
		ts.free = ts.free[:n-1]
		return b
	}
	return &invBatch{from: s.id}
}

// add appends an invalidation of keys (none for a null) to b.
func (b *invBatch) add(e invEnt, keys ...[]byte) {
	e.keys, e.n = int32(len(b.ends)), int32(len(keys))
	for _, k := range keys {
		b.buf = append(b.buf, k...)
		b.ends = append(b.ends, int32(len(b.buf)))
	}
	b.ents = append(b.ents, e)
}

// key returns key i of b.
func (b *invBatch) key(i int32) []byte {
	start := int32(0)
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.buf[start:b.ends[i]]
}

// recycleInv takes back a delivered batch.
func (s *Shard) recycleInv(b *invBatch) {
	clear(b.ents)
	b.ents, b.ends, b.buf = b.ents[:0], b.ends[:0], b.buf[:0]
	if cap(b.buf) > maxHopBuf {
		b.buf = nil
	}
	if len(s.trk.free) < maxFreeHops {
		s.trk.free = append(s.trk.free, b)
	}
}

// flushTracking ends the turn's tracking work: each BCAST prefix's keys go
// to its clients, then this shard's own invalidations are delivered.
func (s *Shard) flushTracking() {
	ts := &s.trk
	for _, p := range ts.changed {
		s.broadcast(p)
	}
	clear(ts.changed)
	ts.changed = ts.changed[:0]
	if b := ts.own; b != nil && len(b.ents) > 0 {
		ts.own = nil
		s.deliverInv(b)
	}
	// The batches leave with the outbox after this turn: the next turn's
	// invalidations start new ones.
	if ts.opened {
		clear(ts.open)
		ts.opened = false
	}
}

// broadcast sends the keys changed under p this turn to its clients,
// sorted and once each, less for a NOLOOP client the keys only it changed.
func (s *Shard) broadcast(p *bcastPrefix) {
	idx := make([]int, len(p.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(p.keys[a], p.keys[b]) })
	// One entry per distinct key, with its writer (0 when several).
	keys, by := make([]string, 0, len(idx)), make([]int64, 0, len(idx))
	for _, i := range idx {
		if n := len(keys); n > 0 && keys[n-1] == p.keys[i] {
			if by[n-1] != p.by[i] {
				by[n-1] = 0
			}
			continue
		}
		keys, by = append(keys, p.keys[i]), append(by, p.by[i])
	}
	for _, r := range p.readers {
		send := s.trk.keys[:0]
		for i, k := range keys {
			if !r.noloop || by[i] != r.ID {
				send = append(send, []byte(k))
			}
		}
		if len(send) > 0 {
			s.invBatchFor(int(r.Home)).add(invEnt{to: r.ID, bcast: true}, send...)
		}
		clear(send)
		s.trk.keys = send[:0]
	}
	clear(p.keys)
	p.keys, p.by = p.keys[:0], p.by[:0]
}

// deliverInv delivers a batch of invalidations to this shard's clients,
// then hands it back to its sender.
func (s *Shard) deliverInv(b *invBatch) {
	for i := range b.ents {
		s.deliverOne(b, &b.ents[i])
	}
	if b.from == s.id {
		s.recycleInv(b)
		return
	}
	s.outbox[b.from] = append(s.outbox[b.from], message{kind: msgInvalidated, data: b})
}

// deliverOne turns one invalidation into what its client receives.
func (s *Shard) deliverOne(b *invBatch, e *invEnt) {
	c := s.trk.ids[e.to]
	if c == nil && e.redir {
		s.redirMoved(b, e)
		return
	}
	if c == nil || c.closing || c.dead {
		return
	}
	if e.redir {
		s.pushInv(c, b, e, true)
		return
	}
	t := &c.cl.Track
	if !t.On || !e.null && t.BCast != e.bcast || e.self && t.NoLoop {
		return
	}
	if t.Redirect == 0 {
		s.pushInv(c, b, e, false)
		return
	}
	if r := s.trk.ids[t.Redirect]; r != nil {
		s.pushInv(r, b, e, true)
		return
	}
	if v, ok := s.group.clientShard.Load(t.Redirect); ok {
		f := *e
		f.to, f.redir = t.Redirect, true
		keys := s.trk.keys[:0]
		for i := e.keys; i < e.keys+e.n; i++ {
			keys = append(keys, b.key(i))
		}
		s.invBatchFor(v.(int)).add(f, keys...)
		clear(keys)
		s.trk.keys = keys[:0]
		return
	}
	// The redirect client is gone: Redis flags it, and tells a RESP3
	// client each time.
	t.BrokenRedir = true
	if c.cl.Proto == 3 {
		w := resp.Writer{B: s.trk.frame[:0], Proto: 3}
		w.Push(2)
		w.BulkString("tracking-redir-broken")
		w.Int(t.Redirect)
		s.trk.frame = w.B
		s.push(c, w.B)
	}
}

// redirMoved passes on an invalidation for a redirect client that is not
// here: it moved away (migrate.go) after the sender looked it up, and the
// shard it moves to gets it, behind the connection's msgMigrate; or it is
// on its way here, and early holds it until it arrives (arrive). A client
// that closed gets none.
func (s *Shard) redirMoved(b *invBatch, e *invEnt) {
	v, ok := s.group.clientShard.Load(e.to)
	if !ok {
		return
	}
	into := s.trk.early[e.to]
	switch dst := v.(int); {
	case dst != s.id:
		into = s.invBatchFor(dst)
	case into == nil:
		into = s.newInvBatch()
		s.trk.early[e.to] = into
	}
	keys := s.trk.keys[:0]
	for i := e.keys; i < e.keys+e.n; i++ {
		keys = append(keys, b.key(i))
	}
	into.add(*e, keys...)
	clear(keys)
	s.trk.keys = keys[:0]
}

// arrived delivers what early holds for c, which just arrived here, and
// forgets it (gone: c did not arrive after all).
func (s *Shard) arrived(c *conn, gone bool) {
	b := s.trk.early[c.cl.ID]
	if b == nil {
		return
	}
	delete(s.trk.early, c.cl.ID)
	if gone {
		s.recycleInv(b)
		return
	}
	s.deliverInv(b)
}

// pushInv writes an invalidation to c: a RESP3 push, or, for a RESP2
// redirect client in subscribed mode, a message on __redis__:invalidate;
// nothing to any other RESP2 client.
func (s *Shard) pushInv(c *conn, b *invBatch, e *invEnt, redirected bool) {
	w := resp.Writer{B: s.trk.frame[:0], Proto: c.cl.Proto}
	switch {
	case c.cl.Proto == 3:
		w.Push(2)
		w.BulkString("invalidate")
	case redirected && c.subscribed():
		w.Array(3)
		w.BulkString("message")
		w.BulkString("__redis__:invalidate")
	default:
		return
	}
	if e.null {
		w.Null()
	} else {
		w.Array(int(e.n))
		for i := e.keys; i < e.keys+e.n; i++ {
			w.Bulk(b.key(i))
		}
	}
	s.trk.frame = w.B
	s.push(c, w.B)
}

// cachingUsed clears CLIENT CACHING's flag once the command it applied to
// ran: at the start of the next, as Redis clears it after the command but
// for a CLIENT command or one that leaves the client inside MULTI.
func (s *Shard) cachingUsed(c *conn, spec *command.Spec) {
	if c.cachingSpent {
		c.cachingSpent = false
		c.cl.Track.Caching = false
		c.cl.Track.Set()
		return
	}
	inMulti := c.inMulti() && spec.Tx != command.TxExec && spec.Tx != command.TxDiscard
	if !strings.HasPrefix(spec.Name, "client|") && spec.Tx != command.TxMulti && !inMulti {
		c.cachingSpent = true
	}
}

package shard

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
	"github.com/radish-kv/radish/persistence/repl"
	"github.com/radish-kv/radish/persistence/snapshot"
	"github.com/radish-kv/radish/router"
)

// The group as a primary: it serves PSYNC to redis-server replicas,
// redis-cli --rdb and --replica, and radish replicas, with one RDB
// stream and then one command stream (persistence/repl.Merger).
//
// Until the first replica asks, nothing of this runs: no shard hands its
// effects over. The first full sync turns every shard's feed on: from
// then on each shard, at the end of a loop turn that wrote, copies the
// turn's effects into one repl.Chunk and merges it into the stream
// itself, under the merger's lock (feedChunk: no goroutine to wake, the
// chunk reused), with the markers the merger needs: a full sync's cut, and on a cross-shard
// transaction's home shard that every part of it was handed over
// (feedDone). A full sync is a transaction over every shard holding each
// whole (coord's LockAll), so that no transaction is half on either side
// of it; holding it, each shard marks the cut in its feed and writes its
// keys as one part of the RDB payload, which the group frames (one
// header, every shard's databases, the EOF and checksum) and sends with
// the stream from the cut's offset on. The stream's bytes reach a
// replica's shard as one message for whatever was sent since its last
// one took them (sendTo), copied into one buffer that is reused.

// feedState is a shard's hand-over of its effects to the merger.
type feedState struct {
	on    bool
	marks []feedMark // this turn's markers, each before effect at
	spare []*repl.Chunk
}

type feedMark struct {
	at   int
	kind uint8
	id   uint64
}

// primState is the group's state as a primary. mg.mu guards the
// merger's state; mu guards the rest.
type primState struct {
	on     atomic.Bool   // the shards feed their effects
	seq    atomic.Uint64 // cross-shard transactions' lock order
	mg     mergeState
	free   []chan *repl.Chunk // per shard: chunks the merger is done with
	cutSeq atomic.Uint64
	// quiet: a FAILOVER holds the stream still (no PING; failover.go).
	quiet atomic.Bool

	mu      sync.Mutex
	started bool
	offset  int64  // the stream's offset (master_repl_offset)
	backlog []byte // the stream's last bytes, at most repl-backlog-size
	// freed: repl-backlog-ttl freed the backlog (backlogttl.go); lonely:
	// since when the primary has had no replica.
	freed    bool
	lonely   time.Time
	replicas []*replica
	syncs    map[uint64]*fullSync
	flowSets map[string]*flowSet // by token (flows.go)
	spans    []repl.Span         // whose the backlog's bytes are (flowstream.go)

	full, partialOK, partialErr atomic.Int64
	// good counts the replicas online whose last ACK is at most
	// min-replicas-max-lag seconds old, once a second.
	good atomic.Int64
}

// replica is one replica connection: its conn belongs to shard, whose
// loop writes what the stream sends it.
type replica struct {
	shard int
	c     *conn
	ip    string
	port  int
	state string // "wait_bgsave", "online"
	ack   atomic.Int64
	ackAt atomic.Int64 // unix ms of its last ACK
	fack  atomic.Int64 // the offset its AOF fsynced (ACK's FACK; waitaof.go)
	rdb   bool         // redis-cli --rdb: the payload only
	gone  bool
	// from is the stream offset after which it needs the bytes (its full
	// sync's cut, or where its partial resync's backlog ended); -1 until
	// the merger passed its cut.
	from   int64
	buffer []byte   // the stream since its full sync's cut, until the payload is sent
	flows  *flowSet // its full sync's flows, when it asked for them (flows.go)
	split  bool     // its stream goes on its flows (flowstream.go)
	// out is what its shard is to write next (sendTo), posted whether a
	// message to take it (the replica itself, handle) is on its way there.
	outMu  sync.Mutex
	out    []byte
	posted bool
}

// fullSync is a full sync in progress: its cut's offset once the
// merger passed it, and every shard's part of the payload.
type fullSync struct {
	r      *replica
	offset int64
	cut    bool
	sync   bool   // SYNC: no +FULLRESYNC line
	replid string // the replication ID it is of
	parts  [][]byte
	left   int
	flows  *flowSet // the parts go on the replica's flows
}

// waiter2 is a WAIT: done once the stream's offset for it is known
// (target) and enough replicas acknowledged it.
type waiter2 struct {
	need     int
	deadline time.Time
	reply    func(n int)
	chunks   int64        // the merger's: chunks received before it
	target   atomic.Int64 // -1 until the merger emitted what came before it
	// after: the target is past the GETACK sent for it, so a replica
	// that acknowledged it has read the whole stream (failover.go).
	after bool
}

func (w *waiter2) settle(off int64) { w.target.Store(off) }

// feedTurn hands this turn's effects and markers to the merger.
func (s *Shard) feedTurn() {
	fx := &s.mut.fx
	f := &s.feed
	if fx.Len() == 0 && len(f.marks) == 0 {
		return
	}
	var c *repl.Chunk
	select {
	case c = <-s.group.prim.free[s.id]:
	default:
		c = &repl.Chunk{Shard: s.id}
	}
	c.Buf, c.Items = c.Buf[:0], c.Items[:0]
	m := 0
	for i := 0; i < fx.Len(); i++ {
		for ; m < len(f.marks) && f.marks[m].at <= i; m++ {
			c.Items = append(c.Items, markItem(f.marks[m]))
		}
		e, cmd := fx.At(i)
		off := len(c.Buf)
		c.Buf = append(c.Buf, cmd...)
		c.Items = append(c.Items, repl.Item{Kind: repl.ItemCmd, DB: e.DB, Txn: e.Tag.Txn, Seq: e.Tag.Seq, Cmd: e.Tag.Cmd, All: e.Tag.All,
			Off: off, End: len(c.Buf)})
	}
	for ; m < len(f.marks); m++ {
		c.Items = append(c.Items, markItem(f.marks[m]))
	}
	f.marks = f.marks[:0]
	s.group.feedChunk(s, c)
}

func markItem(m feedMark) repl.Item {
	if m.kind == repl.ItemCut {
		return repl.Item{Kind: repl.ItemCut, Cut: m.id}
	}
	return repl.Item{Kind: repl.ItemDone, Txn: m.id}
}

// feedDone marks, on t's home shard, that every part of t was handed
// over (their shards send their turns' effects before they answer).
func (s *Shard) feedDone(t *txn) {
	if s.feed.on && t.in == nil && t.seq != 0 {
		s.feed.marks = append(s.feed.marks, feedMark{at: s.mut.fx.Len(), kind: repl.ItemDone, id: t.id})
	}
}

// lockOrder gives t its place in the cross-shard transactions' lock
// order, once every lock is held, while the shards feed a stream.
func (s *Shard) lockOrder(t *txn) {
	if s.group.prim.on.Load() {
		t.seq = s.group.prim.seq.Add(1)
	}
}

// startPrimary starts the stream (once): the merger, and the goroutine
// that pings the replicas.
func (g *Group) startPrimary() {
	p := &g.prim
	if p.started {
		return
	}
	p.started = true
	p.free = make([]chan *repl.Chunk, len(g.shards))
	for i := range p.free {
		p.free[i] = make(chan *repl.Chunk, 64)
	}
	p.syncs = map[uint64]*fullSync{}
	g.repl.mu.Lock()
	p.offset, p.backlog = g.repl.offset, g.repl.hist
	p.spans = []repl.Span{{Shard: -1, End: p.offset}}
	g.repl.hist = nil
	g.repl.mu.Unlock()
	g.newMerger(p.offset)
	p.lonely = time.Now()
	p.on.Store(true)
	go g.pingReplicas()
}

// mergeState is the merger and what goes with it. Whoever holds mu runs
// it: a shard at the end of a loop turn that wrote (feedChunk), a WAIT,
// the pinging goroutine. Taken before p.mu when both are.
type mergeState struct {
	mu                 sync.Mutex
	m                  *repl.Merger
	received, finished int64          // chunks added, and handed back in order
	completed          map[int64]bool // chunks handed back past finished
	waits              []*waiter2
	lastPing           time.Time
}

// newMerger starts the stream's merge at offset off. mg.mu held, or no
// shard feeding yet.
func (g *Group) newMerger(off int64) {
	p := &g.prim
	mg := &p.mg
	m := repl.NewMerger(len(g.shards), off)
	mg.m, mg.received, mg.finished, mg.completed = m, 0, 0, map[int64]bool{}
	m.Free = func(c *repl.Chunk) {
		mg.completed[c.N] = true
		for mg.completed[mg.finished] {
			delete(mg.completed, mg.finished)
			mg.finished++
		}
		select {
		case p.free[c.Shard] <- c:
		default:
		}
	}
	m.OnCut = func(id uint64, off int64) {
		p.mu.Lock()
		if fs := p.syncs[id]; fs != nil {
			fs.offset, fs.cut = off, true
			fs.r.from = off
			g.trySend(id, fs)
		}
		p.mu.Unlock()
	}
}

// feedChunk merges shard src's chunk c into the stream, at the end of
// src's loop turn, and sends what may go out to the replicas.
func (g *Group) feedChunk(src *Shard, c *repl.Chunk) {
	mg := &g.prim.mg
	mg.mu.Lock()
	c.N = mg.received
	mg.received++
	mg.m.Add(c)
	g.settleWaits()
	g.flushStream(src)
	mg.mu.Unlock()
}

// mergeWait has the merger settle w's target: the offset once every chunk
// added before it is out.
func (g *Group) mergeWait(w *waiter2) {
	mg := &g.prim.mg
	mg.mu.Lock()
	w.chunks = mg.received
	mg.waits = append(mg.waits, w)
	g.settleWaits()
	g.flushStream(nil)
	mg.mu.Unlock()
}

// mergeReset restarts the stream at offset off with backlog hist: a
// group promoted again (its shards fed nothing while a replica).
func (g *Group) mergeReset(off int64, hist []byte) {
	p := &g.prim
	mg := &p.mg
	mg.mu.Lock()
	defer mg.mu.Unlock()
	g.newMerger(off)
	for _, w := range mg.waits {
		w.settle(off)
	}
	mg.waits = mg.waits[:0]
	p.mu.Lock()
	p.offset, p.backlog, p.freed, p.lonely = off, hist, false, time.Now()
	p.spans = []repl.Span{{Shard: -1, End: off}}
	p.mu.Unlock()
}

// pingReplicas is the stream's goroutine: once a second it sends a
// newline to the replicas waiting for their payload, counts those in
// time for min-replicas-to-write and, every repl-ping-replica-period,
// writes a PING to the stream.
func (g *Group) pingReplicas() {
	p := &g.prim
	mg := &p.mg
	ping := time.NewTicker(time.Second)
	defer ping.Stop()
	for now := range ping.C {
		conf := g.conf.Snapshot()
		period := time.Duration(conf.ReplPingReplicaPeriod) * time.Second
		mg.mu.Lock()
		p.mu.Lock()
		n, good := len(p.replicas), int64(0)
		for _, r := range p.replicas {
			if r.state == "online" && !r.rdb && now.UnixMilli()-r.ackAt.Load() <= int64(conf.MinReplicasMaxLag)*1000 {
				good++
			}
			if r.state == "wait_bgsave" && !r.gone {
				// As Redis: a newline a second keeps the link of a
				// replica waiting for its payload alive (on flows it
				// comes after every shard wrote its part).
				g.sendTo(nil, r, newline)
			}
		}
		g.freeBacklog(conf, now)
		p.mu.Unlock()
		p.good.Store(good)
		if n > 0 && now.Sub(mg.lastPing) >= period && !p.quiet.Load() {
			mg.lastPing = now
			mg.m.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		}
		g.settleWaits()
		g.flushStream(nil)
		mg.mu.Unlock()
	}
}

var cmdGetAck = []byte("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n")

// settleWaits gives each WAIT whose chunks are all out its target, the
// stream's offset then, and asks the replicas for their offsets. mg.mu
// held.
func (g *Group) settleWaits() {
	mg := &g.prim.mg
	if len(mg.waits) == 0 {
		return
	}
	m := mg.m
	keep, ask := mg.waits[:0], false
	var late []*waiter2
	for _, w := range mg.waits {
		switch {
		case mg.finished < w.chunks:
			keep = append(keep, w)
		case w.after:
			late = append(late, w)
			ask = true
		default:
			w.settle(m.Offset)
			ask = true
		}
	}
	clear(mg.waits[len(keep):])
	mg.waits = keep
	if ask {
		m.Write(cmdGetAck)
	}
	for _, w := range late {
		w.settle(m.Offset)
	}
}

var newline = []byte("\n")

// flushStream appends what the merger wrote to the backlog and to every
// replica; src is the shard calling, nil off the shards. mg.mu held.
func (g *Group) flushStream(src *Shard) {
	p := &g.prim
	m := p.mg.m
	out, spans := m.Out, m.Spans
	m.Out, m.Spans = out[:0], spans[:0] // sendTo and sendSplit copy them
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.freed { // as Redis: without a backlog the offset stays
		m.Offset = p.offset
		return
	}
	p.offset = m.Offset
	if len(out) == 0 {
		return
	}
	size := int(g.conf.Snapshot().ReplBacklogSize)
	p.backlog = append(p.backlog, out...)
	for _, sp := range spans {
		p.spans = repl.AppendSpan(p.spans, sp)
	}
	if len(p.backlog) > 2*size {
		p.backlog = append(p.backlog[:0], p.backlog[len(p.backlog)-size:]...)
		p.spans = repl.TrimSpans(p.spans, p.offset-int64(size))
	}
	start := m.Offset - int64(len(out)) // out's first byte is start+1
	for _, r := range p.replicas {
		if r.gone || r.rdb || r.from < 0 || r.from-start >= int64(len(out)) {
			continue
		}
		b := out[max(r.from-start, 0):] // what its payload or backlog did not hold
		if r.split {
			g.sendSplit(src, r, b, m.Offset, spans)
		} else if r.state == "online" {
			g.sendTo(src, r, b)
		} else {
			r.buffer = append(r.buffer, b...)
		}
	}
}

// sendTo has r's shard write a copy of b to its connection, after what
// was sent before; src is the shard calling, nil off the shards. p.mu
// held (or, for a sub-replica, the chain's lock).
func (g *Group) sendTo(src *Shard, r *replica, b []byte) {
	r.outMu.Lock()
	r.out = append(r.out, b...)
	g.postOut(src, r)
}

// hand is sendTo of b, which the caller built for r and never touches
// again: it is written as it is.
func (g *Group) hand(r *replica, b []byte) {
	r.outMu.Lock()
	if len(r.out) == 0 {
		r.out = b
	} else {
		r.out = append(r.out, b...)
	}
	g.postOut(nil, r)
}

// handle is r as a message's contents (msgRepl, postOut): its shard
// writes r.out to its connection.
func (r *replica) handle(s *Shard, _ msgKind) {
	r.outMu.Lock()
	if c := r.c; !c.dead && !c.closing {
		out := s.drv.Output(c.id)
		*out = append(*out, r.out...)
		s.stats.pub.replOut.Add(int64(len(r.out)))
	}
	r.out, r.posted = r.out[:0], false
	if cap(r.out) > maxKeptOut {
		r.out = nil // a payload's
	}
	r.outMu.Unlock()
}

// postOut has r's shard take r.out, unless a message is on its way to.
// r.outMu held; it unlocks it.
func (g *Group) postOut(src *Shard, r *replica) {
	post := !r.posted
	r.posted = true
	r.outMu.Unlock()
	switch {
	case !post:
		return
	case src != nil && src.id == r.shard: // on its loop: no message
		r.handle(src, msgRepl)
		return
	}
	batch := []message{{kind: msgRepl, data: r}}
	if dst := g.shards[r.shard]; src != nil {
		dst.deliverBy(src, batch)
	} else {
		dst.deliver(batch)
	}
}

// maxKeptOut is the most a replica's out buffer keeps between sends.
const maxKeptOut = 1 << 20

// backlogFrom returns the stream from offset off+1 on, if the backlog
// still holds it. p.mu held.
func (p *primState) backlogFrom(off int64) ([]byte, bool) {
	first := p.offset - int64(len(p.backlog)) // the offset before the backlog's first byte
	if p.freed || off < first || off > p.offset {
		return nil, false
	}
	return append([]byte(nil), p.backlog[off-first:]...), true
}

// psyncCmd is PSYNC replid offset and SYNC from connection c: +CONTINUE
// and the stream from the offset when this server's history holds it,
// else a full sync.
func (s *Shard) psyncCmd(c *conn, spec *command.Spec, args [][]byte) {
	g := s.group
	if s.psyncFailover(c, spec, args) {
		return
	}
	if link := g.repl.link.Load(); link != nil {
		s.chainPsync(c, spec, args, link)
		return
	}
	p := &g.prim
	r := c.repl
	if r == nil {
		r = &replica{ip: hostOf(c.cl.Addr)}
		c.repl = r
	}
	r.shard, r.c = s.id, c
	c.cl.Replica = true
	p.mu.Lock()
	g.startPrimary()
	// Under p.mu: freeing the backlog changes the ID (backlogttl.go).
	g.repl.mu.Lock()
	replid, replid2, off2 := g.repl.replid, g.repl.replid2, g.repl.offset2
	g.repl.mu.Unlock()
	if spec.Name == "psync" && len(args) == 3 {
		want, ok := num.ParseInt(args[2])
		id := string(args[1])
		if ok && (id == replid || id == replid2 && want <= off2) {
			if data, ok := p.backlogFrom(want - 1); ok {
				r.state, r.from = "online", p.offset
				r.ack.Store(want - 1)
				r.ackAt.Store(time.Now().UnixMilli())
				p.replicas = append(p.replicas, r)
				p.partialOK.Add(1)
				if r.flows != nil && r.flows.full == nil && r.flows.flowsOpen() {
					// The stream from the backlog on, on its flows.
					g.streamFlows(r, true)
					g.hand(r, []byte("+CONTINUE "+replid+" flows\r\n"))
					g.sendSplit(nil, r, data, p.offset, p.spans)
				} else {
					if r.flows != nil {
						g.closeFlows(r.flows)
						r.flows = nil
					}
					g.hand(r, append([]byte("+CONTINUE "+replid+"\r\n"), data...))
				}
				p.mu.Unlock()
				g.log.Info("partial resynchronization served", zap.String("replica", c.cl.Addr), zap.Int64("offset", want),
					zap.Bool("flows", r.split))
				return
			}
		}
		if id != "?" {
			p.partialErr.Add(1)
		}
	}
	r.state, r.from, r.buffer = "wait_bgsave", -1, nil
	p.replicas = append(p.replicas, r)
	p.freed = false // the stream counts again from the cut on
	p.full.Add(1)
	id := p.cutSeq.Add(1)
	fs := &fullSync{r: r, parts: make([][]byte, len(g.shards)), left: len(g.shards), sync: spec.Name == "sync",
		replid: replid}
	if r.flows != nil && r.flows.full == nil && !fs.sync {
		fs.flows, r.flows.full = r.flows, fs
		g.streamFlows(r, false) // the stream follows each flow's part
	}
	p.syncs[id] = fs
	p.mu.Unlock()
	s.cutTxn(id, true, nil)
}

// cutSpec is what a cut's transaction is to coord's steps: a command
// that takes no memory.
var cutSpec = &command.Spec{Name: "psync"}

// startFeeds turns every shard's feed on from a cut, and returns once
// each has it: the stream of a promoted replica, whose own replicas
// continue its history. Called with g.repl.change held, off the shards.
func (g *Group) startFeeds() {
	p := &g.prim
	p.mu.Lock()
	again := p.started
	g.startPrimary()
	id := p.cutSeq.Add(1)
	p.mu.Unlock()
	if again { // the stream goes on from the offset applied
		g.repl.mu.Lock()
		off, hist := g.repl.offset, g.repl.hist
		g.repl.hist = nil
		g.repl.mu.Unlock()
		g.mergeReset(off, hist)
	}
	done := make(chan struct{})
	g.shards[0].deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) { s.cutTxn(id, false, func() { close(done) }) })}})
	<-done
}

// wholeTxn is a txn from this shard over every shard's every key (coord's
// LockAll on each) for spec, its steps left to the caller (t.run).
func (s *Shard) wholeTxn(spec *command.Spec) *txn {
	s.txnSeq++
	t := &txn{id: uint64(s.id+1)<<48 | s.txnSeq, proto: 2, spec: spec}
	t.co.ID = t.id
	for sh := range s.group.shards {
		t.co.Parts = append(t.co.Parts, coord.Part{Shard: sh, All: true})
		t.parts = append(t.parts, router.Part{Shard: sh})
	}
	return t
}

// cutTxn takes every shard whole and, holding them all, has each mark
// cut id in its feed and, with dump, write its part of the payload;
// then runs done, if set.
func (s *Shard) cutTxn(id uint64, dump bool, done func()) {
	n := len(s.group.shards)
	t := s.wholeTxn(cutSpec)
	t.done = func([]byte) {}
	c := &cutRound{left: n, then: func() {
		s.releaseExec(t, true)
		if done != nil {
			done()
		}
	}}
	t.run = func() {
		for sh := range n {
			s.post(sh, msgCut, &cutMsg{feed: id, dump: dump, id: t.id, home: s.id, round: c})
		}
	}
	s.acquire(t)
}

// cutHere marks cut id in this shard's feed (turning the feed on) and,
// with dump, starts writing its keys as a part of an RDB payload, in
// slices between loop turns as BGSAVE does (at once while a BGSAVE runs),
// as they are now: the group gets it when done.
func (s *Shard) cutHere(id uint64, dump bool) {
	if !s.feed.on {
		s.feed.on = true
		if s.mut.sink == nil {
			s.mut.sink = func(int, *command.Effects) {}
		}
	}
	s.feed.marks = append(s.feed.marks, feedMark{at: s.mut.fx.Len(), kind: repl.ItemCut, id: id})
	if !dump {
		return
	}
	g, shard := s.group, s.id
	fo := g.flowOf(id, shard)
	then := func(body []byte, err error) {
		if err != nil {
			g.log.Warn("full sync: writing the payload", zap.Error(err))
		}
		if fo != nil {
			fo.finish(err)
			body = []byte{} // on its way
		}
		g.partDumped(id, shard, body)
	}
	opt := s.writeOptions()
	opt.Body = true
	b := &bgSave{mem: &bytes.Buffer{}, then: then, flow: fo}
	var out io.Writer = b.mem
	if fo != nil {
		out = fo
	}
	b.w = snapshot.NewWriter(s.store, out, opt)
	if s.snap != nil { // a BGSAVE's slices hold the copy-before-write
		// The payload is read once written (the arguments of one call
		// are read in order: the buffer's bytes would be taken first).
		err := b.w.WriteAll(s.now)
		then(b.mem.Bytes(), err)
		return
	}
	s.beginSnap(b)
}

// partDumped records shard's part of full sync id's payload.
func (g *Group) partDumped(id uint64, shard int, body []byte) {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	fs := p.syncs[id]
	if fs == nil {
		return
	}
	if body == nil {
		body = []byte{} // dumped, of no keys
	}
	fs.parts[shard] = body
	fs.left--
	if fs.flows != nil && fs.flows.fds[shard] >= 0 { // the flow came after the cut
		f := g.sendFlow(fs.flows, shard)
		f.Write(body)
		f.finish(nil)
	}
	g.trySend(id, fs)
}

// trySend sends full sync id's reply, payload and the stream since its
// cut, once the payload is whole and the merger passed the cut. p.mu
// held.
func (g *Group) trySend(id uint64, fs *fullSync) {
	if fs.left > 0 || !fs.cut {
		return
	}
	p := &g.prim
	delete(p.syncs, id)
	r := fs.r
	if r.gone {
		return
	}
	if fs.flows != nil {
		b := fmt.Appendf(nil, "+FULLRESYNC %s %d\r\n$FLOWS:%d\r\n", fs.replid, fs.offset, len(fs.parts))
		g.online(r, fs, append(b, r.buffer...))
		g.log.Info("full sync served on flows", zap.String("replica", r.c.cl.Addr), zap.Int("flows", len(fs.parts)),
			zap.Int64("offset", fs.offset))
		return
	}
	payload := g.framePayload(fs.parts)
	var b []byte
	if !fs.sync {
		b = fmt.Appendf(b, "+FULLRESYNC %s %d\r\n", fs.replid, fs.offset)
	}
	b = fmt.Appendf(b, "$%d\r\n", len(payload))
	b = append(b, payload...)
	if r.rdb {
		g.hand(r, b)
		return
	}
	g.online(r, fs, append(b, r.buffer...))
	g.log.Info("full sync served", zap.String("replica", r.c.cl.Addr), zap.Int("bytes", len(payload)), zap.Int64("offset", fs.offset))
}

// online sends b, r's full sync's reply and the stream since its cut,
// and has the stream follow. p.mu held.
func (g *Group) online(r *replica, fs *fullSync, b []byte) {
	r.buffer = nil
	r.state = "online"
	r.ack.Store(fs.offset)
	r.ackAt.Store(time.Now().UnixMilli())
	g.hand(r, b)
}

// dropReplicas closes every replica's connection (the group becomes a
// replica itself).
func (g *Group) dropReplicas() {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.replicas {
		c := r.c
		r.gone = true
		if r.flows != nil {
			g.closeFlows(r.flows)
		}
		g.shards[r.shard].deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) { s.closeConn(c) })}})
	}
	p.replicas = nil
	p.lonely = time.Now()
}

// replicaGone forgets the replica of a closed connection.
func (g *Group) replicaGone(r *replica) {
	g.chainGone(r)
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	r.gone = true
	if r.flows != nil {
		g.closeFlows(r.flows)
	}
	for i, x := range p.replicas {
		if x == r {
			p.replicas = append(p.replicas[:i], p.replicas[i+1:]...)
			if len(p.replicas) == 0 {
				p.lonely = time.Now()
			}
			break
		}
	}
}

// replconfReplica is REPLCONF from a (would-be) replica connection: the
// handshake's options are remembered, ACK records its offset (and is not
// answered), as GETACK is not.
func (s *Shard) replconfReplica(c *conn, args [][]byte) bool {
	if len(args) < 3 {
		return false
	}
	switch strings.ToLower(string(args[1])) {
	case "ack":
		if r := c.repl; r != nil {
			if off, ok := num.ParseInt(args[2]); ok {
				r.ack.Store(off)
				r.ackAt.Store(s.now)
			}
			if len(args) == 5 && strings.EqualFold(string(args[3]), "fack") {
				if off, ok := num.ParseInt(args[4]); ok {
					r.fack.Store(off)
				}
			}
		}
		return true
	case "getack":
		return true
	}
	if c.repl == nil {
		c.repl = &replica{ip: hostOf(c.cl.Addr)}
	}
	for i := 1; i+1 < len(args); i += 2 {
		switch strings.ToLower(string(args[i])) {
		case "listening-port":
			port, _ := num.ParseInt(args[i+1])
			c.repl.port = int(port)
		case "ip-address":
			c.repl.ip = string(args[i+1])
		case "rdb-only":
			c.repl.rdb = string(args[i+1]) == "1"
		}
	}
	return false
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}

// replicasInfo writes INFO's connected_slaves and slaveN lines.
func (g *Group) replicasInfo(b *strings.Builder) {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	writeReplicas(b, p.replicas)
}

// writeReplicas writes INFO's connected_slaves and slaveN lines for rs
// (an RDB-only transfer, redis-cli --rdb, is not a replica); the caller
// holds the lock that guards rs.
func writeReplicas(b *strings.Builder, rs []*replica) {
	now := time.Now().UnixMilli()
	n := 0
	for _, r := range rs {
		if !r.rdb {
			n++
		}
	}
	fmt.Fprintf(b, "connected_slaves:%d\r\n", n)
	i := 0
	for _, r := range rs {
		if r.rdb {
			continue
		}
		fmt.Fprintf(b, "slave%d:ip=%s,port=%d,state=%s,offset=%d,lag=%d\r\n", i, r.ip, r.port, r.state,
			r.ack.Load(), (now-r.ackAt.Load())/1000)
		i++
	}
}

// backlogBytes is the memory the replication backlog holds (0 before
// the first replica or once freed).
func (g *Group) backlogBytes() int64 {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started || p.freed {
		return 0
	}
	return int64(len(p.backlog))
}

// primaryOffset is master_repl_offset and the backlog's fields.
func (g *Group) primaryOffset() (off, first, histlen int64, active bool) {
	p := &g.prim
	p.mu.Lock()
	started, freed := p.started, p.freed
	// What the backlog holds: its last repl-backlog-size bytes (it trims
	// itself once it holds twice that).
	histlen = min(int64(len(p.backlog)), g.conf.Snapshot().ReplBacklogSize)
	off, first = p.offset, p.offset-histlen+1
	p.mu.Unlock()
	if !started {
		g.repl.mu.Lock()
		defer g.repl.mu.Unlock()
		return g.repl.offset, 0, 0, false
	}
	if freed {
		return off, 0, 0, false
	}
	return off, first, histlen, true
}

// waitCmd is WAIT numreplicas timeout: the number of replicas that
// acknowledged every write this server had made when WAIT came, once
// numreplicas did or timeout (milliseconds, 0: none) passed.
func (s *Shard) waitCmd(c *conn, args [][]byte) {
	need, ms, errText := command.WaitArgs(args)
	if errText != "" {
		s.reply(c, func(w *resp.Writer) { w.Error(errText) })
		return
	}
	g := s.group
	if g.repl.link.Load() != nil {
		s.reply(c, func(w *resp.Writer) {
			w.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		})
		return
	}
	home := s.id
	sl := s.pend(c)
	c.barrier = true
	w := &waiter2{need: int(need), reply: func(n int) {
		g.shards[home].deliver([]message{{kind: msgRepl, data: runMsg(func(h *Shard) {
			rw := resp.Writer{Proto: c.cl.Proto}
			rw.Int(int64(n))
			c.barrier = false
			h.fill(c, sl, rw.B)
			if !c.dead && !c.closing {
				h.serve(c)
			}
		})}})
	}}
	if ms > 0 {
		w.deadline = time.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	go func() {
		g.afterEarlier(home, c, sl)
		g.wait(w)
	}()
}

// wait settles w: once the merger gave it its target (the stream's
// offset past every write made before WAIT came), it counts the replicas
// that acknowledged the target until enough have or its deadline passes.
func (g *Group) wait(w *waiter2) {
	p := &g.prim
	w.target.Store(-1)
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if started {
		g.mergeWait(w)
	} else {
		w.target.Store(0)
	}
	for {
		target, n := w.target.Load(), 0
		if target >= 0 {
			p.mu.Lock()
			for _, r := range p.replicas {
				if r.state == "online" && !r.rdb && r.ack.Load() >= target {
					n++
				}
			}
			p.mu.Unlock()
		}
		if target >= 0 && n >= w.need || !w.deadline.IsZero() && time.Now().After(w.deadline) {
			w.reply(n)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ReplicasAcked implements command.Server.
func (g *Group) ReplicasAcked() int {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.replicas {
		if r.state == "online" && !r.rdb && r.ack.Load() >= p.offset {
			n++
		}
	}
	return n
}

package shard

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
	"github.com/radish-kv/radish/persistence/rdb"
	"github.com/radish-kv/radish/persistence/repl"
	"github.com/radish-kv/radish/persistence/snapshot"
)

// Chained replicas, as Redis 7's sub-replicas: a group that is itself a
// replica serves PSYNC to replicas of its own (radish or redis-server)
// with its primary's stream, byte for byte as its link applies it
// (repl.Options.Forward), under the primary's replication ID and
// offsets. The link's history (repl.Replica.Chained) is the backlog a
// sub-replica's partial resync reads. A full sync holds the link's
// stream still (repl.Replica.Hold) until every shard started writing
// its keys as a part of one RDB payload, so the payload is the data at
// the offset forwarded, which +FULLRESYNC names; what the link applies
// meanwhile waits in the sub-replica's buffer. Sub-replicas are dropped,
// as Redis drops them, when the stream changes under them (the link's
// full sync, a +CONTINUE with a new ID), when the group follows another
// primary, and when it is promoted: they come back with a PSYNC, which a
// promoted group continues from its history (its replid2).

// chainState is the group's sub-replicas while it is a replica. mu
// guards subs and their buffers; it is taken with the link's offsets
// locked (Forward), never the other way.
type chainState struct {
	mu   sync.Mutex
	subs []*replica
	n    atomic.Int32 // len(subs), for the link's forward without the lock
}

// chainForward implements repl.Options.Forward: b goes to every
// sub-replica, online or buffered until its full sync's payload.
func (g *Group) chainForward(b []byte) {
	ch := &g.chain
	if ch.n.Load() == 0 {
		return
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for _, r := range ch.subs {
		switch {
		case r.gone || r.rdb: // redis-cli --rdb: the payload only
		case r.state == "online":
			g.sendTo(nil, r, b)
		default:
			r.buffer = append(r.buffer, b...)
		}
	}
}

// dropChained closes every sub-replica's connection: repl.Options.Reset,
// and the group's role changes.
func (g *Group) dropChained() {
	ch := &g.chain
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for _, r := range ch.subs {
		r.gone = true
		c := r.c
		g.shards[r.shard].deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) { s.closeConn(c) })}})
	}
	ch.subs = nil
	ch.n.Store(0)
}

// chainAdd registers r as a sub-replica. ch.mu held.
func (ch *chainState) add(r *replica) {
	ch.subs = append(ch.subs, r)
	ch.n.Store(int32(len(ch.subs)))
}

// chainGone forgets the sub-replica of a closed connection.
func (g *Group) chainGone(r *replica) {
	ch := &g.chain
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for i, x := range ch.subs {
		if x == r {
			r.gone = true
			ch.subs = append(ch.subs[:i], ch.subs[i+1:]...)
			ch.n.Store(int32(len(ch.subs)))
			return
		}
	}
}

// chainPsync is PSYNC and SYNC on a replica: refused while its link is
// down (as Redis), +CONTINUE from the link's history when it holds the
// offset asked for, else a full sync of this group's data.
func (s *Shard) chainPsync(c *conn, spec *command.Spec, args [][]byte, link *repl.Replica) {
	g := s.group
	if !link.Up() {
		s.reply(c, func(w *resp.Writer) {
			w.Error("NOMASTERLINK Can't SYNC while not connected with my master")
		})
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
	if r.flows != nil { // asked for, unused: the payload is one
		g.closeFlows(r.flows)
		r.flows = nil
	}
	p.mu.Unlock()
	if spec.Name == "psync" && len(args) == 3 {
		want, ok := num.ParseInt(args[2])
		id := string(args[1])
		served := false
		link.Chained(func(h repl.Chain) {
			first := h.Offset - int64(len(h.History)) // the offset before the history's first byte
			if !ok || !(id == h.ReplID || id == h.ReplID2 && want <= h.SecondOffset) ||
				want-1 < first || want-1 > h.Offset {
				return
			}
			r.state, r.from = "online", h.Offset
			r.ack.Store(want - 1)
			r.ackAt.Store(time.Now().UnixMilli())
			ch := &g.chain
			ch.mu.Lock()
			ch.add(r)
			g.hand(r, append([]byte("+CONTINUE "+h.ReplID+"\r\n"), h.History[want-1-first:]...))
			ch.mu.Unlock()
			served = true
		})
		if served {
			p.partialOK.Add(1)
			g.log.Info("partial resynchronization served to a sub-replica", zap.String("replica", c.cl.Addr),
				zap.Int64("offset", want))
			return
		}
		if id != "?" {
			p.partialErr.Add(1)
		}
	}
	p.full.Add(1)
	r.state, r.buffer = "wait_bgsave", nil
	go g.chainFullSync(link, r, spec.Name == "sync")
}

// chainFullSync sends sub-replica r a full sync: the link held, r joins
// the sub-replicas at the offset forwarded and every shard starts its
// part of the payload; once all are written, the payload and what was
// forwarded since follow +FULLRESYNC.
func (g *Group) chainFullSync(link *repl.Replica, r *replica, plain bool) {
	n := len(g.shards)
	parts, left := make([][]byte, n), n
	var replid string
	var off int64
	ch := &g.chain
	part := func(shard int, body []byte, err error) {
		if err != nil {
			g.log.Warn("full sync of a sub-replica: writing the payload", zap.Error(err))
		}
		ch.mu.Lock()
		defer ch.mu.Unlock()
		parts[shard] = body
		if left--; left > 0 || r.gone {
			return
		}
		payload := g.framePayload(parts)
		var b []byte
		if !plain { // SYNC: no +FULLRESYNC line
			b = fmt.Appendf(b, "+FULLRESYNC %s %d\r\n", replid, off)
		}
		b = fmt.Appendf(b, "$%d\r\n", len(payload))
		b = append(b, payload...)
		if r.rdb { // redis-cli --rdb: the payload alone
			g.hand(r, b)
			return
		}
		b = append(b, r.buffer...)
		r.buffer, r.state = nil, "online"
		r.ack.Store(off)
		r.ackAt.Store(time.Now().UnixMilli())
		g.hand(r, b)
		g.log.Info("full sync served to a sub-replica", zap.String("replica", r.c.cl.Addr),
			zap.Int("bytes", len(payload)), zap.Int64("offset", off))
	}
	link.Hold(func() {
		link.Chained(func(h repl.Chain) {
			replid, off = h.ReplID, h.Offset
			ch.mu.Lock()
			ch.add(r)
			ch.mu.Unlock()
		})
		var wg sync.WaitGroup
		wg.Add(n)
		for _, sh := range g.shards {
			sh.deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) {
				id := s.id
				s.dumpPart(func(body []byte, err error) { part(id, body, err) })
				wg.Done()
			})}})
		}
		wg.Wait()
	})
}

// dumpPart starts writing this shard's keys, as they are now, as a part
// of an RDB payload (its databases, no header or trailer), in slices
// between loop turns as BGSAVE does (at once while a BGSAVE runs), and
// hands it to then when done.
func (s *Shard) dumpPart(then func(body []byte, err error)) {
	opt := s.writeOptions()
	opt.Body = true
	b := &bgSave{mem: &bytes.Buffer{}, then: then}
	b.w = snapshot.NewWriter(s.store, b.mem, opt)
	if s.snap != nil { // a BGSAVE's slices hold the copy-before-write
		err := b.w.WriteAll(s.now)
		then(b.mem.Bytes(), err)
		return
	}
	s.beginSnap(b)
}

// framePayload frames the shards' parts as one RDB file: a header, every
// part's databases, the EOF and the checksum.
func (g *Group) framePayload(parts [][]byte) []byte {
	c := g.conf.Snapshot()
	opt := snapshot.Options{Compress: c.RDBCompression, Checksum: c.RDBChecksum, Time: time.Now().UnixMilli(),
		Functions: g.scripts.Codes()}
	var used int64
	for _, s := range g.shards {
		used += s.stats.pub.usedMemory.Load()
	}
	payload := snapshot.AppendHeader(nil, opt, used)
	for _, b := range parts {
		payload = append(payload, b...)
	}
	return snapshot.AppendTrailer(payload, opt, rdb.CRC64(0, payload))
}

// chainInfo writes INFO's connected_slaves and slaveN lines of a
// replica: its sub-replicas.
func (g *Group) chainInfo(b *strings.Builder) {
	ch := &g.chain
	ch.mu.Lock()
	defer ch.mu.Unlock()
	writeReplicas(b, ch.subs)
}

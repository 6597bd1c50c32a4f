package shard

import (
	"cmp"
	"slices"

	"go.uber.org/zap"
)

// Client eviction (maxmemory-clients), as Redis 7: once a second each
// shard sums what its clients hold (their unread input, their output not
// yet sent, held or queued: what CLIENT LIST's tot-mem shows) and
// publishes it (INFO's mem_clients_normal and mem_clients_slaves). While
// the normal clients of every shard together hold more than the budget,
// each shard evicts its own largest clients, those that did not say
// CLIENT NO-EVICT (never a replica's or the master's link), until it
// freed its share of the excess: the part its clients hold of the total,
// so that the shards, each evicting on its own, free about the excess
// between them. An evicted client is aborted, its output dropped, and
// counted (INFO's evicted_clients).

// clientsEvery is how often, in milliseconds, a shard sums its clients.
const clientsEvery = 1000

// The same walk keeps INFO's client_recent_max_input_buffer and
// client_recent_max_output_buffer as Redis's clientsCron does: the largest
// input and output any client held in each of the last peakSlots seconds
// (a slot per second, the oldest overwritten), and their maxima published.
const peakSlots = 8

// bufPeak is the largest input and output seen in one second.
type bufPeak struct {
	sec     int64 // unix second of the slot, 0 when unused
	in, out int64
}

// notePeaks records this second's largest input and output and publishes
// the maxima over the last peakSlots seconds.
func (s *Shard) notePeaks(in, out int64) {
	sec := s.now / 1000
	slot := &s.peaks[sec%peakSlots]
	if slot.sec != sec {
		*slot = bufPeak{sec: sec}
	}
	slot.in, slot.out = max(slot.in, in), max(slot.out, out)
	var maxIn, maxOut int64
	for _, p := range s.peaks {
		if p.sec > sec-peakSlots {
			maxIn, maxOut = max(maxIn, p.in), max(maxOut, p.out)
		}
	}
	setInt(&s.stats.pub.peakIn, maxIn)
	setInt(&s.stats.pub.peakOut, maxOut)
}

// memConn is a client and what it holds.
type memConn struct {
	c   *conn
	mem int64
}

// clientBufs is what c holds: its input not yet run, and its output not
// yet sent (the driver's, held for the AOF, queued behind a reply being
// computed). CLIENT LIST's qbuf and omem; their sum, tot-mem, is what
// client eviction weighs.
func (s *Shard) clientBufs(c *conn) (in, out int) {
	out = s.drv.Pending(c.id) + len(c.held)
	for _, sl := range c.queue {
		out += len(sl.buf)
	}
	return len(s.input(c)), out
}

// clientsCron sums this shard's clients, once per clientsEvery, and
// evicts its share of what the normal clients hold over the budget.
func (s *Shard) clientsCron() {
	if s.now-s.clientsAt < clientsEvery {
		return
	}
	s.clientsAt = s.now
	var normal, replicas, peakIn, peakOut int64
	s.evictable = s.evictable[:0]
	for _, c := range s.conns {
		in, out := s.clientBufs(c)
		peakIn, peakOut = max(peakIn, int64(in)), max(peakOut, int64(out))
		if c.cl.Master {
			continue // the master's link counts as neither
		}
		m := int64(in + out)
		if c.cl.Replica {
			replicas += m
			continue
		}
		normal += m
		if !c.cl.NoEvict && !c.closing && !c.dead {
			s.evictable = append(s.evictable, memConn{c, m})
		}
	}
	s.notePeaks(peakIn, peakOut)
	p := &s.stats.pub
	p.memClients.Store(normal)
	p.memReplicas.Store(replicas)
	budget := s.conf.ClientsBudget()
	total := s.group.clientsMemory()
	if budget <= 0 || total <= budget || normal == 0 {
		clear(s.evictable)
		return
	}
	share := (total - budget) * normal / total
	slices.SortFunc(s.evictable, func(a, b memConn) int { return cmp.Compare(b.mem, a.mem) })
	for _, e := range s.evictable {
		if share <= 0 {
			break
		}
		c := e.c
		s.group.log.Info("evicting client", shardField(s.id), zap.Int64("id", c.cl.ID), zap.String("addr", c.cl.Addr),
			zap.Int64("memory", e.mem), zap.Int64("clients", total), zap.Int64("maxmemory-clients", budget))
		c.closing = true
		s.drv.Abort(c.id)
		share -= e.mem
		p.evictedClients.Add(1)
	}
	clear(s.evictable)
}

// clientPeaks is INFO's client_recent_max_input_buffer and
// client_recent_max_output_buffer: the largest over the shards.
func (g *Group) clientPeaks() (in, out int64) {
	for _, s := range g.shards {
		in, out = max(in, s.stats.pub.peakIn.Load()), max(out, s.stats.pub.peakOut.Load())
	}
	return in, out
}

// clientsMemory is what every shard's normal clients held at its last
// sum.
func (g *Group) clientsMemory() (n int64) {
	for _, s := range g.shards {
		n += s.stats.pub.memClients.Load()
	}
	return n
}

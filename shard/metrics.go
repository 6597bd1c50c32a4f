package shard

import (
	"net"
	"strconv"
	"time"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/metrics"
	"github.com/radish-kv/radish/persistence/aof"
)

// Sample implements metrics.Source: every shard's published counters
// (stats.go), read without stopping a shard.
func (g *Group) Sample(dst []metrics.Shard) []metrics.Shard {
	dst = dst[:0]
	for _, s := range g.shards {
		p := &s.stats.pub
		m := metrics.Shard{
			Commands:    p.commands.Load(),
			Connections: p.connections.Load(),
			Rejected:    p.rejected.Load(),
			Hops:        p.hops.Load(),
			Txns:        p.txns.Load(),
			Migrated:    p.migrated.Load(),
			Blocked:     p.blocked.Load(),
			Expired:     p.expired.Load(),
			Evicted:     p.evicted.Load(),
			UsedMemory:  p.usedMemory.Load(),
			Hits:        p.hits.Load(),
			Misses:      p.misses.Load(),
			NetIn:       p.netIn.Load(),
			NetOut:      p.netOut.Load(),
			Changes:     p.dirty.Load(),
			Keys:        make([]int64, len(p.keys)),
			Expires:     make([]int64, len(p.expires)),
			Calls:       make([]int64, len(p.calls)),
			Failed:      make([]int64, len(p.calls)),
			Refused:     make([]int64, len(p.calls)),
			Latency:     make([]metrics.Histogram, len(s.stats.lat)),
		}
		for i := range s.stats.lat {
			m.Latency[i] = s.stats.lat[i].read()
		}
		if set := g.aofSet(); set != nil {
			l := set.Log(s.id)
			m.AOFSize, m.AOFPending = l.Size(), int64(l.Pending())
			f := l.Fsyncs()
			m.AOFFsync = metrics.Histogram{Count: f.Count, Sum: float64(f.SumNs) / 1e9}
			for i, n := range f.Buckets {
				if n != 0 {
					if m.AOFFsync.Buckets == nil {
						m.AOFFsync.Buckets = map[int]uint64{}
					}
					m.AOFFsync.Buckets[i+aof.DurMinExp] = n
				}
			}
		}
		if errs := p.errs.Load(); errs != nil {
			m.Errors = *errs // published copies are never written again
		}
		for i := range p.keys {
			m.Keys[i], m.Expires[i] = p.keys[i].Load(), p.expires[i].Load()
		}
		for i := range p.calls {
			m.Calls[i], m.Failed[i], m.Refused[i] = p.calls[i].Load(), p.failed[i].Load(), p.refused[i].Load()
		}
		dst = append(dst, m)
	}
	return dst
}

// Persistence implements metrics.Source.
func (g *Group) Persistence() metrics.Persistence {
	p := &g.persist
	set := g.aofSet()
	m := metrics.Persistence{
		LastSave:   p.lastSave.Load(),
		Saves:      p.saves.Load(),
		LastSaveOK: !p.lastErr.Load(),
		AOF:        set != nil,
		AOFFailing: set != nil && set.Failing(),
	}
	if l := g.repl.link.Load(); l != nil {
		m.Replica, m.ReplOffset = true, l.Status().Applied
		return m
	}
	m.ReplOffset, _, _, _ = g.primaryOffset()
	pr := &g.prim
	pr.mu.Lock()
	now := time.Now().UnixMilli()
	for _, r := range pr.replicas {
		if !r.rdb {
			m.Replicas = append(m.Replicas, metrics.Replica{Addr: net.JoinHostPort(r.ip, strconv.Itoa(r.port)),
				Offset: r.ack.Load(), Lag: float64(now-r.ackAt.Load()) / 1000})
		}
	}
	pr.mu.Unlock()
	return m
}

// Commands implements metrics.Source: the command rows' names, by the
// index Sample's Calls use (Spec.ID), subcommands named "parent|sub" as their rows are.
func (g *Group) Commands() []string {
	rows := command.Rows()
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Name
	}
	return names
}

package shard

import (
	"math"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/persistence/repl"
)

// repl-backlog-ttl, as Redis: a primary that has had no replica for that
// many seconds frees its backlog (0: never). From then on the stream's
// offset stays where it was (its bytes go nowhere), INFO says
// repl_backlog_active:0, and the replication ID is a new one with no
// replid2, so that no PSYNC continues a history this server no longer
// holds; the next replica's full sync starts the backlog again
// (psyncCmd). A replica (and so its sub-replicas' backlog) never frees
// it: it may be promoted.

// freeBacklog frees the backlog once the primary has had no replica for
// repl-backlog-ttl seconds at now. p.mu held.
func (g *Group) freeBacklog(conf *config.Snapshot, now time.Time) {
	p := &g.prim
	ttl := time.Duration(min(int64(conf.ReplBacklogTTL), int64(math.MaxInt64/time.Second))) * time.Second // no overflow
	if ttl == 0 || p.freed || len(p.replicas) > 0 || now.Sub(p.lonely) <= ttl || g.repl.link.Load() != nil {
		return
	}
	p.freed, p.backlog = true, nil
	p.spans = []repl.Span{{Shard: -1, End: p.offset}} // an empty backlog's index (flowstream.go)
	r := &g.repl
	r.mu.Lock()
	r.replid, r.replid2, r.offset2 = newReplID(), "", -1
	r.mu.Unlock()
	g.log.Info("replication backlog freed after repl-backlog-ttl seconds without connected replicas",
		zap.Int("repl-backlog-ttl", conf.ReplBacklogTTL))
}

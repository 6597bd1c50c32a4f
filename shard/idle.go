package shard

import "go.uber.org/zap"

// closeIdle closes the connections from which nothing was read for more
// than timeout seconds (a part of a command counts), as Redis's clientsCronHandleTimeout does, except those
// blocked in a command (their own timeout applies). It runs from cron and
// looks at every connection at most once a second, as Redis's clientsCron
// does; timeout 0 never closes one.
func (s *Shard) closeIdle() {
	limit := int64(s.conf.Timeout) * 1000
	if limit == 0 || s.now-s.idleCheck < 1000 {
		return
	}
	s.idleCheck = s.now
	for _, c := range s.conns {
		if c.blocked == nil && !c.closing && !c.cl.Master && s.now-c.cl.LastMs > limit {
			s.group.log.Debug("closing idle client", shardField(s.id), zap.Int64("id", c.cl.ID))
			s.closeConn(c)
		}
	}
}

package shard

import (
	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
)

// Output buffer limits (client-output-buffer-limit). A client's pending
// output is what the driver holds for it, queued and in flight
// (ioloop.Driver.Pending). It is checked where output grows: after a
// connection's commands ran (serve), after a reply from another shard
// (fill) and after each Pub/Sub message (push). A client over its class's
// hard limit, or over the soft limit for longer than its seconds, is
// logged and aborted: its output is dropped, not sent, so the memory a
// client that stops reading can hold is bounded by its limit plus one
// reply. A normal client with no limits set (the default) costs one
// branch per check.

// checkOutput enforces c's output buffer limit. It inlines: a normal
// client with no limits set costs one branch.
func (s *Shard) checkOutput(c *conn) {
	if s.normalLimit || c.subscribed() {
		s.limitOutput(c)
	}
}

// limitOutput is checkOutput's check of a client with a limit.
func (s *Shard) limitOutput(c *conn) {
	class := config.ClassNormal
	if c.subscribed() {
		class = config.ClassPubSub
	}
	l := &s.conf.OutputLimits[class]
	if l.Hard == 0 && l.Soft == 0 || c.closing {
		return
	}
	pending := int64(s.drv.Pending(c.id))
	over := l.Hard > 0 && pending >= l.Hard
	switch {
	case l.Soft == 0 || pending < l.Soft:
		c.softSince = 0
	case c.softSince == 0:
		c.softSince = s.now
	case (s.now-c.softSince)/1000 > l.SoftSeconds:
		over = true
	}
	if !over {
		return
	}
	s.group.log.Warn("closing client that exceeded its output buffer limit", shardField(s.id),
		zap.Int64("id", c.cl.ID), zap.String("addr", c.cl.Addr), zap.String("class", classNames[class]),
		zap.Int64("pending", pending))
	c.closing = true
	s.drv.Abort(c.id)
}

var classNames = [config.NumClasses]string{"normal", "replica", "pubsub"}

package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
)

// Clients implements command.Local.
func (s *Shard) Clients(fn func(c *command.Client)) {
	for _, c := range s.conns {
		if !c.closing {
			fn(&c.cl)
		}
	}
}

// Kill implements command.Local.
func (s *Shard) Kill(id int64) bool {
	for _, c := range s.conns {
		if c.cl.ID == id && !c.closing {
			c.cl.Close = true
			s.closeIfDone(c)
			return true
		}
	}
	return false
}

// ResetStats implements command.Server: every shard clears its counters
// in its own next turn.
func (g *Group) ResetStats() {
	for _, s := range g.shards {
		s.deliver([]message{func(s *Shard) {
			st := &s.stats
			st.commands, st.connections, st.rejected, st.hops, st.txns = 0, 0, 0, 0, 0
			clear(st.calls)
			st.pub.callsDirty = true
		}})
	}
}

// merge combines the replies of a command's per-shard parts.
func merge(spec *command.Spec, proto int, parts []router.Part, replies [][]byte) []byte {
	if spec.Merge != command.MergeText {
		return router.Merge(spec.Merge, proto, parts, replies)
	}
	var text []byte
	for _, r := range replies {
		v, _, err := resp.ReadReply(r)
		if err != nil || v.Type == '-' {
			return r
		}
		text = append(text, v.Str...)
	}
	w := resp.Writer{Proto: proto}
	w.Verbatim("txt", text)
	return w.B
}

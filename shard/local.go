package shard

import (
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
)

// Clients implements command.Local.
func (s *Shard) Clients(fn func(c *command.Client)) {
	for _, c := range s.conns {
		if !c.closing {
			s.fillClient(c)
			fn(&c.cl)
		}
	}
}

// fillClient copies into c's Client what CLIENT LIST shows of the
// connection's state.
func (s *Shard) fillClient(c *conn) {
	cl := &c.cl
	cl.Multi = -1
	if c.tx != nil && (c.tx.on || c.tx.execing) {
		cl.Multi = len(c.tx.cmds)
	}
	cl.QBuf, cl.OMem = s.clientBufs(c)
	cl.Blocked, cl.Monitor = c.blocked != nil, c.monitor
	b := s.drv.Buffers(c.id)
	m := &cl.Bufs
	*m = command.ClientBufs{Fd: b.Fd, QBufFree: b.InFree, RBS: b.OutCap, RBP: b.OutCap, OBL: b.Out}
	// oll: the reply pieces behind the output buffer: a send in flight,
	// replies done but queued behind one still being computed, and those
	// held for the AOF's disk.
	if b.InFlight > 0 {
		m.OLL++
	}
	for _, sl := range c.queue {
		if len(sl.buf) > 0 {
			m.OLL++
		}
	}
	if len(c.held) > 0 {
		m.OLL++
	}
	switch {
	case c.blocked != nil:
		m.ArgvMem = command.ArgsLen(c.blocked.args)
	case c.span != nil:
		m.ArgvMem = command.ArgsLen(c.span.args)
	}
	if c.inMulti() {
		// Redis's mstate.argv_len_sums: each queued command's argument
		// bytes and a pointer per argument.
		m.MultiMem = len(c.tx.buf) + 8*len(c.tx.ends)
	}
}

// Kill implements command.Local.
func (s *Shard) Kill(id int64) bool {
	for _, c := range s.conns {
		if c.cl.ID == id && !c.closing {
			c.cl.Close = true
			if c.blocked != nil {
				s.withdraw(c, c.blocked)
				s.closeConn(c)
			}
			s.closeIfDone(c)
			return true
		}
	}
	return false
}

// Unblock implements command.Local: a blocked client gets its timeout
// reply, or the UNBLOCKED error, in this shard's next turn (not inside the
// handler that asked).
func (s *Shard) Unblock(id int64, withError bool) bool {
	for _, c := range s.conns {
		if c.cl.ID != id || c.blocked == nil || c.blocked.w.Claimed() {
			continue
		}
		b := c.blocked
		var w resp.Writer
		w.Proto = c.cl.Proto
		if withError {
			w.Error(errtext.Unblocked)
		} else {
			command.WriteTimeout(&command.Ctx{W: &w}, b.spec)
		}
		s.post(s.id, msgUnblock, &unblockMsg{c: c, b: b, out: w.B})
		return true
	}
	return false
}

// unblockMsg is CLIENT UNBLOCK's end of a wait, for the shard's next
// step (msgUnblock, which the shard sends itself): c's wait b ends with
// out unless it ended or was claimed meanwhile.
type unblockMsg struct {
	c   *conn
	b   *blockState
	out []byte
}

func (m *unblockMsg) handle(s *Shard, _ msgKind) {
	if m.c.blocked == m.b && !m.b.w.Claimed() {
		s.endWait(m.c, m.b, m.out)
	}
}

// ResetStats implements command.Server: every shard clears its counters
// in its own next turn, and the replication bytes counted off the loops
// start again.
func (g *Group) ResetStats() {
	g.replIn.Store(0)
	g.replSent.Store(0)
	for _, s := range g.shards {
		s.deliver([]message{{kind: msgStats, data: resetStats{}}})
	}
}

// unblockAll ends the blocked commands of this shard's clients, as Redis
// does when it becomes a replica (their keys now change only by its
// primary's stream): -UNBLOCKED, or for a client that said CLIENT CAPA
// redirect, Valkey 8's -REDIRECT to the primary. Each answer goes in the
// shard's next turn, as CLIENT UNBLOCK's.
func (s *Shard) unblockAll(primary string) {
	for _, c := range s.conns {
		b := c.blocked
		if b == nil || b.w.Claimed() {
			continue
		}
		w := resp.Writer{Proto: c.cl.Proto}
		if c.cl.Redirect {
			w.Error("REDIRECT " + primary)
		} else {
			w.Error(errtext.UnblockedRole)
		}
		s.post(s.id, msgUnblock, &unblockMsg{c: c, b: b, out: w.B})
	}
}

// resetStats is CONFIG RESETSTAT's message to every shard (msgStats),
// which carries nothing.
type resetStats struct{}

func (resetStats) handle(s *Shard, _ msgKind) {
	st := &s.stats
	st.commands, st.connections, st.rejected, st.hops, st.txns, st.migrated = 0, 0, 0, 0, 0, 0
	for id := range st.calls {
		if st.calls[id] != 0 || st.failed[id] != 0 || st.refused[id] != 0 {
			st.calls[id], st.failed[id], st.refused[id] = 0, 0, 0
			st.dirty = append(st.dirty, id)
		}
	}
	clear(st.errs)
	st.errsMoved = true
	for i := range st.lat {
		st.lat[i].reset()
	}
	s.store.ResetStats()
	st.pub.expireNs.Store(0)
	st.pub.evictedClients.Store(0)
	st.pub.overTotal.Store(0)
	st.pub.replOut.Store(0)
	st.trafficBase = s.drv.Traffic()
}

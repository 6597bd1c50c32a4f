package shard

import (
	"golang.org/x/sys/unix"
)

// Connection migration: a connection whose keyed commands mostly go to
// one other shard (a client working on one hash tag, a pool dedicated to
// a tenant) pays a hop for nearly every command; handed over to that
// shard, it pays none. The shard counts, per connection, where each
// command with keys runs (vote: Owned is this shard, Hop its owner) in
// windows of migWindow such commands; a window in which at least
// migShare of them went to the one other shard its first command went to
// makes the connection want to move there, unless it moved (or a move
// was given up) less than migCooldown ago: a client whose keys change
// shards every few commands never bounces.
//
// The move, in order:
//   - want: the connection reads no further command (serve stops, as
//     behind a barrier) and waits until every reply before it is out of
//     its queue (fill), so no reply is in flight on any shard;
//   - then, if its state can move (movable) and migrate-connections is
//     still yes, the driver releases it (ioloop.Driver.Release): the
//     output already written is sent, the receive in flight completes,
//     and the socket with its unconsumed input (commands received but not
//     run: everything after the command that completed the window) comes
//     back; else reading resumes where it stopped, with a cooldown;
//   - released: the shard forgets the connection, names its new shard
//     for the tracking redirects (Group.clientShard), and sends it in a
//     msgMigrate;
//   - arrive: the destination's driver takes the socket and the input
//     (ioloop.Driver.Take), and serves the input at once.
// The conn value itself (its client's ID, name, database, protocol,
// CLIENT REPLY mode, ACL user, counters) moves as it is: nothing else of
// it lives on the shard. So no reply is lost or reordered: the replies
// before the move left from the old ring before the socket left it, and
// the commands after it run on the new one in the order received.
//
// States that never move (movable): what lives on the shard besides the
// conn, or a message in flight would look for there. A connection moves
// only with no reply pending (a hop, a txn, a script, a SAVE: the queue
// is empty, no barrier), not blocked (its waiters are registered on the
// keys' shards under its home), not inside MULTI nor watching keys (the
// watches are registered under the home), not subscribed (the
// subscriptions are its shard's pubsub.Registry's), without tracking (the
// key owners' tables name its home), not a MONITOR, a replica's link or
// the master link, not paused by CLIENT PAUSE, not holding replies for
// the AOF's disk (appendfsync always), and not while a long script makes
// the server busy; a TLS connection never moves (net/tlsio cannot hand a
// tls.Conn's record state over). Such a connection keeps counting, and
// moves once its state allows, at the end of a later window. A client
// another's tracking redirects to misses no invalidation while it moves:
// one that reaches the shard it left goes on to the one it moves to,
// behind the msgMigrate, and one that reaches that shard first waits for
// it there (tracking.go, redirMoved).

// Hysteresis: a window of migWindow keyed commands, migShare of which
// (in tenths) must go to one other shard, and no second move within
// migCooldown milliseconds of the last move or given-up move.
const (
	migWindow   = 64
	migShare    = 9
	migCooldown = 1000
)

// migration is a connection's window and move state.
type migration struct {
	dst   int   // the shard the window's first keyed command went to
	n     int   // keyed commands in the window so far
	hits  int   // of them, those that went to dst
	at    int64 // the last move or given-up move, unix ms
	state migState
}

type migState uint8

const (
	migNone      migState = iota
	migWant               // reads no more; moves once its queue is empty
	migReleasing          // the driver is releasing the socket
)

// vote counts a keyed command of c that runs on shard dst, and ends the
// window when it is full.
func (s *Shard) vote(c *conn, dst int) {
	m := &c.mig
	if m.n == 0 {
		m.dst = dst
	}
	m.n++
	if dst == m.dst {
		m.hits++
	}
	if m.n < migWindow {
		return
	}
	if m.dst != s.id && m.hits*10 >= m.n*migShare && s.now-m.at >= migCooldown && m.state == migNone {
		m.state = migWant
	}
	m.n, m.hits = 0, 0
}

// movable reports whether c's state can move to another shard (see
// above).
func (s *Shard) movable(c *conn) bool {
	return len(c.queue) == 0 && !c.barrier && !c.running && !c.paused && !c.closing && !c.dead && !c.cl.Close &&
		c.blocked == nil && (c.tx == nil || !c.tx.on && len(c.tx.watched) == 0) &&
		!c.subscribed() && !c.cl.Track.On && !c.monitor && c.repl == nil && !c.cl.Master &&
		len(c.held) == 0 && !c.heldNow && s.group.busy.Load() == 0
}

// tryMove starts c's move once its queue is empty, or gives it up when
// its state cannot move: reading resumes, and the cooldown starts.
func (s *Shard) tryMove(c *conn) {
	if c.mig.state != migWant || len(c.queue) > 0 || c.dead {
		return
	}
	dst := c.mig.dst
	if s.migrate && s.movable(c) && s.drv.Release(c.id, func(fd int, input []byte) { s.released(c, dst, fd, input) }) {
		c.mig.state = migReleasing
		return
	}
	c.mig = migration{at: s.now}
	if !c.closing {
		s.serve(c)
	}
}

// released runs when the driver gave c's socket back: c leaves this
// shard for dst.
func (s *Shard) released(c *conn, dst, fd int, input []byte) {
	delete(s.conns, c.id)
	delete(s.trk.ids, c.cl.ID)
	s.group.clientShard.Store(c.cl.ID, dst)
	s.stats.migrated++
	s.post(dst, msgMigrate, &migrateMsg{c: c, fd: fd, input: input})
}

// migrateMsg is a connection handed over to another shard (msgMigrate):
// the conn value, which moves whole (the destination owns it from the
// delivery on), its socket and the input its driver had not consumed.
type migrateMsg struct {
	c     *conn
	fd    int
	input []byte
}

func (m *migrateMsg) handle(s *Shard, _ msgKind) { s.arrive(m.c, m.fd, m.input) }

// arrive makes c, released by another shard, a connection of this one
// and serves the commands it brought.
func (s *Shard) arrive(c *conn, fd int, input []byte) {
	id, err := s.drv.Take(fd, input)
	if err != nil { // shut down: the client is gone
		unix.Close(fd)
		c.dead = true
		s.group.clientShard.Delete(c.cl.ID)
		s.group.clients.Add(-1)
		s.arrived(c, true)
		return
	}
	c.id = id
	c.mig = migration{at: s.now}
	c.softSince = 0
	s.conns[id] = c
	s.trk.ids[c.cl.ID] = c
	s.arrived(c, false)
	if s.group.stopping.Load() {
		s.closeConn(c)
		return
	}
	s.serve(c)
}

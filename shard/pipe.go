package shard

import (
	"errors"
	"net"
	"strconv"
	"sync"

	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/persistence/repl"
)

// A pipe is a connection with no socket: a replica's lane into the
// command path (Group.Apply, repl.Host). The link's goroutine hands it
// commands (Send); a message carries them into the shard's turn, where
// they run as a socket's input would, as the primary's (cl.Master); their
// replies go, at the end of each turn that wrote some, to the link's
// callback, on the shard's goroutine. Nothing is written to a socket to
// be read back: no system call per batch but the wake of a sleeping
// shard, and no reply parsed by a reader of its own.
//
// What must stay true: a pipe's conn is in s.conns under an ID that no
// driver gives (generation 0, and the slot's top bit, which the
// simulator's small IDs never reach), so every driver call with it does
// nothing; its input and output are the pipe's (Shard.input, consume,
// rawOut); its close finishes, as OnClose's work, in a later step of
// the turn (closeConn), and the callback hears of it last.

// pipe is a pipe's two sides: the shard's, owned by its goroutine, and
// the sender's, under mu.
type pipe struct {
	c *conn
	s *Shard
	// in holds the commands received, from rd on not yet consumed; out
	// the replies written since the end of the last turn; answered gets
	// them (closed: the pipe is gone, and nothing follows).
	in       []byte
	rd       int
	out      []byte
	answered func(replies []byte, closed bool)
	// told is the bytes of in not consumed as last told to the sender
	// (unrun), -1 once more came in since; spare is the buffer the sender
	// appends to next.
	told  int
	spare []byte

	mu sync.Mutex
	// room wakes a sender waiting for the unrun bytes to go below
	// pipeRoom.
	room   sync.Cond
	queued []byte // sent, not yet taken by the shard
	posted bool   // a message to take them is on its way
	unrun  int    // bytes sent and not yet consumed
	closed bool
}

// pipeRoom is how many bytes a pipe holds not yet run before Send waits:
// about what a socket pair's buffers held. What the link read and the
// lanes did not run yet waits in its history for the sub-replicas.
const pipeRoom = 256 << 10

var errPipeClosed = errors.New("the lane into the command path is closed")

// Apply implements repl.Host: a pipe on shard lane (modulo the shard
// count), its connection marked as the master's.
func (g *Group) Apply(lane int, answered func(replies []byte, closed bool)) (repl.Lane, error) {
	s := g.shards[lane%len(g.shards)]
	g.repl.mu.Lock()
	primary := net.JoinHostPort(g.repl.host, strconv.Itoa(g.repl.port))
	g.repl.mu.Unlock()
	made := make(chan *pipe, 1)
	s.deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) { made <- s.openPipe(primary, answered) })}})
	select {
	case p := <-made:
		return p, nil
	case <-s.done:
		return nil, errPipeClosed
	}
}

// openPipe makes a pipe and its connection, the master's: CLIENT LIST
// shows the primary's address as its addr, as Redis shows its master
// client's.
func (s *Shard) openPipe(primary string, answered func(replies []byte, closed bool)) *pipe {
	s.pipeSeq++
	c := s.newConn(ioloop.ConnID(1<<31 | s.pipeSeq))
	c.cl.Authed, c.cl.Master = true, true
	c.cl.Addr = primary
	p := &pipe{c: c, s: s, answered: answered}
	p.room.L = &p.mu
	c.pipe = p
	// A client (connected_clients counts the master's, as Redis), but no
	// connection received (total_connections_received).
	s.group.clients.Add(1)
	s.conns[c.id] = c
	s.opened(c)
	s.pipes = append(s.pipes, p)
	return p
}

// Send implements repl.Lane.
func (p *pipe) Send(cmds []byte) error {
	p.mu.Lock()
	for p.unrun > pipeRoom && !p.closed {
		p.room.Wait()
	}
	if p.closed {
		p.mu.Unlock()
		return errPipeClosed
	}
	p.queued = append(p.queued, cmds...)
	p.unrun += len(cmds)
	post := !p.posted
	p.posted = true
	p.mu.Unlock()
	if post {
		p.s.deliver([]message{{kind: msgPipe, data: p}})
	}
	return nil
}

// Close implements repl.Lane: the shard closes the connection in its
// next turn; what was sent and not yet run may not run.
func (p *pipe) Close() {
	p.mu.Lock()
	was := p.closed
	p.closed = true
	p.room.Broadcast()
	p.mu.Unlock()
	if !was {
		p.s.deliver([]message{{kind: msgPipe, data: pipeClose{p}}})
	}
}

// handle takes the commands sent (msgPipe) into the connection's input
// and serves it (as OnData, but in the inbox's order: the messages
// before it ran, those after it wait).
func (p *pipe) handle(s *Shard, _ msgKind) {
	p.mu.Lock()
	q := p.queued
	p.queued, p.posted = p.spare[:0], false
	p.mu.Unlock()
	c := p.c
	if c.closing || c.dead {
		p.spare = q[:0]
		return
	}
	if p.rd > 0 && !c.running {
		// The consumed bytes go, unless a command of the connection is
		// running (a loop nested in it that ran messages): its arguments
		// are in them, and serve takes the new bytes after it.
		p.in = p.in[:copy(p.in, p.in[p.rd:])]
		p.rd = 0
	}
	p.in = append(p.in, q...)
	p.spare = q[:0]
	p.told = -1 // the sender counts q as queued: tell it again
	if !c.running {
		c.cl.LastMs = s.now
		s.serve(c)
	}
}

// pipeClose is a pipe whose sender closed it (msgPipe).
type pipeClose struct{ p *pipe }

func (m pipeClose) handle(s *Shard, _ msgKind) { s.closeConn(m.p.c) }

// pipeGone is a pipe's closed connection (closeConn), in a later step of
// the turn: its last replies and its close go to the sender, and the
// connection is gone as after OnClose.
type pipeGone struct{ p *pipe }

func (m pipeGone) handle(s *Shard, _ msgKind) { s.dropPipe(m.p) }

// dropPipe ends p: the replies it wrote, then the close, go to its
// sender, and its connection is gone.
func (s *Shard) dropPipe(p *pipe) {
	for i, q := range s.pipes {
		if q == p {
			s.pipes = append(s.pipes[:i], s.pipes[i+1:]...)
			break
		}
	}
	c := p.c
	if c.dead {
		return
	}
	if len(p.out) > 0 {
		p.answered(p.out, false)
	}
	p.out, p.in, p.rd = nil, nil, 0
	p.mu.Lock()
	p.closed = true
	p.queued = nil
	p.room.Broadcast()
	p.mu.Unlock()
	s.gone(c)
	p.answered(nil, true)
}

// flushPipes hands each pipe's replies of the turn to its sender, and
// tells the sender how much of what it sent is not yet run.
func (s *Shard) flushPipes() {
	for _, p := range s.pipes {
		if len(p.out) > 0 {
			p.answered(p.out, false)
			p.out = p.out[:0]
		}
		if n := len(p.in) - p.rd; n != p.told {
			p.told = n
			p.mu.Lock()
			p.unrun = len(p.queued) + n
			p.room.Broadcast()
			p.mu.Unlock()
		}
	}
}

// input is c's received bytes not yet consumed: its pipe's, or its
// socket's in the driver.
func (s *Shard) input(c *conn) []byte {
	if p := c.pipe; p != nil {
		return p.in[p.rd:len(p.in):len(p.in)]
	}
	return s.drv.Input(c.id)
}

// consume marks the first n bytes of c's input used.
func (s *Shard) consume(c *conn, n int) {
	if p := c.pipe; p != nil {
		if p.rd += n; p.rd >= len(p.in) {
			p.in, p.rd = p.in[:0], 0
		}
		return
	}
	s.drv.Consume(c.id, n)
}

// rawOut is where c's output goes out: its pipe's replies, or the
// driver's output buffer (output is the AOF's choice between this and
// the held replies).
func (s *Shard) rawOut(c *conn) *[]byte {
	if p := c.pipe; p != nil {
		return &p.out
	}
	return s.drv.Output(c.id)
}

package shard

import (
	"sync"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/persistence/repl"
)

// The write stream on flows (persistence/repl's doc.go and split.go):
// a radish replica holding flows gets the merged stream split, shard
// i's runs of commands on flow i and the merger's own bytes on its
// replication connection, each framed with its offset in the merged
// stream, which stays the one history (backlog, offsets, ACKs, chained
// replicas). The backlog's index (primState.spans) says whose each of
// its bytes are, so a partial resync splits the backlog from any offset
// the same way. A flow stays open after its part of a full sync: its
// flowStream takes the socket from the part's sender into the shard's
// loop and sends the frames queued meanwhile, then the rest as the
// merger hands them over.

// flowStream is one flow's frames of the stream on their way. Once its
// part of a full sync is sent, the flow's socket becomes a connection of
// its shard's loop (attach), without a conn: the shard's ring sends its
// frames with the turn's other sends, so a turn that wrote costs no
// goroutine to wake and no write of its own. The merger appends frames
// (p.mu held) on whichever goroutine runs it: on the flow's own shard
// they go to the connection's output at once, from anywhere else (or
// before the attach) they wait in buf, and a message takes them there.
// The replica puts the frames in place by their offsets, so those that
// wait may leave after later ones.
type flowStream struct {
	g     *Group
	shard int // whose loop writes the flow
	// mu guards the fields below; taken after p.mu.
	mu     sync.Mutex
	id     ioloop.ConnID // the flow's connection, when on
	on     bool
	buf    []byte // frames not yet in the connection's output
	posted bool   // a message to take buf is on its way
	closed bool
}

func newFlowStream(g *Group, shard int) *flowStream {
	return &flowStream{g: g, shard: shard}
}

// handle takes the queued frames to the connection's output: a write
// from another shard posted it.
func (f *flowStream) handle(s *Shard, _ msgKind) {
	f.mu.Lock()
	f.posted = false
	if f.on {
		s.flowOutput(f)
	}
	f.mu.Unlock()
}

// write queues b (copied); src is the shard calling, nil off the shards.
// A flow whose queue would pass the replica class's hard output limit
// (before its attach, or while the message taking it is on its way) is
// closed, as flowOutput closes one whose connection's output would.
func (f *flowStream) write(src *Shard, b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if hard := f.g.conf.Snapshot().OutputLimits[config.ClassReplica].Hard; hard > 0 && int64(len(f.buf)+len(b)) >= hard {
		f.g.log.Warn("closing a replication flow whose queue exceeded the replica output buffer limit", shardField(f.shard),
			zap.Int("queued", len(f.buf)+len(b)))
		f.closeLocked(src)
		return
	}
	f.buf = append(f.buf, b...)
	switch {
	case !f.on: // the attach takes it
	case src != nil && src.id == f.shard:
		src.flowOutput(f)
	case !f.posted:
		f.posted = true
		batch := []message{{kind: msgRepl, data: f}}
		if dst := f.g.shards[f.shard]; src != nil {
			dst.deliverBy(src, batch)
		} else {
			dst.deliver(batch)
		}
	}
}

// attach makes fd, the flow's socket, a connection of the flow's shard
// and sends the frames queued meanwhile. Any goroutine.
func (f *flowStream) attach(fd int) {
	f.g.shards[f.shard].deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.closed {
			unix.Close(fd)
			return
		}
		id, err := s.drv.Take(fd, nil)
		if err != nil { // shutting down
			unix.Close(fd)
			f.closed, f.buf = true, nil
			return
		}
		if s.flows == nil {
			s.flows = map[ioloop.ConnID]*flowStream{}
		}
		s.flows[id] = f
		f.id, f.on = id, true
		s.flowOutput(f)
	})}})
}

// close stops the stream: its connection is aborted (its output
// dropped). Any goroutine.
func (f *flowStream) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closeLocked(nil)
	}
}

// closeLocked is close with f.mu held and f not closed; src is the
// shard calling, nil off the shards. A flow not yet attached has its
// socket closed by the attach.
func (f *flowStream) closeLocked(src *Shard) {
	f.closed, f.buf = true, nil
	if !f.on {
		return
	}
	if src != nil && src.id == f.shard {
		src.drv.Abort(f.id)
		return
	}
	batch := []message{{kind: msgRepl, data: runMsg(func(s *Shard) {
		if s.flows[f.id] == f {
			s.drv.Abort(f.id)
		}
	})}}
	if dst := f.g.shards[f.shard]; src != nil {
		dst.deliverBy(src, batch)
	} else {
		dst.deliver(batch)
	}
}

// flowOutput moves f's queued frames to its connection's output; a flow
// whose replica lets more than the replica class's hard output limit
// wait is aborted, as its replication connection would be. On f's shard,
// f.mu held.
func (s *Shard) flowOutput(f *flowStream) {
	if len(f.buf) == 0 || f.closed {
		return
	}
	out := s.drv.Output(f.id)
	*out = append(*out, f.buf...)
	s.stats.pub.replOut.Add(int64(len(f.buf)))
	f.buf = f.buf[:0]
	if hard := s.conf.OutputLimits[config.ClassReplica].Hard; hard > 0 && int64(s.drv.Pending(f.id)) >= hard {
		s.group.log.Warn("closing a replication flow that exceeded the replica output buffer limit", shardField(s.id),
			zap.Int("pending", s.drv.Pending(f.id)))
		f.closed, f.buf = true, nil
		s.drv.Abort(f.id)
	}
}

// flowEvent takes the loop's events of a flow's connection: the replica
// sends nothing on it (what comes is dropped); once it closes the
// stream is closed. Events of a connection that is no flow's are
// ignored.
func (s *Shard) flowEvent(id ioloop.ConnID, closed bool) {
	f := s.flows[id]
	if f == nil {
		return
	}
	if !closed {
		s.drv.Consume(id, len(s.drv.Input(id)))
		return
	}
	delete(s.flows, id)
	f.mu.Lock()
	f.closed, f.on, f.buf = true, false, nil
	f.mu.Unlock()
}

// streamFlows has r's stream go on its flows from now on, each flow's
// frames queued until its socket is handed over (attached at once when
// now is set: a partial resync, no part to send first). p.mu held.
func (g *Group) streamFlows(r *replica, now bool) {
	fs := r.flows
	fs.streams = make([]*flowStream, len(fs.fds))
	fs.out = make([][]byte, len(fs.fds))
	for i := range fs.streams {
		fs.streams[i] = newFlowStream(g, i)
		if now {
			fs.streams[i].attach(fs.fds[i])
			fs.fds[i] = -2
		}
	}
	r.split = true
}

// flowsOpen reports whether every flow of fs is attached and not yet
// taken. p.mu held.
func (fs *flowSet) flowsOpen() bool {
	for _, fd := range fs.fds {
		if fd < 0 {
			return false
		}
	}
	return true
}

// sendSplit sends b, the merged stream's bytes up to offset end whose
// runs spans covers, to r split: its flows get their frames, its
// connection the rest's (buffered until its full sync's reply is sent);
// src is the shard calling, nil off the shards. p.mu held.
func (g *Group) sendSplit(src *Shard, r *replica, b []byte, end int64, spans []repl.Span) {
	fs := r.flows
	for i := range fs.out {
		fs.out[i] = fs.out[i][:0]
	}
	fs.main = repl.Split(fs.main[:0], fs.out, b, end, spans)
	main := fs.main
	for i, o := range fs.out {
		if len(o) > 0 {
			fs.streams[i].write(src, o)
		}
	}
	if len(main) == 0 {
		return
	}
	if r.state == "online" {
		g.sendTo(src, r, main)
	} else {
		r.buffer = append(r.buffer, main...)
	}
}

// localCommand implements repl.Options.Local: a command that names keys
// touches only those (a primary's shard's writes of one key are all in
// its flow), so a replica may run it in parallel with other flows'.
func localCommand(args [][]byte) bool {
	spec := command.Lookup(args[0])
	if spec == nil || !spec.HasKeys() {
		return false
	}
	var buf [8]int
	keys, ok := spec.Keys(args, buf[:0])
	return ok && len(keys) > 0
}

package shard

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/command"
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
// flowStream takes the socket from the part's sender and sends the
// frames queued meanwhile, then the rest as the merger hands them over.

// flowStream is one flow's frames of the stream on their way: the
// merger appends (p.mu held), a goroutine of its own sends them once it
// has the flow's socket, and closes it when the replica goes (close) or
// a send fails.
type flowStream struct {
	mu      sync.Mutex
	more    *sync.Cond
	fd      int // -1 until attached, -2 once closed
	buf     []byte
	spare   []byte
	closed  bool
	timeout time.Duration
}

func newFlowStream(timeout time.Duration) *flowStream {
	f := &flowStream{fd: -1, timeout: timeout}
	f.more = sync.NewCond(&f.mu)
	return f
}

// write queues b (copied).
func (f *flowStream) write(b []byte) {
	f.mu.Lock()
	if !f.closed {
		f.buf = append(f.buf, b...)
		f.more.Signal()
	}
	f.mu.Unlock()
}

// attach hands the stream the flow's socket and starts sending.
func (f *flowStream) attach(fd int) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		unix.Close(fd)
		return
	}
	f.fd = fd
	f.mu.Unlock()
	go f.send(fd)
}

// close stops the stream: a send in progress fails, the socket closes.
func (f *flowStream) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed, f.buf = true, nil
	if f.fd >= 0 {
		unix.Shutdown(f.fd, unix.SHUT_RDWR)
	}
	f.more.Signal()
}

// send is the stream's goroutine: it sends what is queued until closed
// or a send fails (or makes no progress for the timeout).
func (f *flowStream) send(fd int) {
	stalled := time.AfterFunc(f.timeout, func() {
		f.mu.Lock()
		if f.fd >= 0 {
			unix.Shutdown(f.fd, unix.SHUT_RDWR)
		}
		f.mu.Unlock()
	})
	stalled.Stop()
	defer func() {
		stalled.Stop()
		f.mu.Lock()
		f.closed, f.buf, f.fd = true, nil, -2
		unix.Close(fd)
		f.mu.Unlock()
	}()
	for {
		f.mu.Lock()
		for len(f.buf) == 0 && !f.closed {
			f.more.Wait()
		}
		if f.closed {
			f.mu.Unlock()
			return
		}
		b := f.buf
		f.buf = f.spare[:0]
		f.mu.Unlock()
		stalled.Reset(f.timeout)
		_, err := flowTransport.Send(fd, b)
		stalled.Stop()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.spare = b[:0]
		f.mu.Unlock()
	}
}

// streamFlows has r's stream go on its flows from now on, each flow's
// frames queued until its socket is handed over (attached at once when
// now is set: a partial resync, no part to send first). p.mu held.
func (g *Group) streamFlows(r *replica, now bool) {
	fs := r.flows
	timeout := time.Duration(g.conf.Snapshot().ReplTimeout) * time.Second
	fs.streams = make([]*flowStream, len(fs.fds))
	fs.out = make([][]byte, len(fs.fds))
	for i := range fs.streams {
		fs.streams[i] = newFlowStream(timeout)
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
			fs.streams[i].write(o)
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

package shard

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/rdb"
	"github.com/radish-kv/radish/persistence/snapshot"
	"github.com/radish-kv/radish/rdma"
)

// Full-sync flows: a radish replica's full sync takes one connection per
// primary shard, on which that shard's part of the payload goes as an
// RDB file of its own, in parallel with the others and as the shard
// writes it (persistence/repl's doc.go has the protocol).
//
// The replica's handshake asks with REPLCONF radish-flows <its shards>
// (redis-server refuses the option: a redis replica never gets flows);
// the answer +FLOWS <shards> <token> names this server's shard count and
// a token for the flows. Each flow connection says REPLCONF radish-flow
// <token> <i>: its shard detaches the socket from its loop (the replica
// sends nothing more on it) and answers +OK on it; from then on only
// the goroutine that sends part i writes it, through the group's
// transport, and then the flow's stream (flowstream.go), which closes
// it. A full sync of a replica holding flows sends
// +FULLRESYNC and $FLOWS:<n> on its connection, then the stream from the
// cut, as it would send the one payload.

// flowSet is one replica connection's flows: fds[i] is flow i's
// detached socket (-1 until it comes, -2 once a sender took it: at the
// cut, or when it came after the cut, once the part was written). p.mu
// guards it.
type flowSet struct {
	token string
	fds   []int
	full  *fullSync // the full sync sending on them, once PSYNC took one
	// streams are the flows' frames of the write stream, once the
	// replica's stream goes on them (flowstream.go); out and main are
	// sendSplit's.
	streams []*flowStream
	out     [][]byte
	main    []byte
}

// flowsHello answers REPLCONF radish-flows <n> on a replica's connection:
// +FLOWS <shards> <token>.
func (s *Shard) flowsHello(c *conn, args [][]byte) bool {
	if len(args) != 3 || !strings.EqualFold(string(args[1]), "radish-flows") {
		return false
	}
	g := s.group
	if c.repl == nil {
		c.repl = &replica{ip: hostOf(c.cl.Addr)}
	}
	fs := &flowSet{token: newReplID(), fds: make([]int, len(g.shards))}
	for i := range fs.fds {
		fs.fds[i] = -1
	}
	p := &g.prim
	p.mu.Lock()
	if c.repl.flows != nil {
		g.closeFlows(c.repl.flows)
	}
	c.repl.flows = fs
	if p.flowSets == nil {
		p.flowSets = map[string]*flowSet{}
	}
	p.flowSets[fs.token] = fs
	p.mu.Unlock()
	line := fmt.Appendf(nil, "+FLOWS %d %s\r\n", len(g.shards), fs.token)
	s.reply(c, func(w *resp.Writer) { w.B = append(w.B, line...) })
	return true
}

// flowAttach takes REPLCONF radish-flow <token> <i>: the connection
// becomes flow i of the replica connection that holds token.
func (s *Shard) flowAttach(c *conn, args [][]byte) bool {
	if len(args) != 4 || !strings.EqualFold(string(args[1]), "radish-flow") {
		return false
	}
	g := s.group
	p := &g.prim
	i, err := strconv.Atoi(string(args[3]))
	p.mu.Lock()
	fs := p.flowSets[string(args[2])]
	if fs == nil || err != nil || i < 0 || i >= len(fs.fds) || fs.fds[i] != -1 {
		p.mu.Unlock()
		s.reply(c, func(w *resp.Writer) { w.Error("ERR no such replication flow") })
		return true
	}
	fd, err := s.detachFlow(c.id)
	if err != nil {
		p.mu.Unlock()
		g.log.Warn("replication flow: detaching its connection", zap.Error(err))
		s.closeConn(c) // the replica fails the flow now, not after repl-timeout
		return true
	}
	// The socket's buffer is empty: a short write of its own goes out.
	unix.Write(fd, []byte("+OK\r\n"))
	fs.fds[i] = fd
	if fs.full != nil && fs.full.parts[i] != nil {
		f := g.sendFlow(fs, i)
		f.Write(fs.full.parts[i])
		f.finish(nil)
	}
	p.mu.Unlock()
	return true
}

// closeFlows closes whichever flows of fs no sender holds and forgets
// fs. p.mu held.
func (g *Group) closeFlows(fs *flowSet) {
	delete(g.prim.flowSets, fs.token)
	for i, fd := range fs.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
		fs.fds[i] = -2
	}
	for _, st := range fs.streams {
		st.close()
	}
}

// flowTransport is what the flows' payloads go through.
var flowTransport rdma.Transport = rdma.TCP{}

// flowBehind is how much of a part a flow may hold unsent before the
// shard's slices wait for it (bgSave.busy).
const flowBehind = 4 << 20

// flowOut is one flow's part on its way: the shard's Writer appends to
// it on the loop (its slices, as written, or the whole part at once), a
// goroutine of its own sends what it holds through flowTransport, framed
// as $EOF:<mark> (the length is not known before the end), the RDB
// header (shard 0's with the FUNCTION libraries), the part, the EOF and
// checksum, and the mark; then closes the flow, or hands it to the
// write stream that follows on it (next).
type flowOut struct {
	mu     sync.Mutex
	more   *sync.Cond
	buf    []byte // written, not yet taken by the sender
	spare  []byte
	ended  bool
	err    error // the writer's, at the end
	failed bool  // the sender gave up: what is written is dropped
	// next, when set, takes the flow once the part is sent: the write
	// stream follows on it.
	next *flowStream
	// sent, when set, counts the bytes sent (the Group's replSent).
	sent *atomic.Int64
}

// sendFlow starts sending shard i's part of fs's full sync on flow i.
// p.mu held.
func (g *Group) sendFlow(fs *flowSet, i int) *flowOut {
	fd := fs.fds[i]
	fs.fds[i] = -2
	f := &flowOut{sent: &g.replSent}
	f.more = sync.NewCond(&f.mu)
	if fs.streams != nil {
		f.next = fs.streams[i]
	}
	c := g.conf.Snapshot()
	opt := snapshot.Options{Compress: c.RDBCompression, Checksum: c.RDBChecksum, Time: time.Now().UnixMilli()}
	if i == 0 {
		opt.Functions = g.scripts.Codes()
	}
	used := g.shards[i].stats.pub.usedMemory.Load()
	timeout := time.Duration(c.ReplTimeout) * time.Second
	go func() {
		start := time.Now()
		n, st, err := f.send(fd, opt, used, timeout)
		if err != nil {
			g.log.Warn("full sync: sending a flow", zap.Int("flow", i), zap.Error(err))
			return
		}
		g.log.Debug("full sync flow sent", zap.Int("flow", i), zap.Int64("bytes", n), zap.String("transport", flowTransport.Name()),
			zap.Int("zerocopy", st.ZeroCopy), zap.Bool("copied", st.Copied), zap.Duration("took", time.Since(start)))
	}()
	return f
}

// flowOf takes flow shard of full sync id, when it goes on flows and the
// flow is open: the shard writes its part there as it goes.
func (g *Group) flowOf(id uint64, shard int) *flowOut {
	p := &g.prim
	p.mu.Lock()
	defer p.mu.Unlock()
	if fs := p.syncs[id]; fs != nil && fs.flows != nil && fs.flows.fds[shard] >= 0 {
		return g.sendFlow(fs.flows, shard)
	}
	return nil
}

// Write implements io.Writer for the shard's Writer; it never fails (a
// flow that failed drops what it is given: the replica starts again).
func (f *flowOut) Write(b []byte) (int, error) {
	f.mu.Lock()
	if !f.failed {
		f.buf = append(f.buf, b...)
		f.more.Signal()
	}
	f.mu.Unlock()
	return len(b), nil
}

// busy reports whether the flow holds flowBehind bytes unsent.
func (f *flowOut) busy() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.buf) >= flowBehind
}

// finish ends the part (err: it could not be written whole).
func (f *flowOut) finish(err error) {
	f.mu.Lock()
	f.ended, f.err = true, err
	f.more.Signal()
	f.mu.Unlock()
}

// send is the sender's goroutine: it sends until the part ended, shuts
// the socket down when nothing goes out for timeout, and closes it.
func (f *flowOut) send(fd int, opt snapshot.Options, used int64, timeout time.Duration) (int64, rdma.Sent, error) {
	var total int64
	var st rdma.Sent
	fail := func(err error) (int64, rdma.Sent, error) {
		f.mu.Lock()
		f.failed, f.buf = true, nil
		f.mu.Unlock()
		return total, st, err
	}
	var fdmu sync.Mutex // the timer's shutdown never meets a closed (reused) fd
	open := true
	stalled := time.AfterFunc(timeout, func() {
		fdmu.Lock()
		if open {
			unix.Shutdown(fd, unix.SHUT_RDWR)
		}
		fdmu.Unlock()
	})
	sent := false
	defer func() {
		stalled.Stop()
		fdmu.Lock()
		open = false
		fdmu.Unlock()
		switch {
		case sent && f.next != nil:
			f.next.attach(fd)
		case f.next != nil:
			unix.Close(fd)
			f.next.close()
		default:
			unix.Close(fd)
		}
	}()
	out := func(b []byte) error {
		s, err := flowTransport.Send(fd, b)
		total += int64(len(b))
		if f.sent != nil {
			f.sent.Add(int64(s.Bytes))
		}
		st.Bytes += s.Bytes
		st.ZeroCopy += s.ZeroCopy
		st.Copied = st.Copied || s.Copied
		stalled.Reset(timeout)
		return err
	}
	mark := newReplID()
	head := snapshot.AppendHeader(nil, opt, used)
	crc := rdb.CRC64(0, head)
	if err := out(append([]byte("$EOF:"+mark+"\r\n"), head...)); err != nil {
		return fail(err)
	}
	for {
		f.mu.Lock()
		for len(f.buf) == 0 && !f.ended {
			f.more.Wait()
		}
		b, ended, werr := f.buf, f.ended, f.err
		f.buf = f.spare[:0]
		f.mu.Unlock()
		if werr != nil {
			return fail(werr)
		}
		if len(b) > 0 {
			crc = rdb.CRC64(crc, b)
			if err := out(b); err != nil {
				return fail(err)
			}
		}
		f.mu.Lock()
		f.spare = b[:0]
		f.mu.Unlock()
		if ended && len(b) == 0 {
			break
		}
	}
	if err := out(append(snapshot.AppendTrailer(nil, opt, crc), mark...)); err != nil {
		return fail(err)
	}
	sent = true
	return total, st, nil
}

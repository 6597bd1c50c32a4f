package shard

import (
	"fmt"
	"strconv"
	"strings"
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
// RDB file of its own, in parallel with the others and as soon as the
// shard has written it (persistence/repl's doc.go has the protocol).
//
// The replica's handshake asks with REPLCONF radish-flows <its shards>
// (redis-server refuses the option: a redis replica never gets flows);
// the answer +FLOWS <shards> <token> names this server's shard count and
// a token for the flows. Each flow connection says REPLCONF radish-flow
// <token> <i>: its shard detaches the socket from its loop (the replica
// sends nothing more on it) and answers +OK on it; from then on only
// the goroutine that sends part i writes it, through the group's
// transport, and closes it. A full sync of a replica holding flows sends
// +FULLRESYNC and $FLOWS:<n> on its connection, then the stream from the
// cut, as it would send the one payload.

// flowSet is one replica connection's flows: fds[i] is flow i's
// detached socket (-1 until it comes, -2 once its part was handed to a
// sender). p.mu guards it.
type flowSet struct {
	token string
	fds   []int
	full  *fullSync // the full sync sending on them, once PSYNC took one
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
	fd, err := s.drv.Detach(c.id)
	if err != nil {
		p.mu.Unlock()
		g.log.Warn("replication flow: detaching its connection", zap.Error(err))
		return true
	}
	// The socket's buffer is empty: a short write of its own goes out.
	unix.Write(fd, []byte("+OK\r\n"))
	fs.fds[i] = fd
	if fs.full != nil && fs.full.parts[i] != nil {
		g.sendFlow(fs, i)
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
}

// flowTransport is what the flows' payloads go through.
var flowTransport rdma.Transport = rdma.TCP{}

// sendFlow hands shard i's part of fs's full sync to a goroutine that
// frames it as an RDB file (shard 0's with the FUNCTION libraries),
// sends it as $<length> on flow i and closes the flow. p.mu held.
func (g *Group) sendFlow(fs *flowSet, i int) {
	fd, body := fs.fds[i], fs.full.parts[i]
	fs.fds[i] = -2
	c := g.conf.Snapshot()
	opt := snapshot.Options{Compress: c.RDBCompression, Checksum: c.RDBChecksum, Time: time.Now().UnixMilli()}
	if i == 0 {
		opt.Functions = g.scripts.Codes()
	}
	used := g.shards[i].stats.pub.usedMemory.Load()
	go func() {
		defer unix.Close(fd)
		head := snapshot.AppendHeader(nil, opt, used)
		crc := rdb.CRC64(rdb.CRC64(0, head), body)
		tail := snapshot.AppendTrailer(nil, opt, crc)
		n := len(head) + len(body) + len(tail)
		start := time.Now()
		var st rdma.Sent
		out := append(fmt.Appendf(nil, "$%d\r\n", n), head...)
		_, err := flowTransport.Send(fd, out)
		if err == nil {
			st, err = flowTransport.Send(fd, body)
		}
		if err == nil {
			_, err = flowTransport.Send(fd, tail)
		}
		if err != nil {
			g.log.Warn("full sync: sending a flow", zap.Int("flow", i), zap.Error(err))
			return
		}
		g.log.Debug("full sync flow sent", zap.Int("flow", i), zap.Int("bytes", n), zap.String("transport", flowTransport.Name()),
			zap.Int("zerocopy", st.ZeroCopy), zap.Bool("copied", st.Copied), zap.Duration("took", time.Since(start)))
	}()
}

package repl

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Host is what a replica's link needs of the server it feeds.
type Host interface {
	// FullSync empties every database and loads the RDB file at path,
	// routing each key to the shard that owns it. Every command the lanes
	// carried before has run by then.
	FullSync(path string) error
	// Apply opens lane l into the server's command path, on its shard l
	// (modulo its count): commands sent on it run in order as the
	// primary's (replica-read-only does not refuse them, and they see no
	// key expired), each answered with one reply. answered gets the
	// replies, whole and in order, as they are written, on a goroutine
	// of the server's that it must not block; closed: the lane is gone,
	// and answered is not called again.
	Apply(l int, answered func(replies []byte, closed bool)) (Lane, error)
}

// Lane is one way into the Host's command path (Host.Apply).
type Lane interface {
	// Send hands the lane whole commands, which it copies. It waits
	// while the lane holds many bytes not yet run, and fails once the
	// lane is closed.
	Send(cmds []byte) error
	// Close closes the lane: what was sent and not yet run may not run.
	Close()
}

// Options configure a replica's link.
type Options struct {
	Addr       string // the primary, host:port
	User, Pass string // masteruser, masterauth
	// ListenPort and AnnounceIP are what REPLCONF tells the primary.
	ListenPort int
	AnnounceIP string
	Dir        string        // where the full sync's RDB file is written
	Timeout    time.Duration // repl-timeout: a link silent this long is dropped
	// ReplID and Offset are the stream this server already holds (its
	// cached primary, or its own history as a primary): PSYNC asks to
	// continue it. An empty ReplID asks for a full sync.
	ReplID string
	Offset int64
	// Backlog is how many of the stream's last bytes the Replica keeps
	// (History): a promoted replica's backlog, from which its primary's
	// other replicas continue.
	Backlog int
	// Flows is this server's shard count when it asks a radish primary
	// for a full sync on flows, one connection per primary shard
	// (flows.go); 0 does not ask.
	Flows int
	// Failover, when set, makes the first PSYNC a FAILOVER's (PSYNC
	// <replid> <offset> FAILOVER: the primary, so far this server's
	// replica, is promoted by it) and gets its reply line, or "-ERR "
	// and the error that came before one. It runs on the link's
	// goroutine and must not call Stop there.
	Failover func(line string)
	// Fsynced, when set, maps the offset applied to the offset whose
	// writes the server's AOF has fsynced (false: the AOF is off), which
	// each ACK then carries as FACK <offset>, as Redis 7.2's replica does
	// (WAITAOF). Called from any of the link's goroutines.
	Fsynced func(applied int64) (int64, bool)
	// TLS, when set, returns the configuration of the links to the
	// primary (tls-replication), read at each connect; nil: plain TCP.
	TLS func() *tls.Config
	// Forward and Reset, when set, serve this server's own replicas
	// (chain.go): Forward gets the stream's bytes as they are applied,
	// each byte once and in order; Reset says the stream changed under
	// them (a full sync loaded, or a +CONTINUE that names a new ID), so
	// they must sync again. Both are called with the link's offsets
	// locked: they must not call back into the Replica.
	Forward func(b []byte)
	Reset   func()
	// Local reports whether a command touches only the keys it names
	// (not FLUSHALL, SWAPDB, FUNCTION ...): on flows, such a command runs
	// on its flow's lane in parallel with the others (apply.go); nil:
	// none does.
	Local func(args [][]byte) bool
	// Read, when set, counts every byte read from the primary, on the
	// replication connection and the flows (INFO's
	// total_net_repl_input_bytes).
	Read *atomic.Int64
	Log  *zap.Logger
}

// States of a replica's link, as ROLE names them.
const (
	StateConnect    = "connect"    // waiting to dial
	StateConnecting = "connecting" // dialing
	StateHandshake  = "handshake"  // PING, AUTH, REPLCONF
	StateSync       = "sync"       // receiving the full sync's RDB
	StateConnected  = "connected"  // applying the stream
)

// Status is a replica's link as INFO replication and ROLE show it.
type Status struct {
	State          string
	ReplID         string // the stream's replication ID
	ReplID2        string // the one before it ("" when none)
	SecondOffset   int64  // where ReplID2's history ends, plus one (-1: none)
	Read, Applied  int64  // offsets read from the primary and applied
	LastIO         time.Time
	DownSince      time.Time // zero: never up
	SyncTotal      int64     // the full sync's RDB size (-1: unknown, an EOF-marked transfer)
	SyncRead       int64
	SyncLastIO     time.Time
	EverConnected  bool
	FullSyncs      int64
	PartialSyncsOK int64
}

// Replica is the link from this server to its primary: it connects,
// shakes hands, loads the full sync's RDB through the Host, then applies
// the command stream on the Host's lanes (Host.Apply), acknowledging the
// offset it applied; it reconnects after any failure with PSYNC, so a
// short cut resumes where it stopped. Its methods are safe for any
// goroutine.
type Replica struct {
	h    Host
	o    Options
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	st   Status
	conn net.Conn // the primary's connection while one is open

	// The offsets: applied moves when the Host has run a command (its
	// reply came back on its lane) and every one before it; pend holds
	// the end offsets of the commands sent not yet applied, in the
	// stream's order, fin which of them ran, head the place of pend[0]
	// counted from the first command ever sent (apply.go).
	off struct {
		sync.Mutex
		pend    []int64
		fin     []bool
		head    int64
		applied int64
		ackAt   int64 // a GETACK waits until applied reaches it (-1: none)
		idle    *sync.Cond
		// hist is the stream's last bytes read, up to offset histEnd;
		// fwd is the offset up to which Forward has them.
		hist    []byte
		histEnd int64
		fwd     int64
	}
	// hold, while held, keeps the stream from sending commands to the
	// Host (Hold).
	hold  sync.Mutex
	lanes []*lane    // the link's goroutine's (apply.go)
	db    int        // the database the stream's last SELECT named
	wmu   sync.Mutex // serializes writes to the primary's connection
	// ackNow asks the link's ACK goroutine for an ACK now: a GETACK's
	// commands ran (on the Host's goroutine, which must not write to the
	// primary itself).
	ackNow chan struct{}
	closed atomic.Bool
	up     atomic.Bool // State is StateConnected
	// broken: a lane closed during this session, which ends it; the
	// applied offset stays where it was (apply.go).
	broken atomic.Bool
}

// Up reports whether the link is up: synced and streaming.
func (r *Replica) Up() bool { return r.up.Load() }

// Start starts a link to o.Addr feeding h.
func Start(h Host, o Options) *Replica {
	r := &Replica{h: h, o: o, stop: make(chan struct{}), done: make(chan struct{}), ackNow: make(chan struct{}, 1)}
	r.off.idle = sync.NewCond(&r.off.Mutex)
	r.off.ackAt = -1
	r.st = Status{State: StateConnect, ReplID: o.ReplID, SecondOffset: -1, Read: o.Offset, Applied: o.Offset, SyncTotal: -1}
	r.off.applied, r.off.histEnd, r.off.fwd = o.Offset, o.Offset, o.Offset
	go r.run()
	return r
}

// Status returns the link's state now.
func (r *Replica) Status() Status {
	r.mu.Lock()
	st := r.st
	r.mu.Unlock()
	r.off.Lock()
	st.Applied = r.off.applied
	r.off.Unlock()
	return st
}

// History returns the stream's last bytes up to the offset applied (at
// most Options.Backlog of them), after Stop.
func (r *Replica) History() []byte {
	r.off.Lock()
	defer r.off.Unlock()
	h := r.off.hist
	if cut := r.off.histEnd - r.off.applied; cut > 0 && cut <= int64(len(h)) {
		h = h[:int64(len(h))-cut]
	} else if cut > 0 {
		h = nil
	}
	return append([]byte(nil), h...)
}

// Stop ends the link: it closes the primary's connection, waits until
// every command sent to the Host has run, and returns the stream it
// holds (the replication ID and the offset applied; no ID when a lane
// closed with commands in flight, which leaves the data no prefix of the
// stream), for a promotion or a PSYNC to another primary. It must not
// be called from a goroutine the Host's lanes need to make progress.
func (r *Replica) Stop() Status {
	if !r.closed.Swap(true) {
		close(r.stop)
		r.mu.Lock()
		if r.conn != nil {
			r.conn.Close()
		}
		r.mu.Unlock()
	}
	<-r.done
	return r.Status()
}

func (r *Replica) setState(s string) {
	r.mu.Lock()
	r.st.State = s
	r.mu.Unlock()
}

func (r *Replica) log() *zap.Logger {
	if r.o.Log == nil {
		return zap.NewNop()
	}
	return r.o.Log
}

// run connects, syncs and streams until Stop, retrying once a second.
func (r *Replica) run() {
	defer close(r.done)
	defer func() {
		r.drain()
		for _, l := range r.lanes {
			l.c.Close()
		}
	}()
	for {
		err := r.session()
		r.mu.Lock()
		if r.st.State == StateConnected || r.st.DownSince.IsZero() && r.st.EverConnected {
			r.st.DownSince = time.Now()
		}
		r.conn = nil
		r.st.State = StateConnect
		r.mu.Unlock()
		r.drain()
		if r.closed.Load() {
			return
		}
		if err != nil {
			r.log().Warn("replication link to the primary failed", zap.String("primary", r.o.Addr), zap.Error(err))
		}
		select {
		case <-r.stop:
			return
		case <-time.After(time.Second):
		}
	}
}

// drain waits until every command sent to the Host was answered.
func (r *Replica) drain() {
	r.off.Lock()
	for len(r.off.pend) > 0 {
		r.off.idle.Wait()
	}
	r.off.Unlock()
}

// errStopped ends a session that Stop interrupted.
var errStopped = errors.New("replication stopped")

// session is one connection to the primary: handshake, PSYNC, the full
// sync when the primary asks for one, then the stream until it fails.
func (r *Replica) session() (err error) {
	// A FAILOVER's outcome is known at its PSYNC's reply, or at the
	// error that came first.
	failover := r.o.Failover
	r.o.Failover = nil
	if failover != nil {
		defer func() {
			if failover != nil && err != nil {
				failover("-ERR " + err.Error())
			}
		}()
	}
	r.setState(StateConnecting)
	c, err := r.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	r.mu.Lock()
	if r.closed.Load() {
		r.mu.Unlock()
		return errStopped
	}
	r.conn = c
	r.st.State = StateHandshake
	r.mu.Unlock()
	br := bufio.NewReaderSize(c, 64<<10)
	if err := r.handshake(c, br); err != nil {
		return err
	}
	flows, err := r.openFlows(c, br)
	if err != nil {
		return err
	}
	in := r.receive(flows)
	defer in.end()
	if err := r.lane(0); err != nil {
		return err
	}
	r.broken.Store(false)
	r.off.Lock()
	applied := r.off.applied
	r.off.Unlock()
	r.mu.Lock()
	id := r.st.ReplID
	r.mu.Unlock()
	psync := []string{"PSYNC", "?", "-1"}
	if id != "" {
		psync = []string{"PSYNC", id, strconv.FormatInt(applied+1, 10)}
	}
	if failover != nil {
		psync = append(psync, "FAILOVER")
	}
	line, err := r.command(c, br, psync...)
	if err != nil {
		return err
	}
	if failover != nil {
		failover(line)
		failover = nil
	}
	// The stream, from the replication connection, or put together from
	// its frames on the flows and that connection.
	var src io.Reader = &linkReader{c: c, br: br, timeout: r.o.Timeout}
	var j *joiner
	split := false
	switch {
	case strings.HasPrefix(line, "+FULLRESYNC"):
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("bad FULLRESYNC reply %q", line)
		}
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("bad FULLRESYNC reply %q", line)
		}
		if split, err = r.fullSync(c, br, f[1], off, in); err != nil {
			return err
		}
		if split {
			src, j = in.stream(c, br, off), in.j
		}
	case strings.HasPrefix(line, "+CONTINUE"):
		f := strings.Fields(line)
		r.mu.Lock()
		shifted := false
		if len(f) >= 2 && f[1] != r.st.ReplID {
			r.st.ReplID2, r.st.SecondOffset, r.st.ReplID = r.st.ReplID, applied+1, f[1]
			shifted = true
		}
		r.st.PartialSyncsOK++
		r.st.Read = applied
		r.mu.Unlock()
		if shifted { // as Redis: the sub-replicas learn the new ID by syncing again
			r.reset()
		}
		if split = len(f) == 3 && f[2] == "flows" && in != nil; split {
			src, j = in.stream(c, br, applied), in.j
		}
		r.log().Info("partial resynchronization with the primary", zap.String("primary", r.o.Addr), zap.Int64("offset", applied+1),
			zap.Bool("flows", split))
	default:
		return fmt.Errorf("PSYNC: %s", line)
	}
	if !split {
		in.end() // done with, or not needed
	}
	r.mu.Lock()
	r.st.State, r.st.EverConnected, r.st.DownSince, r.st.LastIO = StateConnected, true, time.Time{}, time.Now()
	r.mu.Unlock()
	r.up.Store(true)
	defer r.up.Store(false)
	stopAck := make(chan struct{})
	defer close(stopAck)
	go r.ackEverySecond(c, stopAck)
	return r.stream(src, j)
}

// linkReader reads the replication connection, which fails once silent
// for timeout.
type linkReader struct {
	c       net.Conn
	br      *bufio.Reader
	timeout time.Duration
}

func (l *linkReader) Read(b []byte) (int, error) {
	l.c.SetReadDeadline(time.Now().Add(l.timeout))
	return l.br.Read(b)
}

// handshake is PING, AUTH, REPLCONF listening-port and ip-address, and
// REPLCONF capa, as a Redis 7 replica sends them.
func (r *Replica) handshake(c net.Conn, br *bufio.Reader) error {
	line, err := r.command(c, br, "PING")
	if err != nil {
		return err
	}
	// As Redis: an authentication error to PING is fine, AUTH follows.
	if line[0] == '-' && !strings.HasPrefix(line, "-NOAUTH") && !strings.HasPrefix(line, "-NOPERM") &&
		!strings.HasPrefix(line, "-ERR operation not permitted") {
		return fmt.Errorf("error reply to PING from the primary: %s", line)
	}
	if r.o.Pass != "" {
		args := []string{"AUTH", r.o.Pass}
		if r.o.User != "" {
			args = []string{"AUTH", r.o.User, r.o.Pass}
		}
		if line, err = r.command(c, br, args...); err != nil {
			return err
		}
		if line[0] == '-' {
			return fmt.Errorf("unable to AUTH to the primary: %s", line)
		}
	}
	if line, err = r.command(c, br, "REPLCONF", "listening-port", strconv.Itoa(r.o.ListenPort)); err != nil {
		return err
	}
	if line[0] == '-' {
		r.log().Info("the primary does not understand REPLCONF listening-port", zap.String("reply", line))
	}
	if r.o.AnnounceIP != "" {
		if line, err = r.command(c, br, "REPLCONF", "ip-address", r.o.AnnounceIP); err != nil {
			return err
		}
		if line[0] == '-' {
			r.log().Info("the primary does not understand REPLCONF ip-address", zap.String("reply", line))
		}
	}
	if line, err = r.command(c, br, "REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	}
	if line[0] == '-' {
		r.log().Info("the primary does not understand REPLCONF capa", zap.String("reply", line))
	}
	return nil
}

// command sends args and reads one line of reply (the handshake's
// replies are all one line).
func (r *Replica) command(c net.Conn, br *bufio.Reader, args ...string) (string, error) {
	b := appendCommand(nil, args...)
	c.SetDeadline(time.Now().Add(r.o.Timeout))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write(b); err != nil {
		return "", err
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		l = strings.TrimRight(l, "\r\n")
		if l != "" {
			return l, nil
		}
		// A newline is the primary's keepalive while it prepares a full
		// sync (a second apart): the link is alive.
		c.SetReadDeadline(time.Now().Add(r.o.Timeout))
	}
}

// appendCommand appends args as a RESP array of bulk strings.
func appendCommand(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// fullSync receives the RDB payload into a file of o.Dir, has the Host
// load it, and starts the stream at offset off of replid; split: the
// payload came on flows, and the stream follows on them.
func (r *Replica) fullSync(c net.Conn, br *bufio.Reader, replid string, off int64, in *flowsIn) (split bool, err error) {
	r.mu.Lock()
	r.st.State, r.st.SyncTotal = StateSync, -1
	if in == nil { // flows count from when they open
		r.st.SyncRead, r.st.SyncLastIO = 0, time.Now()
	}
	r.mu.Unlock()
	var hdr string
	for {
		c.SetReadDeadline(time.Now().Add(r.o.Timeout))
		l, err := br.ReadString('\n')
		if err != nil {
			return false, err
		}
		if hdr = strings.TrimRight(l, "\r\n"); hdr != "" {
			break
		}
	}
	if len(hdr) == 0 || hdr[0] != '$' {
		return false, fmt.Errorf("bad full sync payload header %q", hdr)
	}
	path := r.tempPath()
	if n, ok := strings.CutPrefix(hdr, "$FLOWS:"); ok {
		if in == nil || n != strconv.Itoa(len(in.flows)) {
			return false, fmt.Errorf("a full sync on %s flows, %d open", n, in.count())
		}
		defer in.removeFiles()
		if err := in.wait(); err != nil {
			return false, fmt.Errorf("receiving the full sync: %w", err)
		}
		return true, r.loaded(in.path, replid, off)
	}
	in.end() // the one payload: the flows are not used
	f, err := os.Create(path)
	if err != nil {
		return false, err
	}
	defer os.Remove(path)
	pr := &progress{r: br, c: c, rep: r}
	if mark, ok := strings.CutPrefix(hdr, "$EOF:"); ok {
		if len(mark) != eofMarkLen {
			f.Close()
			return false, fmt.Errorf("bad EOF mark %q", mark)
		}
		err = copyToMark(f, pr, []byte(mark))
	} else {
		n, perr := strconv.ParseInt(hdr[1:], 10, 64)
		if perr != nil || n < 0 {
			f.Close()
			return false, fmt.Errorf("bad full sync payload header %q", hdr)
		}
		r.mu.Lock()
		r.st.SyncTotal = n
		r.mu.Unlock()
		_, err = io.CopyN(f, pr, n)
	}
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	c.SetReadDeadline(time.Time{})
	if err != nil {
		return false, fmt.Errorf("receiving the full sync: %w", err)
	}
	return false, r.loaded(path, replid, off)
}

// tempPath is where a full sync's payload is received (a manifest of
// the flows' files, on flows).
func (r *Replica) tempPath() string {
	return filepath.Join(r.o.Dir, fmt.Sprintf("temp-%d-repl.rdb", os.Getpid()))
}

// loaded has the Host load the full sync's file at path and starts the
// stream at offset off of replid.
func (r *Replica) loaded(path, replid string, off int64) error {
	r.drain()
	if err := r.h.FullSync(path); err != nil {
		return fmt.Errorf("loading the full sync: %w", err)
	}
	r.off.Lock()
	r.off.applied, r.off.ackAt = off, -1
	r.db = 0 // as a new master client's: the stream selects first
	r.off.hist, r.off.histEnd, r.off.fwd = r.off.hist[:0], off, off
	r.resetLocked()
	r.off.Unlock()
	r.mu.Lock()
	r.st.ReplID, r.st.ReplID2, r.st.SecondOffset, r.st.Read = replid, "", -1, off
	r.st.FullSyncs++
	r.mu.Unlock()
	r.log().Info("full sync from the primary loaded", zap.String("primary", r.o.Addr), zap.String("replid", replid),
		zap.Int64("offset", off))
	return nil
}

// eofMarkLen is the length of a diskless transfer's EOF mark.
const eofMarkLen = 40

// progress reads the full sync's payload, counting it for INFO and
// keeping the connection's read deadline ahead.
type progress struct {
	r   io.Reader
	c   net.Conn
	rep *Replica
}

func (p *progress) Read(b []byte) (int, error) {
	p.c.SetReadDeadline(time.Now().Add(p.rep.o.Timeout))
	n, err := p.r.Read(b)
	if n > 0 {
		p.rep.mu.Lock()
		p.rep.st.SyncRead += int64(n)
		p.rep.st.SyncLastIO = time.Now()
		p.rep.mu.Unlock()
	}
	return n, err
}

// copyToMark copies src to dst up to mark, which ends the payload (a
// diskless transfer of unknown length); the mark is not copied.
func copyToMark(dst io.Writer, src io.Reader, mark []byte) error {
	buf := make([]byte, 64<<10)
	keep := 0 // the last bytes held back: they may begin the mark
	for {
		n, err := src.Read(buf[keep:])
		end := keep + n
		if end >= len(mark) && bytes.Equal(buf[end-len(mark):end], mark) {
			_, werr := dst.Write(buf[:end-len(mark)])
			return werr
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if out := end - len(mark); out > 0 {
			if _, err := dst.Write(buf[:out]); err != nil {
				return err
			}
			keep = copy(buf, buf[out:end])
		} else {
			keep = end
		}
	}
}

//go:build linux

package ioloop

import (
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	iosys "github.com/iceber/iouring-go/syscall"
	"golang.org/x/sys/unix"
)

// user_data layout: op (8 bits) | generation (low 24 bits) | slot (32 bits).
const (
	opWake uint64 = iota + 1
	opAccept
	opRecv
	opSend
	opCancel
	opMsg    // a MSG_RING this ring sent (WakeOther); the slot is the target's index in peers
	opWakeUp // the completion another ring's MSG_RING posted here
	opFsync  // an fdatasync (Fsync); the slot is its index in syncs
)

func tag(op uint64, slot, gen uint32) uint64 {
	return op<<56 | uint64(gen&0xffffff)<<32 | uint64(slot)
}

// connection states
const (
	stFree uint8 = iota
	stOpen
	stClosing // close started: waiting for in-flight requests, then close(fd)
)

// uconn is one connection slot of the io_uring driver. Owned by the loop
// goroutine.
type uconn struct {
	fd    int32
	ln    int32 // the listening socket that accepted it, -1 if adopted
	gen   uint32
	state uint8

	recvArmed bool // a recv into in.b[in.wr:] is in flight
	sendArmed bool // a send of out[cur^1][sendOff:] is in flight
	sending   bool // out[cur^1] holds bytes being sent (maybe between sends after a short one)
	closeReq  bool // Close called: flush, then close
	abort     bool // Abort called: close without flushing
	eof       bool // peer closed its side: flush, then close
	queued    bool // on the dirty list
	cur       uint8
	closeErr  error
	sendOff   int
	// release is Release's callback, set until the hand-over; cancelled:
	// the receive in flight was cancelled for it.
	release   func(fd int, input []byte)
	cancelled bool

	in        inbuf
	out       [2][]byte // out[cur] takes appends; out[cur^1] is being sent when sending
	outPin    [2]runtime.Pinner
	outPinned [2]unsafe.Pointer
}

type ulistener struct {
	fd      int
	armed   bool // an accept is in flight
	first   bool // no completion yet for the current multishot accept
	closed  bool
	retryAt time.Time // re-arm not before (after EMFILE and the like)
}

// Uring is the io_uring Driver. See NewUring.
type Uring struct {
	r    *ring
	opts Options

	conns []*uconn
	free  []uint32
	dirty []uint32
	lns   []ulistener

	h          Handler
	inPoll     bool
	closed     bool
	dispatched int
	traffic    Traffic // what moved (Traffic)
	adopted    []int   // sockets handed over by Adopt, opened at the next Poll
	multishot  bool
	inflight   int // requests in flight that reference memory (recv, send, wake read)
	// peers are the rings WakeOther sent MSG_RINGs to, indexed by the
	// opMsg completions; noMsgRing: the kernel refused one, so WakeOther
	// falls back to Wake.
	peers     []*Uring
	noMsgRing bool
	// syncs are the done funcs of the fdatasyncs in flight (Fsync), by
	// the index in their user_data; syncFree the indexes free.
	syncs    []func(error)
	syncFree []uint32
	// ringFd is the ring's descriptor, written once by NewUring: other
	// loops' WakeOther reads it (r.fd is cleared by Shutdown). A MSG_RING
	// racing the close fails, and its sender falls back to the eventfd,
	// which wakeGate guards.
	ringFd  int32
	discard []byte
	pool    bufPool

	wakeFd    int
	wakeArmed bool
	wakeBuf   *[8]byte
	wakePin   runtime.Pinner
	_         [64]byte
	sleeping  atomic.Int32 // loop is (or is about to be) blocked in io_uring_enter
	wakeReq   atomic.Int32 // Wake called since the last OnWake
	wakeGate  wakeGate
	_         [64]byte

	arg getEventsArg
	ts  kernelTimespec
}

// NewUring creates an io_uring driver. It must be called on the goroutine
// that will call Poll, locked to its OS thread (runtime.LockOSThread): the
// ring is created SINGLE_ISSUER when the kernel allows. Errors matching
// ErrUringUnavailable mean "fall back to NewEpoll".
func NewUring(opts Options) (Driver, error) {
	opts.fill()
	tries := defaultSetupFlags
	if opts.setupFlags != nil {
		tries = opts.setupFlags
	}
	r, err := newRing(opts.Entries, tries)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC) // blocking: io_uring returns EAGAIN for O_NONBLOCK reads
	if err != nil {
		r.close()
		return nil, os.NewSyscallError("eventfd", err)
	}
	d := &Uring{r: r, opts: opts, wakeFd: efd, multishot: !opts.noMultishotAccept, wakeBuf: new([8]byte), ringFd: int32(r.fd)}
	d.pool = bufPool{pinning: true, max: opts.PoolBytes}
	d.wakePin.Pin(d.wakeBuf)
	return d, nil
}

// Kind returns "io_uring".
func (d *Uring) Kind() string { return "io_uring" }

// Traffic implements Driver.
func (d *Uring) Traffic() Traffic { return d.traffic }

// SetupFlags names the setup flags the kernel accepted, e.g.
// "SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|SUBMIT_ALL".
func (d *Uring) SetupFlags() string { return flagNames(d.r.flags) }

// MultishotAccept reports whether multishot accept is in use (it falls back
// to single-shot after the kernel rejects it).
func (d *Uring) MultishotAccept() bool { return d.multishot }

func (d *Uring) conn(c ConnID) *uconn {
	s := c.slot()
	if int(s) >= len(d.conns) {
		return nil
	}
	cn := d.conns[s]
	if cn.gen != c.gen() || cn.state != stOpen {
		return nil
	}
	return cn
}

func (d *Uring) markDirty(slot uint32, c *uconn) {
	if !c.queued {
		c.queued = true
		d.dirty = append(d.dirty, slot)
	}
}

// Listen implements Driver.
func (d *Uring) Listen(fd int) error {
	if d.closed {
		return ErrClosed
	}
	if err := checkListener(fd); err != nil {
		return err
	}
	d.lns = append(d.lns, ulistener{fd: fd})
	return nil
}

// Input implements Driver.
func (d *Uring) Input(c ConnID) []byte {
	cn := d.conn(c)
	if cn == nil || cn.closeReq || cn.release != nil {
		return nil
	}
	return cn.in.data()
}

// Consume implements Driver.
func (d *Uring) Consume(c ConnID, n int) {
	cn := d.conn(c)
	if cn == nil || n <= 0 {
		return
	}
	in := &cn.in
	if n > in.wr-in.rd {
		n = in.wr - in.rd
	}
	in.rd += n
	if in.rd == in.wr && !cn.recvArmed {
		in.rd, in.wr = 0, 0
	}
}

// Output implements Driver.
func (d *Uring) Output(c ConnID) *[]byte {
	cn := d.conn(c)
	if cn == nil || cn.closeReq {
		d.discard = d.discard[:0]
		return &d.discard
	}
	d.markDirty(c.slot(), cn)
	return &cn.out[cn.cur]
}

// Pending implements Driver.
func (d *Uring) Pending(c ConnID) int {
	cn := d.conn(c)
	if cn == nil || cn.abort {
		return 0
	}
	n := len(cn.out[cn.cur])
	if cn.sending {
		n += len(cn.out[cn.cur^1]) - cn.sendOff
	}
	return n
}

// Close implements Driver.
func (d *Uring) Close(c ConnID) {
	cn := d.conn(c)
	if cn == nil || cn.closeReq {
		return
	}
	cn.closeReq = true
	if cn.closeErr == io.EOF {
		cn.closeErr = nil
	}
	d.markDirty(c.slot(), cn)
}

// Abort implements Driver.
func (d *Uring) Abort(c ConnID) {
	cn := d.conn(c)
	if cn == nil || cn.state != stOpen {
		return
	}
	cn.closeReq, cn.abort = true, true
	if cn.closeErr == io.EOF {
		cn.closeErr = nil
	}
	cn.out[cn.cur] = cn.out[cn.cur][:0]
	d.markDirty(c.slot(), cn)
}

// Detach implements Driver. The close cancels the receive in flight,
// which leaves the socket as it is.
func (d *Uring) Detach(c ConnID) (int, error) {
	cn := d.conn(c)
	if cn == nil || cn.state != stOpen || cn.closeReq {
		return -1, ErrClosed
	}
	fd, err := unix.FcntlInt(uintptr(cn.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("fcntl", err)
	}
	d.Abort(c)
	return fd, nil
}

// Wake implements Driver.
func (d *Uring) Wake() {
	if d.wakeReq.Swap(1) != 0 {
		return // a wake is already pending; the loop will see it
	}
	if d.sleeping.Load() != 0 {
		d.wakeGate.write(d.wakeFd)
	}
}

// Waiting implements Driver: a Wake is pending, the kernel holds
// completion work for the next enter (sqTaskrun: data arrived on a
// socket since), or the completion queue holds a completion other than a
// send's or a MSG_RING's this ring sent (what our own output did tells
// nothing of input).
func (d *Uring) Waiting() bool {
	if d.wakeReq.Load() != 0 {
		return true
	}
	r := d.r
	if r.flags&setupTaskrunFlag != 0 && atomic.LoadUint32(r.sqFlags)&sqTaskrun != 0 {
		return true
	}
	tail := atomic.LoadUint32(r.cqTail)
	for head := atomic.LoadUint32(r.cqHead); head != tail; head++ {
		if op := r.cqes[head&r.cqMask].UserData() >> 56; op != opSend && op != opMsg {
			return true
		}
	}
	return false
}

// WakeOther implements Driver.
func (d *Uring) WakeOther(other Driver) {
	for {
		w, ok := other.(Wrapper)
		if !ok {
			break
		}
		other = w.Unwrap()
	}
	o, ok := other.(*Uring)
	if !ok || d.noMsgRing || d.closed || o == d {
		other.Wake()
		return
	}
	if o.wakeReq.Swap(1) != 0 || o.sleeping.Load() == 0 || o.wakeGate.closed.Load() {
		return // a wake is pending, the loop is awake and will see wakeReq, or it is gone
	}
	i := 0
	for i < len(d.peers) && d.peers[i] != o {
		i++
	}
	if i == len(d.peers) {
		d.peers = append(d.peers, o)
	}
	s := d.sqe()
	// addr 0 is IORING_MSG_DATA: post a completion with res len (0) and
	// user_data off to the ring fd.
	s.PrepOperation(iosys.IORING_OP_MSG_RING, o.ringFd, 0, 0, tag(opWakeUp, 0, 0))
	s.SetFlags(sqeCQESkipSuccess)
	s.SetUserData(tag(opMsg, uint32(i), 0))
}

// Fsync implements Driver: an IORING_OP_FSYNC with the DATASYNC flag,
// which the kernel runs in a worker of the ring. It references no memory
// of ours, so Shutdown does not wait for it.
func (d *Uring) Fsync(fd int, done func(error)) bool {
	if d.closed {
		return false
	}
	var i uint32
	if n := len(d.syncFree); n > 0 {
		i = d.syncFree[n-1]
		d.syncFree = d.syncFree[:n-1]
	} else {
		i = uint32(len(d.syncs))
		d.syncs = append(d.syncs, nil)
	}
	d.syncs[i] = done
	s := d.sqe()
	s.PrepOperation(iosys.IORING_OP_FSYNC, int32(fd), 0, 0, 0)
	s.SetOpFlags(iosys.IORING_FSYNC_DATASYNC)
	s.SetUserData(tag(opFsync, i, 0))
	return true
}

// fsyncDone is an fdatasync's completion: its done runs with its error.
func (d *Uring) fsyncDone(i uint32, res int32) {
	if int(i) >= len(d.syncs) || d.syncs[i] == nil {
		return
	}
	done := d.syncs[i]
	d.syncs[i] = nil
	d.syncFree = append(d.syncFree, i)
	var err error
	if res < 0 {
		err = syscall.Errno(-res)
	}
	done(err)
}

// msgDone is a failed MSG_RING's completion: the target is woken through
// its eventfd, and so is every later one (an old kernel, or a target it
// cannot post to).
func (d *Uring) msgDone(i uint32, res int32) {
	if res >= 0 || int(i) >= len(d.peers) {
		return
	}
	d.noMsgRing = true
	o := d.peers[i]
	o.wakeGate.write(o.wakeFd)
}

// sqe returns a free SQE, submitting queued ones first if the ring is full.
func (d *Uring) sqe() *sqe {
	for i := 0; ; i++ {
		if s := d.r.get(); s != nil {
			return s
		}
		var arg getEventsArg
		if err := d.r.enter(0, &arg); err != nil || i > 1000 {
			panic("ioloop: io_uring submission queue stuck: " + errString(err))
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "no progress"
	}
	return err.Error()
}

func (d *Uring) cancel(target uint64) {
	s := d.sqe()
	s.PrepOperation(iosys.IORING_OP_ASYNC_CANCEL, -1, target, 0, 0)
	s.SetFlags(sqeCQESkipSuccess)
	s.SetUserData(tag(opCancel, 0, 0))
}

// Poll implements Driver.
func (d *Uring) Poll(timeout time.Duration, h Handler) error {
	if d.closed {
		return ErrClosed
	}
	if d.inPoll {
		return ErrReentrant
	}
	d.inPoll = true
	d.h = h
	d.dispatched = 0
	for _, fd := range d.adopted {
		d.open(fd, -1)
	}
	d.adopted = d.adopted[:0]

	d.flush()
	if !d.wakeArmed {
		s := d.sqe()
		s.PrepOperation(iosys.IORING_OP_READ, int32(d.wakeFd), uint64(uintptr(unsafe.Pointer(d.wakeBuf))), 8, 0)
		s.SetUserData(tag(opWake, 0, 0))
		d.wakeArmed = true
		d.inflight++
	}
	timeout = d.armListeners(timeout)

	d.arg = getEventsArg{}
	minComplete := uint32(1)
	if d.dispatched > 0 || timeout == 0 {
		minComplete = 0
	} else {
		if timeout > 0 {
			d.ts = kernelTimespec{sec: int64(timeout / time.Second), nsec: int64(timeout % time.Second)}
			d.arg.ts = uint64(uintptr(unsafe.Pointer(&d.ts)))
		}
		d.sleeping.Store(1)
		if d.wakeReq.Load() != 0 {
			minComplete = 0
		}
	}
	err := d.r.enter(minComplete, &d.arg)
	d.sleeping.Store(0)
	d.reap()
	if d.wakeReq.Load() != 0 && d.wakeReq.Swap(0) != 0 {
		h.OnWake()
	}
	d.inPoll = false
	return err
}

// Flush implements Driver: the queued work becomes SQEs, submitted by an
// enter that waits for nothing; their completions are the next Poll's.
func (d *Uring) Flush() {
	if d.closed || d.inPoll {
		return
	}
	d.flush()
	var arg getEventsArg
	d.r.enter(0, &arg)
}

// flush turns queued work (sends, receives, closes) into SQEs.
func (d *Uring) flush() {
	for i := 0; i < len(d.dirty); i++ { // callbacks may append
		slot := d.dirty[i]
		c := d.conns[slot]
		c.queued = false
		d.service(slot, c)
	}
	d.dirty = d.dirty[:0]
}

func (d *Uring) service(slot uint32, c *uconn) {
	switch c.state {
	case stOpen:
		if c.abort {
			d.startClose(slot, c)
			return
		}
		if !c.sendArmed {
			if !c.sending && len(c.out[c.cur]) > 0 {
				c.cur ^= 1
				c.sending, c.sendOff = true, 0
			}
			if c.sending {
				d.armSend(slot, c)
			}
		}
		if c.release != nil && !c.closeReq {
			d.releasing(slot, c)
			return
		}
		if c.closeReq || c.eof {
			if !c.sending && len(c.out[c.cur]) == 0 {
				d.startClose(slot, c)
			}
			return
		}
		if !c.recvArmed {
			d.armRecv(slot, c)
		}
	case stClosing:
		if !c.recvArmed && !c.sendArmed {
			d.finishClose(slot, c)
		}
	}
}

func (d *Uring) armSend(slot uint32, c *uconn) {
	i := c.cur ^ 1
	b := c.out[i]
	if p := unsafe.Pointer(unsafe.SliceData(b)); p != c.outPinned[i] {
		c.outPin[i].Unpin()
		c.outPin[i].Pin(p)
		c.outPinned[i] = p
	}
	n := len(b) - c.sendOff
	if n > 1<<30 {
		n = 1 << 30
	}
	s := d.sqe()
	s.PrepOperation(iosys.IORING_OP_SEND, c.fd, uint64(uintptr(unsafe.Pointer(&b[c.sendOff]))), uint32(n), 0)
	s.SetOpFlags(unix.MSG_NOSIGNAL)
	s.SetUserData(tag(opSend, slot, c.gen))
	c.sendArmed = true
	d.inflight++
}

func (d *Uring) armRecv(slot uint32, c *uconn) {
	if !c.in.prepare(&d.pool, d.opts.InputSize, d.opts.MaxInput) {
		d.abort(slot, c, ErrInputTooLarge)
		return
	}
	b := c.in.b
	n := len(b) - c.in.wr
	if n > 1<<30 {
		n = 1 << 30
	}
	s := d.sqe()
	s.PrepOperation(iosys.IORING_OP_RECV, c.fd, uint64(uintptr(unsafe.Pointer(&b[c.in.wr]))), uint32(n), 0)
	s.SetUserData(tag(opRecv, slot, c.gen))
	c.recvArmed = true
	d.inflight++
}

// abort closes c now, without flushing, reporting err.
func (d *Uring) abort(slot uint32, c *uconn, err error) {
	if c.state != stOpen {
		return
	}
	if c.closeErr == nil || c.closeErr == io.EOF {
		c.closeErr = err
	}
	d.startClose(slot, c)
}

// startClose cancels whatever is in flight; finishClose follows when the
// last completion is reaped.
func (d *Uring) startClose(slot uint32, c *uconn) {
	c.state = stClosing
	if c.recvArmed {
		d.cancel(tag(opRecv, slot, c.gen))
	}
	if c.sendArmed {
		d.cancel(tag(opSend, slot, c.gen))
	}
	if !c.recvArmed && !c.sendArmed {
		d.finishClose(slot, c)
	}
}

func (d *Uring) finishClose(slot uint32, c *uconn) {
	unix.Close(int(c.fd))
	id := makeConnID(slot, c.gen)
	err := c.closeErr
	d.recycle(slot, c)
	if d.h != nil {
		d.h.OnClose(id, err)
	}
}

// releasing moves a connection being released toward its hand-over: the
// receive in flight is cancelled; once it has completed and the output
// is sent, the socket and the unconsumed input go to Release's callback.
func (d *Uring) releasing(slot uint32, c *uconn) {
	if c.recvArmed {
		if !c.cancelled {
			c.cancelled = true
			d.cancel(tag(opRecv, slot, c.gen))
		}
		return
	}
	if c.sending || c.sendArmed || len(c.out[c.cur]) > 0 {
		return
	}
	done, fd := c.release, int(c.fd)
	input := append([]byte(nil), c.in.data()...)
	d.recycle(slot, c)
	done(fd, input)
}

// recycle frees a slot whose socket was closed or handed over.
func (d *Uring) recycle(slot uint32, c *uconn) {
	c.gen++
	if c.gen == 0 {
		c.gen = 1
	}
	c.state = stFree
	c.fd = -1
	c.closeReq, c.eof, c.sending, c.closeErr, c.sendOff, c.cur = false, false, false, nil, 0, 0
	c.abort, c.release, c.cancelled = false, nil, false
	c.in.reset(&d.pool, d.opts.InputSize)
	for i := range c.out {
		c.out[i] = c.out[i][:0]
		if cap(c.out[i]) > d.opts.KeepOutput {
			c.out[i] = nil
			c.outPin[i].Unpin()
			c.outPinned[i] = nil
		}
	}
	d.free = append(d.free, slot)
	d.dispatched++
}

func (d *Uring) armListeners(timeout time.Duration) time.Duration {
	var now time.Time
	for i := range d.lns {
		ln := &d.lns[i]
		if ln.armed || ln.closed {
			continue
		}
		if !ln.retryAt.IsZero() {
			if now.IsZero() {
				now = time.Now()
			}
			if wait := ln.retryAt.Sub(now); wait > 0 {
				if timeout < 0 || wait < timeout {
					timeout = wait
				}
				continue
			}
			ln.retryAt = time.Time{}
		}
		s := d.sqe()
		s.PrepOperation(iosys.IORING_OP_ACCEPT, int32(ln.fd), 0, 0, 0)
		s.SetOpFlags(unix.SOCK_CLOEXEC)
		if d.multishot {
			s.SetIoprio(acceptMultishot)
		}
		s.SetUserData(tag(opAccept, uint32(i), 0))
		ln.armed, ln.first = true, true
	}
	return timeout
}

// reap dispatches every completion in the completion queue.
func (d *Uring) reap() {
	r := d.r
	head := atomic.LoadUint32(r.cqHead)
	for {
		tail := atomic.LoadUint32(r.cqTail)
		if head == tail {
			return
		}
		for ; head != tail; head++ {
			e := &r.cqes[head&r.cqMask]
			ud, res, fl := e.UserData(), e.Result(), e.Flags()
			atomic.StoreUint32(r.cqHead, head+1)
			d.complete(ud, res, fl)
		}
	}
}

func (d *Uring) complete(ud uint64, res int32, fl uint32) {
	op := ud >> 56
	slot := uint32(ud)
	switch op {
	case opWake:
		d.wakeArmed = false
		d.inflight--
		return
	case opAccept:
		d.accepted(slot, res, fl)
		return
	case opCancel, opWakeUp:
		return
	case opMsg:
		d.msgDone(slot, res)
		return
	case opFsync:
		d.fsyncDone(slot, res)
		return
	case opRecv, opSend:
	default:
		return
	}
	if int(slot) >= len(d.conns) {
		return
	}
	c := d.conns[slot]
	if c.gen&0xffffff != uint32(ud>>32)&0xffffff || c.state == stFree {
		return // stale: cannot happen while slots wait for their requests, but cheap to check
	}
	d.inflight--
	if op == opRecv {
		c.recvArmed = false
		d.recvDone(slot, c, res)
	} else {
		c.sendArmed = false
		d.sendDone(slot, c, res)
	}
	if c.state == stClosing && !c.recvArmed && !c.sendArmed {
		d.finishClose(slot, c)
	}
}

func (d *Uring) recvDone(slot uint32, c *uconn, res int32) {
	if c.state != stOpen {
		return
	}
	switch {
	case res > 0:
		c.in.wr += int(res)
		d.traffic.In += int64(res)
		d.traffic.Reads++
		d.markDirty(slot, c) // re-arm in the next turn
		if !c.closeReq && c.release == nil {
			d.dispatched++
			d.h.OnData(makeConnID(slot, c.gen))
		}
	case res == 0:
		c.eof = true
		if c.closeErr == nil && !c.closeReq {
			c.closeErr = io.EOF
		}
		d.markDirty(slot, c)
	default:
		switch e := syscall.Errno(-res); e {
		case syscall.EINTR, syscall.EAGAIN, syscall.ENOBUFS, syscall.ECANCELED:
			d.markDirty(slot, c)
		default:
			d.abort(slot, c, os.NewSyscallError("recv", e))
		}
	}
}

func (d *Uring) sendDone(slot uint32, c *uconn, res int32) {
	if c.state != stOpen {
		return
	}
	if res < 0 {
		switch e := syscall.Errno(-res); e {
		case syscall.EINTR, syscall.EAGAIN, syscall.ENOBUFS, syscall.ECANCELED:
			d.markDirty(slot, c)
		default:
			d.abort(slot, c, os.NewSyscallError("send", e))
		}
		return
	}
	i := c.cur ^ 1
	c.sendOff += int(res)
	d.traffic.Out += int64(res)
	d.traffic.Writes++
	if c.sendOff >= len(c.out[i]) {
		c.sending, c.sendOff = false, 0
		c.out[i] = c.out[i][:0]
		if cap(c.out[i]) > d.opts.KeepOutput {
			c.out[i] = nil
			c.outPin[i].Unpin()
			c.outPinned[i] = nil
		}
		if len(c.out[c.cur]) == 0 && !c.closeReq && !c.eof && c.release == nil {
			return // nothing more to send; recv is handled by its own completion
		}
	}
	d.markDirty(slot, c)
}

func (d *Uring) accepted(idx uint32, res int32, fl uint32) {
	if int(idx) >= len(d.lns) {
		return
	}
	ln := &d.lns[idx]
	first := ln.first
	ln.first = false
	if fl&cqeFMore == 0 {
		ln.armed = false
	}
	if res < 0 {
		switch e := syscall.Errno(-res); e {
		case syscall.EINVAL:
			if d.multishot && first {
				d.multishot = false // kernel without multishot accept: re-arm single-shot
				return
			}
			ln.retryAt = time.Now().Add(10 * time.Millisecond)
		case syscall.EAGAIN, syscall.EINTR, syscall.ECONNABORTED, syscall.ECANCELED:
		default: // EMFILE, ENFILE, ENOBUFS, ENOMEM, ...: back off, do not spin
			ln.retryAt = time.Now().Add(10 * time.Millisecond)
		}
		return
	}
	fd := int(res)
	if d.closed || ln.closed {
		unix.Close(fd)
		return
	}
	d.open(fd, ln.fd)
}

// Adopt implements Driver.
func (d *Uring) Adopt(fd int) error {
	if d.closed {
		return ErrClosed
	}
	d.adopted = append(d.adopted, fd)
	return nil
}

// Release implements Driver.
func (d *Uring) Release(c ConnID, done func(fd int, input []byte)) bool {
	cn := d.conn(c)
	if cn == nil || cn.closeReq || cn.release != nil {
		return false
	}
	cn.release = done
	d.markDirty(c.slot(), cn)
	return true
}

// Take implements Driver.
func (d *Uring) Take(fd int, input []byte) (ConnID, error) {
	if d.closed {
		return 0, ErrClosed
	}
	slot, c := d.newSlot()
	c.fd, c.ln, c.state = int32(fd), -1, stOpen
	c.in.fill(&d.pool, d.opts.InputSize, input)
	d.markDirty(slot, c)
	return makeConnID(slot, c.gen), nil
}

// open makes a connection of a socket accepted on the listening socket ln
// (-1: adopted) and tells the handler.
func (d *Uring) open(fd, ln int) {
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	setKeepAlive(fd, d.opts.KeepAlive)
	slot, c := d.newSlot()
	c.fd = int32(fd)
	c.ln = int32(ln)
	c.state = stOpen
	d.markDirty(slot, c)
	d.dispatched++
	d.h.OnOpen(makeConnID(slot, c.gen))
}

// newSlot returns a free connection slot.
func (d *Uring) newSlot() (uint32, *uconn) {
	var slot uint32
	var c *uconn
	if n := len(d.free); n > 0 {
		slot = d.free[n-1]
		d.free = d.free[:n-1]
		c = d.conns[slot]
	} else {
		slot = uint32(len(d.conns))
		c = &uconn{gen: 1}
		d.conns = append(d.conns, c)
	}
	return slot, c
}

// Shutdown implements Driver.
func (d *Uring) Shutdown() error {
	if d.closed {
		return ErrClosed
	}
	if d.inPoll {
		return ErrReentrant
	}
	d.closed = true
	d.inPoll = true
	defer func() { d.inPoll = false }()
	for _, fd := range d.adopted {
		unix.Close(fd)
	}
	d.adopted = nil
	for i := range d.lns {
		ln := &d.lns[i]
		ln.closed = true
		if ln.armed {
			d.cancel(tag(opAccept, uint32(i), 0))
		}
	}
	for slot, c := range d.conns {
		if c.state == stOpen {
			c.closeErr = ErrShutdown
			d.startClose(uint32(slot), c)
		}
	}
	if d.wakeArmed {
		d.cancel(tag(opWake, 0, 0))
	}
	// Wait for every request that references our memory.
	deadline := time.Now().Add(5 * time.Second)
	for d.inflight > 0 && time.Now().Before(deadline) {
		d.ts = kernelTimespec{nsec: int64(100 * time.Millisecond)}
		d.arg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&d.ts)))}
		if err := d.r.enter(1, &d.arg); err != nil {
			break
		}
		d.reap()
	}
	// Pending accept completions may still carry fds: drain them.
	var arg getEventsArg
	d.r.enter(0, &arg)
	d.reap()
	if d.inflight > 0 {
		// The kernel may still write into our buffers: keep them forever
		// rather than free memory that is in use.
		leaked = append(leaked, d)
		d.r.close()
		d.wakeGate.close(d.wakeFd)
		return nil
	}
	d.r.close()
	d.wakeGate.close(d.wakeFd)
	for _, c := range d.conns {
		c.in.free()
		for i := range c.out {
			c.outPin[i].Unpin()
			c.out[i], c.outPinned[i] = nil, nil
		}
	}
	d.pool.drain()
	d.wakePin.Unpin()
	d.h = nil
	return nil
}

// leaked keeps drivers whose requests never completed reachable.
var leaked []*Uring

// From implements Driver.
func (d *Uring) From(c ConnID) int {
	if cn := d.conn(c); cn != nil {
		return int(cn.ln)
	}
	return -1
}

// Addrs implements Driver.
func (d *Uring) Addrs(c ConnID) (peer, local string) {
	cn := d.conn(c)
	if cn == nil || cn.fd < 0 {
		return "", ""
	}
	return sockAddrs(int(cn.fd))
}

// Buffers implements Driver: a send in flight is out[cur^1]'s rest.
func (d *Uring) Buffers(c ConnID) Buffers {
	cn := d.conn(c)
	if cn == nil {
		return Buffers{Fd: -1}
	}
	b := Buffers{Fd: int(cn.fd), InFree: len(cn.in.b) - cn.in.wr, Out: len(cn.out[cn.cur]), OutCap: cap(cn.out[cn.cur])}
	if cn.sending {
		b.InFlight = len(cn.out[cn.cur^1]) - cn.sendOff
	}
	return b
}

//go:build linux

package ioloop

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// econn is one connection slot of the epoll driver. Owned by the loop
// goroutine.
type econn struct {
	fd       int
	ln       int // the listening socket that accepted it, -1 if adopted
	gen      uint32
	state    uint8
	closeReq bool
	eof      bool
	queued   bool
	blocked  bool // last write hit EAGAIN: wait for EPOLLOUT
	closeErr error
	release  func(fd int, input []byte) // Release's callback, until the hand-over
	in       inbuf
	out      []byte // out[sendOff:] is unsent
	sendOff  int
}

type elistener struct {
	fd      int
	armed   bool
	retryAt time.Time
}

// Epoll is the epoll Driver (edge-triggered). See NewEpoll.
type Epoll struct {
	epfd   int
	opts   Options
	events []unix.EpollEvent
	ev     unix.EpollEvent
	// adopted are sockets handed over by Adopt, opened at the next Poll.
	adopted []int

	conns []*econn
	free  []uint32
	dirty []uint32
	lns   []elistener

	h          Handler
	inPoll     bool
	closed     bool
	dispatched int
	traffic    Traffic // what moved (Traffic)
	discard    []byte
	pool       bufPool

	wakeFd   int
	_        [64]byte
	sleeping atomic.Int32
	wakeReq  atomic.Int32
	wakeGate wakeGate
	_        [64]byte
}

// Event data: Fd holds the slot and Pad the generation of a connection;
// Pad 0 marks the wake eventfd (Fd -1) and listeners (Fd = index).
const epollConnEvents = unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET

// NewEpoll creates an epoll driver. Like NewUring, call it on the loop
// goroutine (locking the OS thread is not required).
func NewEpoll(opts Options) (Driver, error) {
	opts.fill()
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("eventfd", err)
	}
	d := &Epoll{epfd: epfd, opts: opts, wakeFd: efd, events: make([]unix.EpollEvent, opts.MaxEvents)}
	d.pool = bufPool{max: opts.PoolBytes}
	d.ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &d.ev); err != nil {
		unix.Close(efd)
		unix.Close(epfd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return d, nil
}

// Kind returns "epoll".
func (d *Epoll) Kind() string { return "epoll" }

// Traffic implements Driver.
func (d *Epoll) Traffic() Traffic { return d.traffic }

func (d *Epoll) conn(c ConnID) *econn {
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

func (d *Epoll) markDirty(slot uint32, c *econn) {
	if !c.queued {
		c.queued = true
		d.dirty = append(d.dirty, slot)
	}
}

// Listen implements Driver.
func (d *Epoll) Listen(fd int) error {
	if d.closed {
		return ErrClosed
	}
	if err := checkListener(fd); err != nil {
		return err
	}
	d.lns = append(d.lns, elistener{fd: fd})
	return d.armListener(len(d.lns) - 1)
}

func (d *Epoll) armListener(i int) error {
	ln := &d.lns[i]
	d.ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}
	if err := unix.EpollCtl(d.epfd, unix.EPOLL_CTL_ADD, ln.fd, &d.ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	ln.armed = true
	return nil
}

// Input implements Driver.
func (d *Epoll) Input(c ConnID) []byte {
	cn := d.conn(c)
	if cn == nil || cn.closeReq || cn.release != nil {
		return nil
	}
	return cn.in.data()
}

// Consume implements Driver.
func (d *Epoll) Consume(c ConnID, n int) {
	cn := d.conn(c)
	if cn == nil || n <= 0 {
		return
	}
	in := &cn.in
	if n > in.wr-in.rd {
		n = in.wr - in.rd
	}
	in.rd += n
	if in.rd == in.wr {
		in.rd, in.wr = 0, 0
	}
}

// Output implements Driver.
func (d *Epoll) Output(c ConnID) *[]byte {
	cn := d.conn(c)
	if cn == nil || cn.closeReq {
		d.discard = d.discard[:0]
		return &d.discard
	}
	d.markDirty(c.slot(), cn)
	return &cn.out
}

// Pending implements Driver.
func (d *Epoll) Pending(c ConnID) int {
	cn := d.conn(c)
	if cn == nil {
		return 0
	}
	return len(cn.out) - cn.sendOff
}

// Close implements Driver.
func (d *Epoll) Close(c ConnID) {
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
func (d *Epoll) Abort(c ConnID) {
	cn := d.conn(c)
	if cn == nil || cn.state != stOpen {
		return
	}
	cn.closeReq = true
	if cn.closeErr == io.EOF {
		cn.closeErr = nil
	}
	cn.out, cn.sendOff, cn.blocked = cn.out[:0], 0, false
	if cap(cn.out) > d.opts.KeepOutput {
		cn.out = nil
	}
	d.markDirty(c.slot(), cn)
}

// Detach implements Driver.
func (d *Epoll) Detach(c ConnID) (int, error) {
	cn := d.conn(c)
	if cn == nil || cn.state != stOpen || cn.closeReq {
		return -1, ErrClosed
	}
	fd, err := unix.FcntlInt(uintptr(cn.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("fcntl", err)
	}
	// The duplicate keeps the file open: its close would not take it
	// out of the epoll set.
	unix.EpollCtl(d.epfd, unix.EPOLL_CTL_DEL, cn.fd, nil)
	d.Abort(c)
	return fd, nil
}

// Wake implements Driver.
func (d *Epoll) Wake() {
	if d.wakeReq.Swap(1) != 0 {
		return
	}
	if d.sleeping.Load() != 0 {
		d.wakeGate.write(d.wakeFd)
	}
}

// Waiting implements Driver: only a pending Wake; what epoll holds is
// not known without a system call that would take the events.
func (d *Epoll) Waiting() bool { return d.wakeReq.Load() != 0 }

// Fsync implements Driver: epoll has no way to run one off the loop.
func (d *Epoll) Fsync(int, func(error)) bool { return false }

// WakeOther implements Driver: other.Wake().
func (d *Epoll) WakeOther(other Driver) { other.Wake() }

// Poll implements Driver.
func (d *Epoll) Poll(timeout time.Duration, h Handler) error {
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
	timeout = d.rearmListeners(timeout)
	msec := 0
	if d.dispatched == 0 && timeout != 0 {
		msec = msecTimeout(timeout)
		d.sleeping.Store(1)
		if d.wakeReq.Load() != 0 {
			msec = 0
		}
	}
	var err error
	var deadline time.Time
	if msec > 0 {
		deadline = time.Now().Add(time.Duration(msec) * time.Millisecond)
	}
	n, errno := unix.EpollWait(d.epfd, d.events, msec)
	for errno == syscall.EINTR { // a signal (e.g. goroutine preemption): wait the rest
		if msec > 0 {
			msec = 0
			if rem := time.Until(deadline); rem > 0 {
				msec = msecTimeout(rem)
			}
		}
		if msec == 0 || d.wakeReq.Load() != 0 {
			n, errno = 0, nil
			break
		}
		n, errno = unix.EpollWait(d.epfd, d.events, msec)
	}
	d.sleeping.Store(0)
	if errno != nil {
		n = 0
		err = os.NewSyscallError("epoll_wait", errno)
	}
	for i := 0; i < n; i++ {
		e := &d.events[i]
		if e.Pad == 0 {
			if e.Fd < 0 {
				var buf [8]byte
				unix.Read(d.wakeFd, buf[:])
			} else {
				d.accept(int(e.Fd))
			}
			continue
		}
		slot := uint32(e.Fd)
		if int(slot) >= len(d.conns) {
			continue
		}
		c := d.conns[slot]
		if c.gen != uint32(e.Pad) || c.state != stOpen {
			continue
		}
		if e.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			d.readConn(slot, c, e.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0)
		}
		if c.state == stOpen && e.Events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			c.blocked = false
			if len(c.out) > c.sendOff || c.eof || c.closeReq {
				d.service(slot, c)
			}
		}
	}
	if d.wakeReq.Load() != 0 && d.wakeReq.Swap(0) != 0 {
		h.OnWake()
	}
	d.inPoll = false
	return err
}

// Flush implements Driver: pending output is written now.
func (d *Epoll) Flush() {
	if d.closed || d.inPoll {
		return
	}
	d.flush()
}

func (d *Epoll) flush() {
	for i := 0; i < len(d.dirty); i++ {
		slot := d.dirty[i]
		c := d.conns[slot]
		c.queued = false
		if c.state == stOpen {
			d.service(slot, c)
		}
	}
	d.dirty = d.dirty[:0]
}

// service writes pending output and closes c once a requested close has
// nothing left to send.
func (d *Epoll) service(slot uint32, c *econn) {
	for !c.blocked && c.sendOff < len(c.out) {
		n, err := unix.Write(c.fd, c.out[c.sendOff:])
		if n > 0 {
			c.sendOff += n
			d.traffic.Out += int64(n)
			d.traffic.Writes++
			continue
		}
		switch err {
		case unix.EAGAIN:
			c.blocked = true
		case unix.EINTR:
		default:
			if err == nil {
				err = io.ErrShortWrite
			}
			d.abort(slot, c, os.NewSyscallError("write", err))
			return
		}
	}
	if c.sendOff == len(c.out) {
		c.out, c.sendOff = c.out[:0], 0
		if cap(c.out) > d.opts.KeepOutput {
			c.out = nil
		}
	} else if c.sendOff > 64<<10 && c.sendOff > len(c.out)/2 {
		c.out = c.out[:copy(c.out, c.out[c.sendOff:])]
		c.sendOff = 0
	}
	switch {
	case c.sendOff < len(c.out):
	case c.release != nil && !c.closeReq:
		d.finishRelease(slot, c)
	case c.closeReq || c.eof:
		d.finishClose(slot, c)
	}
}

// readConn reads until EAGAIN, EOF, or a short read when the peer has not
// hung up (new data raises a new edge; a FIN seen with the data does not).
func (d *Epoll) readConn(slot uint32, c *econn, hup bool) {
	got := false
	for {
		if c.closeReq {
			c.in.rd = c.in.wr // closing: input is dropped
		}
		if !c.in.prepare(&d.pool, d.opts.InputSize, d.opts.MaxInput) {
			d.abort(slot, c, ErrInputTooLarge)
			return
		}
		b := c.in.b[c.in.wr:]
		n, err := unix.Read(c.fd, b)
		if n > 0 {
			c.in.wr += n
			d.traffic.In += int64(n)
			d.traffic.Reads++
			got = true
			if n < len(b) && !hup {
				break
			}
			continue
		}
		if n == 0 && err == nil {
			c.eof = true
			if c.closeErr == nil && !c.closeReq {
				c.closeErr = io.EOF
			}
			break
		}
		if err == unix.EAGAIN {
			break
		}
		if err == unix.EINTR {
			continue
		}
		d.abort(slot, c, os.NewSyscallError("read", err))
		return
	}
	if got && !c.closeReq && c.release == nil {
		d.dispatched++
		d.h.OnData(makeConnID(slot, c.gen))
	}
	if c.eof && c.state == stOpen {
		d.service(slot, c) // send what OnData produced, then close
	}
}

func (d *Epoll) abort(slot uint32, c *econn, err error) {
	if c.state != stOpen {
		return
	}
	if c.closeErr == nil || c.closeErr == io.EOF {
		c.closeErr = err
	}
	d.finishClose(slot, c)
}

func (d *Epoll) finishClose(slot uint32, c *econn) {
	unix.Close(c.fd) // also removes it from the epoll set
	id := makeConnID(slot, c.gen)
	err := c.closeErr
	d.recycle(slot, c)
	if d.h != nil {
		d.h.OnClose(id, err)
	}
}

// finishRelease hands a released connection's socket, out of the epoll
// set, and its unconsumed input to Release's callback.
func (d *Epoll) finishRelease(slot uint32, c *econn) {
	unix.EpollCtl(d.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
	done, fd := c.release, c.fd
	input := append([]byte(nil), c.in.data()...)
	d.recycle(slot, c)
	done(fd, input)
}

// recycle frees a slot whose socket was closed or handed over.
func (d *Epoll) recycle(slot uint32, c *econn) {
	c.gen++
	if c.gen == 0 {
		c.gen = 1
	}
	c.state = stFree
	c.fd = -1
	c.closeReq, c.eof, c.blocked, c.closeErr, c.sendOff = false, false, false, nil, 0
	c.release = nil
	c.in.reset(&d.pool, d.opts.InputSize)
	c.out = c.out[:0]
	if cap(c.out) > d.opts.KeepOutput {
		c.out = nil
	}
	d.free = append(d.free, slot)
	d.dispatched++
}

func (d *Epoll) rearmListeners(timeout time.Duration) time.Duration {
	var now time.Time
	for i := range d.lns {
		ln := &d.lns[i]
		if ln.armed || ln.retryAt.IsZero() {
			continue
		}
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
		d.armListener(i)
	}
	return timeout
}

func (d *Epoll) accept(i int) {
	if i >= len(d.lns) || !d.lns[i].armed {
		return
	}
	ln := &d.lns[i]
	for k := 0; k < 256; k++ {
		r, _, errno := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(ln.fd), 0, 0, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
		if errno != 0 {
			switch errno {
			case unix.EAGAIN:
				return
			case unix.EINTR, unix.ECONNABORTED:
				continue
			default: // EMFILE, ENFILE, ENOBUFS, ENOMEM: stop polling it for a while
				unix.EpollCtl(d.epfd, unix.EPOLL_CTL_DEL, ln.fd, nil)
				ln.armed = false
				ln.retryAt = time.Now().Add(10 * time.Millisecond)
				return
			}
		}
		d.open(int(r), ln.fd)
	}
}

// Adopt implements Driver.
func (d *Epoll) Adopt(fd int) error {
	if d.closed {
		return ErrClosed
	}
	d.adopted = append(d.adopted, fd)
	return nil
}

// Release implements Driver.
func (d *Epoll) Release(c ConnID, done func(fd int, input []byte)) bool {
	cn := d.conn(c)
	if cn == nil || cn.closeReq || cn.release != nil {
		return false
	}
	cn.release = done
	d.markDirty(c.slot(), cn)
	return true
}

// Take implements Driver.
func (d *Epoll) Take(fd int, input []byte) (ConnID, error) {
	if d.closed {
		return 0, ErrClosed
	}
	slot, c, err := d.add(fd)
	if err != nil {
		return 0, err
	}
	c.ln = -1
	c.in.fill(&d.pool, d.opts.InputSize, input)
	return makeConnID(slot, c.gen), nil
}

// open makes a connection of a socket accepted on the listening socket ln
// (-1: adopted) and tells the handler.
func (d *Epoll) open(fd, ln int) {
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	setKeepAlive(fd, d.opts.KeepAlive)
	slot, c, err := d.add(fd)
	if err != nil {
		unix.Close(fd)
		return
	}
	c.ln = ln
	d.dispatched++
	d.h.OnOpen(makeConnID(slot, c.gen))
}

// add puts fd in the epoll set as an open connection of a free slot.
func (d *Epoll) add(fd int) (uint32, *econn, error) {
	var slot uint32
	var c *econn
	if n := len(d.free); n > 0 {
		slot = d.free[n-1]
		d.free = d.free[:n-1]
		c = d.conns[slot]
	} else {
		slot = uint32(len(d.conns))
		c = &econn{gen: 1}
		d.conns = append(d.conns, c)
	}
	d.ev = unix.EpollEvent{Events: epollConnEvents, Fd: int32(slot), Pad: int32(c.gen)}
	if err := unix.EpollCtl(d.epfd, unix.EPOLL_CTL_ADD, fd, &d.ev); err != nil {
		d.free = append(d.free, slot)
		return 0, nil, os.NewSyscallError("epoll_ctl", err)
	}
	c.fd = fd
	c.state = stOpen
	return slot, c, nil
}

// Shutdown implements Driver.
func (d *Epoll) Shutdown() error {
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
		if d.lns[i].armed {
			unix.EpollCtl(d.epfd, unix.EPOLL_CTL_DEL, d.lns[i].fd, nil)
			d.lns[i].armed = false
		}
	}
	for slot, c := range d.conns {
		if c.state == stOpen {
			c.closeErr = ErrShutdown
			d.finishClose(uint32(slot), c)
		}
	}
	d.wakeGate.close(d.wakeFd)
	unix.Close(d.epfd)
	for _, c := range d.conns {
		c.in.free()
	}
	d.pool.drain()
	d.h = nil
	return nil
}

// From implements Driver.
func (d *Epoll) From(c ConnID) int {
	if cn := d.conn(c); cn != nil {
		return cn.ln
	}
	return -1
}

// Addrs implements Driver.
func (d *Epoll) Addrs(c ConnID) (peer, local string) {
	cn := d.conn(c)
	if cn == nil || cn.fd < 0 {
		return "", ""
	}
	return sockAddrs(cn.fd)
}

// Buffers implements Driver: epoll writes from the one output buffer,
// so nothing is in flight between Polls.
func (d *Epoll) Buffers(c ConnID) Buffers {
	cn := d.conn(c)
	if cn == nil {
		return Buffers{Fd: -1}
	}
	return Buffers{Fd: cn.fd, InFree: len(cn.in.b) - cn.in.wr, Out: len(cn.out) - cn.sendOff, OutCap: cap(cn.out)}
}

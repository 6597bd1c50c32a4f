//go:build linux

package ioloop

import (
	"errors"
	"math/bits"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ConnID names one connection: the low 32 bits are its slot index, the high
// 32 bits the slot's generation (never 0). A stale ID is ignored by every
// method.
type ConnID uint64

func makeConnID(slot, gen uint32) ConnID { return ConnID(uint64(gen)<<32 | uint64(slot)) }

func (c ConnID) slot() uint32 { return uint32(c) }
func (c ConnID) gen() uint32  { return uint32(c >> 32) }

// Handler receives a driver's events. Its methods run on the loop goroutine,
// inside Poll (OnClose also inside Shutdown). Inside a callback the handler
// may call Input, Consume, Output, Close, Pending, Listen, Fsync and Wake on the
// same driver, for any connection; it must not call Poll or Shutdown.
type Handler interface {
	OnOpen(c ConnID)             // a new accepted connection (TCP_NODELAY and Options.KeepAlive already set)
	OnData(c ConnID)             // new bytes arrived: read them with Input(c), mark used with Consume(c, n)
	OnClose(c ConnID, err error) // peer closed (io.EOF) / error / after Close(c) (nil) / Shutdown (ErrShutdown); c is dead afterwards
	OnWake()                     // Wake() was called since the last OnWake
}

// Driver is one event loop. All methods except Wake must be called from the
// loop goroutine (for NewUring: the locked OS thread that created it).
type Driver interface {
	// Listen starts accepting on fd, a non-blocking listening socket (see
	// ListenTCP). The driver does not take ownership: the caller closes fd
	// after Shutdown.
	Listen(fd int) error
	// Adopt takes an accepted, non-blocking socket (one a goroutine of the
	// caller accepted) as a connection of this driver: OnOpen follows
	// during the next Poll, as for a socket the driver accepted. The
	// driver owns fd from then on.
	Adopt(fd int) error
	// Detach hands c's socket to the caller: it returns a duplicate of
	// it (close-on-exec, non-blocking as c's was) and aborts c, whose
	// pending output is dropped and whose OnClose follows as after
	// Abort; the socket stays open while the duplicate is. For a
	// connection whose peer sends nothing more (a replication flow,
	// written by a goroutine from then on): input arriving after it is
	// the caller's to read on the duplicate, except what the driver had
	// received already.
	Detach(c ConnID) (int, error)
	// Release hands c over to the caller instead of closing it (a
	// connection moving to another shard's driver): no more OnData is
	// delivered for c; once the output written before Release is sent
	// and no receive is in flight, done runs during a later Poll with c's
	// socket, which the caller owns from then on, and a copy of the bytes
	// received and not consumed. c is dead when done runs, and no OnClose
	// follows. If c closes first (Close, Abort, an error, Shutdown),
	// OnClose follows as usual and done never runs; a peer's end of input
	// does not stop the hand-over (the next driver reads it again). It
	// returns false, doing nothing, for a stale or closing c, one already
	// released, or one this driver cannot hand over.
	Release(c ConnID, done func(fd int, input []byte)) bool
	// Take makes a socket that a driver released (Release) a connection
	// of this one, input its first received, unconsumed bytes, at once:
	// no OnOpen follows, OnData only for bytes received from now on. The
	// driver owns fd from then on.
	Take(fd int, input []byte) (ConnID, error)
	// Input returns all received, unconsumed bytes of c (nil for a stale or
	// closing c). The slice is borrowed: valid until Consume(c, ...) or the
	// next Poll, whichever comes first. Appending to it never overwrites
	// input.
	Input(c ConnID) []byte
	// Consume marks the first n bytes of Input(c) as used.
	Consume(c ConnID, n int)
	// Output returns c's output buffer: append replies to it; they are sent
	// during the next Poll. The pointer is borrowed until the next Poll;
	// after Close(c) (or for a stale c) it points to a scratch buffer that is
	// discarded. Never keep slices of it across Polls.
	Output(c ConnID) *[]byte
	// Pending returns the number of output bytes of c not yet acknowledged
	// as sent by the kernel (queued plus in flight); 0 for a stale c. Use it
	// to enforce output buffer limits.
	Pending(c ConnID) int
	// Close flushes c's pending output, then closes it; OnClose follows
	// during a later Poll (never from inside Close). No more OnData is
	// delivered for c after Close.
	Close(c ConnID)
	// Abort closes c without sending its pending output (a client over
	// its output buffer limit): what was queued is dropped, a send in
	// flight is cancelled. OnClose follows during a later Poll, as for
	// Close; Abort after Close still drops the output.
	Abort(c ConnID)
	// Poll submits everything queued, waits for at least one event or the
	// timeout (timeout < 0: no limit; 0: do not block) and dispatches the
	// events to h. It returns nil on timeout.
	Poll(timeout time.Duration, h Handler) error
	// Flush sends what is queued now (the output appended since the last
	// Poll) without waiting and without dispatching any event: for a loop
	// about to spend a while before its next Poll (a snapshot's slice), so
	// that the replies of its turn need not wait for it. Call it on the
	// loop goroutine, between Polls.
	Flush()
	// Fsync asks for an fdatasync(2) of fd, a regular file the caller
	// keeps open until done runs, run by the kernel off the loop's thread:
	// submitted by the next Poll, its done runs on the loop goroutine in
	// a later Poll, with nil once the file's data is on disk or the
	// error. If the driver shuts down first, done never runs. It returns
	// false, doing nothing, where the driver cannot (epoll): the caller
	// syncs some other way. done is kept until it runs: pass a func made
	// once, not a closure made per call.
	Fsync(fd int, done func(err error)) bool
	// Wake makes a blocked (or the next) Poll return and call OnWake. Safe to
	// call from any goroutine; cheap when the loop is not sleeping.
	Wake()
	// Waiting reports, without a system call, whether the next Poll has
	// input or a Wake to dispatch that arrived since the last one: for a
	// loop in a long stretch of its own work (a snapshot's slice) to cut
	// it short. A hint: false may be wrong where the driver cannot tell
	// (epoll knows only of a Wake). Call it on the loop goroutine.
	Waiting() bool
	// WakeOther is other.Wake() (other: another loop's driver) called on
	// this driver's loop goroutine. Between two io_uring drivers it makes
	// no system call of its own: a MSG_RING request, submitted by this
	// driver's next Poll, posts a completion to other's ring, instead of
	// an eventfd write now; so call Poll soon after. Nothing at all when
	// other is awake, as for Wake.
	WakeOther(other Driver)
	// Shutdown stops accepting, closes every connection without flushing
	// (OnClose(c, ErrShutdown) on the last Handler given to Poll) and
	// releases the driver. Call it on the loop goroutine, not from a
	// callback.
	Shutdown() error
	// Kind returns "io_uring" or "epoll".
	Kind() string
	// Traffic returns what moved through every connection since the
	// driver started. Call it on the loop goroutine.
	Traffic() Traffic
	// From returns the listening socket (the fd given to Listen) that
	// accepted c; -1 for an adopted connection or a stale c.
	From(c ConnID) int
	// Addrs returns the peer and local addresses of c as "ip:port" (Redis's
	// CLIENT LIST addr and laddr); empty strings for a stale c.
	Addrs(c ConnID) (peer, local string)
	// Buffers reports c's socket and buffers as CLIENT LIST shows them;
	// Fd -1 and zeros for a stale c. Call it on the loop goroutine.
	Buffers(c ConnID) Buffers
}

// Traffic is what a driver moved: the bytes received and sent (INFO's
// total_net_input_bytes and total_net_output_bytes), and the receives and
// sends that moved them (total_reads_processed, total_writes_processed).
type Traffic struct {
	In, Out, Reads, Writes int64
}

// Buffers is what a driver holds for one connection: its socket's
// descriptor, the room left after the received bytes in its input
// buffer, and its output: the bytes appended and not yet handed to the
// kernel, the capacity of the buffer they are appended to, and the bytes
// of a send in flight.
type Buffers struct {
	Fd       int
	InFree   int
	Out      int
	OutCap   int
	InFlight int
}

// Wrapper is a Driver wrapping another (net/tlsio's): WakeOther looks
// through it for the driver underneath.
type Wrapper interface {
	Unwrap() Driver
}

// setKeepAlive sets TCP keepalive on an accepted socket per Options.KeepAlive.
func setKeepAlive(fd int, idle func() time.Duration) {
	if idle == nil {
		return
	}
	secs := int(idle() / time.Second)
	if secs <= 0 {
		return
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, secs)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, max(secs/3, 1))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3)
}

// sockAddrs formats a socket's peer and local addresses.
func sockAddrs(fd int) (peer, local string) {
	if sa, err := unix.Getpeername(fd); err == nil {
		peer = fmtSockaddr(sa)
	}
	if sa, err := unix.Getsockname(fd); err == nil {
		local = fmtSockaddr(sa)
		if _, ok := sa.(*unix.SockaddrUnix); ok {
			peer = local // a client's end has no name
		}
	}
	return peer, local
}

func fmtSockaddr(sa unix.Sockaddr) string {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return net.JoinHostPort(net.IP(a.Addr[:]).String(), strconv.Itoa(a.Port))
	case *unix.SockaddrInet6:
		return net.JoinHostPort(net.IP(a.Addr[:]).String(), strconv.Itoa(a.Port))
	case *unix.SockaddrUnix:
		// Redis names both ends of a Unix-socket connection by the
		// listening socket's path, port 0.
		return a.Name + ":0"
	}
	return ""
}

// Options tunes a driver. The zero value is fine.
type Options struct {
	// Entries is the io_uring submission queue size (rounded up to a power
	// of two by the kernel); the completion queue is 4 times larger.
	// Default 4096.
	Entries uint32
	// InputSize is the initial (and idle) size of a connection's input
	// buffer, rounded up to a power of two. Default 16 KiB.
	InputSize int
	// MaxInput closes a connection whose unconsumed input would grow beyond
	// it (OnClose with ErrInputTooLarge). Default 1 GiB, Redis's
	// client-query-buffer-limit.
	MaxInput int
	// KeepOutput: an output buffer with a larger capacity is released once
	// it has been sent, so idle connections do not hold big buffers.
	// Default 1 MiB.
	KeepOutput int
	// MaxEvents is the epoll_wait batch size. Default 256.
	MaxEvents int
	// PoolBytes bounds the memory kept in the driver's pool of spare input
	// buffers (grown buffers given back when a connection goes idle).
	// Default 64 MiB.
	PoolBytes int
	// KeepAlive, if set, is called once per accepted connection; a result
	// of a second or more turns TCP keepalive on for it, as Redis's
	// anetKeepAlive does: the first probe after that much idle time, then
	// every third of it (at least 1s), and the peer is dead after 3
	// unanswered probes. Zero leaves the kernel's default (off).
	KeepAlive func() time.Duration

	// test knobs
	noMultishotAccept bool
	setupFlags        []uint32 // io_uring setup flag sets to try instead of the defaults
}

func (o *Options) fill() {
	if o.Entries == 0 {
		o.Entries = 4096
	}
	if o.InputSize <= 0 {
		o.InputSize = 16 << 10
	}
	if o.InputSize < 64 {
		o.InputSize = 64
	}
	o.InputSize = 1 << sizeClass(o.InputSize) // grown by doubling: keep powers of two
	if o.MaxInput <= 0 {
		o.MaxInput = 1 << 30
	}
	if o.MaxInput < o.InputSize {
		o.MaxInput = o.InputSize
	}
	if o.KeepOutput <= 0 {
		o.KeepOutput = 1 << 20
	}
	if o.MaxEvents <= 0 {
		o.MaxEvents = 256
	}
	if o.PoolBytes <= 0 {
		o.PoolBytes = 64 << 20
	}
}

var (
	// ErrShutdown is given to OnClose for connections closed by Shutdown.
	ErrShutdown = errors.New("ioloop: driver shut down")
	// ErrInputTooLarge is given to OnClose when unconsumed input exceeds
	// Options.MaxInput.
	ErrInputTooLarge = errors.New("ioloop: input buffer limit exceeded")
	// ErrClosed is returned by methods called after Shutdown.
	ErrClosed = errors.New("ioloop: driver is shut down")
	// ErrReentrant is returned by Poll or Shutdown called from a Handler
	// callback.
	ErrReentrant = errors.New("ioloop: Poll or Shutdown called from a Handler callback")
)

// pbuf is a buffer whose backing array stays pinned for the pbuf's life, so
// an in-flight io_uring request may point into it.
type pbuf struct {
	b   []byte
	pin runtime.Pinner
}

// bufPool recycles input buffers by power-of-two size class, so that growing
// and shrinking input buffers costs no allocation (and no pinning) in steady
// state. Owned by the loop goroutine.
type bufPool struct {
	pinning bool
	classes [40][]*pbuf
	bytes   int // bytes held in classes
	max     int // bound on bytes
}

func sizeClass(n int) int { return bits.Len(uint(n - 1)) }

// get returns a buffer of exactly size bytes (a power of two).
func (p *bufPool) get(size int) *pbuf {
	c := sizeClass(size)
	if n := len(p.classes[c]); n > 0 {
		b := p.classes[c][n-1]
		p.classes[c][n-1] = nil
		p.classes[c] = p.classes[c][:n-1]
		p.bytes -= len(b.b)
		return b
	}
	b := &pbuf{b: make([]byte, size)}
	if p.pinning {
		b.pin.Pin(unsafe.SliceData(b.b))
	}
	return b
}

// put gives b back; it must not be referenced by an in-flight request.
func (p *bufPool) put(b *pbuf) {
	if p.bytes+len(b.b) > p.max {
		b.pin.Unpin()
		return
	}
	c := sizeClass(len(b.b))
	p.classes[c] = append(p.classes[c], b)
	p.bytes += len(b.b)
}

func (p *bufPool) drain() {
	for c := range p.classes {
		for _, b := range p.classes[c] {
			b.pin.Unpin()
		}
		p.classes[c] = nil
	}
	p.bytes = 0
}

// inbuf is a connection's input buffer: b[rd:wr] is received, unconsumed
// data.
type inbuf struct {
	pb     *pbuf
	b      []byte // pb.b
	rd, wr int
}

func (in *inbuf) set(pb *pbuf) {
	in.pb = pb
	in.b = nil
	if pb != nil {
		in.b = pb.b
	}
}

// prepare makes room at the tail for a read. It must only be called when no
// read into the buffer is in flight. An empty buffer goes back to the small
// size (so idle connections hold small buffers); a buffer whose free tail is
// under a quarter is compacted, or doubled when compaction does not help. It
// returns false when the unconsumed data already reaches max.
func (in *inbuf) prepare(p *bufPool, small, max int) bool {
	if in.rd == in.wr {
		in.rd, in.wr = 0, 0
		if in.pb != nil && len(in.b) > small {
			p.put(in.pb)
			in.set(nil)
		}
	}
	if in.pb == nil {
		in.set(p.get(small))
	}
	minFree := len(in.b) / 4
	if len(in.b)-in.wr >= minFree {
		return true
	}
	if in.rd > 0 {
		in.wr = copy(in.b, in.b[in.rd:in.wr])
		in.rd = 0
		if len(in.b)-in.wr >= minFree {
			return true
		}
	}
	if in.wr >= max {
		return false
	}
	nb := p.get(2 * len(in.b))
	copy(nb.b, in.b[:in.wr])
	p.put(in.pb)
	in.set(nb)
	return true
}

// data returns the unconsumed bytes; appending to the result reallocates.
func (in *inbuf) data() []byte { return in.b[in.rd:in.wr:in.wr] }

// reset empties the buffer for the slot's next connection, keeping it only
// if it has the small size.
func (in *inbuf) reset(p *bufPool, small int) {
	in.rd, in.wr = 0, 0
	if in.pb != nil && len(in.b) != small {
		p.put(in.pb)
		in.set(nil)
	}
}

// fill gives an empty buffer b's bytes (a connection taken over with
// its unconsumed input): a buffer of at least small bytes, with a free
// tail of a quarter at least.
func (in *inbuf) fill(p *bufPool, small int, b []byte) {
	in.rd, in.wr = 0, 0
	if len(b) == 0 {
		return
	}
	size := small
	for size-len(b) < size/4 {
		size *= 2
	}
	if in.pb != nil && len(in.b) != size {
		p.put(in.pb)
		in.set(nil)
	}
	if in.pb == nil {
		in.set(p.get(size))
	}
	in.wr = copy(in.b, b)
}

// free releases the buffer for good (driver shut down).
func (in *inbuf) free() {
	in.rd, in.wr = 0, 0
	if in.pb != nil {
		in.pb.pin.Unpin()
		in.set(nil)
	}
}

// pollWait converts a Poll timeout to what the wait needs.
func msecTimeout(d time.Duration) int {
	if d < 0 {
		return -1
	}
	if d == 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	if ms > 1<<30 {
		ms = 1 << 30
	}
	return int(ms)
}

// wakeGate lets Wake write an eventfd without racing Shutdown closing it
// (and the fd number being reused).
type wakeGate struct {
	writers atomic.Int32
	closed  atomic.Bool
}

func (g *wakeGate) write(fd int) {
	g.writers.Add(1)
	if !g.closed.Load() {
		one := [8]byte{1}
		unix.Write(fd, one[:])
	}
	g.writers.Add(-1)
}

func (g *wakeGate) close(fd int) {
	g.closed.Store(true)
	for g.writers.Load() != 0 {
		runtime.Gosched()
	}
	unix.Close(fd)
}

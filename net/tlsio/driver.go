//go:build linux

package tlsio

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/radish-kv/radish/net/ioloop"
)

// Options are what a Driver needs besides the driver it wraps.
type Options struct {
	// Config returns the configuration a new connection's handshake uses
	// (read once per connection, at accept: a certificate reload reaches
	// new handshakes only).
	Config func() *tls.Config
	// HandshakeTimeout returns how long a handshake may take before the
	// connection is cut; read once per connection. At least a second.
	HandshakeTimeout func() time.Duration
	// MaxInput returns the most ciphertext a connection may have waiting
	// while its handshake runs (client-query-buffer-limit); past it the
	// connection is cut. nil: no bound but the handshake timeout.
	MaxInput func() int64
	// KeepOutput: a plaintext output buffer with a larger capacity is
	// released once encrypted. Default 1 MiB.
	KeepOutput int
}

// Driver is an ioloop.Driver in which the connections accepted on the
// listening sockets given to ListenTLS speak TLS: their Input is the
// plaintext received, their Output the plaintext to send. Every other
// connection passes through untouched. Like the driver it wraps, it is
// owned by the loop goroutine; only Wake may be called from others.
type Driver struct {
	ioloop.Driver
	opts  Options
	h     ioloop.Handler // the handler given to Poll
	tlsLn []int          // listening sockets whose connections speak TLS
	conns []*conn        // TLS connections by slot (the low 32 bits of a ConnID)
	dirty []*conn        // TLS connections with plaintext output to encrypt
	spare [][]byte       // emptied plaintext input buffers, reused
	big   [][]byte       // emptied grown ones (a pipelined batch's), reused
	// scratch is the Output of a closed or aborted TLS connection:
	// written to, never sent.
	scratch []byte

	// news: connections whose handshake goroutine wrote or finished,
	// taken by the loop in OnWake.
	mu     sync.Mutex
	news   []*conn
	spareN []*conn
	fresh  atomic.Bool
}

// New wraps d.
func New(d ioloop.Driver, opts Options) *Driver {
	if opts.KeepOutput <= 0 {
		opts.KeepOutput = 1 << 20
	}
	return &Driver{Driver: d, opts: opts}
}

// ListenTLS is Listen for a socket whose connections speak TLS.
func (d *Driver) ListenTLS(fd int) error {
	if err := d.Driver.Listen(fd); err != nil {
		return err
	}
	d.tlsLn = append(d.tlsLn, fd)
	return nil
}

// conn is one TLS connection.
type conn struct {
	id  ioloop.ConnID
	tc  *tls.Conn
	tr  *transport
	hs  bool   // handshaking: tc belongs to the handshake goroutine
	in  []byte // plaintext received; in[rd:] is unconsumed
	rd  int
	out []byte // plaintext written by the handler, not yet encrypted
	// closeReq: Close was called; the connection closes once out is
	// encrypted (after the handshake when it still runs).
	closeReq bool
	gone     bool // aborted, failed or closed by the peer: drop output
	// eof: the peer sent close_notify; the connection closes once the
	// replies to what came before it are encrypted.
	eof    bool
	queued bool // on dirty
	// detach: DetachTLS was called; it runs once the wrapped driver
	// released the socket (or with the error if cn closed first).
	detach func(*tls.Conn, error)
}

// tls returns c's TLS connection, nil for a plain (or stale) one.
func (d *Driver) tls(c ioloop.ConnID) *conn {
	if s := uint32(c); int(s) < len(d.conns) {
		if cn := d.conns[s]; cn != nil && cn.id == c {
			return cn
		}
	}
	return nil
}

// Input implements ioloop.Driver: for a TLS connection, the plaintext
// received and not consumed (nil while it handshakes).
func (d *Driver) Input(c ioloop.ConnID) []byte {
	cn := d.tls(c)
	if cn == nil {
		return d.Driver.Input(c)
	}
	if cn.gone {
		return nil
	}
	return cn.in[cn.rd:len(cn.in):len(cn.in)]
}

// Consume implements ioloop.Driver.
func (d *Driver) Consume(c ioloop.ConnID, n int) {
	cn := d.tls(c)
	if cn == nil {
		d.Driver.Consume(c, n)
		return
	}
	cn.rd = min(cn.rd+n, len(cn.in))
	if cn.rd == len(cn.in) {
		d.putIn(cn)
	}
}

// Output implements ioloop.Driver: for a TLS connection, plaintext that
// is encrypted at the start of the next Poll (once its handshake is done).
func (d *Driver) Output(c ioloop.ConnID) *[]byte {
	cn := d.tls(c)
	if cn == nil {
		return d.Driver.Output(c)
	}
	if cn.gone || cn.closeReq || cn.detach != nil {
		d.scratch = d.scratch[:0]
		return &d.scratch
	}
	d.markDirty(cn)
	return &cn.out
}

// Pending implements ioloop.Driver: plaintext not yet encrypted plus
// ciphertext not yet sent.
func (d *Driver) Pending(c ioloop.ConnID) int {
	n := d.Driver.Pending(c)
	if cn := d.tls(c); cn != nil {
		n += len(cn.out)
	}
	return n
}

// Buffers implements ioloop.Driver: for a TLS connection, the input's
// room is its plaintext buffer's and the output its plaintext not yet
// encrypted; the ciphertext queued below counts as in flight.
func (d *Driver) Buffers(c ioloop.ConnID) ioloop.Buffers {
	b := d.Driver.Buffers(c)
	if cn := d.tls(c); cn != nil {
		b.InFree = cap(cn.in) - len(cn.in)
		b.InFlight += b.Out
		b.Out, b.OutCap = len(cn.out), cap(cn.out)
	}
	return b
}

// Close implements ioloop.Driver. A TLS connection still handshaking
// closes when its handshake ends (at most the handshake timeout later),
// after its output was encrypted and sent.
func (d *Driver) Close(c ioloop.ConnID) {
	cn := d.tls(c)
	if cn == nil {
		d.Driver.Close(c)
		return
	}
	if cn.closeReq || cn.gone {
		return
	}
	if cn.detach != nil { // released to DetachTLS: the wrapped driver closes it
		d.Driver.Close(c)
		return
	}
	cn.closeReq = true
	if !cn.hs {
		d.markDirty(cn)
	}
}

// Abort implements ioloop.Driver.
func (d *Driver) Abort(c ioloop.ConnID) {
	if cn := d.tls(c); cn != nil {
		cn.out = nil
		cn.gone = true
		cn.tr.shut(net.ErrClosed)
	}
	d.Driver.Abort(c)
}

// Unwrap implements ioloop.Wrapper: the driver it wraps.
func (d *Driver) Unwrap() ioloop.Driver { return d.Driver }

// Release implements ioloop.Driver: a TLS connection is never handed
// over (its record state lives in this driver's tls.Conn); a plain one
// is the wrapped driver's.
func (d *Driver) Release(c ioloop.ConnID, done func(fd int, input []byte)) bool {
	if d.tls(c) != nil {
		return false
	}
	return d.Driver.Release(c, done)
}

// Poll implements ioloop.Driver: it encrypts the output written since the
// last Poll, then polls the wrapped driver with itself as the handler.
func (d *Driver) Poll(timeout time.Duration, h ioloop.Handler) error {
	d.h = h
	d.encrypt()
	return d.Driver.Poll(timeout, d)
}

// Flush implements ioloop.Driver: the plaintext output becomes records,
// which the wrapped driver sends now.
func (d *Driver) Flush() {
	d.encrypt()
	d.Driver.Flush()
}

func (d *Driver) markDirty(cn *conn) {
	if !cn.queued {
		cn.queued = true
		d.dirty = append(d.dirty, cn)
	}
}

// encrypt turns the plaintext output of every dirty connection past its
// handshake into records in the wrapped driver's output, and closes those
// that asked to be.
func (d *Driver) encrypt() {
	for i, cn := range d.dirty {
		d.dirty[i] = nil
		cn.queued = false
		if cn.gone || cn.hs || cn.detach != nil || d.tls(cn.id) != cn {
			continue
		}
		if len(cn.out) > 0 {
			_, err := cn.tc.Write(cn.out)
			if cap(cn.out) > d.opts.KeepOutput {
				cn.out = nil
			} else {
				cn.out = cn.out[:0]
			}
			if err != nil {
				d.fail(cn)
				continue
			}
		}
		if cn.closeReq || cn.eof {
			d.Driver.Close(cn.id)
		}
	}
	d.dirty = d.dirty[:0]
}

// fail closes cn after a TLS error: what the TLS layer wrote (an alert)
// is sent, the handler's output is dropped.
func (d *Driver) fail(cn *conn) {
	cn.gone = true
	cn.out = nil
	d.Driver.Close(cn.id)
}

// OnOpen implements ioloop.Handler: a connection from a TLS listener
// starts its handshake on a goroutine of its own (see doc.go); the
// handler hears of it at once, as of any other.
func (d *Driver) OnOpen(c ioloop.ConnID) {
	if d.isTLS(d.Driver.From(c)) {
		cn := &conn{id: c, hs: true}
		cn.tr = &transport{d: d, c: cn, hs: true, signal: make(chan struct{}, 1)}
		cn.tc = tls.Server(cn.tr, d.opts.Config())
		s := uint32(c)
		for int(s) >= len(d.conns) {
			d.conns = append(d.conns, nil)
		}
		d.conns[s] = cn
		go d.handshake(cn, max(d.opts.HandshakeTimeout(), time.Second))
	}
	d.h.OnOpen(c)
}

func (d *Driver) isTLS(ln int) bool {
	for _, fd := range d.tlsLn {
		if fd == ln && ln >= 0 {
			return true
		}
	}
	return false
}

// errHandshakeTimeout cuts a handshake that took too long.
var errHandshakeTimeout = errors.New("tlsio: handshake timed out")

// handshake runs cn's handshake over its transport, then tells the loop.
func (d *Driver) handshake(cn *conn, timeout time.Duration) {
	t := cn.tr
	timer := time.AfterFunc(timeout, func() { t.shut(errHandshakeTimeout) })
	err := cn.tc.Handshake()
	timer.Stop()
	t.mu.Lock()
	t.done, t.err = true, err
	t.mu.Unlock()
	d.notify(cn)
}

// notify queues cn for the loop's next OnWake and wakes the loop.
func (d *Driver) notify(cn *conn) {
	d.mu.Lock()
	d.news = append(d.news, cn)
	d.mu.Unlock()
	d.fresh.Store(true)
	d.Driver.Wake()
}

// OnWake implements ioloop.Handler: it sends what handshakes wrote and
// moves the connections whose handshake ended into the loop.
func (d *Driver) OnWake() {
	if d.fresh.Load() {
		d.mu.Lock()
		news := d.news
		d.news = d.spareN[:0]
		d.fresh.Store(false)
		d.mu.Unlock()
		for i, cn := range news {
			news[i] = nil
			if d.tls(cn.id) == cn && cn.hs {
				d.handshook(cn)
			}
		}
		d.spareN = news[:0]
	}
	d.h.OnWake()
}

// handshook sends the ciphertext cn's handshake wrote and, once it ended,
// hands the connection to the loop: records are read and written there
// from now on.
func (d *Driver) handshook(cn *conn) {
	t := cn.tr
	t.mu.Lock()
	out := t.out
	t.out = nil
	done, err := t.done, t.err
	t.mu.Unlock()
	if len(out) > 0 && !cn.gone {
		o := d.Driver.Output(cn.id)
		*o = append(*o, out...)
	}
	if !done {
		d.feed(cn)
		return
	}
	cn.hs, t.hs = false, false
	switch {
	case cn.gone:
	case err != nil:
		d.fail(cn)
	default:
		// The client may have sent commands right behind its Finished.
		if d.decrypt(cn) {
			d.h.OnData(cn.id)
		}
		d.markDirty(cn)
	}
}

// OnData implements ioloop.Handler.
func (d *Driver) OnData(c ioloop.ConnID) {
	cn := d.tls(c)
	if cn == nil {
		d.h.OnData(c)
		return
	}
	if cn.gone {
		d.Driver.Consume(c, len(d.Driver.Input(c)))
		return
	}
	if cn.hs {
		d.feed(cn)
		return
	}
	if cn.eof {
		d.Driver.Consume(c, len(d.Driver.Input(c)))
		return
	}
	if d.decrypt(cn) {
		d.h.OnData(c)
	}
}

// feed hands cn's handshake the ciphertext received for it, as much as
// it takes; what it does not take stays in the wrapped driver's input (the
// loop reads it once the handshake is over), up to Options.MaxInput.
func (d *Driver) feed(cn *conn) {
	if cn.gone {
		return
	}
	in := d.Driver.Input(cn.id)
	if len(in) == 0 {
		return
	}
	n := cn.tr.feed(in)
	d.Driver.Consume(cn.id, n)
	if d.opts.MaxInput != nil && int64(len(in)-n) > d.opts.MaxInput() {
		cn.gone = true
		cn.tr.shut(net.ErrClosed)
		d.Driver.Abort(cn.id)
	}
}

// OnClose implements ioloop.Handler.
func (d *Driver) OnClose(c ioloop.ConnID, err error) {
	if cn := d.tls(c); cn != nil {
		cn.gone = true
		cn.tr.shut(net.ErrClosed)
		d.putIn(cn)
		d.conns[uint32(c)] = nil
		if done := cn.detach; done != nil {
			cn.detach = nil
			why := err
			if why == nil {
				why = net.ErrClosed
			}
			done(nil, why)
		}
	}
	d.h.OnClose(c, err)
}

// readBudget is what one tls.Conn.Read may take from the ciphertext
// received: a record and a bit, so that crypto/tls's own input buffer
// stays about one record large however much arrived.
const readBudget = 16<<10 + 2<<10

// minFree is the free space decrypt keeps at the tail of a plaintext
// input buffer (a record's plaintext).
const minFree = 16 << 10

// decrypt decrypts every complete record received for cn into its
// plaintext input and reports whether plaintext arrived. A TLS error (a
// bad record, an alert) closes the connection; close_notify closes it
// once what came before it is answered, as a plain connection's FIN.
func (d *Driver) decrypt(cn *conn) bool {
	got := false
	// Only while a whole record can be decrypted (transport.ready): a Read
	// that finds none costs crypto/tls an allocation and nothing else.
	for cn.tr.ready() {
		if cap(cn.in)-len(cn.in) < minFree {
			d.growIn(cn)
		}
		cn.tr.budget = readBudget
		n, err := cn.tc.Read(cn.in[len(cn.in):cap(cn.in)])
		cn.in = cn.in[:len(cn.in)+n]
		got = got || n > 0
		if err == nil {
			// A Read that returned data consumed a record (its plaintext
			// fits: minFree).
			if n > 0 && cn.tr.whole > 0 {
				cn.tr.whole--
			}
			continue
		}
		if err == errWouldBlock {
			// crypto/tls stops only short of a whole record; the budget
			// may have cut one that has arrived: ready says.
			cn.tr.whole = 0
			continue
		}
		if err == io.EOF {
			cn.eof = true
			d.markDirty(cn)
			break
		}
		d.fail(cn)
		break
	}
	if len(cn.in) == cn.rd {
		d.putIn(cn)
	}
	return got && !cn.gone
}

// spareMax bounds the plaintext input buffers a driver keeps for reuse;
// bigMax and bigCap the grown ones (at most 1 MiB a driver), which a
// pipelined batch would otherwise allocate anew each time it arrives.
const (
	spareMax = 256
	bigMax   = 4
	bigCap   = 256 << 10
)

// growIn makes room for a record's plaintext in cn's input: compacted,
// or from the spare buffers, or doubled.
func (d *Driver) growIn(cn *conn) {
	if cn.rd > 0 {
		cn.in = cn.in[:copy(cn.in, cn.in[cn.rd:])]
		cn.rd = 0
		if cap(cn.in)-len(cn.in) >= minFree {
			return
		}
	}
	if cn.in == nil && len(d.spare) > 0 {
		cn.in = d.spare[len(d.spare)-1][:0]
		d.spare[len(d.spare)-1] = nil
		d.spare = d.spare[:len(d.spare)-1]
		return
	}
	var nb []byte
	if k := len(d.big) - 1; k >= 0 && cap(d.big[k]) >= len(cn.in)+minFree {
		nb = d.big[k][:len(cn.in)]
		d.big[k] = nil
		d.big = d.big[:k]
	} else {
		nb = make([]byte, len(cn.in), max(2*cap(cn.in), 2*minFree))
	}
	copy(nb, cn.in)
	d.recycle(cn.in)
	cn.in = nb
}

// recycle keeps an emptied plaintext buffer for reuse, when there is
// room: a small one with the spares, a grown one up to bigCap with the
// big ones; others go to the garbage collector.
func (d *Driver) recycle(b []byte) {
	switch c := cap(b); {
	case c == 2*minFree && len(d.spare) < spareMax:
		d.spare = append(d.spare, b[:0])
	case c > 2*minFree && c <= bigCap && len(d.big) < bigMax:
		d.big = append(d.big, b[:0])
	}
}

// putIn gives back cn's emptied input buffer (recycle), so that an idle
// connection holds no buffer.
func (d *Driver) putIn(cn *conn) {
	if cn.in == nil || cn.rd < len(cn.in) && !cn.gone {
		return
	}
	d.recycle(cn.in)
	cn.in, cn.rd = nil, 0
}

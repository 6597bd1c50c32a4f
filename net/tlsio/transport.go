//go:build linux

package tlsio

import (
	"errors"
	"net"
	"sync"
	"time"
)

// transport is the net.Conn under a connection's tls.Conn: bytes in
// memory, never a socket. While the handshake runs (hs) its goroutine
// blocks in Read until the loop fed ciphertext (feed) or shut it, and
// Write queues ciphertext for the loop to send (notify); mu guards that
// exchange. Once the loop took the connection over, Read takes the
// ciphertext the driver received, at most budget bytes per decrypt step,
// and says errWouldBlock when there is none (crypto/tls keeps a partial
// record and does not make that error sticky), and Write appends to the
// wrapped driver's output: no lock, no goroutine.
type transport struct {
	d  *Driver
	c  *conn
	hs bool // the handshake goroutine owns reads and writes

	mu     sync.Mutex
	in     []byte // ciphertext fed and not yet read (during the handshake; a rest after it)
	out    []byte // ciphertext written by the handshake, not yet sent
	closed error  // set by shut: Read and Write fail with it
	done   bool   // the handshake returned, with err
	err    error
	signal chan struct{} // cap 1: feed or shut happened

	budget int // loop mode: what Read may still take in this decrypt step
}

// errWouldBlock is what the loop's Read returns when no ciphertext is
// left: a temporary net.Error, which crypto/tls does not keep.
var errWouldBlock net.Error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "tlsio: no more input" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

// maxHandshakeInput bounds the ciphertext a handshake may have unread: a
// client sending more than its handshake needs is cut.
const maxHandshakeInput = 256 << 10

var errHandshakeInput = errors.New("tlsio: too much input during the handshake")

// feed hands the handshake goroutine ciphertext (loop side).
func (t *transport) feed(b []byte) {
	if len(b) == 0 {
		return
	}
	t.mu.Lock()
	if len(t.in)+len(b) > maxHandshakeInput {
		if t.closed == nil {
			t.closed = errHandshakeInput
		}
	} else {
		t.in = append(t.in, b...)
	}
	t.mu.Unlock()
	t.poke()
}

// shut makes every later Read and Write fail with err (any goroutine).
func (t *transport) shut(err error) {
	t.mu.Lock()
	if t.closed == nil {
		t.closed = err
	}
	t.mu.Unlock()
	t.poke()
}

func (t *transport) poke() {
	select {
	case t.signal <- struct{}{}:
	default:
	}
}

// Read implements net.Conn.
func (t *transport) Read(p []byte) (int, error) {
	if !t.hs {
		return t.loopRead(p)
	}
	t.mu.Lock()
	for len(t.in) == 0 && t.closed == nil {
		t.mu.Unlock()
		<-t.signal
		t.mu.Lock()
	}
	defer t.mu.Unlock()
	if len(t.in) == 0 {
		return 0, t.closed
	}
	n := copy(p, t.in)
	t.in = t.in[:copy(t.in, t.in[n:])]
	return n, nil
}

// loopRead is Read once the loop owns the connection: first what the
// handshake left unread, then the driver's input.
func (t *transport) loopRead(p []byte) (int, error) {
	p = p[:min(len(p), t.budget)]
	if len(p) == 0 {
		return 0, errWouldBlock
	}
	var n int
	if len(t.in) > 0 {
		n = copy(p, t.in)
		t.in = t.in[n:]
		if len(t.in) == 0 {
			t.in = nil
		}
	} else {
		in := t.d.Driver.Input(t.c.id)
		if len(in) == 0 {
			return 0, errWouldBlock
		}
		n = copy(p, in)
		t.d.Driver.Consume(t.c.id, n)
	}
	t.budget -= n
	return n, nil
}

// Write implements net.Conn.
func (t *transport) Write(p []byte) (int, error) {
	if !t.hs {
		o := t.d.Driver.Output(t.c.id)
		*o = append(*o, p...)
		return len(p), nil
	}
	t.mu.Lock()
	if t.closed != nil {
		t.mu.Unlock()
		return 0, t.closed
	}
	t.out = append(t.out, p...)
	t.mu.Unlock()
	t.d.notify(t.c)
	return len(p), nil
}

// Close implements net.Conn; crypto/tls calls it only from tls.Conn.Close,
// which the driver never calls.
func (t *transport) Close() error {
	t.shut(net.ErrClosed)
	return nil
}

var noAddr = &net.TCPAddr{}

func (t *transport) LocalAddr() net.Addr              { return noAddr }
func (t *transport) RemoteAddr() net.Addr             { return noAddr }
func (t *transport) SetDeadline(time.Time) error      { return nil }
func (t *transport) SetReadDeadline(time.Time) error  { return nil }
func (t *transport) SetWriteDeadline(time.Time) error { return nil }

//go:build linux

package tlsio

import (
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
// wrapped driver's output: no lock, no goroutine. Once DetachTLS handed
// the connection over, it is the socket (sock), first what the loop had
// received (in).
type transport struct {
	d    *Driver
	c    *conn
	hs   bool     // the handshake goroutine owns reads and writes
	sock net.Conn // set by detach: the goroutine DetachTLS handed it to owns it

	mu     sync.Mutex
	in     []byte // ciphertext fed and not yet read (during the handshake; a rest after it)
	out    []byte // ciphertext written by the handshake, not yet sent
	closed error  // set by shut: Read and Write fail with it
	held   bool   // the loop left ciphertext in the driver's input: ask for it once in is read
	done   bool   // the handshake returned, with err
	err    error
	signal chan struct{} // cap 1: feed or shut happened

	budget int // loop mode: what Read may still take in this decrypt step

	// Where the bytes Read handed crypto/tls stand in the record stream
	// (framed), so that decrypt can tell when crypto/tls holds no
	// ciphertext and need not be asked again (each ask that finds none
	// costs crypto/tls an allocation): hn bytes of a record header in hdr,
	// or left bytes of a record's body; whole counts the records handed
	// whole and not known to be consumed (an overcount is safe: it asks
	// once more). Owned by whoever owns reads (hs).
	hdr      [recordHeaderLen]byte
	hn, left int
	whole    int
}

// recordHeaderLen is a TLS record's header: type, version, length.
const recordHeaderLen = 5

// framed follows the record framing of b, the next bytes handed to
// crypto/tls.
func (t *transport) framed(b []byte) {
	for len(b) > 0 {
		if t.left == 0 {
			k := copy(t.hdr[t.hn:], b)
			t.hn += k
			b = b[k:]
			if t.hn < recordHeaderLen {
				return
			}
			t.hn = 0
			if t.left = int(t.hdr[3])<<8 | int(t.hdr[4]); t.left == 0 {
				t.whole++
			}
			continue
		}
		k := min(t.left, len(b))
		t.left -= k
		b = b[k:]
		if t.left == 0 {
			t.whole++
		}
	}
}

// ready reports, in the loop, whether a Read can decrypt a record: one
// handed whole and not known consumed (whole: decrypt counts down one
// per Read that returned data, and zeroes it when crypto/tls stopped for
// want of input), or one the ciphertext waiting (the handshake's rest,
// then the wrapped driver's input) completes.
func (t *transport) ready() bool {
	if t.whole > 0 {
		return true
	}
	in := t.d.Driver.Input(t.c.id)
	avail := len(t.in) + len(in)
	if t.left > 0 {
		return avail >= t.left
	}
	if t.hn+avail < recordHeaderLen {
		return false
	}
	h := t.hdr
	for i := t.hn; i < recordHeaderLen; i++ {
		if j := i - t.hn; j < len(t.in) {
			h[i] = t.in[j]
		} else {
			h[i] = in[j-len(t.in)]
		}
	}
	return avail-(recordHeaderLen-t.hn) >= int(h[3])<<8|int(h[4])
}

// errWouldBlock is what the loop's Read returns when no ciphertext is
// left: a temporary net.Error, which crypto/tls does not keep.
var errWouldBlock net.Error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "tlsio: no more input" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

// maxFeed bounds the ciphertext a handshake is handed and has not read:
// more waits in the wrapped driver's input (held), and is fed when the
// handshake read what it had.
const maxFeed = 256 << 10

// feed hands the handshake goroutine as much of b as fits under maxFeed
// and returns how much (loop side); held says whether more remains.
func (t *transport) feed(b []byte) int {
	t.mu.Lock()
	n := min(len(b), max(maxFeed-len(t.in), 0))
	t.in = append(t.in, b[:n]...)
	t.held = n < len(b)
	t.mu.Unlock()
	if n > 0 {
		t.poke()
	}
	return n
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

// detach makes sock the transport, after the ciphertext the loop read
// and input, which the wrapped driver had received (loop side, before the
// hand-over).
func (t *transport) detach(sock net.Conn, input []byte) {
	t.sock = sock
	t.in = append(t.in, input...)
}

// Read implements net.Conn.
func (t *transport) Read(p []byte) (int, error) {
	if t.sock != nil {
		if len(t.in) > 0 {
			n := copy(p, t.in)
			t.in = t.in[n:]
			return n, nil
		}
		return t.sock.Read(p)
	}
	if !t.hs {
		return t.loopRead(p)
	}
	t.mu.Lock()
	for len(t.in) == 0 && t.closed == nil {
		t.mu.Unlock()
		<-t.signal
		t.mu.Lock()
	}
	if len(t.in) == 0 {
		t.mu.Unlock()
		return 0, t.closed
	}
	n := copy(p, t.in)
	t.framed(p[:n])
	t.in = t.in[:copy(t.in, t.in[n:])]
	ask := len(t.in) == 0 && t.held
	t.held = t.held && !ask
	t.mu.Unlock()
	if ask {
		t.d.notify(t.c)
	}
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
		t.framed(p[:n])
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
		t.framed(p[:n])
		t.d.Driver.Consume(t.c.id, n)
	}
	t.budget -= n
	return n, nil
}

// Write implements net.Conn.
func (t *transport) Write(p []byte) (int, error) {
	if t.sock != nil {
		return t.sock.Write(p)
	}
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
// which the driver never calls (a detached connection's goroutine does).
func (t *transport) Close() error {
	if t.sock != nil {
		return t.sock.Close()
	}
	t.shut(net.ErrClosed)
	return nil
}

var noAddr = &net.TCPAddr{}

func (t *transport) LocalAddr() net.Addr {
	if t.sock != nil {
		return t.sock.LocalAddr()
	}
	return noAddr
}

func (t *transport) RemoteAddr() net.Addr {
	if t.sock != nil {
		return t.sock.RemoteAddr()
	}
	return noAddr
}

// SetDeadline and the others implement net.Conn: deadlines apply to a
// detached connection's socket only (the loop never blocks).
func (t *transport) SetDeadline(at time.Time) error {
	if t.sock != nil {
		return t.sock.SetDeadline(at)
	}
	return nil
}

func (t *transport) SetReadDeadline(at time.Time) error {
	if t.sock != nil {
		return t.sock.SetReadDeadline(at)
	}
	return nil
}

func (t *transport) SetWriteDeadline(at time.Time) error {
	if t.sock != nil {
		return t.sock.SetWriteDeadline(at)
	}
	return nil
}

//go:build linux

package tlsio

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/ioloop"
)

// testCert is a self-signed server certificate for 127.0.0.1 and the pool
// that trusts it.
func testCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "radish test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// echo writes back every byte it reads, on any connection.
type echo struct {
	d       ioloop.Driver
	mu      sync.Mutex
	opened  int
	closed  int
	lastErr error
}

func (e *echo) OnOpen(ioloop.ConnID) { e.mu.Lock(); e.opened++; e.mu.Unlock() }
func (e *echo) OnData(c ioloop.ConnID) {
	in := e.d.Input(c)
	out := e.d.Output(c)
	if string(in) == "release?" { // answered whether Release hands c over
		if e.d.Release(c, func(fd int, _ []byte) { syscall.Close(fd) }) {
			*out = append(*out, "released"...)
		} else {
			*out = append(*out, "refused"...)
		}
		e.d.Consume(c, len(in))
		return
	}
	if string(in) == "detach?" { // "ok:", then the goroutine's turn (detached)
		*out = append(*out, "ok:"...)
		e.d.Consume(c, len(in))
		if err := e.d.(*Driver).DetachTLS(c, detached); err != nil {
			*out = append(*out, err.Error()...)
		}
		return
	}
	*out = append(*out, in...)
	e.d.Consume(c, len(in))
}

// detached is a detached TLS connection's goroutine: it writes
// "goroutine", answers "ping" with "pong" and closes.
func detached(tc *tls.Conn, err error) {
	if err != nil {
		return
	}
	go func() {
		defer tc.Close()
		tc.SetDeadline(time.Now().Add(10 * time.Second))
		tc.Write([]byte("goroutine"))
		b := make([]byte, 4)
		if _, err := io.ReadFull(tc, b); err == nil && string(b) == "ping" {
			tc.Write([]byte("pong"))
		}
	}()
}
func (e *echo) OnClose(_ ioloop.ConnID, err error) {
	e.mu.Lock()
	e.closed++
	e.lastErr = err
	e.mu.Unlock()
}
func (e *echo) OnWake() {}

// serve runs a driver from nd wrapped in a Driver with one plain and one
// TLS listener until the test ends; it returns both ports.
func serve(t testing.TB, nd func(ioloop.Options) (ioloop.Driver, error), cert tls.Certificate, timeout time.Duration) (plain, secure int, h *echo) {
	h = &echo{}
	ready := make(chan error, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		inner, err := nd(ioloop.Options{})
		if err != nil {
			ready <- err
			return
		}
		conf := &tls.Config{Certificates: []tls.Certificate{cert}}
		d := New(inner, Options{Config: func() *tls.Config { return conf }, HandshakeTimeout: func() time.Duration { return timeout }})
		h.d = d
		pfd, _ := ioloop.ListenTCP("127.0.0.1:0", true)
		sfd, _ := ioloop.ListenTCP("127.0.0.1:0", true)
		plain, _ = ioloop.LocalPort(pfd)
		secure, _ = ioloop.LocalPort(sfd)
		if err := d.Listen(pfd); err != nil {
			ready <- err
			return
		}
		if err := d.ListenTLS(sfd); err != nil {
			ready <- err
			return
		}
		ready <- nil
		for {
			select {
			case <-stop:
				d.Shutdown()
				return
			default:
			}
			if err := d.Poll(20*time.Millisecond, h); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	if err := <-ready; err != nil {
		if errors.Is(err, ioloop.ErrUringUnavailable) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { close(stop); <-done })
	return plain, secure, h
}

var drivers = []struct {
	name string
	new  func(ioloop.Options) (ioloop.Driver, error)
}{{"io_uring", ioloop.NewUring}, {"epoll", ioloop.NewEpoll}}

// TestEcho: TLS and plain connections on one driver; a TLS client's
// bytes come back whole in any chunking (records split over reads, many
// records in one read), large payloads included; a client that stalls
// in its handshake is cut after the timeout while others are served.
func TestEcho(t *testing.T) {
	cert, pool := testCert(t)
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			// A handshake timeout a loaded machine (-race) leaves the real
			// client's handshake time for.
			plain, secure, h := serve(t, dr.new, cert, 3*time.Second)
			stalled, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(secure))
			if err != nil {
				t.Fatal(err)
			}
			defer stalled.Close()
			stalled.Write([]byte{0x16, 0x03, 0x01}) // a record header, then nothing
			start := time.Now()

			c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(secure), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			payload := make([]byte, 8<<20)
			rand.Read(payload)
			go func() {
				for rest := payload; len(rest) > 0; {
					n := min(len(rest), 1+len(rest)%70000)
					if _, err := c.Write(rest[:n]); err != nil {
						t.Error(err)
						return
					}
					rest = rest[n:]
				}
			}()
			got := make([]byte, len(payload))
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, payload) {
				t.Fatal("echoed bytes differ")
			}

			p, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(plain))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.Write([]byte("plain\r\n"))
			buf := make([]byte, 7)
			p.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(p, buf); err != nil || string(buf) != "plain\r\n" {
				t.Fatalf("plain echo %q %v", buf, err)
			}

			stalled.SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := stalled.Read(make([]byte, 1)); err == nil {
				t.Error("a stalled handshake got an answer")
			}
			if d := time.Since(start); d < 2900*time.Millisecond {
				t.Errorf("the stalled handshake was cut after %v, before its 3s timeout", d)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				h.mu.Lock()
				opened, closed := h.opened, h.closed
				h.mu.Unlock()
				if opened == 3 && closed == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("handler saw %d opens and %d closes, want 3 and 1", opened, closed)
				}
			}
		})
	}
}

// TestCloseNotify: bytes a client sends right before close_notify are
// answered before the connection closes, as a plain connection's are
// before its FIN.
func TestCloseNotify(t *testing.T) {
	cert, pool := testCert(t)
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			_, secure, _ := serve(t, dr.new, cert, 5*time.Second)
			c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(secure), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write([]byte("last words"))
			c.CloseWrite()
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			got, err := io.ReadAll(c)
			if string(got) != "last words" || err != nil {
				t.Errorf("read %q, %v; want the echo, then EOF", got, err)
			}
		})
	}
}

// TestTLSNotReleased: Release refuses a TLS connection, which goes on
// being served where it is.
func TestTLSNotReleased(t *testing.T) {
	cert, pool := testCert(t)
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			_, secure, _ := serve(t, dr.new, cert, 5*time.Second)
			c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(secure), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			c.Write([]byte("release?"))
			got := make([]byte, len("refused"))
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "refused" {
				t.Fatalf("read %q, %v; want refused", got, err)
			}
			c.Write([]byte("still here"))
			got = make([]byte, len("still here"))
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "still here" {
				t.Fatalf("read %q, %v after the refused release", got, err)
			}
		})
	}
}

// TestDetachTLS: a TLS connection handed to a goroutine by DetachTLS goes
// on, its records in sequence: what the handler wrote before, then the
// goroutine's reads and writes on the socket; the handler hears OnClose.
func TestDetachTLS(t *testing.T) {
	cert, pool := testCert(t)
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			_, secure, h := serve(t, dr.new, cert, 5*time.Second)
			c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(secure), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			c.Write([]byte("detach?"))
			got := make([]byte, len("ok:goroutine"))
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "ok:goroutine" {
				t.Fatalf("read %q, %v; want ok:goroutine", got, err)
			}
			c.Write([]byte("ping"))
			if rest, err := io.ReadAll(c); string(rest) != "pong" || err != nil {
				t.Fatalf("read %q, %v; want pong, then EOF", rest, err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				h.mu.Lock()
				closed := h.closed
				h.mu.Unlock()
				if closed == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("handler saw %d closes, want 1", closed)
				}
			}
		})
	}
}

// TestFramed: the transport follows the record framing of the bytes it
// hands crypto/tls however they are split: whole records counted, a
// split header or body known as such.
func TestFramed(t *testing.T) {
	var stream []byte
	lens := []int{0, 1, 300, 16384 + 256, 4, 70}
	for _, n := range lens {
		stream = append(stream, 23, 3, 3, byte(n>>8), byte(n))
		stream = append(stream, make([]byte, n)...)
	}
	for _, step := range []int{1, 2, 3, 5, 7, 1000, len(stream)} {
		tr := &transport{}
		for i := 0; i < len(stream); i += step {
			tr.framed(stream[i:min(i+step, len(stream))])
			if end := min(i+step, len(stream)); end < len(stream) && tr.hn == 0 && tr.left == 0 {
				// At a boundary: the bytes so far are whole records.
				at := 0
				for _, n := range lens {
					if at == end {
						break
					}
					at += recordHeaderLen + n
				}
				if at != end {
					t.Fatalf("step %d: a boundary claimed at %d", step, end)
				}
			}
		}
		if tr.whole != len(lens) || tr.hn != 0 || tr.left != 0 {
			t.Errorf("step %d: whole %d, hn %d, left %d; want %d records, at a boundary", step, tr.whole, tr.hn, tr.left, len(lens))
		}
	}
}

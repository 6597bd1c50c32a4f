//go:build linux

package tlsio

import (
	"crypto/tls"
	"errors"
	"net"
	"os"

	"github.com/radish-kv/radish/net/ioloop"
)

// ErrNotTLS is DetachTLS's answer for a plain connection: Detach it.
var ErrNotTLS = errors.New("tlsio: not a TLS connection")

// errDetach refuses Detach of a TLS connection: its socket alone is of no
// use, its records' state is in its tls.Conn (DetachTLS hands over both).
var errDetach = errors.New("tlsio: a TLS connection is handed over by DetachTLS")

// Detach implements ioloop.Driver for plain connections; a TLS one is
// refused (DetachTLS).
func (d *Driver) Detach(c ioloop.ConnID) (int, error) {
	if d.tls(c) != nil {
		return -1, errDetach
	}
	return d.Driver.Detach(c)
}

// DetachTLS hands TLS connection c, past its handshake, to the caller as
// a tls.Conn over its own socket, in blocking mode, for a goroutine to
// read and write (a replication flow, written by its sender from then
// on). The plaintext c's handler wrote before is encrypted first; once
// every record written on the ring was sent (the records are numbered:
// none may be lost between the ring and the goroutine), done runs during
// a later Poll with the connection, and OnClose follows for c as after
// Detach. If c closes first, done runs with the error instead, then
// OnClose. Plaintext received and not consumed is dropped: the peer is to
// send nothing more. It returns ErrNotTLS for a plain c.
func (d *Driver) DetachTLS(c ioloop.ConnID, done func(*tls.Conn, error)) error {
	cn := d.tls(c)
	if cn == nil {
		return ErrNotTLS
	}
	if cn.hs || cn.gone || cn.closeReq || cn.eof || cn.detach != nil {
		return ioloop.ErrClosed
	}
	if len(cn.out) > 0 {
		_, err := cn.tc.Write(cn.out)
		cn.out = nil
		if err != nil {
			d.fail(cn)
			return err
		}
	}
	if !d.Driver.Release(c, func(fd int, input []byte) { d.detached(cn, fd, input) }) {
		return ioloop.ErrClosed
	}
	cn.detach = done
	return nil
}

// detached runs when the wrapped driver released cn's socket: its
// tls.Conn reads and writes the socket from now on.
func (d *Driver) detached(cn *conn, fd int, input []byte) {
	done := cn.detach
	cn.detach = nil
	cn.gone = true
	d.putIn(cn)
	if d.tls(cn.id) == cn {
		d.conns[uint32(cn.id)] = nil
	}
	f := os.NewFile(uintptr(fd), "tls")
	sock, err := net.FileConn(f) // a duplicate, in the runtime's poller
	f.Close()
	if err != nil {
		done(nil, err)
	} else {
		cn.tr.detach(sock, input)
		done(cn.tc, nil)
	}
	d.h.OnClose(cn.id, err)
}

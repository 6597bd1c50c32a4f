package repl

import (
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"time"
)

// dial connects to the primary: plain TCP, or TLS when Options.TLS gives
// a configuration (tls-replication), the handshake done within the
// timeout. Every link to the primary (the replication connection and
// each flow) is dialed here, and what is read from it is counted in
// Options.Read.
func (r *Replica) dial() (net.Conn, error) {
	c, err := r.dialConn()
	if err != nil || r.o.Read == nil {
		return c, err
	}
	return countedConn{c, r.o.Read}, nil
}

// countedConn is a connection whose reads are counted in n.
type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// dialConn is dial's connection.
func (r *Replica) dialConn() (net.Conn, error) {
	d := net.Dialer{Timeout: r.o.Timeout}
	c, err := d.Dial("tcp", r.o.Addr)
	if err != nil {
		return nil, err
	}
	var conf *tls.Config
	if r.o.TLS != nil {
		conf = r.o.TLS()
	}
	if conf == nil {
		return c, nil
	}
	tc := tls.Client(c, conf)
	tc.SetDeadline(time.Now().Add(r.o.Timeout))
	if err := tc.Handshake(); err != nil {
		c.Close()
		return nil, fmt.Errorf("TLS handshake with the primary: %w", err)
	}
	tc.SetDeadline(time.Time{})
	return tc, nil
}

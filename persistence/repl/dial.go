package repl

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"
)

// dial connects to the primary: plain TCP, or TLS when Options.TLS gives
// a configuration (tls-replication), the handshake done within the
// timeout. Every link to the primary (the replication connection and
// each flow) is dialed here.
func (r *Replica) dial() (net.Conn, error) {
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

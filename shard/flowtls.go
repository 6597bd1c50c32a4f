package shard

import (
	"crypto/tls"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/net/tlsio"
)

// detachFlow hands flow connection c's socket to the flow's sender
// (flows.go). A plain connection's is its own (Detach). A TLS
// connection's records must go through its tls.Conn, which no raw write
// may bypass: the sender gets one end of a socket pair, and a goroutine
// (pumpTLS) encrypts what comes out of the other end onto the
// connection's socket, once the ring handed the tls.Conn over
// (tlsio.Driver.DetachTLS). So a flow over TLS never takes the
// zero-copy transport: its bytes are copied through the pair and
// encrypted (rdma's doc.go).
func (s *Shard) detachFlow(c ioloop.ConnID) (int, error) {
	t, ok := s.drv.(*tlsio.Driver)
	if !ok {
		return s.drv.Detach(c)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socketpair", err)
	}
	got := make(chan *tls.Conn, 1) // the hand-over runs on the loop: never blocks
	err = t.DetachTLS(c, func(tc *tls.Conn, _ error) { got <- tc })
	if err == tlsio.ErrNotTLS {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return s.drv.Detach(c)
	}
	if err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return -1, err
	}
	unix.SetNonblock(fds[0], true) // as a detached socket is
	unix.SetNonblock(fds[1], true) // the pump reads it through the runtime's poller
	go pumpTLS(got, os.NewFile(uintptr(fds[1]), "flow-tls"), time.Duration(s.conf.ReplTimeout)*time.Second)
	return fds[0], nil
}

// pumpTLS writes what the flow's sender writes into src to the flow's
// tls.Conn, once got hands it over, until the sender closes its end;
// then closes both. A connection not handed over within timeout, or a
// write that does not go out within it, ends the pump, and the sender's
// next write fails.
func pumpTLS(got <-chan *tls.Conn, src *os.File, timeout time.Duration) {
	defer src.Close()
	var tc *tls.Conn
	select {
	case tc = <-got:
	case <-time.After(timeout):
	}
	if tc == nil {
		return
	}
	defer tc.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			tc.SetWriteDeadline(time.Now().Add(timeout))
			if _, err := tc.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

package shard

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// MIGRATE's connections to its targets (command.Server.Migrate), kept
// between commands as Redis keeps them: one per host:port, closed once
// unused for migrateKeep, at most migrateMax of them. A MIGRATE takes its
// connection out while it uses it, so shards running MIGRATEs at once
// never share one. The MIGRATE waits on its shard's goroutine (Redis's
// whole server waits), each step at most the command's timeout.

const (
	migrateKeep = 10 * time.Second
	migrateMax  = 64
)

// Redis's IOERR errors of MIGRATE ("reading to" is Redis's wording).
const (
	errMigrateConnect = "IOERR error or timeout connecting to the client"
	errMigrateWrite   = "IOERR error or timeout writing to target instance"
	errMigrateRead    = "IOERR error or timeout reading to target instance"
)

// migrateConn is a connection to a MIGRATE target and the bytes read from
// it that are not a whole reply yet.
type migrateConn struct {
	c    net.Conn
	buf  []byte
	used time.Time
}

// migrateConns are the connections kept, by host:port.
type migrateConns struct {
	mu    sync.Mutex
	conns map[string]*migrateConn
	timer *time.Timer
}

// Migrate implements command.Server: cmds go in one write, then the n
// replies are read. A failure before any reply that is not a timeout is
// tried once more on a new connection, as Redis does (the connection kept
// may have been closed by the target meanwhile).
func (g *Group) Migrate(host, port string, timeout time.Duration, cmds []byte, n int) ([]string, string) {
	addr := net.JoinHostPort(host, port)
	for try := 0; ; try++ {
		mc := g.migrates.take(addr)
		if mc == nil {
			c, err := net.DialTimeout("tcp", addr, timeout)
			if err != nil {
				return nil, dialError(err)
			}
			mc = &migrateConn{c: c}
		}
		errs, wrote, err := mc.roundTrip(cmds, n, timeout)
		if err == nil {
			g.migrates.put(addr, mc)
			return errs, ""
		}
		mc.c.Close()
		if len(errs) == 0 && try == 0 && !errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if !wrote {
			return errs, errMigrateWrite
		}
		return errs, errMigrateRead
	}
}

// dialError is Redis's reply to a failed connection: Redis connects
// without blocking and waits for the socket to be writable, which a
// refused or unreachable connection also is, so that it fails only at
// the write; a timeout, or an address it cannot use, fails the connect.
func dialError(err error) string {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.ECONNRESET) {
		return errMigrateWrite
	}
	return errMigrateConnect
}

// roundTrip writes cmds and reads n replies, each step within timeout:
// each reply's error text, "" for one that is not an error.
func (mc *migrateConn) roundTrip(cmds []byte, n int, timeout time.Duration) (errs []string, wrote bool, err error) {
	mc.c.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := mc.c.Write(cmds); err != nil {
		return nil, false, err
	}
	errs = make([]string, 0, n)
	for len(errs) < n {
		v, k, perr := resp.ReadReply(mc.buf)
		if perr != nil {
			return errs, true, perr
		}
		if k > 0 {
			e := ""
			if v.Type == '-' || v.Type == '!' {
				e = string(v.Str)
			}
			errs = append(errs, e)
			mc.buf = mc.buf[:copy(mc.buf, mc.buf[k:])]
			continue
		}
		if len(mc.buf) == cap(mc.buf) {
			mc.buf = append(mc.buf, make([]byte, max(4096, len(mc.buf)))...)[:len(mc.buf)]
		}
		mc.c.SetReadDeadline(time.Now().Add(timeout))
		r, err := mc.c.Read(mc.buf[len(mc.buf):cap(mc.buf)])
		mc.buf = mc.buf[:len(mc.buf)+r]
		if err != nil && r == 0 {
			return errs, true, err
		}
	}
	return errs, true, nil
}

// take returns the connection kept for addr, taken out, or nil.
func (m *migrateConns) take(addr string) *migrateConn {
	m.mu.Lock()
	defer m.mu.Unlock()
	mc := m.conns[addr]
	delete(m.conns, addr)
	return mc
}

// put keeps mc for addr: the one kept already (another MIGRATE's, made
// meanwhile) is closed, and so is one of the others when migrateMax are
// kept.
func (m *migrateConns) put(addr string, mc *migrateConn) {
	mc.used = time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conns == nil {
		m.conns = map[string]*migrateConn{}
	}
	if old := m.conns[addr]; old != nil {
		old.c.Close()
	} else if len(m.conns) >= migrateMax {
		for a, o := range m.conns {
			o.c.Close()
			delete(m.conns, a)
			break
		}
	}
	m.conns[addr] = mc
	if m.timer == nil {
		m.timer = time.AfterFunc(migrateKeep, m.expire)
	}
}

// expire closes the connections unused for migrateKeep, and looks again
// later while some are kept.
func (m *migrateConns) expire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for a, mc := range m.conns {
		if time.Since(mc.used) >= migrateKeep {
			mc.c.Close()
			delete(m.conns, a)
		}
	}
	m.timer = nil
	if len(m.conns) > 0 {
		m.timer = time.AfterFunc(migrateKeep/2, m.expire)
	}
}

// closeAll closes every connection kept (the server stops).
func (m *migrateConns) closeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for a, mc := range m.conns {
		mc.c.Close()
		delete(m.conns, a)
	}
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
}

// count is the number of connections kept (INFO's migrate_cached_sockets).
func (m *migrateConns) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.conns)
}

package shard

import (
	"errors"
	"fmt"
	"net"
	"os"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// unixListener is unixsocket's listener. A Unix-domain socket cannot be
// bound once per shard as TCP addresses are (SO_REUSEPORT), and a kernel
// that wakes one ring's accept keeps handing it every connection, so one
// goroutine accepts (off the shards' loops: accepting is rare) and hands
// the connections to the shards in turn, each as a msgAdopt whose shard
// gives the socket to its driver (ioloop.Driver.Adopt).
type unixListener struct {
	ln   *net.UnixListener
	done chan struct{}
}

// listenUnix listens on path (a file left there is replaced, as Redis
// does), sets its permission bits to perm unless 0, and starts accepting
// for g's shards.
func listenUnix(g *Group, path string, perm os.FileMode) (*unixListener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("unixsocket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("unixsocket %s: %w", path, err)
	}
	if perm != 0 {
		if err := os.Chmod(path, perm); err != nil {
			ln.Close()
			return nil, fmt.Errorf("unixsocket %s: %w", path, err)
		}
	}
	u := &unixListener{ln: ln, done: make(chan struct{})}
	go u.accept(g)
	return u, nil
}

// accept runs until the listener closes.
func (u *unixListener) accept(g *Group) {
	defer close(u.done)
	for next := 0; ; next = (next + 1) % len(g.shards) {
		c, err := u.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				g.log.Warn("accepting on the unix socket", zap.Error(err))
			}
			return
		}
		fd, err := socketOf(c)
		if err != nil {
			g.log.Warn("accepting on the unix socket", zap.Error(err))
			continue
		}
		g.shards[next].deliver([]message{{kind: msgAdopt, data: adoptMsg(fd)}})
	}
}

// adoptMsg is a connected socket for the shard's driver to serve
// (msgAdopt): one accepted on the Unix socket.
type adoptMsg int

func (fd adoptMsg) handle(s *Shard, _ msgKind) {
	if s.drv.Adopt(int(fd)) != nil {
		unix.Close(int(fd))
	}
}

// socketOf returns a non-blocking duplicate of c's socket and closes c.
func socketOf(c *net.UnixConn) (int, error) {
	defer c.Close()
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if cerr != nil {
		return -1, cerr
	}
	if err != nil {
		return -1, os.NewSyscallError("fcntl", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("fcntl", err)
	}
	return fd, nil
}

// close stops accepting and removes the socket's file.
func (u *unixListener) close() {
	u.ln.Close() // a listener from ListenUnix unlinks its file
	<-u.done
}

//go:build linux

package ioloop

import (
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestKeepAlive: Options.KeepAlive is asked at each accept, and its
// answer is set on that socket as Redis's anetKeepAlive sets it.
func TestKeepAlive(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		var idle atomic.Int64 // seconds
		s := startServer(t, nd, Options{KeepAlive: func() time.Duration { return time.Duration(idle.Load()) * time.Second }})
		for _, tc := range []struct{ idle, on, intvl int }{{0, 0, 0}, {7, 1, 2}, {2, 1, 1}, {300, 1, 100}} {
			idle.Store(int64(tc.idle))
			c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
			if err != nil {
				t.Fatal(err)
			}
			<-s.ids
			fd := acceptedFD(t, s.port, c.LocalAddr().(*net.TCPAddr).Port)
			opt := func(level, name int) int {
				v, err := unix.GetsockoptInt(fd, level, name)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			if on := opt(unix.SOL_SOCKET, unix.SO_KEEPALIVE); on != tc.on {
				t.Errorf("idle %d: SO_KEEPALIVE = %d", tc.idle, on)
			}
			if tc.on == 1 {
				if v := opt(unix.IPPROTO_TCP, unix.TCP_KEEPIDLE); v != tc.idle {
					t.Errorf("idle %d: TCP_KEEPIDLE = %d", tc.idle, v)
				}
				if v := opt(unix.IPPROTO_TCP, unix.TCP_KEEPINTVL); v != tc.intvl {
					t.Errorf("idle %d: TCP_KEEPINTVL = %d, want %d", tc.idle, v, tc.intvl)
				}
				if v := opt(unix.IPPROTO_TCP, unix.TCP_KEEPCNT); v != 3 {
					t.Errorf("idle %d: TCP_KEEPCNT = %d", tc.idle, v)
				}
			}
			c.Close()
		}
	})
}

// acceptedFD finds, among this process's descriptors, the socket the
// driver accepted: local port port, peer port peer.
func acceptedFD(t *testing.T, port, peer int) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		la, err1 := unix.Getsockname(fd)
		pa, err2 := unix.Getpeername(fd)
		l, ok1 := la.(*unix.SockaddrInet4)
		p, ok2 := pa.(*unix.SockaddrInet4)
		if err1 == nil && err2 == nil && ok1 && ok2 && l.Port == port && p.Port == peer {
			return fd
		}
	}
	t.Fatalf("no accepted socket for port %d from %d", port, peer)
	return -1
}

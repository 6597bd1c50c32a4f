//go:build linux

package ioloop

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ListenTCP creates a non-blocking, close-on-exec TCP listening socket bound
// to addr ("host:port"; host an IPv4 or IPv6 address or a name, empty for
// 0.0.0.0). IPv6 sockets are IPV6_V6ONLY, so "[::]:6379" and "0.0.0.0:6379"
// can both be bound. With reusePort every shard can bind the same address
// (SO_REUSEPORT) and the kernel spreads connections over them. The backlog
// is net.core.somaxconn, at least 511. The caller owns and closes fd.
func ListenTCP(addr string, reusePort bool) (fd int, err error) {
	fd, err = bindTCP(addr, reusePort)
	if err != nil {
		return -1, err
	}
	if err := unix.Listen(fd, backlog()); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("ioloop: listen %s: %w", addr, os.NewSyscallError("listen", err))
	}
	return fd, nil
}

// CheckFree fails, as bind(2) does (EADDRINUSE), when another socket
// listens on addr already. Sockets bound with SO_REUSEPORT share a port
// with each other without a word, so the shards' listeners alone would
// join another server's listeners on the same port and split its
// connections with it; binding once without SO_REUSEPORT first refuses
// that, as Redis refuses a busy port.
func CheckFree(addr string) error {
	fd, err := bindTCP(addr, false)
	if err != nil {
		return err
	}
	unix.Close(fd)
	return nil
}

// bindTCP creates the non-blocking, close-on-exec socket ListenTCP
// describes and binds it to addr.
func bindTCP(addr string, reusePort bool) (fd int, err error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return -1, err
	}
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip4 := ta.IP.To4(); ta.IP == nil || ip4 != nil {
		s := &unix.SockaddrInet4{Port: ta.Port}
		if ip4 != nil {
			copy(s.Addr[:], ip4)
		}
		sa = s
	} else {
		family = unix.AF_INET6
		s := &unix.SockaddrInet6{Port: ta.Port}
		copy(s.Addr[:], ta.IP.To16())
		if ta.Zone != "" {
			ifi, err := net.InterfaceByName(ta.Zone)
			if err != nil {
				return -1, err
			}
			s.ZoneId = uint32(ifi.Index)
		}
		sa = s
	}
	fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	fail := func(op string, e error) (int, error) {
		unix.Close(fd)
		return -1, fmt.Errorf("ioloop: listen %s: %w", addr, os.NewSyscallError(op, e))
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt SO_REUSEADDR", err)
	}
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			return fail("setsockopt SO_REUSEPORT", err)
		}
	}
	if family == unix.AF_INET6 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return fail("setsockopt IPV6_V6ONLY", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	return fd, nil
}

// backlog is what Go's net package uses: somaxconn, but at least Redis's 511.
func backlog() int {
	n := 511
	if b, err := os.ReadFile("/proc/sys/net/core/somaxconn"); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && v > n {
			n = v
		}
	}
	if n > 65535 {
		n = 65535
	}
	return n
}

// LocalPort returns the port a socket is bound to (useful after binding
// port 0).
func LocalPort(fd int) (int, error) {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return 0, os.NewSyscallError("getsockname", err)
	}
	switch s := sa.(type) {
	case *unix.SockaddrInet4:
		return s.Port, nil
	case *unix.SockaddrInet6:
		return s.Port, nil
	}
	return 0, fmt.Errorf("ioloop: not an inet socket")
}

// checkListener makes sure fd is a listening socket.
func checkListener(fd int) error {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
	if err != nil {
		return fmt.Errorf("ioloop: Listen(%d): %w", fd, os.NewSyscallError("getsockopt", err))
	}
	if v == 0 {
		return fmt.Errorf("ioloop: Listen(%d): not a listening socket", fd)
	}
	return nil
}

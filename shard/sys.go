package shard

import (
	"net"

	"golang.org/x/sys/unix"
)

func closeFD(fd int) { _ = unix.Close(fd) }

type sockAddr struct {
	ip   string
	port int
}

func getsockname(fd int) (sockAddr, error) {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return sockAddr{}, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return sockAddr{net.IP(a.Addr[:]).String(), a.Port}, nil
	case *unix.SockaddrInet6:
		return sockAddr{net.IP(a.Addr[:]).String(), a.Port}, nil
	}
	return sockAddr{}, unix.EAFNOSUPPORT
}

package rdma

import (
	"encoding/binary"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// DefaultZeroCopyMin is TCP's default threshold: below it a payload is
// written (copied), above it sent with MSG_ZEROCOPY. Pinning pages and
// reading the completions costs more than copying small sends (the
// kernel's msg_zerocopy.rst puts the break-even near 10 KB; this
// package's BenchmarkSend measures it on the machine at hand).
const DefaultZeroCopyMin = 64 << 10

// zcChunk is the largest single zero-copy sendmsg: a send pins its pages
// until acknowledged, so a payload goes in chunks, each reported apart.
const zcChunk = 1 << 20

// TCP is the default transport: a payload of at least ZeroCopyMin bytes
// is sent with MSG_ZEROCOPY, anything smaller written. The first chunk
// of a zero-copy send is waited for: when the kernel says it copied it
// (the path cannot send from user pages), the rest is written, the
// fallback measured on the connection itself.
type TCP struct {
	ZeroCopyMin int // 0: DefaultZeroCopyMin; < 0: never zero-copy
}

// Name implements Transport.
func (t TCP) Name() string { return "tcp" }

// Send implements Transport.
func (t TCP) Send(fd int, b []byte) (Sent, error) {
	least := t.ZeroCopyMin
	if least == 0 {
		least = DefaultZeroCopyMin
	}
	st := Sent{Bytes: len(b)}
	if least < 0 || len(b) < least || unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1) != nil {
		return st, writeAll(fd, b)
	}
	z := zc{fd: fd}
	for len(b) > 0 {
		n, err := z.send(b[:min(len(b), zcChunk)])
		if err != nil {
			z.wait()
			return st, err
		}
		b = b[n:]
		if z.calls == 1 { // measure the first chunk
			if err := z.wait(); err != nil {
				return st, err
			}
			if z.copied {
				st.Copied = true
				return st, writeAll(fd, b)
			}
			st.ZeroCopy += n
			continue
		}
		st.ZeroCopy += n
	}
	if err := z.wait(); err != nil {
		return st, err
	}
	if z.copied {
		st.Copied = true
	}
	return st, nil
}

// zc is one socket's zero-copy sends: calls counts the sendmsg calls
// that took bytes (the kernel numbers its notifications by them), done
// those it reported finished.
type zc struct {
	fd          int
	calls, done uint32
	copied      bool
	oob         [128]byte
}

// send sends a prefix of b with MSG_ZEROCOPY, waiting for room.
func (z *zc) send(b []byte) (int, error) {
	for {
		n, err := unix.SendmsgN(z.fd, b, nil, nil, unix.MSG_ZEROCOPY)
		switch {
		case err == nil:
			z.calls++
			return n, nil
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			if _, err := waitFd(z.fd, unix.POLLOUT); err != nil {
				return 0, err
			}
			z.reap()
		case err == unix.ENOBUFS: // too many pages pinned: wait for some
			if z.done == z.calls {
				return 0, os.NewSyscallError("sendmsg", err)
			}
			if _, err := waitFd(z.fd, 0); err != nil {
				return 0, err
			}
			z.reap()
		default:
			return 0, os.NewSyscallError("sendmsg", err)
		}
	}
}

// wait returns once the kernel reported every send finished.
func (z *zc) wait() error {
	for z.done != z.calls {
		rev, err := waitFd(z.fd, 0) // POLLERR: the error queue
		if err != nil {
			return err
		}
		before := z.done
		if err := z.reap(); err != nil {
			return err
		}
		if z.done != before || rev&(unix.POLLERR|unix.POLLHUP) == 0 {
			continue
		}
		// Woken with nothing reported: a socket error, or the peer gone.
		if e, _ := unix.GetsockoptInt(z.fd, unix.SOL_SOCKET, unix.SO_ERROR); e != 0 {
			return os.NewSyscallError("send", unix.Errno(e))
		}
		if rev&unix.POLLHUP != 0 {
			return errors.New("rdma: the peer closed before the kernel reported the sends")
		}
	}
	return nil
}

// reap reads the notifications queued on the socket's error queue.
func (z *zc) reap() error {
	for {
		_, oobn, _, _, err := unix.Recvmsg(z.fd, nil, z.oob[:], unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		if err == unix.EAGAIN || err == unix.EINTR {
			return nil
		}
		if err != nil {
			return os.NewSyscallError("recvmsg", err)
		}
		msgs, err := unix.ParseSocketControlMessage(z.oob[:oobn])
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if !(m.Header.Level == unix.SOL_IP && m.Header.Type == unix.IP_RECVERR ||
				m.Header.Level == unix.SOL_IPV6 && m.Header.Type == unix.IPV6_RECVERR) || len(m.Data) < 16 {
				continue
			}
			// struct sock_extended_err: errno u32, origin, type, code,
			// pad u8, info u32, data u32 (native order).
			if errno := binary.NativeEndian.Uint32(m.Data[0:]); errno != 0 || m.Data[4] != unix.SO_EE_ORIGIN_ZEROCOPY {
				if errno != 0 {
					return os.NewSyscallError("zerocopy", unix.Errno(errno))
				}
				continue
			}
			lo, hi := binary.NativeEndian.Uint32(m.Data[8:]), binary.NativeEndian.Uint32(m.Data[12:])
			z.done += hi - lo + 1
			if m.Data[6]&unix.SO_EE_CODE_ZEROCOPY_COPIED != 0 {
				z.copied = true
			}
		}
	}
}

// waitFd waits until fd is ready for events (POLLERR and POLLHUP are
// always reported) and returns what it is ready for.
func waitFd(fd int, events int16) (int16, error) {
	p := []unix.PollFd{{Fd: int32(fd), Events: events}}
	for {
		_, err := unix.Poll(p, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, os.NewSyscallError("poll", err)
		}
		if p[0].Revents&unix.POLLNVAL != 0 {
			return 0, errors.New("rdma: polling a closed socket")
		}
		return p[0].Revents, nil
	}
}

// writeAll writes b whole to fd, waiting for room when it is full.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			if rev, err := waitFd(fd, unix.POLLOUT); err != nil {
				return err
			} else if rev&unix.POLLOUT == 0 {
				if e, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); e != 0 {
					return os.NewSyscallError("write", unix.Errno(e))
				}
				return errors.New("rdma: the peer closed")
			}
		case err != nil:
			return os.NewSyscallError("write", err)
		default:
			b = b[n:]
		}
	}
	return nil
}

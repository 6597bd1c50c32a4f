//go:build linux

package ioloop

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	iosys "github.com/iceber/iouring-go/syscall"
	"golang.org/x/sys/unix"
)

// Constants the iouring-go syscall package lacks (include/uapi/linux/io_uring.h).
const (
	setupSingleIssuer = 1 << 12 // 6.0
	setupDeferTaskrun = 1 << 13 // 6.1
	// setupTaskrunFlag (5.19, with COOP_TASKRUN or DEFER_TASKRUN) has the
	// kernel set sqTaskrun in the SQ ring's flags while completion work
	// waits for the next enter: Waiting reads it without a system call.
	setupTaskrunFlag = iosys.IORING_SETUP_TASKRUN_FLAG
	sqTaskrun        = 1 << 2 // IORING_SQ_TASKRUN

	featExtArg = 1 << 8 // 5.11: io_uring_enter takes io_uring_getevents_arg

	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3

	acceptMultishot = 1 << 0 // in sqe.ioprio, 5.19

	cqeFMore = 1 << 1 // more completions will follow for this request

	sqeCQESkipSuccess = 1 << 6 // 5.17
)

type sqe = iosys.SubmissionQueueEntry64
type cqe = iosys.CompletionQueueEvent16

// getEventsArg is struct io_uring_getevents_arg.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32 // min_wait_usec (6.12), left 0
	ts        uint64
}

// kernelTimespec is struct __kernel_timespec.
type kernelTimespec struct {
	sec  int64
	nsec int64
}

// ErrUringUnavailable is matched (errors.Is) by every error NewUring returns
// when the kernel or its sandbox does not let us use io_uring; the caller
// should fall back to NewEpoll. The error text says why.
var ErrUringUnavailable = errors.New("io_uring unavailable")

// UringSetupError says why io_uring could not be set up. It matches
// ErrUringUnavailable and unwraps to the errno (EPERM, ENOSYS, ENOMEM, ...).
type UringSetupError struct {
	Op     string // "io_uring_setup", "mmap", "features"
	Err    error
	Reason string
}

func (e *UringSetupError) Error() string {
	return fmt.Sprintf("io_uring unavailable: %s: %v (%s)", e.Op, e.Err, e.Reason)
}
func (e *UringSetupError) Unwrap() error        { return e.Err }
func (e *UringSetupError) Is(target error) bool { return target == ErrUringUnavailable }

// ring is a mapped io_uring instance. Not safe for concurrent use.
type ring struct {
	fd       int
	flags    uint32 // setup flags the kernel accepted
	features uint32

	sqMem, cqMem, sqeMem []byte

	sqHead, sqTail *uint32
	sqFlags        *uint32 // the kernel's flags for us (sqTaskrun)
	sqMask, sqLen  uint32
	sqes           []sqe
	tail           uint32 // our next sq tail (published before enter)
	submitted      uint32 // sq tail up to which we have called enter

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe
}

// defaultSetupFlags are tried in order; the first the kernel accepts wins.
var defaultSetupFlags = []uint32{
	setupSingleIssuer | setupDeferTaskrun | setupTaskrunFlag | iosys.IORING_SETUP_SUBMIT_ALL,
	iosys.IORING_SETUP_COOP_TASKRUN | setupTaskrunFlag | iosys.IORING_SETUP_SUBMIT_ALL,
	iosys.IORING_SETUP_COOP_TASKRUN | iosys.IORING_SETUP_SUBMIT_ALL,
	iosys.IORING_SETUP_COOP_TASKRUN,
	0,
}

func newRing(entries uint32, tries []uint32) (*ring, error) {
	var (
		fd  int
		p   iosys.IOURingParams
		err error
	)
	for _, fl := range tries {
		p = iosys.IOURingParams{Flags: fl | iosys.IORING_SETUP_CQSIZE | iosys.IORING_SETUP_CLAMP, CQEntries: 4 * entries}
		fd, err = iosys.IOURingSetup(uint(entries), &p)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINVAL) {
			return nil, setupError("io_uring_setup", err)
		}
	}
	if err != nil {
		return nil, setupError("io_uring_setup", err)
	}
	r := &ring{fd: fd, flags: p.Flags &^ (iosys.IORING_SETUP_CQSIZE | iosys.IORING_SETUP_CLAMP), features: p.Features}
	if p.Features&featExtArg == 0 {
		r.close()
		return nil, &UringSetupError{Op: "features", Err: syscall.ENOTSUP, Reason: "kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11+ needed)"}
	}
	if err := r.mmap(&p); err != nil {
		r.close()
		return nil, setupError("mmap", err)
	}
	return r, nil
}

func setupError(op string, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return &UringSetupError{Op: op, Err: err, Reason: "unexpected error"}
	}
	reason := "unexpected error"
	switch errno {
	case syscall.EPERM, syscall.EACCES:
		reason = "blocked by seccomp or sysctl kernel.io_uring_disabled"
	case syscall.ENOSYS:
		reason = "kernel built without io_uring or syscall filtered"
	case syscall.ENOMEM:
		reason = "out of memory or RLIMIT_MEMLOCK too low"
	case syscall.EINVAL:
		reason = "kernel rejected every setup flag set"
	case syscall.EMFILE, syscall.ENFILE:
		reason = "out of file descriptors"
	}
	return &UringSetupError{Op: op, Err: errno, Reason: reason}
}

func (r *ring) mmap(p *iosys.IOURingParams) error {
	sqSize := int(p.SQOffset.Array + p.SQEntries*4)
	cqSize := int(p.CQOffset.Cqes + p.CQEntries*uint32(unsafe.Sizeof(cqe{})))
	single := p.Features&iosys.IORING_FEAT_SINGLE_MMAP != 0
	if single && cqSize > sqSize {
		sqSize = cqSize
	}
	const prot = unix.PROT_READ | unix.PROT_WRITE
	const flags = unix.MAP_SHARED | unix.MAP_POPULATE
	var err error
	if r.sqMem, err = unix.Mmap(r.fd, int64(iosys.IORING_OFF_SQ_RING), sqSize, prot, flags); err != nil {
		return err
	}
	if single {
		r.cqMem = r.sqMem
	} else if r.cqMem, err = unix.Mmap(r.fd, int64(iosys.IORING_OFF_CQ_RING), cqSize, prot, flags); err != nil {
		return err
	}
	sqeSize := int(p.SQEntries) * int(unsafe.Sizeof(sqe{}))
	if r.sqeMem, err = unix.Mmap(r.fd, int64(iosys.IORING_OFF_SQES), sqeSize, prot, flags); err != nil {
		return err
	}
	u32 := func(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	r.sqHead = u32(r.sqMem, p.SQOffset.Head)
	r.sqTail = u32(r.sqMem, p.SQOffset.Tail)
	r.sqFlags = u32(r.sqMem, p.SQOffset.Flags)
	r.sqMask = *u32(r.sqMem, p.SQOffset.RingMask)
	r.sqLen = *u32(r.sqMem, p.SQOffset.RingEntries)
	array := unsafe.Slice(u32(r.sqMem, p.SQOffset.Array), r.sqLen)
	for i := range array {
		array[i] = uint32(i) // identity: SQE i sits in slot i
	}
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), r.sqLen)
	r.tail = atomic.LoadUint32(r.sqTail)
	r.submitted = r.tail

	r.cqHead = u32(r.cqMem, p.CQOffset.Head)
	r.cqTail = u32(r.cqMem, p.CQOffset.Tail)
	r.cqMask = *u32(r.cqMem, p.CQOffset.RingMask)
	cqLen := *u32(r.cqMem, p.CQOffset.RingEntries)
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&r.cqMem[p.CQOffset.Cqes])), cqLen)
	return nil
}

// get returns a cleared SQE, or nil when the submission queue is full.
func (r *ring) get() *sqe {
	if r.tail-atomic.LoadUint32(r.sqHead) >= r.sqLen {
		return nil
	}
	s := &r.sqes[r.tail&r.sqMask]
	r.tail++
	s.Reset()
	return s
}

// enter publishes the queued SQEs and calls io_uring_enter once (retrying
// EINTR), waiting for minComplete completions or arg's timeout (arg.ts == 0:
// no limit). minComplete 0 does not block but still runs deferred task work,
// which is what posts completions on a DEFER_TASKRUN ring. It returns nil on
// timeout, and on EBUSY/EAGAIN (the caller reaps, then enters again).
func (r *ring) enter(minComplete uint32, arg *getEventsArg) error {
	atomic.StoreUint32(r.sqTail, r.tail)
	for {
		toSubmit := r.tail - r.submitted
		n, _, errno := syscall.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit),
			uintptr(minComplete), enterGetEvents|enterExtArg, uintptr(unsafe.Pointer(arg)), unsafe.Sizeof(*arg))
		switch errno {
		case 0:
			// n < toSubmit: the kernel stopped early (e.g. out of memory
			// for a request); the rest goes with the next enter.
			r.submitted += uint32(n)
			return nil
		case syscall.EINTR:
			continue
		case syscall.ETIME:
			return nil
		case syscall.EBUSY, syscall.EAGAIN:
			// Completion queue overflow or resource shortage: reap first.
			return nil
		default:
			return os.NewSyscallError("io_uring_enter", errno)
		}
	}
}

func (r *ring) close() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
	}
	if r.cqMem != nil && (r.sqMem == nil || &r.cqMem[0] != &r.sqMem[0]) {
		unix.Munmap(r.cqMem)
	}
	if r.sqMem != nil {
		unix.Munmap(r.sqMem)
	}
	r.sqMem, r.cqMem, r.sqeMem = nil, nil, nil
	r.sqes, r.cqes = nil, nil
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

// flagNames lists the interesting setup flags of fl.
func flagNames(fl uint32) string {
	var s []string
	for _, f := range []struct {
		bit  uint32
		name string
	}{
		{setupSingleIssuer, "SINGLE_ISSUER"},
		{setupDeferTaskrun, "DEFER_TASKRUN"},
		{iosys.IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
		{setupTaskrunFlag, "TASKRUN_FLAG"},
		{iosys.IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL"},
	} {
		if fl&f.bit != 0 {
			s = append(s, f.name)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "|")
}

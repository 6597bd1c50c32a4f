// Command noring runs a program the way a container with Docker's default
// seccomp profile (or gVisor) would: io_uring_setup, io_uring_enter and
// io_uring_register fail with EPERM. It installs that seccomp filter on
// every thread of its process, then execs the program, which inherits it.
//
//	noring /path/to/program [args ...]
//
// The end-to-end test of the epoll fallback (e2e/TestIOUringBlocked) runs
// radish-server under it.
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccomp_data's offsets: the syscall number, then the architecture.
const (
	offNr   = 0
	offArch = 4
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: noring program [args ...]")
		os.Exit(2)
	}
	if err := install(); err != nil {
		fmt.Fprintln(os.Stderr, "noring:", err)
		os.Exit(1)
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	fmt.Fprintln(os.Stderr, "noring: exec:", err)
	os.Exit(1)
}

// install loads the filter: on x86-64, the three io_uring system calls
// return EPERM, everything else is allowed (another architecture: every
// call allowed, and the test knows it cannot check).
func install() error {
	if runtime.GOARCH != "amd64" {
		return fmt.Errorf("only amd64 system call numbers are known")
	}
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AUDIT_ARCH_X86_64, SkipFalse: 6},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IO_URING_SETUP, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IO_URING_ENTER, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IO_URING_REGISTER, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		bpf.RetConstant{Val: eperm},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_NO_NEW_PRIVS: %w", err)
	}
	// TSYNC: every thread of the runtime gets the filter, whichever one
	// then calls execve.
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

package aof

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Under appendfsync always the writer writes zeros ahead of the file's
// bytes (padStep at a time, once fewer than padStep/2 are left) and
// writes the bytes over them: a write then changes neither the file's
// length nor its extents, so its fdatasync flushes the data alone, with
// no journal commit (on ext4 and xfs an appending write makes each
// fdatasync commit the new length; fallocate's unwritten extents, each
// converted as written, cost the same). Close and a rotation cut the file
// at the end of its bytes; a crash leaves the zeros, which the load reads
// as the end of the file (dataLen), and a disk that took only part of the
// last write before it stopped leaves a torn tail over zeros (tornOver).
// Padding is best effort and never takes the space the bytes need: with
// less than padFree left on the file system, or when the zeros cannot be
// written (they are cut off again), the bytes go after the file's end as
// before, and no padding is tried again within padRetry.
const (
	padStep  = 4 << 20
	padFree  = 64 << 20
	padRetry = time.Second
	pageSize = 4096
)

// zeros is what a padding write writes, padStep/len(zeros) times.
var zeros [64 << 10]byte

// pad writes zeros after the file's end, when fewer than padStep/2 of them
// lie beyond upTo (the end of the bytes about to be written).
func (l *Log) pad(upTo int64) {
	if l.end-upTo >= padStep/2 || time.Since(l.padFailed) < padRetry {
		return
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(l.f.Fd()), &fs); err != nil || int64(fs.Bavail)*fs.Bsize < padFree+padStep {
		l.padFailed = time.Now()
		return
	}
	iov := l.iov[:0]
	for range padStep / len(zeros) {
		v := unix.Iovec{Base: &zeros[0]}
		v.SetLen(len(zeros))
		iov = append(iov, v)
	}
	l.iov = iov
	for want := upTo + padStep - l.end; want > 0; {
		k := min(int(want+int64(len(zeros))-1)/len(zeros), len(iov))
		r, _, errno := unix.Syscall6(unix.SYS_PWRITEV, l.f.Fd(), uintptr(unsafe.Pointer(&iov[0])), uintptr(k),
			uintptr(l.end), 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 || r == 0 {
			l.padFailed = time.Now()
			l.unpad()
			break
		}
		l.end += int64(r)
		want -= int64(r)
	}
	clear(iov)
}

// unpad cuts the file at the end of its bytes.
func (l *Log) unpad() {
	if size := l.size.Load(); l.end > size && l.f.Truncate(size) == nil {
		l.end = size
	}
}

// positional clears O_APPEND on f, which would make the writer's pwritev
// append (Linux ignores the offset then).
func positional(f *os.File) error {
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err == nil && fl&unix.O_APPEND != 0 {
		_, err = unix.FcntlInt(f.Fd(), unix.F_SETFL, fl&^unix.O_APPEND)
	}
	return err
}

// dataSize is the length of f's bytes: its size less the zeros a crash
// left after them.
func dataSize(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	var buf [pageSize]byte
	for end := st.Size(); end > 0; {
		at := max(end-pageSize, 0)
		b := buf[:end-at]
		if _, err := f.ReadAt(b, at); err != nil {
			return 0, err
		}
		if n := dataLen(b); n > 0 {
			return at + int64(n), nil
		}
		end = at
	}
	return 0, nil
}

// dataLen is the length of b less its trailing zeros. An incremental
// file's bytes end in "\r\n" or a "#TS:" annotation's digits, never in a
// zero: the zeros after them are padding.
func dataLen(b []byte) int {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return n
}

// tornOver reports whether b from at on holds a whole page of zeros: the
// malformed bytes at at are a write the disk took only in part, over the
// padding (pages written out of order), not a corrupt file.
func tornOver(b []byte, at int) bool {
	for p := (at + pageSize - 1) / pageSize * pageSize; p+pageSize <= len(b); p += pageSize {
		if dataLen(b[p:p+pageSize]) == 0 {
			return true
		}
	}
	return false
}

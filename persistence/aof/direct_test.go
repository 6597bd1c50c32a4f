package aof

import (
	"fmt"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeLoop is a driver's Fsync whose fdatasyncs run when the test says,
// on the test's goroutine, as a loop's poll runs their completions.
type fakeLoop struct {
	fds    []int
	dones  []func(error)
	refuse bool
}

func (f *fakeLoop) fsync(fd int, done func(error)) bool {
	if f.refuse {
		return false
	}
	f.fds, f.dones = append(f.fds, fd), append(f.dones, done)
	return true
}

// complete ends the oldest fdatasync asked: a real one, or fails it with
// err.
func (f *fakeLoop) complete(t *testing.T, err error) {
	t.Helper()
	if len(f.dones) == 0 {
		t.Fatal("no fdatasync in flight")
	}
	fd, done := f.fds[0], f.dones[0]
	f.fds, f.dones = f.fds[1:], f.dones[1:]
	if err == nil {
		err = unix.Fdatasync(fd)
	}
	done(err)
}

// parked waits until the Log's writer waits for work.
func parked(t *testing.T, l *Log) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		l.mu.Lock()
		idle := l.idle && len(l.pending) == 0 && !l.resync
		l.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer never parked")
		}
	}
}

// until waits for cond, the writer's work.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never: " + what)
		}
	}
}

// TestDirect: under always, with a loop that runs fdatasyncs, the loop
// writes each turn itself and Durable moves only when the fdatasync
// asked for it completes; while one is in flight the turns' bytes wait
// for its completion, which writes them in one go (and not what a poll
// in the middle of the next turn finds appended) and asks the next; a
// failed fdatasync is an error until the writer, which takes the file
// back, fdatasyncs again; a loop that refuses leaves the writer the work;
// Close writes what waited. The file replays every turn in order.
func TestDirect(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 1)
	s := started(t, opts)
	l := s.Log(0)
	var loop fakeLoop
	l.UseLoop(loop.fsync)
	n := 0
	turn := func() uint64 {
		n++
		l.Append(fxOf(t, fmt.Sprintf("0 - SET k%d %d", n, n)))
		return l.Submit()
	}
	size := func() uint64 {
		st, err := os.Stat(incrPath(dir, 0))
		if err != nil {
			t.Fatal(err)
		}
		return uint64(st.Size())
	}
	parked(t, l)
	p1 := turn()
	if !l.direct || len(loop.dones) != 1 || size() != p1 || l.Durable() != 0 {
		t.Fatalf("a turn: direct %v, %d fdatasyncs asked, file %d bytes (want %d), Durable %d (want 0)",
			l.direct, len(loop.dones), size(), p1, l.Durable())
	}
	turn()
	p3 := turn()
	if len(loop.dones) != 1 || size() != p1 || l.Pending() != p3 {
		t.Fatalf("one in flight: %d asked, file %d bytes (want %d), Pending %d (want %d)", len(loop.dones), size(), p1, l.Pending(), p3)
	}
	l.Append(fxOf(t, "0 - SET mid turn")) // not submitted yet
	loop.complete(t, nil)
	if l.Durable() != p1 || size() != p3 || len(loop.dones) != 1 {
		t.Fatalf("after a completion: Durable %d (want %d), file %d bytes (want %d), %d asked", l.Durable(), p1, size(), p3, len(loop.dones))
	}
	p4 := l.Submit()
	loop.complete(t, syscall.EIO)
	if l.direct || l.Err() != "Input/output error" || len(loop.dones) != 0 {
		t.Fatalf("a failed fdatasync: direct %v, Err %q, %d asked", l.direct, l.Err(), len(loop.dones))
	}
	until(t, "the writer wrote and fdatasynced the rest", func() bool { return l.Durable() == p4 && l.Err() == "" })
	if size() != p4 {
		t.Fatalf("file %d bytes, want %d", size(), p4)
	}
	parked(t, l)
	p5 := turn()
	if !l.direct || len(loop.dones) != 1 {
		t.Fatalf("direct again: %v, %d asked", l.direct, len(loop.dones))
	}
	loop.complete(t, nil)
	if l.Durable() != p5 {
		t.Fatalf("Durable %d, want %d", l.Durable(), p5)
	}
	loop.refuse = true
	p6 := turn()
	if l.direct {
		t.Fatal("direct with a loop that refuses")
	}
	until(t, "the writer fdatasynced a refused turn", func() bool { return l.Durable() == p6 })
	loop.refuse = false
	parked(t, l)
	turn()
	last := turn() // waits for a completion that never comes
	if !l.direct || size() == last {
		t.Fatalf("direct %v, file %d bytes", l.direct, size())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if size() != last || l.Durable() != last {
		t.Fatalf("closed: file %d bytes, Durable %d, want %d", size(), l.Durable(), last)
	}
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("0 SET k%d %d", i, i))
		if i == 3 {
			want = append(want, "0 SET mid turn")
		}
	}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("replayed %q, want %q", got[0], want)
	}
}

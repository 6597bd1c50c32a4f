//go:build linux

package ioloop

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestReleaseTake moves a connection from one driver to another in the
// middle of a line: the output written before Release arrives first, the
// unconsumed input moves with the socket, and the connection neither
// closes on the first driver nor opens on the second.
func TestReleaseTake(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		a := startServer(t, nd, Options{})
		b := startServer(t, nd, Options{})
		c := a.dial()
		defer c.Close()
		c.Write([]byte("PING\nPI"))
		expect(t, c, "+PONG\r\n")
		id := <-a.ids
		moved := make(chan ConnID, 1)
		a.do(func(d Driver) {
			*d.Output(id) = append(*d.Output(id), "before\n"...)
			ok := d.Release(id, func(fd int, input []byte) {
				if string(input) != "PI" {
					t.Errorf("released with input %q, want %q", input, "PI")
				}
				b.mu.Lock()
				b.tasks = append(b.tasks, func() {
					nid, err := b.d.Take(fd, input)
					if err != nil {
						t.Error(err)
					}
					(&lineHandler{s: b, d: b.d}).OnData(nid)
					moved <- nid
				})
				b.mu.Unlock()
				b.d.Wake()
			})
			if !ok {
				t.Error("Release refused an open connection")
			}
			if d.Release(id, func(int, []byte) {}) {
				t.Error("a second Release was accepted")
			}
		})
		expect(t, c, "before\n")
		var nid ConnID
		select {
		case nid = <-moved:
		case <-time.After(30 * time.Second):
			t.Fatal("the connection was not handed over")
		}
		c.Write([]byte("NG\nPING\n"))
		expect(t, c, "+PONG\r\n+PONG\r\n")
		a.do(func(d Driver) {
			if d.Input(id) != nil {
				t.Error("the released connection still has input on its first driver")
			}
		})
		if a.closed.Load() != 0 || b.opened.Load() != 0 {
			t.Fatalf("closes on the first driver %d, opens on the second %d, want 0 and 0", a.closed.Load(), b.opened.Load())
		}
		c.Write([]byte("QUIT\n"))
		b.waitClosed(1)
		b.do(func(d Driver) {
			if d.Input(nid) != nil {
				t.Error("closed connection still has input")
			}
		})
	})
}

// TestReleaseThenClose: a connection whose peer resets it while it is
// being released closes as usual; the hand-over never happens.
func TestReleaseThenClose(t *testing.T) {
	eachDriver(t, func(t *testing.T, nd func(Options) (Driver, error)) {
		a := startServer(t, nd, Options{})
		c := a.dial()
		c.Write([]byte("PING\n"))
		expect(t, c, "+PONG\r\n")
		id := <-a.ids
		released := make(chan struct{}, 1)
		a.do(func(d Driver) {
			d.Release(id, func(int, []byte) { released <- struct{}{} })
			d.Close(id)
		})
		a.waitClosed(1)
		c.Close()
		select {
		case <-released:
			t.Fatal("a closed connection was handed over")
		case <-time.After(100 * time.Millisecond):
		}
	})
}

// TestWakeOther: a loop wakes another sleeping one (in a Poll with no
// timeout) from its own loop, through MSG_RING between two rings (no
// eventfd write), through Wake otherwise.
func TestWakeOther(t *testing.T) {
	for _, pair := range [][2]ctor{{ctors[0], ctors[0]}, {ctors[0], ctors[1]}, {ctors[1], ctors[0]}, {ctors[2], ctors[0]}} {
		t.Run(pair[0].name+"->"+pair[1].name, func(t *testing.T) {
			woke := make(chan struct{}, 100)
			ready := make(chan Driver)
			var stop atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				d, err := pair[1].new(Options{})
				if err != nil {
					close(ready)
					return
				}
				ready <- d
				h := &wakeSignal{woke: woke}
				for !stop.Load() {
					if err := d.Poll(-1, h); err != nil {
						t.Error(err)
						break
					}
				}
				d.Shutdown()
			}()
			target, ok := <-ready
			if !ok {
				t.Skip("no io_uring")
			}
			defer func() {
				stop.Store(true)
				for {
					select {
					case <-done:
						return
					case <-time.After(10 * time.Millisecond):
						forceWake(target) // a lost wake left wakeReq set: Wake alone would not
					}
				}
			}()
			src := loopDriver(t, pair[0].new)
			for i := range 3 {
				for deadline := time.Now().Add(10 * time.Second); !sleeping(target); time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the target never sleeps")
					}
				}
				src.WakeOther(target)
				if err := src.Poll(0, &lineHandler{}); err != nil {
					t.Fatal(err)
				}
				select {
				case <-woke:
				case <-time.After(30 * time.Second):
					t.Fatalf("wake %d did not reach the target", i)
				}
			}
			if u, ok := src.(*Uring); ok && u.noMsgRing {
				t.Error("the kernel refused MSG_RING: wakes fell back to the eventfd")
			}
		})
	}
}

type wakeSignal struct {
	lineHandler
	woke chan struct{}
}

func (w *wakeSignal) OnWake() { w.woke <- struct{}{} }

// forceWake writes d's eventfd whatever wakeReq says.
func forceWake(d Driver) {
	switch d := d.(type) {
	case *Uring:
		d.wakeGate.write(d.wakeFd)
	case *Epoll:
		d.wakeGate.write(d.wakeFd)
	}
}

// sleeping reports whether d's loop is (about to be) blocked in its wait.
func sleeping(d Driver) bool {
	switch d := d.(type) {
	case *Uring:
		return d.sleeping.Load() != 0
	case *Epoll:
		return d.sleeping.Load() != 0
	}
	return false
}

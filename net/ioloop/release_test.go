//go:build linux

package ioloop

import (
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

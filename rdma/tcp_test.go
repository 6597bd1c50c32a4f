package rdma

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"testing"
)

// pair returns the fd of a connected loopback TCP socket (the sender's,
// a duplicate the test closes) and a reader of everything the peer
// receives until it closes.
func pair(t testing.TB) (int, func() []byte) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(c)
		c.Close()
		got <- b
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.(*net.TCPConn).File()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fd := int(f.Fd())
	return fd, func() []byte { f.Close(); return <-got }
}

func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestTCPFallback: over loopback the kernel copies a zero-copy send (it
// reports so), and the rest of the payload goes by plain writes; a
// payload under ZeroCopyMin, or with zero-copy off, is written. The
// bytes arrive whole in every case.
func TestTCPFallback(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tr    TCP
		size  int
		tried bool // zero-copy was tried (and copied: loopback)
	}{
		{"large", TCP{}, 5<<20 + 17, true},
		{"one-chunk", TCP{ZeroCopyMin: 1}, 1000, true},
		{"small", TCP{}, DefaultZeroCopyMin - 1, false},
		{"off", TCP{ZeroCopyMin: -1}, 3 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd, recv := pair(t)
			b := payload(tc.size)
			st, err := tc.tr.Send(fd, b)
			if err != nil {
				t.Fatal(err)
			}
			if got := recv(); !bytes.Equal(got, b) {
				t.Fatalf("received %d bytes, not the %d sent", len(got), len(b))
			}
			if st.Bytes != tc.size || st.Copied != tc.tried || st.ZeroCopy != 0 {
				t.Errorf("sent %+v: want %d bytes, copied %v, none zero-copy (loopback copies)", st, tc.size, tc.tried)
			}
		})
	}
}

// TestTCPPeerGone: a send to a peer that closed fails rather than
// waiting for ever.
func TestTCPPeerGone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := c.(*net.TCPConn).File()
	c.Close()
	defer f.Close()
	if _, err := (TCP{ZeroCopyMin: 1}).Send(int(f.Fd()), payload(64<<20)); err == nil {
		t.Error("a 64 MiB send to a closed peer succeeded")
	}
}

package shard

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/persistence/rdb"
	"github.com/radish-kv/radish/persistence/snapshot"
)

func newFlowOut() *flowOut {
	f := &flowOut{}
	f.more = sync.NewCond(&f.mu)
	return f
}

// flowPair returns the sender's fd of a socket pair and the reader's end.
func flowPair(t *testing.T) (int, *os.File) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(fds[1]), "reader")
	t.Cleanup(func() { r.Close() })
	return fds[0], r
}

// TestFlowOut: a flow's part is framed as $EOF:<mark>, an RDB file
// (header, the part, EOF and checksum) and the mark; while the reader
// does not read, the flow says it is behind once it holds flowBehind
// bytes, and not once the reader drained it.
func TestFlowOut(t *testing.T) {
	fd, r := flowPair(t)
	f := newFlowOut()
	opt := snapshot.Options{Checksum: true}
	done := make(chan error, 1)
	go func() { _, _, err := f.send(fd, opt, 0, time.Minute); done <- err }()
	// Once the sender took the first flowBehind bytes its send blocks
	// (the socket takes far less): the next are held.
	part := bytes.Repeat([]byte("x"), 2*flowBehind)
	f.Write(part[:flowBehind])
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		f.mu.Lock()
		taken := len(f.buf) == 0
		f.mu.Unlock()
		if taken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sender took nothing")
		}
	}
	f.Write(part[flowBehind:])
	if !f.busy() {
		t.Error("not behind with the reader not reading")
	}
	f.finish(nil)
	all, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if f.busy() {
		t.Error("behind after the reader drained it")
	}
	hdr, rest, _ := bytes.Cut(all, []byte("\r\n"))
	mark, ok := strings.CutPrefix(string(hdr), "$EOF:")
	if !ok || len(mark) != 40 || !bytes.HasSuffix(rest, []byte(mark)) {
		t.Fatalf("framing: %q ... %q", hdr, all[max(len(all)-50, 0):])
	}
	file := rest[:len(rest)-len(mark)]
	head := snapshot.AppendHeader(nil, opt, 0)
	want := snapshot.AppendTrailer(append(append([]byte(nil), head...), part...), opt,
		rdb.CRC64(0, append(append([]byte(nil), head...), part...)))
	if !bytes.Equal(file, want) {
		t.Errorf("the RDB file: %d bytes, want %d", len(file), len(want))
	}
}

// TestFlowOutFails: once the reader is gone, the flow drops what it is
// given and is never behind (the shard's slices go on).
func TestFlowOutFails(t *testing.T) {
	fd, r := flowPair(t)
	r.Close()
	f := newFlowOut()
	done := make(chan error, 1)
	go func() { _, _, err := f.send(fd, snapshot.Options{}, 0, time.Minute); done <- err }()
	if err := <-done; err == nil {
		t.Fatal("a send to a closed reader succeeded")
	}
	f.Write(bytes.Repeat([]byte("x"), 2*flowBehind))
	if f.busy() {
		t.Error("a failed flow holds what it is given")
	}
}

// TestFlowOutStalled: a reader that stops reading is cut after the
// timeout, and the sender returns.
func TestFlowOutStalled(t *testing.T) {
	fd, _ := flowPair(t)
	f := newFlowOut()
	done := make(chan error, 1)
	go func() { _, _, err := f.send(fd, snapshot.Options{}, 0, 200*time.Millisecond); done <- err }()
	f.Write(bytes.Repeat([]byte("x"), 16<<20)) // more than the socket buffers hold
	f.finish(nil)
	select {
	case err := <-done:
		if err == nil {
			t.Error("a stalled flow's send succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a stalled flow was not cut")
	}
}

// TestFlowStreamQueueLimit: frames waiting for a flow's attach count
// against the replica class's hard output limit; the write that would
// reach it closes the flow, which then drops what comes. With no hard
// limit the queue takes everything.
func TestFlowStreamQueueLimit(t *testing.T) {
	for _, tc := range []struct {
		limit  string
		closed bool
	}{{"replica 100 0 0", true}, {"replica 0 0 0", false}} {
		conf, err := config.Load([]string{"--save", "", "--client-output-buffer-limit", tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		f := newFlowStream(&Group{conf: conf, log: zap.NewNop()}, 0)
		frame := bytes.Repeat([]byte("x"), 40)
		f.write(nil, frame)
		f.write(nil, frame)
		if f.closed || len(f.buf) != 80 {
			t.Fatalf("%s: under the limit: closed %v, %d queued, want open, 80", tc.limit, f.closed, len(f.buf))
		}
		f.write(nil, frame)
		f.write(nil, frame)
		if tc.closed && (!f.closed || f.buf != nil) {
			t.Fatalf("%s: past the limit: closed %v, %d queued, want closed, none", tc.limit, f.closed, len(f.buf))
		}
		if !tc.closed && (f.closed || len(f.buf) != 160) {
			t.Fatalf("%s: no limit: closed %v, %d queued, want open, 160", tc.limit, f.closed, len(f.buf))
		}
	}
}

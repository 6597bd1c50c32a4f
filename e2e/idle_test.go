package e2e

import (
	"bufio"
	"io"
	"testing"
	"time"
)

// TestIdleTimeoutPartial: as redis-server 7.0.15 does, timeout counts from
// the last bytes read: a client sending PING a byte every 300 ms under
// timeout 1 is answered, one that stops mid-command is closed.
func TestIdleTimeoutPartial(t *testing.T) {
	s := start(t, "--timeout", "1")
	slow, stalled := s.raw(), s.raw()
	if _, err := stalled.Write([]byte("*1\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, b := range []byte("PING\r\n") {
		if _, err := slow.Write([]byte{b}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := bufio.NewReader(slow).ReadString('\n'); err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING sent a byte at a time: %q, %v", line, err)
	}
	stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := stalled.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("a client stalled mid-command: read %d, %v; want it closed", n, err)
	}
}

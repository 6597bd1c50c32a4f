package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// dialSlow opens a connection whose receive buffer is small, so that a
// client that stops reading makes the server's output pile up soon.
func dialSlow(t *testing.T, addr string) *net.TCPConn {
	d := net.Dialer{Timeout: 2 * time.Second, Control: nil}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	tc := c.(*net.TCPConn)
	tc.SetReadBuffer(4096)
	t.Cleanup(func() { tc.Close() })
	return tc
}

// closedByServer reads what is left on c and reports whether the server
// closed it, and how many bytes came before the end.
func closedByServer(c net.Conn) (bool, int64) {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := io.Copy(io.Discard, c)
	return err == nil || !isTimeout(err), n
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestOutputLimitPubSub: a subscriber that stops reading is cut at its
// pubsub client-output-buffer-limit, the server says so in its log, the
// publisher's count drops, and the server's memory stays bounded.
func TestOutputLimitPubSub(t *testing.T) {
	s := start(t, "--shards", "3", "--client-output-buffer-limit", "pubsub", "1mb", "256kb", "1")
	sub := dialSlow(t, s.addr)
	fmt.Fprint(sub, "CLIENT ID\r\nSUBSCRIBE news\r\n")
	r := bufio.NewReader(sub)
	id, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // *3 $9 subscribe ...: the confirmation's first lines
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	// A reader that keeps up, on another connection.
	live := s.client(3).Subscribe(ctx, "news")
	if _, err := live.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range live.Channel() {
		}
	}()
	pub := s.client(2)
	base := s.rss()
	peak := base
	msg := strings.Repeat("x", 4096)
	cut := false
	for i := range 50000 { // 200 MB if the slow subscriber were never cut
		n, err := pub.Publish(ctx, "news", msg).Result()
		if err != nil {
			t.Fatal(err)
		}
		if i%256 == 0 {
			peak = max(peak, s.rss())
		}
		if n == 1 {
			t.Logf("cut after %d messages", i)
			cut = true
			break
		}
	}
	if !cut {
		t.Fatal("the slow subscriber was never cut")
	}
	// The kernel may still be trickling what it had buffered to the
	// client; the server has let the connection go.
	if strings.Contains(pub.ClientList(ctx).Val(), "id="+strings.TrimSpace(id[1:])+" ") {
		t.Fatal("the slow subscriber is still a client")
	}
	t.Logf("RSS %d MB before, peak %d MB", base>>20, peak>>20)
	if peak-base > 64<<20 {
		t.Errorf("RSS grew by %d MB while a subscriber did not read", (peak-base)>>20)
	}
	waitLog(t, s, "exceeded its output buffer limit")
}

// TestOutputLimitNormal: a client that does not read a huge LRANGE is cut
// under a small normal limit; the others carry on. CONFIG GET prints the
// limits as Redis does.
func TestOutputLimitNormal(t *testing.T) {
	s := start(t, "--shards", "2")
	c := s.client(2)
	if got := c.ConfigGet(ctx, "client-output-buffer-limit").Val()["client-output-buffer-limit"]; got !=
		"normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60" {
		t.Fatalf("default limits %q", got)
	}
	if err := c.ConfigSet(ctx, "client-output-buffer-limit", "normal 1mb 512kb 10").Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.ConfigGet(ctx, "client-output-buffer-limit").Val()["client-output-buffer-limit"]; got !=
		"normal 1048576 524288 10 slave 268435456 67108864 60 pubsub 33554432 8388608 60" {
		t.Fatalf("limits %q", got)
	}
	for _, bad := range []struct{ v, msg string }{
		{"normal 1 2", "Wrong number of arguments in buffer limit configuration."},
		{"master 1 2 3", "Invalid client class specified in buffer limit configuration."},
		{"normal 1x 2 3", "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
	} {
		err := c.ConfigSet(ctx, "client-output-buffer-limit", bad.v).Err()
		want := "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - " + bad.msg
		if err == nil || err.Error() != want {
			t.Errorf("CONFIG SET %q: %v, want %s", bad.v, err, want)
		}
	}
	vals := make([]any, 20000)
	for i := range vals {
		vals[i] = strings.Repeat("v", 100)
	}
	if err := c.RPush(ctx, "big", vals...).Err(); err != nil {
		t.Fatal(err)
	}
	slow := dialSlow(t, s.addr)
	fmt.Fprint(slow, strings.Repeat("LRANGE big 0 -1\r\n", 10))
	closed, n := closedByServer(slow)
	if !closed || n >= 10*20000*100 {
		t.Fatalf("slow reader: closed %v after %d bytes", closed, n)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// Within the limit, the same reply is read whole.
	if err := c.ConfigSet(ctx, "client-output-buffer-limit", "normal 0 0 0").Err(); err != nil {
		t.Fatal(err)
	}
	if got := len(c.LRange(ctx, "big", 0, -1).Val()); got != 20000 {
		t.Fatalf("LRANGE read %d elements", got)
	}
	waitLog(t, s, "exceeded its output buffer limit")
}

// waitLog waits until the server's log holds text.
func waitLog(t *testing.T, s *server, text string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		b, _ := os.ReadFile(s.log)
		if strings.Contains(string(b), text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks %q:\n%s", text, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

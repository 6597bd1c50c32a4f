package shard

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClientPeaks: INFO's client_recent_max_input_buffer holds the
// largest input a client held in the last 8 seconds, as Redis's: it shows
// half a command's 1 MB argument while it arrives, stays once the command
// ran, and is gone 8 seconds later.
func TestClientPeaks(t *testing.T) {
	m := newSim(t, 2, 1)
	peak := func() int64 {
		return infoInt(t, m.g.Info([]string{"clients"}), "client_recent_max_input_buffer")
	}
	c := m.dial(1)
	m.tick(time.Second)
	if got := peak(); got != 0 {
		t.Fatalf("idle: %d", got)
	}
	head := "*2\r\n$4\r\nECHO\r\n$1000000\r\n"
	m.do(c, head+strings.Repeat("x", 500_000))
	m.tick(time.Second)
	if got := peak(); got < 500_000 {
		t.Fatalf("half a 1 MB argument in: %d", got)
	}
	if got := m.do(c, strings.Repeat("x", 500_000)+"\r\n"); !strings.HasPrefix(got, "$1000000\r\n") {
		t.Fatalf("ECHO: %.40q", got)
	}
	for range 7 {
		m.tick(time.Second)
		if got := peak(); got < 500_000 {
			t.Fatalf("within 8 s: %d", got)
		}
	}
	m.tick(time.Second)
	if got := peak(); got != 0 {
		t.Fatalf("after 8 s: %d", got)
	}
}

// infoInt is the integer INFO field name in info.
func infoInt(t *testing.T, info, name string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(infoField(info, name), 10, 64)
	if err != nil {
		t.Fatalf("INFO field %s: %v", name, err)
	}
	return n
}

// infoField is the value of INFO field name in info, "" when missing.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

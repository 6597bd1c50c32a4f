package e2e

import (
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// TestConsumerEventsAgainstRedis: XREADGROUP (new entries or history, on
// streams of one shard and of two, served at once or after blocking),
// XCLAIM and XAUTOCLAIM emit xgroup-createconsumer when they create their
// consumer, and only then (a read of nothing new, a claim of nothing
// create none), as redis-server does: the same replies and the same
// events, in order per key.
func TestConsumerEventsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	addrs := []string{s.addr, ref}
	var w, sub [2]*psConn
	for i, addr := range addrs {
		w[i], sub[i] = dialPS(t, addr, 2), dialPS(t, addr, 2)
		w[i].do(t, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "notify-keyspace-events", "KEA"},
			[]string{"XADD", "x1", "1-0", "f", "v"}, []string{"XADD", "x2", "1-0", "f", "v"},
			[]string{"XGROUP", "CREATE", "x1", "g", "0"}, []string{"XGROUP", "CREATE", "x2", "g", "0"})
		sub[i].do(t, []string{"PSUBSCRIBE", "__key*"})
	}
	time.Sleep(20 * time.Millisecond)
	cmds := [][]string{
		{"XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "x1", ">"},
		{"XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "STREAMS", "x1", ">"},
		{"XREADGROUP", "GROUP", "g", "c3", "STREAMS", "x1", "0"},
		{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "x1", "0"},
		{"XCLAIM", "x1", "g", "c4", "0", "1-0"},
		{"XCLAIM", "x1", "g", "c5", "0", "9-0"},
		{"XAUTOCLAIM", "x1", "g", "c6", "0", "0"},
		{"XAUTOCLAIM", "x1", "g", "c7", "100000000", "0"},
		{"XREADGROUP", "GROUP", "g", "c8", "NOACK", "STREAMS", "x1", "x2", ">", ">"},
		{"XREADGROUP", "GROUP", "g", "c9", "STREAMS", "x1", "x2", ">", ">"},
		{"XADD", "x1", "2-0", "f", "v"},
		{"XREADGROUP", "GROUP", "g", "c10", "STREAMS", "x1", "x2", ">", ">"},
		{"XREADGROUP", "GROUP", "g", "c11", "BLOCK", "10", "STREAMS", "x1", ">"},
	}
	for _, cmd := range cmds {
		diffEvents(t, w[:], sub[:], cmd, fmt.Sprint(cmd), true)
	}
	// A blocked read of a new consumer creates it when an XADD serves it:
	// the XADD's event, then the consumer's.
	var got [2][]string
	for i, addr := range addrs {
		blocked := dialPS(t, addr, 2)
		if _, err := blocked.c.Write([]byte("*9\r\n$10\r\nXREADGROUP\r\n$5\r\nGROUP\r\n$1\r\ng\r\n$3\r\nc12\r\n$5\r\nBLOCK\r\n$1\r\n0\r\n$7\r\nSTREAMS\r\n$2\r\nx2\r\n$1\r\n>\r\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		w[i].do(t, []string{"XADD", "x2", "2-0", "f", "v"})
		blocked.c.SetDeadline(time.Now().Add(2 * time.Second))
		reply, err := blocked.tryFrame()
		if err != nil {
			t.Fatal(err)
		}
		got[i] = append(got[i], string(reply))
		sub[i].c.SetDeadline(time.Now().Add(2 * time.Second))
		for range 4 { // keyspace and keyevent of each
			f, err := sub[i].tryFrame()
			if err != nil {
				t.Fatalf("server %d: %v after %q", i, err, got[i])
			}
			got[i] = append(got[i], string(f))
		}
	}
	if fmt.Sprintf("%q", got[0]) != fmt.Sprintf("%q", got[1]) {
		t.Fatalf("blocked read: radish %q\nredis %q", got[0], got[1])
	}
}

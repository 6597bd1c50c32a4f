package e2e

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestServedPopEventsAgainstRedis: a blocked BLPOP, BLMPOP, BZPOPMIN,
// BZMPOP, BLMOVE or BRPOPLPUSH served by a later push emits, after the
// push's events, its pop on the key it popped (and del when it emptied
// it), as redis-server does, with keys on three shards; the blocked
// client gets the same reply.
func TestServedPopEventsAgainstRedis(t *testing.T) {
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
		w[i].do(t, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "notify-keyspace-events", "KEAn"})
		sub[i].do(t, []string{"PSUBSCRIBE", "__key*"})
	}
	time.Sleep(20 * time.Millisecond)
	cases := [][2][]string{
		{{"BLPOP", "q0", "q1", "0"}, {"RPUSH", "q1", "a", "b"}},
		{{"BLMPOP", "0", "2", "q2", "q3", "RIGHT", "COUNT", "5"}, {"RPUSH", "q3", "a", "b"}},
		{{"BZPOPMIN", "w0", "w1", "0"}, {"ZADD", "w1", "1", "a"}},
		{{"BZMPOP", "0", "2", "w2", "w3", "MAX"}, {"ZADD", "w3", "1", "a", "2", "b"}},
		{{"BLMOVE", "q4", "q5", "LEFT", "RIGHT", "0"}, {"RPUSH", "q4", "x"}},
		{{"BRPOPLPUSH", "q6", "q6", "0"}, {"LPUSH", "q6", "x", "y"}},
	}
	for _, c := range cases {
		var got [2][]string
		for i, addr := range addrs {
			blocked := dialPS(t, addr, 2)
			var req resp.Writer
			req.Array(len(c[0]))
			for _, a := range c[0] {
				req.BulkString(a)
			}
			if _, err := blocked.c.Write(req.B); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			w[i].do(t, c[1])
			blocked.c.SetDeadline(time.Now().Add(2 * time.Second))
			reply, err := blocked.tryFrame()
			if err != nil {
				t.Fatal(err)
			}
			got[i] = append(got[i], string(reply))
			sub[i].c.SetDeadline(time.Now().Add(2 * time.Second))
			for {
				f, err := sub[i].tryFrame()
				if err != nil {
					break // the events stopped coming
				}
				got[i] = append(got[i], string(f))
				sub[i].c.SetDeadline(time.Now().Add(300 * time.Millisecond))
			}
		}
		if fmt.Sprintf("%q", got[0]) != fmt.Sprintf("%q", got[1]) {
			t.Fatalf("%q served by %q: radish's events %q\nredis's events %q", c[0], c[1], got[0], got[1])
		}
		if len(got[1]) < 3 {
			t.Fatalf("%q served by %q: no events", c[0], c[1])
		}
	}
}

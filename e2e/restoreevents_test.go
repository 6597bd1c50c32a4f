package e2e

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// TestRestoreEventsAgainstRedis: RESTORE of a new key, with REPLACE over
// one, with a TTL and ABSTTL in the past over one (only "del") and over
// none (nothing), and refused with BUSYKEY emits what redis-server does,
// on keys of three shards.
func TestRestoreEventsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	addrs := []string{s.addr, ref}
	var w, sub [2]*psConn
	var payload string
	for i, addr := range addrs {
		w[i], sub[i] = dialPS(t, addr, 2), dialPS(t, addr, 2)
		w[i].do(t, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "notify-keyspace-events", "KEAn"})
		sub[i].do(t, []string{"PSUBSCRIBE", "__key*"})
		if i == 1 {
			w[i].do(t, []string{"RPUSH", "src", "a", "b"})
			v, _, err := resp.ReadReply(w[i].do(t, []string{"DUMP", "src"})[0])
			if err != nil {
				t.Fatal(err)
			}
			payload = string(v.Str)
			w[i].do(t, []string{"DEL", "src"})
			sub[i].do(t)
		}
	}
	time.Sleep(20 * time.Millisecond)
	var cmds [][]string
	for _, k := range []string{"r1", "r2", "r3"} {
		cmds = append(cmds, [][]string{
			{"RESTORE", k, "0", payload}, {"RESTORE", k, "0", payload},
			{"RESTORE", k, "0", payload, "REPLACE"}, {"RESTORE", k, "100000", payload, "REPLACE", "IDLETIME", "5"},
			{"RESTORE", k, "1", payload, "REPLACE", "ABSTTL"}, {"RESTORE", k, "1", payload, "ABSTTL"},
		}...)
	}
	for _, cmd := range cmds {
		diffEvents(t, w[:], sub[:], cmd, fmt.Sprintf("%q", cmd[:3]), false)
	}
}

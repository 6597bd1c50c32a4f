package e2e

import (
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// TestEdgeEventsAgainstRedis: the writes whose events depend on what
// they did, not only on their arguments, emit what redis-server 7.0
// does, with notify-keyspace-events KEAn, on keys of three shards:
// PFMERGE of its destination alone ("new" when it creates it, "pfadd"
// every time), a BITFIELD that only creates its key (an INCRBY that
// overflows under OVERFLOW FAIL: "new"), an XADD whose MAXLEN trims
// nothing (no "xtrim"), MOVE ("new" and "move_to" in the other
// database, "move_from" in its own), COPY ... DB ("new" and "copy_to"
// in the other database) and an SMOVE of a member the destination
// already holds (only "srem"), on one shard and across shards.
func TestEdgeEventsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	var w, sub [2]*psConn
	for i, addr := range []string{s.addr, ref} {
		w[i], sub[i] = dialPS(t, addr, 2), dialPS(t, addr, 2)
		w[i].do(t, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "notify-keyspace-events", "KEAn"})
		sub[i].do(t, []string{"PSUBSCRIBE", "__key*"})
	}
	time.Sleep(20 * time.Millisecond)
	cmds := [][]string{
		{"PFMERGE", "pd"}, {"PFMERGE", "pd"}, {"PFMERGE", "pd", "pd"},
		{"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"},
		{"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"},
		{"BITFIELD", "bf", "INCRBY", "u2", "0", "1"},
		{"XADD", "x", "MAXLEN", "10", "1-1", "f", "v"}, {"XADD", "x", "MAXLEN", "10", "1-2", "f", "v"},
		{"XADD", "x", "MAXLEN", "~", "1", "1-3", "f", "v"}, {"XADD", "x", "MINID", "0", "1-4", "f", "v"},
		{"XADD", "x", "MAXLEN", "1", "1-5", "f", "v"}, {"XADD", "x", "MAXLEN", "1", "1-6", "f", "v"},
		{"SET", "k", "v"}, {"MOVE", "k", "3"}, {"MOVE", "k", "3"}, {"SET", "k", "w"}, {"MOVE", "k", "3"},
		{"SADD", "k2", "a"}, {"MOVE", "k2", "4"},
		{"COPY", "k", "k", "DB", "3"}, {"COPY", "k", "k", "DB", "5"}, {"COPY", "k", "k", "DB", "5"},
		{"COPY", "k", "k", "DB", "5", "REPLACE"}, {"COPY", "k", "k3", "DB", "0"}, {"COPY", "k", "k3", "DB", "0", "REPLACE"},
		{"SADD", "{s}a", "m", "n"}, {"SADD", "{s}b", "m"}, {"SMOVE", "{s}a", "{s}b", "m"}, {"SMOVE", "{s}a", "{s}b", "n"},
		{"SADD", "c", "m"}, {"SMOVE", "c", "{s}b", "m"}, {"SADD", "c", "n"}, {"SMOVE", "c", "{s}b", "n"},
	}
	for _, cmd := range cmds {
		diffEvents(t, w[:], sub[:], cmd, fmt.Sprintf("%q", cmd), false)
	}
}

package e2e

import (
	"bytes"
	"os/exec"
	"testing"
)

// TestKeyspaceSelfAgainstRedis: a RESP3 client subscribed to its own
// keys' events gets each push where Redis 7.0 writes it: before the
// command's reply for the commands Redis notifies before replying (SET,
// DEL, INCR, RENAME, SADD), after it for the others (LPUSH, HSET, EXPIRE,
// ZADD), inside it for the sorted-set pops (after their headers), a
// blocking pop served at once like the others, a pipeline's pushes among
// its replies, and inside EXEC's array at each command's place. On one
// shard, every key is the connection's shard's; on three, a command's
// keys share one shard, most often another than the connection's (a hop,
// a blocking pop served there), where radish places the pushes too
// (shard/notifyself.go), except in an EXEC.
func TestKeyspaceSelfAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	for _, shards := range []string{"1", "3"} {
		t.Run("shards="+shards, func(t *testing.T) { selfSteps(t, ref, shards) })
	}
}

// selfSteps runs TestKeyspaceSelfAgainstRedis's steps on a radish of
// shards shards and on redis-server at ref.
func selfSteps(t *testing.T, ref, shards string) {
	s := start(t, "--shards", shards)
	a, b := dialPS(t, s.addr, 3), dialPS(t, ref, 3)
	b.do(t, []string{"FLUSHALL"})
	steps := [][][]string{
		{{"CONFIG", "SET", "notify-keyspace-events", "KEA"}},
		{{"SUBSCRIBE", "__keyspace@0__:k", "__keyevent@0__:lpush"}, {"PSUBSCRIBE", "__keyspace@0__:*"}},
		{{"SET", "k", "v"}, {"GET", "k"}, {"LPUSH", "{k}l", "a"}, {"DEL", "k", "{k}l"}},
		{{"INCR", "n"}, {"EXPIRE", "n", "100"}, {"HSET", "h", "f", "v"}, {"RENAME", "h", "{h}2"}, {"SADD", "s", "a"}, {"ZADD", "z", "1", "a"}},
		{{"MULTI"}, {"SET", "k", "v"}, {"LPUSH", "l", "a", "b"}, {"GET", "k"}, {"RPOPLPUSH", "l", "l2"}, {"EXPIRE", "k", "0"}, {"DEL", "l", "l2"}, {"EXEC"}},
		{{"MULTI"}, {"INCR", "n"}, {"EXEC"}},
		{{"SETBIT", "b", "1", "1"}, {"BITFIELD", "b", "SET", "u8", "0", "5"}, {"BITOP", "NOT", "{b}2", "b"}, {"PFADD", "p", "a"},
			{"PFMERGE", "{p}2", "p"}, {"GEOADD", "g", "0", "0", "m"}, {"GEOSEARCHSTORE", "{g}2", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
			{"RPUSH", "sl", "b", "a"}, {"SORT", "sl", "ALPHA", "STORE", "{sl}2"}, {"LMPOP", "1", "sl", "LEFT"}},
		{{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f"}, {"ZPOPMIN", "z", "2"}, {"ZPOPMAX", "z"},
			{"BZPOPMIN", "z", "0"}, {"ZMPOP", "1", "z", "MIN"}, {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "1"}, {"ZPOPMIN", "nozset"}},
		{{"RPUSH", "bl", "a", "b", "c"}, {"BLPOP", "bl", "0"}, {"PING"}, {"BRPOP", "bl", "0"}, {"BLMPOP", "0", "1", "bl", "LEFT"}, {"PING"}},
		{{"MULTI"}, {"ZADD", "z2", "1", "a", "2", "b"}, {"ZPOPMIN", "z2"}, {"BZPOPMAX", "z2", "0"}, {"EXEC"}},
		{{"CONFIG", "SET", "notify-keyspace-events", ""}},
		{{"SET", "k", "v"}},
	}
	for _, cmds := range steps {
		if shards != "1" && cmds[0][0] == "MULTI" {
			continue // an EXEC on another shard's keys has its pushes after its reply (each leaves the keys as it found them)
		}
		got, want := a.do(t, cmds...), b.do(t, cmds...)
		if !bytes.Equal(bytes.Join(got, nil), bytes.Join(want, nil)) {
			t.Errorf("%q:\nradish %q\nredis  %q", cmds, got, want)
		}
	}
}

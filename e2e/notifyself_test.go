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
// its replies, and inside EXEC's array at each command's place. One shard: every key is the connection's
// shard's, where radish places the pushes (shard/notifyself.go).
func TestKeyspaceSelfAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "1")
	a, b := dialPS(t, s.addr, 3), dialPS(t, ref, 3)
	steps := [][][]string{
		{{"CONFIG", "SET", "notify-keyspace-events", "KEA"}},
		{{"SUBSCRIBE", "__keyspace@0__:k", "__keyevent@0__:lpush"}, {"PSUBSCRIBE", "__keyspace@0__:*"}},
		{{"SET", "k", "v"}, {"GET", "k"}, {"LPUSH", "l", "a"}, {"DEL", "k", "l"}},
		{{"INCR", "n"}, {"EXPIRE", "n", "100"}, {"HSET", "h", "f", "v"}, {"RENAME", "h", "h2"}, {"SADD", "s", "a"}, {"ZADD", "z", "1", "a"}},
		{{"MULTI"}, {"SET", "k", "v"}, {"LPUSH", "l", "a", "b"}, {"GET", "k"}, {"RPOPLPUSH", "l", "l2"}, {"EXPIRE", "k", "0"}, {"DEL", "l", "l2"}, {"EXEC"}},
		{{"MULTI"}, {"INCR", "n"}, {"EXEC"}},
		{{"SETBIT", "b", "1", "1"}, {"BITFIELD", "b", "SET", "u8", "0", "5"}, {"BITOP", "NOT", "b2", "b"}, {"PFADD", "p", "a"},
			{"PFMERGE", "p2", "p"}, {"GEOADD", "g", "0", "0", "m"}, {"GEOSEARCHSTORE", "g2", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
			{"RPUSH", "sl", "b", "a"}, {"SORT", "sl", "ALPHA", "STORE", "sl2"}, {"LMPOP", "1", "sl", "LEFT"}},
		{{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f"}, {"ZPOPMIN", "z", "2"}, {"ZPOPMAX", "z"},
			{"BZPOPMIN", "z", "0"}, {"ZMPOP", "1", "z", "MIN"}, {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "1"}, {"ZPOPMIN", "nozset"}},
		{{"RPUSH", "bl", "a", "b", "c"}, {"BLPOP", "bl", "0"}, {"PING"}, {"BRPOP", "bl", "0"}, {"BLMPOP", "0", "1", "bl", "LEFT"}, {"PING"}},
		{{"MULTI"}, {"ZADD", "z2", "1", "a", "2", "b"}, {"ZPOPMIN", "z2"}, {"BZPOPMAX", "z2", "0"}, {"EXEC"}},
		{{"CONFIG", "SET", "notify-keyspace-events", ""}},
		{{"SET", "k", "v"}},
	}
	for _, cmds := range steps {
		got, want := a.do(t, cmds...), b.do(t, cmds...)
		if !bytes.Equal(bytes.Join(got, nil), bytes.Join(want, nil)) {
			t.Errorf("%q:\nradish %q\nredis  %q", cmds, got, want)
		}
	}
}

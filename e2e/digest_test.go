package e2e

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestDebugDigestAgainstRedis fills redis-server and radish-server (one
// shard and three) with every type and encoding in several databases,
// some keys with a TTL, and checks that DEBUG DIGEST and DEBUG
// DIGEST-VALUE answer Redis's digests; a change to one element changes
// both, as in Redis; a stream's consumer groups change neither.
func TestDebugDigestAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	for _, shards := range []int{1, 3} {
		t.Run("shards="+strconv.Itoa(shards), func(t *testing.T) {
			ref := startRedis(t, redisBin, "--enable-debug-command", "yes")
			s := start(t, "--shards", strconv.Itoa(shards))
			a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
			same := func(args ...string) {
				t.Helper()
				if got, want := a.do(t, args)[0], b.do(t, args)[0]; !bytes.Equal(got, want) {
					t.Fatalf("%.60q: radish %q, redis %q", args, got, want)
				}
			}
			same("DEBUG", "DIGEST")
			same("DEBUG", "DIGEST-VALUE")
			same("DEBUG", "DIGEST", "x")
			cmds, keys, _ := dumpKeys()
			for _, db := range []string{"0", "5"} {
				same("SELECT", db)
				for _, c := range cmds {
					same(c...)
				}
			}
			same("SELECT", "5")
			same("EXPIRE", "h:small", "1000")
			same("PEXPIRE", "s:3", "500000")
			same("SELECT", "2")
			same("SET", "only-in-2", "v")
			same("SELECT", "0")
			for _, k := range keys {
				same("DEBUG", "DIGEST-VALUE", k)
			}
			same("DEBUG", "DIGEST")
			same(append([]string{"DEBUG", "DIGEST-VALUE", "missing"}, keys...)...)
			same("SELECT", "5")
			same(append([]string{"DEBUG", "DIGEST-VALUE"}, keys...)...)
			same("ZADD", "z:small", "7", "a")
			same("DEBUG", "DIGEST-VALUE", "z:small")
			same("DEBUG", "DIGEST")
			same("MOVE", "only-in-2", "3")
			same("SELECT", "2")
			same("MOVE", "only-in-2", "3")
			same("DEBUG", "DIGEST")
			// A stream's consumer groups do not enter its digest.
			same("XADD", "x:g", "1-1", "a", "1")
			same("DEBUG", "DIGEST-VALUE", "x:g")
			same("XGROUP", "CREATE", "x:g", "g", "0")
			same("XREADGROUP", "GROUP", "g", "c", "STREAMS", "x:g", ">")
			same("DEBUG", "DIGEST-VALUE", "x:g")
			same("DEBUG", "DIGEST")
			if d := string(a.do(t, []string{"DEBUG", "DIGEST"})[0]); strings.Trim(d, "+0\r\n") == "" {
				t.Fatalf("digest of a dataset is %q", d)
			}
			same("FLUSHALL")
			same("DEBUG", "DIGEST")
		})
	}
}

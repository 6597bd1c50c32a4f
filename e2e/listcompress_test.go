package e2e

import (
	"os/exec"
	"strconv"
	"testing"
)

// TestListCompressDepth: CONFIG SET list-compress-depth (and its errors)
// as redis-server; a list of 50k elements built at depth 0 and at depth
// 1 reads the same as on redis-server (LRANGE at both ends and in the
// middle, LINDEX, LPOS, LINSERT and LSET inside, OBJECT ENCODING), RESP2
// and RESP3; MEMORY USAGE of the compressed list is logged beside the
// plain one's, and must be smaller.
func TestListCompressDepth(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	var cmds [][]string
	for _, depth := range []string{"0", "1", "3"} {
		cmds = append(cmds, []string{"CONFIG", "SET", "list-compress-depth", depth}, []string{"CONFIG", "GET", "list-compress-depth"})
		key := "list" + depth
		for i := 0; i < 50000; i += 500 {
			args := []string{"RPUSH", key}
			for j := i; j < i+500; j++ {
				args = append(args, "item:"+strconv.Itoa(j)+":payload:aaaaaaaaaaaa")
			}
			cmds = append(cmds, args)
		}
		cmds = append(cmds,
			[]string{"LRANGE", key, "0", "4"}, []string{"LRANGE", key, "-5", "-1"}, []string{"LRANGE", key, "25000", "25010"},
			[]string{"LINDEX", key, "33333"}, []string{"LPOS", key, "item:40000:payload:aaaaaaaaaaaa"},
			[]string{"LINSERT", key, "BEFORE", "item:20000:payload:aaaaaaaaaaaa", "inserted"},
			[]string{"LSET", key, "30000", "replaced"}, []string{"LRANGE", key, "19998", "20002"},
			[]string{"LINDEX", key, "30000"}, []string{"LPOP", key, "3"}, []string{"RPOP", key, "3"},
			[]string{"LLEN", key}, []string{"OBJECT", "ENCODING", key}, []string{"LREM", key, "0", "inserted"},
			[]string{"LTRIM", key, "100", "-100"}, []string{"LRANGE", key, "0", "2"}, []string{"LLEN", key})
	}
	cmds = append(cmds, []string{"CONFIG", "SET", "list-compress-depth", "-1"},
		[]string{"CONFIG", "SET", "list-compress-depth", "2147483648"}, []string{"CONFIG", "SET", "list-compress-depth", "x"})
	sameReplies(t, s.addr, ref, cmds)

	c := s.client(2)
	usage := map[string]int64{}
	for _, depth := range []string{"0", "1"} {
		c.ConfigSet(ctx, "list-compress-depth", depth)
		key := "{m}list" + depth
		for i := 0; i < 50000; i += 500 {
			vals := make([]any, 500)
			for j := range vals {
				vals[j] = "item:" + strconv.Itoa(i+j) + ":payload:aaaaaaaaaaaa"
			}
			c.RPush(ctx, key, vals...)
		}
		usage[depth] = c.MemoryUsage(ctx, key).Val()
	}
	t.Logf("MEMORY USAGE of 50000 elements: %d bytes at depth 0, %d at depth 1", usage["0"], usage["1"])
	if usage["1"] >= usage["0"] {
		t.Errorf("the compressed list takes %d bytes, the plain one %d", usage["1"], usage["0"])
	}
}

package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// TestHLLAgainstRedis sends random PFADDs to HLLs of many sizes (sparse,
// promoted to dense by a register past 32 or by hll-sparse-max-bytes) on
// three shards and to redis-server, and requires the same replies, the
// same bytes from GET, the same PFCOUNT of one key and of keys on several
// shards, and the same PFMERGE results across shards; a value copied with
// GET and SET keeps working.
func TestHLLAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	r := rand.New(rand.NewPCG(7, 8))
	var cmds [][]string
	keys := []string{"h1", "h2", "{t}h3", "h4", "h5", "h6"}
	for k, n := range []int{3, 40, 400, 1200, 3000, 30000} {
		key := keys[k]
		for i := 0; i < n; {
			args := []string{"PFADD", key}
			for j := 1 + r.IntN(20); j > 0 && i < n; j-- {
				args = append(args, fmt.Sprintf("%d-%d", r.IntN(2*n), i))
				i++
			}
			cmds = append(cmds, args)
			if r.IntN(20) == 0 {
				cmds = append(cmds, []string{"PFCOUNT", key}, []string{"GET", key})
			}
		}
		cmds = append(cmds, []string{"GET", key}, []string{"PFCOUNT", key}, []string{"GET", key},
			[]string{"PFDEBUG", "ENCODING", key})
	}
	many := []string{"PFADD", "small"} // past 200 bytes of sparse opcodes
	for i := range 120 {
		many = append(many, strconv.Itoa(i))
	}
	cmds = append(cmds,
		[]string{"PFCOUNT", "h1", "h2", "{t}h3", "nokey"},
		[]string{"PFCOUNT", "h4", "h6", "h5"},
		[]string{"PFMERGE", "m", "h1", "h2", "{t}h3"}, []string{"GET", "m"}, []string{"PFCOUNT", "m"},
		[]string{"PFMERGE", "{t}m2", "h5", "h2"}, []string{"GET", "{t}m2"},
		[]string{"PFMERGE", "h1", "h6"}, []string{"GET", "h1"}, []string{"PFCOUNT", "h1"},
		[]string{"SET", "s", "x"}, []string{"PFCOUNT", "h2", "s"}, []string{"PFMERGE", "m", "s"},
		[]string{"CONFIG", "SET", "hll-sparse-max-bytes", "200"},
		[]string{"PFADD", "small", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"},
		[]string{"PFDEBUG", "ENCODING", "small"},
		many,
		[]string{"PFDEBUG", "ENCODING", "small"}, []string{"GET", "small"},
		[]string{"PFMERGE", "small2", "h2"}, []string{"PFDEBUG", "ENCODING", "small2"}, []string{"GET", "small2"},
		[]string{"CONFIG", "GET", "hll-sparse-max-bytes"},
		[]string{"CONFIG", "SET", "hll-sparse-max-bytes", "3000"})
	sameReplies(t, s.addr, ref, cmds)

	// A value copied over from Redis (GET there, SET here) keeps working:
	// the same counts and bytes after more elements.
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	for _, n := range []int{5, 500, 5000} {
		key := "copy" + strconv.Itoa(n)
		args := []string{"PFADD", key}
		for i := range n {
			args = append(args, "x"+strconv.Itoa(i))
		}
		b.do(t, args)
		v, _, err := resp.ReadReply(b.do(t, []string{"GET", key})[0])
		if err != nil {
			t.Fatal(err)
		}
		a.do(t, []string{"SET", key, string(v.Str)})
		for _, cmd := range [][]string{{"PFCOUNT", key}, {"PFADD", key, "y1", "y2", "y3"}, {"PFCOUNT", key}, {"GET", key}} {
			if got, want := a.do(t, cmd)[0], b.do(t, cmd)[0]; !bytes.Equal(got, want) {
				t.Fatalf("copied HLL of %d: %v: radish %q, redis %q", n, cmd, got, want)
			}
		}
	}
}

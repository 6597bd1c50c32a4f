package e2e

import (
	"bytes"
	"os/exec"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// TestMemoryAgainstRedis: MEMORY HELP, DOCTOR (both nearly empty),
// PURGE, USAGE of a missing key and USAGE's errors answer as
// redis-server's, RESP2 and RESP3; MEMORY STATS has Redis's fields, in
// its order, with values of the same types; MEMORY USAGE of a key grows
// with its value, is the same on every shard's keys of the same value,
// and takes SAMPLES.
func TestMemoryAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	sameReplies(t, s.addr, ref, [][]string{
		{"MEMORY", "HELP"}, {"MEMORY", "DOCTOR"}, {"MEMORY", "PURGE"},
		{"MEMORY", "USAGE", "missing"}, {"SET", "k", "v"},
		{"MEMORY", "USAGE", "k", "SAMPLES", "-1"}, {"MEMORY", "USAGE", "k", "SAMPLES", "x"},
		{"MEMORY", "USAGE", "k", "SAMPLES"}, {"MEMORY", "USAGE", "k", "FOO", "1"},
		{"MEMORY", "NOPE"}, {"MEMORY"}, {"MEMORY", "USAGE"},
	})
	for _, proto := range []int{2, 3} {
		a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
		shape := func(raw []byte) string {
			v, _, err := resp.ReadReply(raw)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			var walk func(v resp.Value)
			walk = func(v resp.Value) {
				out.WriteByte(v.Type)
				for i, e := range v.Elems {
					if v.Type == '%' && i%2 == 0 || v.Type == '*' && i%2 == 0 {
						out.Write(e.Str) // field names
						out.WriteByte(' ')
						continue
					}
					walk(e)
				}
			}
			walk(v)
			return out.String()
		}
		got, want := shape(a.do(t, []string{"MEMORY", "STATS"})[0]), shape(b.do(t, []string{"MEMORY", "STATS"})[0])
		if got != want {
			t.Errorf("RESP%d MEMORY STATS:\n got %s\nwant %s", proto, got, want)
		}
	}
	c := s.client(2)
	usage := func(key string) int64 {
		n, err := c.MemoryUsage(ctx, key).Result()
		if err != nil {
			t.Fatal(key, err)
		}
		return n
	}
	for i := range 6 { // keys of the same size on every shard
		k := "key" + strconv.Itoa(i)
		c.Set(ctx, k, "a value of a fixed length", 0)
		if i > 0 && usage(k) != usage("key0") {
			t.Errorf("MEMORY USAGE %s = %d, key0 = %d", k, usage(k), usage("key0"))
		}
	}
	small := usage("key0")
	for i := range 500 {
		c.RPush(ctx, "list", "element number "+strconv.Itoa(i))
	}
	if big := usage("list"); big < 500*15 || big > 500*100 {
		t.Errorf("MEMORY USAGE of a list of 500 elements: %d (a string: %d)", big, small)
	}
	if n, err := c.MemoryUsage(ctx, "list", 0).Result(); err != nil || n != usage("list") {
		t.Errorf("MEMORY USAGE list SAMPLES 0 = %d, %v", n, err)
	}
}

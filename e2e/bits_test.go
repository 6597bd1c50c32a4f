package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// sameReplies sends cmds to radish and to redis-server and requires
// byte-identical replies, in RESP2 and RESP3.
func sameReplies(t *testing.T, radish, redis string, cmds [][]string) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		a, b := dialDiff(t, radish, proto), dialDiff(t, redis, proto)
		a.do(t, []string{"FLUSHALL"})
		b.do(t, []string{"FLUSHALL"})
		for _, args := range cmds {
			got, want := a.do(t, args)[0], b.do(t, args)[0]
			if !bytes.Equal(got, want) {
				t.Fatalf("RESP%d %s: radish replied %q, redis %q", proto, strings.Join(args, " "), got, want)
			}
		}
	}
}

// TestBitOpShards runs BITOP over keys on three shards (s1, s2 and {t}s3
// land on different ones) against redis-server, with sources of different
// lengths, a missing source, a wrong type and a destination on yet
// another shard.
func TestBitOpShards(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	long := strings.Repeat("\x5a\xc3", 600) // external values, word paths
	cmds := [][]string{
		{"SET", "s1", "\x0f\xf0\xaa"},
		{"SET", "s2", long},
		{"SETBIT", "{t}s3", "9000", "1"},
		{"LPUSH", "l1", "x"},
	}
	for _, op := range []string{"AND", "OR", "XOR"} {
		for _, dst := range []string{"d", "s1", "{t}s3", "x9"} {
			cmds = append(cmds,
				[]string{"BITOP", op, dst, "s1", "s2", "{t}s3", "nokey"},
				[]string{"GET", dst}, []string{"BITCOUNT", dst}, []string{"STRLEN", dst},
				[]string{"SET", "s1", "\x0f\xf0\xaa"}, []string{"SETBIT", "{t}s3", "9000", "1"})
		}
		cmds = append(cmds, []string{"BITOP", op, "d", "s1", "l1", "s2"}, []string{"GET", "d"})
	}
	cmds = append(cmds,
		[]string{"BITOP", "NOT", "d", "s2"}, []string{"GET", "d"},
		[]string{"BITOP", "NOT", "s1", "s2"}, []string{"GET", "s1"},
		[]string{"BITOP", "OR", "d", "nokey", "nokey2"}, []string{"EXISTS", "d"},
		[]string{"BITOP", "AND", "s2", "nokey"}, []string{"EXISTS", "s2"})
	sameReplies(t, s.addr, ref, cmds)
}

// TestBitsMaxBulkLen: SETBIT, GETBIT and BITFIELD offsets are bounded by
// proto-max-bulk-len as set, with Redis's error (as redis-server 7.0.15
// answers).
func TestBitsMaxBulkLen(t *testing.T) {
	s := start(t, "--shards", "2")
	const offErr = "ERR bit offset is not an integer or out of range\n\n" // redis-cli ends an error with a blank line
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SETBIT", "k", "4294967296", "1"}, offErr},
		{[]string{"GETBIT", "k", "4294967296"}, offErr},
		{[]string{"CONFIG", "SET", "proto-max-bulk-len", "1mb"}, "OK\n"},
		{[]string{"SETBIT", "k", fmt.Sprint(8 << 20), "1"}, offErr},
		{[]string{"GETBIT", "k", fmt.Sprint(8 << 20)}, offErr},
		{[]string{"SETBIT", "k", fmt.Sprint(8<<20 - 1), "1"}, "0\n"},
		{[]string{"STRLEN", "k"}, "1048576\n"},
		{[]string{"BITCOUNT", "k"}, "1\n"},
		{[]string{"BITPOS", "k", "1"}, fmt.Sprint(8<<20-1, "\n")},
	} {
		if got := s.cli(tc.args...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

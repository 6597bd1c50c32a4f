package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
	"github.com/redis/go-redis/v9"
)

// Replies with times in them are compared by shape: the servers are asked
// one after the other, so idle times and delivery times differ.
var (
	maskStamp = regexp.MustCompile(`:1\d{12}\r\n`)
	maskIdle  = regexp.MustCompile(`(\$4\r\nidle\r\n):\d+\r\n`)
	// an XPENDING entry: ID, consumer, idle, count
	maskPendingIdle = regexp.MustCompile(`(\*4\r\n\$\d+\r\n\d+-\d+\r\n\$\d+\r\n[^\r]*\r\n):\d+\r\n`)
)

var maskRead = regexp.MustCompile(`(\$12\r\nentries-read\r\n)(?::-?\d+|\$-1|_)\r\n(\$3\r\nlag\r\n)(?::-?\d+|\$-1|_)\r\n`)

func maskTimes(b []byte) []byte {
	b = maskStamp.ReplaceAll(b, []byte(":T\r\n"))
	b = maskIdle.ReplaceAll(b, []byte("${1}:I\r\n"))
	return maskPendingIdle.ReplaceAll(b, []byte("${1}:I\r\n"))
}

// TestStreamGroupsAgainstRedis sends consumer group commands (every
// subcommand and option, their errors, deleted entries in PELs, XDEL and
// DEL with groups, MULTI) to radish (three shards) and redis-server,
// RESP2 and RESP3, and requires the same replies (times masked).
func TestStreamGroupsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	script := `
SET str x
XGROUP CREATE s g 0
XGROUP CREATE s g 0 MKSTREAM
XGROUP CREATE s g bad MKSTREAM
XGROUP CREATE str g 0
XGROUP CREATE s g2 $
XGROUP CREATE s g2 0
XINFO GROUPS s
XADD s 1-1 a 1
XADD s 2-1 b 2
XADD s 3-1 c 3 d 4
XADD s 4-1 a 5
XGROUP CREATE s g3 0 FOO
XGROUP CREATE s g3 0 ENTRIESREAD abc
XGROUP CREATE s g3 0 ENTRIESREAD -2
XGROUP CREATE s g3 + 
XGROUP CREATE s g3 2-0 ENTRIESREAD 1
XGROUP CREATE s g4 5-5 ENTRIESREAD 9 MKSTREAM
XGROUP CREATE s g
XGROUP FOO s g
XGROUP HELP
XGROUP HELP extra
XINFO GROUPS s
XINFO STREAM s
XREADGROUP GROUP g alice COUNT 2 STREAMS s >
XREADGROUP GROUP g alice STREAMS s 0
XREADGROUP GROUP g bob NOACK COUNT 1 STREAMS s >
XREADGROUP GROUP g carol STREAMS s >
XREADGROUP GROUP g carol STREAMS s >
XREADGROUP GROUP g dave STREAMS s 0
XREADGROUP GROUP g alice STREAMS s
XREADGROUP GROUP g alice STREAMS s > s2
XREADGROUP STREAMS s >
XREADGROUP GROUP g alice STREAMS s $
XREADGROUP GROUP g alice COUNT x STREAMS s >
XREADGROUP GROUP g alice BLOCK -1 STREAMS s >
XREADGROUP GROUP g alice FOO STREAMS s >
XREADGROUP GROUP g alice STREAMS nokey >
XREADGROUP GROUP nog alice STREAMS s >
XREADGROUP GROUP g alice STREAMS s bad
XREADGROUP GROUP g alice STREAMS str >
XREADGROUP GROUP g alice STREAMS s 0 nokey 0
XREADGROUP GROUP g alice STREAMS s (1-1
XINFO GROUPS s
XINFO CONSUMERS s g
XINFO CONSUMERS s nog
XINFO CONSUMERS nokey g
XPENDING s g
XPENDING s g - + 10
XPENDING s g - + 10 alice
XPENDING s g - + 10 nobody
XPENDING s g (1-1 + 10
XPENDING s g - (4-1 1
XPENDING s g IDLE 0 - + 10
XPENDING s g IDLE 1000000 - + 10
XPENDING s g - + x
XPENDING s g IDLE 5 - +
XPENDING s g - + 10 c extra
XPENDING s g bad + 10
XPENDING s g (18446744073709551615-18446744073709551615 + 10
XPENDING nokey g
XPENDING s nog
XPENDING s g - +
XDEL s 2-1
XREADGROUP GROUP g alice STREAMS s 0
XCLAIM s g erin 0 2-1
XPENDING s g - + 10
XCLAIM s g erin 0 1-1 3-1 JUSTID
XCLAIM s g erin 0 1-1 TIME 1000 RETRYCOUNT 7
XCLAIM s g frank 0 4-1 FORCE
XCLAIM s g frank 0 4-1 9-9 FORCE JUSTID LASTID 5-0
XCLAIM s g frank 100000 1-1
XCLAIM s g frank 0 1-1 IDLE 100000000
XCLAIM s g frank 0 1-1 IDLE x
XCLAIM s g frank x 1-1
XCLAIM s g frank 0 1-1 FOO
XCLAIM s g frank 0 bad
XCLAIM s g frank 0 1-1 TIME x
XCLAIM s g frank 0 1-1 RETRYCOUNT x
XCLAIM s g frank 0 1-1 LASTID bad
XCLAIM nokey g frank 0 1-1
XCLAIM s nog frank 0 1-1
XCLAIM str g frank 0 1-1
XPENDING s g - + 10
XINFO GROUPS s
XADD s 5-1 e 6
XADD s 6-1 f 7
XREADGROUP GROUP g carol STREAMS s >
XDEL s 5-1
XAUTOCLAIM s g gina 0 0 COUNT 1
XAUTOCLAIM s g gina 0 0 COUNT 2 JUSTID
XAUTOCLAIM s g gina 0 0
XAUTOCLAIM s g gina 0 (4-1
XAUTOCLAIM s g gina 100000000 0
XAUTOCLAIM s g gina x 0
XAUTOCLAIM s g gina 0 bad
XAUTOCLAIM s g gina 0 0 COUNT 0
XAUTOCLAIM s g gina 0 0 COUNT 9999999999999999999
XAUTOCLAIM s g gina 0 0 FOO
XAUTOCLAIM s g gina 0 (18446744073709551615-18446744073709551615
XAUTOCLAIM nokey g gina 0 0
XAUTOCLAIM s nog gina 0 0
XPENDING s g
XACK s g 1-1 4-1 9-9
XACK s g 1-1
XACK s g bad
XACK nokey g bad
XACK s nog 1-1
XACK str g 1-1
XPENDING s g
XGROUP CREATECONSUMER s g zed
XGROUP CREATECONSUMER s g zed
XGROUP CREATECONSUMER s nog zed
XGROUP CREATECONSUMER nokey g zed
XGROUP DELCONSUMER s g gina
XGROUP DELCONSUMER s g nobody
XGROUP DELCONSUMER s nog gina
XINFO CONSUMERS s g
XGROUP SETID s g 0 ENTRIESREAD
XGROUP SETID s g 0 FOO 1
XGROUP SETID s g 0 ENTRIESREAD -5
XGROUP SETID s g 0 ENTRIESREAD x
XGROUP SETID s g bad
XGROUP SETID s nog 0
XGROUP SETID nokey g 0
XGROUP SETID s g3 +
XGROUP SETID s g3 $ ENTRIESREAD 3
XGROUP SETID s g4 1-1 ENTRIESREAD -1
XINFO GROUPS s
XINFO STREAM s
XINFO STREAM s FULL
XINFO STREAM s FULL COUNT 1
XGROUP DESTROY s g4
XGROUP DESTROY s g4
XGROUP DESTROY nokey g
XGROUP DESTROY str g
XINFO GROUPS s
MULTI
XREADGROUP GROUP g hal BLOCK 0 STREAMS s >
XGROUP CREATE s g9 0
XREADGROUP GROUP g9 hal COUNT 1 STREAMS s >
EXEC
XTRIM s MAXLEN 1
XPENDING s g
XREADGROUP GROUP g9 hal STREAMS s 0
XINFO GROUPS s
XINFO STREAM s FULL
XADD {t}s2 1-1 a 1
XGROUP CREATE {t}s2 g 0
XREADGROUP GROUP g9 hal STREAMS s {t}s2 0 0
XREADGROUP GROUP g hal STREAMS {t}s2 >
XREADGROUP GROUP g hal STREAMS s {t}s2 > >
COPY s s3
XINFO STREAM s3 FULL
DEL s
XINFO GROUPS s
XREADGROUP GROUP g alice STREAMS s >
XGROUP CREATE s g 0 MKSTREAM
XINFO STREAM s FULL
XGROUP CREATE e g $ MKSTREAM
XSETID e 5-5 ENTRIESADDED 3
XINFO GROUPS e
XGROUP CREATE e g1 0
XGROUP CREATE e g2 5-5
XINFO GROUPS e
TYPE e
`
	var cmds [][]string
	for _, line := range strings.Split(script, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			cmds = append(cmds, f)
		}
	}
	for _, proto := range []int{2, 3} {
		a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
		a.do(t, []string{"FLUSHALL"})
		b.do(t, []string{"FLUSHALL"})
		for _, args := range cmds {
			got, want := maskTimes(a.do(t, args)[0]), maskTimes(b.do(t, args)[0])
			if !bytes.Equal(got, want) {
				t.Fatalf("RESP%d %s: radish replied %q, redis %q", proto, strings.Join(args, " "), got, want)
			}
		}
	}
}

// groupScript builds streams with groups on three shards: pending
// entries of several consumers (delivery times and counts set with
// XCLAIM TIME and RETRYCOUNT), a deleted entry still pending, a consumer
// with nothing pending, a NOACK read, an unknown entries-read.
var groupScript = [][]string{
	{"XADD", "s", "1-1", "a", "1"}, {"XADD", "s", "2-1", "b", "2"}, {"XADD", "s", "3-1", "c", "3"},
	{"XADD", "s", "4-1", "d", "4"},
	{"XGROUP", "CREATE", "s", "g", "0"}, {"XGROUP", "CREATE", "s", "g2", "$"},
	{"XGROUP", "CREATE", "s", "g3", "2-0", "ENTRIESREAD", "-1"},
	{"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"},
	{"XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "s", ">"},
	{"XREADGROUP", "GROUP", "g", "nack", "NOACK", "COUNT", "1", "STREAMS", "s", ">"},
	{"XCLAIM", "s", "g", "alice", "0", "1-1", "TIME", "1700000000000", "RETRYCOUNT", "3"},
	{"XCLAIM", "s", "g", "carol", "0", "2-1", "TIME", "1700000000500", "RETRYCOUNT", "1"},
	{"XCLAIM", "s", "g", "bob", "0", "3-1", "TIME", "1700000000900", "RETRYCOUNT", "2"},
	{"XDEL", "s", "2-1"},
	{"XGROUP", "CREATECONSUMER", "s", "g2", "idle"},
	{"XADD", "{t}x", "1-0", "f", "v"}, {"XGROUP", "CREATE", "{t}x", "gx", "0"},
	{"XREADGROUP", "GROUP", "gx", "c1", "STREAMS", "{t}x", ">"},
	{"XCLAIM", "{t}x", "gx", "c1", "0", "1-0", "TIME", "1700000001000", "RETRYCOUNT", "5"},
	{"XGROUP", "CREATE", "e", "ge", "$", "MKSTREAM"},
}

// fullInfo is XINFO STREAM FULL of each key, seen-times masked (a
// consumer a replay creates is seen at the replay).
func fullInfo(t *testing.T, d *diffConn, keys ...string) []string {
	var out []string
	for _, k := range keys {
		b := d.do(t, []string{"XINFO", "STREAM", k, "FULL"})[0]
		out = append(out, string(regexp.MustCompile(`(\$9\r\nseen-time\r\n):\d+\r\n`).ReplaceAll(b, []byte("${1}:S\r\n"))))
	}
	return out
}

// TestStreamGroupsDumpAgainstRedis: DUMP of streams with groups crosses
// both ways with redis-server 7.0.15 (RESTORE, then XINFO STREAM FULL the
// same, times included), and a RESTOREd stream's groups work on.
func TestStreamGroupsDumpAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	for _, src := range []struct {
		name     string
		from, to *diffConn
	}{{"redis to radish", b, a}, {"radish to redis", a, b}} {
		a.do(t, []string{"FLUSHALL"})
		b.do(t, []string{"FLUSHALL"})
		for _, args := range groupScript {
			src.from.do(t, args)
		}
		for _, k := range []string{"s", "{t}x", "e"} {
			v, _, err := resp.ReadReply(src.from.do(t, []string{"DUMP", k})[0])
			if err != nil {
				t.Fatal(err)
			}
			if r := src.to.do(t, []string{"RESTORE", k, "0", string(v.Str)})[0]; string(r) != "+OK\r\n" {
				t.Fatalf("%s: RESTORE %s: %q", src.name, k, r)
			}
			from := src.from.do(t, []string{"XINFO", "STREAM", k, "FULL"})[0]
			to := src.to.do(t, []string{"XINFO", "STREAM", k, "FULL"})[0]
			if !bytes.Equal(from, to) {
				t.Fatalf("%s: XINFO STREAM %s FULL\n got %q\nwant %q", src.name, k, to, from)
			}
		}
		for _, args := range [][]string{
			{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"},
			{"XACK", "s", "g", "1-1"},
			{"XPENDING", "s", "g"},
			{"XINFO", "GROUPS", "s"},
		} {
			got, want := maskTimes(a.do(t, args)[0]), maskTimes(b.do(t, args)[0])
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: %v: radish %q, redis %q", src.name, args, got, want)
			}
		}
	}
}

// TestStreamGroupsAOF: groups survive a restart from the AOF (each
// command's propagated form replayed: XCLAIM ... FORCE JUSTID, XGROUP
// SETID of a NOACK read, ...), after BGREWRITEAOF (the rewrite's XGROUP
// CREATE, XCLAIM and CREATECONSUMER) too, and a snapshot (SAVE, then a
// restart from the RDB). Replayed commands do not carry entries-read (an
// XREADGROUP is propagated as XCLAIMs without it, as Redis 7.0.15 does):
// in the AOF's replay entries-read and lag are not compared.
func TestStreamGroupsAOF(t *testing.T) {
	for _, mode := range []string{"aof", "rewrite", "rdb"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--shards", "3", "--appendonly", "yes", "--appendfsync", "always"}
			if mode == "rdb" {
				args = []string{"--shards", "3"}
			}
			s := startDir(t, dir, args...)
			d := dialDiff(t, s.addr, 2)
			for _, a := range groupScript {
				d.do(t, a)
			}
			// Commands whose propagated form is not themselves.
			for _, a := range [][]string{
				{"XAUTOCLAIM", "s", "g", "dave", "0", "0", "COUNT", "1"},
				{"XREADGROUP", "GROUP", "g3", "n", "NOACK", "STREAMS", "s", ">"},
				{"XCLAIM", "s", "g", "erin", "0", "4-1", "FORCE", "LASTID", "9-0", "TIME", "1700000002000"},
				{"MULTI"}, {"XACK", "s", "g", "3-1"}, {"XREADGROUP", "GROUP", "g2", "idle", "STREAMS", "s", "0"}, {"EXEC"},
			} {
				d.do(t, a)
			}
			info := func() []string {
				got := fullInfo(t, d, "s", "{t}x", "e")
				if mode == "aof" {
					for i := range got {
						got[i] = string(maskRead.ReplaceAll([]byte(got[i]), []byte("${1}R${2}L")))
					}
				}
				return got
			}
			want := info()
			switch mode {
			case "rewrite":
				d.do(t, []string{"BGREWRITEAOF"})
				for deadline := time.Now().Add(20 * time.Second); !strings.Contains(s.cli("info", "persistence"), "aof_rewrite_in_progress:0"); {
					if time.Now().After(deadline) {
						t.Fatal("the rewrite did not end")
					}
					time.Sleep(20 * time.Millisecond)
				}
			case "rdb":
				if r := d.do(t, []string{"SAVE"})[0]; string(r) != "+OK\r\n" {
					t.Fatalf("SAVE: %q", r)
				}
			}
			s.stop()
			s = startDir(t, dir, args...)
			d = dialDiff(t, s.addr, 2)
			if got := info(); !slices.Equal(got, want) {
				t.Fatalf("after the restart:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestBlockingXReadGroup: XREADGROUP BLOCK on the streams of three shards
// at once (each with the group, so each shard sees a key to serve from as
// the client parks there; the connection's shard is any of them): an XADD
// to any of them serves the blocked consumer the new entry (now pending
// for it), a second consumer of the group gets the next one; the group
// destroyed or the key deleted while blocked answer as Redis 7.0 does;
// inside MULTI it does not block.
func TestBlockingXReadGroup(t *testing.T) {
	s := start(t, "--shards", "3")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) {
			c := s.client(proto)
			c.FlushAll(ctx)
			keys := []string{"q1", "q4", "q3"} // shards 2, 1 and 0 of three
			for _, k := range append(keys, "{t}other") {
				c.XGroupCreateMkStream(ctx, k, "g", "$")
			}
			blocker := redis.NewClient(&redis.Options{Addr: s.addr, Protocol: proto, DisableIdentity: true,
				MaxRetries: -1, ReadTimeout: -1})
			defer blocker.Close()
			type res struct {
				v   []redis.XStream
				err error
			}
			wait := func(args *redis.XReadGroupArgs) chan res {
				got := make(chan res, 1)
				go func() {
					v, err := blocker.XReadGroup(ctx, args).Result()
					got <- res{v, err}
				}()
				deadline := time.Now().Add(5 * time.Second)
				for infoField(t, c, "blocked_clients") != "1" {
					if time.Now().After(deadline) {
						t.Fatalf("blocked_clients = %s", infoField(t, c, "blocked_clients"))
					}
					time.Sleep(5 * time.Millisecond)
				}
				return got
			}
			recv := func(ch chan res) res {
				select {
				case r := <-ch:
					return r
				case <-time.After(5 * time.Second):
					t.Fatalf("the blocked XREADGROUP was not answered (%s)", infoField(t, c, "blocked_clients"))
				}
				return res{}
			}
			for i, k := range keys {
				streams := []string{"{t}other", keys[0], keys[1], keys[2], ">", ">", ">", ">"}
				got := wait(&redis.XReadGroupArgs{Group: "g", Consumer: "alice", Streams: streams, Block: 0})
				id := fmt.Sprintf("5-%d", i)
				c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: id, Values: []string{"new", k}})
				r := recv(got)
				if r.err != nil || len(r.v) != 1 || r.v[0].Stream != k || len(r.v[0].Messages) != 1 || r.v[0].Messages[0].ID != id {
					t.Fatalf("woken by XADD %s %s: %+v %v", k, id, r.v, r.err)
				}
				p, err := c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: k, Group: "g", Start: "-", End: "+", Count: 10}).Result()
				if err != nil || len(p) != 1 || p[0].ID != id || p[0].Consumer != "alice" || p[0].RetryCount != 1 {
					t.Fatalf("PEL of %s: %+v %v", k, p, err)
				}
			}
			// Served entries are the group's: bob gets only the next one.
			got := wait(&redis.XReadGroupArgs{Group: "g", Consumer: "bob", Streams: []string{keys[1], "{t}other", ">", ">"}, Block: 0})
			c.XAdd(ctx, &redis.XAddArgs{Stream: keys[1], ID: "6-0", Values: []string{"b", "1"}})
			if r := recv(got); r.err != nil || len(r.v) != 1 || r.v[0].Messages[0].ID != "6-0" {
				t.Fatalf("bob: %+v %v", r.v, r.err)
			}
			// The group destroyed, the key deleted.
			got = wait(&redis.XReadGroupArgs{Group: "g", Consumer: "alice", Streams: []string{keys[2], ">"}, Block: 0})
			c.XGroupDestroy(ctx, keys[2], "g")
			if r := recv(got); r.err == nil || r.err.Error() != "NOGROUP the consumer group this client was blocked on no longer exists" {
				t.Fatalf("group destroyed: %+v %v", r.v, r.err)
			}
			got = wait(&redis.XReadGroupArgs{Group: "g", Consumer: "alice", Streams: []string{"{t}other", keys[1], ">", ">"}, Block: 0})
			c.Del(ctx, keys[1])
			if r := recv(got); r.err == nil || r.err.Error() != "UNBLOCKED the stream key no longer exists" {
				t.Fatalf("key deleted: %+v %v", r.v, r.err)
			}
			// The deadline, and MULTI.
			if _, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "a", Streams: []string{keys[0], ">"}, Block: 50 * time.Millisecond}).Result(); err != redis.Nil {
				t.Fatalf("after the deadline: %v", err)
			}
			cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "a", Streams: []string{keys[0], ">"}, Block: 0})
				return nil
			})
			if err != redis.Nil || len(cmds) != 1 {
				t.Fatalf("XREADGROUP BLOCK in MULTI: %v %v", cmds, err)
			}
		})
	}
}

package e2e

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/rdb"
)

// dumpKeys builds, in both servers, a key of every type in every
// encoding: integer, short, long (compressible or not) strings; lists of
// one and of many nodes; intsets and hashtable sets; listpack and
// hashtable hashes; listpack and skiplist sorted sets. byteSame lists the
// keys whose DUMP must be byte for byte Redis's: those whose encoding
// does not depend on hash-table order.
func dumpKeys() (cmds [][]string, keys []string, byteSame map[string]bool) {
	r := rand.New(rand.NewPCG(7, 7))
	rnd := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	byteSame = map[string]bool{}
	add := func(key string, same bool, cmd ...string) {
		cmds = append(cmds, append([]string{cmd[0], key}, cmd[1:]...))
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
		byteSame[key] = same
	}
	for i, v := range []string{"12345", "-7", "127", "-128", "32768", "2147483647", "-2147483649",
		"12345678901", "007", "hello", "3.14", "", strings.Repeat("abc", 100), strings.Repeat("x", 21),
		rnd(500), strings.Repeat("0123456789abcdef", 400) + rnd(64), strings.Repeat("ab", 20000)} {
		add("s:"+strconv.Itoa(i), true, "SET", v)
	}
	add("l:small", true, "RPUSH", "a", "b", "1", "2", "300", "-7", "100000", "-5000", "99999999999", strings.Repeat("q", 70))
	big := []string{"RPUSH"}
	for i := 0; i < 3000; i++ {
		switch i % 4 {
		case 0:
			big = append(big, strconv.Itoa(i*7919))
		case 1:
			big = append(big, "item-"+strconv.Itoa(i))
		case 2:
			big = append(big, strings.Repeat("v", i%300))
		default:
			big = append(big, rnd(i%50))
		}
	}
	add("l:big", true, big...)
	add("l:huge-elem", true, "RPUSH", "x", strings.Repeat("y", 10000), "z")
	add("l:lpush", false, append([]string{"LPUSH"}, big[1:]...)...)
	add("set:int", true, "SADD", "1", "2", "3", "-5", "70000", "5000000000", "-32768")
	add("set:int16", true, "SADD", "1", "200", "-300")
	add("set:str", false, "SADD", "a", "b", "c", "1")
	ints := []string{"SADD"}
	for i := 0; i < 600; i++ {
		ints = append(ints, strconv.Itoa(i*3))
	}
	add("set:bigint", false, ints...)
	add("h:small", true, "HSET", "f1", "v1", "f2", "2", "num", "-100000", "e", "", "long", strings.Repeat("w", 64))
	add("h:small", true, "HSET", "f1", "changed", "f3", "new")
	add("h:longval", false, "HSET", "f", strings.Repeat("w", 65), "g", "1")
	hb := []string{"HSET"}
	for i := 0; i < 600; i++ {
		hb = append(hb, "field"+strconv.Itoa(i), strconv.Itoa(i))
	}
	add("h:big", false, hb...)
	add("z:small", true, "ZADD", "1.5", "a", "2", "b", "-0", "c", "1e20", "d", "0.1", "e", "inf", "f", "-inf", "g",
		"3e15", "h", "-5000000000", "i", "4611686018427387904", "j", "1e-300", "k")
	zb := []string{"ZADD"}
	for i := 0; i < 300; i++ {
		zb = append(zb, strconv.FormatFloat(float64(i%37)/3, 'g', -1, 64), "member"+strconv.Itoa(i))
	}
	add("z:big", true, zb...)
	add("z:longmember", true, "ZADD", "1", strings.Repeat("m", 65), "2", "short")
	// Streams: nodes split by entries and by bytes, entries with the
	// master's fields and with others, integers of every width, deleted
	// entries (kept flagged in their nodes, as Redis keeps them), an
	// empty stream.
	for i := 0; i < 700; i++ {
		fv := []string{"f", strconv.Itoa(i * 7919), "name", "n" + strconv.Itoa(i%13)}
		switch i % 7 {
		case 3:
			fv = []string{"other", strings.Repeat("v", i%200)}
		case 5:
			fv = append(fv, "extra", rnd(i%40))
		}
		add("x:big", true, append([]string{"XADD", strconv.Itoa(1000+i/5) + "-" + strconv.Itoa(i%5)}, fv...)...)
	}
	add("x:small", true, "XADD", "1-1", "a", "1", "b", "-2147483649")
	add("x:small", true, "XADD", "1-2", "a", "2", "b", "hello")
	add("x:small", true, "XSETID", "9-9", "ENTRIESADDED", "5", "MAXDELETEDID", "3-3")
	for i := 1; i <= 30; i++ {
		add("x:deleted", true, "XADD", strconv.Itoa(i)+"-0", "f", strings.Repeat("d", i*10))
	}
	add("x:deleted", true, "XDEL", "1-0", "5-0", "6-0", "30-0")
	add("x:deleted", true, "XTRIM", "MAXLEN", "20")
	add("x:empty", true, "XADD", "5-5", "f", "v")
	add("x:empty", true, "XADD", "6-5", "f", "v")
	add("x:empty", true, "XDEL", "5-5", "6-5")
	return cmds, keys, byteSame
}

// content is what a key holds, as a comparison needs it.
func content(t *testing.T, d *diffConn, key string) string {
	t.Helper()
	typ := d.do(t, []string{"TYPE", key})[0]
	var args []string
	switch string(bytes.TrimSpace(typ)) {
	case "+string":
		args = []string{"GET", key}
	case "+list":
		args = []string{"LRANGE", key, "0", "-1"}
	case "+set":
		args = []string{"SMEMBERS", key}
	case "+hash":
		args = []string{"HGETALL", key}
	case "+zset":
		args = []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}
	case "+stream":
		args = []string{"XRANGE", key, "-", "+"}
	case "+none":
		return "none"
	default:
		t.Fatalf("%s: type %q", key, typ)
	}
	return string(typ) + string(workload.Canonical(args, d.big(t, args)))
}

// big sends one command and returns its raw reply, read element by
// element (do reparses as bytes arrive: too slow for long replies).
func (d *diffConn) big(t *testing.T, args []string) []byte {
	t.Helper()
	var w resp.Writer
	w.Array(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
	d.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := d.c.Write(w.B); err != nil {
		t.Fatal(err)
	}
	out, err := readRaw(d.r, nil)
	if err != nil {
		t.Fatalf("%.60q: %v", args, err)
	}
	return out
}

// readRaw appends one RESP2 reply from r to dst.
func readRaw(r *bufio.Reader, dst []byte) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return dst, err
	}
	dst = append(dst, line...)
	n, _ := strconv.Atoi(strings.TrimSpace(string(line[1:])))
	switch line[0] {
	case '$':
		if n < 0 {
			return dst, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return dst, err
		}
		return append(dst, b...), nil
	case '*':
		for i := 0; i < n; i++ {
			if dst, err = readRaw(r, dst); err != nil {
				return dst, err
			}
		}
	}
	return dst, nil
}

func bulk(t *testing.T, reply []byte) []byte {
	t.Helper()
	v, _, err := resp.ReadReply(reply)
	if err != nil || v.Type != '$' {
		t.Fatalf("not a bulk string: %q", reply)
	}
	return v.Str
}

// TestDumpRestoreAgainstRedis populates redis-server and radish-server
// with every type and encoding, then: DUMP gives Redis's bytes where the
// encoding is deterministic; Redis's payloads restore into Radish and
// Radish's into Redis with the same contents and the same encodings;
// RESTORE's TTLs, options and errors answer as Redis's.
func TestDumpRestoreAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	a, b := dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)
	cmds, keys, byteSame := dumpKeys()
	for _, c := range cmds {
		if got, want := a.do(t, c)[0], b.do(t, c)[0]; !bytes.Equal(got, want) {
			t.Fatalf("%.60q: radish %q, redis %q", c, got, want)
		}
	}
	for _, k := range keys {
		pa, pb := bulk(t, a.do(t, []string{"DUMP", k})[0]), bulk(t, b.do(t, []string{"DUMP", k})[0])
		if byteSame[k] && !bytes.Equal(pa, pb) {
			t.Errorf("DUMP %s differs:\nradish %q\nredis  %q", k, trunc(pa), trunc(pb))
		}
		orig := content(t, b, k)
		if got := content(t, a, k); got != orig {
			t.Fatalf("%s: radish holds %.200q, redis %.200q", k, got, orig)
		}
		// Each payload into each server, under the same new name.
		for i, p := range [][]byte{pa, pb} {
			nk := fmt.Sprintf("restored%d:%s", i, k)
			for _, d := range []*diffConn{a, b} {
				if r := d.do(t, []string{"RESTORE", nk, "0", string(p)})[0]; string(r) != "+OK\r\n" {
					t.Fatalf("RESTORE %s (payload %d) into %s: %q", k, i, d.c.RemoteAddr(), r)
				}
				if got := content(t, d, nk); got != orig {
					t.Errorf("RESTORE %s (payload %d) into %s: %.200q, want %.200q", k, i, d.c.RemoteAddr(), got, orig)
				}
			}
			enc := []string{"OBJECT", "ENCODING", nk}
			if got, want := a.do(t, enc)[0], b.do(t, enc)[0]; !bytes.Equal(got, want) {
				t.Errorf("%s restored from payload %d: encoding %q, redis %q", k, i, got, want)
			}
		}
	}

	// Options, TTLs and errors, reply for reply.
	payload := string(bulk(t, b.do(t, []string{"DUMP", "s:9"})[0]))
	bad := []byte(payload)
	bad[len(bad)-1] ^= 1
	newer := []byte(payload)
	newer[len(newer)-10] = 200 // an RDB version from the future
	cases := [][]string{
		{"RESTORE", "s:9", "0", payload},
		{"RESTORE", "t1", "-1", payload},
		{"RESTORE", "t1", "abc", payload},
		{"RESTORE", "t1", "0", string(bad)},
		{"RESTORE", "t1", "0", string(newer)},
		{"RESTORE", "t1", "0", "short"},
		{"RESTORE", "t1", "0", payload, "BOGUS"},
		{"RESTORE", "t1", "0", payload, "IDLETIME"},
		{"RESTORE", "t1", "0", payload, "IDLETIME", "-1"},
		{"RESTORE", "t1", "0", payload, "IDLETIME", "x"},
		{"RESTORE", "t1", "0", payload, "FREQ", "256"},
		{"RESTORE", "t1", "0", payload, "IDLETIME", "10", "FREQ", "5"},
		{"RESTORE", "t1", "0", payload, "IDLETIME", "100"},
		{"OBJECT", "IDLETIME", "t1"},
		{"RESTORE", "t1", "0", payload, "REPLACE", "FREQ", "5"},
		{"RESTORE", "t2", "100000", payload},
		{"PTTL", "t2"},
		{"RESTORE", "t3", "1", payload, "ABSTTL"},
		{"EXISTS", "t3"},
		{"RESTORE", "t2", "1", payload, "ABSTTL", "REPLACE"},
		{"EXISTS", "t2"},
		{"RESTORE", "t4", "99999999999999", payload, "absttl"},
		{"PTTL", "t4"},
		{"DUMP", "nosuchkey"},
		{"DUMP"},
		{"RESTORE", "t5", "0"},
	}
	for _, c := range cases {
		got, want := a.do(t, c)[0], b.do(t, c)[0]
		if c[0] == "PTTL" || c[0] == "OBJECT" {
			// Time passes between the two servers.
			g, _ := strconv.Atoi(strings.TrimSpace(string(got[1:])))
			w, _ := strconv.Atoi(strings.TrimSpace(string(want[1:])))
			slack := 5000 // PTTL: milliseconds
			if c[0] == "OBJECT" {
				slack = 2 // IDLETIME: seconds
			}
			if g <= 0 || w-g > slack || g-w > slack {
				t.Errorf("%q: radish %q, redis %q", c, got, want)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%.80q: radish %q, redis %q", c, got, want)
		}
	}
	// Payloads cut short (with valid checksums): what Redis answers when
	// it checks payloads deeply, as Radish always does (it reads a value
	// into the footer's bytes, so not always an error), and never a crash.
	if r := b.do(t, []string{"CONFIG", "SET", "sanitize-dump-payload", "yes"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("sanitize-dump-payload: %q", r)
	}
	for _, k := range keys {
		p := bulk(t, a.do(t, []string{"DUMP", k})[0])
		for _, cut := range []int{1, 2, len(p) / 2, len(p) - 11} {
			if cut < 1 || cut >= len(p)-10 {
				continue
			}
			body := append(slices.Clone(p[:cut]), p[len(p)-10:len(p)-8]...)
			c := []string{"RESTORE", "cut:" + k, "0", string(appendCRC(body)), "REPLACE"}
			if got, want := a.do(t, c)[0], b.do(t, c)[0]; !bytes.Equal(got, want) {
				t.Errorf("%s cut at %d: radish %q, redis %q", k, cut, got, want)
			}
		}
	}
	if r := a.do(t, []string{"PING"})[0]; string(r) != "+PONG\r\n" {
		t.Fatalf("after bad payloads: %q", r)
	}

	// A RESTORE that creates a list serves a client blocked on the key.
	got := make(chan []string, 1)
	blocker := s.client(2)
	go func() {
		v, _ := blocker.BLPop(ctx, 10*time.Second, "blocked").Result()
		got <- v
	}()
	time.Sleep(200 * time.Millisecond)
	list := string(bulk(t, a.do(t, []string{"DUMP", "l:small"})[0]))
	if r := a.do(t, []string{"RESTORE", "blocked", "0", list})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("RESTORE blocked: %q", r)
	}
	if v := <-got; len(v) != 2 || v[0] != "blocked" || v[1] != "a" {
		t.Errorf("BLPOP after RESTORE: %q", v)
	}
}

// appendCRC appends a DUMP payload's checksum to body.
func appendCRC(body []byte) []byte {
	return binary.LittleEndian.AppendUint64(body, rdb.CRC64(0, body))
}

func trunc(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

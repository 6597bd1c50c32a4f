package e2e

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/radish-kv/radish/net/resp"
)

// trackingScript is a sequence of client tracking steps: "n: commands"
// runs the commands (separated by ';') on connection n in one write ($IDk
// is connection k's client ID); the
// client IDs come first. Keys under one BCAST prefix
// share a hash tag, so that one shard owns them all and sends them in one
// invalidation as Redis does (keys on several shards arrive in one
// invalidation per shard).
var trackingScript = []string{
	"0: CLIENT ID", "1: CLIENT ID", "2: CLIENT ID", "3: CLIENT ID", "4: CLIENT ID", "5: CLIENT ID",
	"0: HELLO 3", "1: HELLO 3", "4: HELLO 3",
	"0: CLIENT TRACKINGINFO", "0: CLIENT GETREDIR", "0: CLIENT CACHING yes",
	"0: CLIENT TRACKING on",
	"0: GET k", "1: SET k 1", "0: GET k", "0: SET k 2", "0: GET k",
	"0: MGET k a b c d", "1: MSET k 3 a 1 b 2 c 3 d 4", "0: MGET k a b c d",
	"1: DEL a b", "1: INCR c", "0: GET k", "1: EXPIRE k 100", "1: PERSIST k",
	"0: HGET h f", "1: HSET h f v", "0: SMEMBERS s", "1: SADD s m", "0: STRLEN s",
	"1: SELECT 1", "0: GET k", "1: SET k other-db", "1: SELECT 0",
	"0: GET k", "1: FLUSHDB", "0: FLUSHALL", "1: SWAPDB 0 1",
	"0: CLIENT TRACKINGINFO", "0: CLIENT GETREDIR",
	"0: CLIENT TRACKING on bcast", "0: CLIENT TRACKING on optin optout",
	"0: CLIENT TRACKING on noloop", "0: GET k", "0: SET k 1", "0: GET k", "1: SET k 2",
	"0: CLIENT TRACKING off", "0: CLIENT TRACKING on optin", "0: GET k", "1: SET k 3",
	"0: CLIENT CACHING no", "0: CLIENT CACHING yes", "0: CLIENT TRACKINGINFO", "0: PING", "0: CLIENT TRACKINGINFO",
	"0: CLIENT CACHING yes", "0: GET k", "1: SET k 4",
	"0: CLIENT CACHING yes", "0: MULTI; PTTL k; GET k; EXEC", "1: SET k 5",
	"0: GET k", "1: SET k 6",
	"0: CLIENT TRACKING off", "0: CLIENT TRACKING on optout", "0: GET k", "1: SET k 7",
	"0: CLIENT CACHING no", "0: GET k", "1: SET k 8", "0: GET k", "1: SET k 9",
	"0: CLIENT TRACKING off",
	// REDIRECT: to a RESP2 connection subscribed to __redis__:invalidate,
	// to a RESP3 one, to one that leaves. (A redirect client that writes
	// the key itself gets the invalidation before its reply from Redis,
	// after it from radish when the tracking client's shard is another:
	// not scripted.)
	"2: SUBSCRIBE __redis__:invalidate",
	"3: CLIENT TRACKING on redirect $ID2", "3: CLIENT GETREDIR", "3: GET k", "1: SET k 1", "3: GET k", "1: FLUSHALL",
	"3: CLIENT TRACKING on redirect 999999", "3: CLIENT TRACKING on redirect $ID2 redirect $ID1",
	"3: CLIENT TRACKING on redirect x",
	"3: CLIENT TRACKING on redirect $ID1", "3: GET k", "5: SET k 2", "3: CLIENT TRACKINGINFO",
	"3: CLIENT TRACKING off", "5: CLIENT TRACKING on redirect $ID3", "5: GET k", "1: SET k 3",
	"0: CLIENT TRACKING on redirect $ID4", "0: GET k", "4: QUIT", "1: SET k 4", "0: CLIENT TRACKINGINFO",
	"0: CLIENT TRACKING off", "5: CLIENT TRACKING off",
	// BCAST.
	"1: CLIENT TRACKING on bcast prefix x prefix xy", "1: CLIENT TRACKING on prefix x",
	"1: CLIENT TRACKING on bcast prefix x{t} prefix y{t} noloop", "1: CLIENT TRACKINGINFO",
	"1: CLIENT TRACKING on bcast prefix x{t}",
	"1: MSET x{t} 1 y{t} 1 z{t} 1", "0: MSET x{t} 2 y{t} 2 z{t} 2", "0: MSET y{t} 3 x{t} 3 y{t}a 1",
	"1: SET x{t} 4", "0: SET x{t} 5", "0: FLUSHALL",
	"1: CLIENT TRACKING off", "1: CLIENT TRACKING on bcast", "1: CLIENT TRACKINGINFO", "0: SET q 1",
	"1: CLIENT TRACKING off",
	"0: CLIENT TRACKING on", "0: GET k", "0: RESET", "1: SET k 1", "0: CLIENT TRACKINGINFO",
}

// trackingAgainstRedis runs trackingScript on radish and on redis-server
// and requires every connection to receive the same replies and
// invalidations, client IDs aside.
func trackingAgainstRedis(t *testing.T, addr, ref string) {
	const conns = 6
	// Client IDs past any integer the script's replies hold, so that
	// renaming them renames nothing else.
	for range 40 {
		dialPS(t, addr, 2).c.Close()
		dialPS(t, ref, 2).c.Close()
	}
	var a, b []*psConn
	for range conns {
		a, b = append(a, dialPS(t, addr, 2)), append(b, dialPS(t, ref, 2))
	}
	ids := [2]map[string]string{{}, {}} // per server: client ID -> $IDn
	gone := map[int]bool{}
	for step, line := range trackingScript {
		i := int(line[0] - '0')
		var cmds [][]string
		for _, c := range strings.Split(line[3:], ";") {
			cmds = append(cmds, strings.Fields(c))
		}
		cmd := cmds[0]
		if cmd[0] == "QUIT" {
			for _, c := range []*psConn{a[i], b[i]} {
				c.c.Write([]byte("*1\r\n$4\r\nQUIT\r\n"))
				if f := c.frame(t); string(f) != "+OK\r\n" {
					t.Fatalf("QUIT: %q", f)
				}
			}
			gone[i] = true
			continue
		}
		run := func(side int, c []*psConn) string {
			var sent [][]string
			for _, cmd := range cmds {
				args := slices.Clone(cmd)
				for k, v := range args {
					for id, name := range ids[side] {
						if v == name {
							args[k] = id
						}
					}
				}
				sent = append(sent, args)
			}
			frames := c[i].do(t, sent...)
			if args := sent[0]; len(args) == 2 && args[0] == "CLIENT" && args[1] == "ID" {
				v, _, _ := resp.ReadReply(frames[0])
				ids[side][strconv.FormatInt(v.Int, 10)] = fmt.Sprintf("$ID%d", i)
			}
			return canonicalTracking(frames, ids[side])
		}
		want, got := run(1, b), run(0, a)
		if got != want {
			t.Fatalf("step %d, %s:\nradish: %s\nredis:  %s", step, line, got, want)
		}
		// Every other connection: what it received meanwhile. Redis has
		// written it already; radish may still be carrying it from
		// another shard, so wait for it a little.
		for j := range conns {
			if j == i || gone[j] {
				continue
			}
			want := canonicalTracking(b[j].do(t), ids[1])
			var frames [][]byte
			got := ""
			for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
				frames = append(frames, a[j].do(t)...)
				if got = canonicalTracking(frames, ids[0]); got == want || time.Now().After(deadline) {
					break
				}
			}
			if got != want {
				t.Fatalf("step %d, %s: connection %d received\nradish: %s\nredis:  %s", step, line, j, got, want)
			}
		}
	}
}

// canonicalTracking writes frames with client IDs replaced by their
// connection's name, and runs of invalidations (which several shards send
// in any order) sorted.
func canonicalTracking(frames [][]byte, ids map[string]string) string {
	out := make([][]byte, len(frames))
	for i, f := range frames {
		for id, name := range ids {
			f = bytes.ReplaceAll(f, []byte(":"+id+"\r\n"), []byte(":"+name+"\r\n"))
		}
		out[i] = f
	}
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && isInvalidation(out[j]) {
			j++
		}
		slices.SortFunc(out[i:j], bytes.Compare)
		i = max(j, i+1)
	}
	return fmt.Sprintf("%q", out)
}

// isInvalidation reports whether f is an invalidate push or a message on
// __redis__:invalidate.
func isInvalidation(f []byte) bool {
	return bytes.HasPrefix(f, []byte(">2\r\n$10\r\ninvalidate\r\n")) ||
		bytes.HasPrefix(f, []byte("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"))
}

// TestTrackingAcrossShards: a RESP3 client reads keys spread over four
// shards (most of them owned by a shard other than its connection's);
// another connection writes them; each key is invalidated once, the
// table forgets it, and INFO counts the tracking state.
func TestTrackingAcrossShards(t *testing.T) {
	s := start(t, "--shards", "4")
	r, w := dialPS(t, s.addr, 3), dialPS(t, s.addr, 2)
	r.do(t, []string{"CLIENT", "TRACKING", "ON"})
	var keys []string
	for i := range 32 {
		keys = append(keys, fmt.Sprintf("key:%d", i))
	}
	for _, k := range keys {
		r.do(t, []string{"GET", k})
	}
	r.do(t, append([]string{"MGET"}, keys...)) // read again, across shards: held once
	info := s.cli("INFO")
	for _, f := range []string{"tracking_clients:1", "tracking_total_keys:32", "tracking_total_items:32"} {
		if !strings.Contains(info, f+"\r\n") && !strings.Contains(info, f+"\n") {
			t.Errorf("INFO lacks %s:\n%s", f, info)
		}
	}
	for _, k := range keys {
		w.do(t, []string{"SET", k, "v"})
	}
	w.do(t, append([]string{"DEL"}, keys...)) // no reader left: no invalidation
	got := map[string]int{}
	for deadline := time.Now().Add(5 * time.Second); len(got) < len(keys) && time.Now().Before(deadline); {
		for _, f := range r.do(t) {
			v, _, _ := resp.ReadReply(f)
			if v.Type != '>' || len(v.Elems) != 2 || string(v.Elems[0].Str) != "invalidate" || len(v.Elems[1].Elems) != 1 {
				t.Fatalf("not an invalidation of one key: %q", f)
			}
			got[string(v.Elems[1].Elems[0].Str)]++
		}
	}
	for _, k := range keys {
		if got[k] != 1 {
			t.Errorf("%s invalidated %d times, want once", k, got[k])
		}
	}
	if n := len(r.do(t)); n != 0 {
		t.Errorf("%d more frames after the invalidations", n)
	}
	if info := s.cli("INFO", "stats"); !strings.Contains(info, "tracking_total_keys:0") {
		t.Errorf("INFO after the writes:\n%s", info)
	}
}

// TestTrackingTableMaxKeys: past tracking-table-max-keys a tracked key is
// forgotten and its reader told, as Redis does.
func TestTrackingTableMaxKeys(t *testing.T) {
	s := start(t, "--shards", "1", "--tracking-table-max-keys", "2")
	r := dialPS(t, s.addr, 3)
	r.do(t, []string{"CLIENT", "TRACKING", "ON"})
	frames := r.do(t, []string{"GET", "a"}, []string{"GET", "b"}, []string{"GET", "c"})
	// The invalidation leaves at the end of the loop turn (Redis: before
	// the next command's reply).
	frames = append(frames, r.do(t)...)
	var pushes int
	for _, f := range frames {
		if isInvalidation(f) {
			pushes++
		}
	}
	if len(frames) != 4 || pushes != 1 {
		t.Fatalf("three reads with room for two keys: %q, want three replies and one invalidation", frames)
	}
	if info := s.cli("INFO", "stats"); !strings.Contains(info, "tracking_total_keys:2") {
		t.Errorf("INFO:\n%s", info)
	}
}

// TestRueidis connects the rueidis client with its defaults (RESP3,
// client-side caching on, CLIENT TRACKING ON OPTIN): a DoCache of a key is
// served from its cache the second time, a write from another connection
// invalidates it, and the next DoCache returns the new value.
func TestRueidis(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.addr}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		w := s.client(2)
		defer w.Close()
		for i := range 8 { // keys on every shard
			key := fmt.Sprintf("cached:%d", i)
			if err := w.Set(ctx, key, "v1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			get := func() rueidis.RedisResult { return c.DoCache(ctx, c.B().Get().Key(key).Cache(), time.Minute) }
			if v, err := get().ToString(); err != nil || v != "v1" {
				t.Fatalf("DoCache GET %s = %q, %v", key, v, err)
			}
			if r := get(); !r.IsCacheHit() {
				t.Fatalf("second DoCache GET %s was not served from the cache", key)
			}
			if err := w.Set(ctx, key, "v2", 0).Err(); err != nil {
				t.Fatal(err)
			}
			var v string
			for deadline := time.Now().Add(5 * time.Second); v != "v2" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if v, err = get().ToString(); err != nil {
					t.Fatal(err)
				}
			}
			if v != "v2" {
				t.Fatalf("after SET %s v2, DoCache still returns %q: the invalidation never came", key, v)
			}
		}
	})
}

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// exchange writes req on a fresh connection and reads until want's length
// worth of bytes arrived (or the connection closed).
func exchange(t *testing.T, s *server, req, want string) {
	t.Helper()
	c := s.raw()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	n, err := io.ReadFull(c, got)
	if string(got[:n]) != want {
		t.Fatalf("request %q:\n got %q (%v)\nwant %q", req, got[:n], err, want)
	}
}

func TestRawProtocol(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		cases := []struct{ req, want string }{
			{"PING\r\n", "+PONG\r\n"},
			{"*1\r\n$4\r\nPING\r\n", "+PONG\r\n"},
			{"ping hello\r\n", "$5\r\nhello\r\n"},
			{"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$2\r\nxy\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n", "+OK\r\n$2\r\nxy\r\n"},
			{"GET\r\n", "-ERR wrong number of arguments for 'get' command\r\n"},
			{"FOO bar\r\n", "-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n"},
			{"GET nosuchkey\r\n", "$-1\r\n"},
			{"\r\n\r\nPING\r\n", "+PONG\r\n"},
			{"HELLO 3\r\nGET nosuchkey\r\n", "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n"},
			{"CONFIG GET nosuchparameter\r\n", "*0\r\n"},
		}
		for _, tc := range cases {
			exchange(t, s, tc.req, tc.want)
		}
	})
}

func TestStringsAcrossShards(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		for _, proto := range []int{2, 3} {
			c := s.client(proto)
			if err := c.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			var kv []any
			var keys []string
			for i := range 50 {
				k := fmt.Sprintf("key:%d", i)
				keys = append(keys, k)
				kv = append(kv, k, fmt.Sprintf("v%d", i))
			}
			if got := c.MSet(ctx, kv...).Val(); got != "OK" {
				t.Fatalf("MSET = %q", got)
			}
			vals := c.MGet(ctx, slices.Concat(keys, []string{"missing"})...).Val()
			for i := range 50 {
				if vals[i] != fmt.Sprintf("v%d", i) {
					t.Fatalf("MGET[%d] = %v", i, vals[i])
				}
			}
			if vals[50] != nil {
				t.Fatalf("MGET missing = %v", vals[50])
			}
			if n := c.Exists(ctx, slices.Concat(keys[:10], []string{"missing"})...).Val(); n != 10 {
				t.Fatalf("EXISTS = %d", n)
			}
			if n := c.DBSize(ctx).Val(); n != 50 {
				t.Fatalf("DBSIZE = %d", n)
			}
			got := c.Keys(ctx, "key:1*").Val()
			if len(got) != 11 {
				t.Fatalf("KEYS key:1* = %v", got)
			}
			if n := c.Del(ctx, slices.Concat(keys[:20], []string{"missing"})...).Val(); n != 20 {
				t.Fatalf("DEL = %d", n)
			}
			if n := c.DBSize(ctx).Val(); n != 30 {
				t.Fatalf("DBSIZE after DEL = %d", n)
			}
			if n := c.Incr(ctx, "counter").Val(); n != 1 {
				t.Fatalf("INCR = %d", n)
			}
			if n := c.IncrBy(ctx, "counter", 41).Val(); n != 42 {
				t.Fatalf("INCRBY = %d", n)
			}
			if err := c.Incr(ctx, "key:30").Err(); err == nil ||
				err.Error() != "ERR value is not an integer or out of range" {
				t.Fatalf("INCR on a string: %v", err)
			}
			if got := c.Rename(ctx, "key:30", "renamed:{x}").Val(); got != "OK" {
				t.Fatalf("RENAME = %q", got)
			}
			if got := c.Get(ctx, "renamed:{x}").Val(); got != "v30" {
				t.Fatalf("GET renamed = %q", got)
			}
			if c.Exists(ctx, "key:30").Val() != 0 {
				t.Fatal("RENAME left the source")
			}
			if err := c.Rename(ctx, "nosuch", "x").Err(); err == nil || err.Error() != "ERR no such key" {
				t.Fatalf("RENAME missing: %v", err)
			}
			if got := c.MSetNX(ctx, "fresh:1", "a", "fresh:2", "b", "key:31", "c").Val(); got {
				t.Fatal("MSETNX with an existing key succeeded")
			}
			if c.Exists(ctx, "fresh:1", "fresh:2").Val() != 0 {
				t.Fatal("failed MSETNX wrote keys")
			}
			if got := c.MSetNX(ctx, "fresh:1", "a", "fresh:2", "b", "fresh:3", "c").Val(); !got {
				t.Fatal("MSETNX on new keys failed")
			}
			if got := c.Copy(ctx, "fresh:1", "copied:{y}", 0, false).Val(); got != 1 {
				t.Fatalf("COPY = %d", got)
			}
			if got := c.Get(ctx, "copied:{y}").Val(); got != "a" {
				t.Fatalf("GET copy = %q", got)
			}
		}
	})
}

func TestPipelineSpansShards(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		c := s.client(2)
		p := c.Pipeline()
		const n = 300
		sets := make([]*redis.StatusCmd, n)
		incrs := make([]*redis.IntCmd, n)
		gets := make([]*redis.StringCmd, n)
		mgets := make([]*redis.SliceCmd, n)
		for i := range n {
			k := fmt.Sprintf("p:%d", i)
			sets[i] = p.Set(ctx, k, i, 0)
			incrs[i] = p.Incr(ctx, k)
			gets[i] = p.Get(ctx, k)
			mgets[i] = p.MGet(ctx, k, fmt.Sprintf("p:%d", (i+1)%n))
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if sets[i].Val() != "OK" || incrs[i].Val() != int64(i+1) || gets[i].Val() != fmt.Sprint(i+1) {
				t.Fatalf("command %d: %v %v %v", i, sets[i], incrs[i], gets[i])
			}
			m := mgets[i].Val()
			if m[0] != fmt.Sprint(i+1) {
				t.Fatalf("MGET %d = %v", i, m)
			}
			// The next key was set later in the pipeline (or earlier for the last).
			if i == n-1 && m[1] != "1" || i < n-1 && m[1] != nil {
				t.Fatalf("MGET %d second = %v", i, m[1])
			}
		}
	})
}

func TestRedisCli(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		cases := []struct {
			args []string
			want string
		}{
			{[]string{"SET", "greeting", "hello world"}, "OK\n"},
			{[]string{"GET", "greeting"}, "\"hello world\"\n"},
			{[]string{"INCR", "n"}, "(integer) 1\n"},
			{[]string{"GET", "missing"}, "(nil)\n"},
			{[]string{"MSET", "a", "1", "b", "2", "c", "3"}, "OK\n"},
			{[]string{"MGET", "a", "b", "missing", "c"}, "1) \"1\"\n2) \"2\"\n3) (nil)\n4) \"3\"\n"},
			{[]string{"DEL", "a", "b", "c", "missing"}, "(integer) 3\n"},
			{[]string{"GETDEL"}, "(error) ERR wrong number of arguments for 'getdel' command\n"},
			{[]string{"TYPE", "greeting"}, "string\n"},
			{[]string{"EXPIRE", "greeting", "100"}, "(integer) 1\n"},
			{[]string{"TTL", "greeting"}, "(integer) 100\n"},
		}
		for _, tc := range cases {
			if got := s.cli(append([]string{"--no-raw"}, tc.args...)...); got != tc.want {
				t.Errorf("redis-cli %v = %q, want %q", tc.args, got, tc.want)
			}
		}
		if got := s.cli("-3", "--no-raw", "HELLO", "3"); !strings.Contains(got, "3# \"proto\" => (integer) 3\n") {
			t.Errorf("HELLO 3 via redis-cli -3: %q", got)
		}
	})
}

// TestMSetAtomic: readers never see a mix of two MSETs whose keys span
// shards.
func TestMSetAtomic(t *testing.T) {
	for _, m := range modes {
		if m.shards == 1 {
			continue
		}
		t.Run(m.String(), func(t *testing.T) {
			s := start(t, m.args()...)
			keys := make([]string, 12)
			for i := range keys {
				keys[i] = fmt.Sprintf("atomic:%d", i)
			}
			w := s.client(2)
			set := func(v int) {
				kv := make([]any, 0, 2*len(keys))
				for _, k := range keys {
					kv = append(kv, k, v)
				}
				if err := w.MSet(ctx, kv...).Err(); err != nil {
					t.Error(err)
				}
			}
			set(0)
			var stop atomic.Bool
			var wg sync.WaitGroup
			var reads atomic.Int64
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := s.client(2)
					for !stop.Load() {
						vals, err := r.MGet(ctx, keys...).Result()
						if err != nil {
							t.Error(err)
							return
						}
						for _, v := range vals[1:] {
							if v != vals[0] {
								t.Errorf("torn read: %v", vals)
								return
							}
						}
						reads.Add(1)
					}
				}()
			}
			for v := 1; v <= 500; v++ {
				set(v)
			}
			stop.Store(true)
			wg.Wait()
			if reads.Load() == 0 {
				t.Fatal("no reads happened")
			}
		})
	}
}

// TestBadInput: garbage, huge lengths and half commands get Redis's
// errors and a closed connection; the server keeps serving others.
func TestBadInput(t *testing.T) {
	eachMode(t, func(t *testing.T, s *server) {
		good := s.client(2)
		cases := []struct{ req, want string }{
			{"*1\r\n$4294967296\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
			{"*99999999999\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
			{"*1\r\nfoo\r\n", "-ERR Protocol error: expected '$', got 'f'\r\n"},
			{"\"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
		}
		for _, tc := range cases {
			c := s.raw()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, tc.req)
			got, _ := io.ReadAll(c) // the server closes the connection
			if string(got) != tc.want {
				t.Errorf("%q: got %q want %q", tc.req, got, tc.want)
			}
		}
		// A never-ending inline line is cut off at 64 KB.
		c := s.raw()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		go func() {
			chunk := strings.Repeat("x", 4096)
			for range 64 {
				if _, err := io.WriteString(c, chunk); err != nil {
					return
				}
			}
		}()
		line, _ := bufio.NewReader(c).ReadString('\n')
		if line != "-ERR Protocol error: too big inline request\r\n" {
			t.Errorf("never-ending line: %q", line)
		}
		// Half a command, then a disconnect.
		for range 20 {
			h := s.raw()
			io.WriteString(h, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc")
			h.Close()
		}
		if err := good.Set(ctx, "still", "ok", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if got := good.Get(ctx, "still").Val(); got != "ok" {
			t.Fatalf("GET after bad clients = %q", got)
		}
	})
}

// TestManyConnections opens and drops 10,000 connections; the server
// keeps answering and its memory returns near where it was.
func TestManyConnections(t *testing.T) {
	for _, m := range []mode{{"uring", 2}, {"epoll", 2}} {
		t.Run(m.String(), func(t *testing.T) {
			s := start(t, m.args()...)
			good := s.client(2)
			good.Ping(ctx)
			before := s.rss()
			for round := range 10 {
				conns := make([]io.Closer, 0, 1000)
				for range 1000 {
					c := s.raw()
					io.WriteString(c, "PING\r\n")
					conns = append(conns, c)
				}
				for _, c := range conns {
					c.Close()
				}
				if err := good.Ping(ctx).Err(); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				n := good.ClientList(ctx).Val()
				if strings.Count(n, "\n") == 1 || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			after := s.rss()
			t.Logf("RSS before %d KB, after 10,000 connections %d KB", before/1024, after/1024)
			if os.Getenv("E2E_RACE") == "" && after > before+32<<20 { // the race detector's shadow memory grows
				t.Fatalf("RSS grew by %d KB", (after-before)/1024)
			}
		})
	}
}

package command

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// Scripts under testdata (string.txt, keyspace.txt) drive the handlers of
// this file's family and string.go's. The format, line by line:
//
//	# comment                a line starting with '#' outside a reply
//	reset                    a fresh engine.NewStore(16); DB 0, RESP2, default clock
//	now 1700000000000        Ctx.Now, unix ms (default kvScriptNow)
//	proto 3                  RESP version of the replies that follow
//	select 1                 the client's database
//	make l list              a key of another type (list, set, zset, hash),
//	                         imported into the engine (LPUSH etc. on the real server)
//	> SET k v                run a command; its reply follows as RESP lines
//	+OK
//	t> TTL k                 a reply the real server cannot match (clock, a known deviation)
//	:100
//	u> KEYS *                a command whose reply's order is unspecified (see below)
//
// Arguments split at spaces; a Go-quoted argument ("a b", "\x00", "")
// is unquoted. A reply is written as its RESP lines without CRLF; a bulk
// string with bytes other than printable ASCII is Go-quoted. The command
// goes through Resolve (arity, subcommands) then its row's Handler.
//
// go test ./command -run Script -rewrite writes the replies the handlers
// give back into the scripts (review the diff). With -redis=/tmp/rh.sock
// the scripts also run against a real redis-server listening on that unix
// socket (started with --enable-debug-command yes), and every reply but
// those of "t>" commands must match it byte for byte ("u>": the same lines
// in any order); "now" does not reach that server, so keep clock-dependent
// checks behind "t>", as well as deliberate deviations (made-up addresses
// in DEBUG OBJECT, the short DEBUG HELP).
var (
	rewrite   = flag.Bool("rewrite", false, "rewrite the replies in testdata scripts")
	realRedis = flag.String("redis", "", "unix socket of a redis-server to check the scripts against")
)

// kvScriptNow is the scripts' default clock: 2023-11-14, in the past of any
// real server the scripts are checked against.
const kvScriptNow = 1700000000000

// scriptEnv is the state a script runs against.
type scriptEnv struct {
	store *engine.Store
	w     resp.Writer
	ctx   Ctx
}

func newScriptEnv() *scriptEnv {
	e := &scriptEnv{store: engine.NewStore(16)}
	e.ctx = Ctx{Store: e.store, DB: e.store.DB(0), W: &e.w, Now: kvScriptNow}
	return e
}

// run executes one command and returns its raw reply.
func (e *scriptEnv) run(args [][]byte) []byte {
	e.w.B = e.w.B[:0]
	spec, errText := Resolve(args)
	switch {
	case errText != "":
		e.w.Error(errText)
	case spec.Handler == nil:
		e.w.Error("ERR no handler for " + spec.Name)
	default:
		spec.Handler(&e.ctx, args)
	}
	return e.w.B
}

// splitArgs splits a command line at spaces, unquoting Go-quoted words.
func splitArgs(line string) ([][]byte, error) {
	var args [][]byte
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, err
			}
			s, _ := strconv.Unquote(q)
			args = append(args, []byte(s))
			line = line[len(q):]
			continue
		}
		i := strings.IndexByte(line, ' ')
		if i < 0 {
			i = len(line)
		}
		args = append(args, []byte(line[:i]))
		line = line[i:]
	}
	return args, nil
}

// replyLines renders a raw reply as script lines.
func replyLines(b []byte) ([]string, error) {
	var out []string
	for len(b) > 0 {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			return nil, fmt.Errorf("reply without CRLF: %q", b)
		}
		line := string(b[:i])
		b = b[i+2:]
		out = append(out, line)
		if (line[0] == '$' || line[0] == '=') && line != "$-1" {
			n, err := strconv.Atoi(line[1:])
			if err != nil || n+2 > len(b) {
				return nil, fmt.Errorf("bad bulk %q", line)
			}
			body := b[:n]
			b = b[n+2:]
			if printable(body) {
				out = append(out, string(body))
			} else {
				out = append(out, strconv.Quote(string(body)))
			}
		}
	}
	return out, nil
}

func printable(b []byte) bool {
	if len(b) > 0 && b[0] == '"' {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// replyLen returns how many script lines the reply starting at lines[0]
// takes, following RESP's structure.
func replyLen(lines []string) int {
	if len(lines) == 0 || lines[0] == "" || strings.HasPrefix(lines[0], "> ") || strings.HasPrefix(lines[0], "t> ") || strings.HasPrefix(lines[0], "u> ") ||
		strings.HasPrefix(lines[0], "# ") || !strings.ContainsRune("+-:$*%~>_,#(=", rune(lines[0][0])) {
		return 0
	}
	l := lines[0]
	n, _ := strconv.Atoi(l[1:])
	switch l[0] {
	case '$', '=':
		if n < 0 {
			return 1
		}
		return 2
	case '*', '~', '>', '%':
		if n < 0 {
			return 1
		}
		if l[0] == '%' {
			n *= 2
		}
		used := 1
		for k := 0; k < n && used < len(lines); k++ {
			m := replyLen(lines[used:])
			if m == 0 {
				return used
			}
			used += m
		}
		return used
	}
	return 1
}

// realConn talks to a real redis-server for -redis.
type realConn struct {
	c net.Conn
	r *bufio.Reader
}

func (rc *realConn) do(t *testing.T, args [][]byte) []byte {
	t.Helper()
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.c.Write(resp.AppendCommand(nil, args...)); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for {
		if v, n, err := resp.ReadReply(buf); err != nil {
			t.Fatal(err)
		} else if n > 0 {
			_ = v
			return buf[:n]
		}
		chunk := make([]byte, 4096)
		m, err := rc.r.Read(chunk)
		if err != nil {
			t.Fatal(err)
		}
		buf = append(buf, chunk[:m]...)
	}
}

func words(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, w := range s {
		out[i] = []byte(w)
	}
	return out
}

// runScript runs testdata/<name> as described above.
func runScript(t *testing.T, name string) {
	path := "testdata/" + name
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var real *realConn
	if *realRedis != "" {
		c, err := net.Dial("unix", *realRedis)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		real = &realConn{c: c, r: bufio.NewReader(c)}
	}
	realReset := func() {
		if real != nil {
			real.do(t, words("HELLO", "2"))
			real.do(t, words("FLUSHALL"))
			real.do(t, words("SELECT", "0"))
			real.do(t, words("CONFIG", "SET", "maxmemory-policy", "noeviction"))
		}
	}
	realReset()
	env := newScriptEnv()
	defer func() { env.store.Close() }()
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out = append(out, line)
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0 || strings.HasPrefix(line, "#"):
		case fields[0] == "reset":
			env.store.Close()
			env = newScriptEnv()
			realReset()
		case fields[0] == "now" && len(fields) == 2:
			env.ctx.Now, err = strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, i+1, err)
			}
		case fields[0] == "proto" && len(fields) == 2:
			env.w.Proto, _ = strconv.Atoi(fields[1])
			if real != nil {
				real.do(t, words("HELLO", fields[1]))
			}
		case fields[0] == "select" && len(fields) == 2:
			n, _ := strconv.Atoi(fields[1])
			env.ctx.DBIndex, env.ctx.DB = n, env.store.DB(n)
			if real != nil {
				real.do(t, words("SELECT", fields[1]))
			}
		case fields[0] == "make" && len(fields) == 3:
			typ, ok := kvTypeByName([]byte(fields[2]))
			if !ok || typ == engine.TypeString {
				t.Fatalf("%s:%d: bad type %q", path, i+1, fields[2])
			}
			mk := words(map[string][]string{
				"list": {"LPUSH", fields[1], "x"},
				"set":  {"SADD", fields[1], "x"},
				"zset": {"ZADD", fields[1], "1", "x"},
				"hash": {"HSET", fields[1], "f", "v"},
			}[fields[2]]...)
			if spec := Lookup(mk[0]); spec != nil && spec.Handler != nil {
				env.run(mk) // the family is implemented: a real value
			} else {
				env.ctx.DB.Import([]byte(fields[1]), engine.Record{Type: typ, Data: []byte("x")})
			}
			if real != nil {
				real.do(t, mk)
			}
		case fields[0] == ">" || fields[0] == "t>" || fields[0] == "u>":
			args, err := splitArgs(line[len(fields[0]):])
			if err != nil || len(args) == 0 {
				t.Fatalf("%s:%d: bad command: %v", path, i+1, err)
			}
			got, err := replyLines(env.run(args))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, i+1, err)
			}
			n := replyLen(lines[i+1:])
			want := lines[i+1 : i+1+n]
			i += n
			if *rewrite {
				out = append(out, got...)
			} else {
				out = append(out, want...)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s:%d: %s\n got: %q\nwant: %q", path, i+1-n, line, got, want)
				}
			}
			if real != nil {
				rl, err := replyLines(real.do(t, args))
				if err != nil {
					t.Fatal(err)
				}
				if fields[0] == "u>" {
					rl, got = slices.Sorted(slices.Values(rl)), slices.Sorted(slices.Values(got))
				}
				if fields[0] != "t>" && strings.Join(rl, "\n") != strings.Join(got, "\n") {
					t.Errorf("%s:%d: %s\n  radish: %q\n   redis: %q", path, i+1-n, line, got, rl)
				}
			}
		default:
			t.Fatalf("%s:%d: unknown directive %q", path, i+1, line)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestKeyspaceScript(t *testing.T) { runScript(t, "keyspace.txt") }

// policyServer is a Server whose maxmemory-policy is fixed; the methods it
// does not override panic (nil embedded interface).
type policyServer struct {
	Server
	policy string
}

func (p policyServer) ConfigGet(patterns []string) [][2]string {
	return [][2]string{{"maxmemory-policy", p.policy}}
}

// TestObjectPolicy checks OBJECT IDLETIME and FREQ under LRU and LFU
// policies (the scripts run without a Server: noeviction).
func TestObjectPolicy(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	env.run(words("SET", "k", "v"))
	for _, tc := range []struct{ policy, cmd, want string }{
		{"allkeys-lru", "IDLETIME", ":0\r\n"},
		{"allkeys-lru", "FREQ", "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n"},
		{"allkeys-lfu", "FREQ", ":5\r\n"},
		{"volatile-lfu", "IDLETIME", "-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n"},
		{"volatile-lfu", "FREQ", ":5\r\n"},
	} {
		env.ctx.Server = policyServer{policy: tc.policy}
		p, _ := engine.ParsePolicy(tc.policy)
		env.store.SetMaxMemory(0, p, 5) // the server keeps the engine's policy in step
		env.run(words("DEL", "k"))      // a fresh key: an overwrite keeps the old clock
		env.run(words("SET", "k", "v"))
		if got := string(env.run(words("OBJECT", tc.cmd, "k"))); got != tc.want {
			t.Errorf("%s: OBJECT %s = %q, want %q", tc.policy, tc.cmd, got, tc.want)
		}
		if got := string(env.run(words("OBJECT", tc.cmd, "nokey"))); got != "$-1\r\n" {
			t.Errorf("%s: OBJECT %s nokey = %q", tc.policy, tc.cmd, got)
		}
	}
}

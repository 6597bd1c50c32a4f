package command

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// The golden files under testdata/command_info (and command_docs) hold the
// raw replies of redis-server 7.0.15 to COMMAND INFO <name> (COMMAND DOCS
// <name>), RESP2 in <name>.resp and RESP3 in <name>.resp3, for every
// command that server knows. Redis lists subcommands in hash order; the
// recorder sorts them by name, as we print them. Regenerate with
//
//	go test ./command -run TestGolden -record
//
// which starts redis-server (from $PATH, or -redis-server) on a temporary
// unix socket.
var (
	record      = flag.Bool("record", false, "record golden COMMAND INFO/DOCS replies from redis-server")
	redisServer = flag.String("redis-server", "redis-server", "redis-server binary used by -record")
)

const (
	infoDir = "testdata/command_info"
	docsDir = "testdata/command_docs"
)

// TestGoldenCommandInfo compares every registered row's COMMAND INFO
// reply, byte for byte in RESP2 and RESP3, with redis-server's.
func TestGoldenCommandInfo(t *testing.T) {
	if *record {
		recordGolden(t)
	}
	for _, s := range All() {
		for _, proto := range []int{2, 3} {
			if v, ok := newerCommands[s.Name]; ok {
				t.Logf("%s: a command of Redis %s, which 7.0.15 lacks: not compared", s.Name, v)
				break
			}
			want, err := os.ReadFile(goldenPath(infoDir, s.Name, proto))
			if err != nil {
				t.Errorf("%s: no golden reply (a command Redis 7.0 lacks? run with -record): %v", s.Name, err)
				break
			}
			if a, ok := newerArity[s.Name]; ok {
				want = withArity(t, want, a, proto)
			}
			w := resp.Writer{Proto: proto}
			w.Array(1)
			WriteInfo(&w, s)
			got, want := commonSubs(t, s.Name, w.B, want, proto)
			if !bytes.Equal(got, want) {
				t.Errorf("COMMAND INFO %s (RESP%d) differs from redis-server:%s\n got %s\nwant %s\n%s",
					s.Name, proto, subDiffs(got, want, proto), quoteRESP(got), quoteRESP(want), firstDiff(got, want))
			}
		}
	}
}

// newerCommands are the rows of commands newer than Redis 7.0, with the
// version that has them: no golden reply exists for them.
var newerCommands = map[string]string{"waitaof": "7.2"}

// newerArity holds the rows whose arity a Redis newer than 7.0 changed
// with an option they take here: their 7.0 reply is compared with it.
var newerArity = map[string]int{
	"zrank":    -3, // WITHSCORE, Redis 7.2
	"zrevrank": -3,
}

// withArity re-encodes a recorded COMMAND INFO reply with arity a.
func withArity(t *testing.T, raw []byte, a, proto int) []byte {
	v, _, err := resp.ReadReply(raw)
	if err != nil || len(v.Elems) != 1 || len(v.Elems[0].Elems) < 2 {
		t.Fatalf("a recorded COMMAND INFO reply that is not one: %q", raw)
	}
	v.Elems[0].Elems[1].Int = int64(a)
	w := resp.Writer{Proto: proto}
	resp.AppendValue(&w, v)
	return w.B
}

// TestGoldenCommandDocs compares COMMAND DOCS for rows that document
// their arguments (see documented); the others are skipped, as filling
// Args for every row is work still to do.
func TestGoldenCommandDocs(t *testing.T) {
	for _, s := range All() {
		if _, newer := newerCommands[s.Name]; !documented(s) || newer {
			continue
		}
		for _, proto := range []int{2, 3} {
			want, err := os.ReadFile(goldenPath(docsDir, s.Name, proto))
			if err != nil {
				t.Errorf("%s: no golden docs: %v", s.Name, err)
				break
			}
			w := resp.Writer{Proto: proto}
			w.Map(1)
			w.BulkString(s.Name)
			WriteDocs(&w, s)
			if !bytes.Equal(w.B, want) {
				t.Errorf("COMMAND DOCS %s (RESP%d) differs from redis-server:\n got %s\nwant %s\n%s",
					s.Name, proto, quoteRESP(w.B), quoteRESP(want), firstDiff(w.B, want))
			}
		}
	}
}

// commonSubs re-encodes two recorded or printed COMMAND INFO replies of a
// container keeping only the subcommands both have, so the comparison
// covers what both print; the names only one side has are logged
// (subcommands not implemented yet, or newer than Redis 7.0).
func commonSubs(t *testing.T, name string, got, want []byte, proto int) ([]byte, []byte) {
	g, _, err1 := resp.ReadReply(got)
	w, _, err2 := resp.ReadReply(want)
	if err1 != nil || err2 != nil || len(g.Elems) != 1 || len(w.Elems) != 1 ||
		len(g.Elems[0].Elems) != 10 || len(w.Elems[0].Elems) != 10 {
		return got, want
	}
	gs, ws := &g.Elems[0].Elems[9], &w.Elems[0].Elems[9]
	if len(gs.Elems) == 0 || len(ws.Elems) == 0 {
		return got, want
	}
	names := func(v *resp.Value) map[string]bool {
		m := map[string]bool{}
		for _, e := range v.Elems {
			m[string(e.Elems[0].Str)] = true
		}
		return m
	}
	gn, wn := names(gs), names(ws)
	keep := func(v *resp.Value, other map[string]bool, what string) {
		var kept []resp.Value
		var dropped []string
		for _, e := range v.Elems {
			if other[string(e.Elems[0].Str)] {
				kept = append(kept, e)
			} else {
				dropped = append(dropped, string(e.Elems[0].Str))
			}
		}
		if len(dropped) > 0 && proto == 2 {
			t.Logf("%s: %s: %v", name, what, dropped)
		}
		v.Elems = kept
	}
	keep(gs, wn, "subcommands Redis 7.0 lacks")
	keep(ws, gn, "subcommands not in the table")
	enc := func(v resp.Value) []byte {
		w := resp.Writer{Proto: proto}
		resp.AppendValue(&w, v)
		return w.B
	}
	return enc(g), enc(w)
}

// subDiffs names the subcommands whose entries differ (both replies hold
// the same subcommands, in the same order, after commonSubs).
func subDiffs(got, want []byte, proto int) string {
	g, _, err1 := resp.ReadReply(got)
	w, _, err2 := resp.ReadReply(want)
	if err1 != nil || err2 != nil || len(g.Elems) != 1 || len(w.Elems) != 1 ||
		len(g.Elems[0].Elems) != 10 || len(w.Elems[0].Elems) != 10 {
		return ""
	}
	gs, ws := g.Elems[0].Elems[9].Elems, w.Elems[0].Elems[9].Elems
	if len(gs) != len(ws) {
		return ""
	}
	var out []string
	for i := range gs {
		a, b := resp.Writer{Proto: proto}, resp.Writer{Proto: proto}
		resp.AppendValue(&a, gs[i])
		resp.AppendValue(&b, ws[i])
		if !bytes.Equal(a.B, b.B) {
			out = append(out, fmt.Sprintf("\n  %s: got %q\n  %*s want %q", gs[i].Elems[0].Str, a.B, len(gs[i].Elems[0].Str), "", b.B))
		}
	}
	return strings.Join(out, "")
}

// documented reports whether a row carries full documentation: Args when
// it takes arguments, and the same for each subcommand.
func documented(s *Spec) bool {
	if len(s.Sub) > 0 {
		for _, sub := range s.Sub {
			if !documented(sub) {
				return false
			}
		}
		return true
	}
	takesNone := s.Arity == 1 || (s.parent != nil && s.Arity == 2)
	return len(s.Args) > 0 || (takesNone && s.Summary != "")
}

func goldenPath(dir, name string, proto int) string {
	ext := ".resp"
	if proto == 3 {
		ext = ".resp3"
	}
	return filepath.Join(dir, name+ext)
}

func quoteRESP(b []byte) string {
	if len(b) > 600 {
		return fmt.Sprintf("%q...(%d bytes)", b[:600], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-80, 0)
	return fmt.Sprintf("first difference at byte %d: got ...%q  want ...%q", i,
		a[lo:min(i+40, len(a))], b[lo:min(i+40, len(b))])
}

// redisConn is a minimal RESP client for recording.
type redisConn struct {
	c   net.Conn
	buf []byte
}

func (r *redisConn) do(t *testing.T, args ...string) (resp.Value, []byte) {
	t.Helper()
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	if _, err := r.c.Write(resp.AppendCommand(nil, bs...)); err != nil {
		t.Fatal(err)
	}
	r.buf = r.buf[:0]
	tmp := make([]byte, 64<<10)
	for {
		v, n, err := resp.ReadReply(r.buf)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			raw := append([]byte(nil), r.buf[:n]...)
			v, _, _ = resp.ReadReply(raw)
			return v, raw
		}
		r.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		m, err := r.c.Read(tmp)
		if err != nil {
			t.Fatal(err)
		}
		r.buf = append(r.buf, tmp[:m]...)
	}
}

func recordGolden(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(*redisServer, "--port", "0", "--unixsocket", sock, "--save", "",
		"--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	dial := func() *redisConn {
		for i := 0; i < 100; i++ {
			c, err := net.Dial("unix", sock)
			if err == nil {
				return &redisConn{c: c}
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("redis-server did not come up")
		return nil
	}
	c2, c3 := dial(), dial()
	defer c2.c.Close()
	defer c3.c.Close()
	c3.do(t, "HELLO", "3")
	v, _ := c2.do(t, "COMMAND", "LIST")
	for _, d := range []string{infoDir, docsDir} {
		os.RemoveAll(d)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, e := range v.Elems {
		name := string(e.Str)
		if strings.Contains(name, "|") {
			continue // recorded inside its container
		}
		for proto, c := range map[int]*redisConn{2: c2, 3: c3} {
			info, _ := c.do(t, "COMMAND", "INFO", name)
			sortInfoSubs(&info.Elems[0])
			writeGolden(t, goldenPath(infoDir, name, proto), proto, info)
			docs, _ := c.do(t, "COMMAND", "DOCS", name)
			sortDocsSubs(&docs.Elems[1])
			writeGolden(t, goldenPath(docsDir, name, proto), proto, docs)
		}
		n++
	}
	t.Logf("recorded %d commands", n)
}

func writeGolden(t *testing.T, path string, proto int, v resp.Value) {
	w := resp.Writer{Proto: proto}
	resp.AppendValue(&w, v)
	if err := os.WriteFile(path, w.B, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sortInfoSubs sorts the subcommand entries (element 9) by name.
func sortInfoSubs(info *resp.Value) {
	if len(info.Elems) < 10 {
		return
	}
	subs := info.Elems[9].Elems
	sort.Slice(subs, func(i, j int) bool { return string(subs[i].Elems[0].Str) < string(subs[j].Elems[0].Str) })
	for i := range subs {
		sortInfoSubs(&subs[i])
	}
}

// sortDocsSubs sorts the "subcommands" map of a docs map by name.
func sortDocsSubs(docs *resp.Value) {
	for i := 0; i+1 < len(docs.Elems); i += 2 {
		if string(docs.Elems[i].Str) != "subcommands" {
			continue
		}
		m := docs.Elems[i+1].Elems
		type pair struct{ k, v resp.Value }
		ps := make([]pair, len(m)/2)
		for j := range ps {
			ps[j] = pair{m[2*j], m[2*j+1]}
		}
		sort.Slice(ps, func(a, b int) bool { return string(ps[a].k.Str) < string(ps[b].k.Str) })
		for j := range ps {
			m[2*j], m[2*j+1] = ps[j].k, ps[j].v
			sortDocsSubs(&m[2*j+1])
		}
	}
}

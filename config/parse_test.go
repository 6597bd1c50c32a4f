package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil = unbalanced
	}{
		{"", []string{}},
		{"  port   6379 ", []string{"port", "6379"}},
		{`requirepass "a b"`, []string{"requirepass", "a b"}},
		{`x "a\nb\tc\x41\x4a\"\\\q"`, []string{"x", "a\nb\tcAJ\"\\q"}},
		{`x "\x4"`, []string{"x", "x4"}},
		{`x 'it\'s' 'a\nb'`, []string{"x", "it's", `a\nb`}},
		{`x a"b c"`, []string{"x", "ab c"}},
		{`x ""`, []string{"x", ""}},
		{`x "abc`, nil},
		{`x 'abc`, nil},
		{`x "abc"d`, nil},
		{`x 'abc'd`, nil},
		// The line ends at a NUL byte, as a C string does; an escaped one is
		// a byte of its word.
		{"x\x00y z", []string{"x"}},
		{"\x00", []string{}},
		{`x "a\x00b" c`, []string{"x", "a\x00b", "c"}},
		{"x \"a\x00b\"", nil},
	} {
		got, ok := SplitArgs(tc.in)
		if tc.want == nil {
			if ok {
				t.Errorf("SplitArgs(%q) = %q, want unbalanced", tc.in, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q %v, want %q", tc.in, got, ok, tc.want)
		}
	}
	for _, s := range []string{"", "a b", "q\"\\\n\r\t\a\b\x00\xff'", "--port"} {
		got, ok := SplitArgs(Repr(s))
		if !ok || len(got) != 1 || got[0] != s {
			t.Errorf("SplitArgs(Repr(%q)) = %q", s, got)
		}
	}
}

func TestMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"": 0, "0": 0, "5b": 5, "5B": 5, "kb": 0, "007k": 7000, "1k": 1000, "1K": 1000, "1kb": 1024, "1KB": 1024,
		"1m": 1000000, "1mb": 1 << 20, "1g": 1000000000, "1gb": 1 << 30, "1gB": 1 << 30, "512mb": 512 << 20,
		"1.5mb": -1, "+1k": -1, "-1": -1, "5 kb": -1, "1tb": -1, "abc": -1, "99999999999999999999": -1, "17179869184gb": -1,
	} {
		v, ok := ParseMemory(in)
		if want < 0 {
			if ok {
				t.Errorf("ParseMemory(%q) = %d, want error", in, v)
			}
		} else if !ok || int64(v) != want {
			t.Errorf("ParseMemory(%q) = %d %v, want %d", in, v, ok, want)
		}
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]bool{
		"0": true, "5": true, "-5": true, "9223372036854775807": true, "-9223372036854775808": true,
		"": false, "-0": false, "05": false, "+5": false, " 5": false, "5 ": false, "1e3": false, "0x10": false, "9223372036854775808": false,
	} {
		if _, ok := ParseInt(in); ok != want {
			t.Errorf("ParseInt(%q) ok = %v, want %v", in, ok, want)
		}
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func banner(line int, text, msg string) string {
	return "*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line " +
		strconv.Itoa(line) + "\n>>> '" + text + "'\n" + msg
}

// TestFileErrors checks texts recorded from redis-server 7.0.15.
func TestFileErrors(t *testing.T) {
	for _, tc := range []struct{ text, err string }{
		{"port 7000 7001\n", banner(1, "port 7000 7001", "wrong number of arguments")},
		{"foo bar\n", banner(1, "foo bar", "Bad directive or wrong number of arguments")},
		{"# c\n\nport \"abc\n", banner(3, `port "abc`, "Unbalanced quotes in configuration line")},
		{"port abc\n", banner(1, "port abc", "argument couldn't be parsed into an integer")},
		{"maxmemory 1xb\n", banner(1, "maxmemory 1xb", "argument must be a memory value")},
		{"appendonly maybe\n", banner(1, "appendonly maybe", "argument must be 'yes' or 'no'")},
		{"daemonize yes x\n", banner(1, "daemonize yes x", "wrong number of arguments")},
		{"requirepass 'a\\'b' x\n", banner(1, `requirepass 'a\'b' x`, "wrong number of arguments")},
		{"port \"7000\"x\n", banner(1, `port "7000"x`, "Unbalanced quotes in configuration line")},
		{"maxmemory-policy foo\n", banner(1, "maxmemory-policy foo", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction")},
		{"save \"3600 1 300\"\n", banner(1, `save "3600 1 300"`, "Invalid save parameters")},
		{"save 3600\n", banner(1, "save 3600", "Invalid save parameters")},
		{"loglevel foo\n", banner(1, "loglevel foo", "argument(s) must be one of the following: debug, verbose, notice, warning")},
		{"port 7000\nport\n", banner(2, "port", "wrong number of arguments")},
		{"  port   \r\n", banner(1, "port", "wrong number of arguments")},
		{"maxclients 0\n", banner(1, "maxclients 0", "argument must be between 1 and 4294967295 inclusive")},
		{"port 7000 # comment\n", banner(1, "port 7000 # comment", "wrong number of arguments")},
		{"include a b\n", banner(1, "include a b", "Bad directive or wrong number of arguments")},
		{"proto-max-bulk-len 100\n", banner(1, "proto-max-bulk-len 100", "argument must be between 1048576 and 9223372036854775807 inclusive")},
		{"bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", banner(1, "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "Too many bind addresses specified.")},
	} {
		dir := t.TempDir()
		f := writeFile(t, dir, "c.conf", tc.text)
		_, err := load([]string{f}, nil)
		var fe *FileError
		if !errors.As(err, &fe) || err.Error() != tc.err {
			t.Errorf("%q:\n got %v\nwant %s", tc.text, err, tc.err)
		}
	}
}

func TestFileValues(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "c.conf", `
# a comment
   # indented comment
PORT 7000
bind 10.0.0.1 "-::1"
requirepass "p\x41ss word\n"
maxmemory 100mb
hash-max-ziplist-entries 64
save ""
appendonly NO
maxmemory-policy ALLKEYS-LRU
hz 1000
`)
	c, err := load([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	if s.Port != 7000 || !reflect.DeepEqual(s.Bind, []string{"10.0.0.1", "-::1"}) || s.RequirePass != "pAss word\n" ||
		s.MaxMemory != 100<<20 || s.HashMaxListpackEntries != 64 || s.AppendOnly || s.MaxMemoryPolicy != "allkeys-lru" || s.Hz != 500 {
		t.Errorf("snapshot %+v", s)
	}
	if got := s.BindAddrs(); !reflect.DeepEqual(got, []BindAddr{{"10.0.0.1", false}, {"::1", true}}) {
		t.Errorf("BindAddrs = %v", got)
	}
	if c.File() != f {
		t.Errorf("File = %q", c.File())
	}
}

func TestDefaults(t *testing.T) {
	c := New()
	s := c.Snapshot()
	if s.Port != 6379 || strings.Join(s.Bind, " ") != "127.0.0.1 -::1" || s.Shards < 1 || s.IO != "auto" ||
		s.MaxClients != 10000 || s.Databases != 16 || !filepath.IsAbs(s.Dir) || s.LogLevel != "notice" ||
		s.TCPKeepalive != 300 || s.ProtoMaxBulkLen != 512<<20 || s.ClientQueryBufferLimit != 1<<30 || s.Hz != 10 ||
		s.MaxMemoryPolicy != "noeviction" || s.MaxMemorySamples != 5 || fmt.Sprint(s.Save) != "[{3600 1} {300 100} {60 10000}]" || s.ListMaxListpackSize != -2 ||
		s.ActiveExpireEffort != 1 || s.MetricsPort != 0 {
		t.Errorf("defaults %+v", s)
	}
}

func TestInclude(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	writeFile(t, sub, "inner.conf", "hz 20\nmaxmemory 1kb\n")
	writeFile(t, dir, "mid.conf", "include "+filepath.Join(sub, "inner.conf")+"\nhz 30\n")
	writeFile(t, dir, "g1.conf", "timeout 1\n")
	writeFile(t, dir, "g2.conf", "timeout 2\n")
	main := writeFile(t, dir, "main.conf", "dir "+dir+"\ninclude mid.conf\ninclude g*.conf\n")
	c, err := load([]string{main, "--hz", "40"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	if s.Hz != 40 || s.MaxMemory != 1024 || s.Timeout != 2 || s.Dir != dir {
		t.Errorf("got hz=%d maxmemory=%d timeout=%d dir=%s", s.Hz, s.MaxMemory, s.Timeout, s.Dir)
	}

	// Errors in an included file name its line there.
	writeFile(t, dir, "bad.conf", "\n\nhz x\n")
	main = writeFile(t, dir, "main2.conf", "dir "+dir+"\ninclude bad.conf\n")
	_, err = load([]string{main}, nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 3 || fe.File != filepath.Join(dir, "bad.conf") ||
		err.Error() != banner(3, "hz x", "argument couldn't be parsed into an integer") {
		t.Errorf("bad include: %v", err)
	}

	// Cycles: a includes b includes a; a file including itself.
	writeFile(t, dir, "a.conf", "dir "+dir+"\ninclude b.conf\n")
	writeFile(t, dir, "b.conf", "hz 5\ninclude a.conf\n")
	_, err = load([]string{filepath.Join(dir, "a.conf")}, nil)
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(fe.Msg, "include cycle") {
		t.Errorf("cycle: %v", err)
	}
	writeFile(t, dir, "self.conf", "include "+filepath.Join(dir, "self.conf")+"\n")
	if _, err = load([]string{filepath.Join(dir, "self.conf")}, nil); !errors.As(err, &fe) {
		t.Errorf("self include: %v", err)
	}

	_, err = load([]string{"--include", "/nonexistent/x.conf"}, nil)
	if err == nil || err.Error() != "Fatal error, can't open config file '/nonexistent/x.conf': No such file or directory" {
		t.Errorf("missing include: %v", err)
	}
	_, err = load([]string{"/nonexistent/main.conf"}, nil)
	if err == nil || err.Error() != "Fatal error, can't open config file '/nonexistent/main.conf': No such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

func TestArgv(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "ok.conf", "port 0\nhz 20\nbind 1.2.3.4\n\n")
	for _, tc := range []struct {
		args []string
		err  string
		get  map[string]string
	}{
		{args: []string{"--port", "abc"}, err: banner(2, `port "abc"`, "argument couldn't be parsed into an integer")},
		{args: []string{f, "--port", "abc"}, err: banner(6, `port "abc"`, "argument couldn't be parsed into an integer")},
		{args: []string{"--port"}, err: banner(2, "port", "wrong number of arguments")},
		{args: []string{"--foo", "1"}, err: banner(2, `foo "1"`, "Bad directive or wrong number of arguments")},
		{args: []string{"--bind", "127.0.0.1", "::1", "--port", "x"}, err: banner(3, `port "x"`, "argument couldn't be parsed into an integer")},
		{args: []string{"--save", "--port", "x"}, err: banner(3, `port "x"`, "argument couldn't be parsed into an integer")},
		{args: []string{"--port 1", "--hz", "x"}, err: banner(3, `hz "x"`, "argument couldn't be parsed into an integer")},
		{args: []string{"-x"}, err: banner(2, `"-x"`, "Bad directive or wrong number of arguments")},
		{args: []string{"--daemonize", "yes"}, err: banner(2, `daemonize "yes"`, "daemonize yes is not supported: run radish-server in the foreground under a supervisor (systemd, docker)")},
		{args: []string{f, "--port", "7000", "--bind", "127.0.0.1", "::1"}, get: map[string]string{"port": "7000", "bind": "127.0.0.1 ::1", "hz": "20"}},
		{args: []string{"--requirepass", "a \"b'\n", "--save", "60 1", "--save", "--maxmemory", "2gb"}, get: map[string]string{"requirepass": "a \"b'\n", "save": "", "maxmemory": "2147483648"}},
		{args: []string{"--save", "60 1", "--save", "30 2"}, get: map[string]string{"save": "60 1 30 2"}},
		{args: []string{"--save"}, get: map[string]string{"save": ""}},
		{args: []string{"--port", "--5"}, err: banner(2, `port "--5"`, "argument couldn't be parsed into an integer")},
		{args: []string{"-"}, get: map[string]string{"hz": "33"}},
	} {
		c, err := load(tc.args, strings.NewReader("hz 33\n"))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q:\n got %v\nwant %s", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		for k, v := range tc.get {
			if got := c.Get([]string{k}); len(got) != 1 || got[0][1] != v {
				t.Errorf("%q: %s = %q, want %q", tc.args, k, got, v)
			}
		}
	}
	for args, want := range map[string]error{"-h": ErrHelp, "--help": ErrHelp, "-v": ErrVersion, "--version": ErrVersion, "--port 1 --help": ErrHelp} {
		if _, err := load(strings.Fields(args), nil); err != want {
			t.Errorf("%s: %v", args, err)
		}
	}
	var b strings.Builder
	Usage(&b)
	if !strings.Contains(b.String(), "--maxmemory-policy") {
		t.Error("usage lacks parameters")
	}
}

func TestACLDirectives(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.conf")
	os.WriteFile(f, []byte("user default on >pw ~* +@all\nuser app on nopass \"~app:*\" +@read\nacl-pubsub-default allchannels\nacllog-max-len 5\naclfile /x/users.acl\n"), 0o644)
	c, err := load([]string{f, "--user", "other", "off"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	want := [][]string{{"default", "on", ">pw", "~*", "+@all"}, {"app", "on", "nopass", "~app:*", "+@read"}, {"other", "off"}}
	if !reflect.DeepEqual(s.Users, want) || !s.ACLPubsubAllChannels || s.ACLLogMaxLen != 5 || s.ACLFile != "/x/users.acl" {
		t.Errorf("users %q, pubsub %v, log %d, file %q", s.Users, s.ACLPubsubAllChannels, s.ACLLogMaxLen, s.ACLFile)
	}
	if got := c.Get([]string{"acl*"}); fmt.Sprint(got) != "[[aclfile /x/users.acl] [acl-pubsub-default allchannels] [acllog-max-len 5]]" {
		t.Errorf("CONFIG GET acl*: %q", got)
	}
	if err := c.Set([][2]string{{"acl-pubsub-default", "nochannels"}}); err == nil {
		t.Error("acl-pubsub-default takes allchannels or resetchannels")
	}
	if _, err := load([]string{"--user"}, nil); err == nil {
		t.Error("a user line names a user")
	}
}

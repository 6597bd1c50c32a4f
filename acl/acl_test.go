package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
)

func setUser(t *testing.T, r *Registry, name string, ops ...string) {
	t.Helper()
	if err := r.SetUser(name, ops); err != nil {
		t.Fatalf("SETUSER %s %v: %v", name, ops, err)
	}
}

func list(r *Registry, name string) string {
	return "user " + name + " " + r.Current().User([]byte(name)).Describe()
}

// The replies below are redis-server 7.0.15's. Single commands come in
// the table's order here, in its command table's hash order there (which
// changes with each start: its dict's hash seed is random), so where a
// line names several single commands, their order is radish's.
func TestDescribeAgainstRedis(t *testing.T) {
	r := NewRegistry("")
	for _, c := range []struct {
		ops  []string
		want string
	}{
		{nil, "user default on nopass ~* &* +@all"},
		{[]string{"on", "nopass", "~app1:*", "+@read"}, "user u1 on nopass ~app1:* resetchannels -@all +@read"},
		{[]string{"reset"}, "user u2 off sanitize-payload resetchannels -@all"},
		{[]string{}, "user u3 off resetchannels -@all"},
		{[]string{"%R", "%RW~x", "%W~y", "%R~z", "%R~y", "&ch*", "(+get ~sel*)", "(", "+set", ")", "+select|0", "+config|get", "-@all", "+get", "+set"},
			"user u4 off %R~ ~x ~y %R~z resetchannels &ch* -@all +get +set (~sel* resetchannels -@all +get) (resetchannels -@all +set)"},
		{[]string{"on", "nopass", "+@all", "-@dangerous", "-get", "+client|kill", "~*"},
			"user u5 on nopass ~* resetchannels +@all -@dangerous +client|kill -get"},
		{[]string{">pw", "#" + HashPassword([]byte("other")), "<pw", "-@all", "+select|0", "+select|1"},
			"user u6 off #" + HashPassword([]byte("other")) + " resetchannels -@all +select|0 +select|1"},
		{[]string{"allkeys", "allchannels", "allcommands", "-@all", "+@all", "resetkeys", "resetchannels", "%R~a", "%W~a", "skip-sanitize-payload"},
			"user u7 off skip-sanitize-payload ~a resetchannels +@all"},
	} {
		name := "default"
		if c.ops != nil {
			name = "u" + string(rune('0'+len(r.Current().Users())))
			setUser(t, r, name, c.ops...)
		}
		if got := list(r, name); got != c.want {
			t.Errorf("SETUSER %v:\n got %q\nwant %q", c.ops, got, c.want)
		}
	}
	// ACL LIST's line applied to a new user gives the same user.
	for _, u := range r.Current().Users() {
		ops := strings.Split(u.Describe(), " ")
		setUser(t, r, "copy", ops...)
		got := strings.TrimPrefix(list(r, "copy"), "user copy ")
		if got != u.Describe() {
			t.Errorf("round trip of %s:\n got %q\nwant %q", u.name, got, u.Describe())
		}
		r.DelUser([]string{"copy"})
	}
}

func TestRuleErrorsAgainstRedis(t *testing.T) {
	r := NewRegistry("")
	setUser(t, r, "u", "~*", "&*")
	for _, c := range []struct {
		user string
		ops  []string
		want string
	}{
		{"v", []string{"%~x"}, "ERR Error in ACL SETUSER modifier '%~x': Syntax error"},
		{"u", []string{"(+get"}, "ERR Unmatched parenthesis in acl selector starting at '(+get'."},
		{"u", []string{"foo"}, "ERR Error in ACL SETUSER modifier 'foo': Syntax error"},
		{"u", []string{"+nosuch"}, "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{"u", []string{"-@nosuch"}, "ERR Error in ACL SETUSER modifier '-@nosuch': Unknown command or category name in ACL"},
		{"u", []string{"~x"}, "ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{"u", []string{"&x"}, "ERR Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"},
		{"u", []string{"<nopw"}, "ERR Error in ACL SETUSER modifier '<nopw': The password you are trying to remove from the user does not exist"},
		{"u", []string{"#abc"}, "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
		{"u", []string{"+config|get|x"}, "ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported"},
		{"u", []string{"+config|nosuch"}, "ERR Error in ACL SETUSER modifier '+config|nosuch': Unknown command or category name in ACL"},
		{"u", []string{"+select|"}, "ERR Error in ACL SETUSER modifier '+select|': Syntax error"},
		{"u", []string{"a b"}, "ERR Error in ACL SETUSER modifier 'a b': Syntax error"},
		{"a b", nil, "ERR Usernames can't contain spaces or null characters"},
	} {
		before := r.Current()
		err := r.SetUser(c.user, c.ops)
		if err == nil || err.Error() != c.want {
			t.Errorf("SETUSER %s %v: got %v, want %q", c.user, c.ops, err, c.want)
		}
		if r.Current() != before {
			t.Errorf("SETUSER %v: a refused rule changed the users", c.ops)
		}
	}
	if _, err := r.DelUser([]string{"u", "default"}); err == nil || err.Error() != "ERR The 'default' user cannot be removed" {
		t.Errorf("DELUSER default: %v", err)
	}
}

func TestGetUserShape(t *testing.T) {
	r := NewRegistry("")
	setUser(t, r, "u1", "on", "nopass", "~app1:*", "+@read", "(+get %R~sel* &c)")
	w := resp.Writer{Proto: 2}
	r.Current().User([]byte("u1")).WriteGetUser(&w)
	want := "*12\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$6\r\nnopass\r\n$9\r\npasswords\r\n*0\r\n" +
		"$8\r\ncommands\r\n$12\r\n-@all +@read\r\n$4\r\nkeys\r\n$7\r\n~app1:*\r\n$8\r\nchannels\r\n$0\r\n\r\n" +
		"$9\r\nselectors\r\n*1\r\n*6\r\n$8\r\ncommands\r\n$10\r\n-@all +get\r\n$4\r\nkeys\r\n$7\r\n%R~sel*\r\n$8\r\nchannels\r\n$2\r\n&c\r\n"
	if string(w.B) != want {
		t.Errorf("GETUSER:\n got %q\nwant %q", w.B, want)
	}
}

func check(t *testing.T, u *User, args ...string) (Reason, int) {
	t.Helper()
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	spec, e := command.Resolve(bs)
	if e != "" {
		t.Fatalf("%v: %s", args, e)
	}
	return u.Check(spec, bs)
}

func TestCheck(t *testing.T) {
	r := NewRegistry("")
	setUser(t, r, "u1", "on", "nopass", "~app1:*", "+@read")
	setUser(t, r, "u2", "on", "nopass", "&foo", "+@all", "~*")
	setUser(t, r, "rw", "on", "nopass", "%W~w*", "%R~r*", "+@all", "(~sel* +set)", "&news.*")
	setUser(t, r, "sel", "on", "nopass", "-@all", "+select|0", "+config|get")
	s := r.Current()
	u1, u2, rw, sel := s.User([]byte("u1")), s.User([]byte("u2")), s.User([]byte("rw")), s.User([]byte("sel"))
	if !s.Default().AllowsAll() || u1.AllowsAll() {
		t.Fatal("AllowsAll: default must, u1 must not")
	}
	for _, c := range []struct {
		u    *User
		args []string
		why  Reason
		at   int
	}{
		{u1, []string{"get", "foo"}, DeniedKey, 1},
		{u1, []string{"get", "app1:x"}, OK, 0},
		{u1, []string{"set", "app1:x", "1"}, DeniedCmd, 0},
		{u1, []string{"mget", "app1:a", "b", "app1:c", "d"}, DeniedKey, 2},
		{u1, []string{"auth", "x"}, OK, 0}, // no-auth commands need no bit
		{u2, []string{"publish", "bar", "x"}, DeniedChannel, 1},
		{u2, []string{"publish", "foo", "x"}, OK, 0},
		{u2, []string{"subscribe", "foo", "bar"}, DeniedChannel, 2},
		{u2, []string{"psubscribe", "f*"}, DeniedChannel, 1},
		{u2, []string{"psubscribe", "foo"}, OK, 0},
		{rw, []string{"set", "w1", "v"}, OK, 0},
		{rw, []string{"set", "w1", "v", "GET"}, DeniedKey, 1},
		{rw, []string{"get", "r1"}, OK, 0},
		{rw, []string{"get", "w1"}, DeniedKey, 1},
		{rw, []string{"copy", "r1", "w1"}, OK, 0},
		{rw, []string{"copy", "w1", "r1"}, DeniedKey, 1},
		{rw, []string{"bitfield", "r1", "get", "u8", "0"}, OK, 0},
		{rw, []string{"bitfield", "r1", "set", "u8", "0", "1"}, DeniedKey, 1},
		{rw, []string{"sort", "r1", "store", "w1"}, OK, 0},
		{rw, []string{"sort", "r1", "store", "r2"}, DeniedKey, 3},
		{rw, []string{"set", "sel1", "v"}, OK, 0},   // the selector
		{rw, []string{"get", "sel1"}, DeniedKey, 1}, // neither
		{rw, []string{"publish", "news.a", "x"}, OK, 0},
		{rw, []string{"publish", "sports", "x"}, DeniedChannel, 1},
		{sel, []string{"select", "0"}, OK, 0},
		{sel, []string{"select", "1"}, DeniedCmd, 0},
		{sel, []string{"config", "get", "x"}, OK, 0},
		{sel, []string{"config", "set", "x", "y"}, DeniedCmd, 0},
	} {
		why, at := check(t, c.u, c.args...)
		if why != c.why || at != c.at {
			t.Errorf("%s %v: got %v at %d, want %v at %d", c.u.name, c.args, why, at, c.why, c.at)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	r := NewRegistry("secret")
	setUser(t, r, "u", "on", ">p1", ">p2")
	setUser(t, r, "off", "off", "nopass")
	s := r.Current()
	for _, c := range []struct {
		user, pass string
		ok         bool
	}{
		{"default", "secret", true}, {"default", "x", false}, {"u", "p2", true},
		{"u", "p3", false}, {"off", "", false}, {"nosuch", "", false},
	} {
		if got := s.Authenticate([]byte(c.user), []byte(c.pass)) != nil; got != c.ok {
			t.Errorf("AUTH %s %s: %v", c.user, c.pass, got)
		}
	}
	r.SetDefaultPassword("")
	if r.Current().Authenticate([]byte("default"), []byte("anything")) == nil {
		t.Error("requirepass \"\": the default user is nopass")
	}
}

func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "users.acl")
	r := NewRegistry("")
	setUser(t, r, "app", "on", ">pw", "~app1:*", "%R~ro:*", "&chan", "-@all", "+@read", "+set", "(+del ~tmp:*)")
	setUser(t, r, "default", ">dpw")
	if err := r.SaveFile(file); err != nil {
		t.Fatal(err)
	}
	before := []string{list(r, "app"), list(r, "default")}
	data, _ := os.ReadFile(file)
	if want := before[0] + "\n" + before[1] + "\n"; string(data) != want {
		t.Errorf("saved:\n%s\nwant:\n%s", data, want)
	}
	oldApp := r.Current().User([]byte("app")).Serial()
	oldDef := r.Current().Default().Serial()
	r2 := NewRegistry("")
	if err := r2.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	if after := []string{list(r2, "app"), list(r2, "default")}; after[0] != before[0] || after[1] != before[1] {
		t.Errorf("loaded %q, want %q", after, before)
	}
	if err := r.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	if r.Current().User([]byte("app")).Serial() == oldApp || r.Current().Default().Serial() != oldDef {
		t.Error("ACL LOAD: users other than default are new, the default user is the same")
	}
	os.WriteFile(file, []byte("user a on +nosuch\nfoo\nuser a\n"), 0o644)
	want := file + ":1: Unknown command or category name in ACL. " + file + ":2 should start with user keyword followed by the username. " +
		"WARNING: Duplicate user 'a' found on line 3. WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err := r.LoadFile(file); err == nil || err.Error() != want {
		t.Errorf("bad file: %v\nwant %s", err, want)
	}
	if err := r.LoadFile(filepath.Join(dir, "none")); err == nil || !strings.HasSuffix(err.Error(), "none': No such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLogGroups(t *testing.T) {
	var l Log
	l.SetMax(2)
	l.Add(DeniedCmd, CtxToplevel, "set", "u", "id=1", 1000)
	l.Add(DeniedCmd, CtxToplevel, "set", "u", "id=2", 2000)
	l.Add(DeniedKey, CtxMulti, "k", "u", "id=3", 3000)
	w := resp.Writer{Proto: 2}
	l.Write(&w, 10, 4000)
	got := string(w.B)
	for _, part := range []string{"*2\r\n*14\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$3\r\nkey\r\n$7\r\ncontext\r\n$5\r\nmulti\r\n",
		"$5\r\ncount\r\n:2\r\n$6\r\nreason\r\n$7\r\ncommand\r\n", "$11\r\nage-seconds\r\n$1\r\n2\r\n$11\r\nclient-info\r\n$4\r\nid=2\r\n"} {
		if !strings.Contains(got, part) {
			t.Errorf("ACL LOG %q lacks %q", got, part)
		}
	}
	l.Add(DeniedChannel, CtxLua, "c", "u", "", 5000)
	l.Add(DeniedAuth, CtxToplevel, "auth", "u", "", 5000)
	w.B = w.B[:0]
	l.Write(&w, 10, 5000)
	if !strings.HasPrefix(string(w.B), "*2\r\n") || strings.Contains(string(w.B), "multi") {
		t.Errorf("acllog-max-len 2 keeps the newest two: %q", w.B)
	}
}

// TestDocumentedExamples are the examples of Redis's ACL documentation
// (redis.io/docs/management/security/acl, ACL DRYRUN's page), with the
// replies it shows.
func TestDocumentedExamples(t *testing.T) {
	r := NewRegistry("")
	setUser(t, r, "alice", "on", ">p1pp0", "~cached:*", "+get")
	if got, want := list(r, "alice"), "user alice on #"+HashPassword([]byte("p1pp0"))+" ~cached:* resetchannels -@all +get"; got != want {
		t.Errorf("ACL LIST: %q, want %q", got, want)
	}
	alice := r.Current().User([]byte("alice"))
	if why, _ := check(t, alice, "get", "cached:1234"); why != OK {
		t.Error("alice may GET cached:1234")
	}
	if why, _ := check(t, alice, "set", "cached:1234", "x"); why != DeniedCmd {
		t.Error("alice may not SET")
	}
	if why, _ := check(t, alice, "get", "foo"); why != DeniedKey {
		t.Error("alice may not GET foo")
	}
	setUser(t, r, "virginia", "on", "+GET", "allkeys", "(+SET ~app1*)")
	w := resp.Writer{Proto: 3}
	r.Current().User([]byte("virginia")).WriteGetUser(&w)
	want := "%6\r\n$5\r\nflags\r\n~1\r\n$2\r\non\r\n$9\r\npasswords\r\n*0\r\n$8\r\ncommands\r\n$10\r\n-@all +get\r\n" +
		"$4\r\nkeys\r\n$2\r\n~*\r\n$8\r\nchannels\r\n$0\r\n\r\n$9\r\nselectors\r\n*1\r\n" +
		"%3\r\n$8\r\ncommands\r\n$10\r\n-@all +set\r\n$4\r\nkeys\r\n$6\r\n~app1*\r\n$8\r\nchannels\r\n$0\r\n\r\n"
	if string(w.B) != want {
		t.Errorf("ACL GETUSER virginia:\n got %q\nwant %q", w.B, want)
	}
	setUser(t, r, "VIRGINIA", "+SET", "~*")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ACL", "DRYRUN", "VIRGINIA", "SET", "foo", "bar"}, "+OK\r\n"},
		{[]string{"ACL", "DRYRUN", "VIRGINIA", "GET", "foo"}, "$53\r\nThis user has no permissions to run the 'get' command\r\n"},
	} {
		w := resp.Writer{Proto: 2}
		args := make([][]byte, len(c.args))
		for i, a := range c.args {
			args[i] = []byte(a)
		}
		r.Run(&Exec{W: &w}, args)
		if string(w.B) != c.want {
			t.Errorf("%v: %q, want %q", c.args, w.B, c.want)
		}
	}
	setUser(t, r, "antirez", "on", "+@all", "-@dangerous", ">"+"42a979", "~*")
	if got := list(r, "antirez"); !strings.HasSuffix(got, " ~* resetchannels +@all -@dangerous") {
		t.Errorf("ACL LIST antirez: %q", got)
	}
}

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func redisBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	return bin
}

// aclPair is one connection to radish and one to redis-server, fed the
// same commands.
type aclPair struct{ a, b *diffConn }

// same sends cmd to both servers and requires byte-identical replies,
// but for the order of single commands in rules (canonRules).
func (p aclPair) same(t *testing.T, cmd ...string) []byte {
	t.Helper()
	got, want := p.a.do(t, cmd)[0], p.b.do(t, cmd)[0]
	if !bytes.Equal(canonRules(got), canonRules(want)) {
		t.Fatalf("%q:\nradish replied %q\nredis  replied %q", cmd, got, want)
	}
	return got
}

// canonRules sorts each run of single-command rules (+get -set, not
// +@read) in b: redis-server lists them in its command table's hash
// order, which its random hash seed changes at every start, radish in
// name order. Sorting keeps the lengths of the bulk strings.
func canonRules(b []byte) []byte {
	out := slices.Clone(b)
	for _, line := range bytes.Split(out, []byte("\r\n")) {
		words := bytes.Split(line, []byte(" "))
		at := make([]int, len(words)) // where each word begins in line
		for k := 1; k < len(words); k++ {
			at[k] = at[k-1] + len(words[k-1]) + 1
		}
		for i := 0; i < len(words); {
			j := i
			for j < len(words) && len(words[j]) > 1 && (words[j][0] == '+' || words[j][0] == '-') && words[j][1] != '@' {
				j++
			}
			if j > i+1 {
				run := make([]string, j-i)
				for k := range run {
					run[k] = string(words[i+k])
				}
				slices.Sort(run)
				copy(line[at[i]:], strings.Join(run, " "))
			}
			i = max(j, i+1)
		}
	}
	return out
}

// TestACLAgainstRedis runs the same ACL script against radish (3 shards)
// and redis-server 7.0.15, in RESP2 and RESP3, and requires the same
// replies byte for byte: users and their rules (SETUSER, GETUSER, LIST,
// the rule language's errors, DRYRUN), AUTH and HELLO AUTH, a user
// limited to ~app1:* and +@read refused everything else with -NOPERM
// (keys on every shard, inside MULTI at queue time and at EXEC, through
// EVAL), channels, and the ACL LOG's entries.
func TestACLAgainstRedis(t *testing.T) {
	ref := startRedis(t, redisBin(t))
	s := start(t, "--shards", "3")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			admin := aclPair{dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)}
			admin.same(t, "ACL", "LOG", "RESET")
			for _, u := range []string{"app", "app2", "pub", "sel", "rw", "so", "soall"} {
				admin.a.do(t, []string{"ACL", "DELUSER", u})
				admin.b.do(t, []string{"ACL", "DELUSER", u})
			}
			for _, c := range [][]string{
				{"ACL", "SETUSER", "app", "on", ">pw", "~app1:*", "+@read"},
				{"ACL", "SETUSER", "app2", "on", ">pw", "~app1:*", "+@read", "+multi", "+exec", "+eval"},
				{"ACL", "SETUSER", "pub", "on", "nopass", "&news.*", "+@all", "~*"},
				{"ACL", "SETUSER", "sel", "on", "nopass", "-@all", "+select|0", "+ping", "(~sel:* +get)", "(", "%R~ro:*", "+@string", ")"},
				{"ACL", "SETUSER", "rw", "on", "nopass", "%W~w*", "%R~r*", "+@all", "-@dangerous"},
				{"ACL", "SETUSER", "so", "on", "nopass", "~app*", "+@all"},
				{"ACL", "SETUSER", "soall", "on", "nopass", "~app*", "(~* +sort)", "+@all"},
				{"ACL", "GETUSER", "app"}, {"ACL", "GETUSER", "sel"}, {"ACL", "GETUSER", "rw"}, {"ACL", "GETUSER", "nosuch"},
				{"ACL", "LIST"}, {"ACL", "USERS"}, {"ACL", "WHOAMI"}, {"ACL", "CAT"}, {"ACL", "CAT", "nosuch"},
				{"ACL", "SETUSER", "x", "%~k"}, {"ACL", "SETUSER", "x", "(+get"}, {"ACL", "SETUSER", "x", "+nosuch"},
				{"ACL", "SETUSER", "x", "#abc"}, {"ACL", "SETUSER", "x", "<none"}, {"ACL", "SETUSER", "x", "+config|get|x"},
				{"ACL", "SETUSER", "a b"}, {"ACL", "DELUSER", "default"}, {"ACL", "DELUSER", "nosuch"},
				{"ACL", "DRYRUN", "app", "get", "app1:x"}, {"ACL", "DRYRUN", "app", "get", "x"},
				{"ACL", "DRYRUN", "app", "set", "app1:x", "1"}, {"ACL", "DRYRUN", "pub", "publish", "sports", "m"},
				{"ACL", "DRYRUN", "app", "get"}, {"ACL", "DRYRUN", "app", "nosuch"}, {"ACL", "DRYRUN", "nouser", "get", "x"},
				{"ACL", "DRYRUN", "rw", "set", "w1", "v"}, {"ACL", "DRYRUN", "rw", "set", "w1", "v", "get"},
				{"ACL", "DRYRUN", "rw", "lmove", "r1", "w1", "left", "right"}, {"ACL", "DRYRUN", "rw", "lmove", "w1", "r1", "left", "right"},
				{"ACL", "GENPASS", "0"}, {"ACL", "GENPASS", "x"}, {"ACL", "LOG", "x"}, {"ACL", "CAT", "a", "b"},
				{"ACL", "LOAD"}, {"ACL", "SAVE"}, {"ACL", "HELP"}, {"ACL"}, {"ACL", "NOSUCH"},
			} {
				admin.same(t, c...)
			}
			if n := len(admin.a.do(t, []string{"ACL", "GENPASS", "5"})[0]); n != len("$2\r\n93\r\n") {
				t.Errorf("ACL GENPASS 5: %d bytes", n)
			}

			app := aclPair{dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)}
			app.same(t, "AUTH", "app", "wrong")
			app.same(t, "AUTH", "nosuch", "pw")
			app.same(t, "AUTH", "app", "pw")
			app.same(t, "ACL", "WHOAMI")
			for i := range 12 { // keys on every shard
				app.same(t, "GET", "app1:"+strconv.Itoa(i))
				app.same(t, "GET", "other:"+strconv.Itoa(i))
				app.same(t, "MGET", "app1:"+strconv.Itoa(i), "other:"+strconv.Itoa(i))
			}
			for _, c := range [][]string{
				{"SET", "app1:k", "v"}, {"DEL", "app1:k"}, {"EXISTS", "app1:k"}, {"KEYS", "*"}, {"FLUSHALL"},
				{"MULTI"}, {"EVAL", "return 1", "0"}, {"PUBLISH", "c", "m"}, {"SUBSCRIBE", "c"}, {"CONFIG", "GET", "maxmemory"},
				{"HGETALL", "app1:h"}, {"HGETALL", "h"}, {"STRLEN", "app1:k"}, {"ACL", "LIST"},
			} {
				app.same(t, c...)
			}
			// HELLO AUTH, and the user it leaves the connection with.
			hello := aclPair{dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)}
			hello.same(t, "HELLO", "2", "AUTH", "app", "nope")
			hello.a.do(t, []string{"HELLO", "2", "AUTH", "app", "pw"})
			hello.b.do(t, []string{"HELLO", "2", "AUTH", "app", "pw"})
			hello.same(t, "ACL", "WHOAMI")
			hello.same(t, "GET", "x")

			// MULTI: refused at queue time (EXECABORT), and at EXEC when
			// the rules changed since.
			app2 := aclPair{dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)}
			app2.same(t, "AUTH", "app2", "pw")
			for _, c := range [][]string{
				{"MULTI"}, {"GET", "app1:a"}, {"GET", "other"}, {"SET", "app1:a", "v"}, {"EXEC"},
				{"MULTI"}, {"GET", "app1:a"}, {"GET", "app1:b"}, {"MGET", "app1:c", "app1:d"},
			} {
				app2.same(t, c...)
			}
			admin.same(t, "ACL", "SETUSER", "app2", "-get")
			app2.same(t, "EXEC")
			// Scripts: redis.call's commands are checked too.
			for _, c := range [][]string{
				{"EVAL", "return redis.call('mget', 'app1:x')", "0"},
				{"EVAL", "return redis.call('set', 'app1:x', '1')", "0"},
				{"EVAL", "return redis.call('mget', 'other')", "0"},
				{"EVAL", "return redis.pcall('mget', 'other')", "0"},
				{"EVAL", "return redis.call('mget', KEYS[1])", "1", "app1:y"},
			} {
				app2.same(t, c...)
			}
			// Channels.
			pub := aclPair{dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)}
			pub.same(t, "AUTH", "pub", "x")
			pub.same(t, "PUBLISH", "sports", "m")
			pub.same(t, "PUBLISH", "news.a", "m")
			pub.same(t, "PSUBSCRIBE", "news.*", "sp*")
			pub.same(t, "SSUBSCRIBE", "sports")
			// First args and selectors.
			sel := aclPair{dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)}
			sel.same(t, "AUTH", "sel", "x")
			for _, c := range [][]string{
				{"SELECT", "0"}, {"SELECT", "1"}, {"GET", "sel:a"}, {"GET", "ro:a"}, {"SET", "ro:a", "v"}, {"GET", "a"}, {"PING"},
			} {
				sel.same(t, c...)
			}
			// SORT names keys through BY and GET patterns only for a user
			// that may read every key.
			for _, u := range []string{"so", "soall"} {
				so := aclPair{dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)}
				so.same(t, "AUTH", u, "x")
				for _, c := range [][]string{
					{"DEL", "app1"}, {"RPUSH", "app1", "3", "1", "2"}, {"SORT", "app1", "BY", "w*"}, {"SORT", "app1", "GET", "w*"},
					{"SORT", "app1", "BY", "nosort"}, {"SORT", "app1", "GET", "#"}, {"SORT", "app1", "LIMIT", "0", "1", "GET", "#", "LIMIT", "x", "1"},
					{"SORT_RO", "app1", "BY", "w*"}, {"MULTI"}, {"SORT", "app1", "BY", "w*"}, {"EXEC"},
					{"EVAL", "return redis.pcall('sort', KEYS[1], 'get', 'w*')", "1", "app1"},
					{"EVAL", "return redis.pcall('sort', KEYS[1], 'get', 'app*', 'by', 'nosort')", "1", "app1"},
				} {
					so.same(t, c...)
				}
			}
			admin.same(t, "CLIENT", "KILL", "USER", "nosuch")
			admin.same(t, "CLIENT", "KILL", "USER", "sel")
			aclLogsAgainstRedis(t, s.addr, ref)
		})
	}
}

// aclLogsAgainstRedis compares the ACL LOG of both servers: every field
// but age-seconds and client-info (ids and addresses differ; its user and
// command are compared).
func aclLogsAgainstRedis(t *testing.T, a, b string) {
	t.Helper()
	read := func(addr string) []string {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		defer c.Close()
		v, err := c.Do(ctx, "ACL", "LOG", "100").Slice()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range v {
			f := e.([]any)
			if len(f) != 14 {
				t.Fatalf("ACL LOG entry %v", f)
			}
			var line []string
			for i := 0; i < len(f); i += 2 {
				k, v := f[i].(string), fmt.Sprint(f[i+1])
				switch k {
				case "age-seconds":
					if age, err := strconv.ParseFloat(v, 64); err != nil || age < 0 || age > 60 {
						t.Errorf("age-seconds %q", v)
					}
					continue
				case "client-info":
					var keep []string
					for _, kv := range strings.Fields(v) {
						if strings.HasPrefix(kv, "user=") || strings.HasPrefix(kv, "cmd=") {
							keep = append(keep, kv)
						}
					}
					v = strings.Join(keep, " ")
				}
				line = append(line, k+"="+v)
			}
			out = append(out, strings.Join(line, " "))
		}
		return out
	}
	got, want := read(a), read(b)
	if !slices.Equal(got, want) {
		t.Errorf("ACL LOG differs:\nradish:\n  %s\nredis:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if len(got) < 10 {
		t.Errorf("ACL LOG has %d entries", len(got))
	}
}

// TestACLCategoriesAgainstRedis: ACL CAT <category> lists, for every
// category, the commands radish has that redis-server lists (and no
// other).
func TestACLCategoriesAgainstRedis(t *testing.T) {
	ref := startRedis(t, redisBin(t))
	s := start(t)
	a, b := s.client(2), redis.NewClient(&redis.Options{Addr: ref, Protocol: 2, DisableIdentity: true})
	defer b.Close()
	// known reports which of names a server has (COMMAND INFO answers a
	// null for the others).
	known := func(c *redis.Client, names []string) map[string]bool {
		out := map[string]bool{}
		if len(names) == 0 {
			return out
		}
		args := []any{"COMMAND", "INFO"}
		for _, n := range names {
			args = append(args, n)
		}
		v, err := c.Do(ctx, args...).Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range v {
			out[names[i]] = e != nil
		}
		return out
	}
	cats, _ := a.Do(ctx, "ACL", "CAT").StringSlice()
	want, _ := b.Do(ctx, "ACL", "CAT").StringSlice()
	if !slices.Equal(cats, want) {
		t.Fatalf("ACL CAT: %q, redis %q", cats, want)
	}
	for _, cat := range cats {
		got, err := a.Do(ctx, "ACL", "CAT", cat).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		all, _ := b.Do(ctx, "ACL", "CAT", cat).StringSlice()
		inRadish, inRedis := known(a, all), known(b, got)
		var g, w []string
		for _, n := range got {
			if inRedis[n] { // radish has commands of Redis 7.2 too
				g = append(g, n)
			}
		}
		for _, n := range all {
			if inRadish[n] {
				w = append(w, n)
			}
		}
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("ACL CAT %s:\nradish %q\nredis  %q", cat, g, w)
		}
	}
}

// TestACLFile: ACL SAVE writes what redis-server writes for the same
// users; a restart with the aclfile has them back; ACL LOAD of an edited
// file replaces them and closes the connections of every user but
// default, as Redis; a file with errors changes nothing.
func TestACLFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "users.acl")
	os.WriteFile(file, nil, 0o644)
	refFile := filepath.Join(t.TempDir(), "users.acl")
	os.WriteFile(refFile, nil, 0o644)
	ref := startRedis(t, redisBin(t), "--aclfile", refFile)
	args := []string{"--shards", "3", "--aclfile", file}
	s := startDir(t, dir, args...)
	p := aclPair{dialDiff(t, s.addr, 2), dialDiff(t, ref, 2)}
	for _, c := range [][]string{
		{"ACL", "SETUSER", "app", "on", ">pw", "~app1:*", "%R~ro:*", "&chan", "+@read", "(+@write ~tmp:*)"},
		{"ACL", "SETUSER", "ops", "off", "#" + strings.Repeat("ab", 32), "~*", "&*", "+@all", "-@dangerous"},
		{"ACL", "SETUSER", "default", ">secret"},
		{"ACL", "SAVE"},
	} {
		p.same(t, c...)
	}
	got, _ := os.ReadFile(file)
	want, _ := os.ReadFile(refFile)
	if !bytes.Equal(canonRules(got), canonRules(want)) {
		t.Fatalf("ACL SAVE wrote\n%s\nredis-server wrote\n%s", got, want)
	}
	list := s.cli("--user", "default", "--pass", "secret", "--no-auth-warning", "ACL", "LIST")
	s.stop()
	s = startDir(t, dir, args...)
	if again := s.cli("--user", "default", "--pass", "secret", "--no-auth-warning", "ACL", "LIST"); again != list {
		t.Fatalf("after a restart ACL LIST is\n%s\nwas\n%s", again, list)
	}
	// A connection as app, and as default; ACL LOAD of an edited file.
	c := redis.NewClient(&redis.Options{Addr: s.addr, Username: "app", Password: "pw", DisableIdentity: true, MaxRetries: -1, PoolSize: 1})
	defer c.Close()
	if err := c.Get(ctx, "app1:x").Err(); err != redis.Nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("id=%d ", c.ClientID(ctx).Val())
	d := redis.NewClient(&redis.Options{Addr: s.addr, Password: "secret", DisableIdentity: true, MaxRetries: -1, PoolSize: 1})
	defer d.Close()
	did := fmt.Sprintf("id=%d ", d.ClientID(ctx).Val())
	os.WriteFile(file, append(got, "user extra on nopass ~* +get\n"...), 0o644)
	if err := d.Do(ctx, "ACL", "LOAD").Err(); err != nil {
		t.Fatal(err)
	}
	// go-redis replaces a closed connection unseen: CLIENT LIST says
	// whether the first one is gone.
	for deadline := time.Now().Add(5 * time.Second); strings.Contains(d.ClientList(ctx).Val(), id); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("ACL LOAD left a connection of app open")
		}
	}
	users, _ := d.Do(ctx, "ACL", "USERS").StringSlice()
	if !slices.Equal(users, []string{"app", "default", "extra", "ops"}) {
		t.Errorf("ACL USERS after LOAD: %q", users)
	}
	if !strings.Contains(d.ClientList(ctx).Val(), did) {
		t.Error("ACL LOAD closed a connection of the default user")
	}
	os.WriteFile(file, []byte("user bad on +nosuch\n"), 0o644)
	err := d.Do(ctx, "ACL", "LOAD").Err()
	if err == nil || err.Error() != "ERR "+file+":1: Unknown command or category name in ACL. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {
		t.Errorf("ACL LOAD of a bad file: %v", err)
	}
	if users2, _ := d.Do(ctx, "ACL", "USERS").StringSlice(); !slices.Equal(users2, users) {
		t.Errorf("a bad file changed the users: %q", users2)
	}
}

// TestACLDisconnects: ACL DELUSER closes every connection of the user, on
// every shard; a subscriber whose user loses the channel is closed; one
// whose user keeps it stays; changing other rules of a user keeps its
// connections and applies at once.
func TestACLDisconnects(t *testing.T) {
	s := start(t, "--shards", "3")
	admin := s.client(2)
	for _, c := range [][]any{
		{"ACL", "SETUSER", "gone", "on", "nopass", "~*", "+@all"},
		{"ACL", "SETUSER", "sub", "on", "nopass", "&news.*", "&sports", "+@all"},
	} {
		if err := admin.Do(ctx, c...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var conns []*redis.Conn
	for range 6 { // spread over the shards
		c := s.clientWith(&redis.Options{Username: "gone", Password: "any", DisableIdentity: true, MaxRetries: -1}).Conn()
		if err := c.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// The clients stay reachable to the end (clientWith): the count of
	// sub's connections below is subNews's.
	subNews := s.clientWith(&redis.Options{Username: "sub", Password: "any", DisableIdentity: true}).Subscribe(ctx, "news.a")
	subSports := s.clientWith(&redis.Options{Username: "sub", Password: "any", DisableIdentity: true}).Subscribe(ctx, "sports")
	for _, ps := range []*redis.PubSub{subNews, subSports} {
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "gone", "-get").Err(); err != nil {
		t.Fatal(err)
	}
	if err := conns[0].Get(ctx, "k").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Errorf("GET after -get: %v", err)
	}
	if err := admin.Do(ctx, "ACL", "DELUSER", "gone").Err(); err != nil {
		t.Fatal(err)
	}
	for i, c := range conns {
		if err := c.Ping(ctx).Err(); err == nil {
			t.Errorf("connection %d of a deleted user still answers", i)
		}
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "sub", "resetchannels", "&news.*").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Publish(ctx, "news.a", "m").Err(); err != nil {
		t.Fatal(err)
	}
	if m, err := subNews.ReceiveTimeout(ctx, 5*time.Second); err != nil {
		t.Errorf("the subscriber that kept its channel: %v", err)
	} else if msg, ok := m.(*redis.Message); !ok || msg.Payload != "m" {
		t.Errorf("the subscriber that kept its channel got %v", m)
	}
	var ne net.Error
	if _, err := subSports.ReceiveTimeout(ctx, 5*time.Second); err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the subscriber that lost its channel is still connected: %v", err)
	}
	subSports.Close() // go-redis would connect it again
	// The one go-redis made again may take a moment to close.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		n := strings.Count(admin.ClientList(ctx).Val(), "user=sub ")
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of sub, want 1", n)
		}
	}
}

// TestACLConfig: user lines in the config file, requirepass as the
// default user's password (CONFIG SET too), acl-pubsub-default and
// acllog-max-len.
func TestACLConfig(t *testing.T) {
	dir := t.TempDir()
	users := []string{"--user", "app", "on", ">pw", "~app1:*", "+@read", "--user", "default", "on", "nopass", "~*", "&*", "+@all"}
	s := start(t, append(users, "--acllog-max-len", "2", "--requirepass", "first")...)
	c := redis.NewClient(&redis.Options{Addr: s.addr, Password: "first", DisableIdentity: true, MaxRetries: -1})
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]any{{"CONFIG", "SET", "requirepass", "second"}, {"CONFIG", "SET", "acl-pubsub-default", "allchannels"}} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := redis.NewClient(&redis.Options{Addr: s.addr, Password: "first", DisableIdentity: true, MaxRetries: -1}).Ping(ctx).Err(); err == nil ||
		!strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Errorf("the old password: %v", err)
	}
	app := redis.NewClient(&redis.Options{Addr: s.addr, Username: "app", Password: "pw", DisableIdentity: true, MaxRetries: -1})
	defer app.Close()
	for i := range 3 {
		if err := app.Set(ctx, "app1:"+strconv.Itoa(i), "v", 0).Err(); err == nil {
			t.Error("SET allowed")
		}
	}
	if n := len(c.Do(ctx, "ACL", "LOG").Val().([]any)); n != 2 {
		t.Errorf("%d ACL LOG entries, want 2: the old password, and three SETs alike", n)
	}
	c2 := redis.NewClient(&redis.Options{Addr: s.addr, Password: "second", DisableIdentity: true, MaxRetries: -1})
	defer c2.Close()
	if err := c2.Do(ctx, "ACL", "SETUSER", "late", "on").Err(); err != nil {
		t.Fatal(err)
	}
	if l := c2.Do(ctx, "ACL", "LIST").Val(); !strings.Contains(fmt.Sprint(l), "user late on &* -@all") {
		t.Errorf("acl-pubsub-default allchannels: %v", l)
	}
	// Both users and an aclfile: refused at start, as Redis.
	os.WriteFile(filepath.Join(dir, "u.acl"), nil, 0o644)
	bad := exec.Command(serverBin, append(users, "--port", strconv.Itoa(freePort(t)), "--aclfile", filepath.Join(dir, "u.acl"))...)
	out, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "please define either an ACL file or declare users directly in your redis.conf, but not both") {
		t.Errorf("users and aclfile: %v\n%s", err, out)
	}
}

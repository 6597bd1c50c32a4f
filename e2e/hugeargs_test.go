package e2e

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// hugeNumbers are the numbers a hostile client sends where a command takes
// a count, an index, a numkeys or a timeout: sums and products of them
// overflow.
var hugeNumbers = []string{"9223372036854775807", "-9223372036854775808", "9223372036854775806",
	"4611686018427387904", "-4611686018427387905", "2147483648", "-2147483649", "4294967296", "4294967295", "-1", "1e308",
	"inf", "-inf", "nan", "", "-0"}

// hugeUnfit names the commands this test leaves out: they stop the server
// or its replies, change its role or configuration, or reach the network
// or the disk.
var hugeUnfit = map[string]bool{
	"shutdown": true, "debug": true, "monitor": true, "sync": true, "psync": true, "replicaof": true, "slaveof": true,
	"failover": true, "migrate": true, "client|pause": true, "client|kill": true, "client|reply": true, "quit": true,
	"config|set": true, "acl|load": true, "acl|save": true, "save": true, "bgsave": true, "bgrewriteaof": true,
	"module|load": true, "module|loadex": true, "config|rewrite": true, "subscribe": true, "psubscribe": true,
	"ssubscribe": true, "unsubscribe": true, "punsubscribe": true, "sunsubscribe": true, "hello": true,
	"replconf": true, "waitaof": true, "cluster|reset": true, "reset": true,
}

// TestHugeArguments puts each of hugeNumbers at each argument place of
// every command in radish's own table (and at every place at once, and
// after each option word its docs name) over keys of every type, directly,
// through a script's redis.pcall and queued in MULTI, over RESP2 and
// RESP3, and checks that the server answers every one and stays up: no
// numkeys, count or range may index past its arguments or allocate by a
// number the client chose.
func TestHugeArguments(t *testing.T) {
	s := start(t, "--shards", "2")
	table, docs := commandTable(t, s.addr)
	fixture := [][]string{{"DISCARD"}, {"FLUSHALL"}, {"RPUSH", "l", "a", "b"}, {"ZADD", "z", "1", "a"}, {"HSET", "h", "f", "v"},
		{"SADD", "s", "a"}, {"XADD", "x", "1-1", "f", "v"}, {"SET", "str", "10"}, {"SELECT", "0"}}
	base := []string{"l", "z", "h", "s", "x", "str", "0", "1"}
	var calls [][]string
	for _, c := range table {
		if hugeUnfit[c.lower] || hugeUnfit[strings.SplitN(c.lower, "|", 2)[0]] {
			continue
		}
		places := max(c.arity, -c.arity) + 2
		for at := len(c.name); at < places; at++ {
			for k, n := range hugeNumbers {
				args := slices.Clone(c.name)
				for len(args) < places {
					args = append(args, base[len(args)%len(base)])
				}
				args[at] = n
				// In a script too: redis.call's arguments, on keys of
				// both shards.
				script := append([]string{"EVAL", "return redis.pcall(unpack(ARGV))", "0"}, args...)
				calls = append(calls, args, script)
				if k < 3 {
					// And queued in MULTI: EXEC plans its commands'
					// keys over the shards before it runs them. (A
					// batch may end inside it: the fixture's DISCARD
					// ends it.)
					calls = append(calls, []string{"MULTI"}, args, []string{"EXEC"})
				}
			}
		}
		for _, n := range hugeNumbers {
			if slices.Contains(c.cats, "@blocking") {
				break // it would wait n seconds for its keys n
			}
			// Every place the same number: ranges from n to n.
			args := slices.Clone(c.name)
			for len(args) < places {
				args = append(args, n)
			}
			calls = append(calls, args, []string{"MULTI"}, args, []string{"EXEC"})
		}
		for _, tok := range docs[c.lower] {
			for _, n := range hugeNumbers {
				for _, around := range [][2][]string{{nil, nil}, {{"l"}, nil}, {{"l", "z"}, nil}, {{"l"}, {"z", "1"}}} {
					args := append(slices.Clone(c.name), around[0]...)
					calls = append(calls, append(append(args, tok, n), around[1]...))
				}
			}
		}
	}
	t.Logf("%d calls of %d commands", len(calls), len(table))
	// Batches go in turn over RESP2 and RESP3 (their replies are
	// written apart).
	conns := []*diffConn{dialDiff(t, s.addr, 2), dialDiff(t, s.addr, 3)}
	for i, turn := 0, 0; i < len(calls); turn++ {
		batch := calls[i:min(i+40, len(calls))]
		proto := turn % 2
		conn := conns[proto]
		conn.do(t, fixture...)
		n, err := conn.try(batch)
		if err != nil {
			// A command that blocked (a huge timeout) leaves this
			// connection waiting: the next batch starts after it, on a
			// new one. A server that stopped answers nothing more.
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("the connection ended (%v) at %q, after\n%q", err, batch[n], batch[:n])
			}
			t.Logf("no answer within a second: %q", batch[n])
			conn.c.Close()
			conns[proto] = dialDiff(t, s.addr, 2+proto)
			i += n + 1
			continue
		}
		i += len(batch)
	}
	if got := strings.TrimSpace(s.cli("PING")); got != "PONG" {
		t.Fatalf("PING answered %q after the calls", got)
	}
	if rss := s.rss(); rss > 1<<30 {
		t.Fatalf("the server's RSS grew to %d MiB", rss>>20)
	}
}

// try sends cmds and reads their replies within a second each; it
// returns how many it read and why it stopped.
func (d *diffConn) try(cmds [][]string) (int, error) {
	if err := d.write(cmds); err != nil {
		return 0, err
	}
	for i := range cmds {
		if _, err := d.next(time.Second); err != nil {
			return i, err
		}
	}
	return len(cmds), nil
}

// tableCommand is a command or subcommand of a server's COMMAND reply.
type tableCommand struct {
	lower string   // "client|list"
	name  []string // "CLIENT", "LIST"
	arity int
	cats  []string // its ACL categories: "@read", "@list" ...
}

// commandTable reads the server's COMMAND and COMMAND DOCS: its commands
// and subcommands, and each one's option words (by lower name).
func commandTable(t *testing.T, addr string) ([]tableCommand, map[string][]string) {
	c := dialDiff(t, addr, 3)
	table, _, err := resp.ReadReply(c.do(t, []string{"COMMAND"})[0])
	if err != nil {
		t.Fatal(err)
	}
	docs, _, err := resp.ReadReply(c.do(t, []string{"COMMAND", "DOCS"})[0])
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string][]string{}
	var walk func(name string, args resp.Value)
	walk = func(name string, args resp.Value) {
		for _, a := range args.Elems {
			for i := 0; i+1 < len(a.Elems); i += 2 {
				switch string(a.Elems[i].Str) {
				case "token":
					tokens[name] = append(tokens[name], string(a.Elems[i+1].Str))
				case "arguments":
					walk(name, a.Elems[i+1])
				}
			}
		}
	}
	var doc func(m resp.Value)
	doc = func(m resp.Value) {
		for i := 0; i+1 < len(m.Elems); i += 2 {
			name := strings.ToLower(string(m.Elems[i].Str))
			d := m.Elems[i+1]
			for j := 0; j+1 < len(d.Elems); j += 2 {
				switch string(d.Elems[j].Str) {
				case "arguments":
					walk(name, d.Elems[j+1])
				case "subcommands":
					doc(d.Elems[j+1])
				}
			}
		}
	}
	doc(docs)
	var out []tableCommand
	var add func(v resp.Value)
	add = func(v resp.Value) {
		if subs := v.Elems[9].Elems; len(subs) > 0 {
			for _, sub := range subs {
				add(sub)
			}
			return
		}
		lower := strings.ToLower(string(v.Elems[0].Str))
		var cats []string
		for _, c := range v.Elems[6].Elems {
			cats = append(cats, string(c.Str))
		}
		out = append(out, tableCommand{lower: lower, name: strings.Split(strings.ToUpper(lower), "|"), arity: int(v.Elems[1].Int),
			cats: cats})
	}
	for _, v := range table.Elems {
		add(v)
	}
	// In name order: redis-server lists its table in its dict's order,
	// which changes from run to run.
	slices.SortFunc(out, func(a, b tableCommand) int { return strings.Compare(a.lower, b.lower) })
	return out, tokens
}

package shard

import (
	"slices"
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

// fuzzSkip are the commands FuzzServerCommands leaves out: those that end
// the process or reach the network or the disk by design.
var fuzzSkip = []string{"shutdown", "debug", "replicaof", "slaveof", "migrate", "failover", "sync", "psync",
	"save", "bgsave", "bgrewriteaof", "module"}

// FuzzServerCommands sends any command or subcommand (the server's own
// too: connections, CONFIG, ACL, CLIENT, FUNCTION, SCRIPT, OBJECT, MEMORY,
// LATENCY, SLOWLOG, COMMAND, Pub/Sub, transactions, scripts ..., which
// command/FuzzHandlers does not reach) with fuzzed arguments (split at NUL
// bytes) through a simulated two-shard server's command path, alone,
// queued in a MULTI or called by a script, after a few keys and a
// subscription of another client: any reply, never a panic, and the
// replies whole RESP values.
func FuzzServerCommands(f *testing.F) {
	var rows []*command.Spec
	for _, s := range command.Rows() {
		if !slices.Contains(fuzzSkip, strings.Split(s.Name, "|")[0]) {
			rows = append(rows, s)
		}
	}
	if len(rows) < 300 {
		f.Fatalf("only %d rows", len(rows))
	}
	for i := range rows {
		f.Add(uint16(i), []byte("k\x00*\x00-1"))
		f.Add(uint16(i), []byte("(\x00)\x00ID\x009223372036854775807"))
	}
	f.Fuzz(func(t *testing.T, which uint16, raw []byte) {
		s := rows[int(which)%len(rows)]
		args := workload.FuzzCall(s.Name, raw)
		m := newSim(t, 2, 1)
		c, sub := m.dial(0), m.dial(1)
		m.do(sub, "SUBSCRIBE ch\r\n")
		m.do(c, "MSET {a}k v {a}n 1\r\nRPUSH l a b\r\nHSET h f v\r\nZADD z 1 a\r\nSADD s a\r\nXADD x 1-1 f v\r\n")
		m.take(c)
		// which also says how the command goes: alone, queued in a MULTI,
		// or called by a script (redis.pcall).
		var w resp.Writer
		cmd := func(args [][]byte) {
			w.Array(len(args))
			for _, a := range args {
				w.Bulk(a)
			}
		}
		switch int(which) / len(rows) % 3 {
		case 0:
			cmd(args)
		case 1:
			cmd([][]byte{[]byte("MULTI")})
			cmd(args)
			cmd([][]byte{[]byte("EXEC")})
		case 2:
			cmd(append([][]byte{[]byte("EVAL"), []byte("return redis.pcall(unpack(ARGV))"), []byte("0")}, args...))
		}
		got := []byte(m.do(c, string(w.B)))
		for len(got) > 0 {
			_, n, err := resp.ReadReply(got)
			if err != nil || n == 0 {
				t.Fatalf("%q: the reply %q is no whole RESP value (%v)", args, got, err)
			}
			got = got[n:]
		}
	})
}

package command

import (
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// SLOWLOG reads the slow log every shard keeps (shard/slowlog.go) through
// Ctx.Server: it runs on the connection's shard and stops no other.

func init() {
	adm := Admin | Loading | Stale
	nd := "nondeterministic_output"
	register(&Spec{Name: "slowlog", Arity: -2, Summary: "A container for slow log commands", Since: "2.2.12",
		Group: "server", Complexity: "Depends on subcommand.",
		Sub: []*Spec{
			{Name: "slowlog|get", Arity: -2, Flags: adm, Handler: cmdSlowlogGet,
				Tips:    []string{"request_policy:all_nodes", nd},
				Summary: "Get the slow log's entries", Group: "server",
				Complexity: "O(N) where N is the number of entries returned"},
			{Name: "slowlog|len", Arity: 2, Flags: adm, Handler: cmdSlowlogLen,
				Tips:    []string{"request_policy:all_nodes", "response_policy:agg_sum", nd},
				Summary: "Get the slow log's length", Group: "server", Complexity: "O(1)"},
			{Name: "slowlog|reset", Arity: 2, Flags: adm, Handler: cmdSlowlogReset,
				Tips:    []string{"request_policy:all_nodes", "response_policy:all_succeeded"},
				Summary: "Clear all entries from the slow log", Group: "server",
				Complexity: "O(N) where N is the number of entries in the slowlog"},
			{Name: "slowlog|help", Arity: 2, Flags: Loading | Stale, Handler: cmdSlowlogHelp,
				Summary: "Show helpful text about the different subcommands", Group: "server", Complexity: "O(1)"},
		}})
}

func cmdSlowlogGet(c *Ctx, args [][]byte) {
	count := int64(10)
	if len(args) > 3 {
		c.W.Error(errtext.SubSyntax(args[0], args[1]))
		return
	}
	if len(args) == 3 {
		n, ok := num.ParseInt(args[2])
		if !ok || n < -1 {
			c.W.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
	}
	es := c.Server.SlowlogGet(int(count))
	c.W.Array(len(es))
	for _, e := range es {
		c.W.Array(6)
		c.W.Int(e.ID)
		c.W.Int(e.Time)
		c.W.Int(e.Micros)
		c.W.Array(len(e.Args))
		for _, a := range e.Args {
			c.W.Bulk(a)
		}
		c.W.BulkString(e.Addr)
		c.W.BulkString(e.Name)
	}
}

func cmdSlowlogLen(c *Ctx, args [][]byte) { c.W.Int(int64(c.Server.SlowlogLen())) }

func cmdSlowlogReset(c *Ctx, args [][]byte) {
	c.Server.SlowlogReset()
	c.W.Simple("OK")
}

func cmdSlowlogHelp(c *Ctx, args [][]byte) {
	kvHelp(c, args[0], []string{
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.",
	})
}

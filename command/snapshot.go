package command

import (
	"github.com/radish-kv/radish/errtext"
)

// The snapshot commands: SAVE, BGSAVE, LASTSAVE, and the AOF's
// BGREWRITEAOF. The shards' persistence does the work (shard/snapshot.go,
// shard/aofrw.go): SAVE, BGSAVE and BGREWRITEAOF are placed there by
// their Route, as their replies wait for every shard; the BGSAVE and
// BGREWRITEAOF handlers, for where a command runs without placement (a
// transaction), and LASTSAVE answer at once through Ctx.Server.

func init() {
	register(
		&Spec{Name: "save", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading | NoMulti,
			Route:   func([][]byte) Route { return Route{Persist: true} },
			Summary: "Synchronously save the dataset to disk", Since: "1.0.0", Group: "server",
			Complexity: "O(N) where N is the total number of keys in all databases"},
		&Spec{Name: "bgsave", Arity: -1, Flags: Admin | NoScript | NoAsyncLoading,
			Route:   func([][]byte) Route { return Route{Persist: true} },
			Handler: cmdBgSave,
			Summary: "Asynchronously save the dataset to disk", Since: "1.0.0", Group: "server",
			Complexity: "O(1)",
			History:    [][2]string{{"3.2.2", "Added the `SCHEDULE` option."}},
			Args: []Arg{
				{Name: "schedule", Type: "pure-token", Token: "SCHEDULE", Since: "3.2.2", Flags: ArgOptional},
			}},
		&Spec{Name: "bgrewriteaof", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading,
			Route:   func([][]byte) Route { return Route{Persist: true} },
			Handler: cmdBgRewriteAOF,
			Summary: "Asynchronously rewrite the append-only file", Since: "1.0.0", Group: "server",
			Complexity: "O(1)"},
		&Spec{Name: "lastsave", Arity: 1, Flags: Loading | Stale | Fast, ACL: []string{"admin", "dangerous"},
			Tips:    []string{"nondeterministic_output"},
			Handler: func(c *Ctx, args [][]byte) { c.W.Int(c.Server.LastSave()) },
			Summary: "Get the UNIX time stamp of the last successful save to disk", Since: "1.0.0",
			Group: "server", Complexity: "O(1)"},
	)
}

// cmdBgSave is BGSAVE [SCHEDULE].
func cmdBgSave(c *Ctx, args [][]byte) {
	schedule := false
	switch {
	case len(args) == 2 && kvIs(args[1], "schedule"):
		schedule = true
	case len(args) > 1:
		c.W.Error(errtext.Syntax)
		return
	}
	status, errText := c.Server.BgSave(schedule)
	if errText != "" {
		c.W.Error(errText)
		return
	}
	c.W.Simple(status)
}

// cmdBgRewriteAOF is BGREWRITEAOF.
func cmdBgRewriteAOF(c *Ctx, args [][]byte) {
	status, errText := c.Server.BgRewriteAOF()
	if errText != "" {
		c.W.Error(errText)
		return
	}
	c.W.Simple(status)
}

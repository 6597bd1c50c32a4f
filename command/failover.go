package command

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], as Redis 7.0: the
// server (shard/failover.go) checks the arguments and its replicas,
// answers at once, and hands over in the background.

func init() {
	register(&Spec{Name: "failover", Arity: -1, Flags: Admin | NoScript | Stale,
		Handler: func(c *Ctx, args [][]byte) {
			if e := c.Server.Failover(args); e != "" {
				c.W.Error(e)
				return
			}
			c.W.OK()
		},
		Summary: "Start a coordinated failover between this server and one of its replicas.",
		Since:   "6.2.0", Group: "server", Complexity: "O(1)",
		Args: []Arg{
			{Name: "target", Type: "block", Token: "TO", Flags: ArgOptional, Args: []Arg{
				{Name: "host", Type: "string"}, {Name: "port", Type: "integer"},
				{Name: "force", Type: "pure-token", Token: "FORCE", Flags: ArgOptional}}},
			{Name: "abort", Type: "pure-token", Token: "ABORT", Flags: ArgOptional},
			{Name: "milliseconds", Type: "integer", Token: "TIMEOUT", Flags: ArgOptional},
		}})
}

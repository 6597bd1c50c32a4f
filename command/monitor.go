package command

// MONITOR: the connection receives a line for every command any shard
// runs from now on (shard/monitor.go).

func init() {
	register(&Spec{Name: "monitor", Arity: 1, Flags: Admin | NoScript | Loading | Stale, Handler: cmdMonitor,
		Summary: "Listen for all requests received by the server in real time", Since: "1.0.0",
		Group: "server", Complexity: ""})
}

func cmdMonitor(c *Ctx, args [][]byte) {
	c.Local.Monitor(c.Client, true)
	c.W.Simple("OK")
}

package command

// What Redis 7.0 answers where it has no module and no cluster: MODULE
// LIST is empty and MODULE LOAD, LOADEX and UNLOAD find no module (after
// enable-module-command, which, as Redis's default, allows them to nobody);
// ASKING says cluster support is disabled, as INFO's cluster_enabled:0
// does. Clients ask these to learn what the server is (redis-om's MODULE
// LIST). READONLY and READWRITE answer as Valkey 8, which gave them a
// meaning outside a cluster: with CLIENT CAPA redirect, a replica sends a
// client's reads to the primary until it says READONLY (Redis 7.0 refuses
// them as ASKING).

// errClusterDisabled is Redis's reply to a cluster command outside a
// cluster.
const errClusterDisabled = "ERR This instance has cluster support disabled"

func init() {
	mod := Admin | NoScript | NoAsyncLoading
	register(&Spec{Name: "module", Arity: -2, Summary: "A container for module commands", Since: "4.0.0",
		Group: "server", Complexity: "Depends on subcommand.",
		Sub: []*Spec{
			{Name: "module|help", Arity: 2, Flags: Loading | Stale, Handler: cmdModuleHelp,
				Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Group: "server", Complexity: "O(1)"},
			{Name: "module|list", Arity: 2, Flags: Admin | NoScript,
				Tips:    []string{"nondeterministic_output_order"},
				Handler: func(c *Ctx, args [][]byte) { c.W.Array(0) },
				Summary: "List all modules loaded by the server", Since: "4.0.0", Group: "server",
				Complexity: "O(N) where N is the number of loaded modules."},
			{Name: "module|load", Arity: -3, Flags: mod, Protected: "module", Handler: cmdModuleLoad,
				Summary: "Load a module", Since: "4.0.0", Group: "server", Complexity: "O(1)",
				Args: []Arg{{Name: "path", Type: "string"}, {Name: "arg", Type: "string", Flags: ArgOptional | ArgMultiple}}},
			{Name: "module|loadex", Arity: -3, Flags: mod, Protected: "module", Handler: cmdModuleLoad,
				Summary: "Load a module with extended parameters", Since: "7.0.0", Group: "server", Complexity: "O(1)",
				Args: []Arg{
					{Name: "path", Type: "string"},
					{Name: "configs", Type: "block", Token: "CONFIG", Flags: ArgOptional | ArgMultiple | ArgMultipleToken, Args: []Arg{
						{Name: "name", Type: "string"}, {Name: "value", Type: "string"}}},
					{Name: "args", Type: "block", Token: "ARGS", Flags: ArgOptional | ArgMultiple, Args: []Arg{
						{Name: "arg", Type: "string"}}},
				}},
			{Name: "module|unload", Arity: 3, Flags: mod, Protected: "module",
				Handler: func(c *Ctx, args [][]byte) { c.W.Error("ERR Error unloading module: no such module with that name") },
				Summary: "Unload a module", Since: "4.0.0", Group: "server", Complexity: "O(1)",
				Args: []Arg{{Name: "name", Type: "string"}}},
		}})
	for _, r := range []struct {
		name, summary string
		flags         Flag
		h             Handler
	}{
		{"readonly", "Enables read queries for a connection to a cluster replica node", Loading | Stale | Fast,
			func(c *Ctx, args [][]byte) { setReadOnly(c, true) }},
		{"readwrite", "Disables read queries for a connection to a cluster replica node", Loading | Stale | Fast,
			func(c *Ctx, args [][]byte) { setReadOnly(c, false) }},
		{"asking", "Sent by cluster clients after an -ASK redirect", Fast, clusterDisabled},
	} {
		register(&Spec{Name: r.name, Arity: 1, Flags: r.flags, ACL: []string{"connection"}, Handler: r.h,
			Summary: r.summary, Since: "3.0.0", Group: "cluster", Complexity: "O(1)"})
	}
}

// setReadOnly is READONLY (on) and READWRITE: the client's reads on a
// replica stop (or start again) being redirected (CLIENT CAPA redirect).
func setReadOnly(c *Ctx, on bool) {
	if c.Client != nil {
		c.Client.ReadOnly = on
	}
	c.W.OK()
}

// cmdModuleLoad is MODULE LOAD and LOADEX, once enable-module-command
// allows them: no file is a module Radish can load.
func cmdModuleLoad(c *Ctx, args [][]byte) {
	c.W.Error("ERR Error loading the extension. Please check the server logs.")
}

func cmdModuleHelp(c *Ctx, args [][]byte) {
	kvHelp(c, args[0], []string{
		"LIST",
		"    Return a list of loaded modules.",
		"LOAD <path> [<arg> ...]",
		"    Load a module library from <path>, passing to it any optional arguments.",
		"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
		"    Load a module library from <path>, while passing it module configurations and optional arguments.",
		"UNLOAD <name>",
		"    Unload a module.",
	})
}

package command

// The ACL command (Redis 7.0's rows: flags, arity, categories and docs).
// Its subcommands run on the connection's shard and are the server's:
// Server.ACL runs them on the users every shard shares (package acl).

func init() {
	admin := Admin | NoScript | Loading | Stale
	sub := func(name string, arity int, flags Flag, since, summary, complexity string, args []Arg) *Spec {
		return &Spec{Name: "acl|" + name, Arity: arity, Flags: flags, Handler: cmdACL,
			Summary: summary, Since: since, Group: "server", Complexity: complexity, Args: args}
	}
	users := "O(N). Where N is the number of configured users."
	setuser := sub("setuser", -3, admin, "6.0.0", "Modify or create the rules for a specific ACL user",
		"O(N). Where N is the number of rules provided.", []Arg{
			{Name: "username", Type: "string"},
			{Name: "rule", Type: "string", Flags: ArgOptional | ArgMultiple}})
	setuser.Redact = redactFrom(2)
	setuser.History = [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."},
		{"7.0.0", "Added selectors and key based permissions."}}
	getuser := sub("getuser", 3, admin, "6.0.0", "Get the rules for a specific ACL user",
		"O(N). Where N is the number of password, command and pattern rules that the user has.",
		[]Arg{{Name: "username", Type: "string"}})
	getuser.History = [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."},
		{"7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}}
	register(&Spec{Name: "acl", Arity: -2, Summary: "A container for Access List Control commands ", // sic, as Redis
		Since: "6.0.0", Group: "server", Complexity: "Depends on subcommand.",
		Sub: []*Spec{
			sub("cat", -2, NoScript|Loading|Stale, "6.0.0", "List the ACL categories or the commands inside a category",
				"O(1) since the categories and commands are a fixed set.",
				[]Arg{{Name: "categoryname", Type: "string", Flags: ArgOptional}}),
			sub("deluser", -3, admin, "6.0.0", "Remove the specified ACL users and the associated rules",
				"O(1) amortized time considering the typical user.",
				[]Arg{{Name: "username", Type: "string", Flags: ArgMultiple}}),
			sub("dryrun", -4, admin, "7.0.0", "Returns whether the user can execute the given command without executing the command.",
				"O(1).", []Arg{{Name: "username", Type: "string"}, {Name: "command", Type: "string"},
					{Name: "arg", Type: "string", Flags: ArgOptional | ArgMultiple}}),
			sub("genpass", -2, NoScript|Loading|Stale, "6.0.0", "Generate a pseudorandom secure password to use for ACL users",
				"O(1)", []Arg{{Name: "bits", Type: "integer", Flags: ArgOptional}}),
			getuser,
			sub("help", 2, Loading|Stale, "6.0.0", "Show helpful text about the different subcommands", "O(1)", nil),
			sub("list", 2, admin, "6.0.0", "List the current ACL rules in ACL config file format", users, nil),
			sub("load", 2, admin, "6.0.0", "Reload the ACLs from the configured ACL file", users, nil),
			sub("log", -2, admin, "6.0.0", "List latest events denied because of ACLs in place",
				"O(N) with N being the number of entries shown.", []Arg{{Name: "operation", Type: "oneof", Flags: ArgOptional,
					Args: []Arg{{Name: "count", Type: "integer"}, {Name: "reset", Type: "pure-token", Token: "RESET"}}}}),
			sub("save", 2, admin, "6.0.0", "Save the current ACL rules in the configured ACL file", users, nil),
			setuser,
			sub("users", 2, admin, "6.0.0", "List the username of all the configured ACL rules", users, nil),
			sub("whoami", 2, NoScript|Loading|Stale, "6.0.0", "Return the name of the user associated to the current connection", "O(1)", nil),
		}})
}

func cmdACL(c *Ctx, args [][]byte) { c.Server.ACL(c, args) }

package command

// CLUSTER outside a cluster, as Redis 7.0 without cluster-enabled: every
// subcommand, once its arity is right, answers that cluster support is
// disabled (Radish shards its keyspace itself and is no cluster node;
// INFO says cluster_enabled:0). The rows are Redis's (its recorded COMMAND
// INFO and DOCS), for COMMAND.

func init() {
	adm := Admin | Stale | NoAsyncLoading
	register(&Spec{Name: "cluster", Arity: -2, Summary: "A container for cluster commands", Since: "3.0.0",
		Group: "cluster", Complexity: "Depends on subcommand.",
		Sub: []*Spec{
			clusterSub("addslots", -3, adm, "Assign new hash slots to receiving node", "3.0.0",
				"O(N) where N is the total number of hash slot arguments",
				Arg{Name: "slot", Type: "integer", Flags: ArgMultiple}),
			clusterSub("addslotsrange", -4, adm, "Assign new hash slots to receiving node", "7.0.0",
				"O(N) where N is the total number of the slots between the start slot and end slot arguments.",
				Arg{Name: "start-slot_end-slot", Type: "block", Flags: ArgMultiple, Args: []Arg{{Name: "start-slot", Type: "integer"}, {Name: "end-slot", Type: "integer"}}}),
			nondet(clusterSub("bumpepoch", 2, adm, "Advance the cluster config epoch", "3.0.0",
				"O(1)")),
			nondet(clusterSub("count-failure-reports", 3, Admin|Stale, "Return the number of failure reports active for a given node", "3.0.0",
				"O(N) where N is the number of failure reports",
				Arg{Name: "node-id", Type: "string"})),
			clusterSub("countkeysinslot", 3, Stale, "Return the number of local keys in the specified hash slot", "3.0.0",
				"O(1)",
				Arg{Name: "slot", Type: "integer"}),
			clusterSub("delslots", -3, adm, "Set hash slots as unbound in receiving node", "3.0.0",
				"O(N) where N is the total number of hash slot arguments",
				Arg{Name: "slot", Type: "integer", Flags: ArgMultiple}),
			clusterSub("delslotsrange", -4, adm, "Set hash slots as unbound in receiving node", "7.0.0",
				"O(N) where N is the total number of the slots between the start slot and end slot arguments.",
				Arg{Name: "start-slot_end-slot", Type: "block", Flags: ArgMultiple, Args: []Arg{{Name: "start-slot", Type: "integer"}, {Name: "end-slot", Type: "integer"}}}),
			clusterSub("failover", -2, adm, "Forces a replica to perform a manual failover of its master.", "3.0.0",
				"O(1)",
				Arg{Name: "options", Type: "oneof", Flags: ArgOptional, Args: []Arg{{Name: "force", Type: "pure-token", Token: "FORCE"}, {Name: "takeover", Type: "pure-token", Token: "TAKEOVER"}}}),
			clusterSub("flushslots", 2, adm, "Delete a node's own slots information", "3.0.0",
				"O(1)"),
			clusterSub("forget", 3, adm, "Remove a node from the nodes table", "3.0.0",
				"O(1)",
				Arg{Name: "node-id", Type: "string"}),
			nondet(clusterSub("getkeysinslot", 4, Stale, "Return local key names in the specified hash slot", "3.0.0",
				"O(log(N)) where N is the number of requested keys",
				Arg{Name: "slot", Type: "integer"},
				Arg{Name: "count", Type: "integer"})),
			clusterSub("help", 2, Loading|Stale, "Show helpful text about the different subcommands", "5.0.0",
				"O(1)"),
			nondet(clusterSub("info", 2, Stale, "Provides info about Redis Cluster node state", "3.0.0",
				"O(1)")),
			clusterSub("keyslot", 3, Stale, "Returns the hash slot of the specified key", "3.0.0",
				"O(N) where N is the number of bytes in the key",
				Arg{Name: "key", Type: "string"}),
			nondet(clusterSub("links", 2, Stale, "Returns a list of all TCP links to and from peer nodes in cluster", "7.0.0",
				"O(N) where N is the total number of Cluster nodes")),
			func() *Spec {
				s := clusterSub("meet", -4, adm, "Force a node cluster to handshake with another node", "3.0.0",
					"O(1)",
					Arg{Name: "ip", Type: "string"},
					Arg{Name: "port", Type: "integer"},
					Arg{Name: "cluster_bus_port", Type: "integer", Since: "4.0.0", Flags: ArgOptional})
				s.History = [][2]string{{"4.0.0", "Added the optional `cluster_bus_port` argument."}}
				return s
			}(),
			clusterSub("myid", 2, Stale, "Return the node id", "3.0.0",
				"O(1)"),
			nondet(clusterSub("nodes", 2, Stale, "Get Cluster config for the node", "3.0.0",
				"O(N) where N is the total number of Cluster nodes")),
			nondet(clusterSub("replicas", 3, Admin|Stale, "List replica nodes of the specified master node", "5.0.0",
				"O(1)",
				Arg{Name: "node-id", Type: "string"})),
			clusterSub("replicate", 3, adm, "Reconfigure a node as a replica of the specified master node", "3.0.0",
				"O(1)",
				Arg{Name: "node-id", Type: "string"}),
			clusterSub("reset", -2, Admin|NoScript|Stale, "Reset a Redis Cluster node", "3.0.0",
				"O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect.",
				Arg{Name: "hard_soft", Type: "oneof", Flags: ArgOptional, Args: []Arg{{Name: "hard", Type: "pure-token", Token: "HARD"}, {Name: "soft", Type: "pure-token", Token: "SOFT"}}}),
			clusterSub("saveconfig", 2, adm, "Forces the node to save cluster state on disk", "3.0.0",
				"O(1)"),
			clusterSub("set-config-epoch", 3, adm, "Set the configuration epoch in a new node", "3.0.0",
				"O(1)",
				Arg{Name: "config-epoch", Type: "integer"}),
			clusterSub("setslot", -4, adm, "Bind a hash slot to a specific node", "3.0.0",
				"O(1)",
				Arg{Name: "slot", Type: "integer"},
				Arg{Name: "subcommand", Type: "oneof", Args: []Arg{{Name: "node-id", Type: "string", Token: "IMPORTING"}, {Name: "node-id", Type: "string", Token: "MIGRATING"}, {Name: "node-id", Type: "string", Token: "NODE"}, {Name: "stable", Type: "pure-token", Token: "STABLE"}}}),
			nondet(clusterSub("shards", 2, Stale, "Get array of cluster slots to node mappings", "7.0.0",
				"O(N) where N is the total number of cluster nodes")),
			func() *Spec {
				s := clusterSub("slaves", 3, Admin|Stale, "List replica nodes of the specified master node", "3.0.0",
					"O(1)",
					Arg{Name: "node-id", Type: "string"})
				s.Tips = []string{"nondeterministic_output"}
				s.DocFlags = DocDeprecated
				s.DeprecatedSince = "5.0.0"
				s.ReplacedBy = "`CLUSTER REPLICAS`"
				return s
			}(),
			func() *Spec {
				s := clusterSub("slots", 2, Stale, "Get array of Cluster slot to node mappings", "3.0.0",
					"O(N) where N is the total number of Cluster nodes")
				s.Tips = []string{"nondeterministic_output"}
				s.DocFlags = DocDeprecated
				s.DeprecatedSince = "7.0.0"
				s.ReplacedBy = "`CLUSTER SHARDS`"
				s.History = [][2]string{{"4.0.0", "Added node IDs."}, {"7.0.0", "Added additional networking metadata field."}}
				return s
			}(),
		}})
}

// nondet gives s the tip nondeterministic_output.
func nondet(s *Spec) *Spec {
	s.Tips = []string{"nondeterministic_output"}
	return s
}

// clusterSub is a CLUSTER subcommand's row.
func clusterSub(name string, arity int, flags Flag, summary, since, complexity string, args ...Arg) *Spec {
	return &Spec{Name: "cluster|" + name, Arity: arity, Flags: flags, Handler: clusterDisabled,
		Summary: summary, Since: since, Group: "cluster", Complexity: complexity, Args: args}
}

// clusterDisabled is every CLUSTER subcommand's reply.
func clusterDisabled(c *Ctx, args [][]byte) { c.W.Error(errClusterDisabled) }

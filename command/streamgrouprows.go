package command

// The rows of the consumer group commands (as Redis 7.0 declares them);
// the handlers are in streamgroup.go, the engine's side in
// engine/streamgroup.go.

func init() {
	register(streamGroupSpecs...)
	register(xgroupSpec)
}

var streamGroupSpecs = []*Spec{
	{
		Name: "xreadgroup", Arity: -7,
		Flags: Write | Blocking,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Keyword: "STREAMS", KeywordFrom: 4, LastKey: -1, Step: 1, Limit: 2},
		},
		WritesRO: true,
		Handler:  CmdXReadGroup, Propagate: propXReadGroup,
		Summary: "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
		Since:   "5.0.0", Group: "stream",
		Complexity: "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
		Args: []Arg{
			{Name: "group_consumer", Type: "block", Token: "GROUP", Args: []Arg{
				{Name: "group", Type: "string"},
				{Name: "consumer", Type: "string"},
			}},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
			{Name: "milliseconds", Type: "integer", Token: "BLOCK", Flags: ArgOptional},
			{Name: "noack", Type: "pure-token", Token: "NOACK", Flags: ArgOptional},
			{Name: "streams", Type: "block", Token: "STREAMS", Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
				{Name: "id", Type: "string", Flags: ArgMultiple},
			}},
		},
	},
	{
		Name: "xack", Arity: -4,
		Flags: Write | Fast,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXAck,
		Summary: "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(1) for each message ID processed.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "group", Type: "string"},
			{Name: "id", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "xpending", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"stream"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXPending,
		Summary: "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
		History: [][2]string{
			{"6.2.0", "Added the `IDLE` option and exclusive range intervals."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "group", Type: "string"},
			{Name: "filters", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "min-idle-time", Type: "integer", Token: "IDLE", Since: "6.2.0", Flags: ArgOptional},
				{Name: "start", Type: "string"},
				{Name: "end", Type: "string"},
				{Name: "count", Type: "integer"},
				{Name: "consumer", Type: "string", Flags: ArgOptional},
			}},
		},
	},
	{
		Name: "xclaim", Arity: -6,
		Flags: Write | Fast,
		ACL:   []string{"stream"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXClaim, Propagate: propXClaim,
		Summary: "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(log N) with N being the number of messages in the PEL of the consumer group.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "group", Type: "string"},
			{Name: "consumer", Type: "string"},
			{Name: "min-idle-time", Type: "string"},
			{Name: "id", Type: "string", Flags: ArgMultiple},
			{Name: "ms", Type: "integer", Token: "IDLE", Flags: ArgOptional},
			{Name: "unix-time-milliseconds", Type: "unix-time", Token: "TIME", Flags: ArgOptional},
			{Name: "count", Type: "integer", Token: "RETRYCOUNT", Flags: ArgOptional},
			{Name: "force", Type: "pure-token", Token: "FORCE", Flags: ArgOptional},
			{Name: "justid", Type: "pure-token", Token: "JUSTID", Flags: ArgOptional},
			{Name: "id", Type: "string", Token: "LASTID", Flags: ArgOptional},
		},
	},
	{
		Name: "xautoclaim", Arity: -6,
		Flags: Write | Fast,
		ACL:   []string{"stream"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXAutoClaim, Propagate: propXClaim,
		Summary: "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
		Since:   "6.2.0", Group: "stream",
		Complexity: "O(1) if COUNT is small.",
		History: [][2]string{
			{"7.0.0", "Added an element to the reply array, containing deleted entries the command cleared from the PEL"},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "group", Type: "string"},
			{Name: "consumer", Type: "string"},
			{Name: "min-idle-time", Type: "string"},
			{Name: "start", Type: "string"},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
			{Name: "justid", Type: "pure-token", Token: "JUSTID", Flags: ArgOptional},
		},
	},
}

// xgroupSpec is XGROUP.
var xgroupSpec = &Spec{
	Name: "xgroup", Arity: -2,
	Flags:   0,
	Summary: "A container for consumer groups commands",
	Since:   "5.0.0", Group: "stream",
	Complexity: "Depends on subcommand.",
	Sub: []*Spec{
		{
			Name: "xgroup|create", Arity: -5,
			Flags: Write | DenyOOM,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXGroupCreate,
			Summary: "Create a consumer group.",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
			History: [][2]string{
				{"7.0.0", "Added the `entries_read` named argument."},
			},
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "groupname", Type: "string"},
				{Name: "id", Type: "oneof", Args: []Arg{
					{Name: "id", Type: "string"},
					{Name: "new_id", Type: "pure-token", Token: "$"},
				}},
				{Name: "mkstream", Type: "pure-token", Token: "MKSTREAM", Flags: ArgOptional},
				{Name: "entries_read", Type: "integer", Token: "ENTRIESREAD", Flags: ArgOptional},
			},
		},
		{
			Name: "xgroup|createconsumer", Arity: 5,
			Flags: Write | DenyOOM,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXGroupCreateConsumer,
			Summary: "Create a consumer in a consumer group.",
			Since:   "6.2.0", Group: "stream",
			Complexity: "O(1)",
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "groupname", Type: "string"},
				{Name: "consumername", Type: "string"},
			},
		},
		{
			Name: "xgroup|delconsumer", Arity: 5,
			Flags: Write,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRW | KeyDelete, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXGroupDelConsumer,
			Summary: "Delete a consumer from a consumer group.",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "groupname", Type: "string"},
				{Name: "consumername", Type: "string"},
			},
		},
		{
			Name: "xgroup|destroy", Arity: 4,
			Flags: Write,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRW | KeyDelete, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXGroupDestroy,
			Summary: "Destroy a consumer group.",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(N) where N is the number of entries in the group's pending entries list (PEL).",
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "groupname", Type: "string"},
			},
		},
		{
			Name: "xgroup|help", Arity: 2,
			Flags:   Loading | Stale,
			ACL:     []string{"stream"},
			Handler: CmdXGroupHelp,
			Summary: "Show helpful text about the different subcommands",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
		},
		{
			Name: "xgroup|setid", Arity: -5,
			Flags: Write,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRW | KeyUpdate, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXGroupSetID,
			Summary: "Set a consumer group to an arbitrary last delivered ID value.",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
			History: [][2]string{
				{"7.0.0", "Added the optional `entries_read` argument."},
			},
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "groupname", Type: "string"},
				{Name: "id", Type: "oneof", Args: []Arg{
					{Name: "id", Type: "string"},
					{Name: "new_id", Type: "pure-token", Token: "$"},
				}},
				{Name: "entries_read", Type: "integer", Token: "ENTRIESREAD", Flags: ArgOptional},
			},
		},
	},
}

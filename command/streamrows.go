package command

// This file is the stream family's rows (as Redis 7.0 declares them);
// the handlers are in streamcmd.go, the engine's side in engine/stream.go.

func init() {
	register(streamSpecs...)
	register(xinfoSpec)
	keyEvents["xadd"] = &keyEvent{on: xaddEvents}
	keyEvents["xtrim"] = each("xtrim", 't')
	keyEvents["xdel"] = each("xdel", 't')
	keyEvents["xsetid"] = each("xsetid", 't')
}

// xaddEvents: XADD's "xadd", then "xtrim" when its trim removed entries
// (the engine counts one change for the entry added, one for each entry
// trimmed).
func xaddEvents(k *KeyWrite) {
	k.Emit('t', "xadd", k.Args[1])
	if k.Changes > 1 {
		k.Emit('t', "xtrim", k.Args[1])
	}
}

var streamSpecs = []*Spec{
	{
		Name: "xadd", Arity: -5,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"stream"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Notes: "UPDATE instead of INSERT because of the optional trimming feature", Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXAdd, Propagate: propXAdd,
		Summary: "Appends a new entry to a stream",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
		History: [][2]string{
			{"6.2.0", "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option."},
			{"7.0.0", "Added support for the `<ms>-*` explicit ID form."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "nomkstream", Type: "pure-token", Token: "NOMKSTREAM", Since: "6.2.0", Flags: ArgOptional},
			{Name: "trim", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "strategy", Type: "oneof", Args: []Arg{
					{Name: "maxlen", Type: "pure-token", Token: "MAXLEN"},
					{Name: "minid", Type: "pure-token", Token: "MINID", Since: "6.2.0"},
				}},
				{Name: "operator", Type: "oneof", Flags: ArgOptional, Args: []Arg{
					{Name: "equal", Type: "pure-token", Token: "="},
					{Name: "approximately", Type: "pure-token", Token: "~"},
				}},
				{Name: "threshold", Type: "string"},
				{Name: "count", Type: "integer", Token: "LIMIT", Since: "6.2.0", Flags: ArgOptional},
			}},
			{Name: "id_or_auto", Type: "oneof", Args: []Arg{
				{Name: "auto_id", Type: "pure-token", Token: "*"},
				{Name: "id", Type: "string"},
			}},
			{Name: "field_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "field", Type: "string"},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		Name: "xlen", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXLen,
		Summary: "Return the number of entries in a stream",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "xrange", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXRange,
		Summary: "Return a range of elements in a stream, with IDs matching the specified IDs interval",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
		History: [][2]string{
			{"6.2.0", "Added exclusive ranges."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "start", Type: "string"},
			{Name: "end", Type: "string"},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "xrevrange", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXRevRange,
		Summary: "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
		History: [][2]string{
			{"6.2.0", "Added exclusive ranges."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "end", Type: "string"},
			{Name: "start", Type: "string"},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "xdel", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXDel,
		Summary: "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(1) for each single item to delete in the stream, regardless of the stream size.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "id", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "xtrim", Arity: -4,
		Flags: Write,
		ACL:   []string{"stream"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXTrim, Propagate: propXTrim,
		Summary: "Trims the stream to (approximately if '~' is passed) a certain size",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
		History: [][2]string{
			{"6.2.0", "Added the `MINID` trimming strategy and the `LIMIT` option."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "trim", Type: "block", Args: []Arg{
				{Name: "strategy", Type: "oneof", Args: []Arg{
					{Name: "maxlen", Type: "pure-token", Token: "MAXLEN"},
					{Name: "minid", Type: "pure-token", Token: "MINID", Since: "6.2.0"},
				}},
				{Name: "operator", Type: "oneof", Flags: ArgOptional, Args: []Arg{
					{Name: "equal", Type: "pure-token", Token: "="},
					{Name: "approximately", Type: "pure-token", Token: "~"},
				}},
				{Name: "threshold", Type: "string"},
				{Name: "count", Type: "integer", Token: "LIMIT", Since: "6.2.0", Flags: ArgOptional},
			}},
		},
	},
	{
		Name: "xsetid", Arity: -3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdXSetID,
		Summary: "An internal command for replicating stream values",
		Since:   "5.0.0", Group: "stream",
		Complexity: "O(1)",
		History: [][2]string{
			{"7.0.0", "Added the `entries_added` and `max_deleted_entry_id` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "last-id", Type: "string"},
			{Name: "entries_added", Type: "integer", Token: "ENTRIESADDED", Since: "7.0.0", Flags: ArgOptional},
			{Name: "max_deleted_entry_id", Type: "string", Token: "MAXDELETEDID", Since: "7.0.0", Flags: ArgOptional},
		},
	},
	{
		Name: "xread", Arity: -4,
		Flags: ReadOnly | Blocking,
		ACL:   []string{"stream"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Keyword: "STREAMS", KeywordFrom: 1, LastKey: -1, Step: 1, Limit: 2},
		},
		Handler: CmdXRead,
		Summary: "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
		Since:   "5.0.0", Group: "stream",
		Complexity: "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
		Args: []Arg{
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
			{Name: "milliseconds", Type: "integer", Token: "BLOCK", Flags: ArgOptional},
			{Name: "streams", Type: "block", Token: "STREAMS", Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
				{Name: "id", Type: "string", Flags: ArgMultiple},
			}},
		},
	},
}

// xinfoSpec is XINFO.
var xinfoSpec = &Spec{
	Name: "xinfo", Arity: -2,
	Flags:   0,
	Summary: "A container for stream introspection commands",
	Since:   "5.0.0", Group: "stream",
	Complexity: "Depends on subcommand.",
	Sub: []*Spec{
		{
			Name: "xinfo|consumers", Arity: 4,
			Flags: ReadOnly,
			ACL:   []string{"stream"},
			Tips:  []string{"nondeterministic_output"},
			KeySpecs: []KeySpec{
				{Flags: KeyRO | KeyAccess, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXInfoConsumers,
			Summary: "List the consumers in a consumer group",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "groupname", Type: "string"},
			},
		},
		{
			Name: "xinfo|groups", Arity: 3,
			Flags: ReadOnly,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRO | KeyAccess, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXInfoGroups,
			Summary: "List the consumer groups of a stream",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
			History: [][2]string{
				{"7.0.0", "Added the `entries-read` and `lag` fields"},
			},
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
			},
		},
		{
			Name: "xinfo|help", Arity: 2,
			Flags:   Loading | Stale,
			ACL:     []string{"stream"},
			Handler: CmdXInfoHelp,
			Summary: "Show helpful text about the different subcommands",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
		},
		{
			Name: "xinfo|stream", Arity: -3,
			Flags: ReadOnly,
			ACL:   []string{"stream"},
			KeySpecs: []KeySpec{
				{Flags: KeyRO | KeyAccess, Index: 2, LastKey: 0, Step: 1},
			},
			Handler: CmdXInfoStream,
			Summary: "Get information about a stream",
			Since:   "5.0.0", Group: "stream",
			Complexity: "O(1)",
			History: [][2]string{
				{"6.0.0", "Added the `FULL` modifier."},
				{"7.0.0", "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"},
			},
			Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "full", Type: "block", Token: "FULL", Flags: ArgOptional, Args: []Arg{
					{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
				}},
			},
		},
	},
}

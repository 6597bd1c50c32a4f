package command

import (
	"math"
	"strconv"
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the keyspace (generic) family: rows as Redis 7.0 declares
// them, and handlers. Handlers run on the shard that owns their keys; DEL,
// UNLINK, EXISTS and TOUCH answer for the part of the keys the shard got,
// and the AllShards rows (KEYS, DBSIZE, RANDOMKEY, FLUSHDB, FLUSHALL,
// SWAPDB) answer for the shard's own data. SCAN answers for one shard's
// cursor space (see CmdScan).

func init() { register(keyspaceSpecs...) }

var keyspaceSpecs = []*Spec{
	{
		Name: "del", Arity: -2,
		Flags: Write,
		ACL:   []string{"keyspace"},
		Tips:  []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		KeySpecs: []KeySpec{
			{Flags: KeyRM | KeyDelete, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdDel,
		Summary: "Delete a key",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "unlink", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		Tips:  []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		KeySpecs: []KeySpec{
			{Flags: KeyRM | KeyDelete, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdUnlink,
		Summary: "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.",
		Since:   "4.0.0", Group: "generic",
		Complexity: "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "exists", Arity: -2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		Tips:  []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdExists,
		Summary: "Determine if a key exists",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(N) where N is the number of keys to check.",
		History: [][2]string{
			{"3.0.3", "Accepts multiple `key` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "touch", Arity: -2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		Tips:  []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdTouch,
		Summary: "Alters the last access time of a key(s). Returns the number of existing keys specified.",
		Since:   "3.2.1", Group: "generic",
		Complexity: "O(N) where N is the number of keys that will be touched.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "type", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdType,
		Summary: "Determine the type stored at key",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "expire", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdExpire,
		Propagate: propExpire,
		Summary:   "Set a key's time to live in seconds",
		Since:     "1.0.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "seconds", Type: "integer"},
			{Name: "condition", Type: "oneof", Since: "7.0.0", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
				{Name: "gt", Type: "pure-token", Token: "GT"},
				{Name: "lt", Type: "pure-token", Token: "LT"},
			}},
		},
	},
	{
		Name: "pexpire", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdPExpire,
		Propagate: propExpire,
		Summary:   "Set a key's time to live in milliseconds",
		Since:     "2.6.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "milliseconds", Type: "integer"},
			{Name: "condition", Type: "oneof", Since: "7.0.0", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
				{Name: "gt", Type: "pure-token", Token: "GT"},
				{Name: "lt", Type: "pure-token", Token: "LT"},
			}},
		},
	},
	{
		Name: "expireat", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdExpireAt,
		Propagate: propExpire,
		Summary:   "Set the expiration for a key as a UNIX timestamp",
		Since:     "1.2.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "unix-time-seconds", Type: "unix-time"},
			{Name: "condition", Type: "oneof", Since: "7.0.0", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
				{Name: "gt", Type: "pure-token", Token: "GT"},
				{Name: "lt", Type: "pure-token", Token: "LT"},
			}},
		},
	},
	{
		Name: "pexpireat", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdPExpireAt,
		Propagate: propExpire,
		Summary:   "Set the expiration for a key as a UNIX timestamp specified in milliseconds",
		Since:     "2.6.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "unix-time-milliseconds", Type: "unix-time"},
			{Name: "condition", Type: "oneof", Since: "7.0.0", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
				{Name: "gt", Type: "pure-token", Token: "GT"},
				{Name: "lt", Type: "pure-token", Token: "LT"},
			}},
		},
	},
	{
		Name: "ttl", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdTTL,
		Summary: "Get the time to live for a key in seconds",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"2.8.0", "Added the -2 reply."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "pttl", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdPTTL,
		Summary: "Get the time to live for a key in milliseconds",
		Since:   "2.6.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"2.8.0", "Added the -2 reply."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "expiretime", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdExpireTime,
		Summary: "Get the expiration Unix timestamp for a key",
		Since:   "7.0.0", Group: "generic",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "pexpiretime", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdPExpireTime,
		Summary: "Get the expiration Unix timestamp for a key in milliseconds",
		Since:   "7.0.0", Group: "generic",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "persist", Arity: 2,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdPersist,
		Summary: "Remove the expiration from a key",
		Since:   "2.2.0", Group: "generic",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "keys", Arity: 2,
		Flags:   ReadOnly,
		ACL:     []string{"keyspace", "dangerous"},
		Tips:    []string{"request_policy:all_shards", "nondeterministic_output_order"},
		Handler: CmdKeys,
		Summary: "Find all keys matching the given pattern",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
		Args: []Arg{
			{Name: "pattern", Type: "pattern"},
		},
	},
	{
		Name: "scan", Arity: -2,
		Flags:   ReadOnly,
		ACL:     []string{"keyspace"},
		Tips:    []string{"nondeterministic_output", "request_policy:special"},
		Handler: CmdScan,
		Route:   func([][]byte) Route { return Route{Cursor: 1} },
		Summary: "Incrementally iterate the keys space",
		Since:   "2.8.0", Group: "generic",
		Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
		History: [][2]string{
			{"6.0.0", "Added the `TYPE` subcommand."},
		},
		Args: []Arg{
			{Name: "cursor", Type: "integer"},
			{Name: "pattern", Type: "pattern", Token: "MATCH", Flags: ArgOptional},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
			{Name: "type", Type: "string", Token: "TYPE", Since: "6.0.0", Flags: ArgOptional},
		},
	},
	{
		Name: "randomkey", Arity: 1,
		Flags:   ReadOnly,
		ACL:     []string{"keyspace"},
		Tips:    []string{"request_policy:all_shards", "nondeterministic_output"},
		Handler: CmdRandomKey,
		// The reply is one key, not an array: Redis's default merge says
		// nothing of it. Any shard's key is a random key.
		Merge:   MergeAny,
		Summary: "Return a random key from the keyspace",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(1)",
	},
	{
		Name: "rename", Arity: 3,
		Flags: Write,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyOW | KeyUpdate, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdRename,
		Summary: "Rename a key",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "newkey", Type: "key", KeySpecIndex: 1},
		},
	},
	{
		Name: "renamenx", Arity: 3,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyOW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdRenameNX,
		Summary: "Rename a key, only if the new key does not exist",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(1)",
		History: [][2]string{
			{"3.2.0", "The command no longer returns an error when source and destination names are the same."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "newkey", Type: "key", KeySpecIndex: 1},
		},
	},
	{
		Name: "copy", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyOW | KeyUpdate, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdCopy,
		OtherDB: otherDBCopy,
		Summary: "Copy a key",
		Since:   "6.2.0", Group: "generic",
		Complexity: "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
		Args: []Arg{
			{Name: "source", Type: "key", KeySpecIndex: 0},
			{Name: "destination", Type: "key", KeySpecIndex: 1},
			{Name: "destination-db", Type: "integer", Token: "DB", Flags: ArgOptional},
			{Name: "replace", Type: "pure-token", Token: "REPLACE", Flags: ArgOptional},
		},
	},
	{
		Name: "move", Arity: 3,
		Flags: Write | Fast,
		ACL:   []string{"keyspace"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdMove,
		OtherDB: otherDBMove,
		Summary: "Move a key to another database",
		Since:   "1.0.0", Group: "generic",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "db", Type: "integer"},
		},
	},
	{
		Name: "swapdb", Arity: 3,
		Flags:     Write | Fast,
		ACL:       []string{"keyspace", "dangerous"},
		Handler:   CmdSwapDB,
		Propagate: propSwapDB,
		Touches:   true,
		// Redis states no tips (a cluster has only database 0); every Radish
		// shard holds part of both databases and swaps its own.
		AllShards: true, Merge: MergeAllOK,
		Summary: "Swaps two Redis databases",
		Since:   "4.0.0", Group: "server",
		Complexity: "O(N) where N is the count of clients watching or blocking on keys from both databases.",
		Args: []Arg{
			{Name: "index1", Type: "integer"},
			{Name: "index2", Type: "integer"},
		},
	},
	{
		Name: "dbsize", Arity: 1,
		Flags:   ReadOnly | Fast,
		ACL:     []string{"keyspace"},
		Tips:    []string{"request_policy:all_shards", "response_policy:agg_sum"},
		Handler: CmdDBSize,
		Summary: "Return the number of keys in the selected database",
		Since:   "1.0.0", Group: "server",
		Complexity: "O(1)",
	},
	{
		Name: "flushdb", Arity: -1,
		Flags:     Write,
		ACL:       []string{"keyspace", "dangerous"},
		Tips:      []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		Handler:   CmdFlushDB,
		Propagate: propFlush(func(p *Prop) int { return p.DBIndex }),
		Touches:   true,
		Summary:   "Remove all keys from the current database",
		Since:     "1.0.0", Group: "server",
		Complexity: "O(N) where N is the number of keys in the selected database",
		History: [][2]string{
			{"4.0.0", "Added the `ASYNC` flushing mode modifier."},
			{"6.2.0", "Added the `SYNC` flushing mode modifier."},
		},
		Args: []Arg{
			{Name: "async", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "async", Type: "pure-token", Token: "ASYNC", Since: "4.0.0"},
				{Name: "sync", Type: "pure-token", Token: "SYNC", Since: "6.2.0"},
			}},
		},
	},
	{
		Name: "flushall", Arity: -1,
		Flags:     Write,
		ACL:       []string{"keyspace", "dangerous"},
		Tips:      []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		Handler:   CmdFlushAll,
		Propagate: propFlush(func(*Prop) int { return -1 }),
		Touches:   true,
		Summary:   "Remove all keys from all databases",
		Since:     "1.0.0", Group: "server",
		Complexity: "O(N) where N is the total number of keys in all databases",
		History: [][2]string{
			{"4.0.0", "Added the `ASYNC` flushing mode modifier."},
			{"6.2.0", "Added the `SYNC` flushing mode modifier."},
		},
		Args: []Arg{
			{Name: "async", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "async", Type: "pure-token", Token: "ASYNC", Since: "4.0.0"},
				{Name: "sync", Type: "pure-token", Token: "SYNC", Since: "6.2.0"},
			}},
		},
	},
	{
		Name: "object", Arity: -2,
		Flags: 0,
		Sub: []*Spec{
			{
				Name: "object|encoding", Arity: 3,
				Flags: ReadOnly,
				ACL:   []string{"keyspace"},
				Tips:  []string{"nondeterministic_output"},
				KeySpecs: []KeySpec{
					{Flags: KeyRO, Index: 2, LastKey: 0, Step: 1},
				},
				Handler: CmdObjectEncoding,
				Summary: "Inspect the internal encoding of a Redis object",
				Since:   "2.2.3", Group: "generic",
				Complexity: "O(1)",
				Args: []Arg{
					{Name: "key", Type: "key", KeySpecIndex: 0},
				},
			},
			{
				Name: "object|help", Arity: 2,
				Flags:   Loading | Stale,
				ACL:     []string{"keyspace"},
				Handler: CmdObjectHelp,
				Summary: "Show helpful text about the different subcommands",
				Since:   "6.2.0", Group: "generic",
				Complexity: "O(1)",
			},
			{
				Name: "object|freq", Arity: 3,
				Flags: ReadOnly,
				ACL:   []string{"keyspace"},
				Tips:  []string{"nondeterministic_output"},
				KeySpecs: []KeySpec{
					{Flags: KeyRO, Index: 2, LastKey: 0, Step: 1},
				},
				Handler: CmdObjectFreq,
				Summary: "Get the logarithmic access frequency counter of a Redis object",
				Since:   "4.0.0", Group: "generic",
				Complexity: "O(1)",
				Args: []Arg{
					{Name: "key", Type: "key", KeySpecIndex: 0},
				},
			},
			{
				Name: "object|idletime", Arity: 3,
				Flags: ReadOnly,
				ACL:   []string{"keyspace"},
				Tips:  []string{"nondeterministic_output"},
				KeySpecs: []KeySpec{
					{Flags: KeyRO, Index: 2, LastKey: 0, Step: 1},
				},
				Handler: CmdObjectIdleTime,
				Summary: "Get the time since a Redis object was last accessed",
				Since:   "2.2.3", Group: "generic",
				Complexity: "O(1)",
				Args: []Arg{
					{Name: "key", Type: "key", KeySpecIndex: 0},
				},
			},
			{
				Name: "object|refcount", Arity: 3,
				Flags: ReadOnly,
				ACL:   []string{"keyspace"},
				Tips:  []string{"nondeterministic_output"},
				KeySpecs: []KeySpec{
					{Flags: KeyRO, Index: 2, LastKey: 0, Step: 1},
				},
				Handler: CmdObjectRefCount,
				Summary: "Get the number of references to the value of the key",
				Since:   "2.2.3", Group: "generic",
				Complexity: "O(1)",
				Args: []Arg{
					{Name: "key", Type: "key", KeySpecIndex: 0},
				},
			},
		},
		Summary: "A container for object introspection commands",
		Since:   "2.2.3", Group: "generic",
		Complexity: "Depends on subcommand.",
	},
	{
		Name: "debug", Arity: -2,
		Flags:     Admin | NoScript | Loading | Stale,
		Protected: "debug",
		Handler:   CmdDebug,
		Route:     routeDebug,
		// DEBUG POPULATE runs on every shard (routeDebug); Redis, one
		// process, states no tips.
		Merge:   MergeAllOK,
		Summary: "A container for debugging commands",
		Since:   "1.0.0", Group: "server",
		Complexity: "Depends on subcommand.",
		DocFlags:   DocSysCmd,
	},
}

// CmdDel is DEL key [key ...]: the number of keys removed.
func CmdDel(c *Ctx, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		if c.DB.Delete(k, c.Now) {
			n++
		}
	}
	c.W.Int(int64(n))
}

// CmdUnlink is UNLINK key [key ...]: DEL, with a large value freed in
// slices over the next loop turns (engine DB.Unlink).
func CmdUnlink(c *Ctx, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		if c.DB.Unlink(k, c.Now) {
			n++
		}
	}
	c.W.Int(int64(n))
}

// CmdExists is EXISTS key [key ...]: how many of the keys exist, a key
// given twice counting twice.
func CmdExists(c *Ctx, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		if c.DB.Exists(k, c.Now) {
			n++
		}
	}
	c.W.Int(int64(n))
}

// CmdTouch is TOUCH key [key ...]: how many of the keys exist; each is
// touched (its LRU/LFU clock updated), even for a NO-TOUCH client.
func CmdTouch(c *Ctx, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		if c.DB.Touch(k, c.Now) {
			n++
		}
	}
	c.W.Int(int64(n))
}

// CmdType is TYPE key.
func CmdType(c *Ctx, args [][]byte) {
	c.W.Simple(c.DB.TypeOf(args[1], c.Now).String())
}

// Flags of EXPIRE's options.
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// kvExpire is Redis 7.0's expireGenericCommand: args[2] is a time in unit
// ms (seconds when seconds is set) relative to base (c.Now or 0), then NX,
// XX, GT, LT.
func kvExpire(c *Ctx, args [][]byte, base int64, seconds bool, cmd string) {
	flags := 0
	for _, opt := range args[3:] {
		switch {
		case kvIs(opt, "nx"):
			flags |= expireNX
		case kvIs(opt, "xx"):
			flags |= expireXX
		case kvIs(opt, "gt"):
			flags |= expireGT
		case kvIs(opt, "lt"):
			flags |= expireLT
		default:
			c.W.Error("ERR Unsupported option " + string(cstr(opt, -1)))
			return
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.W.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
		return
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.W.Error("ERR GT and LT options at the same time are not compatible")
		return
	}
	when, ok := kvArgInt(c, args[2])
	if !ok {
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.W.Error(kvInvalidExpire(cmd))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.W.Error(kvInvalidExpire(cmd))
		return
	}
	when += base
	key := args[1]
	cur, found := c.DB.Expiry(key, c.Now)
	if !found {
		c.W.Int(0)
		return
	}
	if flags != 0 {
		hasTTL := cur != 0
		switch {
		case flags&expireNX != 0 && hasTTL,
			flags&expireXX != 0 && !hasTTL,
			flags&expireGT != 0 && (!hasTTL || when <= cur),
			flags&expireLT != 0 && hasTTL && when >= cur:
			c.W.Int(0)
			return
		}
	}
	if when <= c.Now {
		c.DB.Delete(key, c.Now)
	} else {
		c.DB.SetExpiry(key, when, c.Now)
	}
	c.W.Int(1)
}

// CmdExpire is EXPIRE key seconds [NX|XX|GT|LT].
func CmdExpire(c *Ctx, args [][]byte) { kvExpire(c, args, c.Now, true, "expire") }

// CmdPExpire is PEXPIRE key milliseconds [NX|XX|GT|LT].
func CmdPExpire(c *Ctx, args [][]byte) { kvExpire(c, args, c.Now, false, "pexpire") }

// CmdExpireAt is EXPIREAT key unix-seconds [NX|XX|GT|LT].
func CmdExpireAt(c *Ctx, args [][]byte) { kvExpire(c, args, 0, true, "expireat") }

// CmdPExpireAt is PEXPIREAT key unix-ms [NX|XX|GT|LT].
func CmdPExpireAt(c *Ctx, args [][]byte) { kvExpire(c, args, 0, false, "pexpireat") }

// kvTTL is Redis's ttlGenericCommand: -2 no key, -1 no TTL, else the time
// left (ms or rounded seconds) or, with abs, the expiry time.
func kvTTL(c *Ctx, key []byte, ms, abs bool) {
	at, found := c.DB.Expiry(key, c.Now)
	switch {
	case !found:
		c.W.Int(-2)
	case at == 0:
		c.W.Int(-1)
	case abs && ms:
		c.W.Int(at)
	case abs:
		c.W.Int(at / 1000)
	case ms:
		c.W.Int(max(at-c.Now, 0))
	default:
		c.W.Int((max(at-c.Now, 0) + 500) / 1000)
	}
}

// CmdTTL is TTL key.
func CmdTTL(c *Ctx, args [][]byte) { kvTTL(c, args[1], false, false) }

// CmdPTTL is PTTL key.
func CmdPTTL(c *Ctx, args [][]byte) { kvTTL(c, args[1], true, false) }

// CmdExpireTime is EXPIRETIME key.
func CmdExpireTime(c *Ctx, args [][]byte) { kvTTL(c, args[1], false, true) }

// CmdPExpireTime is PEXPIRETIME key.
func CmdPExpireTime(c *Ctx, args [][]byte) { kvTTL(c, args[1], true, true) }

// CmdPersist is PERSIST key.
func CmdPersist(c *Ctx, args [][]byte) {
	if c.DB.Persist(args[1], c.Now) {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

// CmdKeys is KEYS pattern, for this shard's keys (in key order).
func CmdKeys(c *Ctx, args [][]byte) {
	var arena []byte
	var ends []int
	c.DB.Keys(args[1], c.Now, func(k []byte) bool {
		arena = append(arena, k...)
		ends = append(ends, len(arena))
		return true
	})
	c.W.Array(len(ends))
	start := 0
	for _, e := range ends {
		c.W.Bulk(arena[start:e])
		start = e
	}
}

// ScanCursorBits is how many low bits of a SCAN cursor belong to one
// shard's DB.Scan; the router keeps the shard index in the bits above.
const ScanCursorBits = 56

// ScanCursorMask selects a cursor's shard-local part.
const ScanCursorMask = 1<<ScanCursorBits - 1

// ParseScanCursor parses a client's SCAN cursor argument; the error is the
// reply text. The router uses it to find the shard a cursor resumes on.
func ParseScanCursor(b []byte) (uint64, string) {
	v, ok := num.ParseUlong(b)
	if !ok {
		return 0, "ERR invalid cursor"
	}
	return v, ""
}

// kvTypeByName maps SCAN's TYPE argument to an engine type; ok false for a
// name no key of this engine can have (Redis then filters out every key).
func kvTypeByName(name []byte) (engine.Type, bool) {
	for _, t := range []engine.Type{engine.TypeString, engine.TypeList, engine.TypeSet, engine.TypeZSet, engine.TypeHash, engine.TypeStream} {
		if strings.EqualFold(string(name), t.String()) {
			return t, true
		}
	}
	return engine.TypeNone, false
}

// CmdScan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] for this
// shard: it resumes this shard's DB.Scan at the cursor's low ScanCursorBits
// bits and replies [next, keys] with next < 1<<ScanCursorBits, 0 when this
// shard is done. The router composes shards: it sends a client cursor's
// low bits to shard cursor>>ScanCursorBits, and replies
// shard<<ScanCursorBits|next, or, when next is 0, (shard+1)<<ScanCursorBits
// (0 after the last shard).
func CmdScan(c *Ctx, args [][]byte) {
	cursor, errText := ParseScanCursor(args[1])
	if errText != "" {
		c.W.Error(errText)
		return
	}
	count := int64(10)
	var pattern, typeName []byte
	for i := 2; i < len(args); i += 2 {
		if len(args)-i < 2 {
			c.W.Error(errtext.Syntax)
			return
		}
		switch opt := args[i]; {
		case kvIs(opt, "count"):
			var ok bool
			if count, ok = kvArgInt(c, args[i+1]); !ok {
				return
			}
			if count < 1 {
				c.W.Error(errtext.Syntax)
				return
			}
		case kvIs(opt, "match"):
			pattern = args[i+1]
			if len(pattern) == 1 && pattern[0] == '*' {
				pattern = nil
			}
		case kvIs(opt, "type"):
			typeName = args[i+1]
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	typ, keepAny := engine.TypeNone, true
	if typeName != nil {
		typ, keepAny = kvTypeByName(typeName)
	}
	var arena []byte
	var ends []int
	next := c.DB.Scan(cursor&ScanCursorMask, int(min(count, math.MaxInt32)), pattern, typ, c.Now, func(k []byte) {
		if keepAny {
			arena = append(arena, k...)
			ends = append(ends, len(arena))
		}
	})
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	c.W.Array(len(ends))
	start := 0
	for _, e := range ends {
		c.W.Bulk(arena[start:e])
		start = e
	}
}

// CmdRandomKey is RANDOMKEY for this shard: a key or null.
func CmdRandomKey(c *Ctx, args [][]byte) {
	k, ok := c.DB.RandomKey(c.Now)
	c.W.BulkOrNull(k, ok)
}

// kvRename is Redis's renameGenericCommand for two keys of this shard.
func kvRename(c *Ctx, args [][]byte, nx bool) {
	src, dst := args[1], args[2]
	if !c.DB.Exists(src, c.Now) {
		c.W.Error(errtext.NoSuchKey)
		return
	}
	switch {
	case string(src) == string(dst):
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return
	case nx && c.DB.Exists(dst, c.Now):
		c.W.Int(0)
		return
	}
	c.DB.Rename(src, dst, c.Now)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// CmdRename is RENAME key newkey, both on this shard (the router plans
// a cross-shard gather otherwise).
func CmdRename(c *Ctx, args [][]byte) { kvRename(c, args, false) }

// CmdRenameNX is RENAMENX key newkey, both on this shard (a cross-shard gather
// otherwise).
func CmdRenameNX(c *Ctx, args [][]byte) { kvRename(c, args, true) }

// kvSelectDB returns database i of this shard, or replies "DB index is out
// of range".
func kvSelectDB(c *Ctx, i int) (*engine.DB, bool) {
	if i < 0 || i >= c.Store.Databases() {
		c.W.Error(errtext.DBRange)
		return nil, false
	}
	return c.Store.DB(i), true
}

// CmdCopy is COPY source destination [DB n] [REPLACE], both keys on this
// shard (the shard gathers across shards otherwise).
func CmdCopy(c *Ctx, args [][]byte) {
	dst, dstIndex := c.DB, c.DBIndex
	replace := false
	for j := 3; j < len(args); j++ {
		switch {
		case kvIs(args[j], "replace"):
			replace = true
		case kvIs(args[j], "db") && j+1 < len(args):
			i, ok := kvArgInt32(c, args[j+1], "")
			if !ok {
				return
			}
			if dst, ok = kvSelectDB(c, i); !ok {
				return
			}
			dstIndex = i
			j++
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	src, newKey := args[1], args[2]
	if dstIndex == c.DBIndex && string(src) == string(newKey) {
		c.W.Error(errtext.SameObject)
		return
	}
	rec, ok := c.DB.Export(src, c.Now)
	if !ok {
		c.W.Int(0)
		return
	}
	if dst.Exists(newKey, c.Now) && !replace {
		c.W.Int(0)
		return
	}
	dst.Import(newKey, rec)
	c.W.Int(1)
}

// CmdMove is MOVE key db.
func CmdMove(c *Ctx, args [][]byte) {
	i, ok := kvArgInt32(c, args[2], "")
	if !ok {
		return
	}
	dst, ok := kvSelectDB(c, i)
	if !ok {
		return
	}
	if i == c.DBIndex {
		c.W.Error(errtext.SameObject)
		return
	}
	key := args[1]
	if !c.DB.Exists(key, c.Now) || dst.Exists(key, c.Now) {
		c.W.Int(0)
		return
	}
	rec, _ := c.DB.Export(key, c.Now)
	dst.Import(key, rec)
	c.DB.Delete(key, c.Now)
	c.W.Int(1)
}

// CmdSwapDB is SWAPDB index1 index2, on this shard's databases.
func CmdSwapDB(c *Ctx, args [][]byte) {
	i, ok := kvArgInt32(c, args[1], "ERR invalid first DB index")
	if !ok {
		return
	}
	j, ok := kvArgInt32(c, args[2], "ERR invalid second DB index")
	if !ok {
		return
	}
	n := c.Store.Databases()
	if i < 0 || i >= n || j < 0 || j >= n {
		c.W.Error(errtext.DBRange)
		return
	}
	c.Store.SwapDB(i, j)
	c.W.OK()
}

// CmdDBSize is DBSIZE for this shard's database (keys expired but not yet
// reclaimed count, as in Redis).
func CmdDBSize(c *Ctx, args [][]byte) { c.W.Int(int64(c.DB.Len())) }

// kvFlushArgs checks FLUSHDB's and FLUSHALL's optional SYNC|ASYNC.
func kvFlushArgs(c *Ctx, args [][]byte) bool {
	if len(args) == 1 || (len(args) == 2 && (kvIs(args[1], "sync") || kvIs(args[1], "async"))) {
		return true
	}
	c.W.Error(errtext.Syntax)
	return false
}

// CmdFlushDB is FLUSHDB [ASYNC|SYNC] for this shard's database; ASYNC
// frees the keys in slices over the next loop turns (engine
// DB.FlushAsync). FLUSHALL needs no ASYNC: it resets the slab at once.
func CmdFlushDB(c *Ctx, args [][]byte) {
	if !kvFlushArgs(c, args) {
		return
	}
	if len(args) == 2 && kvIs(args[1], "async") {
		c.DB.FlushAsync()
	} else {
		c.DB.Flush()
	}
	c.W.OK()
}

// CmdFlushAll is FLUSHALL [ASYNC|SYNC] for this shard.
func CmdFlushAll(c *Ctx, args [][]byte) {
	if kvFlushArgs(c, args) {
		c.Store.FlushAll()
		c.W.OK()
	}
}

// CmdObjectEncoding is OBJECT ENCODING key.
func CmdObjectEncoding(c *Ctx, args [][]byte) {
	enc, ok := c.DB.Encoding(args[2], c.Now)
	if !ok {
		c.W.Null()
		return
	}
	c.W.BulkString(enc)
}

// kvSharedRefCount is the refcount Redis reports for its shared integer
// objects 0..9999 (OBJ_SHARED_REFCOUNT).
const kvSharedRefCount = math.MaxInt32

// kvRefCount is what OBJECT REFCOUNT reports: Redis shares the objects of
// the integers 0..9999, so such strings show OBJ_SHARED_REFCOUNT; every
// other value has one reference.
func kvRefCount(db *engine.DB, key []byte, now int64) (int64, bool) {
	enc, ok := db.Encoding(key, now)
	if !ok {
		return 0, false
	}
	if enc == "int" {
		v, _, _ := db.GetString(key, now)
		if n, ok := num.ParseInt(v); ok && n >= 0 && n < 10000 {
			return kvSharedRefCount, true
		}
	}
	return 1, true
}

// CmdObjectRefCount is OBJECT REFCOUNT key.
func CmdObjectRefCount(c *Ctx, args [][]byte) {
	n, ok := kvRefCount(c.DB, args[2], c.Now)
	c.W.IntOrNull(n, ok)
}

// kvLFU reports whether maxmemory-policy is an LFU policy: whether the
// engine keeps LFU counters (the server sets its policy), else the config.
func kvLFU(c *Ctx) bool {
	if c.Store != nil {
		return c.Store.LFU()
	}
	if c.Server == nil {
		return false
	}
	for _, kv := range c.Server.ConfigGet([]string{"maxmemory-policy"}) {
		if strings.Contains(kv[1], "lfu") {
			return true
		}
	}
	return false
}

// CmdObjectIdleTime is OBJECT IDLETIME key: seconds since the key was
// last read or written (LRU clock, 1 s resolution). It does not touch it.
func CmdObjectIdleTime(c *Ctx, args [][]byte) {
	idle, ok := c.DB.IdleTime(args[2], c.Now)
	if !ok {
		c.W.Null()
		return
	}
	if kvLFU(c) {
		c.W.Error("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.W.Int(idle)
}

// CmdObjectFreq is OBJECT FREQ key: the key's logarithmic access counter
// (after decay) under an LFU policy. It does not touch the key.
func CmdObjectFreq(c *Ctx, args [][]byte) {
	freq, ok := c.DB.Freq(args[2], c.Now)
	if !ok {
		c.W.Null()
		return
	}
	if !kvLFU(c) {
		c.W.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.W.Int(int64(freq))
}

var objectHelp = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

// kvHelp is Redis's addReplyHelp: a header naming the command in upper
// case, the lines, and the HELP footer, as status replies.
func kvHelp(c *Ctx, cmd []byte, lines []string) {
	c.W.Array(len(lines) + 3)
	c.W.Simple(strings.ToUpper(string(cmd)) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.W.Simple(l)
	}
	c.W.Simple("HELP")
	c.W.Simple("    Prints this help.")
}

// CmdObjectHelp is OBJECT HELP.
func CmdObjectHelp(c *Ctx, args [][]byte) { kvHelp(c, args[0], objectHelp) }

// debugSubcommands are DEBUG's subcommands by lower-case name. Each checks
// its own argument count (Redis's DEBUG is one command of arity -2) and
// replies kvDebugSyntax when it does not suit. Other families may add
// entries from their init.
var debugSubcommands = map[string]Handler{
	"digest":       cmdDebugDigest,
	"digest-value": cmdDebugDigestValue,
	"help":         cmdDebugHelp,
	"object":       cmdDebugObject,
	"populate":     cmdDebugPopulate,
}

// debugHelp documents the DEBUG subcommands implemented, in Redis's words.
var debugHelp = []string{
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
}

// CmdDebug is DEBUG subcommand [args ...].
func CmdDebug(c *Ctx, args [][]byte) {
	if h := debugSubcommands[strings.ToLower(string(args[1]))]; h != nil {
		h(c, args)
		return
	}
	kvDebugSyntax(c, args)
}

// kvDebugSyntax is Redis's addReplySubcommandSyntaxError.
func kvDebugSyntax(c *Ctx, args [][]byte) {
	c.W.Error(errtext.SubSyntax(args[0], args[1]))
}

func cmdDebugHelp(c *Ctx, args [][]byte) {
	if len(args) != 2 {
		kvDebugSyntax(c, args)
		return
	}
	kvHelp(c, args[0], debugHelp)
}

// cmdDebugObject is DEBUG OBJECT key. The address is made up and
// serializedlength ignores the LZF compression Redis applies to strings
// longer than 20 bytes.
func cmdDebugObject(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		kvDebugSyntax(c, args)
		return
	}
	key := args[2]
	enc, ok := c.DB.Encoding(key, c.Now)
	if !ok {
		c.W.Error(errtext.NoSuchKey)
		return
	}
	ref, _ := kvRefCount(c.DB, key, c.Now)
	var serLen int64
	if c.DB.TypeOf(key, c.Now) == engine.TypeString {
		v, _, _ := c.DB.GetString(key, c.Now)
		serLen = kvRDBStringLen(v)
	} else if rec, ok := c.DB.Export(key, c.Now); ok {
		serLen = int64(len(rec.Data)) // the engine's own format: an estimate
	}
	lru := (c.Now / 1000) & (1<<24 - 1) // LRU_CLOCK: seconds, 24 bits
	b := make([]byte, 0, 128)
	b = append(b, "Value at:0x"...)
	b = strconv.AppendUint(b, 0x7f0000000000|uint64(kvHash(key))&0xffffffff0, 16)
	b = append(b, " refcount:"...)
	b = strconv.AppendInt(b, ref, 10)
	b = append(b, " encoding:"...)
	b = append(b, enc...)
	b = append(b, " serializedlength:"...)
	b = strconv.AppendInt(b, serLen, 10)
	b = append(b, " lru:"...)
	b = strconv.AppendInt(b, lru, 10)
	b = append(b, " lru_seconds_idle:0"...)
	c.W.Simple(string(b))
}

// kvHash is FNV-1a, for a stable made-up object address.
func kvHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// kvRDBStringLen is the size of a string in an RDB file without
// compression: an integer encoding for canonical integers that fit 32 bits
// (up to 11 characters), else a length prefix and the bytes.
func kvRDBStringLen(v []byte) int64 {
	if len(v) <= 11 {
		if n, ok := num.ParseInt(v); ok {
			switch {
			case n >= math.MinInt8 && n <= math.MaxInt8:
				return 2
			case n >= math.MinInt16 && n <= math.MaxInt16:
				return 3
			case n >= math.MinInt32 && n <= math.MaxInt32:
				return 5
			}
		}
	}
	n := int64(len(v))
	switch {
	case n < 1<<6:
		return 1 + n
	case n < 1<<14:
		return 2 + n
	case n <= math.MaxUint32:
		return 5 + n
	default:
		return 9 + n
	}
}

// cmdDebugPopulate is DEBUG POPULATE count [prefix] [size]: creates the
// string keys prefix:0 .. prefix:count-1 (prefix "key") holding
// "value:N", zero-padded or cut to size when size is given; existing keys
// are left alone. On a sharded server every shard runs it and creates only
// the keys c.Owns accepts (all when Owns is nil).
func cmdDebugPopulate(c *Ctx, args [][]byte) {
	if len(args) < 3 || len(args) > 5 {
		kvDebugSyntax(c, args)
		return
	}
	// getPositiveLongFromObjectOrReply: one text for both errors.
	const notPositive = errtext.NotPositive
	count, ok := num.ParseInt(args[2])
	if !ok || count < 0 {
		c.W.Error(notPositive)
		return
	}
	var size int64
	if len(args) == 5 {
		if size, ok = num.ParseInt(args[4]); !ok || size < 0 {
			c.W.Error(notPositive)
			return
		}
	}
	prefix := []byte("key")
	if len(args) >= 4 {
		prefix = cstr(args[3], -1)
	}
	var key, val []byte
	if size > 0 {
		val = make([]byte, size)
	}
	for j := int64(0); j < count; j++ {
		// Redis formats into a 128-byte buffer: longer keys are cut.
		key = append(append(append(key[:0], prefix...), ':'), strconv.FormatInt(j, 10)...)
		if len(key) > 127 {
			key = key[:127]
		}
		if c.Owns != nil && !c.Owns(key) {
			continue
		}
		if c.DB.Exists(key, c.Now) {
			continue
		}
		num := strconv.AppendInt([]byte("value:"), j, 10)
		if size == 0 {
			c.DB.SetString(key, num, 0, false)
			continue
		}
		clear(val)
		copy(val, num)
		c.DB.SetString(key, val, 0, false)
	}
	c.W.OK()
}

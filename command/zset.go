package command

import (
	"bytes"
	"math"
	"slices"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the sorted-set family: its rows (as Redis 7.0 declares
// them) and handlers. Scores are printed as Redis 7.0 prints doubles,
// "%.17g" (0.1 is 0.10000000000000001; 7.2 prints the shortest form), as
// bulk strings in RESP2 and doubles in RESP3. ZRANK and ZREVRANK take
// Redis 7.2's WITHSCORE, and ZSCAN Valkey 8's NOSCORES.

func init() {
	register(zsetSpecs...)
	registerBlocking("bzpopmin", BlockZPopMin)
	registerBlocking("bzpopmax", BlockZPopMax)
	registerBlocking("bzmpop", BlockZMPop)
}

var zsetSpecs = []*Spec{
	{
		Name: "bzmpop", Arity: -5,
		Flags: Write | Blocking | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler:   CmdBZMPop,
		Propagate: propMPop("ZMPOP"),
		Summary:   "Remove and return members with scores in a sorted set or block until one is available",
		Since:     "7.0.0", Group: "sorted-set",
		Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
		Args: []Arg{
			{Name: "timeout", Type: "double"},
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "where", Type: "oneof", Args: []Arg{
				{Name: "min", Type: "pure-token", Token: "MIN"},
				{Name: "max", Type: "pure-token", Token: "MAX"},
			}},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "bzpopmax", Arity: -3,
		Flags: Write | NoScript | Blocking | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: -2, Step: 1},
		},
		Handler:   CmdBZPopMax,
		Propagate: propPop("ZPOPMAX"),
		Summary:   "Remove and return the member with the highest score from one or more sorted sets, or block until one is available",
		Since:     "5.0.0", Group: "sorted-set",
		Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
		History: [][2]string{
			{"6.0.0", "`timeout` is interpreted as a double instead of an integer."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "timeout", Type: "double"},
		},
	},
	{
		Name: "bzpopmin", Arity: -3,
		Flags: Write | NoScript | Blocking | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: -2, Step: 1},
		},
		Handler:   CmdBZPopMin,
		Propagate: propPop("ZPOPMIN"),
		Summary:   "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available",
		Since:     "5.0.0", Group: "sorted-set",
		Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
		History: [][2]string{
			{"6.0.0", "`timeout` is interpreted as a double instead of an integer."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "timeout", Type: "double"},
		},
	},
	{
		Name: "zadd", Arity: -4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZAdd,
		WarmZ:   zaddWarmZ,
		Summary: "Add one or more members to a sorted set, or update its score if it already exists",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple elements."},
			{"3.0.2", "Added the `XX`, `NX`, `CH` and `INCR` options."},
			{"6.2.0", "Added the `GT` and `LT` options."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "condition", Type: "oneof", Since: "3.0.2", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
			}},
			{Name: "comparison", Type: "oneof", Since: "6.2.0", Flags: ArgOptional, Args: []Arg{
				{Name: "gt", Type: "pure-token", Token: "GT"},
				{Name: "lt", Type: "pure-token", Token: "LT"},
			}},
			{Name: "change", Type: "pure-token", Token: "CH", Since: "3.0.2", Flags: ArgOptional},
			{Name: "increment", Type: "pure-token", Token: "INCR", Since: "3.0.2", Flags: ArgOptional},
			{Name: "score_member", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "score", Type: "double"},
				{Name: "member", Type: "string"},
			}},
		},
	},
	{
		Name: "zcard", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZCard,
		Summary: "Get the number of members in a sorted set",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key"},
		},
	},
	{
		Name: "zcount", Arity: 4,
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZCount,
		Summary: "Count the members in a sorted set with scores within the given values",
		Since:   "2.0.0", Group: "sorted-set",
		Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "min", Type: "double"},
			{Name: "max", Type: "double"},
		},
	},
	{
		Name: "zdiff", Arity: -3,
		Flags: ReadOnly | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZDiff,
		Summary: "Subtract multiple sorted sets",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
		},
	},
	{
		Name: "zdiffstore", Arity: -4,
		Flags: Write | DenyOOM | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZDiffStore,
		Summary: "Subtract multiple sorted sets and store the resulting sorted set in a new key",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
		Args: []Arg{
			{Name: "destination", Type: "key"},
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
		},
	},
	{
		Name: "zincrby", Arity: 4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZIncrBy,
		Summary: "Increment the score of a member in a sorted set",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(log(N)) where N is the number of elements in the sorted set.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "increment", Type: "integer"},
			{Name: "member", Type: "string"},
		},
	},
	{
		Name: "zinter", Arity: -3,
		Flags: ReadOnly | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZInter,
		Summary: "Intersect multiple sorted sets",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "weight", Type: "integer", Token: "WEIGHTS", Flags: ArgOptional | ArgMultiple},
			{Name: "aggregate", Type: "oneof", Token: "AGGREGATE", Flags: ArgOptional, Args: []Arg{
				{Name: "sum", Type: "pure-token", Token: "SUM"},
				{Name: "min", Type: "pure-token", Token: "MIN"},
				{Name: "max", Type: "pure-token", Token: "MAX"},
			}},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
		},
	},
	{
		Name: "zintercard", Arity: -3,
		Flags: ReadOnly | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZInterCard,
		Summary: "Intersect multiple sorted sets and return the cardinality of the result",
		Since:   "7.0.0", Group: "sorted-set",
		Complexity: "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "limit", Type: "integer", Token: "LIMIT", Flags: ArgOptional},
		},
	},
	{
		Name: "zinterstore", Arity: -4,
		Flags: Write | DenyOOM | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZInterStore,
		Summary: "Intersect multiple sorted sets and store the resulting sorted set in a new key",
		Since:   "2.0.0", Group: "sorted-set",
		Complexity: "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
		Args: []Arg{
			{Name: "destination", Type: "key"},
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
			{Name: "weight", Type: "integer", Token: "WEIGHTS", Flags: ArgOptional | ArgMultiple},
			{Name: "aggregate", Type: "oneof", Token: "AGGREGATE", Flags: ArgOptional, Args: []Arg{
				{Name: "sum", Type: "pure-token", Token: "SUM"},
				{Name: "min", Type: "pure-token", Token: "MIN"},
				{Name: "max", Type: "pure-token", Token: "MAX"},
			}},
		},
	},
	{
		Name: "zlexcount", Arity: 4,
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZLexCount,
		Summary: "Count the number of members in a sorted set between a given lexicographical range",
		Since:   "2.8.9", Group: "sorted-set",
		Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "min", Type: "string"},
			{Name: "max", Type: "string"},
		},
	},
	{
		Name: "zmpop", Arity: -4,
		Flags: Write | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZMPop,
		Summary: "Remove and return members with scores in a sorted set",
		Since:   "7.0.0", Group: "sorted-set",
		Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "where", Type: "oneof", Args: []Arg{
				{Name: "min", Type: "pure-token", Token: "MIN"},
				{Name: "max", Type: "pure-token", Token: "MAX"},
			}},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "zmscore", Arity: -3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZMScore,
		Summary: "Get the score associated with the given members in a sorted set",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(N) where N is the number of members being requested.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "zpopmax", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZPopMax,
		Summary: "Remove and return members with the highest scores in a sorted set",
		Since:   "5.0.0", Group: "sorted-set",
		Complexity: "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "count", Type: "integer", Flags: ArgOptional},
		},
	},
	{
		Name: "zpopmin", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZPopMin,
		Summary: "Remove and return members with the lowest scores in a sorted set",
		Since:   "5.0.0", Group: "sorted-set",
		Complexity: "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "count", Type: "integer", Flags: ArgOptional},
		},
	},
	{
		Name: "zrandmember", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRandMember,
		Summary: "Get one or multiple random elements from a sorted set",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(N) where N is the number of elements returned",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "options", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "count", Type: "integer"},
				{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
			}},
		},
	},
	{
		Name: "zrange", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRange,
		Summary: "Return a range of members in a sorted set",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
		History: [][2]string{
			{"6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "start", Type: "string"},
			{Name: "stop", Type: "string"},
			{Name: "sortby", Type: "oneof", Since: "6.2.0", Flags: ArgOptional, Args: []Arg{
				{Name: "byscore", Type: "pure-token", Token: "BYSCORE"},
				{Name: "bylex", Type: "pure-token", Token: "BYLEX"},
			}},
			{Name: "rev", Type: "pure-token", Token: "REV", Since: "6.2.0", Flags: ArgOptional},
			{Name: "offset_count", Type: "block", Token: "LIMIT", Since: "6.2.0", Flags: ArgOptional, Args: []Arg{
				{Name: "offset", Type: "integer"},
				{Name: "count", Type: "integer"},
			}},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
		},
	},
	{
		Name: "zrangebylex", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRangeByLex,
		Summary: "Return a range of members in a sorted set, by lexicographical range",
		Since:   "2.8.9", Group: "sorted-set",
		Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`ZRANGE` with the `BYLEX` argument",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "min", Type: "string"},
			{Name: "max", Type: "string"},
			{Name: "offset_count", Type: "block", Token: "LIMIT", Flags: ArgOptional, Args: []Arg{
				{Name: "offset", Type: "integer"},
				{Name: "count", Type: "integer"},
			}},
		},
	},
	{
		Name: "zrangebyscore", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRangeByScore,
		Summary: "Return a range of members in a sorted set, by score",
		Since:   "1.0.5", Group: "sorted-set",
		Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`ZRANGE` with the `BYSCORE` argument",
		History: [][2]string{
			{"2.0.0", "Added the `WITHSCORES` modifier."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "min", Type: "double"},
			{Name: "max", Type: "double"},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Since: "2.0.0", Flags: ArgOptional},
			{Name: "offset_count", Type: "block", Token: "LIMIT", Flags: ArgOptional, Args: []Arg{
				{Name: "offset", Type: "integer"},
				{Name: "count", Type: "integer"},
			}},
		},
	},
	{
		Name: "zrangestore", Arity: -5,
		Flags: Write | DenyOOM,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdZRangeStore,
		Summary: "Store a range of members from sorted set into another key",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
		Args: []Arg{
			{Name: "dst", Type: "key"},
			{Name: "src", Type: "key", KeySpecIndex: 1},
			{Name: "min", Type: "string"},
			{Name: "max", Type: "string"},
			{Name: "sortby", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "byscore", Type: "pure-token", Token: "BYSCORE"},
				{Name: "bylex", Type: "pure-token", Token: "BYLEX"},
			}},
			{Name: "rev", Type: "pure-token", Token: "REV", Flags: ArgOptional},
			{Name: "offset_count", Type: "block", Token: "LIMIT", Flags: ArgOptional, Args: []Arg{
				{Name: "offset", Type: "integer"},
				{Name: "count", Type: "integer"},
			}},
		},
	},
	{
		Name: "zrank", Arity: -3, // 3 in Redis 7.0; WITHSCORE is 7.2's
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRank,
		Summary: "Determine the index of a member in a sorted set",
		Since:   "2.0.0", Group: "sorted-set",
		Complexity: "O(log(N))",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "member", Type: "string"},
		},
	},
	{
		Name: "zrem", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRem,
		Summary: "Remove one or more members from a sorted set",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple elements."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "zremrangebylex", Arity: 4,
		Flags: Write,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRemRangeByLex,
		Summary: "Remove all members in a sorted set between the given lexicographical range",
		Since:   "2.8.9", Group: "sorted-set",
		Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "min", Type: "string"},
			{Name: "max", Type: "string"},
		},
	},
	{
		Name: "zremrangebyrank", Arity: 4,
		Flags: Write,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRemRangeByRank,
		Summary: "Remove all members in a sorted set within the given indexes",
		Since:   "2.0.0", Group: "sorted-set",
		Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "start", Type: "integer"},
			{Name: "stop", Type: "integer"},
		},
	},
	{
		Name: "zremrangebyscore", Arity: 4,
		Flags: Write,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRemRangeByScore,
		Summary: "Remove all members in a sorted set within the given scores",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "min", Type: "double"},
			{Name: "max", Type: "double"},
		},
	},
	{
		Name: "zrevrange", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRevRange,
		Summary: "Return a range of members in a sorted set, by index, with scores ordered from high to low",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`ZRANGE` with the `REV` argument",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "start", Type: "integer"},
			{Name: "stop", Type: "integer"},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
		},
	},
	{
		Name: "zrevrangebylex", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRevRangeByLex,
		Summary: "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.",
		Since:   "2.8.9", Group: "sorted-set",
		Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`ZRANGE` with the `REV` and `BYLEX` arguments",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "max", Type: "string"},
			{Name: "min", Type: "string"},
			{Name: "offset_count", Type: "block", Token: "LIMIT", Flags: ArgOptional, Args: []Arg{
				{Name: "offset", Type: "integer"},
				{Name: "count", Type: "integer"},
			}},
		},
	},
	{
		Name: "zrevrangebyscore", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRevRangeByScore,
		Summary: "Return a range of members in a sorted set, by score, with scores ordered from high to low",
		Since:   "2.2.0", Group: "sorted-set",
		Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`ZRANGE` with the `REV` and `BYSCORE` arguments",
		History: [][2]string{
			{"2.1.6", "`min` and `max` can be exclusive."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "max", Type: "double"},
			{Name: "min", Type: "double"},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
			{Name: "offset_count", Type: "block", Token: "LIMIT", Flags: ArgOptional, Args: []Arg{
				{Name: "offset", Type: "integer"},
				{Name: "count", Type: "integer"},
			}},
		},
	},
	{
		Name: "zrevrank", Arity: -3, // 3 in Redis 7.0; WITHSCORE is 7.2's
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZRevRank,
		Summary: "Determine the index of a member in a sorted set, with scores ordered from high to low",
		Since:   "2.0.0", Group: "sorted-set",
		Complexity: "O(log(N))",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "member", Type: "string"},
		},
	},
	{
		Name: "zscan", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"sortedset"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZScan,
		Summary: "Incrementally iterate sorted sets elements and associated scores",
		Since:   "2.8.0", Group: "sorted-set",
		Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "cursor", Type: "integer"},
			{Name: "pattern", Type: "pattern", Token: "MATCH", Flags: ArgOptional},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "zscore", Arity: 3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdZScore,
		Summary: "Get the score associated with the given member in a sorted set",
		Since:   "1.2.0", Group: "sorted-set",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "member", Type: "string"},
		},
	},
	{
		Name: "zunion", Arity: -3,
		Flags: ReadOnly | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZUnion,
		Summary: "Add multiple sorted sets",
		Since:   "6.2.0", Group: "sorted-set",
		Complexity: "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "weight", Type: "integer", Token: "WEIGHTS", Flags: ArgOptional | ArgMultiple},
			{Name: "aggregate", Type: "oneof", Token: "AGGREGATE", Flags: ArgOptional, Args: []Arg{
				{Name: "sum", Type: "pure-token", Token: "SUM"},
				{Name: "min", Type: "pure-token", Token: "MIN"},
				{Name: "max", Type: "pure-token", Token: "MAX"},
			}},
			{Name: "withscores", Type: "pure-token", Token: "WITHSCORES", Flags: ArgOptional},
		},
	},
	{
		Name: "zunionstore", Arity: -4,
		Flags: Write | DenyOOM | MovableKeys,
		ACL:   []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdZUnionStore,
		Summary: "Add multiple sorted sets and store the resulting sorted set in a new key",
		Since:   "2.0.0", Group: "sorted-set",
		Complexity: "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
		Args: []Arg{
			{Name: "destination", Type: "key"},
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
			{Name: "weight", Type: "integer", Token: "WEIGHTS", Flags: ArgOptional | ArgMultiple},
			{Name: "aggregate", Type: "oneof", Token: "AGGREGATE", Flags: ArgOptional, Args: []Arg{
				{Name: "sum", Type: "pure-token", Token: "SUM"},
				{Name: "min", Type: "pure-token", Token: "MIN"},
				{Name: "max", Type: "pure-token", Token: "MAX"},
			}},
		},
	},
}

// zaddWarmZ is ZADD's WarmZ: the pair of ZADD key score member.
func zaddWarmZ(args [][]byte) (float64, []byte, bool) {
	if len(args) != 4 {
		return 0, nil, false
	}
	f, ok := num.ParseDouble(args[2])
	return f, args[3], ok
}

// zsArgScore parses a score argument or replies msg.
func zsArgScore(c *Ctx, b []byte, msg string) (float64, bool) {
	f, ok := num.ParseDouble(b)
	if !ok {
		c.W.Error(msg)
	}
	return f, ok
}

// zsParseRangeItem parses one end of a score range (zslParseRange): an
// optional '(' then what strtod accepts, leading blanks included, with
// no range check; the empty text (strtod consumes nothing and the end
// check passes) is 0.
func zsParseRangeItem(b []byte) (f float64, ex, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	if len(bytes.TrimLeft(b, " \t\n\v\f\r")) == 0 {
		return 0, ex, true
	}
	f, _, ok = num.ParseStrtod(b)
	return f, ex, ok && !math.IsNaN(f)
}

// zsParseLexItem parses one end of a lex range (zslParseLexRangeItem).
func zsParseLexItem(b []byte) (engine.LexBound, bool) {
	if len(b) == 0 {
		return engine.LexBound{}, false
	}
	switch b[0] {
	case '+':
		return engine.LexBound{Inf: 1, Ex: true}, len(b) == 1
	case '-':
		return engine.LexBound{Inf: -1, Ex: true}, len(b) == 1
	case '(':
		return engine.LexBound{Ex: true, Val: b[1:]}, true
	case '[':
		return engine.LexBound{Val: b[1:]}, true
	}
	return engine.LexBound{}, false
}

const (
	zsErrRange    = "ERR min or max is not a float"
	zsErrLexRange = "ERR min or max not valid string range item"
)

// zsRangeArgs fills sp's bounds from min and max; ok false: replied.
func zsRangeArgs(c *Ctx, sp *engine.ZRangeSpec, min, max []byte) bool {
	switch sp.Kind {
	case engine.ZByScore:
		var ok1, ok2 bool
		sp.Min, sp.MinEx, ok1 = zsParseRangeItem(min)
		sp.Max, sp.MaxEx, ok2 = zsParseRangeItem(max)
		if !ok1 || !ok2 {
			c.W.Error(zsErrRange)
			return false
		}
	case engine.ZByLex:
		var ok1, ok2 bool
		sp.LexMin, ok1 = zsParseLexItem(min)
		sp.LexMax, ok2 = zsParseLexItem(max)
		if !ok1 || !ok2 {
			c.W.Error(zsErrLexRange)
			return false
		}
	default:
		start, ok := lsIndex(c, min)
		if !ok {
			return false
		}
		stop, ok := lsIndex(c, max)
		if !ok {
			return false
		}
		sp.Start, sp.Stop = start, stop
	}
	return true
}

// CmdZAdd is ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...].
func CmdZAdd(c *Ctx, args [][]byte) {
	flags, ch := 0, false
	i := 2
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case kvIs(a, "nx"):
			flags |= engine.ZAddNX
		case kvIs(a, "xx"):
			flags |= engine.ZAddXX
		case kvIs(a, "gt"):
			flags |= engine.ZAddGT
		case kvIs(a, "lt"):
			flags |= engine.ZAddLT
		case kvIs(a, "ch"):
			ch = true
		case kvIs(a, "incr"):
			flags |= engine.ZAddIncr
		default:
			goto scores
		}
	}
scores:
	n := len(args) - i
	if n == 0 || n%2 != 0 {
		c.W.Error(errtext.Syntax)
		return
	}
	n /= 2
	switch {
	case flags&engine.ZAddNX != 0 && flags&engine.ZAddXX != 0:
		c.W.Error("ERR XX and NX options at the same time are not compatible")
		return
	case flags&engine.ZAddGT != 0 && flags&engine.ZAddNX != 0, flags&engine.ZAddLT != 0 && flags&engine.ZAddNX != 0,
		flags&engine.ZAddGT != 0 && flags&engine.ZAddLT != 0:
		c.W.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	case flags&engine.ZAddIncr != 0 && n > 1:
		c.W.Error("ERR INCR option supports a single increment-element pair")
		return
	}
	for j := 0; j < n; j++ {
		if _, ok := zsArgScore(c, args[i+2*j], errtext.NotFloat); !ok {
			return
		}
	}
	r, err := c.DB.ZAdd(args[1], flags, n, func(j int) (float64, []byte) {
		f, _ := num.ParseDouble(args[i+2*j])
		return f, args[i+2*j+1]
	}, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case flags&engine.ZAddIncr != 0:
		if r.Done {
			c.W.Double(r.Score)
		} else {
			c.W.Null()
		}
	case ch:
		c.W.Int(int64(r.Added + r.Updated))
	default:
		c.W.Int(int64(r.Added))
	}
}

// CmdZIncrBy is ZINCRBY key increment member.
func CmdZIncrBy(c *Ctx, args [][]byte) {
	inc, ok := zsArgScore(c, args[2], errtext.NotFloat)
	if !ok {
		return
	}
	r, err := c.DB.ZAdd(args[1], engine.ZAddIncr, 1, func(int) (float64, []byte) { return inc, args[3] }, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Double(r.Score)
}

// CmdZRem is ZREM key member [member ...].
func CmdZRem(c *Ctx, args [][]byte) {
	n, err := c.DB.ZRem(args[1], args[2:], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdZCard is ZCARD key.
func CmdZCard(c *Ctx, args [][]byte) {
	n, err := c.DB.ZCard(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

func zsCount(c *Ctx, args [][]byte, kind engine.ZRangeKind) {
	sp := engine.ZRangeSpec{Kind: kind}
	if !zsRangeArgs(c, &sp, args[2], args[3]) {
		return
	}
	n, err := c.DB.ZCount(args[1], &sp, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdZCount is ZCOUNT key min max.
func CmdZCount(c *Ctx, args [][]byte) { zsCount(c, args, engine.ZByScore) }

// CmdZLexCount is ZLEXCOUNT key min max.
func CmdZLexCount(c *Ctx, args [][]byte) { zsCount(c, args, engine.ZByLex) }

// CmdZScore is ZSCORE key member.
func CmdZScore(c *Ctx, args [][]byte) {
	f, ok, err := c.DB.ZScore(args[1], args[2], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !ok:
		c.W.Null()
	default:
		c.W.Double(f)
	}
}

// CmdZMScore is ZMSCORE key member [member ...].
func CmdZMScore(c *Ctx, args [][]byte) {
	n := len(c.W.B)
	c.W.Array(len(args) - 2)
	err := c.DB.ZMScore(args[1], args[2:], c.Now, func(f float64, ok bool) {
		if ok {
			c.W.Double(f)
		} else {
			c.W.Null()
		}
	})
	if err != nil {
		c.W.B = c.W.B[:n]
		c.W.Error(err.Error())
	}
}

func zsRank(c *Ctx, args [][]byte, rev bool) {
	withScore := false
	switch {
	case len(args) > 4:
		c.W.WrongArgs(string(args[0]))
		return
	case len(args) == 4 && !kvIs(args[3], "withscore"):
		c.W.Error(errtext.Syntax)
		return
	case len(args) == 4:
		withScore = true
	}
	r, score, ok, err := c.DB.ZRank(args[1], args[2], rev, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !ok && withScore:
		c.W.NullArray()
	case !ok:
		c.W.Null()
	case withScore:
		c.W.Array(2)
		c.W.Int(int64(r))
		c.W.Double(score)
	default:
		c.W.Int(int64(r))
	}
}

// CmdZRank is ZRANK key member [WITHSCORE] (WITHSCORE: Redis 7.2's).
func CmdZRank(c *Ctx, args [][]byte) { zsRank(c, args, false) }

// CmdZRevRank is ZREVRANK key member [WITHSCORE].
func CmdZRevRank(c *Ctx, args [][]byte) { zsRank(c, args, true) }

// zsElems writes elements of a range: the array header once the number is
// known, then each member and, with scores, its score (RESP3: pairs).
type zsElems struct {
	c          *Ctx
	withScores bool
}

func (z zsElems) header(n int) {
	if z.withScores && z.c.W.Proto != 3 {
		z.c.W.Array(2 * n)
	} else {
		z.c.W.Array(n)
	}
}

func (z zsElems) elem(m []byte, s float64) {
	if z.withScores && z.c.W.Proto == 3 {
		z.c.W.Array(2)
	}
	z.c.W.Bulk(m)
	if z.withScores {
		z.c.W.Double(s)
	}
}

// zsRange is Redis's zrangeGenericCommand: args[at] is the source key,
// then min and max; kind/rev are fixed by the command (ZRANGEBYSCORE...)
// or, for ZRANGE and ZRANGESTORE (auto), read from the options. dst is the
// destination of ZRANGESTORE (nil otherwise).
func zsRange(c *Ctx, args [][]byte, at int, kind engine.ZRangeKind, auto, rev bool, dst []byte) {
	sp := engine.ZRangeSpec{Kind: kind, Rev: rev, Count: -1}
	withScores, limit, kindSet := false, false, !auto
	for j := at + 3; j < len(args); j++ {
		left := len(args) - j - 1
		switch a := args[j]; {
		case dst == nil && kvIs(a, "withscores"):
			withScores = true
		case kvIs(a, "limit") && left >= 2:
			off, ok := kvArgInt(c, args[j+1])
			if !ok {
				return
			}
			cnt, ok := kvArgInt(c, args[j+2])
			if !ok {
				return
			}
			sp.Offset = int(max(min(off, 1<<62), -(1 << 62)))
			sp.Count = int(max(min(cnt, 1<<62), -1))
			limit = cnt != -1
			j += 2
		case auto && !sp.Rev && kvIs(a, "rev"):
			sp.Rev = true
		case !kindSet && kvIs(a, "bylex"):
			sp.Kind, kindSet = engine.ZByLex, true
		case !kindSet && kvIs(a, "byscore"):
			sp.Kind, kindSet = engine.ZByScore, true
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	if limit && sp.Kind == engine.ZByRank {
		c.W.Error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	if withScores && sp.Kind == engine.ZByLex {
		c.W.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
		return
	}
	lo, hi := args[at+1], args[at+2]
	if sp.Rev && sp.Kind != engine.ZByRank {
		lo, hi = hi, lo
	}
	if !zsRangeArgs(c, &sp, lo, hi) {
		return
	}
	if dst != nil {
		var ms [][]byte
		var ss []float64
		_, err := c.DB.ZRange(args[at], &sp, c.Now, func(_, _ int, m []byte, s float64) {
			ms = append(ms, slices.Clone(m))
			ss = append(ss, s)
		})
		if err != nil {
			c.W.Error(err.Error())
			return
		}
		n := c.DB.ZStore(dst, len(ms), func(i int) (float64, []byte) { return ss[i], ms[i] }, c.Now)
		c.W.Int(int64(n))
		return
	}
	out := zsElems{c: c, withScores: withScores}
	n, err := c.DB.ZRange(args[at], &sp, c.Now, func(total, i int, m []byte, s float64) {
		if i == 0 {
			out.header(total)
		}
		out.elem(m, s)
	})
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case n == 0:
		c.W.Array(0)
	}
}

// CmdZRange is ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES].
func CmdZRange(c *Ctx, args [][]byte) { zsRange(c, args, 1, engine.ZByRank, true, false, nil) }

// CmdZRangeStore is ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count].
func CmdZRangeStore(c *Ctx, args [][]byte) {
	zsRange(c, args, 2, engine.ZByRank, true, false, args[1])
}

// CmdZRevRange is ZREVRANGE key start stop [WITHSCORES].
func CmdZRevRange(c *Ctx, args [][]byte) { zsRange(c, args, 1, engine.ZByRank, false, true, nil) }

// CmdZRangeByScore is ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count].
func CmdZRangeByScore(c *Ctx, args [][]byte) {
	zsRange(c, args, 1, engine.ZByScore, false, false, nil)
}

// CmdZRevRangeByScore is ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count].
func CmdZRevRangeByScore(c *Ctx, args [][]byte) {
	zsRange(c, args, 1, engine.ZByScore, false, true, nil)
}

// CmdZRangeByLex is ZRANGEBYLEX key min max [LIMIT offset count].
func CmdZRangeByLex(c *Ctx, args [][]byte) { zsRange(c, args, 1, engine.ZByLex, false, false, nil) }

// CmdZRevRangeByLex is ZREVRANGEBYLEX key max min [LIMIT offset count].
func CmdZRevRangeByLex(c *Ctx, args [][]byte) {
	zsRange(c, args, 1, engine.ZByLex, false, true, nil)
}

func zsRemRange(c *Ctx, args [][]byte, kind engine.ZRangeKind) {
	sp := engine.ZRangeSpec{Kind: kind, Count: -1}
	if !zsRangeArgs(c, &sp, args[2], args[3]) {
		return
	}
	n, err := c.DB.ZRemRange(args[1], &sp, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdZRemRangeByRank is ZREMRANGEBYRANK key start stop.
func CmdZRemRangeByRank(c *Ctx, args [][]byte) { zsRemRange(c, args, engine.ZByRank) }

// CmdZRemRangeByScore is ZREMRANGEBYSCORE key min max.
func CmdZRemRangeByScore(c *Ctx, args [][]byte) { zsRemRange(c, args, engine.ZByScore) }

// CmdZRemRangeByLex is ZREMRANGEBYLEX key min max.
func CmdZRemRangeByLex(c *Ctx, args [][]byte) { zsRemRange(c, args, engine.ZByLex) }

// zsPop pops from the first non-empty sorted set of keys, as Redis's
// genericZpopCommand. count < 0: no count given (one element, flat
// reply). nested: ZMPOP's [key, [[member, score], ...]]; withKey:
// BZPOPMIN's [key, member, score]. It reports false (writing nothing)
// when every key is empty.
func zsPop(c *Ctx, keys [][]byte, max bool, count int, nested, withKey bool) bool {
	for _, k := range keys {
		n := count
		if n < 0 {
			n = 1
		}
		popped, err := c.DB.ZPop(k, max, n, c.Now, func(total, i int, m []byte, s float64) {
			if i == 0 {
				switch {
				case nested:
					c.W.Array(2)
					c.W.Bulk(k)
					c.W.Array(total)
				case withKey:
					c.W.Array(3)
					c.W.Bulk(k)
				case count < 0 || c.W.Proto != 3:
					c.W.Array(2 * total)
				default:
					c.W.Array(total)
				}
			}
			if nested || count >= 0 && !withKey && c.W.Proto == 3 {
				c.W.Array(2)
			}
			c.W.Bulk(m)
			c.W.Double(s)
		})
		if err != nil {
			c.W.Error(err.Error())
			return true
		}
		if popped > 0 {
			return true
		}
	}
	return false
}

func zsPopCmd(c *Ctx, args [][]byte, max bool) {
	if len(args) > 3 {
		c.W.Error(errtext.Syntax)
		return
	}
	count := -1
	if len(args) == 3 {
		v, ok := lsPositive(c, args[2])
		if !ok {
			return
		}
		count = int(min(v, 1<<62))
		if count == 0 {
			// Redis checks the key's type first, then answers empty.
			if _, err := c.DB.ZCard(args[1], c.Now); err != nil {
				c.W.Error(err.Error())
				return
			}
			c.W.Array(0)
			return
		}
	}
	if !zsPop(c, args[1:2], max, count, false, false) {
		c.W.Array(0)
	}
}

// CmdZPopMin is ZPOPMIN key [count].
func CmdZPopMin(c *Ctx, args [][]byte) { zsPopCmd(c, args, false) }

// CmdZPopMax is ZPOPMAX key [count].
func CmdZPopMax(c *Ctx, args [][]byte) { zsPopCmd(c, args, true) }

// zsMPopArgs parses ZMPOP's arguments from numkeys at args[at].
func zsMPopArgs(c *Ctx, args [][]byte, at int) (keys [][]byte, max bool, count int, ok bool) {
	numkeys, ok := lsRangeLong(c, args[at], 1, math.MaxInt64, errtext.NumKeys)
	if !ok {
		return nil, false, 0, false
	}
	if numkeys > int64(len(args)-at-2) { // no room for the keys and the end (no overflow)
		c.W.Error(errtext.Syntax)
		return nil, false, 0, false
	}
	where := at + int(numkeys) + 1
	switch w := args[where]; {
	case kvIs(w, "min"):
	case kvIs(w, "max"):
		max = true
	default:
		c.W.Error(errtext.Syntax)
		return nil, false, 0, false
	}
	cnt := int64(-1)
	for j := int(where) + 1; j < len(args); j++ {
		if cnt == -1 && kvIs(args[j], "count") && j+1 < len(args) {
			j++
			if cnt, ok = lsRangeLong(c, args[j], 1, math.MaxInt64, errtext.Count); !ok {
				return nil, false, 0, false
			}
			continue
		}
		c.W.Error(errtext.Syntax)
		return nil, false, 0, false
	}
	if cnt == -1 {
		cnt = 1
	}
	return args[at+1 : where], max, int(min(cnt, 1<<62)), true
}

// CmdZMPop is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count].
func CmdZMPop(c *Ctx, args [][]byte) {
	keys, max, count, ok := zsMPopArgs(c, args, 1)
	if ok && !zsPop(c, keys, max, count, true, false) {
		c.W.NullArray()
	}
}

// BlockZPopMin is BZPOPMIN key [key ...] timeout.
func BlockZPopMin(c *Ctx, args [][]byte, wait *Wait) bool { return blockZPop(c, args, wait, false) }

// BlockZPopMax is BZPOPMAX key [key ...] timeout.
func BlockZPopMax(c *Ctx, args [][]byte, wait *Wait) bool { return blockZPop(c, args, wait, true) }

func blockZPop(c *Ctx, args [][]byte, wait *Wait, max bool) bool {
	deadline, ok := blockTimeout(c, args[len(args)-1])
	if !ok || zsPop(c, args[1:len(args)-1], max, -1, false, true) {
		return false
	}
	wait.set(deadline, 1, len(args)-1)
	return true
}

// BlockZMPop is BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count].
func BlockZMPop(c *Ctx, args [][]byte, wait *Wait) bool {
	deadline, ok := blockTimeout(c, args[1])
	if !ok {
		return false
	}
	keys, max, count, ok := zsMPopArgs(c, args, 2)
	if !ok || zsPop(c, keys, max, count, true, false) {
		return false
	}
	wait.set(deadline, 3, 3+len(keys))
	return true
}

// CmdBZPopMin is BZPOPMIN that never blocks (inside MULTI, scripts).
func CmdBZPopMin(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockZPopMin, true) }

// CmdBZPopMax is BZPOPMAX that never blocks.
func CmdBZPopMax(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockZPopMax, true) }

// CmdBZMPop is BZMPOP that never blocks.
func CmdBZMPop(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockZMPop, true) }

// CmdZRandMember is ZRANDMEMBER key [count [WITHSCORES]].
func CmdZRandMember(c *Ctx, args [][]byte) {
	if len(args) == 2 {
		var got bool
		err := c.DB.ZRandom(args[1], 1, c.Now, func(m []byte, _ float64) {
			c.W.Bulk(m)
			got = true
		})
		switch {
		case err != nil:
			c.W.Error(err.Error())
		case !got:
			c.W.Null()
		}
		return
	}
	count, ok := lsRangeLong(c, args[2], -math.MaxInt64, math.MaxInt64, "")
	if !ok {
		return
	}
	withScores := false
	if len(args) > 4 || len(args) == 4 && !kvIs(args[3], "withscores") {
		c.W.Error(errtext.Syntax)
		return
	}
	if len(args) == 4 {
		withScores = true
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			c.W.Error(errtext.OutOfRange)
			return
		}
	}
	card, err := c.DB.ZCard(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	out := zsElems{c: c, withScores: withScores}
	switch {
	case card == 0 || count == 0:
		c.W.Array(0)
	case count < 0 || count == 1:
		n := int(min(-count, 1<<40))
		if count == 1 {
			n = 1
		}
		out.header(n)
		c.DB.ZRandom(args[1], n, c.Now, out.elem)
	case count >= int64(card):
		out.header(card)
		c.DB.ZEach(args[1], c.Now, func(m []byte, s float64) bool { out.elem(m, s); return true })
	default:
		out.header(int(count))
		c.DB.ZRandomDistinct(args[1], int(count), c.Now, out.elem)
	}
}

// CmdZScan is ZSCAN key cursor [MATCH pattern] [COUNT count] [NOSCORES].
func CmdZScan(c *Ctx, args [][]byte) {
	cursor, errText := ParseScanCursor(args[2])
	if errText != "" {
		c.W.Error(errText)
		return
	}
	if n, err := c.DB.ZCard(args[1], c.Now); hsErr(c, err) {
		return
	} else if n == 0 {
		hsEmptyScan(c)
		return
	}
	pattern, count, noscores, ok := scanArgs(c, args[3:], "noscores")
	if !ok {
		return
	}
	var arena []byte
	var ends []int
	next, err := c.DB.ZScan(args[1], cursor, count, c.Now, func(m []byte, s float64) {
		if pattern != nil && !engine.Match(pattern, m, false) {
			return
		}
		arena = append(arena, m...)
		ends = append(ends, len(arena))
		if !noscores {
			arena = num.AppendDouble(arena, s)
			ends = append(ends, len(arena))
		}
	})
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	c.W.Array(len(ends))
	start := 0
	for _, e := range ends {
		c.W.Bulk(arena[start:e])
		start = e
	}
}

package command

import (
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the set family: its rows (as Redis 7.0 declares them) and
// handlers. The engine (engine/set.go) does the work. The multi-key
// commands (SINTER, SUNION, SDIFF, their STORE forms, SINTERCARD, SMOVE)
// run here only when all their keys are on this shard.

func init() { register(setSpecs...) }

var setSpecs = []*Spec{
	{
		Name: "sadd", Arity: -3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSAdd,
		Summary: "Add one or more members to a set",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple `member` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "srem", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSRem,
		Summary: "Remove one or more members from a set",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N) where N is the number of members to be removed.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple `member` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "sismember", Arity: 3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSIsMember,
		Summary: "Determine if a given value is a member of a set",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member", Type: "string"},
		},
	},
	{
		Name: "smismember", Arity: -3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSMIsMember,
		Summary: "Returns the membership associated with the given elements for a set",
		Since:   "6.2.0", Group: "set",
		Complexity: "O(N) where N is the number of elements being checked for membership",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "scard", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSCard,
		Summary: "Get the number of members in a set",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "smembers", Arity: 2,
		Flags: ReadOnly,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSMembers,
		Summary: "Get all the members in a set",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N) where N is the set cardinality.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "spop", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdSPop,
		Propagate: propSPop,
		Summary:   "Remove and return one or multiple random members from a set",
		Since:     "1.0.0", Group: "set",
		Complexity: "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
		History: [][2]string{
			{"3.2.0", "Added the `count` argument."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "count", Type: "integer", Since: "3.2.0", Flags: ArgOptional},
		},
	},
	{
		Name: "srandmember", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSRandMember,
		Summary: "Get one or multiple random members from a set",
		Since:   "1.0.0", Group: "set",
		Complexity: "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
		History: [][2]string{
			{"2.6.0", "Added the optional `count` argument."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "count", Type: "integer", Since: "2.6.0", Flags: ArgOptional},
		},
	},
	{
		Name: "smove", Arity: 4,
		Flags: Write | Fast,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdSMove,
		Summary: "Move a member from one set to another",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "source", Type: "key", KeySpecIndex: 0},
			{Name: "destination", Type: "key", KeySpecIndex: 1},
			{Name: "member", Type: "string"},
		},
	},
	{
		Name: "sinter", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdSInter,
		Summary: "Intersect multiple sets",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "sintercard", Arity: -3,
		Flags: ReadOnly | MovableKeys,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdSInterCard,
		Summary: "Intersect multiple sets and return the cardinality of the result",
		Since:   "7.0.0", Group: "set",
		Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
			{Name: "limit", Type: "integer", Token: "LIMIT", Flags: ArgOptional},
		},
	},
	{
		Name: "sunion", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdSUnion,
		Summary: "Add multiple sets",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N) where N is the total number of elements in all given sets.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "sdiff", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdSDiff,
		Summary: "Subtract multiple sets",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N) where N is the total number of elements in all given sets.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "sinterstore", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, LastKey: -1, Step: 1},
		},
		Handler: CmdSInterStore,
		Summary: "Intersect multiple sets and store the resulting set in a key",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
		Args: []Arg{
			{Name: "destination", Type: "key", KeySpecIndex: 0},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
		},
	},
	{
		Name: "sunionstore", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, LastKey: -1, Step: 1},
		},
		Handler: CmdSUnionStore,
		Summary: "Add multiple sets and store the resulting set in a key",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N) where N is the total number of elements in all given sets.",
		Args: []Arg{
			{Name: "destination", Type: "key", KeySpecIndex: 0},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
		},
	},
	{
		Name: "sdiffstore", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"set"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, LastKey: -1, Step: 1},
		},
		Handler: CmdSDiffStore,
		Summary: "Subtract multiple sets and store the resulting set in a key",
		Since:   "1.0.0", Group: "set",
		Complexity: "O(N) where N is the total number of elements in all given sets.",
		Args: []Arg{
			{Name: "destination", Type: "key", KeySpecIndex: 0},
			{Name: "key", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
		},
	},
	{
		Name: "sscan", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"set"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSScan,
		Summary: "Incrementally iterate Set elements",
		Since:   "2.8.0", Group: "set",
		Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "cursor", Type: "integer"},
			{Name: "pattern", Type: "pattern", Token: "MATCH", Flags: ArgOptional},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
}

// CmdSAdd is SADD key member [member ...].
func CmdSAdd(c *Ctx, args [][]byte) {
	n, err := c.DB.SAdd(args[1], args[2:], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdSRem is SREM key member [member ...].
func CmdSRem(c *Ctx, args [][]byte) {
	n, err := c.DB.SRem(args[1], args[2:], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdSIsMember is SISMEMBER key member.
func CmdSIsMember(c *Ctx, args [][]byte) {
	ok, err := c.DB.SIsMember(args[1], args[2], c.Now)
	if !hsErr(c, err) {
		c.W.Int(b2i(ok))
	}
}

// CmdSMIsMember is SMISMEMBER key member [member ...].
func CmdSMIsMember(c *Ctx, args [][]byte) {
	if _, err := c.DB.SCard(args[1], c.Now); hsErr(c, err) {
		return
	}
	c.W.Array(len(args) - 2)
	c.DB.SMIsMember(args[1], args[2:], c.Now, func(ok bool) { c.W.Int(b2i(ok)) })
}

// CmdSCard is SCARD key.
func CmdSCard(c *Ctx, args [][]byte) {
	n, err := c.DB.SCard(args[1], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdSMembers is SMEMBERS key (a set in RESP3).
func CmdSMembers(c *Ctx, args [][]byte) {
	n, err := c.DB.SCard(args[1], c.Now)
	if hsErr(c, err) {
		return
	}
	c.W.Set(n)
	c.DB.SEach(args[1], c.Now, func(m []byte) bool { c.W.Bulk(m); return true })
}

// CmdSPop is SPOP key [count].
func CmdSPop(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.W.Error(errtext.Syntax)
		return
	}
	if len(args) == 2 {
		found := false
		err := c.DB.SPop(args[1], 1, c.Now, func(m []byte) { c.W.Bulk(m); found = true })
		if !hsErr(c, err) && !found {
			c.W.Null()
		}
		return
	}
	count, ok := num.ParseInt(args[2])
	if !ok || count < 0 {
		c.W.Error(errtext.NotPositive)
		return
	}
	n, err := c.DB.SCard(args[1], c.Now)
	if hsErr(c, err) {
		return
	}
	c.W.Set(int(min(count, int64(n))))
	c.DB.SPop(args[1], count, c.Now, func(m []byte) { c.W.Bulk(m) })
}

// CmdSRandMember is SRANDMEMBER key [count].
func CmdSRandMember(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.W.Error(errtext.Syntax)
		return
	}
	if len(args) == 2 {
		found := false
		err := c.DB.SRandMember(args[1], 1, c.Now, func(m []byte) { c.W.Bulk(m); found = true })
		if !hsErr(c, err) && !found {
			c.W.Null()
		}
		return
	}
	count, ok := hsRangeLong(c, args[2])
	if !ok {
		return
	}
	n, err := c.DB.SCard(args[1], c.Now)
	if hsErr(c, err) {
		return
	}
	c.W.Array(hsReplyCount(count, n))
	c.DB.SRandMember(args[1], count, c.Now, func(m []byte) { c.W.Bulk(m) })
}

// CmdSMove is SMOVE source destination member.
func CmdSMove(c *Ctx, args [][]byte) {
	ok, err := c.DB.SMove(args[1], args[2], args[3], c.Now)
	if !hsErr(c, err) {
		c.W.Int(b2i(ok))
	}
}

// stSetOp writes the members of op over keys as a set reply.
func stSetOp(c *Ctx, op engine.SetOp, keys [][]byte) {
	var l hsList
	if _, err := c.DB.SetOpEach(op, keys, c.Now, func(m []byte) { l.add(m) }); hsErr(c, err) {
		return
	}
	l.write(c.W.Set, c)
}

// stSetOpStore is SINTERSTORE, SUNIONSTORE and SDIFFSTORE.
func stSetOpStore(c *Ctx, op engine.SetOp, args [][]byte) {
	n, err := c.DB.SetOpStore(op, args[1], args[2:], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdSInter is SINTER key [key ...].
func CmdSInter(c *Ctx, args [][]byte) { stSetOp(c, engine.SetInter, args[1:]) }

// CmdSUnion is SUNION key [key ...].
func CmdSUnion(c *Ctx, args [][]byte) { stSetOp(c, engine.SetUnion, args[1:]) }

// CmdSDiff is SDIFF key [key ...].
func CmdSDiff(c *Ctx, args [][]byte) { stSetOp(c, engine.SetDiff, args[1:]) }

// CmdSInterStore is SINTERSTORE destination key [key ...].
func CmdSInterStore(c *Ctx, args [][]byte) { stSetOpStore(c, engine.SetInter, args) }

// CmdSUnionStore is SUNIONSTORE destination key [key ...].
func CmdSUnionStore(c *Ctx, args [][]byte) { stSetOpStore(c, engine.SetUnion, args) }

// CmdSDiffStore is SDIFFSTORE destination key [key ...].
func CmdSDiffStore(c *Ctx, args [][]byte) { stSetOpStore(c, engine.SetDiff, args) }

// CmdSInterCard is SINTERCARD numkeys key [key ...] [LIMIT limit].
func CmdSInterCard(c *Ctx, args [][]byte) {
	numkeys, ok := num.ParseInt(args[1])
	if !ok || numkeys < 1 {
		c.W.Error(errtext.NumKeys)
		return
	}
	if numkeys > int64(len(args)-2) {
		c.W.Error(errtext.NumKeysArgs)
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(args); j++ {
		if kvIs(args[j], "limit") && j+1 < len(args) {
			j++
			l, ok := num.ParseInt(args[j])
			if !ok || l < 0 {
				c.W.Error(errtext.NegLimit)
				return
			}
			limit = l
			continue
		}
		c.W.Error(errtext.Syntax)
		return
	}
	n, err := c.DB.SetOpLen(engine.SetInter, args[2:2+numkeys], int(min(limit, math.MaxInt32)), c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdSScan is SSCAN key cursor [MATCH pattern] [COUNT count].
func CmdSScan(c *Ctx, args [][]byte) {
	cursor, errText := ParseScanCursor(args[2])
	if errText != "" {
		c.W.Error(errText)
		return
	}
	if n, err := c.DB.SCard(args[1], c.Now); hsErr(c, err) {
		return
	} else if n == 0 {
		hsEmptyScan(c)
		return
	}
	pattern, count, ok := hsScanArgs(c, args[3:])
	if !ok {
		return
	}
	var l hsList
	next, _ := c.DB.SScan(args[1], cursor, count, c.Now, func(m []byte) {
		if pattern == nil || engine.Match(pattern, m, false) {
			l.add(m)
		}
	})
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	l.write(c.W.Array, c)
}

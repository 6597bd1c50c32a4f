package command

import (
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the list family: its rows (as Redis 7.0 declares them) and
// handlers. The blocking commands' Handler is their non-blocking form (as
// inside MULTI: a timeout reply at once when there is nothing to pop);
// the shard loop runs their Blocking function instead (block.go).

func init() { register(listSpecs...) }

var listSpecs = []*Spec{
	{
		Name: "blmove", Arity: 6,
		Flags: Write | DenyOOM | NoScript | Blocking,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
		},
		Handler:   CmdBLMove,
		Propagate: propDropLast("LMOVE"),
		Summary:   "Pop an element from a list, push it to another list and return it; or block until one is available",
		Since:     "6.2.0", Group: "list",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "source", Type: "key"},
			{Name: "destination", Type: "key", KeySpecIndex: 1},
			{Name: "wherefrom", Type: "oneof", Args: []Arg{
				{Name: "left", Type: "pure-token", Token: "LEFT"},
				{Name: "right", Type: "pure-token", Token: "RIGHT"},
			}},
			{Name: "whereto", Type: "oneof", Args: []Arg{
				{Name: "left", Type: "pure-token", Token: "LEFT"},
				{Name: "right", Type: "pure-token", Token: "RIGHT"},
			}},
			{Name: "timeout", Type: "double"},
		},
	},
	{
		Name: "blmpop", Arity: -5,
		Flags: Write | Blocking | MovableKeys,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler:   CmdBLMPop,
		Propagate: propMPop("LMPOP"),
		Summary:   "Pop elements from a list, or block until one is available",
		Since:     "7.0.0", Group: "list",
		Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
		Args: []Arg{
			{Name: "timeout", Type: "double"},
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "where", Type: "oneof", Args: []Arg{
				{Name: "left", Type: "pure-token", Token: "LEFT"},
				{Name: "right", Type: "pure-token", Token: "RIGHT"},
			}},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "blpop", Arity: -3,
		Flags: Write | NoScript | Blocking,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: -2, Step: 1},
		},
		Handler:   CmdBLPop,
		Propagate: propPop("LPOP"),
		Summary:   "Remove and get the first element in a list, or block until one is available",
		Since:     "2.0.0", Group: "list",
		Complexity: "O(N) where N is the number of provided keys.",
		History: [][2]string{
			{"6.0.0", "`timeout` is interpreted as a double instead of an integer."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "timeout", Type: "double"},
		},
	},
	{
		Name: "brpop", Arity: -3,
		Flags: Write | NoScript | Blocking,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: -2, Step: 1},
		},
		Handler:   CmdBRPop,
		Propagate: propPop("RPOP"),
		Summary:   "Remove and get the last element in a list, or block until one is available",
		Since:     "2.0.0", Group: "list",
		Complexity: "O(N) where N is the number of provided keys.",
		History: [][2]string{
			{"6.0.0", "`timeout` is interpreted as a double instead of an integer."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "timeout", Type: "double"},
		},
	},
	{
		Name: "brpoplpush", Arity: 4,
		Flags: Write | DenyOOM | NoScript | Blocking,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
		},
		Handler:   CmdBRPopLPush,
		Propagate: propDropLast("RPOPLPUSH"),
		Summary:   "Pop an element from a list, push it to another list and return it; or block until one is available",
		Since:     "2.2.0", Group: "list",
		Complexity:      "O(1)",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`BLMOVE` with the `RIGHT` and `LEFT` arguments",
		History: [][2]string{
			{"6.0.0", "`timeout` is interpreted as a double instead of an integer."},
		},
		Args: []Arg{
			{Name: "source", Type: "key"},
			{Name: "destination", Type: "key", KeySpecIndex: 1},
			{Name: "timeout", Type: "double"},
		},
	},
	{
		Name: "lindex", Arity: 3,
		Flags: ReadOnly,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLIndex,
		Summary: "Get an element from a list by its index",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "index", Type: "integer"},
		},
	},
	{
		Name: "linsert", Arity: 5,
		Flags: Write | DenyOOM,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLInsert,
		Summary: "Insert an element before or after another element in a list",
		Since:   "2.2.0", Group: "list",
		Complexity: "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "where", Type: "oneof", Args: []Arg{
				{Name: "before", Type: "pure-token", Token: "BEFORE"},
				{Name: "after", Type: "pure-token", Token: "AFTER"},
			}},
			{Name: "pivot", Type: "string"},
			{Name: "element", Type: "string"},
		},
	},
	{
		Name: "llen", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLLen,
		Summary: "Get the length of a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key"},
		},
	},
	{
		Name: "lmove", Arity: 5,
		Flags: Write | DenyOOM,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdLMove,
		Summary: "Pop an element from a list, push it to another list and return it",
		Since:   "6.2.0", Group: "list",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "source", Type: "key"},
			{Name: "destination", Type: "key", KeySpecIndex: 1},
			{Name: "wherefrom", Type: "oneof", Args: []Arg{
				{Name: "left", Type: "pure-token", Token: "LEFT"},
				{Name: "right", Type: "pure-token", Token: "RIGHT"},
			}},
			{Name: "whereto", Type: "oneof", Args: []Arg{
				{Name: "left", Type: "pure-token", Token: "LEFT"},
				{Name: "right", Type: "pure-token", Token: "RIGHT"},
			}},
		},
	},
	{
		Name: "lmpop", Arity: -4,
		Flags: Write | MovableKeys,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1},
		},
		Handler: CmdLMPop,
		Summary: "Pop elements from a list",
		Since:   "7.0.0", Group: "list",
		Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
		Args: []Arg{
			{Name: "numkeys", Type: "integer"},
			{Name: "key", Type: "key", Flags: ArgMultiple},
			{Name: "where", Type: "oneof", Args: []Arg{
				{Name: "left", Type: "pure-token", Token: "LEFT"},
				{Name: "right", Type: "pure-token", Token: "RIGHT"},
			}},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
	{
		Name: "lpop", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLPop,
		Summary: "Remove and get the first elements in a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(N) where N is the number of elements returned",
		History: [][2]string{
			{"6.2.0", "Added the `count` argument."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "count", Type: "integer", Since: "6.2.0", Flags: ArgOptional},
		},
	},
	{
		Name: "lpos", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLPos,
		Summary: "Return the index of matching elements on a list",
		Since:   "6.0.6", Group: "list",
		Complexity: "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "element", Type: "string"},
			{Name: "rank", Type: "integer", Token: "RANK", Flags: ArgOptional},
			{Name: "num-matches", Type: "integer", Token: "COUNT", Flags: ArgOptional},
			{Name: "len", Type: "integer", Token: "MAXLEN", Flags: ArgOptional},
		},
	},
	{
		Name: "lpush", Arity: -3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLPush,
		Summary: "Prepend one or multiple elements to a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple `element` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "element", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "lpushx", Arity: -3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLPushX,
		Summary: "Prepend an element to a list, only if the list exists",
		Since:   "2.2.0", Group: "list",
		Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
		History: [][2]string{
			{"4.0.0", "Accepts multiple `element` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "element", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "lrange", Arity: 4,
		Flags: ReadOnly,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLRange,
		Summary: "Get a range of elements from a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "start", Type: "integer"},
			{Name: "stop", Type: "integer"},
		},
	},
	{
		Name: "lrem", Arity: 4,
		Flags: Write,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLRem,
		Summary: "Remove elements from a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(N+M) where N is the length of the list and M is the number of elements removed.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "count", Type: "integer"},
			{Name: "element", Type: "string"},
		},
	},
	{
		Name: "lset", Arity: 4,
		Flags: Write | DenyOOM,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLSet,
		Summary: "Set the value of an element in a list by its index",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "index", Type: "integer"},
			{Name: "element", Type: "string"},
		},
	},
	{
		Name: "ltrim", Arity: 4,
		Flags: Write,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdLTrim,
		Summary: "Trim a list to the specified range",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(N) where N is the number of elements to be removed by the operation.",
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "start", Type: "integer"},
			{Name: "stop", Type: "integer"},
		},
	},
	{
		Name: "rpop", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdRPop,
		Summary: "Remove and get the last elements in a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(N) where N is the number of elements returned",
		History: [][2]string{
			{"6.2.0", "Added the `count` argument."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "count", Type: "integer", Since: "6.2.0", Flags: ArgOptional},
		},
	},
	{
		Name: "rpoplpush", Arity: 3,
		Flags: Write | DenyOOM,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyInsert, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdRPopLPush,
		Summary: "Remove the last element in a list, prepend it to another list and return it",
		Since:   "1.2.0", Group: "list",
		Complexity:      "O(1)",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`LMOVE` with the `RIGHT` and `LEFT` arguments",
		Args: []Arg{
			{Name: "source", Type: "key"},
			{Name: "destination", Type: "key", KeySpecIndex: 1},
		},
	},
	{
		Name: "rpush", Arity: -3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdRPush,
		Summary: "Append one or multiple elements to a list",
		Since:   "1.0.0", Group: "list",
		Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple `element` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "element", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "rpushx", Arity: -3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"list"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdRPushX,
		Summary: "Append an element to a list, only if the list exists",
		Since:   "2.2.0", Group: "list",
		Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
		History: [][2]string{
			{"4.0.0", "Accepts multiple `element` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key"},
			{Name: "element", Type: "string", Flags: ArgMultiple},
		},
	},
}

// lsPosition parses LEFT/RIGHT (Redis's getListPositionFromObjectOrReply).
func lsPosition(c *Ctx, b []byte) (left, ok bool) {
	switch {
	case kvIs(b, "left"):
		return true, true
	case kvIs(b, "right"):
		return false, true
	}
	c.W.Error(errtext.Syntax)
	return false, false
}

// lsRangeLong is Redis's getRangeLongFromObjectOrReply: an integer within
// [lo, hi]; msg (when set) replaces both errors, else the range error
// names the bounds.
func lsRangeLong(c *Ctx, b []byte, lo, hi int64, msg string) (int64, bool) {
	v, ok := num.ParseInt(b)
	if !ok {
		if msg == "" {
			msg = errtext.NotInt
		}
		c.W.Error(msg)
		return 0, false
	}
	if v < lo || v > hi {
		if msg == "" {
			msg = "ERR value is out of range, value must between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10)
		}
		c.W.Error(msg)
		return 0, false
	}
	return v, true
}

// lsPositive is Redis's getPositiveLongFromObjectOrReply with no message.
func lsPositive(c *Ctx, b []byte) (int64, bool) {
	return lsRangeLong(c, b, 0, math.MaxInt64, errtext.NotPositive)
}

func lsPush(c *Ctx, args [][]byte, left, xx bool) {
	n, err := c.DB.ListPush(args[1], args[2:], left, xx, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdLPush is LPUSH key element [element ...].
func CmdLPush(c *Ctx, args [][]byte) { lsPush(c, args, true, false) }

// CmdRPush is RPUSH key element [element ...].
func CmdRPush(c *Ctx, args [][]byte) { lsPush(c, args, false, false) }

// CmdLPushX is LPUSHX key element [element ...].
func CmdLPushX(c *Ctx, args [][]byte) { lsPush(c, args, true, true) }

// CmdRPushX is RPUSHX key element [element ...].
func CmdRPushX(c *Ctx, args [][]byte) { lsPush(c, args, false, true) }

func lsPop(c *Ctx, args [][]byte, left bool) {
	if len(args) > 3 {
		c.W.WrongArgs(string(args[0]))
		return
	}
	if len(args) == 2 {
		n, err := c.DB.ListPop(args[1], left, 1, c.Now, func(_, _ int, v []byte) { c.W.Bulk(v) })
		switch {
		case err != nil:
			c.W.Error(err.Error())
		case n == 0:
			c.W.Null()
		}
		return
	}
	count, ok := lsPositive(c, args[2])
	if !ok {
		return
	}
	if count == 0 {
		// Redis answers an empty array for an existing list, a null one
		// for a missing key; WRONGTYPE still applies.
		n, err := c.DB.ListLen(args[1], c.Now)
		switch {
		case err != nil:
			c.W.Error(err.Error())
		case n == 0:
			c.W.NullArray()
		default:
			c.W.Array(0)
		}
		return
	}
	n, err := c.DB.ListPop(args[1], left, int(min(count, 1<<62)), c.Now, func(total, i int, v []byte) {
		if i == 0 {
			c.W.Array(total)
		}
		c.W.Bulk(v)
	})
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case n == 0:
		c.W.NullArray()
	}
}

// CmdLPop is LPOP key [count].
func CmdLPop(c *Ctx, args [][]byte) { lsPop(c, args, true) }

// CmdRPop is RPOP key [count].
func CmdRPop(c *Ctx, args [][]byte) { lsPop(c, args, false) }

// CmdLLen is LLEN key.
func CmdLLen(c *Ctx, args [][]byte) {
	n, err := c.DB.ListLen(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// lsIndex parses a list index (a C long) into an int, saturating: the
// engine clamps anything beyond the list anyway.
func lsIndex(c *Ctx, b []byte) (int, bool) {
	v, ok := kvArgInt(c, b)
	return lsClamp(v), ok
}

// lsClamp bounds an index to ±2^62, where arithmetic on it cannot
// overflow and no list reaches.
func lsClamp(v int64) int { return int(max(min(v, 1<<62), -(1 << 62))) }

// keyedIndex is LINDEX's and LSET's index. Redis looks the key up before
// it parses the index: a bad index of a missing key is LINDEX's nil or
// LSET's "no such key", and of another type's key WRONGTYPE. false:
// replied.
func keyedIndex(c *Ctx, key, b []byte, set bool) (int, bool) {
	if v, ok := num.ParseInt(b); ok {
		return lsClamp(v), true
	}
	switch c.DB.TypeOf(key, c.Now) {
	case engine.TypeNone:
		if set {
			c.W.Error(errtext.NoSuchKey)
		} else {
			c.W.Null()
		}
	case engine.TypeList:
		c.W.Error(errtext.NotInt)
	default:
		c.W.Error(errtext.WrongType)
	}
	return 0, false
}

// CmdLRange is LRANGE key start stop.
func CmdLRange(c *Ctx, args [][]byte) {
	start, ok := lsIndex(c, args[2])
	if !ok {
		return
	}
	stop, ok := lsIndex(c, args[3])
	if !ok {
		return
	}
	n, err := c.DB.ListRange(args[1], start, stop, c.Now, func(total, i int, v []byte) {
		if i == 0 {
			c.W.Array(total)
		}
		c.W.Bulk(v)
	})
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case n == 0:
		c.W.Array(0)
	}
}

// CmdLIndex is LINDEX key index.
func CmdLIndex(c *Ctx, args [][]byte) {
	idx, ok := keyedIndex(c, args[1], args[2], false)
	if !ok {
		return
	}
	v, found, err := c.DB.ListIndex(args[1], idx, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !found:
		c.W.Null()
	default:
		c.W.Bulk(v)
	}
}

// CmdLSet is LSET key index element.
func CmdLSet(c *Ctx, args [][]byte) {
	idx, ok := keyedIndex(c, args[1], args[2], true)
	if !ok {
		return
	}
	if err := c.DB.ListSet(args[1], idx, args[3], c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.OK()
}

// CmdLInsert is LINSERT key BEFORE|AFTER pivot element.
func CmdLInsert(c *Ctx, args [][]byte) {
	var before bool
	switch {
	case kvIs(args[2], "before"):
		before = true
	case kvIs(args[2], "after"):
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	n, err := c.DB.ListInsert(args[1], before, args[3], args[4], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdLRem is LREM key count element.
func CmdLRem(c *Ctx, args [][]byte) {
	count, ok := lsIndex(c, args[2])
	if !ok {
		return
	}
	n, err := c.DB.ListRem(args[1], count, args[3], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdLTrim is LTRIM key start stop.
func CmdLTrim(c *Ctx, args [][]byte) {
	start, ok := lsIndex(c, args[2])
	if !ok {
		return
	}
	stop, ok := lsIndex(c, args[3])
	if !ok {
		return
	}
	if err := c.DB.ListTrim(args[1], start, stop, c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.OK()
}

// CmdLPos is LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
func CmdLPos(c *Ctx, args [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case kvIs(args[j], "rank") && more:
			v, ok := kvArgInt(c, args[j+1])
			if !ok {
				return
			}
			if v == 0 {
				c.W.Error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = v
			if v == -1<<63 {
				rank = -1 // Redis negates it, overflowing: the first match from the tail
			}
		case kvIs(args[j], "count") && more:
			v, ok := lsRangeLong(c, args[j+1], 0, 1<<63-1, "ERR COUNT can't be negative")
			if !ok {
				return
			}
			count = v
		case kvIs(args[j], "maxlen") && more:
			v, ok := lsRangeLong(c, args[j+1], 0, 1<<63-1, "ERR MAXLEN can't be negative")
			if !ok {
				return
			}
			maxlen = v
		default:
			c.W.Error(errtext.Syntax)
			return
		}
		j++
	}
	// Matches are collected first: the array header needs their number.
	var found []int
	limit := int(min(count, 1<<62))
	if count <= 0 {
		limit = 1
		if count == 0 {
			limit = 1 << 62
		}
	}
	r := int(max(min(rank, 1<<62), -(1 << 62)))
	err := c.DB.ListPos(args[1], args[2], r, int(min(maxlen, 1<<62)), c.Now, func(i int) bool {
		found = append(found, i)
		return len(found) < limit
	})
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if count < 0 {
		if len(found) == 0 {
			c.W.Null()
		} else {
			c.W.Int(int64(found[0]))
		}
		return
	}
	c.W.Array(len(found))
	for _, i := range found {
		c.W.Int(int64(i))
	}
}

// lsMove runs LMOVE's work and writes its reply.
func lsMove(c *Ctx, src, dst []byte, srcLeft, dstLeft bool) {
	found, err := c.DB.ListMove(src, dst, srcLeft, dstLeft, c.Now, func(v []byte) { c.W.Bulk(v) })
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !found:
		c.W.Null()
	}
}

// CmdLMove is LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
func CmdLMove(c *Ctx, args [][]byte) {
	from, ok := lsPosition(c, args[3])
	if !ok {
		return
	}
	to, ok := lsPosition(c, args[4])
	if !ok {
		return
	}
	lsMove(c, args[1], args[2], from, to)
}

// CmdRPopLPush is RPOPLPUSH source destination.
func CmdRPopLPush(c *Ctx, args [][]byte) { lsMove(c, args[1], args[2], false, true) }

// lsMPopArgs parses LMPOP's arguments from the numkeys argument at
// args[at]: the keys, the end and the count. ok false: replied.
func lsMPopArgs(c *Ctx, args [][]byte, at int) (keys [][]byte, left bool, count int, ok bool) {
	numkeys, ok := lsRangeLong(c, args[at], 1, 1<<63-1, errtext.NumKeys)
	if !ok {
		return nil, false, 0, false
	}
	if numkeys > int64(len(args)-at-2) { // no room for the keys and the end (no overflow)
		c.W.Error(errtext.Syntax)
		return nil, false, 0, false
	}
	where := at + int(numkeys) + 1
	if left, ok = lsPosition(c, args[where]); !ok {
		return nil, false, 0, false
	}
	cnt := int64(-1)
	for j := int(where) + 1; j < len(args); j++ {
		if cnt == -1 && kvIs(args[j], "count") && j+1 < len(args) {
			j++
			if cnt, ok = lsRangeLong(c, args[j], 1, 1<<63-1, errtext.Count); !ok {
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
	return args[at+1 : where], left, int(min(cnt, 1<<62)), true
}

// lsMPop pops from the first non-empty list of keys and writes
// [key, [elements]]; it reports false (writing nothing) when every list is
// empty.
func lsMPop(c *Ctx, keys [][]byte, left bool, count int) bool {
	for _, k := range keys {
		n, err := c.DB.ListPop(k, left, count, c.Now, func(total, i int, v []byte) {
			if i == 0 {
				c.W.Array(2)
				c.W.Bulk(k)
				c.W.Array(total)
			}
			c.W.Bulk(v)
		})
		if err != nil {
			c.W.Error(err.Error())
			return true
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// CmdLMPop is LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count].
func CmdLMPop(c *Ctx, args [][]byte) {
	keys, left, count, ok := lsMPopArgs(c, args, 1)
	if ok && !lsMPop(c, keys, left, count) {
		c.W.NullArray()
	}
}

// lsBPop is BLPOP/BRPOP's non-blocking part: the first non-empty list
// gives [key, element]. It reports false when there is nothing to pop.
func lsBPop(c *Ctx, keys [][]byte, left bool) bool {
	for _, k := range keys {
		n, err := c.DB.ListPop(k, left, 1, c.Now, func(_, _ int, v []byte) {
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.Bulk(v)
		})
		if err != nil {
			c.W.Error(err.Error())
			return true
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// BlockLPop is BLPOP key [key ...] timeout.
func BlockLPop(c *Ctx, args [][]byte, wait *Wait) bool {
	return blockPop(c, args, wait, true)
}

// BlockRPop is BRPOP key [key ...] timeout.
func BlockRPop(c *Ctx, args [][]byte, wait *Wait) bool {
	return blockPop(c, args, wait, false)
}

func blockPop(c *Ctx, args [][]byte, wait *Wait, left bool) bool {
	deadline, ok := blockTimeout(c, args[len(args)-1])
	if !ok || lsBPop(c, args[1:len(args)-1], left) {
		return false
	}
	wait.set(deadline, 1, len(args)-1)
	return true
}

// BlockLMove is BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
func BlockLMove(c *Ctx, args [][]byte, wait *Wait) bool {
	from, ok := lsPosition(c, args[3])
	if !ok {
		return false
	}
	to, ok := lsPosition(c, args[4])
	if !ok {
		return false
	}
	return blockMove(c, args, wait, 5, from, to)
}

// BlockRPopLPush is BRPOPLPUSH source destination timeout.
func BlockRPopLPush(c *Ctx, args [][]byte, wait *Wait) bool {
	return blockMove(c, args, wait, 3, false, true)
}

func blockMove(c *Ctx, args [][]byte, wait *Wait, tidx int, from, to bool) bool {
	deadline, ok := blockTimeout(c, args[tidx])
	if !ok {
		return false
	}
	n, err := c.DB.ListLen(args[1], c.Now)
	if err != nil || n > 0 {
		lsMove(c, args[1], args[2], from, to)
		return false
	}
	wait.set(deadline, 1, 2)
	return true
}

// BlockLMPop is BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count].
func BlockLMPop(c *Ctx, args [][]byte, wait *Wait) bool {
	deadline, ok := blockTimeout(c, args[1])
	if !ok {
		return false
	}
	keys, left, count, ok := lsMPopArgs(c, args, 2)
	if !ok || lsMPop(c, keys, left, count) {
		return false
	}
	wait.set(deadline, 3, 3+len(keys))
	return true
}

// CmdBLPop is BLPOP that never blocks (inside MULTI, scripts).
func CmdBLPop(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockLPop, true) }

// CmdBRPop is BRPOP that never blocks.
func CmdBRPop(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockRPop, true) }

// CmdBLMove is BLMOVE that never blocks.
func CmdBLMove(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockLMove, false) }

// CmdBRPopLPush is BRPOPLPUSH that never blocks.
func CmdBRPopLPush(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockRPopLPush, false) }

// CmdBLMPop is BLMPOP that never blocks.
func CmdBLMPop(c *Ctx, args [][]byte) { nonBlocking(c, args, BlockLMPop, true) }

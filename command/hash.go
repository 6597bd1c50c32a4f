package command

import (
	"math"
	"math/big"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the hash family: its rows (as Redis 7.0 declares them) and
// handlers. The engine (engine/hash.go) does the work; handlers parse,
// check and reply.

func init() { register(hashSpecs...) }

var hashSpecs = []*Spec{
	{
		Name: "hset", Arity: -4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHSet,
		Summary: "Set the string value of a hash field",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
		History: [][2]string{
			{"4.0.0", "Accepts multiple `field` and `value` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "field", Type: "string"},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		Name: "hsetnx", Arity: 4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHSetNX,
		Summary: "Set the value of a hash field, only if the field does not exist",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string"},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "hget", Arity: 3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHGet,
		Summary: "Get the value of a hash field",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string"},
		},
	},
	{
		Name: "hmget", Arity: -3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHMGet,
		Summary: "Get the values of all the given hash fields",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(N) where N is the number of fields being requested.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "hmset", Arity: -4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHMSet,
		Summary: "Set multiple hash fields to multiple values",
		Since:   "2.0.0", Group: "hash",
		Complexity:      "O(N) where N is the number of fields being set.",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "4.0.0",
		ReplacedBy:      "`HSET` with multiple field-value pairs",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "field", Type: "string"},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		Name: "hdel", Arity: -3,
		Flags: Write | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHDel,
		Summary: "Delete one or more hash fields",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(N) where N is the number of fields to be removed.",
		History: [][2]string{
			{"2.4.0", "Accepts multiple `field` arguments."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "hlen", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHLen,
		Summary: "Get the number of fields in a hash",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "hstrlen", Arity: 3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHStrLen,
		Summary: "Get the length of the value of a hash field",
		Since:   "3.2.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string"},
		},
	},
	{
		Name: "hexists", Arity: 3,
		Flags: ReadOnly | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHExists,
		Summary: "Determine if a hash field exists",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string"},
		},
	},
	{
		Name: "hkeys", Arity: 2,
		Flags: ReadOnly,
		ACL:   []string{"hash"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHKeys,
		Summary: "Get all the fields in a hash",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(N) where N is the size of the hash.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "hvals", Arity: 2,
		Flags: ReadOnly,
		ACL:   []string{"hash"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHVals,
		Summary: "Get all the values in a hash",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(N) where N is the size of the hash.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "hgetall", Arity: 2,
		Flags: ReadOnly,
		ACL:   []string{"hash"},
		Tips:  []string{"nondeterministic_output_order"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHGetAll,
		Summary: "Get all the fields and values in a hash",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(N) where N is the size of the hash.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "hincrby", Arity: 4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHIncrBy,
		Summary: "Increment the integer value of a hash field by the given number",
		Since:   "2.0.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string"},
			{Name: "increment", Type: "integer"},
		},
	},
	{
		Name: "hincrbyfloat", Arity: 4,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"hash"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdHIncrByFloat,
		Propagate: propHIncrByFloat,
		Summary:   "Increment the float value of a hash field by the given amount",
		Since:     "2.6.0", Group: "hash",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "field", Type: "string"},
			{Name: "increment", Type: "double"},
		},
	},
	{
		Name: "hrandfield", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"hash"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHRandField,
		Summary: "Get one or multiple random fields from a hash",
		Since:   "6.2.0", Group: "hash",
		Complexity: "O(N) where N is the number of fields returned",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "options", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "count", Type: "integer"},
				{Name: "withvalues", Type: "pure-token", Token: "WITHVALUES", Flags: ArgOptional},
			}},
		},
	},
	{
		Name: "hscan", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"hash"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdHScan,
		Summary: "Incrementally iterate hash fields and associated values",
		Since:   "2.8.0", Group: "hash",
		Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "cursor", Type: "integer"},
			{Name: "pattern", Type: "pattern", Token: "MATCH", Flags: ArgOptional},
			{Name: "count", Type: "integer", Token: "COUNT", Flags: ArgOptional},
		},
	},
}

// hsErr writes an engine error (WRONGTYPE) and reports whether there was one.
func hsErr(c *Ctx, err error) bool {
	if err != nil {
		c.W.Error(err.Error())
		return true
	}
	return false
}

// CmdHSet is HSET key field value [field value ...]; it replies the number
// of new fields.
func CmdHSet(c *Ctx, args [][]byte) {
	if len(args)%2 != 0 {
		c.W.WrongArgs("hset")
		return
	}
	n, err := c.DB.HSet(args[1], args[2:], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdHMSet is HMSET key field value [field value ...] (+OK).
func CmdHMSet(c *Ctx, args [][]byte) {
	if len(args)%2 != 0 {
		c.W.WrongArgs("hmset")
		return
	}
	if _, err := c.DB.HSet(args[1], args[2:], c.Now); !hsErr(c, err) {
		c.W.OK()
	}
}

// CmdHSetNX is HSETNX key field value.
func CmdHSetNX(c *Ctx, args [][]byte) {
	ok, err := c.DB.HSetNX(args[1], args[2], args[3], c.Now)
	if !hsErr(c, err) {
		c.W.Int(b2i(ok))
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// CmdHGet is HGET key field.
func CmdHGet(c *Ctx, args [][]byte) {
	v, ok, err := c.DB.HGet(args[1], args[2], c.Now)
	if !hsErr(c, err) {
		c.W.BulkOrNull(v, ok)
	}
}

// CmdHMGet is HMGET key field [field ...].
func CmdHMGet(c *Ctx, args [][]byte) {
	if _, err := c.DB.HLen(args[1], c.Now); hsErr(c, err) {
		return
	}
	c.W.Array(len(args) - 2)
	for _, f := range args[2:] {
		v, ok, _ := c.DB.HGet(args[1], f, c.Now)
		c.W.BulkOrNull(v, ok)
	}
}

// CmdHDel is HDEL key field [field ...].
func CmdHDel(c *Ctx, args [][]byte) {
	n, err := c.DB.HDel(args[1], args[2:], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdHLen is HLEN key.
func CmdHLen(c *Ctx, args [][]byte) {
	n, err := c.DB.HLen(args[1], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(n))
	}
}

// CmdHStrLen is HSTRLEN key field.
func CmdHStrLen(c *Ctx, args [][]byte) {
	v, _, err := c.DB.HGet(args[1], args[2], c.Now)
	if !hsErr(c, err) {
		c.W.Int(int64(len(v)))
	}
}

// CmdHExists is HEXISTS key field.
func CmdHExists(c *Ctx, args [][]byte) {
	_, ok, err := c.DB.HGet(args[1], args[2], c.Now)
	if !hsErr(c, err) {
		c.W.Int(b2i(ok))
	}
}

// hsGetAll writes HKEYS (what 1), HVALS (2) or HGETALL (3).
func hsGetAll(c *Ctx, key []byte, what int) {
	n, err := c.DB.HLen(key, c.Now)
	if hsErr(c, err) {
		return
	}
	if what == 3 {
		c.W.Map(n)
	} else {
		c.W.Array(n)
	}
	c.DB.HEach(key, c.Now, func(f, v []byte) bool {
		if what&1 != 0 {
			c.W.Bulk(f)
		}
		if what&2 != 0 {
			c.W.Bulk(v)
		}
		return true
	})
}

// CmdHKeys is HKEYS key.
func CmdHKeys(c *Ctx, args [][]byte) { hsGetAll(c, args[1], 1) }

// CmdHVals is HVALS key.
func CmdHVals(c *Ctx, args [][]byte) { hsGetAll(c, args[1], 2) }

// CmdHGetAll is HGETALL key (a map in RESP3).
func CmdHGetAll(c *Ctx, args [][]byte) { hsGetAll(c, args[1], 3) }

// CmdHIncrBy is HINCRBY key field increment.
func CmdHIncrBy(c *Ctx, args [][]byte) {
	incr, ok := kvArgInt(c, args[3])
	if !ok {
		return
	}
	v, found, err := c.DB.HGet(args[1], args[2], c.Now)
	if hsErr(c, err) {
		return
	}
	var cur int64
	if found {
		if cur, ok = num.ParseInt(v); !ok {
			c.W.Error("ERR hash value is not an integer")
			return
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.W.Error(errtext.Overflow)
		return
	}
	cur += incr
	var buf [20]byte
	c.DB.HSet(args[1], [][]byte{args[2], strconv.AppendInt(buf[:0], cur, 10)}, c.Now)
	c.W.Int(cur)
}

// CmdHIncrByFloat is HINCRBYFLOAT key field increment, in C long double
// arithmetic as INCRBYFLOAT.
func CmdHIncrByFloat(c *Ctx, args [][]byte) {
	incr, ok := num.ParseLongDouble(args[3])
	if !ok {
		c.W.Error(errtext.NotFloat)
		return
	}
	if incr.IsInf() {
		c.W.Error("ERR value is NaN or Infinity")
		return
	}
	v, found, err := c.DB.HGet(args[1], args[2], c.Now)
	if hsErr(c, err) {
		return
	}
	cur := new(big.Float)
	if found {
		if cur, ok = num.ParseLongDouble(v); !ok {
			c.W.Error("ERR hash value is not a float")
			return
		}
	}
	sum, ok := num.AddLongDouble(cur, incr)
	if !ok {
		c.W.Error(errtext.IncrNaN)
		return
	}
	out := num.AppendLongDouble(nil, sum)
	c.DB.HSet(args[1], [][]byte{args[2], out}, c.Now)
	c.W.Bulk(out)
}

// CmdHRandField is HRANDFIELD key [count [WITHVALUES]].
func CmdHRandField(c *Ctx, args [][]byte) {
	if len(args) == 2 {
		found := false
		err := c.DB.HRandField(args[1], 1, c.Now, func(field, _ []byte) {
			c.W.Bulk(field)
			found = true
		})
		if !hsErr(c, err) && !found {
			c.W.Null()
		}
		return
	}
	count, ok := hsRangeLong(c, args[2])
	if !ok {
		return
	}
	if len(args) > 4 || len(args) == 4 && !kvIs(args[3], "withvalues") {
		c.W.Error(errtext.Syntax)
		return
	}
	withValues := len(args) == 4
	if withValues && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		c.W.Error(errtext.OutOfRange)
		return
	}
	n, err := c.DB.HLen(args[1], c.Now)
	if hsErr(c, err) {
		return
	}
	replies := hsReplyCount(count, n)
	if withValues && c.W.Proto == 3 {
		c.W.Array(replies)
	} else if withValues {
		c.W.Array(2 * replies)
	} else {
		c.W.Array(replies)
	}
	if replies == 0 {
		return
	}
	c.DB.HRandField(args[1], count, c.Now, func(f, v []byte) {
		if withValues && c.W.Proto == 3 {
			c.W.Array(2)
		}
		c.W.Bulk(f)
		if withValues {
			c.W.Bulk(v)
		}
	})
}

// hsReplyCount is how many elements a random pick of count from size gives.
func hsReplyCount(count int64, size int) int {
	switch {
	case size == 0 || count == 0:
		return 0
	case count < 0:
		return int(-count)
	default:
		return int(min(count, int64(size)))
	}
}

// hsRangeLong parses a count in [-LONG_MAX, LONG_MAX] as Redis's
// getRangeLongFromObjectOrReply does.
func hsRangeLong(c *Ctx, b []byte) (int64, bool) {
	v, ok := kvArgInt(c, b)
	if ok && v == math.MinInt64 {
		c.W.Error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return 0, false
	}
	return v, ok
}

// hsScanArgs parses [MATCH pattern] [COUNT count] of HSCAN/SSCAN/ZSCAN
// (Redis's scanGenericCommand for a key); ok false means the reply is
// written.
func hsScanArgs(c *Ctx, args [][]byte) (pattern []byte, count int, ok bool) {
	pattern, count, _, ok = scanArgs(c, args, "")
	return pattern, count, ok
}

// scanArgs is hsScanArgs for a SCAN that also takes the flag only
// ("novalues": HSCAN's NOVALUES, Redis 7.4's; "noscores": ZSCAN's
// NOSCORES, Valkey 8's), which it reports; the other SCANs refuse these
// flags with Redis's and Valkey's texts.
func scanArgs(c *Ctx, args [][]byte, only string) (pattern []byte, count int, flag, ok bool) {
	count = 10
	for i := 0; i < len(args); i += 2 {
		switch {
		case only != "" && kvIs(args[i], only):
			flag = true
			i--
			continue
		case kvIs(args[i], "novalues"):
			c.W.Error("ERR NOVALUES option can only be used in HSCAN")
			return nil, 0, false, false
		case kvIs(args[i], "noscores"):
			c.W.Error("ERR NOSCORES option can only be used in ZSCAN")
			return nil, 0, false, false
		}
		if len(args)-i < 2 {
			c.W.Error(errtext.Syntax)
			return nil, 0, false, false
		}
		switch {
		case kvIs(args[i], "count"):
			n, ok := kvArgInt(c, args[i+1])
			if !ok {
				return nil, 0, false, false
			}
			if n < 1 {
				c.W.Error(errtext.Syntax)
				return nil, 0, false, false
			}
			count = int(min(n, math.MaxInt32))
		case kvIs(args[i], "match"):
			pattern = args[i+1]
			if len(pattern) == 1 && pattern[0] == '*' {
				pattern = nil
			}
		default:
			c.W.Error(errtext.Syntax)
			return nil, 0, false, false
		}
	}
	return pattern, count, flag, true
}

// hsEmptyScan is Redis's shared.emptyscan: cursor 0, no elements.
func hsEmptyScan(c *Ctx) {
	c.W.Array(2)
	c.W.BulkString("0")
	c.W.Array(0)
}

// CmdHScan is HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES].
func CmdHScan(c *Ctx, args [][]byte) {
	cursor, errText := ParseScanCursor(args[2])
	if errText != "" {
		c.W.Error(errText)
		return
	}
	if n, err := c.DB.HLen(args[1], c.Now); hsErr(c, err) {
		return
	} else if n == 0 {
		hsEmptyScan(c)
		return
	}
	pattern, count, novalues, ok := scanArgs(c, args[3:], "novalues")
	if !ok {
		return
	}
	var l hsList
	next, _ := c.DB.HScan(args[1], cursor, count, c.Now, func(f, v []byte) {
		if pattern == nil || engine.Match(pattern, f, false) {
			l.add(f)
			if !novalues {
				l.add(v)
			}
		}
	})
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	l.write(c.W.Array, c)
}

// hsList collects borrowed strings into one arena until the reply can be
// written.
type hsList struct {
	arena []byte
	ends  []int
}

func (l *hsList) add(b []byte) {
	l.arena = append(l.arena, b...)
	l.ends = append(l.ends, len(l.arena))
}

// write writes the strings under a header written by hdr (c.W.Array or
// c.W.Set).
func (l *hsList) write(hdr func(int), c *Ctx) {
	hdr(len(l.ends))
	start := 0
	for _, e := range l.ends {
		c.W.Bulk(l.arena[start:e])
		start = e
	}
}

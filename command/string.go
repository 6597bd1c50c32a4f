package command

import (
	"math"
	"math/big"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the string family: its rows (as Redis 7.0 declares them) and
// handlers. Handlers run on the shard that owns their keys; the multi-key
// ones (MGET, MSET, MSETNX) work on the part of the keys that shard got.

func init() { register(stringSpecs...) }

var stringSpecs = []*Spec{
	{
		Name: "get", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGet,
		Summary: "Get the value of a key",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "set", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate | KeyVariableFlags, Index: 1, LastKey: 0, Step: 1, Notes: "RW and ACCESS due to the optional `GET` argument"},
		},
		KeyFlags:  setKeyFlags,
		Handler:   CmdSet,
		Propagate: propSet(2),
		Verbatim:  3,
		Summary:   "Set the string value of a key",
		Since:     "1.0.0", Group: "string",
		Complexity: "O(1)",
		History: [][2]string{
			{"2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options."},
			{"6.0.0", "Added the `KEEPTTL` option."},
			{"6.2.0", "Added the `GET`, `EXAT` and `PXAT` option."},
			{"7.0.0", "Allowed the `NX` and `GET` options to be used together."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "value", Type: "string"},
			{Name: "condition", Type: "oneof", Since: "2.6.12", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
			}},
			{Name: "get", Type: "pure-token", Token: "GET", Since: "6.2.0", Flags: ArgOptional},
			{Name: "expiration", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "seconds", Type: "integer", Token: "EX", Since: "2.6.12"},
				{Name: "milliseconds", Type: "integer", Token: "PX", Since: "2.6.12"},
				{Name: "unix-time-seconds", Type: "unix-time", Token: "EXAT", Since: "6.2.0"},
				{Name: "unix-time-milliseconds", Type: "unix-time", Token: "PXAT", Since: "6.2.0"},
				{Name: "keepttl", Type: "pure-token", Token: "KEEPTTL", Since: "6.0.0"},
			}},
		},
	},
	{
		Name: "setnx", Arity: 3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSetNX,
		Summary: "Set the value of a key, only if the key does not exist",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "setex", Arity: 4,
		Flags: Write | DenyOOM,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdSetEx,
		Propagate: propSet(3),
		Summary:   "Set the value and expiration of a key",
		Since:     "2.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "seconds", Type: "integer"},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "psetex", Arity: 4,
		Flags: Write | DenyOOM,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdPSetEx,
		Propagate: propSet(3),
		Summary:   "Set the value and expiration in milliseconds of a key",
		Since:     "2.6.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "milliseconds", Type: "integer"},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "getset", Arity: 3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGetSet,
		Summary: "Set the string value of a key and return its old value",
		Since:   "1.0.0", Group: "string",
		Complexity:      "O(1)",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`SET` with the `!GET` argument",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "getdel", Arity: 2,
		Flags: Write | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGetDel,
		Summary: "Get the value of a key and delete the key",
		Since:   "6.2.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "getex", Arity: -2,
		Flags: Write | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1, Notes: "RW and UPDATE because it changes the TTL"},
		},
		Handler:   CmdGetEx,
		Propagate: propExpire,
		Summary:   "Get the value of a key and optionally set its expiration",
		Since:     "6.2.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "expiration", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "seconds", Type: "integer", Token: "EX"},
				{Name: "milliseconds", Type: "integer", Token: "PX"},
				{Name: "unix-time-seconds", Type: "unix-time", Token: "EXAT"},
				{Name: "unix-time-milliseconds", Type: "unix-time", Token: "PXAT"},
				{Name: "persist", Type: "pure-token", Token: "PERSIST"},
			}},
		},
	},
	{
		Name: "mget", Arity: -2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"string"},
		Tips:  []string{"request_policy:multi_shard"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: -1, Step: 1},
		},
		Handler: CmdMGet,
		Summary: "Get the values of all the given keys",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(N) where N is the number of keys to retrieve.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "mset", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"string"},
		Tips:  []string{"request_policy:multi_shard", "response_policy:all_succeeded"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: -1, Step: 2},
		},
		Handler: CmdMSet,
		Summary: "Set multiple keys to multiple values",
		Since:   "1.0.1", Group: "string",
		Complexity: "O(N) where N is the number of keys to set.",
		Args: []Arg{
			{Name: "key_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		Name: "msetnx", Arity: -3,
		Flags: Write | DenyOOM,
		ACL:   []string{"string"},
		Tips:  []string{"request_policy:multi_shard", "response_policy:agg_min"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyInsert, Index: 1, LastKey: -1, Step: 2},
		},
		Handler: CmdMSetNX,
		Summary: "Set multiple keys to multiple values, only if none of the keys exist",
		Since:   "1.0.1", Group: "string",
		Complexity: "O(N) where N is the number of keys to set.",
		Args: []Arg{
			{Name: "key_value", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "value", Type: "string"},
			}},
		},
	},
	{
		Name: "append", Arity: 3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdAppend,
		Summary: "Append a value to a key",
		Since:   "2.0.0", Group: "string",
		Complexity: "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "strlen", Arity: 2,
		Flags: ReadOnly | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdStrLen,
		Summary: "Get the length of the value stored in a key",
		Since:   "2.2.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "incr", Arity: 2,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdIncr,
		Summary: "Increment the integer value of a key by one",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "decr", Arity: 2,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdDecr,
		Summary: "Decrement the integer value of a key by one",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "incrby", Arity: 3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdIncrBy,
		Summary: "Increment the integer value of a key by the given amount",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "increment", Type: "integer"},
		},
	},
	{
		Name: "decrby", Arity: 3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdDecrBy,
		Summary: "Decrement the integer value of a key by the given number",
		Since:   "1.0.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "decrement", Type: "integer"},
		},
	},
	{
		Name: "incrbyfloat", Arity: 3,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdIncrByFloat,
		Propagate: propIncrByFloat,
		Summary:   "Increment the float value of a key by the given amount",
		Since:     "2.6.0", Group: "string",
		Complexity: "O(1)",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "increment", Type: "double"},
		},
	},
	{
		Name: "getrange", Arity: 4,
		Flags: ReadOnly,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGetRange,
		Summary: "Get a substring of the string stored at a key",
		Since:   "2.4.0", Group: "string",
		Complexity: "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "start", Type: "integer"},
			{Name: "end", Type: "integer"},
		},
	},
	{
		Name: "setrange", Arity: 4,
		Flags: Write | DenyOOM,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSetRange,
		Summary: "Overwrite part of a string at key starting at the specified offset",
		Since:   "2.2.0", Group: "string",
		Complexity: "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "offset", Type: "integer"},
			{Name: "value", Type: "string"},
		},
	},
	{
		Name: "substr", Arity: 4,
		Flags: ReadOnly,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdSubstr,
		Summary: "Get a substring of the string stored at a key",
		Since:   "1.0.0", Group: "string",
		Complexity:      "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
		DocFlags:        DocDeprecated,
		DeprecatedSince: "2.0.0",
		ReplacedBy:      "`GETRANGE`",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "start", Type: "integer"},
			{Name: "end", Type: "integer"},
		},
	},
	{
		Name: "lcs", Arity: -3,
		Flags: ReadOnly,
		ACL:   []string{"string"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 1, Step: 1},
		},
		Handler: CmdLCS,
		Summary: "Find longest common substring",
		Since:   "7.0.0", Group: "string",
		Complexity: "O(N*M) where N and M are the lengths of s1 and s2, respectively",
		Args: []Arg{
			{Name: "key1", Type: "key", KeySpecIndex: 0},
			{Name: "key2", Type: "key", KeySpecIndex: 0},
			{Name: "len", Type: "pure-token", Token: "LEN", Flags: ArgOptional},
			{Name: "idx", Type: "pure-token", Token: "IDX", Flags: ArgOptional},
			{Name: "len", Type: "integer", Token: "MINMATCHLEN", Flags: ArgOptional},
			{Name: "withmatchlen", Type: "pure-token", Token: "WITHMATCHLEN", Flags: ArgOptional},
		},
	},
}

// maxBulkLen is the longest string SETRANGE and APPEND may build:
// proto-max-bulk-len, and at most what the engine stores.
func (c *Ctx) maxBulkLen() int64 {
	if c.MaxBulkLen > 0 && c.MaxBulkLen < engine.MaxValueLen {
		return c.MaxBulkLen
	}
	return engine.MaxValueLen
}

// kvInvalidExpire is Redis's addReplyErrorExpireTime text; cmd is the
// command's full name in lower case.
func kvInvalidExpire(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}

// kvIs reports whether arg equals lower (an ASCII lower-case word) without
// regard to ASCII case, as strcasecmp does.
func kvIs(arg []byte, lower string) bool {
	if len(arg) != len(lower) {
		return false
	}
	for i, c := range arg {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// kvArgInt parses an integer argument or replies Redis's error; ok false
// means the reply is written.
func kvArgInt(c *Ctx, b []byte) (int64, bool) {
	v, ok := num.ParseInt(b)
	if !ok {
		c.W.Error(errtext.NotInt)
	}
	return v, ok
}

// kvArgInt32 is Redis's getIntFromObjectOrReply: an integer argument that
// must fit a C int. msg, when set, replaces both error texts.
func kvArgInt32(c *Ctx, b []byte, msg string) (int, bool) {
	v, ok := num.ParseInt(b)
	if !ok {
		if msg == "" {
			msg = errtext.NotInt
		}
		c.W.Error(msg)
		return 0, false
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		if msg == "" {
			msg = "ERR value is out of range, value must between -2147483648 and 2147483647"
		}
		c.W.Error(msg)
		return 0, false
	}
	return int(v), true
}

// Flags of SET and GETEX options (Redis's OBJ_SET_* / OBJ_* flags).
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT

	setExpireAny = setEX | setPX | setEXAT | setPXAT
)

// kvParseSetOptions parses the options of SET (getex false) or GETEX
// (getex true) in args[from:] exactly as Redis 7.0's
// parseExtendedStringArgumentsOrReply does: a repeated option is allowed,
// conflicting ones and options of the other command are a syntax error.
// expire is the argument of EX/PX/EXAT/PXAT, or nil.
func kvParseSetOptions(args [][]byte, from int, getex bool) (flags int, expire []byte, ok bool) {
	set := !getex
	for j := from; j < len(args); j++ {
		opt := args[j]
		next := j < len(args)-1
		switch {
		case set && kvIs(opt, "nx") && flags&setXX == 0:
			flags |= setNX
		case set && kvIs(opt, "xx") && flags&setNX == 0:
			flags |= setXX
		case set && kvIs(opt, "get"):
			flags |= setGet
		case set && kvIs(opt, "keepttl") && flags&(setPersist|setExpireAny) == 0:
			flags |= setKeepTTL
		case getex && kvIs(opt, "persist") && flags&(setKeepTTL|setExpireAny) == 0:
			flags |= setPersist
		case kvIs(opt, "ex") && next && flags&(setKeepTTL|setPersist|setPX|setEXAT|setPXAT) == 0:
			flags |= setEX
			expire = args[j+1]
			j++
		case kvIs(opt, "px") && next && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0:
			flags |= setPX
			expire = args[j+1]
			j++
		case kvIs(opt, "exat") && next && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0:
			flags |= setEXAT
			expire = args[j+1]
			j++
		case kvIs(opt, "pxat") && next && flags&(setKeepTTL|setPersist|setEX|setPX|setEXAT) == 0:
			flags |= setPXAT
			expire = args[j+1]
			j++
		default:
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// kvExpireAt turns the expire argument of SET-like commands into an absolute
// unix time in ms, as getExpireMillisecondsOrReply does; ok false means the
// error reply is written. flags select the unit (EX/EXAT: seconds) and
// whether the time is relative (EX/PX).
func kvExpireAt(c *Ctx, flags int, expire []byte, cmd string) (int64, bool) {
	ms, ok := kvArgInt(c, expire)
	if !ok {
		return 0, false
	}
	seconds := flags&(setEX|setEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		c.W.Error(kvInvalidExpire(cmd))
		return 0, false
	}
	if seconds {
		ms *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		ms += c.Now // wraps on overflow, caught below as in Redis
	}
	if ms <= 0 {
		c.W.Error(kvInvalidExpire(cmd))
		return 0, false
	}
	return ms, true
}

// kvSet is Redis's setGenericCommand. intReply selects SETNX's :1/:0
// replies instead of +OK/null.
func kvSet(c *Ctx, flags int, key, val, expire []byte, cmd string, intReply bool) {
	var when int64
	if expire != nil {
		var ok bool
		if when, ok = kvExpireAt(c, flags, expire, cmd); !ok {
			return
		}
	}
	db := c.DB
	if flags&setGet != 0 {
		old, found, err := db.GetString(key, c.Now)
		if err != nil {
			c.W.Error(err.Error())
			return
		}
		if found {
			c.W.Bulk(old)
		} else {
			c.W.Null()
		}
	}
	found := db.Exists(key, c.Now)
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGet == 0 {
			if intReply {
				c.W.Int(0)
			} else {
				c.W.Null()
			}
		}
		return
	}
	if expire != nil && when <= c.Now {
		// Redis sets the key with a past expiry; it is gone at once.
		db.Delete(key, c.Now)
	} else {
		db.SetString(key, val, when, flags&setKeepTTL != 0)
	}
	if flags&setGet == 0 {
		if intReply {
			c.W.Int(1)
		} else {
			c.W.OK()
		}
	}
}

// CmdGet is GET key.
func CmdGet(c *Ctx, args [][]byte) {
	v, found, err := c.DB.GetString(args[1], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !found:
		c.W.Null()
	default:
		c.W.Bulk(v)
	}
}

// CmdSet is SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL].
func CmdSet(c *Ctx, args [][]byte) {
	flags, expire, ok := kvParseSetOptions(args, 3, false)
	if !ok {
		c.W.Error(errtext.Syntax)
		return
	}
	kvSet(c, flags, args[1], args[2], expire, "set", false)
}

// CmdSetNX is SETNX key value.
func CmdSetNX(c *Ctx, args [][]byte) {
	kvSet(c, setNX, args[1], args[2], nil, "setnx", true)
}

// CmdSetEx is SETEX key seconds value.
func CmdSetEx(c *Ctx, args [][]byte) {
	kvSet(c, setEX, args[1], args[3], args[2], "setex", false)
}

// CmdPSetEx is PSETEX key milliseconds value.
func CmdPSetEx(c *Ctx, args [][]byte) {
	kvSet(c, setPX, args[1], args[3], args[2], "psetex", false)
}

// CmdGetSet is GETSET key value: SET key value GET, dropping any TTL.
func CmdGetSet(c *Ctx, args [][]byte) {
	kvSet(c, setGet, args[1], args[2], nil, "getset", false)
}

// CmdGetDel is GETDEL key.
func CmdGetDel(c *Ctx, args [][]byte) {
	v, found, err := c.DB.GetString(args[1], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !found:
		c.W.Null()
	default:
		c.W.Bulk(v)
		c.DB.Delete(args[1], c.Now)
	}
}

// CmdGetEx is GETEX key [EX s|PX ms|EXAT t|PXAT t|PERSIST].
func CmdGetEx(c *Ctx, args [][]byte) {
	flags, expire, ok := kvParseSetOptions(args, 2, true)
	if !ok {
		c.W.Error(errtext.Syntax)
		return
	}
	key := args[1]
	v, found, err := c.DB.GetString(key, c.Now)
	if !found && err == nil {
		c.W.Null()
		return
	}
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	var when int64
	if expire != nil {
		if when, ok = kvExpireAt(c, flags, expire, "getex"); !ok {
			return
		}
	}
	c.W.Bulk(v) // before the DB changes: v is borrowed
	switch {
	case flags&(setEXAT|setPXAT) != 0 && when <= c.Now:
		c.DB.Delete(key, c.Now)
	case expire != nil:
		c.DB.SetExpiry(key, when, c.Now)
	case flags&setPersist != 0:
		c.DB.Persist(key, c.Now)
	}
}

// CmdMGet is MGET key [key ...]: one element per key given, null for a
// missing key or one that does not hold a string. On a shard it answers for
// the keys it got; the router restores argument order.
func CmdMGet(c *Ctx, args [][]byte) {
	c.W.Array(len(args) - 1)
	for _, k := range args[1:] {
		v, found, err := c.DB.GetString(k, c.Now)
		if err != nil || !found {
			c.W.Null()
		} else {
			c.W.Bulk(v)
		}
	}
}

// CmdMSet is MSET key value [key value ...]. Keys lose their TTL.
func CmdMSet(c *Ctx, args [][]byte) {
	if len(args)%2 != 1 {
		c.W.WrongArgs("mset")
		return
	}
	for i := 1; i < len(args); i += 2 {
		c.DB.SetString(args[i], args[i+1], 0, false)
	}
	c.W.OK()
}

// CmdMSetNX is MSETNX key value [key value ...] for keys of one shard: :0
// and nothing set if any key exists, else all set and :1. Atomicity across
// shards is the shard's gather plan.
func CmdMSetNX(c *Ctx, args [][]byte) {
	if len(args)%2 != 1 {
		c.W.WrongArgs("msetnx")
		return
	}
	for i := 1; i < len(args); i += 2 {
		if c.DB.Exists(args[i], c.Now) {
			c.W.Int(0)
			return
		}
	}
	for i := 1; i < len(args); i += 2 {
		c.DB.SetString(args[i], args[i+1], 0, false)
	}
	c.W.Int(1)
}

// CmdAppend is APPEND key value.
func CmdAppend(c *Ctx, args [][]byte) {
	n, err := c.DB.StrLen(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if int64(n)+int64(len(args[2])) > c.maxBulkLen() {
		c.W.Error(errtext.TooLarge)
		return
	}
	n, err = c.DB.Append(args[1], args[2], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdStrLen is STRLEN key.
func CmdStrLen(c *Ctx, args [][]byte) {
	n, err := c.DB.StrLen(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

func kvIncr(c *Ctx, key []byte, delta int64) {
	n, err := c.DB.IncrBy(key, delta, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(n)
}

// CmdIncr is INCR key.
func CmdIncr(c *Ctx, args [][]byte) { kvIncr(c, args[1], 1) }

// CmdDecr is DECR key.
func CmdDecr(c *Ctx, args [][]byte) { kvIncr(c, args[1], -1) }

// CmdIncrBy is INCRBY key increment.
func CmdIncrBy(c *Ctx, args [][]byte) {
	if d, ok := kvArgInt(c, args[2]); ok {
		kvIncr(c, args[1], d)
	}
}

// CmdDecrBy is DECRBY key decrement.
func CmdDecrBy(c *Ctx, args [][]byte) {
	d, ok := kvArgInt(c, args[2])
	if !ok {
		return
	}
	if d == math.MinInt64 {
		c.W.Error("ERR decrement would overflow")
		return
	}
	kvIncr(c, args[1], -d)
}

// CmdIncrByFloat is INCRBYFLOAT key increment. Redis computes in C long
// double (x87 80-bit: 64-bit mantissa) and prints with "%.17Lf" trimmed of
// trailing zeros; big.Float at 64 bits of precision reproduces both.
func CmdIncrByFloat(c *Ctx, args [][]byte) {
	key := args[1]
	v, found, err := c.DB.GetString(key, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	cur := new(big.Float)
	if found {
		var ok bool
		if cur, ok = num.ParseLongDouble(v); !ok {
			c.W.Error(errtext.NotFloat)
			return
		}
	}
	incr, ok := num.ParseLongDouble(args[2])
	if !ok {
		c.W.Error(errtext.NotFloat)
		return
	}
	sum, ok := num.AddLongDouble(cur, incr)
	if !ok {
		c.W.Error(errtext.IncrNaN)
		return
	}
	out := num.AppendLongDouble(nil, sum)
	c.DB.SetTextString(key, out)
	c.W.Bulk(out)
}

// kvGetRange is GETRANGE's arithmetic: the bytes of s from start to end
// inclusive, negative indexes counting from the end, as Redis 7.0 clamps.
func kvGetRange(s []byte, start, end int64) []byte {
	n := int64(len(s))
	if start < 0 && end < 0 && start > end {
		return nil
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return nil
	}
	return s[start : end+1]
}

// CmdGetRange is GETRANGE key start end (and SUBSTR).
func CmdGetRange(c *Ctx, args [][]byte) {
	start, ok := kvArgInt(c, args[2])
	if !ok {
		return
	}
	end, ok := kvArgInt(c, args[3])
	if !ok {
		return
	}
	v, _, err := c.DB.GetString(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Bulk(kvGetRange(v, start, end))
}

// CmdSubstr is SUBSTR key start end, the old name of GETRANGE.
func CmdSubstr(c *Ctx, args [][]byte) { CmdGetRange(c, args) }

// CmdSetRange is SETRANGE key offset value. It rebuilds the value (the
// engine has no in-place range write yet) and keeps the TTL.
func CmdSetRange(c *Ctx, args [][]byte) {
	key, val := args[1], args[3]
	off, ok := kvArgInt(c, args[2])
	if !ok {
		return
	}
	if off < 0 {
		c.W.Error("ERR offset is out of range")
		return
	}
	old, _, err := c.DB.GetString(key, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if len(val) == 0 {
		c.W.Int(int64(len(old)))
		return
	}
	if off > c.maxBulkLen()-int64(len(val)) {
		c.W.Error(errtext.TooLarge)
		return
	}
	n := max(int64(len(old)), off+int64(len(val)))
	buf := make([]byte, n)
	copy(buf, old)
	copy(buf[off:], val)
	c.DB.SetRawString(key, buf)
	c.W.Int(n)
}

// CmdLCS is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN],
// ported from Redis 7.0's lcsCommand (same table, same walk, same order of
// matches). Both keys are on this shard.
func CmdLCS(c *Ctx, args [][]byte) {
	a, _, errA := c.DB.GetString(args[1], c.Now)
	a = append([]byte(nil), a...) // the next engine call invalidates a
	b, _, errB := c.DB.GetString(args[2], c.Now)
	if errA != nil || errB != nil {
		c.W.Error("ERR The specified keys must contain string values")
		return
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(args); j++ {
		opt := args[j]
		more := len(args) - 1 - j
		switch {
		case kvIs(opt, "idx"):
			getIdx = true
		case kvIs(opt, "len"):
			getLen = true
		case kvIs(opt, "withmatchlen"):
			withMatchLen = true
		case kvIs(opt, "minmatchlen") && more > 0:
			v, ok := kvArgInt(c, args[j+1])
			if !ok {
				return
			}
			minMatchLen = max(v, 0)
			j++
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	if getIdx && getLen {
		c.W.Error("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	alen, blen := len(a), len(b)
	if uint64(alen+1)*uint64(blen+1)*4 > uint64(c.maxBulkLen()) {
		c.W.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	// lcs[i*(blen+1)+j] is the LCS length of a[:i] and b[:j].
	lcs := make([]uint32, (alen+1)*(blen+1))
	at := func(i, j int) uint32 { return lcs[i*(blen+1)+j] }
	for i := 1; i <= alen; i++ {
		for j := 1; j <= blen; j++ {
			if a[i-1] == b[j-1] {
				lcs[i*(blen+1)+j] = at(i-1, j-1) + 1
			} else {
				lcs[i*(blen+1)+j] = max(at(i-1, j), at(i, j-1))
			}
		}
	}
	total := at(alen, blen)
	if getLen {
		c.W.Int(int64(total))
		return
	}
	result := make([]byte, total)
	type match struct{ aStart, aEnd, bStart, bEnd int }
	var matches []match
	idx := int(total)
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0 // aStart == alen: no range yet
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd = i-1, i-1
				bStart, bEnd = j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if at(i-1, j) > at(i, j-1) {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if getIdx && (minMatchLen == 0 || int64(aEnd-aStart+1) >= minMatchLen) {
				matches = append(matches, match{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	if !getIdx {
		c.W.Bulk(result)
		return
	}
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(matches))
	for _, m := range matches {
		if withMatchLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(int64(m.aStart))
		c.W.Int(int64(m.aEnd))
		c.W.Array(2)
		c.W.Int(int64(m.bStart))
		c.W.Int(int64(m.bEnd))
		if withMatchLen {
			c.W.Int(int64(m.aEnd - m.aStart + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(total))
}

// setKeyFlags is Redis's setGetKeys: SET reads its key only with GET.
func setKeyFlags(args [][]byte) KeyFlag {
	for _, a := range args[min(3, len(args)):] {
		if len(a) == 3 && (a[0]|0x20) == 'g' && (a[1]|0x20) == 'e' && (a[2]|0x20) == 't' {
			return KeyRW | KeyAccess | KeyUpdate
		}
	}
	return KeyOW | KeyUpdate
}

package command

import (
	"math"
	"sync"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
	"github.com/radish-kv/radish/persistence/rdb"
)

// This file is DUMP and RESTORE: a key's value as a Redis DUMP payload
// (persistence/rdb's encoding, version and CRC64) and back. RESTORE
// changes the store only through engine calls, so the shard sees it as a
// write; its propagated form states an absolute TTL.

func init() {
	// RESTORE-ASKING is RESTORE for a cluster's slot migration; outside a
	// cluster, as in Redis, it is RESTORE.
	ra := *dumpSpecs[1]
	ra.Name, ra.Flags = "restore-asking", ra.Flags|Asking
	ra.Summary, ra.Since, ra.Group, ra.DocFlags = "An internal command for migrating keys in a cluster", "3.0.0", "server", DocSysCmd
	register(append(dumpSpecs, &ra)...)
}

var dumpSpecs = []*Spec{
	{
		Name: "dump", Arity: 2,
		Flags: ReadOnly,
		ACL:   []string{"keyspace"},
		Tips:  []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdDump,
		Summary: "Return a serialized version of the value stored at the specified key.",
		Since:   "2.6.0", Group: "generic",
		Complexity: "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "restore", Arity: -4,
		Flags: Write | DenyOOM,
		ACL:   []string{"keyspace", "dangerous"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler:   CmdRestore,
		Propagate: propRestore,
		Summary:   "Create a key using the provided serialized value, previously obtained using DUMP.",
		Since:     "2.6.0", Group: "generic",
		Complexity: "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
		History: [][2]string{
			{"3.0.0", "Added the `REPLACE` modifier."},
			{"5.0.0", "Added the `ABSTTL` modifier."},
			{"5.0.0", "Added the `IDLETIME` and `FREQ` options."},
		},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "ttl", Type: "integer"},
			{Name: "serialized-value", Type: "string"},
			{Name: "replace", Type: "pure-token", Token: "REPLACE", Since: "3.0.0", Flags: ArgOptional},
			{Name: "absttl", Type: "pure-token", Token: "ABSTTL", Since: "5.0.0", Flags: ArgOptional},
			{Name: "seconds", Type: "integer", Token: "IDLETIME", Since: "5.0.0", Flags: ArgOptional},
			{Name: "frequency", Type: "integer", Token: "FREQ", Since: "5.0.0", Flags: ArgOptional},
		},
	},
}

// RESTORE's own error texts.
const (
	errBusyKey   = "BUSYKEY Target key name already exists."
	errBadFormat = "ERR Bad data format"
	errBadTTL    = "ERR Invalid TTL value, must be >= 0"
	errBadIdle   = "ERR Invalid IDLETIME value, must be >= 0"
	errBadFreq   = "ERR Invalid FREQ value, must be >= 0 and <= 255"
)

// encoders holds rdb.Encoders (each keeps a 256 KiB LZF table) for the
// shards' DUMPs.
var encoders = sync.Pool{New: func() any { return rdb.NewEncoder(engine.DefaultLimits()) }}

// CmdDump is DUMP key: the value in the RDB encoding Redis 7.0 would write
// for it, with the RDB version and a CRC64; nil when key is absent.
func CmdDump(c *Ctx, args [][]byte) {
	rec, ok := c.DB.Export(args[1], c.Now)
	if !ok {
		c.W.Null()
		return
	}
	e := encoders.Get().(*rdb.Encoder)
	e.Limits = c.Store.Limits
	c.W.Bulk(e.AppendDump(nil, rec))
	encoders.Put(e)
}

// CmdRestore is RESTORE key ttl serialized-value [REPLACE] [ABSTTL]
// [IDLETIME seconds] [FREQ frequency], checking as Redis does, in its
// order: the options, the key's absence (unless REPLACE), the TTL, the
// payload's version and checksum, its contents.
func CmdRestore(c *Ctx, args [][]byte) {
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case kvIs(args[j], "replace"):
			replace = true
		case kvIs(args[j], "absttl"):
			absTTL = true
		case kvIs(args[j], "idletime") && more && freq == -1:
			v, ok := num.ParseInt(args[j+1])
			if !ok {
				c.W.Error(errtext.NotInt)
				return
			}
			if v < 0 {
				c.W.Error(errBadIdle)
				return
			}
			idle = v
			j++
		case kvIs(args[j], "freq") && more && idle == -1:
			v, ok := num.ParseInt(args[j+1])
			if !ok {
				c.W.Error(errtext.NotInt)
				return
			}
			if v < 0 || v > 255 {
				c.W.Error(errBadFreq)
				return
			}
			freq = v
			j++
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	key := args[1]
	if !replace && c.DB.Exists(key, c.Now) {
		c.W.Error(errBusyKey)
		return
	}
	ttl, ok := num.ParseInt(args[2])
	if !ok {
		c.W.Error(errtext.NotInt)
		return
	}
	if ttl < 0 {
		c.W.Error(errBadTTL)
		return
	}
	rec, err := rdb.ParseDump(args[3])
	if err != nil {
		if err == rdb.ErrPayload {
			c.W.Error(errtext.BadPayload)
		} else {
			c.W.Error(errBadFormat)
		}
		return
	}
	if replace {
		c.DB.Delete(key, c.Now)
	}
	if ttl != 0 && !absTTL {
		ttl = min(ttl, math.MaxInt64-c.Now) + c.Now
	}
	if ttl != 0 && ttl <= c.Now {
		// Already expired: nothing is stored (a replaced key is gone).
		c.W.OK()
		return
	}
	rec.ExpireAt = ttl
	c.DB.Import(key, rec)
	c.DB.SetAccess(key, int(freq), idle, c.Now)
	c.W.OK()
}

// propRestore states RESTORE with its TTL as an absolute time (the key's
// deadline, then ABSTTL), as Redis rewrites it; a RESTORE that only
// removed the key it replaced (its TTL already past) is DEL key.
func propRestore(p *Prop) {
	key := p.Args[1]
	exp, ok := propExpiry(p, key)
	if !ok {
		return
	}
	abs := false
	for _, a := range p.Args[4:] {
		abs = abs || kvIs(a, "absttl")
	}
	if exp == 0 || abs {
		p.Verbatim()
		return
	}
	p.Begin(len(p.Args) + 1)
	for i, a := range p.Args {
		if i == 2 {
			p.ArgInt(exp)
		} else {
			p.Arg(a)
		}
	}
	p.ArgString("ABSTTL")
}

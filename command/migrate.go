package command

import (
	"cmp"
	"strconv"
	"time"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
	"github.com/radish-kv/radish/persistence/rdb"
)

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password | AUTH2 username password] [KEYS key ...], as Redis 7.0
// outside a cluster: the keys that exist are DUMPed and sent to the target
// as one pipeline (AUTH, SELECT, a RESTORE per key), each RESTORE's
// success deletes its key here (unless COPY), and the reply is +OK, +NOKEY
// when no key exists, the target's first error, or an IOERR. As in Redis
// the command waits for the target: its keys are locked meanwhile (the
// shard that runs it waits too, at most the timeout per step, as all of
// Redis does). The connections to targets are kept a few seconds for the
// next MIGRATE (Server.Migrate). A migrated key leaves as a DEL in the
// effect stream.

func init() {
	register(&Spec{Name: "migrate", Arity: -6, Flags: Write, ACL: []string{"keyspace", "dangerous"},
		Tips: []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 3, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyAccess | KeyDelete | KeyIncomplete, Keyword: "KEYS", KeywordFrom: -2, LastKey: -1, Step: 1},
		},
		GetKeys:   migrateGetKeys,
		Redact:    redactMigrate,
		Handler:   cmdMigrate,
		Propagate: propMigrate,
		Summary:   "Atomically transfer a key from a Redis instance to another one.",
		Since:     "2.6.0", Group: "generic",
		Complexity: "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. " +
			"See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.",
		History: [][2]string{
			{"3.0.0", "Added the `COPY` and `REPLACE` options."},
			{"3.0.6", "Added the `KEYS` option."},
			{"4.0.7", "Added the `AUTH` option."},
			{"6.0.0", "Added the `AUTH2` option."},
		},
		Args: []Arg{
			{Name: "host", Type: "string"},
			{Name: "port", Type: "integer"},
			{Name: "key_or_empty_string", Type: "oneof", Args: []Arg{
				{Name: "key", Type: "key", KeySpecIndex: 0},
				{Name: "empty_string", Type: "pure-token"}}},
			{Name: "destination-db", Type: "integer"},
			{Name: "timeout", Type: "integer"},
			{Name: "copy", Type: "pure-token", Token: "COPY", Since: "3.0.0", Flags: ArgOptional},
			{Name: "replace", Type: "pure-token", Token: "REPLACE", Since: "3.0.0", Flags: ArgOptional},
			{Name: "authentication", Type: "oneof", Flags: ArgOptional, Args: []Arg{
				{Name: "password", Type: "string", Token: "AUTH", Since: "4.0.7", Flags: ArgOptional},
				{Name: "username_password", Type: "block", Token: "AUTH2", Since: "6.0.0", Flags: ArgOptional, Args: []Arg{
					{Name: "username", Type: "string"}, {Name: "password", Type: "string"}}}}},
			{Name: "key", Type: "key", KeySpecIndex: 1, Token: "KEYS", Since: "3.0.6", Flags: ArgOptional | ArgMultiple},
		},
	})
}

// migrateOpts is a parsed MIGRATE.
type migrateOpts struct {
	host, port    string
	db            int64
	timeout       time.Duration
	copy, repl    bool
	user, pass    []byte // AUTH (user nil) or AUTH2
	keys          [][]byte
	authed, auth2 bool
}

// parseMigrate checks MIGRATE's arguments in Redis's order: the options,
// KEYS with a key argument, then the timeout and the database.
func parseMigrate(args [][]byte) (o migrateOpts, e string) {
	o.host, o.port = string(args[1]), string(args[2])
	first := 6
	for j := 6; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case kvIs(args[j], "copy"):
			o.copy = true
		case kvIs(args[j], "replace"):
			o.repl = true
		case kvIs(args[j], "auth"):
			if more == 0 {
				return o, errtext.Syntax
			}
			j++
			o.pass, o.user, o.authed = args[j], nil, true
		case kvIs(args[j], "auth2"):
			if more < 2 {
				return o, errtext.Syntax
			}
			o.user, o.pass, o.authed, o.auth2 = args[j+1], args[j+2], true, true
			j += 2
		case kvIs(args[j], "keys"):
			if len(args[3]) != 0 {
				return o, "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
			}
			first = j + 1
			j = len(args) - 1
		default:
			return o, errtext.Syntax
		}
	}
	timeout, ok := num.ParseInt(args[5])
	if !ok {
		return o, errtext.NotInt
	}
	if o.db, ok = num.ParseInt(args[4]); !ok {
		return o, errtext.NotInt
	}
	if timeout <= 0 {
		timeout = 1000
	}
	o.timeout = time.Duration(timeout) * time.Millisecond
	if first > 6 {
		o.keys = args[first:]
	} else {
		o.keys = args[3:4]
	}
	return o, ""
}

// migrateGetKeys is Redis's migrateGetKeys: the key argument, or the keys
// after KEYS, none when the key argument is not empty then (the command
// refuses that; COMMAND GETKEYS too).
func migrateGetKeys(args [][]byte, dst []KeyRange) []KeyRange {
	for j := 6; j < len(args); j++ {
		switch {
		case kvIs(args[j], "auth"):
			j++
		case kvIs(args[j], "auth2"):
			j += 2
		case kvIs(args[j], "keys"):
			if n := len(args) - j - 1; n > 0 && len(args[3]) == 0 {
				dst = append(dst, KeyRange{Spec: 1, First: j + 1, Last: len(args) - 1, Step: 1, Count: n, Blocks: 1})
			}
			return dst
		}
	}
	return append(dst, KeyRange{Spec: 0, First: 3, Last: 3, Step: 1, Count: 1, Blocks: 1})
}

func cmdMigrate(c *Ctx, args [][]byte) {
	o, e := parseMigrate(args)
	if e != "" {
		c.W.Error(e)
		return
	}
	var b []byte // the pipeline
	cmds := 1    // SELECT
	switch {
	case o.auth2:
		b = resp.AppendCommand(b, []byte("AUTH"), o.user, o.pass)
		cmds++
	case o.authed:
		b = resp.AppendCommand(b, []byte("AUTH"), o.pass)
		cmds++
	}
	b = resp.AppendCommand(b, []byte("SELECT"), strconv.AppendInt(nil, o.db, 10))
	enc := encoders.Get().(*rdb.Encoder)
	enc.Limits = c.Store.Limits
	var sent [][]byte
	var payload []byte
	for _, k := range o.keys {
		rec, ok := c.DB.Export(k, c.Now)
		if !ok {
			continue
		}
		ttl := int64(0)
		if rec.ExpireAt > 0 {
			if ttl = rec.ExpireAt - c.Now; ttl < 0 {
				continue
			}
			ttl = max(ttl, 1)
		}
		payload = enc.AppendDump(payload[:0], rec)
		restore := [][]byte{[]byte("RESTORE"), k, strconv.AppendInt(nil, ttl, 10), payload, []byte("REPLACE")}
		if !o.repl {
			restore = restore[:4]
		}
		b = resp.AppendCommand(b, restore...)
		sent = append(sent, k)
	}
	encoders.Put(enc)
	if len(sent) == 0 {
		c.W.Simple("NOKEY")
		return
	}
	// As Redis reads them: the AUTH and SELECT replies, then each
	// RESTORE's; a key goes only when its RESTORE and those before it
	// worked, and the target's first error is the reply.
	errs, ioErr := c.Server.Migrate(o.host, o.port, o.timeout, b, cmds+len(sent))
	if len(errs) < cmds {
		c.W.Error(ioErr)
		return
	}
	pre := ""
	for _, e := range errs[:cmds] {
		if pre == "" {
			pre = e
		}
	}
	first := ""
	for i, k := range sent {
		if cmds+i >= len(errs) {
			break // the connection failed
		}
		if e := cmp.Or(pre, errs[cmds+i]); e != "" {
			first = cmp.Or(first, e)
			continue
		}
		if !o.copy {
			c.DB.Delete(k, c.Now)
		}
	}
	switch {
	case first != "":
		c.W.Error("ERR Target instance replied with error: " + first)
	case ioErr != "":
		c.W.Error(ioErr)
	default:
		c.W.OK()
	}
}

// propMigrate states what MIGRATE did here: a DEL of the keys it moved,
// those it named that are gone (none under COPY, or when it failed
// before any RESTORE).
func propMigrate(p *Prop) {
	o, e := parseMigrate(p.Args)
	if e != "" || o.copy || string(p.Reply) == "+NOKEY\r\n" {
		return
	}
	var gone [][]byte
	for _, k := range o.keys {
		if !p.DB.Exists(k, p.Now) {
			gone = append(gone, k)
		}
	}
	if len(gone) == 0 {
		return
	}
	p.Begin(1 + len(gone))
	p.ArgString("DEL")
	for _, k := range gone {
		p.Arg(k)
	}
}

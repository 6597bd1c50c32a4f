package command

import (
	"math/rand/v2"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/persistence/rdb"
)

// DEBUG subcommands of the introspection family, which Redis's and
// Valkey's test suites call: SET-ACTIVE-EXPIRE, LISTPACK, CHANGE-REPL-ID
// STRINGMATCH-TEST (Valkey's STRINGMATCH-LEN) and
// QUICKLIST-PACKED-THRESHOLD.

func init() {
	debugSubcommands["set-active-expire"] = cmdDebugSetActiveExpire
	debugSubcommands["listpack"] = cmdDebugListpack
	debugSubcommands["change-repl-id"] = cmdDebugChangeReplID
	debugSubcommands["stringmatch-test"] = cmdDebugStringmatch
	debugSubcommands["stringmatch-len"] = cmdDebugStringmatch
	debugSubcommands["quicklist-packed-threshold"] = cmdDebugPackedThreshold
	// In Redis's order: CHANGE-REPL-ID first, the others after RELOAD.
	debugHelp = append([]string{
		"CHANGE-REPL-ID",
		"    Change the replication IDs of the instance.",
		"    Dangerous: should be used only for testing the replication subsystem.",
	}, debugHelp...)
	debugHelp = append(debugHelp,
		"SET-ACTIVE-EXPIRE <0|1>",
		"    Setting it to 0 disables expiring keys in background when they are not",
		"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
		"    default.",
		"QUICKLIST-PACKED-THRESHOLD <size>",
		"    Sets the threshold for elements to be inserted as plain vs packed nodes",
		"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
		"SLEEP <seconds>",
		"    Stop the server for <seconds>. Decimals allowed.",
		"STRINGMATCH-TEST",
		"    Run a fuzz tester against the stringmatchlen() function.",
		"LISTPACK <key>",
		"    Show low level info about the listpack encoding of <key>.",
	)
}

// cmdDebugSetActiveExpire is DEBUG SET-ACTIVE-EXPIRE 0|1: every shard's
// active expiry stops (0) or runs again; what is not a number is 0, as
// Redis's atoi reads it.
func cmdDebugSetActiveExpire(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		kvDebugSyntax(c, args)
		return
	}
	c.Server.SetActiveExpire(atoi(args[2]) != 0)
	c.W.Simple("OK")
}

// cmdDebugPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD size: the
// process's one threshold from which a list element is a plain node of
// its own in RDB files and DUMP payloads (rdb.SetPackedThreshold), read
// as Redis's memtoull reads it.
func cmdDebugPackedThreshold(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		kvDebugSyntax(c, args)
		return
	}
	sz, ok := config.ParseMemory(string(args[2]))
	if !ok || !rdb.SetPackedThreshold(sz) {
		c.W.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
		return
	}
	c.W.Simple("OK")
}

// atoi reads a number as C's atoi: leading blanks, a sign, the digits
// that follow; 0 when there are none.
func atoi(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// cmdDebugListpack is DEBUG LISTPACK key: Redis prints the listpack on
// its standard output; radish, whose handlers do no I/O, only checks
// that the key is listpack-encoded and answers as Redis.
func cmdDebugListpack(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		kvDebugSyntax(c, args)
		return
	}
	enc, ok := c.DB.Encoding(args[2], c.Now)
	switch {
	case !ok:
		c.W.Error(errtext.NoSuchKey)
	case enc != "listpack":
		c.W.Error("ERR Not a listpack encoded object.")
	default:
		c.W.Simple("Listpack structure printed on stdout")
	}
}

// cmdDebugChangeReplID is DEBUG CHANGE-REPL-ID: a new replication ID, the
// second one cleared (INFO replication).
func cmdDebugChangeReplID(c *Ctx, args [][]byte) {
	if len(args) != 2 {
		kvDebugSyntax(c, args)
		return
	}
	c.Server.ChangeReplID()
	c.W.Simple("OK")
}

// cmdDebugStringmatch is Redis's stringmatchlen_fuzz_test: a thousand
// random patterns matched against random strings, which must not crash
// the glob matcher (engine.Match).
func cmdDebugStringmatch(c *Ctx, args [][]byte) {
	if len(args) != 2 {
		kvDebugSyntax(c, args)
		return
	}
	r := rand.New(rand.NewPCG(uint64(c.Now), 0))
	var pat, str [32]byte
	for range 1000 {
		p, s := pat[:r.IntN(len(pat))], str[:r.IntN(len(str))]
		for i := range p {
			p[i] = byte(r.IntN(256))
		}
		for i := range s {
			s[i] = byte(r.IntN(256))
		}
		engine.Match(p, s, false)
	}
	c.W.Simple("Apparently Redis did not crash: test passed")
}

package command

import (
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// XINFO STREAM [FULL [COUNT n]], GROUPS, CONSUMERS and HELP, with Redis
// 7.0's fields. Consumer groups are not kept yet, so every stream answers
// as one without groups does: "groups" 0 (an empty array in FULL and in
// GROUPS), and CONSUMERS names no group.

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

// xinfoKey checks XINFO's key: false when it replied (no such key,
// WRONGTYPE).
func xinfoKey(c *Ctx, key []byte) bool {
	_, found, err := c.DB.XInfo(key, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
		return false
	case !found:
		c.W.Error(errtext.NoSuchKey)
		return false
	}
	return true
}

// CmdXInfoGroups is XINFO GROUPS key.
func CmdXInfoGroups(c *Ctx, args [][]byte) {
	if xinfoKey(c, args[2]) {
		c.W.Array(0)
	}
}

// CmdXInfoConsumers is XINFO CONSUMERS key group.
func CmdXInfoConsumers(c *Ctx, args [][]byte) {
	if xinfoKey(c, args[2]) {
		c.W.Error("NOGROUP No such consumer group '" + string(args[3]) + "' for key name '" + string(args[2]) + "'")
	}
}

// CmdXInfoHelp is XINFO HELP.
func CmdXInfoHelp(c *Ctx, args [][]byte) { kvHelp(c, args[0], xinfoHelp) }

// CmdXInfoStream is XINFO STREAM key [FULL [COUNT count]].
func CmdXInfoStream(c *Ctx, args [][]byte) {
	full := false
	count := int64(10)
	if len(args) > 3 {
		if !strings.EqualFold(string(args[3]), "full") || len(args) != 4 && len(args) != 6 ||
			len(args) == 6 && !strings.EqualFold(string(args[4]), "count") {
			c.W.Error("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.")
			return
		}
		full = true
		if len(args) == 6 {
			n, ok := num.ParseInt(args[5])
			if !ok {
				c.W.Error(errtext.NotInt)
				return
			}
			count = max(n, 0)
		}
	}
	info, found, err := c.DB.XInfo(args[2], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
		return
	case !found:
		c.W.Error(errtext.NoSuchKey)
		return
	}
	var buf [41]byte
	if full {
		c.W.Map(9)
	} else {
		c.W.Map(10)
	}
	c.W.BulkString("length")
	c.W.Int(int64(info.Length))
	c.W.BulkString("radix-tree-keys")
	c.W.Int(int64(info.Nodes))
	c.W.BulkString("radix-tree-nodes")
	c.W.Int(int64(info.RaxNodes))
	c.W.BulkString("last-generated-id")
	c.W.Bulk(info.LastID.Append(buf[:0]))
	c.W.BulkString("max-deleted-entry-id")
	c.W.Bulk(info.MaxDeletedID.Append(buf[:0]))
	c.W.BulkString("entries-added")
	c.W.Int(int64(info.EntriesAdded))
	c.W.BulkString("recorded-first-entry-id")
	c.W.Bulk(info.FirstID.Append(buf[:0]))
	if full {
		c.W.BulkString("entries")
		start := len(c.W.B)
		n := 0
		c.DB.XRange(args[2], engine.StreamID{}, engine.MaxStreamID, int(count), false, c.Now, func(id engine.StreamID, fv [][]byte) bool {
			writeEntry(c.W, id, fv)
			n++
			return true
		})
		deferHeader(c.W, start, n, false)
		c.W.BulkString("groups")
		c.W.Array(0)
		return
	}
	c.W.BulkString("groups")
	c.W.Int(0)
	for _, rev := range []bool{false, true} {
		if rev {
			c.W.BulkString("last-entry")
		} else {
			c.W.BulkString("first-entry")
		}
		served := false
		c.DB.XRange(args[2], engine.StreamID{}, engine.MaxStreamID, 1, rev, c.Now, func(id engine.StreamID, fv [][]byte) bool {
			writeEntry(c.W, id, fv)
			served = true
			return false
		})
		if !served {
			c.W.Null()
		}
	}
}

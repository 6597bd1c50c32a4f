package command

import (
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// XINFO STREAM [FULL [COUNT n]], GROUPS, CONSUMERS and HELP, with Redis
// 7.0's fields (XINFO CONSUMERS without 7.2's "inactive").

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
	if !xinfoKey(c, args[2]) {
		return
	}
	c.W.Array(c.DB.XGroupCount(args[2], c.Now))
	c.DB.XGroups(args[2], c.Now, func(g engine.GroupInfo) {
		var buf [41]byte
		c.W.Map(6)
		c.W.BulkString("name")
		c.W.BulkString(g.Name)
		c.W.BulkString("consumers")
		c.W.Int(int64(g.Consumers))
		c.W.BulkString("pending")
		c.W.Int(int64(g.Pending))
		c.W.BulkString("last-delivered-id")
		c.W.Bulk(g.LastID.Append(buf[:0]))
		writeReadLag(c, g)
	})
}

// writeReadLag writes a group's entries-read and lag (null when unknown).
func writeReadLag(c *Ctx, g engine.GroupInfo) {
	c.W.BulkString("entries-read")
	if g.EntriesRead != -1 {
		c.W.Int(g.EntriesRead)
	} else {
		c.W.Null()
	}
	c.W.BulkString("lag")
	if g.LagKnown {
		c.W.Int(g.Lag)
	} else {
		c.W.Null()
	}
}

// CmdXInfoConsumers is XINFO CONSUMERS key group.
func CmdXInfoConsumers(c *Ctx, args [][]byte) {
	if !xinfoKey(c, args[2]) {
		return
	}
	g, err := c.DB.XGroupInfo(args[2], args[3], c.Now)
	if err != nil {
		c.W.Error(noGroupFor(args[2], args[3]))
		return
	}
	c.W.Array(g.Consumers)
	c.DB.XConsumers(args[2], args[3], c.Now, func(ci engine.ConsumerInfo) {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.BulkString(ci.Name)
		c.W.BulkString("pending")
		c.W.Int(int64(ci.Pending))
		c.W.BulkString("idle")
		c.W.Int(max(c.Now-ci.Seen, 0))
	})
}

// CmdXInfoHelp is XINFO HELP.
func CmdXInfoHelp(c *Ctx, args [][]byte) { kvHelp(c, args[0], xinfoHelp) }

// CmdXInfoStream is XINFO STREAM key [FULL [COUNT count]].
func CmdXInfoStream(c *Ctx, args [][]byte) {
	// As Redis: the key first, then the options.
	info, found, err := c.DB.XInfo(args[2], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
		return
	case !found:
		c.W.Error(errtext.NoSuchKey)
		return
	}
	full := false
	count := int64(10)
	if len(args) > 3 {
		if !strings.EqualFold(string(args[3]), "full") || len(args) != 4 && len(args) != 6 ||
			len(args) == 6 && !strings.EqualFold(string(args[4]), "count") {
			c.W.Error(errtext.SubSyntax(args[0], args[1]))
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
		xinfoGroupsFull(c, args[2], int(count))
		return
	}
	c.W.BulkString("groups")
	c.W.Int(int64(c.DB.XGroupCount(args[2], c.Now)))
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

// xinfoGroupsFull writes XINFO STREAM FULL's groups: each with its PEL
// and its consumers with theirs (count > 0: at most count entries of
// each PEL).
func xinfoGroupsFull(c *Ctx, key []byte, count int) {
	c.W.Array(c.DB.XGroupCount(key, c.Now))
	var buf [41]byte
	pelAt, pelN := -1, 0
	endPEL := func() {
		if pelAt >= 0 {
			deferHeader(c.W, pelAt, pelN, false)
			pelAt = -1
		}
	}
	c.DB.XGroupsFull(key, count, c.Now, func(g engine.GroupInfo) {
		endPEL()
		c.W.Map(7)
		c.W.BulkString("name")
		c.W.BulkString(g.Name)
		c.W.BulkString("last-delivered-id")
		c.W.Bulk(g.LastID.Append(buf[:0]))
		writeReadLag(c, g)
		c.W.BulkString("pel-count")
		c.W.Int(int64(g.Pending))
		c.W.BulkString("pending")
		pelAt, pelN = len(c.W.B), 0
	}, func(p engine.PendingEntry) {
		pelN++
		c.W.Array(4)
		c.W.Bulk(p.ID.Append(buf[:0]))
		c.W.BulkString(p.Consumer)
		c.W.Int(p.Time)
		c.W.Int(int64(p.Count))
	}, func(n int) {
		endPEL()
		c.W.BulkString("consumers")
		c.W.Array(n)
	}, func(ci engine.ConsumerInfo) {
		endPEL()
		c.W.Map(4)
		c.W.BulkString("name")
		c.W.BulkString(ci.Name)
		c.W.BulkString("seen-time")
		c.W.Int(ci.Seen)
		c.W.BulkString("pel-count")
		c.W.Int(int64(ci.Pending))
		c.W.BulkString("pending")
		pelAt, pelN = len(c.W.B), 0
	}, func(p engine.PendingEntry) {
		pelN++
		c.W.Array(3)
		c.W.Bulk(p.ID.Append(buf[:0]))
		c.W.Int(p.Time)
		c.W.Int(int64(p.Count))
	})
	endPEL()
}

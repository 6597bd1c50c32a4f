package command

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
)

// The consumer group commands' handlers, parsing and answering as Redis
// 7.0.15's t_stream.c does (the same errors in the same order); the work
// is in engine/streamgroup.go.

const errXGroupNoKey = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."

func noGroupFor(key, group []byte) string {
	return "NOGROUP No such consumer group '" + string(group) + "' for key name '" + string(key) + "'"
}

func noKeyOrGroup(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'"
}

// subSyntax is Redis's addReplySubcommandSyntaxError.
func subSyntax(c *Ctx, args [][]byte) {
	c.W.Error(errtext.SubSyntax(args[0], args[1]))
}

// entriesReadArg parses ENTRIESREAD's value; false: replied.
func entriesReadArg(c *Ctx, b []byte) (int64, bool) {
	n, ok := num.ParseInt(b)
	if !ok {
		c.W.Error(errtext.NotInt)
		return 0, false
	}
	if n < 0 && n != -1 {
		c.W.Error("ERR value for ENTRIESREAD must be positive or -1")
		return 0, false
	}
	return n, true
}

// xgroupKey checks XGROUP's key (and, when needGroup, its group) as
// Redis does before every subcommand; found reports whether the key is
// there. ok false: replied.
func xgroupKey(c *Ctx, args [][]byte, needGroup, mkStream bool) (found, ok bool) {
	_, found, err := c.DB.XInfo(args[2], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
		return false, false
	case !found && !mkStream:
		c.W.Error(errXGroupNoKey)
		return false, false
	case found && needGroup:
		if _, err := c.DB.XGroupInfo(args[2], args[3], c.Now); err != nil {
			c.W.Error(noGroupFor(args[2], args[3]))
			return true, false
		}
	}
	return found, true
}

// groupID parses XGROUP CREATE's and SETID's ID: "$" (dollar), else a
// strict ID (CREATE) or any ID (SETID: "-" and "+" too). false: replied.
func groupID(c *Ctx, b []byte, strict bool) (id engine.StreamID, dollar, ok bool) {
	if len(b) == 1 && b[0] == '$' {
		return id, true, true
	}
	id, _, ok = parseID(b, 0, strict, false)
	if !ok {
		c.W.Error(errInvalidID)
	}
	return id, false, ok
}

// CmdXGroupCreate is XGROUP CREATE key group id|$ [MKSTREAM]
// [ENTRIESREAD entries-read].
func CmdXGroupCreate(c *Ctx, args [][]byte) {
	mkStream := false
	entriesRead := int64(-1)
	for i := 5; i < len(args); i++ {
		switch {
		case strings.EqualFold(string(args[i]), "mkstream"):
			mkStream = true
		case strings.EqualFold(string(args[i]), "entriesread") && i+1 < len(args):
			n, ok := entriesReadArg(c, args[i+1])
			if !ok {
				return
			}
			entriesRead = n
			i++
		default:
			subSyntax(c, args)
			return
		}
	}
	if _, ok := xgroupKey(c, args, false, mkStream); !ok {
		return
	}
	if len(args) > 8 {
		subSyntax(c, args)
		return
	}
	id, dollar, ok := groupID(c, args[4], true)
	if !ok {
		return
	}
	if err := c.DB.XGroupCreate(args[2], args[3], id, dollar, entriesRead, mkStream, c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.OK()
}

// CmdXGroupSetID is XGROUP SETID key group id|$ [ENTRIESREAD
// entries-read].
func CmdXGroupSetID(c *Ctx, args [][]byte) {
	// As Redis: the options first, then the key and group, then the
	// count of arguments.
	entriesRead := int64(-1)
	for i := 5; i < len(args); i++ {
		if !strings.EqualFold(string(args[i]), "entriesread") || i+1 == len(args) {
			subSyntax(c, args)
			return
		}
		n, ok := entriesReadArg(c, args[i+1])
		if !ok {
			return
		}
		entriesRead = n
		i++
	}
	if _, ok := xgroupKey(c, args, true, false); !ok {
		return
	}
	if len(args) != 5 && len(args) != 7 {
		subSyntax(c, args)
		return
	}
	id, dollar, ok := groupID(c, args[4], false)
	if !ok {
		return
	}
	if err := c.DB.XGroupSetID(args[2], args[3], id, dollar, entriesRead, c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.OK()
}

// CmdXGroupDestroy is XGROUP DESTROY key group.
func CmdXGroupDestroy(c *Ctx, args [][]byte) {
	if _, ok := xgroupKey(c, args, false, false); !ok {
		return
	}
	ok, err := c.DB.XGroupDestroy(args[2], args[3], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case ok:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

// CmdXGroupCreateConsumer is XGROUP CREATECONSUMER key group consumer.
func CmdXGroupCreateConsumer(c *Ctx, args [][]byte) {
	if _, ok := xgroupKey(c, args, true, false); !ok {
		return
	}
	created, err := c.DB.XGroupCreateConsumer(args[2], args[3], args[4], c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case created:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

// CmdXGroupDelConsumer is XGROUP DELCONSUMER key group consumer.
func CmdXGroupDelConsumer(c *Ctx, args [][]byte) {
	if _, ok := xgroupKey(c, args, true, false); !ok {
		return
	}
	n, _, err := c.DB.XGroupDelConsumer(args[2], args[3], args[4], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

// CmdXGroupHelp is XGROUP HELP.
func CmdXGroupHelp(c *Ctx, args [][]byte) { kvHelp(c, args[0], xgroupHelp) }

// groupEvents are the keyspace events of XGROUP's subcommands that
// changed something (Redis notifies only then; the events are stated
// from the arguments, so a DELCONSUMER of an unknown consumer emits one
// too).
func init() {
	keyEvents["xgroup|create"] = &keyEvent{fn: func(args [][]byte, _ int, emit EmitEvent) {
		emit('t', "xgroup-create", args[2])
	}}
	keyEvents["xgroup|setid"] = &keyEvent{fn: func(args [][]byte, _ int, emit EmitEvent) {
		emit('t', "xgroup-setid", args[2])
	}}
	keyEvents["xgroup|destroy"] = &keyEvent{fn: func(args [][]byte, _ int, emit EmitEvent) {
		emit('t', "xgroup-destroy", args[2])
	}}
	keyEvents["xgroup|createconsumer"] = &keyEvent{fn: func(args [][]byte, _ int, emit EmitEvent) {
		emit('t', "xgroup-createconsumer", args[2])
	}}
	keyEvents["xgroup|delconsumer"] = &keyEvent{fn: func(args [][]byte, _ int, emit EmitEvent) {
		emit('t', "xgroup-delconsumer", args[2])
	}}
	// The reads and claims that create their consumer notify it, as
	// Redis's streamCreateConsumer.
	keyEvents["xreadgroup"] = &keyEvent{consumerOf: xreadGroupGroup}
	claims := &keyEvent{consumerOf: func(args [][]byte) []byte { return args[2] }}
	keyEvents["xclaim"], keyEvents["xautoclaim"] = claims, claims
}

// ---- XACK, XPENDING ----

// CmdXAck is XACK key group id [id ...].
func CmdXAck(c *Ctx, args [][]byte) {
	if _, err := c.DB.XGroupInfo(args[1], args[2], c.Now); err != nil {
		if err == engine.ErrNoGroup {
			c.W.Int(0)
		} else {
			c.W.Error(err.Error())
		}
		return
	}
	var buf [8]engine.StreamID
	ids := buf[:0]
	for _, a := range args[3:] {
		id, ok := strictID(c.W, a)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	n, err := c.DB.XAck(args[1], args[2], ids, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdXPending is XPENDING key group [[IDLE min-idle-time] start end
// count [consumer]].
func CmdXPending(c *Ctx, args [][]byte) {
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		c.W.Error(errtext.Syntax)
		return
	}
	var start, end engine.StreamID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		si := 3
		if strings.EqualFold(string(args[3]), "idle") {
			n, ok := num.ParseInt(args[4])
			if !ok {
				c.W.Error(errtext.NotInt)
				return
			}
			minIdle = n
			if len(args) < 8 {
				c.W.Error(errtext.Syntax)
				return
			}
			si += 2
		}
		n, ok := num.ParseInt(args[si+2])
		if !ok {
			c.W.Error(errtext.NotInt)
			return
		}
		count = max(n, 0)
		var ex bool
		if start, ex, ok = intervalID(c, args[si], 0); !ok {
			return
		}
		if ex {
			if start, ok = start.Next(); !ok {
				c.W.Error("ERR invalid start ID for the interval")
				return
			}
		}
		if end, ex, ok = intervalID(c, args[si+1], math.MaxUint64); !ok {
			return
		}
		if ex {
			if end, ok = end.Prev(); !ok {
				c.W.Error("ERR invalid end ID for the interval")
				return
			}
		}
		if si+3 < len(args) {
			consumer = args[si+3]
		}
	}
	if _, err := c.DB.XGroupInfo(args[1], args[2], c.Now); err != nil {
		if err == engine.ErrNoGroup {
			err = errorString(noKeyOrGroup(args[1], args[2]))
		}
		c.W.Error(err.Error())
		return
	}
	if len(args) == 3 {
		xpendingSummary(c, args[1], args[2])
		return
	}
	at := len(c.W.B)
	n := 0
	c.DB.XPending(args[1], args[2], consumer, start, end, c.Now, func(p engine.PendingEntry) bool {
		if count == 0 {
			return false
		}
		idle := c.Now - p.Time
		if minIdle != 0 && idle < minIdle {
			return true
		}
		count--
		n++
		c.W.Array(4)
		var buf [41]byte
		c.W.Bulk(p.ID.Append(buf[:0]))
		c.W.BulkString(p.Consumer)
		c.W.Int(max(idle, 0))
		c.W.Int(int64(p.Count))
		return true
	})
	deferHeader(c.W, at, n, false)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// xpendingSummary is XPENDING key group: the count, the smallest and
// largest pending IDs, and each consumer with pending entries and their
// count (a bulk string, as Redis replies).
func xpendingSummary(c *Ctx, key, group []byte) {
	c.W.Array(4)
	g, _ := c.DB.XGroupInfo(key, group, c.Now)
	c.W.Int(int64(g.Pending))
	if g.Pending == 0 {
		c.W.Null()
		c.W.Null()
		c.W.NullArray()
		return
	}
	var first, last engine.StreamID
	i := 0
	c.DB.XPending(key, group, nil, engine.StreamID{}, engine.MaxStreamID, c.Now, func(p engine.PendingEntry) bool {
		if i == 0 {
			first = p.ID
		}
		last = p.ID
		i++
		return true
	})
	var buf [41]byte
	c.W.Bulk(first.Append(buf[:0]))
	c.W.Bulk(last.Append(buf[:0]))
	at := len(c.W.B)
	n := 0
	c.DB.XConsumers(key, group, c.Now, func(ci engine.ConsumerInfo) {
		if ci.Pending == 0 {
			return
		}
		n++
		c.W.Array(2)
		c.W.BulkString(ci.Name)
		c.W.Bulk(strconv.AppendInt(buf[:0], int64(ci.Pending), 10))
	})
	deferHeader(c.W, at, n, false)
}

// ---- XCLAIM, XAUTOCLAIM ----

// writeClaimed writes one claimed entry: its ID (fv nil: JUSTID) or the
// entry.
func writeClaimed(w *resp.Writer, id engine.StreamID, fv [][]byte) {
	if fv == nil {
		var buf [41]byte
		w.Bulk(id.Append(buf[:0]))
		return
	}
	writeEntry(w, id, fv)
}

// CmdXClaim is XCLAIM key group consumer min-idle-time id [id ...] [IDLE
// ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID]
// [LASTID lastid].
func CmdXClaim(c *Ctx, args [][]byte) {
	if _, err := c.DB.XGroupInfo(args[1], args[2], c.Now); err != nil {
		if err == engine.ErrNoGroup {
			err = errorString(noKeyOrGroup(args[1], args[2]))
		}
		c.W.Error(err.Error())
		return
	}
	minIdle, ok := num.ParseInt(args[4])
	if !ok {
		c.W.Error("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	a := engine.XClaimArgs{MinIdle: max(minIdle, 0), Time: -1, RetryCount: -1}
	j := 5
	for ; j < len(args); j++ {
		if _, _, ok := parseID(args[j], 0, true, false); !ok {
			break
		}
	}
	lastIDArg := j
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := string(args[j])
		intOpt := func(name string) (int64, bool) {
			j++
			n, ok := num.ParseInt(args[j])
			if !ok {
				c.W.Error("ERR Invalid " + name + " option argument for XCLAIM")
			}
			return n, ok
		}
		switch {
		case strings.EqualFold(opt, "force"):
			a.Force = true
		case strings.EqualFold(opt, "justid"):
			a.JustID = true
		case strings.EqualFold(opt, "idle") && more > 0:
			n, ok := intOpt("IDLE")
			if !ok {
				return
			}
			a.Time = c.Now - n
		case strings.EqualFold(opt, "time") && more > 0:
			n, ok := intOpt("TIME")
			if !ok {
				return
			}
			a.Time = n
		case strings.EqualFold(opt, "retrycount") && more > 0:
			n, ok := intOpt("RETRYCOUNT")
			if !ok {
				return
			}
			a.RetryCount = n
		case strings.EqualFold(opt, "lastid") && more > 0:
			j++
			id, ok := strictID(c.W, args[j])
			if !ok {
				return
			}
			a.LastID = id
		default:
			c.W.Error("ERR Unrecognized XCLAIM option '" + opt + "'")
			return
		}
	}
	// A time in the future is taken as now (Redis: clients compute
	// times from their clocks), but not in an obeyed XCLAIM, which states
	// the primary's time.
	if a.Time < 0 || a.Time > c.Now && !c.Obey {
		a.Time = c.Now
	}
	var buf [8]engine.StreamID
	ids := buf[:0]
	for _, b := range args[5:lastIDArg] {
		id, _, _ := parseID(b, 0, true, false)
		ids = append(ids, id)
	}
	at := len(c.W.B)
	n := 0
	var err error
	c.Store.GroupEffects, err = c.DB.XClaim(args[1], args[2], args[3], ids, &a, c.Now, c.Store.GroupEffects[:0],
		func(id engine.StreamID, fv [][]byte) {
			writeClaimed(c.W, id, fv)
			n++
		})
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	deferHeader(c.W, at, n, false)
}

// CmdXAutoClaim is XAUTOCLAIM key group consumer min-idle-time start
// [COUNT count] [JUSTID].
func CmdXAutoClaim(c *Ctx, args [][]byte) {
	minIdle, ok := num.ParseInt(args[4])
	if !ok {
		c.W.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	start, ex, ok := intervalID(c, args[5], 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Next(); !ok {
			c.W.Error("ERR invalid start ID for the interval")
			return
		}
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch opt := string(args[j]); {
		case strings.EqualFold(opt, "count") && more > 0:
			n, ok := num.ParseInt(args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.W.Error("ERR COUNT must be > 0")
				return
			}
			count = n
			j++
		case strings.EqualFold(opt, "justid"):
			justID = true
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	if _, err := c.DB.XGroupInfo(args[1], args[2], c.Now); err != nil {
		if err == engine.ErrNoGroup {
			err = errorString(noKeyOrGroup(args[1], args[2]))
		}
		c.W.Error(err.Error())
		return
	}
	c.W.Array(3)
	head := len(c.W.B)
	n := 0
	next, fx, deleted, err := c.DB.XAutoClaim(args[1], args[2], args[3], max(minIdle, 0), start, int(min(count, math.MaxInt32)), justID, c.Now,
		c.Store.GroupEffects[:0], c.Store.GroupDeleted[:0], func(id engine.StreamID, fv [][]byte) {
			writeClaimed(c.W, id, fv)
			n++
		})
	c.Store.GroupEffects, c.Store.GroupDeleted = fx, deleted
	if err != nil {
		return
	}
	deferHeader(c.W, head, n, false)
	// The cursor goes first: write it after, then rotate it in front.
	at := len(c.W.B)
	var buf [41]byte
	c.W.Bulk(next.Append(buf[:0]))
	rotate(c.W.B[head:], at-head)
	c.W.Array(len(deleted))
	for _, id := range deleted {
		c.W.Bulk(id.Append(buf[:0]))
	}
}

// propXClaim is XCLAIM and XAUTOCLAIM as Redis propagates them: an
// XCLAIM ... FORCE JUSTID LASTID of each pending entry the claim changed
// or dropped, or an XGROUP SETID when only the group's last ID moved,
// all in one MULTI when there are several.
func propXClaim(p *Prop) {
	fx := p.DB.Store().GroupEffects
	if len(fx) == 0 || p.FX == nil {
		return
	}
	mark := p.FX.Len()
	for _, e := range fx {
		var id []byte
		if e.Arg >= 0 {
			id = p.Args[5+e.Arg]
		}
		propGroupEffect(p, p.Args[1], p.Args[2], e, id)
	}
	if p.FX.Len()-mark > 1 {
		p.FX.Wrap(mark)
	}
}

// propGroupEffect states one group effect of key's group: XCLAIM key
// group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID LASTID last (id:
// the ID as the command gave it, nil: e.ID), or XGROUP SETID key group
// last ENTRIESREAD n.
func propGroupEffect(p *Prop, key, group []byte, e engine.GroupEffect, id []byte) {
	var buf [41]byte
	if e.SetID {
		p.Begin(7)
		p.ArgString("XGROUP")
		p.ArgString("SETID")
		p.Arg(key)
		p.Arg(group)
		p.Arg(e.LastID.Append(buf[:0]))
		p.ArgString("ENTRIESREAD")
		p.ArgInt(e.EntriesRead)
		return
	}
	p.Begin(14)
	p.ArgString("XCLAIM")
	p.Arg(key)
	p.Arg(group)
	p.ArgString(e.Consumer)
	p.ArgString("0")
	if id == nil {
		id = e.ID.Append(buf[:0])
	}
	p.Arg(id)
	p.ArgString("TIME")
	p.ArgInt(e.Time)
	p.ArgString("RETRYCOUNT")
	p.ArgInt(int64(e.Count))
	p.ArgString("FORCE")
	p.ArgString("JUSTID")
	p.ArgString("LASTID")
	p.Arg(e.LastID.Append(buf[:0]))
}

// ---- XREADGROUP ----

// xgBlocked is the ID a blocked XREADGROUP's ">" becomes once its first
// attempt ran where the stream lives (as XREAD's "$" becomes an ID): a
// later attempt that finds the key gone or its group destroyed answers
// as Redis answers a client blocked on it. (">" and a NUL byte: Redis
// reads IDs as C strings, so a client's ">\x00" is ">" too.)
const xgBlocked = ">\x00"

// isNew reports whether an XREADGROUP ID is ">" (or its blocked form).
func isNew(id []byte) bool {
	return len(id) >= 1 && id[0] == '>' && (len(id) == 1 || id[1] == 0)
}

// xgCheck checks stream i of an XREADGROUP as Redis does before serving
// anything: its type, its group, its ID. later: the client was blocked on
// it (errors as Redis unblocks a client with). ok false: replied.
func xgCheck(c *Ctx, args [][]byte, a *xreadArgs, i int, later bool) (from engine.StreamID, history, ok bool) {
	key, id := args[a.streams+i], args[a.streams+a.n+i]
	_, err := c.DB.XGroupInfo(key, a.group, c.Now)
	switch {
	case later && (err == engine.ErrWrongType || err == engine.ErrNoGroup && !c.DB.Exists(key, c.Now)):
		c.W.Error("UNBLOCKED the stream key no longer exists")
		return from, false, false
	case later && err != nil:
		c.W.Error("NOGROUP the consumer group this client was blocked on no longer exists")
		return from, false, false
	case err == engine.ErrNoGroup:
		c.W.Error("NOGROUP No such key '" + string(key) + "' or consumer group '" + string(a.group) + "' in XREADGROUP with GROUP option")
		return from, false, false
	case err != nil:
		c.W.Error(err.Error())
		return from, false, false
	}
	return xgID(c, id)
}

// xgID parses an XREADGROUP ID: ">" (history false), or a strict ID
// whose successor the history starts from. ok false: replied.
func xgID(c *Ctx, id []byte) (from engine.StreamID, history, ok bool) {
	switch {
	case len(id) == 1 && id[0] == '$':
		c.W.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
		return from, false, false
	case isNew(id):
		return from, false, true
	}
	gt, ok := strictID(c.W, id)
	if !ok {
		return from, false, false
	}
	from, _ = gt.Next() // Redis's streamIncrID: the largest ID stays
	return from, true, true
}

// xreadGroup runs an XREADGROUP attempt over the streams of this shard
// (every stream when c.Owns is nil or says so): the reply of the streams
// it serves, or false with nothing written when none has anything for
// the group. It resets the Store's group effects, which the served
// streams' NOACK reads append to.
func xreadGroup(c *Ctx, args [][]byte, a *xreadArgs) (served bool, replied bool) {
	local := func(i int) bool { return c.Owns == nil || c.Owns(args[a.streams+i]) }
	later := false
	for i := 0; i < a.n; i++ {
		if !local(i) {
			continue
		}
		id := args[a.streams+a.n+i]
		later = later || len(id) == 2 && isNew(id)
		if _, _, ok := xgCheck(c, args, a, i, len(id) == 2 && isNew(id)); !ok {
			return false, true
		}
	}
	count := int(a.count)
	if later && count == 0 {
		count = 1000 // Redis's XREAD_BLOCKED_DEFAULT_COUNT
	}
	c.DB.ReadsAgain()
	start := len(c.W.B)
	n := 0
	for i := 0; i < a.n; i++ {
		if !local(i) {
			continue
		}
		key := args[a.streams+i]
		from, history, _ := xgID(c, args[a.streams+a.n+i])
		mark := len(c.W.B)
		if c.W.Proto != 3 {
			c.W.Array(2)
		}
		c.W.Bulk(key)
		at := len(c.W.B)
		m := 0
		served, _ := c.DB.XReadGroup(&engine.XReadGroupArgs{Key: key, Group: a.group, Consumer: a.consumer, History: history,
			From: from, Count: count, NoAck: a.noAck}, c.Now, func(id engine.StreamID, fv [][]byte) {
			m++
			if fv == nil {
				c.W.Array(2)
				var buf [41]byte
				c.W.Bulk(id.Append(buf[:0]))
				c.W.NullArray()
				return
			}
			writeEntry(c.W, id, fv)
		})
		if !served { // nothing new: the stream is left out
			c.W.B = c.W.B[:mark]
			continue
		}
		n++
		deferHeader(c.W, at, m, false)
	}
	if n == 0 {
		return false, false
	}
	deferHeader(c.W, start, n, c.W.Proto == 3)
	return true, true
}

// CmdXReadGroup is XREADGROUP GROUP group consumer [COUNT count] [BLOCK
// milliseconds] [NOACK] STREAMS key [key ...] id [id ...] when it may not
// block (no BLOCK, or inside MULTI or a script): a null array when no
// stream has anything for the group.
func CmdXReadGroup(c *Ctx, args [][]byte) {
	var a xreadArgs
	if !parseXRead(c, args, &a, true) {
		return
	}
	if _, replied := xreadGroup(c, args, &a); !replied {
		c.W.NullArray()
	}
}

// BlockXReadGroup is XREADGROUP with BLOCK. The dry run (no data: c.Owns
// nil) checks only the syntax and waits: the first attempt where the
// streams live answers the errors and the history reads. That attempt
// marks the ">" of the streams it ran on (xgBlocked) in args.
func BlockXReadGroup(c *Ctx, args [][]byte, wait *Wait) bool {
	var a xreadArgs
	if !parseXRead(c, args, &a, true) {
		return false
	}
	if c.Owns != nil {
		if _, replied := xreadGroup(c, args, &a); replied {
			return false
		}
		for i := 0; i < a.n; i++ {
			if id := args[a.streams+a.n+i]; len(id) == 1 && id[0] == '>' && c.Owns(args[a.streams+i]) {
				args[a.streams+a.n+i] = []byte(xgBlocked)
			}
		}
	}
	wait.set(a.deadline, a.streams, a.streams+a.n)
	return true
}

func init() {
	registerBlocking("xreadgroup", BlockXReadGroup)
	blocksIf["xreadgroup"] = xreadGroupBlocks
	servesGone["xreadgroup"] = true
}

// xreadGroupBlocks reports whether XREADGROUP's arguments hold BLOCK
// (before STREAMS; GROUP's two names are not options).
func xreadGroupBlocks(args [][]byte) bool {
	for i := 1; i+1 < len(args); i++ {
		switch {
		case eqFold(args[i], "streams"):
			return false
		case eqFold(args[i], "block"):
			return true
		case eqFold(args[i], "count"):
			i++
		case eqFold(args[i], "group"):
			i += 2
		}
	}
	return false
}

// xreadGroupGroup returns XREADGROUP's group name, as parseXRead reads
// it (nil when the arguments name none before STREAMS).
func xreadGroupGroup(args [][]byte) []byte {
	for i := 1; i+1 < len(args); i++ {
		switch {
		case eqFold(args[i], "streams"):
			return nil
		case eqFold(args[i], "group") && i+2 < len(args):
			return args[i+1]
		case eqFold(args[i], "block"), eqFold(args[i], "count"):
			i++
		}
	}
	return nil
}

// propXReadGroup is XREADGROUP as Redis 7.0 propagates it: for each
// stream it served new entries of, an XCLAIM ... FORCE JUSTID LASTID per
// entry, or under NOACK the consumer's creation (when the read created
// it) and an XGROUP SETID of the group's last ID; history reads propagate
// nothing but a NOACK's consumer creation. Several in one MULTI.
func propXReadGroup(p *Prop) {
	if p.FX == nil {
		return
	}
	var w resp.Writer
	c := Ctx{W: &w, Now: p.Now}
	var a xreadArgs
	if !parseXRead(&c, p.Args, &a, true) {
		return
	}
	v, _, err := resp.ReadReply(p.Reply)
	if err != nil || v.Type != '*' && v.Type != '%' {
		return
	}
	mark := p.FX.Len()
	for k := 0; k < len(v.Elems); {
		var key []byte
		var entries []resp.Value
		if v.Type == '%' {
			key, entries = v.Elems[k].Str, v.Elems[k+1].Elems
			k += 2
		} else {
			if len(v.Elems[k].Elems) != 2 {
				return
			}
			key, entries = v.Elems[k].Elems[0].Str, v.Elems[k].Elems[1].Elems
			k++
		}
		i := 0
		for i < a.n && !bytes.Equal(p.Args[a.streams+i], key) {
			i++
		}
		if i == a.n {
			continue
		}
		history := !isNew(p.Args[a.streams+a.n+i])
		g, err := p.DB.XGroupInfo(key, a.group, p.Now)
		if err != nil {
			continue
		}
		if a.noAck {
			if fresh := p.DB.XGroupFresh(key, a.group, p.Now); fresh != "" {
				p.Begin(5)
				p.ArgString("XGROUP")
				p.ArgString("CREATECONSUMER")
				p.Arg(key)
				p.Arg(a.group)
				p.ArgString(fresh)
			}
			if !history && len(entries) > 0 {
				propGroupEffect(p, key, a.group, engine.GroupEffect{SetID: true, LastID: g.LastID, EntriesRead: g.EntriesRead}, nil)
			}
			continue
		}
		if history {
			continue
		}
		for _, e := range entries {
			if len(e.Elems) != 2 {
				continue
			}
			id, _, ok := parseID(e.Elems[0].Str, 0, true, false)
			if !ok {
				continue
			}
			p.DB.XPending(key, a.group, nil, id, id, p.Now, func(pe engine.PendingEntry) bool {
				propGroupEffect(p, key, a.group, engine.GroupEffect{ID: id, Consumer: pe.Consumer, Time: pe.Time, Count: pe.Count, LastID: id}, e.Elems[0].Str)
				return false
			})
		}
	}
	if p.FX.Len()-mark > 1 {
		p.FX.Wrap(mark)
	}
}

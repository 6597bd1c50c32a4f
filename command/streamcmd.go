package command

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
)

// The stream commands' handlers: parsing as Redis 7.0's t_stream.c does
// (the same errors, in the same order), the work in engine/stream.go.

const errInvalidID = "ERR Invalid stream ID specified as stream command argument"

// parseULL is Redis's string2ull: a canonical int64 that is not negative,
// or else what strtoull accepts whole (leading blanks, a sign; a minus
// negates modulo 2^64) without overflow.
func parseULL(b []byte) (uint64, bool) {
	if v, ok := num.ParseInt(b); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 || v > (math.MaxUint64-uint64(d))/10 {
			return 0, false
		}
		v = v*10 + uint64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseID is Redis's streamGenericParseIDOrReply: "-" and "+" (unless
// strict), ms-seq, or ms alone (missingSeq as the sequence); with star,
// "ms-*" too (seqGiven false). The argument is read as a C string (up to
// its first NUL byte, at most 127 bytes).
func parseID(b []byte, missingSeq uint64, strict, star bool) (id engine.StreamID, seqGiven, ok bool) {
	if len(b) > 127 {
		return id, false, false
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return id, false, false
		}
		if b[0] == '+' {
			return engine.MaxStreamID, true, true
		}
		return id, true, true
	}
	msPart, seqPart, dash := bytes.Cut(b, []byte{'-'})
	ms, ok := parseULL(msPart)
	if !ok {
		return id, false, false
	}
	id.Ms, id.Seq = ms, missingSeq
	if !dash {
		return id, true, true
	}
	if star && len(seqPart) == 1 && seqPart[0] == '*' {
		id.Seq = 0
		return id, false, true
	}
	seq, ok := parseULL(seqPart)
	id.Seq = seq
	return id, true, ok
}

// strictID parses an ID that may not be "-" or "+" (a missing sequence
// is 0); false: replied.
func strictID(w *resp.Writer, b []byte) (engine.StreamID, bool) {
	id, _, ok := parseID(b, 0, true, false)
	if !ok {
		w.Error(errInvalidID)
	}
	return id, ok
}

// intervalID is Redis's streamParseIntervalIDOrReply: an ID, or "(" and
// a strict ID meaning the range excludes it; false: replied.
func intervalID(c *Ctx, b []byte, missingSeq uint64) (id engine.StreamID, exclude, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, _, ok = parseID(b[1:], missingSeq, true, false)
		exclude = true
	} else {
		id, _, ok = parseID(b, missingSeq, false, false)
	}
	if !ok {
		c.W.Error(errInvalidID)
	}
	return id, exclude, ok
}

// trimArgs is XADD's and XTRIM's parsed options (Redis's
// streamAddTrimArgs), with the positions propagation rewrites.
type trimArgs struct {
	engine.XTrimArgs
	noMkStream bool
	id         engine.XAddID
	idPos      int // XADD: the ID argument
	threshold  int // the MAXLEN/MINID argument (0: none)
	limitPos   int // the LIMIT keyword (0: none)
}

// parseTrimArgs is Redis's streamParseAddOrTrimArgsOrReply, errors
// written to w (ok false); nodeEntries is stream-node-max-entries, for the
// default LIMIT of ~.
func parseTrimArgs(w *resp.Writer, args [][]byte, xadd bool, nodeEntries int, obey bool, t *trimArgs) bool {
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			t.id.Auto = true
			t.idPos = i
			goto parsed
		case (strings.EqualFold(string(opt), "maxlen") || strings.EqualFold(string(opt), "minid")) && more > 0:
			if t.Strategy != engine.XTrimNone {
				w.Error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return false
			}
			t.Approx = false
			if next := args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				t.Approx = next[0] == '~'
				i++
			}
			if strings.EqualFold(string(opt), "maxlen") {
				n, ok := num.ParseInt(args[i+1])
				if !ok {
					w.Error(errtext.NotInt)
					return false
				}
				if n < 0 {
					w.Error("ERR The MAXLEN argument must be >= 0.")
					return false
				}
				t.Strategy, t.MaxLen = engine.XTrimMaxLen, n
			} else {
				id, ok := strictID(w, args[i+1])
				if !ok {
					return false
				}
				t.Strategy, t.MinID = engine.XTrimMinID, id
			}
			i++
			t.threshold = i
		case strings.EqualFold(string(opt), "limit") && more > 0:
			n, ok := num.ParseInt(args[i+1])
			if !ok {
				w.Error(errtext.NotInt)
				return false
			}
			if n < 0 {
				w.Error("ERR The LIMIT argument must be >= 0.")
				return false
			}
			t.Limit, limitGiven = n, true
			t.limitPos = i
			i++
		case xadd && strings.EqualFold(string(opt), "nomkstream"):
			t.noMkStream = true
		case xadd:
			id, seqGiven, ok := parseID(opt, 0, true, true)
			if !ok {
				w.Error(errInvalidID)
				return false
			}
			t.id = engine.XAddID{ID: id, SeqAuto: !seqGiven}
			t.idPos = i
			goto parsed
		default:
			w.Error(errtext.Syntax)
			return false
		}
	}
parsed:
	if t.Limit != 0 && t.Strategy == engine.XTrimNone {
		w.Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return false
	}
	if !xadd && t.Strategy == engine.XTrimNone {
		w.Error("ERR syntax error, XTRIM must be called with a trimming strategy")
		return false
	}
	switch {
	case obey:
		// The primary or the AOF made the trim exact: no limit.
		t.Limit = 0
	case limitGiven && !t.Approx:
		w.Error("ERR syntax error, LIMIT cannot be used without the special ~ option")
		return false
	case !limitGiven && t.Approx:
		t.Limit = 100 * int64(nodeEntries)
		if t.Limit <= 0 || t.Limit > 1000000 {
			t.Limit = 10000
		}
	case !limitGiven:
		t.Limit = 0
	}
	if xadd && t.idPos == 0 {
		t.idPos = i
	}
	return true
}

// CmdXAdd is XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT
// count]] *|id field value [field value ...].
func CmdXAdd(c *Ctx, args [][]byte) {
	var t trimArgs
	if !parseTrimArgs(c.W, args, true, c.Store.Limits.StreamNodeMaxEntries, c.Obey, &t) {
		return
	}
	fields := t.idPos + 1
	if n := len(args) - fields; n < 2 || n%2 == 1 {
		c.W.WrongArgs("xadd")
		return
	}
	if !t.id.Auto && !t.id.SeqAuto && t.id.ID.IsZero() {
		c.W.Error("ERR The ID specified in XADD must be greater than 0-0")
		return
	}
	var trim *engine.XTrimArgs
	if t.Strategy != engine.XTrimNone {
		trim = &t.XTrimArgs
	}
	res, ok, err := c.DB.XAdd(args[1], t.id, args[fields:], t.noMkStream, trim, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case !ok:
		c.W.Null()
	default:
		var buf [41]byte
		c.W.Bulk(res.ID.Append(buf[:0]))
	}
}

// propXAdd is XADD as Redis propagates it: the ID it chose instead of *
// or ms-*, and an approximate trim as the exact one it did (= and the
// length, or the first ID, it left), without LIMIT.
func propXAdd(p *Prop) {
	var t trimArgs
	var w resp.Writer
	if !parseTrimArgs(&w, p.Args, true, 0, p.Obey, &t) {
		return
	}
	v, _, err := resp.ReadReply(p.Reply)
	if err != nil || v.Null {
		return
	}
	if !t.id.Auto && !t.id.SeqAuto && !t.Approx {
		p.Verbatim()
		return
	}
	propTrimmed(p, &t, t.idPos, v.Str)
}

// propTrimmed states XADD or XTRIM with the ID argument at idPos replaced
// by id (when not nil) and an approximate trim made exact.
func propTrimmed(p *Prop, t *trimArgs, idPos int, id []byte) {
	n := len(p.Args)
	if t.limitPos != 0 {
		n -= 2
	}
	p.Begin(n)
	var info engine.StreamInfo
	if t.Approx {
		info, _, _ = p.DB.XInfo(p.Args[1], p.Now)
	}
	for i := 0; i < len(p.Args); i++ {
		switch {
		case i == t.limitPos && t.limitPos != 0:
			i++
		case i == idPos && id != nil:
			p.Arg(id)
		case t.Approx && i == t.threshold-1:
			p.ArgString("=")
		case t.Approx && i == t.threshold && t.Strategy == engine.XTrimMaxLen:
			p.ArgInt(int64(info.Length))
		case t.Approx && i == t.threshold:
			p.ArgString(info.Edge.String())
		default:
			p.Arg(p.Args[i])
		}
	}
}

// CmdXTrim is XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count].
func CmdXTrim(c *Ctx, args [][]byte) {
	var t trimArgs
	if !parseTrimArgs(c.W, args, false, c.Store.Limits.StreamNodeMaxEntries, c.Obey, &t) {
		return
	}
	n, err := c.DB.XTrim(args[1], &t.XTrimArgs, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(n)
}

// propXTrim is XTRIM with an approximate trim made exact (see propXAdd).
func propXTrim(p *Prop) {
	var t trimArgs
	var w resp.Writer
	if !parseTrimArgs(&w, p.Args, false, 0, p.Obey, &t) {
		return
	}
	if !t.Approx {
		p.Verbatim()
		return
	}
	propTrimmed(p, &t, 0, nil)
}

// CmdXLen is XLEN key.
func CmdXLen(c *Ctx, args [][]byte) {
	n, err := c.DB.XLen(args[1], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdXRange is XRANGE key start end [COUNT count].
func CmdXRange(c *Ctx, args [][]byte) { xrange(c, args, false) }

// CmdXRevRange is XREVRANGE key end start [COUNT count].
func CmdXRevRange(c *Ctx, args [][]byte) { xrange(c, args, true) }

func xrange(c *Ctx, args [][]byte, rev bool) {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ex, ok := intervalID(c, startArg, 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Next(); !ok {
			c.W.Error("ERR invalid start ID for the interval")
			return
		}
	}
	end, ex, ok := intervalID(c, endArg, math.MaxUint64)
	if !ok {
		return
	}
	if ex {
		if end, ok = end.Prev(); !ok {
			c.W.Error("ERR invalid end ID for the interval")
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if !strings.EqualFold(string(args[j]), "count") || j+1 >= len(args) {
			c.W.Error(errtext.Syntax)
			return
		}
		n, ok := num.ParseInt(args[j+1])
		if !ok {
			c.W.Error(errtext.NotInt)
			return
		}
		count = max(n, 0)
		j++
	}
	typ := c.DB.TypeOf(args[1], c.Now)
	switch {
	case typ == engine.TypeNone:
		c.W.Array(0)
		return
	case typ != engine.TypeStream:
		c.W.Error(errtext.WrongType)
		return
	case count == 0:
		c.W.NullArray()
		return
	}
	start0 := len(c.W.B)
	n := 0
	c.DB.XRange(args[1], start, end, int(max(count, 0)), rev, c.Now, func(id engine.StreamID, fv [][]byte) bool {
		writeEntry(c.W, id, fv)
		n++
		return true
	})
	deferHeader(c.W, start0, n, false)
}

// writeEntry writes one stream entry: [id, [field, value, ...]].
func writeEntry(w *resp.Writer, id engine.StreamID, fv [][]byte) {
	w.Array(2)
	var buf [41]byte
	w.Bulk(id.Append(buf[:0]))
	w.Array(len(fv))
	for _, s := range fv {
		w.Bulk(s)
	}
}

// rotate moves b[:k] to the end of b (in place).
func rotate(b []byte, k int) {
	slices.Reverse(b[:k])
	slices.Reverse(b[k:])
	slices.Reverse(b)
}

// deferHeader puts an array (asMap: a map in RESP3) header of n elements
// in front of what was written to w from start: the count is known only
// after the elements are written.
func deferHeader(w *resp.Writer, start, n int, asMap bool) {
	end := len(w.B)
	if asMap {
		w.Map(n)
	} else {
		w.Array(n)
	}
	rotate(w.B[start:], end-start)
}

// CmdXDel is XDEL key id [id ...].
func CmdXDel(c *Ctx, args [][]byte) {
	switch c.DB.TypeOf(args[1], c.Now) {
	case engine.TypeNone:
		c.W.Int(0)
		return
	case engine.TypeStream:
	default:
		c.W.Error(errtext.WrongType)
		return
	}
	for _, a := range args[2:] {
		if _, ok := strictID(c.W, a); !ok {
			return
		}
	}
	n, err := c.DB.XDel(args[1], len(args)-2, func(i int) engine.StreamID {
		id, _, _ := parseID(args[2+i], 0, true, false)
		return id
	}, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Int(int64(n))
}

// CmdXSetID is XSETID key last-id [ENTRIESADDED entries-added]
// [MAXDELETEDID max-deleted-id].
func CmdXSetID(c *Ctx, args [][]byte) {
	id, ok := strictID(c.W, args[2])
	if !ok {
		return
	}
	added := int64(-1)
	var maxDel engine.StreamID
	for i := 3; i < len(args); i += 2 {
		more := len(args) - 1 - i
		switch opt := string(args[i]); {
		case strings.EqualFold(opt, "entriesadded") && more > 0:
			n, ok := num.ParseInt(args[i+1])
			if !ok {
				c.W.Error(errtext.NotInt)
				return
			}
			if n < 0 {
				c.W.Error("ERR entries_added must be positive")
				return
			}
			added = n
		case strings.EqualFold(opt, "maxdeletedid") && more > 0:
			if maxDel, ok = strictID(c.W, args[i+1]); !ok {
				return
			}
			if id.Less(maxDel) {
				c.W.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	if err := c.DB.XSetID(args[1], id, added, maxDel, c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.OK()
}

// xreadArgs is XREAD's and XREADGROUP's parsed options.
type xreadArgs struct {
	count    int64 // 0: no limit
	block    bool
	deadline int64 // 0: none
	streams  int   // the first key
	n        int   // streams
	// XREADGROUP's GROUP and NOACK.
	group, consumer []byte
	noAck           bool
}

// parseXRead parses XREAD's options, or (group) XREADGROUP's, as Redis's
// xreadCommand does for both; false: replied.
func parseXRead(c *Ctx, args [][]byte, a *xreadArgs, group bool) bool {
	for i := 1; i < len(args); i++ {
		more := len(args) - 1 - i
		switch o := string(args[i]); {
		case strings.EqualFold(o, "block") && more > 0:
			i++
			ms, ok := num.ParseInt(args[i])
			if !ok {
				c.W.Error(errtext.TimeoutNotInt)
				return false
			}
			if ms < 0 {
				c.W.Error(errtext.TimeoutNegative)
				return false
			}
			a.block, a.deadline = true, 0
			if ms > 0 {
				if ms > math.MaxInt64-c.Now {
					c.W.Error(errtext.TimeoutRange)
					return false
				}
				a.deadline = c.Now + ms
			}
		case strings.EqualFold(o, "count") && more > 0:
			i++
			n, ok := num.ParseInt(args[i])
			if !ok {
				c.W.Error(errtext.NotInt)
				return false
			}
			a.count = max(n, 0)
		case strings.EqualFold(o, "streams") && more > 0:
			a.streams = i + 1
			if (len(args)-a.streams)%2 != 0 {
				c.W.Error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return false
			}
			a.n = (len(args) - a.streams) / 2
			if group && a.group == nil {
				c.W.Error("ERR Missing GROUP option for XREADGROUP")
				return false
			}
			return true
		case strings.EqualFold(o, "group") && more >= 2:
			if !group {
				c.W.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return false
			}
			a.group, a.consumer = args[i+1], args[i+2]
			i += 2
		case strings.EqualFold(o, "noack"):
			if !group {
				c.W.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return false
			}
			a.noAck = true
		default:
			c.W.Error(errtext.Syntax)
			return false
		}
	}
	c.W.Error(errtext.Syntax)
	return false
}

// xreadAfter returns the ID XREAD serves entries after for stream i:
// the given ID, the stream's last ID for "$" and, for "+", the one before
// its last entry (Redis 7.4 and Valkey 8: "+" reads the last entry). ok
// false: replied (an invalid ID, or the WRONGTYPE of a key before it).
func xreadAfter(c *Ctx, args [][]byte, a *xreadArgs, i int) (after engine.StreamID, ok bool) {
	key, arg := args[a.streams+i], args[a.streams+a.n+i]
	info, found, err := c.DB.XLast(key, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return after, false
	}
	switch {
	case len(arg) == 1 && arg[0] == '$':
		return info.LastID, true
	case len(arg) == 1 && arg[0] == '+':
		if !found || info.Length == 0 {
			return info.LastID, true
		}
		after, _ = info.LastLive.Prev()
		return after, true
	case len(arg) == 1 && arg[0] == '>':
		c.W.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
		return after, false
	}
	return strictID(c.W, arg)
}

// CmdXRead is XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key
// ...] id [id ...] when it may not block (inside MULTI or a script): the
// entries after each ID, or a null array.
func CmdXRead(c *Ctx, args [][]byte) {
	var a xreadArgs
	if !parseXRead(c, args, &a, false) {
		return
	}
	// Check every ID (and type) before anything is written.
	for i := 0; i < a.n; i++ {
		if _, ok := xreadAfter(c, args, &a, i); !ok {
			return
		}
	}
	c.DB.ReadsAgain()
	if !xreadServe(c, args, &a, nil) {
		c.W.NullArray()
	}
}

// xreadServe writes XREAD's reply for the streams that have entries
// after their IDs (the IDs of after, or as xreadAfter resolves them when
// after is nil) and reports whether any had: false writes nothing.
func xreadServe(c *Ctx, args [][]byte, a *xreadArgs, after []engine.StreamID) bool {
	start := len(c.W.B)
	served := 0
	for i := 0; i < a.n; i++ {
		key := args[a.streams+i]
		var gt engine.StreamID
		if after != nil {
			gt = after[i]
		} else {
			gt, _ = xreadAfter(c, args, a, i)
		}
		info, found, _ := c.DB.XLast(key, c.Now)
		if !found || info.Length == 0 || !gt.Less(info.LastLive) {
			continue
		}
		from, _ := gt.Next()
		served++
		if c.W.Proto != 3 {
			c.W.Array(2)
		}
		c.W.Bulk(key)
		at := len(c.W.B)
		n := 0
		c.DB.XRange(key, from, engine.MaxStreamID, int(a.count), false, c.Now, func(id engine.StreamID, fv [][]byte) bool {
			writeEntry(c.W, id, fv)
			n++
			return true
		})
		deferHeader(c.W, at, n, false)
	}
	if served == 0 {
		return false
	}
	deferHeader(c.W, start, served, c.W.Proto == 3)
	return true
}

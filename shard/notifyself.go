package shard

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
	"github.com/radish-kv/radish/pubsub"
)

// Keyspace notifications to the connection whose command caused them.
// Redis 7.0 publishes an event while the command runs, so a RESP3 client
// subscribed to its own keys' events gets each push inside its own
// replies: before the command's reply when Redis notifies before it
// replies (SET, DEL, INCR, SADD, RENAME ...), after it when Redis replies
// first (LPUSH, HSET, EXPIRE, ZADD ...: replyFirst), inside it after its
// headers for the sorted-set pops (midReply), and inside EXEC's array at
// that command's place. radish's events are published at the end of the
// turn, after every reply; so a command that runs on the connection's own
// shard, on its own, in an EXEC that runs there or as a blocking pop
// served at once there (runLocal1, execHere, tryServe), writes the pushes
// its connection would get into its reply as Redis places them, and the
// turn's publish skips that connection for those events. A command that
// hops to another shard, or a blocking pop served at once there, notes
// its events there for the connection's shard (selfRemote, selfNotes),
// which writes the pushes into the reply it receives (placeNotes); the
// owner's publish of those events has that shard skip the connection
// (pubEnt.skip). A command whose keys span shards, and an EXEC on another
// shard's keys, still have their pushes arrive after their reply.

// selfEvents is the state of the pushes a command writes to its own
// connection.
type selfEvents struct {
	c *conn        // the connection, RESP3 and subscribed, whose command runs here
	w *resp.Writer // where its replies are written
	// notes, when c's shard is another, takes c's events for that shard
	// (a hop's, a blocking pop's served at once).
	notes *selfNotes
	on    bool   // run1 is running c's command, writing to w
	cmd   string // the command's name
	// before and after are the pushes to c, before and after the
	// command's reply.
	before, after []byte
	ch            []byte
	idx           []int   // the turn's events c received so
	skip          []*conn // and the connection, for each
}

// selfOn makes the commands c runs next, writing to w, write c's own
// pushes, when c may have any: RESP3, subscribed, notifications on.
func (s *Shard) selfOn(c *conn, w *resp.Writer) {
	if s.kev.flags != 0 && c.cl.Proto == 3 && c.subscribed() {
		s.kev.self.c, s.kev.self.w = c, w
	}
}

// selfOff ends selfOn and selfRemote.
func (s *Shard) selfOff() { s.kev.self.c, s.kev.self.w, s.kev.self.notes = nil, nil, nil }

// selfRemote makes the command of c, another shard's connection, that
// runs next writing to w, note its events in n: c's shard writes the
// pushes they owe it into the reply (placeNotes), and the turn's publish
// has that shard skip c for them (pubEnt.skip).
func (s *Shard) selfRemote(c *conn, w *resp.Writer, n *selfNotes) {
	n.reset()
	s.kev.self.c, s.kev.self.w, s.kev.self.notes = c, w, n
}

// selfNotes are the events a command emitted on another shard than its
// client's, for the client's shard.
type selfNotes struct {
	cmd string
	ev  []noteEvent
	buf []byte // their keys, one after another
}

// noteEvent is one of selfNotes' events.
type noteEvent struct {
	db     int
	event  string
	keyEnd int // the key is buf from the previous keyEnd
	after  bool
}

func (n *selfNotes) reset() { n.ev, n.buf = n.ev[:0], n.buf[:0] }

// placeNotes returns reply, a command's reply written on another shard,
// with the pushes its client c, this shard's, owes itself for the events
// n notes, placed as Redis writes them.
func (s *Shard) placeNotes(n *selfNotes, c *conn, reply []byte) []byte {
	se := &s.kev.self
	start := 0
	for _, e := range n.ev {
		key := n.buf[start:e.keyEnd]
		start = e.keyEnd
		b := &se.before
		if e.after {
			b = &se.after
		}
		*b = s.selfPushes(*b, c, e.db, e.event, key)
	}
	n.reset()
	w := resp.Writer{B: reply} // empty under CLIENT REPLY OFF: the pushes alone
	se.cmd = n.cmd
	s.placeSelf(&w, 0)
	return w.B
}

// toSelf writes the pushes an event just appended owes the connection
// whose command runs (selfEvents.on), and notes the event.
func (s *Shard) toSelf(event string, key []byte) {
	se := &s.kev.self
	if n := se.notes; n != nil {
		n.cmd = se.cmd
		n.buf = append(n.buf, key...)
		n.ev = append(n.ev, noteEvent{db: s.kev.db, event: event, keyEnd: len(n.buf), after: afterReply(se.cmd, event)})
		se.idx = append(se.idx, s.mut.fx.Events()-1)
		se.skip = append(se.skip, se.c)
		return
	}
	n := len(se.before) + len(se.after)
	b := &se.before
	if afterReply(se.cmd, event) {
		b = &se.after
	}
	*b = s.selfPushes(*b, se.c, s.kev.db, event, key)
	if len(se.before)+len(se.after) > n {
		se.idx = append(se.idx, s.mut.fx.Events()-1)
		se.skip = append(se.skip, se.c)
	}
}

// selfPushes appends what c receives for event on key of database db,
// on the keyspace and keyevent channels notifications are on for.
func (s *Shard) selfPushes(b []byte, c *conn, db int, event string, key []byte) []byte {
	se := &s.kev.self
	if s.kev.flags&config.NotifyKeyspace != 0 {
		se.ch = append(strconv.AppendInt(append(se.ch[:0], "__keyspace@"...), int64(db), 10), "__:"...)
		se.ch = append(se.ch, key...)
		b = s.selfFrames(b, c, se.ch, []byte(event))
	}
	if s.kev.flags&config.NotifyKeyevent != 0 {
		se.ch = append(strconv.AppendInt(append(se.ch[:0], "__keyevent@"...), int64(db), 10), "__:"...)
		se.ch = append(se.ch, event...)
		b = s.selfFrames(b, c, se.ch, key)
	}
	return b
}

// selfFrames appends what c receives for msg on ch: a message when it
// subscribes to ch, a pmessage for each of its patterns that match.
func (s *Shard) selfFrames(b []byte, c *conn, ch, msg []byte) []byte {
	if slices.Contains(s.ps.reg.Subscribers(pubsub.Channel, ch), c) {
		b = pubsub.AppendMessage(b, c.cl.Proto, pubsub.Channel, ch, msg)
	}
	if s.ps.reg.Patterns() > 0 {
		s.ps.reg.Matching(ch, func(pattern string, subs []*conn) {
			if slices.Contains(subs, c) {
				b = pubsub.AppendPMessage(b, c.cl.Proto, pattern, ch, msg)
			}
		})
	}
	return b
}

// placeSelf writes the pushes the command that wrote its reply to w from
// start owes its connection: before and after that reply (before: inside
// it, for a command of midReply).
func (s *Shard) placeSelf(w *resp.Writer, start int) {
	se := &s.kev.self
	if len(se.before) > 0 {
		at := start
		if n := midReply[se.cmd]; n > 0 {
			at += replyTokens(w.B[start:], n)
		}
		w.B = slices.Insert(w.B, at, se.before...)
	}
	w.B = append(w.B, se.after...)
	se.before, se.after = se.before[:0], se.after[:0]
}

// selfDelivered returns the connection that received event i of the
// turn already (toSelf), or nil; k is where the walk over the events
// noted stands (publishEvents walks them in order).
func (se *selfEvents) delivered(i int, k *int) *conn {
	if *k < len(se.idx) && se.idx[*k] == i {
		*k++
		return se.skip[*k-1]
	}
	return nil
}

// published forgets the events noted: the turn's events went out.
func (se *selfEvents) published() {
	clear(se.skip)
	se.idx, se.skip = se.idx[:0], se.skip[:0]
}

// afterReply reports whether Redis 7.0 publishes event of cmd after cmd's
// reply (replyFirst; of LMOVE and RPOPLPUSH, the pop and del, not the
// push; of the EXPIRE family, not the del of a time in the past; of the
// sorted-set pops, whose pop is inside it (midReply), the del).
func afterReply(cmd, event string) bool {
	if _, ok := midReply[cmd]; ok {
		return event == "del"
	}
	switch cmd {
	case "expire", "pexpire", "expireat", "pexpireat":
		return event != "del"
	case "rpoplpush", "lmove", "brpoplpush", "blmove":
		return event != "lpush" && event != "rpush"
	}
	_, ok := replyFirst[cmd]
	return ok
}

// replyFirst are the commands Redis 7.0 replies to before it publishes
// their events (checked against redis-server 7.0.15).
var replyFirst = map[string]struct{}{
	"getset": {}, "getdel": {}, "getex": {},
	"lpush": {}, "rpush": {}, "lpushx": {}, "rpushx": {}, "lset": {}, "lpop": {}, "rpop": {},
	"lmpop": {}, "blpop": {}, "brpop": {}, "blmpop": {},
	"hset": {}, "hsetnx": {}, "hmset": {}, "hincrby": {}, "hincrbyfloat": {},
	"sinterstore": {}, "sunionstore": {}, "sdiffstore": {},
	"zadd": {}, "zincrby": {}, "zunionstore": {}, "zinterstore": {}, "zdiffstore": {}, "zrangestore": {},
	"xadd": {}, "geoadd": {}, "bitfield": {},
}

// midReply are the commands Redis 7.0 publishes the events of inside
// their reply, after its first n tokens (replyTokens): the sorted-set
// pops, which write their reply's headers (and the key) before they pop
// (checked against redis-server 7.0.15).
var midReply = map[string]int{
	"zpopmin": 1, "zpopmax": 1, "bzpopmin": 2, "bzpopmax": 2, "zmpop": 3, "bzmpop": 3,
}

// replyTokens returns the length of the first n tokens of reply: lines,
// a bulk string's line and its bytes (fewer when the reply is shorter).
func replyTokens(reply []byte, n int) int {
	at := 0
	for range n {
		end := bytes.Index(reply[at:], crlf)
		if end < 0 {
			return at
		}
		line := reply[at : at+end]
		at += end + 2
		if len(line) > 0 && line[0] == '$' {
			if l, ok := num.ParseInt(line[1:]); ok && l >= 0 {
				at = min(at+int(l)+2, len(reply))
			}
		}
	}
	return at
}

var crlf = []byte("\r\n")

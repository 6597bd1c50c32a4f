package shard

import (
	"strconv"
	"strings"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/resp"
)

// MONITOR. While any client of any shard monitors (Group.monitors, read
// into mon.on at each turn and each read: a command read after a MONITOR
// was answered sees it), every shard writes a line for each command
// it runs, in Redis's format, into its turn's buffer, in the order it ran
// them; at the end of the turn the buffer goes, as one message per
// destination, to every shard with monitoring clients, which appends it
// to each of them. So each shard's commands reach a monitor in that
// shard's order. When nobody monitors, a command costs one branch on
// mon.on.

// monState is a shard's part of MONITOR.
type monState struct {
	on  bool   // some client monitors: lines are written
	lua bool   // the command running now is a script's redis.call
	buf []byte // this turn's lines
	// conns are this shard's monitoring connections; here counts them
	// for other shards (written by this shard, read by any).
	conns []*conn
}

// Monitor implements command.Local: cl's connection monitors from now
// on (on), or no longer.
func (s *Shard) Monitor(cl *command.Client, on bool) {
	if c := s.clientConn(cl.ID); c != nil {
		s.setMonitor(c, on)
	}
}

// setMonitor makes c a monitor, or no longer one.
func (s *Shard) setMonitor(c *conn, on bool) {
	if c.monitor == on {
		return
	}
	c.monitor = on
	if on {
		s.mon.conns = append(s.mon.conns, c)
		s.group.monitors.Add(1)
		s.monHere.Add(1)
		s.mon.on = true
		return
	}
	for i, m := range s.mon.conns {
		if m == c {
			s.mon.conns = append(s.mon.conns[:i], s.mon.conns[i+1:]...)
			break
		}
	}
	s.group.monitors.Add(-1)
	s.monHere.Add(-1)
}

// feedMonitors writes the line of a command that ran in database db for
// client cl (nil: s.who's, on another shard), unless its row is one
// Redis does not show (admin commands, EXEC's and EVAL's own).
func (s *Shard) feedMonitors(db int, cl *command.Client, spec *command.Spec, args [][]byte) {
	if spec.Flags&(command.SkipMonitor|command.Admin) != 0 || s.laterPart {
		return
	}
	if s.wholeArgs != nil {
		args = s.wholeArgs
	}
	addr := s.who.addr
	if cl != nil {
		addr, db = cl.Addr, cl.DB
	}
	if s.mon.lua {
		addr = "lua"
	}
	s.monitorLine(db, addr, command.Redacted(spec, args, &s.redactBuf))
	clear(s.redactBuf) // no reference to the command's bytes stays
}

// monitorLine appends one line as Redis's replicationFeedMonitors writes
// it: +<unix time with µs> [<db> <client address>] "arg" ...
func (s *Shard) monitorLine(db int, addr string, args [][]byte) {
	now := s.group.clock().UnixMicro()
	b := append(s.mon.buf, '+')
	b = strconv.AppendInt(b, now/1e6, 10)
	b = append(b, '.')
	us := strconv.AppendInt(nil, now%1e6, 10)
	b = append(append(b, "000000"[len(us):]...), us...)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(db), 10)
	b = append(b, ' ')
	if p, ok := strings.CutSuffix(addr, ":0"); ok && strings.HasPrefix(p, "/") {
		addr = "unix:" + p
	}
	b = append(append(b, addr...), ']')
	for _, a := range args {
		b = config.AppendRepr(append(b, ' '), a)
	}
	s.mon.buf = append(b, "\r\n"...)
}

// flushMonitors hands the turn's lines to every shard with monitoring
// clients, one message each (this shard's own clients get them at once).
func (s *Shard) flushMonitors() {
	if len(s.mon.buf) > 0 {
		m := &monitorMsg{lines: s.mon.buf}
		s.mon.buf = nil
		for i, o := range s.group.shards {
			switch {
			case o.monHere.Load() == 0:
			case i == s.id:
				s.deliverMonitor(m.lines)
			default:
				s.post(i, msgMonitor, m)
			}
		}
	}
}

// monitorMsg is a turn's MONITOR lines, one value for every shard with
// monitors (msgMonitor), which none writes.
type monitorMsg struct{ lines []byte }

func (m *monitorMsg) handle(s *Shard, _ msgKind) { s.deliverMonitor(m.lines) }

// deliverMonitor writes lines to every monitoring connection of this
// shard, after the replies queued before them.
func (s *Shard) deliverMonitor(lines []byte) {
	for _, c := range s.mon.conns {
		if !c.dead && !c.closing {
			s.reply(c, func(w *resp.Writer) { w.B = append(w.B, lines...) })
			s.checkOutput(c)
		}
	}
}

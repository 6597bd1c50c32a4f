package repl

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/radish-kv/radish/net/resp"
)

// stream reads the primary's command stream from src and sends it on
// to the Host, one batch per read: PING and REPLCONF are the link's own
// (counted in the offset, never run); a MULTI ... EXEC block is held
// back until its EXEC is in, so that a cut in the middle of one runs
// none of it (the PSYNC after the cut asks for it again from its MULTI).
//
// Without j every command goes on lane 0 in order. With j (the stream
// put together from flows, apply.go) each command runs on the lane of
// the flow it came on, in parallel with the other flows' (each lane in
// the database the stream's SELECTs name); a MULTI ... EXEC block, and
// a command that is not local (Options.Local) or came on the
// replication connection, runs alone: once every command before it ran,
// and before any after it is sent.
func (r *Replica) stream(src io.Reader, j *joiner) error {
	var rd resp.Reader
	buf := make([]byte, 0, 64<<10) // read, not yet parsed
	var b batch                    // commands for the Host
	var tx *batch                  // an open MULTI block
	txDB := 0                      // the stream's database at its MULTI
	defer func() {
		if tx != nil { // cut before its EXEC: its SELECTs did not run
			r.db = txDB
		}
	}()
	var spans []Span // whose buf's bytes are (with j)
	r.off.Lock()
	read := r.off.applied
	r.off.Unlock()
	if j == nil {
		r.syncLane(&b, nil, 0) // the stream goes on in the database it was in
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		var n int
		var err error
		if j != nil {
			n, spans, err = j.readSpans(buf[len(buf):cap(buf)], spans)
		} else {
			n, err = src.Read(buf[len(buf):cap(buf)])
		}
		if err != nil {
			return err
		}
		if r.broken.Load() {
			return errLaneClosed
		}
		buf = buf[:len(buf)+n]
		ackAt := int64(-1)
		p := 0
		var bad error // a malformed command: what came before it still runs
		for p < len(buf) {
			args, used, err := rd.Next(buf[p:])
			if err != nil {
				bad = err
				break
			}
			if used == 0 {
				break
			}
			raw := buf[p : p+used]
			p += used
			read += int64(used)
			from := -1 // the flow it came on (-1: the replication connection)
			if j != nil {
				for len(spans) > 1 && spans[0].End <= read-int64(used) {
					spans = spans[1:]
				}
				if len(spans) > 0 {
					from = spans[0].Shard
				}
			}
			switch {
			case len(args) == 0 || is(args[0], "ping"):
				skipTo(r, b.ends, read)
			case is(args[0], "replconf"):
				if len(args) >= 2 && is(args[1], "getack") {
					ackAt = read - int64(used)
				}
				skipTo(r, b.ends, read)
			case is(args[0], "multi"):
				tx, txDB = &batch{}, r.db
				r.syncLane(tx, &b, 0)
				tx.add(0, raw, read)
			case tx != nil:
				if is(args[0], "select") {
					r.selected(args)
				}
				tx.add(0, raw, read)
				if is(args[0], "exec") {
					tx.selects(0, r.db)
				} else if is(args[0], "discard") { // its SELECTs did not run
					r.db = txDB
				}
				if is(args[0], "exec") || is(args[0], "discard") {
					if j == nil {
						b.join(tx)
					} else if err := r.alone(&b, tx); err != nil {
						return err
					}
					tx = nil
				}
			case j == nil:
				b.add(0, raw, read)
				if is(args[0], "select") {
					r.selected(args)
					b.selects(0, r.db)
				}
			case is(args[0], "select"):
				r.selected(args)
				skipTo(r, b.ends, read)
			default:
				l := max(from, 0)
				if err := r.lane(l); err != nil {
					return err
				}
				if from >= 0 && r.o.Local != nil && r.o.Local(args) {
					r.syncLane(&b, nil, l)
					b.add(l, raw, read)
					break
				}
				one := &batch{}
				r.syncLane(one, &b, l)
				one.add(l, raw, read)
				if err := r.alone(&b, one); err != nil {
					return err
				}
			}
		}
		r.keep(buf[:p], read)
		buf = buf[:copy(buf, buf[p:])]
		now := time.Now()
		r.mu.Lock()
		r.st.Read, r.st.LastIO = read, now
		r.mu.Unlock()
		if err := r.send(&b); err != nil {
			return err
		}
		if bad != nil {
			return bad
		}
		if ackAt >= 0 {
			r.off.Lock()
			ack := r.off.applied >= ackAt
			if !ack {
				r.off.ackAt = ackAt
			}
			applied := r.off.applied
			r.off.Unlock()
			if ack {
				r.sendAck(applied)
			}
		}
	}
}

// keep appends b, the stream's bytes up to offset end, to the history.
func (r *Replica) keep(b []byte, end int64) {
	if r.o.Backlog <= 0 {
		return
	}
	r.off.Lock()
	h := r.off.hist
	start := end - int64(len(b))
	switch back := r.off.histEnd - start; {
	case back > 0 && back <= int64(len(h)) && start >= r.off.fwd:
		// A partial resync after a cut: the bytes read but not applied
		// before it come again.
		h = h[:int64(len(h))-back]
	case back != 0:
		h = h[:0] // a gap (a partial resync from elsewhere): start again
		if r.off.fwd != start {
			r.resetLocked()
		}
		r.off.fwd = start
	}
	h = append(h, b...)
	if len(h) > 2*r.o.Backlog {
		// The last Backlog bytes stay, and every byte not yet forwarded
		// (read ahead of what ran: up to the lanes' room each); a cut of
		// less than half waits for the forwarding, so each copies little.
		first := end - int64(len(h)) // the offset before h's first byte
		if cut := min(int64(len(h)-r.o.Backlog), r.off.fwd-first); cut >= int64(len(h)/2) {
			h = append(h[:0], h[cut:]...)
		}
	}
	r.off.hist, r.off.histEnd = h, end
	r.forward()
	r.off.Unlock()
}

// skipTo moves the offset past a command the link does not send on: the
// last command of the batch (ends) or, when the batch has none, the last
// one in flight covers it; with none in flight it is applied at once.
func skipTo(r *Replica, ends []int64, off int64) {
	if len(ends) > 0 {
		ends[len(ends)-1] = off
		return
	}
	r.off.Lock()
	if n := len(r.off.pend); n > 0 {
		r.off.pend[n-1] = off
	} else {
		r.off.applied = off
		r.forward()
	}
	r.off.Unlock()
}

// is reports whether a command name equals lower, ignoring case.
func is(b []byte, lower string) bool {
	return len(b) == len(lower) && bytes.EqualFold(b, []byte(lower))
}

// skipReply returns the length of the RESP2 reply at the front of b, 0
// when it is not complete.
func skipReply(b []byte, depth int) int {
	if len(b) == 0 || depth > 64 {
		return 0
	}
	eol := bytes.Index(b, []byte("\r\n"))
	if eol < 0 {
		return 0
	}
	switch b[0] {
	case '$', '*':
		n, err := strconv.Atoi(string(b[1:eol]))
		if err != nil {
			return 0
		}
		p := eol + 2
		if n < 0 {
			return p
		}
		if b[0] == '$' {
			if len(b) < p+n+2 {
				return 0
			}
			return p + n + 2
		}
		for range n {
			m := skipReply(b[p:], depth+1)
			if m == 0 {
				return 0
			}
			p += m
		}
		return p
	}
	return eol + 2
}

// sendAck tells the primary the offset applied.
func (r *Replica) sendAck(off int64) {
	r.mu.Lock()
	c := r.conn
	r.mu.Unlock()
	if c != nil {
		r.ackTo(c, off)
	}
}

func (r *Replica) ackTo(c net.Conn, off int64) {
	args := []string{"REPLCONF", "ACK", strconv.FormatInt(off, 10)}
	if f := r.o.Fsynced; f != nil {
		if synced, ok := f(off); ok {
			args = append(args, "FACK", strconv.FormatInt(synced, 10))
		}
	}
	b := appendCommand(nil, args...)
	r.wmu.Lock()
	c.SetWriteDeadline(time.Now().Add(r.o.Timeout))
	c.Write(b)
	r.wmu.Unlock()
}

// ackEverySecond sends REPLCONF ACK once a second, as Redis's replica
// cron does, and when asked (ackNow), until stop closes.
func (r *Replica) ackEverySecond(c net.Conn, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-r.ackNow:
		}
		r.off.Lock()
		off := r.off.applied
		r.off.Unlock()
		r.ackTo(c, off)
	}
}

package repl

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"go.uber.org/zap"
)

// The stream's commands run on lanes, ways into the Host's command path
// (Host.Apply). Lane 0 takes every command of a stream
// read from one connection; a stream put together from flows runs flow
// i's commands on lane i (a connection of the Host's shard i, modulo its
// count), each lane in order and the lanes in parallel: a key's commands
// are all on its shard's flow, so their order holds. What is not one
// flow's alone (a MULTI ... EXEC block, which holds a cross-shard
// transaction's parts from several flows, and a command that is not
// local, FLUSHALL, SWAPDB, FUNCTION ...) runs once every command before
// it ran, and before any after it is sent.
//
// The offset applied is the end of the longest run of the stream whose
// every command ran: pend holds the end offsets of the commands sent, in
// the stream's order, fin which of them were answered; each lane knows
// which of them its replies answer, which the Host hands back as they
// are written (answered).

// lane is one way into the Host's command path.
type lane struct {
	c Lane
	// dead: the Host closed it (CLIENT KILL TYPE master), which ended the
	// session; the next one opens another in its place (lane).
	dead atomic.Bool
	db   int // the database its commands run in
	// seqs are the commands its replies answer, in order: a command's
	// place in pend counted from the first one ever (-1: a SELECT of the
	// link's own). r.off guards it, and part, a reply not yet whole, and
	// logged, the failed commands logged.
	seqs   []int64
	part   []byte
	logged int
}

// batch is commands on their way to the lanes.
type batch struct {
	ends  []int64 // their end offsets, in the stream's order
	lanes []laneBatch
}

// laneBatch is a batch's commands for one lane: their bytes, and the
// index in ends of each (-1: a SELECT of the link's own); with sel, the
// database the lane is in once they ran (the lane's db follows when the
// batch is sent: a batch dropped, a MULTI block cut before its EXEC,
// leaves it as it was).
type laneBatch struct {
	out  []byte
	cmds []int
	db   int
	sel  bool
}

func (b *batch) on(l int) *laneBatch {
	for len(b.lanes) <= l {
		b.lanes = append(b.lanes, laneBatch{})
	}
	return &b.lanes[l]
}

// add adds raw, the stream's command ending at offset end, for lane l.
func (b *batch) add(l int, raw []byte, end int64) {
	lb := b.on(l)
	lb.out = append(lb.out, raw...)
	lb.cmds = append(lb.cmds, len(b.ends))
	b.ends = append(b.ends, end)
}

// own adds raw, a command of the link's own, for lane l.
func (b *batch) own(l int, raw []byte) {
	lb := b.on(l)
	lb.out = append(lb.out, raw...)
	lb.cmds = append(lb.cmds, -1)
}

// join appends o's commands.
func (b *batch) join(o *batch) {
	base := len(b.ends)
	for l := range o.lanes {
		lb, ob := b.on(l), &o.lanes[l]
		lb.out = append(lb.out, ob.out...)
		if ob.sel {
			lb.db, lb.sel = ob.db, true
		}
		for _, k := range ob.cmds {
			if k >= 0 {
				k += base
			}
			lb.cmds = append(lb.cmds, k)
		}
	}
	b.ends = append(b.ends, o.ends...)
}

func (b *batch) reset() {
	b.ends = b.ends[:0]
	for l := range b.lanes {
		b.lanes[l].out, b.lanes[l].cmds = b.lanes[l].out[:0], b.lanes[l].cmds[:0]
		b.lanes[l].sel = false
	}
}

// lane opens the lanes up to l, each again if the Host closed it (a
// session after a break opens them as their first commands come).
func (r *Replica) lane(l int) error {
	if l < len(r.lanes) && !r.lanes[l].dead.Load() {
		return nil
	}
	for i := 0; i <= l; i++ {
		if i < len(r.lanes) && !r.lanes[i].dead.Load() {
			continue
		}
		ln := &lane{}
		c, err := r.h.Apply(i, func(b []byte, closed bool) { r.answered(ln, b, closed) })
		if err != nil {
			return fmt.Errorf("opening a lane into the command path: %w", err)
		}
		ln.c = c
		if i < len(r.lanes) {
			r.lanes[i] = ln
		} else {
			r.lanes = append(r.lanes, ln)
		}
	}
	return nil
}

// selected takes the stream's SELECT.
func (r *Replica) selected(args [][]byte) {
	if len(args) == 2 {
		if n, err := strconv.Atoi(string(args[1])); err == nil {
			r.db = n
		}
	}
}

// syncLane has lane l select the stream's database, in b, when it is in
// another once before's commands (nil: none; a batch sent ahead of b)
// and b's ran.
func (r *Replica) syncLane(b, before *batch, l int) {
	db := r.lanes[l].db
	for _, x := range []*batch{before, b} {
		if x != nil && l < len(x.lanes) && x.lanes[l].sel {
			db = x.lanes[l].db
		}
	}
	if db != r.db {
		b.own(l, appendCommand(nil, "SELECT", strconv.Itoa(r.db)))
		b.selects(l, r.db)
	}
}

// selects records that lane l is in database db once b's commands ran.
func (b *batch) selects(l, db int) {
	lb := b.on(l)
	lb.db, lb.sel = db, true
}

// send sends b's commands to their lanes and empties it.
func (r *Replica) send(b *batch) error {
	r.hold.Lock()
	defer r.hold.Unlock()
	r.off.Lock()
	if r.broken.Load() { // nothing more runs in this session
		r.off.Unlock()
		return errLaneClosed
	}
	base := r.off.head + int64(len(r.off.pend))
	r.off.pend = append(r.off.pend, b.ends...)
	for range b.ends {
		r.off.fin = append(r.off.fin, false)
	}
	for l := range b.lanes {
		ln := r.lanes[l]
		for _, k := range b.lanes[l].cmds {
			seq := int64(-1)
			if k >= 0 {
				seq = base + int64(k)
			}
			ln.seqs = append(ln.seqs, seq)
		}
		if b.lanes[l].sel {
			ln.db = b.lanes[l].db
		}
	}
	r.off.Unlock()
	for l := range b.lanes {
		if out := b.lanes[l].out; len(out) > 0 {
			if err := r.lanes[l].c.Send(out); err != nil {
				r.off.Lock()
				r.breakLocked()
				r.off.Unlock()
				return err
			}
		}
	}
	b.reset()
	return nil
}

// alone sends b, then, once every command sent ran, one; and returns
// once one's commands ran.
func (r *Replica) alone(b, one *batch) error {
	if err := r.send(b); err != nil {
		return err
	}
	r.drain()
	if err := r.send(one); err != nil {
		return err
	}
	r.drain()
	return nil
}

// errLaneClosed ends a session one of whose lanes closed.
var errLaneClosed = errors.New("a lane into the command path closed (CLIENT KILL TYPE master?)")

// breakLocked ends the session's applying: a lane closed (or refused a
// send), so the commands sent and not yet counted are forgotten on every
// lane (one will never answer; a drain must not wait for it), and the
// offset applied moves no more until the next session. Commands among
// them may have run, or not: the data is no prefix of the stream, which
// the link forgets (lostStream). With none waiting, the data is the
// stream's up to the offset applied, which a partial resync continues.
// r.off held.
func (r *Replica) breakLocked() {
	r.broken.Store(true)
	if len(r.off.pend) > 0 {
		r.lostStream()
	}
	r.off.head += int64(len(r.off.pend))
	r.off.pend, r.off.fin = r.off.pend[:0], r.off.fin[:0]
	r.off.idle.Broadcast()
}

// lostStream forgets the stream's replication IDs: the data ran commands
// past one of the stream's that did not run, so no offset of it is the
// data's, and the next PSYNC asks for a full sync (a Stop reports no ID
// to continue). r.off held.
func (r *Replica) lostStream() {
	r.mu.Lock()
	r.st.ReplID, r.st.ReplID2, r.st.SecondOffset = "", "", -1
	r.mu.Unlock()
}

// answered takes lane l's replies (Host.Apply's callback, on a
// goroutine of the Host's): each marks its command run, which moves the
// applied offset to the end of the run of commands all run and asks for
// the ACK a GETACK waits for. A lane closed breaks the session
// (breakLocked).
func (r *Replica) answered(l *lane, b []byte, closed bool) {
	r.off.Lock()
	defer r.off.Unlock()
	if closed {
		l.dead.Store(true)
		r.breakLocked()
		return
	}
	if len(l.part) > 0 {
		b = append(l.part, b...)
	}
	p, k := 0, 0
	for p < len(b) {
		m := skipReply(b[p:], 0)
		if m == 0 {
			break
		}
		if b[p] == '-' && l.logged < 10 {
			l.logged++
			r.log().Warn("a command from the primary failed here", zap.ByteString("reply", bytes.TrimSpace(b[p:p+m])))
		}
		p += m
		k++
	}
	l.part = append(l.part[:0], b[p:]...)
	if r.broken.Load() {
		// Commands that ran after the break (sent while it came): past
		// the offset applied, and forgotten as the others were.
		if k > 0 {
			r.lostStream()
		}
		l.seqs = l.seqs[min(k, len(l.seqs)):]
		r.breakLocked()
		return
	}
	for ; k > 0 && len(l.seqs) > 0; k-- {
		seq := l.seqs[0]
		l.seqs = l.seqs[1:]
		if i := seq - r.off.head; seq >= 0 && i >= 0 && i < int64(len(r.off.fin)) {
			r.off.fin[i] = true
		}
	}
	done := 0
	for done < len(r.off.fin) && r.off.fin[done] {
		done++
	}
	if done > 0 {
		r.off.applied = r.off.pend[done-1]
		r.off.pend = r.off.pend[:copy(r.off.pend, r.off.pend[done:])]
		r.off.fin = r.off.fin[:copy(r.off.fin, r.off.fin[done:])]
		r.off.head += int64(done)
		r.forward()
	}
	if r.off.ackAt >= 0 && r.off.applied >= r.off.ackAt {
		r.off.ackAt = -1
		select {
		case r.ackNow <- struct{}{}:
		default: // one is asked for already
		}
	}
	if len(r.off.pend) == 0 {
		r.off.idle.Broadcast()
	}
}

package repl

// A chained replica: this server, a replica, serves replicas of its own
// (Redis 7's sub-replicas) with its primary's stream as it applies it,
// byte for byte, under the primary's replication ID and offsets. The
// Replica hands the bytes on (Options.Forward) once the Host ran them,
// keeps them as the history a sub-replica's partial resync reads
// (Chained), and holds the stream still while a sub-replica's full sync
// takes its cut (Hold).

// Chain is the stream a sub-replica continues: the replication ID and
// the one before it (second_repl_offset: where its history ends, plus
// one; -1: none), the offset forwarded and the history up to it.
type Chain struct {
	ReplID, ReplID2 string
	SecondOffset    int64
	Offset          int64
	History         []byte // the stream's last bytes up to Offset; read only, during the call
}

// Chained runs fn with the stream forwarded so far; no byte is
// forwarded while fn runs, so a sub-replica fn registers gets every
// byte after Offset.
func (r *Replica) Chained(fn func(Chain)) {
	r.off.Lock()
	defer r.off.Unlock()
	r.mu.Lock()
	ch := Chain{ReplID: r.st.ReplID, ReplID2: r.st.ReplID2, SecondOffset: r.st.SecondOffset, Offset: r.off.fwd}
	r.mu.Unlock()
	h := r.off.hist
	if behind := r.off.histEnd - r.off.fwd; behind >= 0 && behind <= int64(len(h)) {
		ch.History = h[:int64(len(h))-behind]
	}
	fn(ch)
}

// Hold runs fn once every command sent to the Host has run, and sends
// none while it runs: the Host's data is the stream's up to the offset
// Chained reports (the link's PINGs and REPLCONFs may still move it).
func (r *Replica) Hold(fn func()) {
	r.hold.Lock()
	defer r.hold.Unlock()
	r.drain()
	fn()
}

// forward hands Options.Forward the bytes applied since the last call,
// which the history holds (keep keeps every byte not yet forwarded; a
// history without them would reset the sub-replicas instead). r.off
// held.
func (r *Replica) forward() {
	if r.o.Forward == nil {
		r.off.fwd = r.off.applied
		return
	}
	to := min(r.off.applied, r.off.histEnd)
	if to <= r.off.fwd {
		return
	}
	h := r.off.hist
	first := r.off.histEnd - int64(len(h)) // the offset before h's first byte
	if r.off.fwd < first {
		r.resetLocked()
		r.off.fwd = to
		return
	}
	r.o.Forward(h[r.off.fwd-first : to-first])
	r.off.fwd = to
}

// reset tells the sub-replicas to sync again.
func (r *Replica) reset() {
	r.off.Lock()
	r.resetLocked()
	r.off.Unlock()
}

// resetLocked is reset with r.off held.
func (r *Replica) resetLocked() {
	if r.o.Reset != nil {
		r.o.Reset()
	}
}

package coord

// Wait is one blocked client's state on its home shard, in the claim
// protocol of blocking commands (see the package comment): whether a
// holder's claim on it is granted and in flight, whether a claim was
// refused meanwhile, and whether its end (deadline, CLIENT UNBLOCK) is
// under way. Like Txn it sends nothing: home asks it what to answer and
// is told what happened, and carries out the messages. That the client
// is gone (disconnected, or served and waiting on something else) is
// home's to know: a Wait of a gone client is dropped, and a claim for it
// is answered gone without asking.
type Wait struct {
	Holders  int   // how many shards keep a waiter for the client
	Deadline int64 // unix ms; 0: none

	claimed bool // a holder serves it now, or its end is under way
	refused bool // a claim found it claimed: when released, every holder looks again
	left    int  // its end: holders still to withdraw their waiter
}

// Claim answers a holder's claim on the client: granted (the holder may
// serve it; no other claim is granted until Release or the client is
// answered), or refused because another claim is in flight or the wait
// is ending (the holder keeps its waiter and looks again when that claim
// is released without serving: Release says when).
func (w *Wait) Claim() (granted bool) {
	if w.claimed {
		w.refused = true
		return false
	}
	w.claimed = true
	return true
}

// Claimed reports whether a claim holds the client or its wait is ending:
// a waiter on the home shard itself must not serve it, and asks again
// (Refuse) instead.
func (w *Wait) Claimed() bool { return w.claimed }

// Refuse notes that a waiter found the client claimed without asking
// (home's own), or that the granted claim's holder has its waiter look
// again once it is released (a BLMOVE across shards found nothing to
// move): Release then has every holder look again.
func (w *Wait) Refuse() { w.refused = true }

// Release ends the granted claim of a holder that could not serve the
// client after all. It reports whether every holder must look at the
// client's keys again (a claim was refused meanwhile: a key may have had
// data for it while the claim was in flight).
func (w *Wait) Release() (retry bool) {
	w.claimed = false
	retry, w.refused = w.refused, false
	return retry
}

// Expired reports whether the deadline passed at now and nothing holds
// the client (a granted claim may still serve it; an end is under way).
func (w *Wait) Expired(now int64) bool {
	return !w.claimed && w.Deadline != 0 && w.Deadline <= now
}

// End starts the end of the wait (its deadline, CLIENT UNBLOCK): from now
// on no claim is granted. Home withdraws every holder's waiter, behind
// its park, and answers the client once every holder has withdrawn
// (Withdrawn), unless a holder served it first: its answer comes before
// its withdrawal's.
func (w *Wait) End() {
	w.claimed = true
	w.left = w.Holders
}

// Withdrawn notes that one holder withdrew its waiter after End; it
// reports whether it was the last, when the end's answer may go.
func (w *Wait) Withdrawn() (last bool) {
	w.left--
	return w.left == 0
}

package shard

import "github.com/radish-kv/radish/coord"

// claimMsg is a holder's claim on a blocked client (block.go) as a
// message's contents, from the claim to home's answer and on to what the
// holder then tells home: msgClaim (holder to home), msgClaimAnswer (home
// to holder), then msgServed, msgUnclaim or msgMove (holder to home); and
// the reply of a waiter its only holder served at once (msgServed). wt
// and the lock are the holder's, c is home's: each side reads only its
// own and the fields the other wrote before sending.
type claimMsg struct {
	id     uint64 // the blocked client's wait
	home   int
	holder int
	c      *conn   // home's only
	wt     *waiter // the holder's only
	db     int     // the client's database
	wk     wkey    // the key whose data made the holder claim
	lockID uint64  // the holder's lock on the command's keys
	keys   []coord.Key

	// Home's answer: the claim is granted; the client no longer waits.
	ok, gone bool
	// What the holder served (msgServed), and the events it noted for
	// the client's own pushes (notifyself.go).
	out   []byte
	notes selfNotes
}

// sendClaim sends cm to shard dst as a message of kind k.
func (s *Shard) sendClaim(dst int, k msgKind, cm *claimMsg) { s.post(dst, k, cm) }

// handle runs a claim message on its destination.
func (cm *claimMsg) handle(s *Shard, k msgKind) {
	switch k {
	case msgClaim:
		s.answerClaim(cm)
	case msgClaimAnswer:
		s.claimAnswered(cm)
	case msgServed:
		if len(cm.notes.ev) > 0 {
			cm.out = s.placeNotes(&cm.notes, cm.c, cm.out)
		}
		s.unblock(cm.c, cm.id, cm.out)
	case msgUnclaim:
		if c := cm.c; c.blocked != nil && c.blocked.id == cm.id {
			s.releaseClaim(c.blocked, cm.db)
		}
	case msgMove:
		s.moveAcross(cm.c, cm.id)
	}
}

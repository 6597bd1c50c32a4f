package shard

import "github.com/radish-kv/radish/command"

// waitMsg is a step of a blocked client's wait between its home and one
// holder (block.go) as a message's contents: park its waiter (msgPark),
// withdraw it (msgUnpark; answered by msgUnparked when the wait ends), or
// look at its keys again (msgRetry). The holder reads the request's
// fields (and owns wt from msgPark on); c, b and out are home's only,
// carried there and back.
type waitMsg struct {
	id     uint64 // the blocked client's wait
	home   int
	db     int
	keys   [][]byte // the keys this holder watches for it
	spec   *command.Spec
	args   [][]byte
	wt     *waiter // msgPark: the waiter, the holder's from then on
	single bool    // msgPark: the only holder, which tries to serve it at once
	answer bool    // msgUnpark: answer msgUnparked

	c   *conn       // home's only
	b   *blockState // home's only
	out []byte      // home's only: the end's reply
}

// sendWait sends wm to shard dst as a message of kind k.
func (s *Shard) sendWait(dst int, k msgKind, wm *waitMsg) { s.post(dst, k, wm) }

// handle runs a wait message on its destination.
func (wm *waitMsg) handle(s *Shard, k msgKind) {
	switch k {
	case msgPark:
		// Behind the work on the command's keys that came before it.
		s.runOrDefer(wm.args, wm.spec, func() {
			if wm.single {
				// One holder: try at once, as the command would run.
				if out, served := s.tryServe(wm.wt, true); served {
					s.sendClaim(wm.home, msgServed, &claimMsg{id: wm.id, home: wm.home, holder: s.id, c: wm.wt.c, out: out,
						notes: wm.wt.notes})
					return
				}
			}
			s.park(wm.wt)
		})
	case msgUnpark:
		// Behind the waiter's park, which may be deferred behind a lock.
		s.runOrDefer(wm.args, wm.spec, func() {
			s.unpark(wm.id, wm.db, wm.keys)
			if wm.answer {
				s.sendWait(wm.home, msgUnparked, wm)
			}
		})
	case msgUnparked:
		s.withdrawn(wm.c, wm.b, wm.out)
	case msgRetry:
		for _, k := range wm.keys {
			wk := wkey{wm.db, string(k)}
			for _, w := range s.waiters[wk] {
				if w.id == wm.id {
					w.hold.Retry()
					s.markReady(wk)
				}
			}
		}
	}
}

package shard

import "github.com/radish-kv/radish/coord"

// watchPart is what a partMsg carries of WATCH on the shard of some of
// its keys (multi.go): the shard registers p's keys, in database db, once
// no txn holds them, and answers their versions (msgWatch, answered
// msgWatched); or it forgets watched keys (msgUnwatch: ws, no answer).
// The shard reads p, db and ws, the connection's copies; run and idx are
// home's, carried there and back.
type watchPart struct {
	run *watchRun // home's only
	idx []int     // home's: the keys' indexes in the connection's watched list
	ws  []watched // msgUnwatch: the keys to forget
	vs  []uint64  // msgWatched: the keys' versions, in p's order
}

// watchRun is one WATCH at home while shards answer it: its connection,
// its reply's slot, and the shards still to answer.
type watchRun struct {
	c     *conn
	m     *multiState
	sl    *slot
	quiet bool
	left  int
}

// sendWatch asks shard sh to watch p's keys of database db for run.
func (s *Shard) sendWatch(run *watchRun, sh, db int, p coord.Part, idx []int) {
	s.sendPart(sh, msgWatch, &partMsg{home: s.id, p: p, db: db, wp: &watchPart{run: run, idx: idx}})
}

// handleWatch runs a watch message on its destination.
func (s *Shard) handleWatch(k msgKind, pm *partMsg) {
	wp := pm.wp
	switch k {
	case msgWatch:
		s.whenFree(pm.p, func() {
			wp.vs = make([]uint64, len(pm.p.Keys))
			for i, k := range pm.p.Keys {
				wp.vs[i] = s.watch(pm.db, k.Name)
			}
			s.sendPart(pm.home, msgWatched, pm)
		})
	case msgUnwatch:
		for _, w := range wp.ws {
			s.unwatch(w.db, w.key)
		}
	case msgWatched:
		s.watched(pm)
	}
}

// watched takes a shard's versions of a WATCH's keys at home; after the
// last shard's, the client gets its OK.
func (s *Shard) watched(pm *partMsg) {
	run, wp := pm.wp.run, pm.wp
	c, m := run.c, run.m
	if c.dead {
		// Its close skipped these keys (and may have emptied m.watched):
		// undo them from the answer.
		ws := make([]watched, len(pm.p.Keys))
		for i, k := range pm.p.Keys {
			ws[i] = watched{db: pm.db, key: k.Name, shard: pm.p.Shard, v: wp.vs[i]}
		}
		s.unwatchKeys(ws)
		return
	}
	for i, j := range wp.idx {
		m.watched[j].v, m.watched[j].pending = wp.vs[i], false
	}
	if run.left--; run.left == 0 {
		c.barrier = false
		ok := []byte("+OK\r\n")
		if run.quiet {
			ok = nil
		}
		s.fill(c, run.sl, ok)
		if !c.closing {
			s.serve(c)
		}
	}
}

package shard

import "github.com/radish-kv/radish/command"

// countAccess counts, as keyspace hits and misses, the lookups Redis makes
// with lookupKeyRead in a write command that reads its sources so
// (command.ReadsAccessKeys): each key argument flagged ACCESS that this
// shard owns, once per argument, found or not; a miss is recorded for its
// keymiss event. The command then runs with its own lookups uncounted (a
// run on the gathered copies counts nothing either).
//
// now is the command's: 0 for a primary's write on a replica, whose keys
// do not expire on their lookups.
func (s *Shard) countAccess(db int, spec *command.Spec, args [][]byte, now int64) {
	s.accessIdx = spec.AccessKeys(args, s.accessIdx[:0])
	d := s.store.DB(db)
	for _, i := range s.accessIdx {
		if s.owns(args[i]) {
			// Each argument is its own slice, so the engine counts a key
			// named twice twice, as Redis does.
			s.store.CountReads(true)
			d.Exists(args[i], now)
		}
	}
	s.store.CountReads(false)
}

// countSources is countAccess on a shard exporting its keys for a command
// that runs on copies elsewhere (the gather plan, a Held run), the
// keymiss events emitted here.
func (s *Shard) countSources(db int, spec *command.Spec, args [][]byte) {
	if spec.Reads(args) != command.ReadsAccessKeys {
		return
	}
	s.countAccess(db, spec, args, s.now)
	if s.kev.flags != 0 {
		s.kev.db = db
		s.keyMisses()
	}
}

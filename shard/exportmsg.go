package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
)

// exportMsg asks a shard that a held run holds for copies of keys, as a
// message's contents: the request (msgExport) and, in the same value,
// its answer (msgExported). Both held runs send it: a patterned command's
// two rounds (patterns.go) and a held script's fetches (script.go). The
// shard reads reads (or, whole, every key of database db) and, when spec
// is set, first runs its BeforeGather on args in db and counts the
// command's sources (a patterned command's own keys); it writes only
// entries. A command that a script ran on copies prepares the real keys
// on their shards with one that carries spec and no keys (msgPrepare),
// which is not answered. What the shard reads is home's copy, which
// nothing changes until the run is over; round is home's only.
type exportMsg struct {
	home    int
	at      int // the shard asked
	reads   []coord.Read
	whole   bool
	db      int
	spec    *command.Spec
	args    [][]byte
	entries []entry
	round   *exportRound
}

// exportRound is home's side of one round of exports: how many answers
// are out, and the run that takes each and goes on once the last is in.
type exportRound struct {
	left int
	to   exportTaker
}

// exportTaker is a held run waiting for a round of exports (heldRun,
// patternRun): take keeps the entries shard at exported, exported runs
// once every shard's are in.
type exportTaker interface {
	take(at int, es []entry)
	exported(s *Shard)
}

// exportFrom sends an export request to shard at as part of round r.
func (s *Shard) exportFrom(at int, m *exportMsg, r *exportRound) {
	m.home, m.at, m.round = s.id, at, r
	r.left++
	s.post(at, msgExport, m)
}

func (m *exportMsg) handle(s *Shard, k msgKind) {
	switch k {
	case msgExported:
		r := m.round
		r.to.take(m.at, m.entries)
		if r.left--; r.left == 0 {
			r.to.exported(s)
		}
		return
	case msgPrepare:
		m.spec.BeforeGather(s.store.DB(m.db), m.args, s.now)
		return
	}
	if m.spec != nil {
		if m.spec.BeforeGather != nil {
			m.spec.BeforeGather(s.store.DB(m.db), m.args, s.now)
		}
		s.countSources(m.db, m.spec, m.args)
	}
	if m.whole {
		d := s.store.DB(m.db)
		var keys [][]byte
		d.Ascend(nil, nil, s.now, func(key []byte) bool {
			keys = append(keys, slices.Clone(key))
			return true
		})
		m.entries = make([]entry, 0, len(keys))
		for _, k := range keys {
			if rec, ok := d.Export(k, s.now); ok {
				m.entries = append(m.entries, entry{db: m.db, key: k, rec: rec, ok: true})
			}
		}
	} else {
		m.entries = make([]entry, len(m.reads))
		for i, r := range m.reads {
			rec, ok := s.store.DB(r.DB).Export(r.Key, s.now)
			m.entries[i] = entry{db: r.DB, key: r.Key, rec: rec, ok: ok}
		}
	}
	s.post(m.home, msgExported, m)
}

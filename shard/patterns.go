package shard

import (
	"slices"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/router"
)

// A command whose patterns name the keys it reads (SORT ... BY w_* GET
// h_*->f; command.Spec.Patterns) cannot say them before it reads its own
// keys, so on a server of several shards it is placed Held: its txn takes
// every shard whole with coord's protocol, as a script that meets keys of
// several shards does; home exports the command's own keys (the sorted
// key, the STORE key) from their shards, imports them into its scratch
// store, asks the row which keys their values name (Spec.PatternKeys),
// exports those in a second round, then runs the command with the gather
// plan (cross.go: the handler on the copies, the keys it wrote written
// back on their shards, every shard released). Nothing runs on any shard
// between the first export and the write-back, so the command is atomic.
// Inside EXEC the same run is one of the txn's commands: EXEC holds every
// shard for it (multi.go). Without patterns the row is an ordinary
// command on its own keys: on one shard, with no message when that is
// the connection's.

// held places a Held command: a txn over every shard.
func (s *Shard) held(c *conn, spec *command.Spec, args [][]byte) {
	s.stats.txns++
	s.txnSeq++
	n := len(s.group.shards)
	t := &txn{id: uint64(s.id+1)<<48 | s.txnSeq, c: c, spec: spec, merge: spec.Merge, proto: c.cl.Proto,
		db: c.cl.DB, noTouch: c.cl.NoTouch, who: c.reader(s.id, false), patterned: true}
	t.args = command.CopyArgs(args)
	t.co = coord.Txn{ID: t.id, Parts: make([]coord.Part, n)}
	t.parts = make([]router.Part, n)
	for sh := range n {
		t.parts[sh] = router.Part{Shard: sh}
		t.co.Parts[sh] = coord.Part{Shard: sh, All: true}
	}
	t.sl = s.pend(c)
	c.barrier = true
	s.acquire(t)
}

// runPatterned runs t, which holds every shard (its parts are the shards
// in order), with the two export rounds described above.
func (s *Shard) runPatterned(t *txn) {
	got := make([][]entry, len(t.parts))
	have := make(map[string]bool)
	idx, _ := t.spec.Keys(t.args, nil)
	own := make([][]byte, len(idx))
	for i, j := range idx {
		own[i] = t.args[j]
	}
	s.export(t, own, true, got, have, func() {
		sc := s.scratchStore()
		sc.Clear()
		for _, es := range got {
			for _, e := range es {
				if e.ok {
					sc.DB(e.db).Import(e.key, e.rec)
				}
			}
		}
		named := t.spec.PatternKeys(sc.DB(t.db), t.args, s.now, nil)
		sc.Clear()
		s.export(t, named, false, got, have, func() { s.runExported(t, got) })
	})
}

// runExported runs t on got, the keys exported per part: the gather plan
// of what goes back is coord.GatherOf's, each key the command writes
// marked so.
func (s *Shard) runExported(t *txn, got [][]entry) {
	idx, _ := t.spec.WriteKeys(t.args, nil)
	reads := make([][]coord.Read, len(got))
	t.pms = make([]partMsg, len(got))
	for i, es := range got {
		reads[i] = make([]coord.Read, len(es))
		for j, e := range es {
			w := slices.ContainsFunc(idx, func(k int) bool { return string(t.args[k]) == string(e.key) })
			reads[i][j] = coord.Read{DB: e.db, Key: e.key, Write: w}
		}
		t.pms[i] = partMsg{t: t, home: s.id, part: i, id: t.id, p: t.co.Parts[i], held: t.in != nil, db: t.db, entries: es}
	}
	t.gp = coord.GatherOf(reads)
	s.runGathered(t)
}

// export gets the keys of t's database that it does not have yet from
// their shards into got (per part: per shard), then calls then; own: they
// are the command's own keys, which its BeforeGather prepares first.
func (s *Shard) export(t *txn, keys [][]byte, own bool, got [][]entry, have map[string]bool, then func()) {
	n := len(s.group.shards)
	per := make([][]coord.Read, n)
	for _, k := range keys {
		if have[string(k)] {
			continue
		}
		have[string(k)] = true
		sh := router.ShardOf(k, n)
		per[sh] = append(per[sh], coord.Read{DB: t.db, Key: k})
	}
	r := &exportRound{to: &patternRun{got: got, then: then}}
	for sh, reads := range per {
		if reads == nil {
			continue
		}
		m := &exportMsg{reads: reads, db: t.db}
		if own {
			m.spec, m.args = t.spec, t.args
		}
		s.exportFrom(sh, m, r)
	}
	if r.left == 0 {
		then()
	}
}

// patternRun is a patterned command's round of exports: got, per shard,
// then what runs once every shard's are in.
type patternRun struct {
	got  [][]entry
	then func()
}

func (p *patternRun) take(sh int, es []entry) { p.got[sh] = append(p.got[sh], es...) }
func (p *patternRun) exported(*Shard)         { p.then() }

// prepareOwners runs spec's BeforeGather for args on the shards that own
// the keys at idx: a command a script ran on copies (heldHost) does to
// the real keys what it does beyond their values.
func (s *Shard) prepareOwners(spec *command.Spec, db int, args [][]byte, idx []int) {
	n := len(s.group.shards)
	m := &exportMsg{spec: spec, db: db, args: command.CopyArgs(args)}
	var sent []int
	for _, i := range idx {
		sh := router.ShardOf(args[i], n)
		if slices.Contains(sent, sh) {
			continue
		}
		sent = append(sent, sh)
		s.post(sh, msgPrepare, m)
	}
}

package coord

import "slices"

// Gather is the gather plan of one transaction whose command's reply is
// not a merge of per-part replies (RENAME, SMOVE, ZUNIONSTORE ...): while
// the transaction holds every key, each part's shard exports its keys
// (Reads: which keys, from which database), the command runs at home on
// copies of them once every export is in (Exported), each key the command
// may write and did change goes back to its shard (Writes), and the
// command is over once every write-back is done (WroteBack). A state
// machine the home shard asks and tells, as Txn: it sends nothing, and the
// exports' and write-backs' contents are the shard's.
type Gather struct {
	Reads [][]Read // per part, the keys its shard exports, in the part's order
	left  int      // exports or write-backs still to come
	stage GatherStage
	all   []Read // every part's reads, one array (Plan)
}

// Read is one key a part's shard exports: from database DB; Write, the
// command may write it (its part locks it Exclusive).
type Read struct {
	DB    int
	Key   []byte
	Write bool
}

// GatherStage is where a gather plan is.
type GatherStage uint8

const (
	Exporting   GatherStage = iota // the parts' exports are on their way home
	Computing                      // every export is in: the command runs at home
	WritingBack                    // the write-backs are on their way
	Gathered                       // every write-back is done: the command is over
)

// Plan makes g the gather plan of t's parts: each key from database db
// but, when other >= 0, each the command may write from database other
// (COPY ... DB n writes its destination there). Exclusive intent is what
// "may write" is, as the parts lock their keys. It reuses the arrays of
// g's last plan, whose reads nobody reads any more.
func (g *Gather) Plan(t *Txn, db, other int) {
	n := 0
	for _, p := range t.Parts {
		n += len(p.Keys)
	}
	reads, all := slices.Grow(g.Reads[:0], len(t.Parts)), g.all[:0]
	if cap(all) < n {
		all = make([]Read, 0, n) // one allocation for every part's reads
	}
	for _, p := range t.Parts {
		from := len(all)
		for _, k := range p.Keys {
			r := Read{DB: db, Key: k.Name, Write: k.Intent == Exclusive}
			if r.Write && other >= 0 {
				r.DB = other
			}
			all = append(all, r)
		}
		reads = append(reads, all[from:len(all):len(all)])
	}
	*g = Gather{Reads: reads, left: len(t.Parts), all: all}
	if g.left == 0 {
		g.stage = Computing
	}
}

// GatherOf is the plan of a command whose keys the home shard gathered
// itself, as the command named them (SORT ... BY reads keys its patterns
// name): reads, per part, are what each part's shard exported, and the
// command runs now (Computing).
func GatherOf(reads [][]Read) Gather {
	return Gather{Reads: reads, stage: Computing}
}

// Stage is where g is.
func (g *Gather) Stage() GatherStage { return g.stage }

// Exported records that part's export is in and reports whether it was
// the last: the command runs now (Computing).
func (g *Gather) Exported(part int) (all bool) {
	g.must(Exporting, part)
	if g.left--; g.left > 0 {
		return false
	}
	g.stage = Computing
	return true
}

// Writes calls yield with the index in Reads[part] of each of part's keys
// that goes back to its shard: one the command may write (it, or another
// read of the same key on the part: a key named twice, COPY a a DB 1) and
// that wrote reports changed. wrote says so once per database and key
// (engine.Store.Wrote), so a key named twice goes back once. The first
// call moves g to WritingBack; every part's Writes comes before any
// WroteBack.
func (g *Gather) Writes(part int, wrote func(db int, key []byte) bool, yield func(j int)) {
	if g.stage == Computing {
		g.stage, g.left = WritingBack, len(g.Reads)
	}
	g.must(WritingBack, part)
	rs := g.Reads[part]
	for j, r := range rs {
		// wrote first: a read-only key the command changed anyway
		// (PFCOUNT caching its count) changed only its copy, and asking
		// costs nothing, where searching for a writing twin would.
		if wrote(r.DB, r.Key) && (r.Write || writable(rs, r.Key)) {
			yield(j)
		}
	}
}

// writable reports whether a read of rs writes key: the keys of one name
// all live on one shard, so a twin is on the same part.
func writable(rs []Read, key []byte) bool {
	for _, r := range rs {
		if r.Write && string(r.Key) == string(key) {
			return true
		}
	}
	return false
}

// WroteBack records that part's write-back is done and reports whether
// it was the last: the command is over (Gathered).
func (g *Gather) WroteBack(part int) (all bool) {
	if g.stage == Computing { // nothing went back to any part
		g.stage, g.left = WritingBack, len(g.Reads)
	}
	g.must(WritingBack, part)
	if g.left--; g.left > 0 {
		return false
	}
	g.stage = Gathered
	return true
}

// must panics unless g is at stage st with part one of its parts: a home
// shard that tells a plan what it did not ask is a bug.
func (g *Gather) must(st GatherStage, part int) {
	if g.stage != st || part < 0 || part >= len(g.Reads) || g.left <= 0 {
		panic("coord: gather plan told out of order")
	}
}

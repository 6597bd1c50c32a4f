package router

import (
	"strconv"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
)

// Kind is how a command is placed (Placement.Kind).
type Kind uint8

// Placement kinds.
const (
	// Local: the command runs on the client's shard, with no key to check
	// against txn locks: it has none, they cannot be determined (the
	// handler answers), it is malformed across shards (the handler
	// refuses it whole), or the server has one shard, where no txn runs.
	Local Kind = iota
	// Owned: every key lives on the client's shard. The command runs
	// there, deferred while a txn holds one of its keys (Planner.Keys).
	Owned
	// Hop: every key lives on shard Dst, which runs the whole command.
	Hop
	// Parts: the keys (Planner.Keys) span shards; the command runs as a
	// txn over them, cut by Splitter.Split and merged by the row's Merge.
	Parts
	// All: the command runs on every shard and the replies are merged
	// with the row's Merge.
	All
	// Scan: a SCAN whose cursor names shard Dst; the command runs there
	// and its reply's cursor is rewritten for the client (RewriteCursor).
	Scan
	// ScanEnd: a SCAN whose cursor names a shard past the last one (a
	// cursor from a server with more shards): the scan is over, and the
	// reply is cursor 0 with no keys.
	ScanEnd
	// Persist: the shard's persistence runs the command (SAVE, BGSAVE): on
	// every shard, with a reply that waits for them all.
	Persist
	// Held: the command reads keys that the values of its own keys name
	// (command.Spec.Patterns: SORT's BY and GET), which no key spec can
	// place: it runs holding every shard, on copies of its keys and of
	// those (Spec.PatternKeys).
	Held
)

var kindNames = [...]string{"local", "owned", "hop", "parts", "all", "scan", "scan-end", "persist", "held"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Placement is where one command runs, as Planner.Plan decided it. It is
// two words, returned in registers; the key positions an Owned or Parts
// placement needs stay in the Planner (Planner.Keys).
type Placement struct {
	Kind Kind
	// Dst is the shard that runs a Hop or a Scan.
	Dst int
	// Merge, for All, is how the shards' replies combine: the Route's
	// (command.Route.Merge), else the row's.
	Merge command.Merge
}

// Planner places commands. It reuses a scratch slice for key positions, so
// Plan does not allocate after its first calls. One Planner per shard
// goroutine.
type Planner struct {
	keys []int // the last placed command's keys (Keys)
}

// Plan places the command args (args[0] is the command name, spec its row,
// arity already checked) sent by a client of shard self among n shards. It
// reads only the row's data, never its name:
//   - AllShards rows run everywhere (All);
//   - a Route function places the rest of the rows no key spec can place
//     (SCAN's cursor, DEBUG POPULATE, SAVE, PFMERGE of destkey alone, the
//     FUNCTION changes on shard 0); a zero Route leaves the command to the
//     rules below;
//   - with one shard everything else is Local;
//   - a row whose Patterns says the arguments name keys through the
//     values of its own (SORT ... BY w_*) is Held;
//   - keys from the key specs: all on self, Owned; all on one other shard,
//     Hop; spread over shards, Parts, unless the command is malformed
//     (MSET with a key and no value), which then runs Local so its handler
//     refuses it whole rather than one shard writing while another refuses;
//   - no keys, or keys that cannot be determined (a bad numkeys): Local,
//     where the handler answers.
//
// Plan inlines (keep it under the compiler's budget): on a server with one
// shard a command's placement costs three comparisons.
func (p *Planner) Plan(spec *command.Spec, args [][]byte, self, n int) Placement {
	if n == 1 && !spec.AllShards && spec.Route == nil {
		return Placement{} // Local
	}
	return p.plan(spec, args, self, n, -1)
}

// PlanFirst is Plan for a caller that hashed the command's first key
// (args[spec.First]) already: first is its shard (ShardOf), -1 if
// unknown. A connection's look-ahead hashes every key it warms.
func (p *Planner) PlanFirst(spec *command.Spec, args [][]byte, self, n, first int) Placement {
	if n == 1 && !spec.AllShards && spec.Route == nil {
		return Placement{} // Local
	}
	return p.plan(spec, args, self, n, first)
}

// Keys returns the argument indexes of the keys of the command Plan placed
// last, when it placed it Owned or Parts. It aliases the Planner: valid
// until the next Plan.
func (p *Planner) Keys() []int { return p.keys }

func (p *Planner) plan(spec *command.Spec, args [][]byte, self, n, first int) Placement {
	if spec.AllShards {
		return Placement{Kind: All, Merge: spec.Merge}
	}
	if spec.Route != nil {
		// A Route that says nothing leaves the placement to the key specs.
		if r := spec.Route(args); r != (command.Route{}) {
			pl := p.route(r, args, self, n)
			if pl.Kind == All && pl.Merge == command.MergeNone {
				pl.Merge = spec.Merge
			}
			return pl
		}
	}
	if spec.Patterns != nil && spec.Patterns(args) {
		return Placement{Kind: Held}
	}
	keys, ok := spec.Keys(args, p.keys[:0])
	if !ok || len(keys) == 0 {
		return Placement{Kind: Local}
	}
	p.keys = keys
	owner := first
	if owner < 0 || keys[0] != spec.First {
		owner = ShardOf(args[keys[0]], n)
	}
	for _, k := range keys[1:] {
		if ShardOf(args[k], n) != owner {
			if !wellFormed(spec, args) {
				return Placement{Kind: Local}
			}
			return Placement{Kind: Parts}
		}
	}
	if owner != self {
		return Placement{Kind: Hop, Dst: owner}
	}
	return Placement{Kind: Owned}
}

// route places a command as its row's Route function said: r.
func (p *Planner) route(r command.Route, args [][]byte, self, n int) Placement {
	switch {
	case r.All:
		return Placement{Kind: All, Merge: r.Merge}
	case r.Persist:
		return Placement{Kind: Persist}
	case r.First:
		if self != 0 {
			return Placement{Kind: Hop, Dst: 0}
		}
		return Placement{Kind: Local}
	case r.Cursor > 0 && r.Cursor < len(args):
		cur, errText := command.ParseScanCursor(args[r.Cursor])
		if errText != "" {
			// The handler parses the cursor too, and answers the error.
			return Placement{Kind: Local}
		}
		sh, _, ok := UnpackCursor(cur, n)
		if !ok {
			return Placement{Kind: ScanEnd}
		}
		return Placement{Kind: Scan, Dst: sh}
	case r.Key > 0 && r.Key < len(args):
		if sh := ShardOf(args[r.Key], n); sh != self {
			return Placement{Kind: Hop, Dst: sh}
		}
		if n == 1 {
			return Placement{Kind: Local}
		}
		p.keys = append(p.keys[:0], r.Key)
		return Placement{Kind: Owned}
	}
	return Placement{Kind: Local}
}

// wellFormed reports whether every key of a command whose keys carry
// arguments (MSET's values) has them.
func wellFormed(spec *command.Spec, args [][]byte) bool {
	for _, ks := range spec.KeySpecs {
		if !ks.KeyNum && ks.Step > 1 && ks.LastKey == -1 && ks.Index > 0 && (len(args)-ks.Index)%ks.Step != 0 {
			return false
		}
	}
	return true
}

// RewriteCursor returns the SCAN reply b of shard (one of n), written in
// protocol proto, with the shard's own next cursor replaced by the
// client's cursor (NextCursor). A reply that is not [cursor, keys] (an
// error) is returned as is. The result is a new slice unless it is b.
func RewriteCursor(b []byte, shard, n, proto int) []byte {
	v, _, err := resp.ReadReply(b)
	if err != nil || v.Type != '*' || len(v.Elems) != 2 {
		return b
	}
	next, err := strconv.ParseUint(string(v.Elems[0].Str), 10, 64)
	if err != nil {
		return b
	}
	w := resp.Writer{Proto: proto}
	w.Array(2)
	w.BulkString(strconv.FormatUint(NextCursor(shard, next, n), 10))
	resp.AppendValue(&w, v.Elems[1])
	return w.B
}

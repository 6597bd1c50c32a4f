package coord

import "slices"

// Txn is one transaction: its parts (the keys it takes on each shard),
// its commands (where each runs), and the lock-taking part of the
// protocol (see the package comment) as a state machine the home shard
// drives: it says which messages to send (Steps) and is told their
// answers. It sends nothing itself, so a test can run many of them
// against many Tables in any delivery order. A multi-key command is a Txn
// of one command; MULTI/EXEC (and later a script) one of many. Once
// begun, a Txn is not copied: its slices may point into itself.
type Txn struct {
	ID    uint64
	Parts []Part // in ascending shard order
	// Cmds are the transaction's commands in the order they run; nil for
	// a single command, which runs on every part.
	Cmds []Cmd

	// granted and oom, per part: its shard holds its keys for the txn;
	// held, its shard is out of memory (the txn is refused whole). One
	// allocation: oom is the second half of granted's array.
	granted, oom []bool
	left         int // first round: answers still to come
	steps        []Step
	// flagBuf and stepBuf hold granted, oom and steps for a transaction
	// of up to inlineParts parts: no allocation of their own.
	flagBuf [2 * inlineParts]bool
	stepBuf [inlineParts]Step
}

// inlineParts is the most parts whose flags and steps a Txn holds inline.
const inlineParts = 4

// Part is one shard's share of a transaction: the keys it locks there,
// or all of them (a command with no fixed keys: KEYS, FLUSHALL, SCAN).
type Part struct {
	Shard int
	Keys  []Key
	All   bool // Table.LockAll instead of the keys
}

// Cmd is one command of a transaction: the parts it runs on (indexes in
// Parts, ascending). A command with no part (PING, SELECT) needs no key
// and runs on the home shard.
type Cmd struct {
	Parts []int
}

// Round is the commands Cmds[From:To], which run together: either each on
// one part at most, every part running its share in order and the parts
// at once, or (To == From+1) one command on several parts. Rounds run one
// after another, so every command runs after those before it that share a
// part with it: while the transaction holds every key, commands on
// different parts touch different keys, so the result is that of running
// them one by one.
type Round struct {
	From, To int
}

// Rounds appends the rounds of Cmds, in order, to dst.
func (t *Txn) Rounds(dst []Round) []Round {
	for i := 0; i < len(t.Cmds); {
		j := i + 1
		if len(t.Cmds[i].Parts) <= 1 {
			for j < len(t.Cmds) && len(t.Cmds[j].Parts) <= 1 {
				j++
			}
		}
		dst = append(dst, Round{i, j})
		i = j
	}
	return dst
}

// LastRounds appends to dst, per part, the index in rounds (Rounds') of
// the last round that uses it, when that round runs its commands on one
// part each: there the part can release its keys as it finishes (every
// key is held by then, so releasing one part before the others finish is
// two-phase locking, as a single command's parts do). It is -1 when a
// command on several parts uses the part last, or none does: the part is
// released with the transaction's end.
func (t *Txn) LastRounds(rounds []Round, dst []int) []int {
	n := len(dst)
	for range t.Parts {
		dst = append(dst, -1)
	}
	last := dst[n:]
	for r, rd := range rounds {
		spans := rd.To == rd.From+1 && len(t.Cmds[rd.From].Parts) > 1
		for _, c := range t.Cmds[rd.From:rd.To] {
			for _, p := range c.Parts {
				last[p] = r
				if spans {
					last[p] = -1
				}
			}
		}
	}
	return dst
}

// StepKind is what the home shard must do for one part.
type StepKind uint8

// Steps.
const (
	TryLock StepKind = iota // ask the part's shard to take its keys if they are free, and answer (Tried)
	// LockFirst (part 0 only): ask its shard to take its keys, or queue
	// the request: the shard answers at once whether it took them
	// (Tried), and when it queued them, again once they are held (Locked).
	LockFirst
	Lock   // ask the part's shard to take its keys, waiting for them, and answer (Locked)
	Unlock // tell the part's shard to release its keys; no answer
	Run    // every key is held: run the transaction (Part is -1)
	Refuse // every key is held, but a shard is out of memory: refuse it (Part is -1)
)

// Step is one thing to do.
type Step struct {
	Kind StepKind
	Part int
}

// Begin starts taking the locks: every part's request at once, part 0's
// queueing (LockFirst), the others' only trying.
func (t *Txn) Begin() []Step {
	n := len(t.Parts)
	var flags []bool
	if n <= inlineParts {
		flags = t.flagBuf[:2*n]
		clear(flags)
	} else {
		flags = make([]bool, 2*n)
	}
	t.granted, t.oom = flags[:n:n], flags[n:]
	t.left = len(t.Parts)
	if t.steps == nil {
		t.steps = t.stepBuf[:0]
	}
	t.steps = append(t.steps[:0], Step{LockFirst, 0})
	for i := 1; i < len(t.Parts); i++ {
		t.steps = append(t.steps, Step{TryLock, i})
	}
	return t.steps
}

// Tried takes part's answer to its first request: whether its shard took
// the keys, and whether that shard is out of memory. When every part has
// answered, it says what follows: run (or refuse) if every shard holds
// its keys; else keep the parts held before the first one that is not,
// release the granted ones after it, and lock that one, waiting (part 0's
// request already waits in its queue). The release and the lock that
// follows travel to each shard in that order, so no answer has to be
// awaited in between.
func (t *Txn) Tried(part int, ok, oom bool) []Step {
	t.granted[part] = ok
	t.oom[part] = ok && oom
	t.steps = t.steps[:0]
	if t.left--; t.left > 0 {
		return t.steps
	}
	first := slices.Index(t.granted, false)
	if first < 0 {
		return t.held()
	}
	for j := first + 1; j < len(t.Parts); j++ {
		if t.granted[j] {
			t.granted[j], t.oom[j] = false, false // asked again in order
			t.steps = append(t.steps, Step{Unlock, j})
		}
	}
	if first == 0 {
		return t.steps // queued: Locked(0) follows
	}
	return append(t.steps, Step{Lock, first})
}

// Locked takes part's answer to its waiting lock request (part 0's
// LockFirst, or a Lock): the next part, or run once the last one is held.
// Part 0's grant may come before the other parts' first answers: then
// their last one says what follows.
func (t *Txn) Locked(part int, oom bool) []Step {
	t.granted[part], t.oom[part] = true, oom
	t.steps = t.steps[:0]
	if t.left > 0 {
		return t.steps
	}
	if part+1 < len(t.Parts) {
		return append(t.steps, Step{Lock, part + 1})
	}
	return t.held()
}

// held is what follows once every key is held.
func (t *Txn) held() []Step {
	if slices.Contains(t.oom, true) {
		return append(t.steps, Step{Refuse, -1})
	}
	return append(t.steps, Step{Run, -1})
}

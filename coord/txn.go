package coord

import "slices"

// Txn is one transaction: its parts (the keys it takes on each shard),
// its commands (where each runs), and the lock-taking part of the
// protocol (see the package comment) as a state machine the home shard
// drives: it says which messages to send (Steps) and is told their
// answers. It sends nothing itself, so a test can run many of them
// against many Tables in any delivery order. A multi-key command is a Txn
// of one command; MULTI/EXEC (and later a script) one of many.
type Txn struct {
	ID    uint64
	Parts []Part // in ascending shard order
	// Cmds are the transaction's commands in the order they run; nil for
	// a single command, which runs on every part.
	Cmds []Cmd

	oom     bool // a shard is out of memory: the txn is refused whole
	granted []bool
	left    int // try round: answers still to come
	steps   []Step
}

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

// StepKind is what the home shard must do for one part.
type StepKind uint8

// Steps.
const (
	TryLock StepKind = iota // ask the part's shard to take its keys if they are free, and answer (Tried)
	Lock                    // ask the part's shard to take its keys, waiting for them, and answer (Locked)
	Unlock                  // tell the part's shard to release its keys; no answer
	Run                     // every key is held: run the transaction (Part is -1)
	Refuse                  // every key is held, but a shard is out of memory: refuse it (Part is -1)
)

// Step is one thing to do.
type Step struct {
	Kind StepKind
	Part int
}

// Begin starts taking the locks: every part's try request at once.
func (t *Txn) Begin() []Step {
	t.granted = make([]bool, len(t.Parts))
	t.left = len(t.Parts)
	t.steps = t.steps[:0]
	for i := range t.Parts {
		t.steps = append(t.steps, Step{TryLock, i})
	}
	return t.steps
}

// Tried takes part's answer to its try request: whether its shard took the
// keys, and whether that shard is out of memory. When every part has
// answered, it says what follows: run (or refuse) if every shard took its
// keys; else release what was taken and lock part 0, waiting. The release
// and the lock that follows travel to each shard in that order, so no
// answer has to be awaited in between.
func (t *Txn) Tried(part int, ok, oom bool) []Step {
	t.granted[part] = ok
	t.oom = t.oom || ok && oom
	t.steps = t.steps[:0]
	if t.left--; t.left > 0 {
		return t.steps
	}
	if !slices.Contains(t.granted, false) {
		return t.held()
	}
	for j, g := range t.granted {
		if g {
			t.steps = append(t.steps, Step{Unlock, j})
		}
	}
	t.oom = false // asked again in order
	return append(t.steps, Step{Lock, 0})
}

// Locked takes part's answer to its (waiting) lock request: the next part,
// or run once the last one is held.
func (t *Txn) Locked(part int, oom bool) []Step {
	t.oom = t.oom || oom
	t.steps = t.steps[:0]
	if part+1 < len(t.Parts) {
		return append(t.steps, Step{Lock, part + 1})
	}
	return t.held()
}

// held is what follows once every key is held.
func (t *Txn) held() []Step {
	if t.oom {
		return append(t.steps, Step{Refuse, -1})
	}
	return append(t.steps, Step{Run, -1})
}

package coord

// Waiting is one blocked client's waiter on a holder shard, in the claim
// protocol of blocking commands (see the package comment): whether a claim
// of its is in flight or its command runs at home, and so what the holder
// does with it when it stands first on a key that may have data (Look)
// and when home answers its claim (Answered). Like Wait it sends nothing:
// the holder asks it and carries out the messages. The waiters' queues
// per key, and the data, are the holder's.
type Waiting struct {
	// Remote: the client's home is another shard, which must grant a
	// claim before the holder pops.
	Remote bool
	// ViaHome: home runs the command across shards (BLMOVE to another
	// shard's list): the holder only claims, then hands it home.
	ViaHome bool

	state waitingState
}

type waitingState uint8

const (
	idle     waitingState = iota
	claiming              // a claim is in flight: home's answer comes
	moving                // granted, home runs the command: a retry frees it
)

// Look is what a holder does with the first waiter of a key.
type Look uint8

const (
	// Pass: leave it, and the waiters behind it: its claim is in flight,
	// home runs its command, or the key has nothing to serve.
	Pass Look = iota
	// Claim: lock the command's keys on the holder and ask home whether
	// the client still waits (Wait.Claim); the waiter is busy until
	// Answered.
	Claim
	// AtHome: the holder is the client's home: what it does is home's to
	// say (Waiting.AtHome).
	AtHome
	// Drop: the client no longer waits: forget the waiter and look at the
	// next.
	Drop
	// Stand: another holder's claim holds the client: the waiter stands
	// first, and home notes it (Wait.Refuse), so that the claim's release
	// has every holder look again (Wait.Release).
	Stand
	// Serve: run the command now (once no txn holds a key of it on the
	// holder: the lock table's to say); served, the client is answered
	// and the next waiter looked at.
	Serve
)

// Look decides for the waiter standing first on a key: data, the key has
// something to serve (or the command serves a missing key, XREAD's "+").
func (w *Waiting) Look(data bool) Look {
	switch {
	case w.state != idle, !data:
		return Pass
	case w.Remote || w.ViaHome:
		w.state = claiming
		return Claim
	default:
		return AtHome
	}
}

// AtHome decides for a waiter whose holder is its client's home, which
// knows without asking: gone, the client no longer waits for it;
// claimed, its Wait is claimed by another holder, or ending.
func (w *Waiting) AtHome(gone, claimed bool) Look {
	switch {
	case gone:
		return Drop
	case claimed:
		return Stand
	default:
		return Serve
	}
}

// Answer is what a holder does when home answered its claim. After each
// it releases the lock its claim took.
type Answer uint8

const (
	// Move: granted for a command home runs across shards: the holder
	// tells home to (the waiter stays, busy, until a retry frees it).
	Move Answer = iota
	// Forget: the client no longer waits: forget the waiter and look at
	// the key's next.
	Forget
	// Keep: refused (another claim holds the client): the waiter stays
	// first, and looks again when home retries.
	Keep
	// Pop: granted: run the command; served, the holder forgets the
	// waiter, sends home the reply and looks at the key's next; not
	// served (another reader took the data meanwhile), it releases the
	// claim at home (Wait.Release) and keeps the waiter.
	Pop
)

// Answered is told home's answer to the waiter's claim (granted, or the
// client gone) and says what to do.
func (w *Waiting) Answered(granted, gone bool) Answer {
	if w.state != claiming {
		panic("coord: a claim answered that was not made")
	}
	w.state = idle
	switch {
	case granted && w.ViaHome:
		w.state = moving
		return Move
	case gone:
		return Forget
	case !granted:
		return Keep
	default:
		return Pop
	}
}

// Retry is told that home had every holder look again (a claim on the
// client was released without serving it): a waiter whose command home
// ran is free again; the holder then looks at its keys.
func (w *Waiting) Retry() {
	if w.state == moving {
		w.state = idle
	}
}

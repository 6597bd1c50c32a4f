package coord

import (
	"math/rand/v2"
	"testing"
)

// waitModel is one blocked client, its Wait on home, and the holders that
// keep a waiter for it, exchanging the blocking protocol's messages in an
// order a seed chooses. A holder claims the client when its key has data;
// granted, it pops (if the data is still there) and home answers, or it
// releases the claim; refused, it keeps its waiter until a retry.
type waitModel struct {
	t *testing.T
	r *rand.Rand
	w Wait
	// net holds the messages in flight per channel, each delivered in
	// order as the shards' batches are: channel 2h is home to holder h,
	// 2h+1 holder h to home.
	net [][]func()

	data     []int     // per holder: elements in its key
	parked   []bool    // per holder: its waiter is there
	hold     []Waiting // per holder: its waiter's state
	busy     []bool    // per holder: a claim of its holds the lock on its key
	late     []bool    // per holder: a push waits behind its claim's lock
	granted  int       // claims granted and not yet ended
	answered int       // replies the client got
	served   int       // of which elements popped
	ending   bool
	final    bool // no other reader takes data any more
}

// toHolder and toHome send a message on holder h's channels.
func (m *waitModel) toHolder(h int, fn func()) { m.net[2*h] = append(m.net[2*h], fn) }
func (m *waitModel) toHome(h int, fn func())   { m.net[2*h+1] = append(m.net[2*h+1], fn) }

// inFlight reports whether any message is in flight.
func (m *waitModel) inFlight() bool {
	for _, q := range m.net {
		if len(q) > 0 {
			return true
		}
	}
	return false
}

// deliver delivers the first message of a channel chosen at random.
func (m *waitModel) deliver() {
	for {
		if i := m.r.IntN(len(m.net)); len(m.net[i]) > 0 {
			fn := m.net[i][0]
			m.net[i] = m.net[i][1:]
			fn()
			return
		}
	}
}

// gone is home's view: the client no longer waits.
func (m *waitModel) gone() bool { return m.answered > 0 }

func (m *waitModel) answer(popped bool) {
	if m.answered++; m.answered > 1 {
		m.t.Fatal("the client was answered twice")
	}
	if popped {
		m.served++
	}
}

// push adds an element to holder h's key: at once, or behind the lock a
// claim of h's holds, and then h looks again when the claim ends.
func (m *waitModel) push(h int) {
	m.data[h]++
	if m.busy[h] {
		m.late[h] = true
		return
	}
	m.look(h)
}

// unlock ends holder h's claim: a push it held back looks.
func (m *waitModel) unlock(h int) {
	m.busy[h] = false
	if m.late[h] {
		m.late[h] = false
		m.look(h)
	}
}

// look has holder h claim the client when its waiter says so (its key
// has data, no claim of its is in flight).
func (m *waitModel) look(h int) {
	if !m.parked[h] {
		return
	}
	if l := m.hold[h].Look(m.data[h] > 0); l != Claim {
		if l != Pass {
			m.t.Fatalf("a remote waiter looked %d", l)
		}
		return
	}
	m.busy[h] = true
	m.toHome(h, func() { // the claim
		if m.gone() {
			m.toHolder(h, func() {
				if a := m.hold[h].Answered(false, true); a != Forget {
					m.t.Fatalf("a claim answered gone: %d", a)
				}
				m.parked[h] = false
				m.unlock(h)
			})
			return
		}
		ok := m.w.Claim()
		if ok {
			if m.granted++; m.granted > 1 {
				m.t.Fatal("two claims granted at once")
			}
		}
		m.toHolder(h, func() { // the answer
			defer m.unlock(h)
			switch a := m.hold[h].Answered(ok, false); {
			case a == Keep && !ok:
				return // refused: the waiter stays
			case a != Pop || !ok:
				m.t.Fatalf("a claim granted %v: %d", ok, a)
			}
			if m.data[h] > 0 && (m.final || m.r.IntN(4) > 0) {
				m.data[h]--
				m.parked[h] = false
				m.toHome(h, func() { // served
					m.granted--
					m.answer(true)
				})
				return
			}
			// Nothing to pop after all (another reader took it).
			m.data[h] = 0
			m.toHome(h, func() { // unclaim
				m.granted--
				if m.gone() || !m.w.Release() {
					return
				}
				for i := range m.parked {
					m.toHolder(i, func() { m.hold[i].Retry(); m.look(i) }) // retry
				}
			})
		})
	})
}

// drain delivers every message, the channels in a random order.
func (m *waitModel) drain() {
	for m.inFlight() {
		m.deliver()
	}
}

// step delivers a message, pushes an element or ends the wait at its
// deadline, as the seed chooses.
func (m *waitModel) step() {
	switch {
	case m.inFlight() && m.r.IntN(8) > 0:
		m.deliver()
	case m.r.IntN(3) == 0:
		m.push(m.r.IntN(len(m.data)))
	case m.r.IntN(6) == 0 && !m.ending && !m.gone() && m.w.Expired(m.w.Deadline):
		m.ending = true
		m.w.End()
		for h := range m.parked {
			m.toHolder(h, func() { // unpark
				m.parked[h] = false
				m.toHome(h, func() { // unparked
					if m.w.Withdrawn() && !m.gone() {
						m.answer(false)
					}
				})
			})
		}
	}
}

// TestWaitProtocol runs one blocked client against one to four holders,
// each deciding with its waiter's Waiting,
// with pushes, claims that find nothing to pop, and a deadline, in many
// delivery orders (each channel in order, as the shards' batches are): no
// two claims are granted at once, the client is answered once, a client
// still waiting has no holder with data (no wake-up is lost to a refused
// claim), and without a deadline it is served once a push comes.
func TestWaitProtocol(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 7))
		holders := 1 + r.IntN(4)
		m := &waitModel{t: t, r: r, data: make([]int, holders), parked: make([]bool, holders),
			hold: make([]Waiting, holders), busy: make([]bool, holders), late: make([]bool, holders),
			net: make([][]func(), 2*holders)}
		m.w = Wait{Holders: holders}
		if seed%2 == 1 {
			m.w.Deadline = 100
		}
		for h := range m.parked {
			m.parked[h] = true
			m.hold[h].Remote = true
		}
		for range 5 + r.IntN(60) {
			m.step()
		}
		// Every message delivered, with no push: a waiting client has no
		// holder with data (no wake-up was lost).
		m.drain()
		for h := range m.parked {
			if !m.gone() && m.parked[h] && m.data[h] > 0 {
				t.Fatalf("seed %d: holder %d has data, the client still waits", seed, h)
			}
		}
		// Then a last push on a random holder, no other reader taking it.
		m.final = true
		m.push(r.IntN(holders))
		m.drain()
		if m.w.Deadline == 0 && m.answered != 1 {
			t.Fatalf("seed %d: a push came but the client was not served", seed)
		}
		if m.answered > 0 && m.served == 0 && !m.ending {
			t.Fatalf("seed %d: answered without a pop or an end", seed)
		}
	}
}

// TestWaitEnd: an end grants no claim, and answers with the last
// holder's withdrawal; a deadline does not expire a claimed client.
func TestWaitEnd(t *testing.T) {
	w := Wait{Holders: 2, Deadline: 10}
	if !w.Claim() {
		t.Fatal("first claim refused")
	}
	if w.Expired(20) {
		t.Fatal("a claimed client expired")
	}
	if w.Claim() {
		t.Fatal("second claim granted")
	}
	if !w.Release() {
		t.Fatal("release after a refused claim does not retry")
	}
	if w.Release() {
		t.Fatal("a second release retries again")
	}
	if !w.Expired(10) || w.Expired(9) {
		t.Fatal("deadline")
	}
	w.End()
	if w.Claim() || !w.Claimed() {
		t.Fatal("a claim granted during the end")
	}
	if w.Withdrawn() || !w.Withdrawn() {
		t.Fatal("the end is over before the last withdrawal, or not after it")
	}
}

// TestWaiting: what a holder does with a waiter, by its state: a remote
// one claims when its key has data and passes while the claim is in
// flight; home's answer says forget, keep or pop; one home runs across
// shards passes until a retry; one whose home is the holder is decided
// there.
func TestWaiting(t *testing.T) {
	w := Waiting{Remote: true}
	if l := w.Look(false); l != Pass {
		t.Fatalf("no data: %d", l)
	}
	for _, tc := range []struct {
		granted, gone bool
		want          Answer
	}{{true, false, Pop}, {false, false, Keep}, {false, true, Forget}} {
		if l := w.Look(true); l != Claim {
			t.Fatalf("data: %d, want a claim", l)
		}
		if l := w.Look(true); l != Pass {
			t.Fatalf("a claim in flight: %d, want pass", l)
		}
		if a := w.Answered(tc.granted, tc.gone); a != tc.want {
			t.Fatalf("answered %v, %v: %d, want %d", tc.granted, tc.gone, a, tc.want)
		}
	}
	mustPanic(t, 0, "an answer to no claim", func() { w.Answered(true, false) })

	v := Waiting{Remote: true, ViaHome: true}
	if v.Look(true) != Claim || v.Answered(true, false) != Move {
		t.Fatal("a command home runs across shards: not claimed and moved")
	}
	if l := v.Look(true); l != Pass {
		t.Fatalf("home runs it: %d, want pass", l)
	}
	v.Retry()
	if l := v.Look(true); l != Claim {
		t.Fatalf("after a retry: %d, want a claim", l)
	}
	v.Retry() // a claim in flight stays so
	if l := v.Look(true); l != Pass {
		t.Fatalf("a retry during a claim: %d, want pass", l)
	}

	h := Waiting{}
	if l := h.Look(true); l != AtHome {
		t.Fatalf("home's own waiter: %d", l)
	}
	for _, tc := range []struct {
		gone, claimed bool
		want          Look
	}{{true, false, Drop}, {true, true, Drop}, {false, true, Stand}, {false, false, Serve}} {
		if l := h.AtHome(tc.gone, tc.claimed); l != tc.want {
			t.Fatalf("at home, gone %v, claimed %v: %d, want %d", tc.gone, tc.claimed, l, tc.want)
		}
	}
}

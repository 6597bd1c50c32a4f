package coord

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// net is a simulated network between shards: a FIFO per ordered pair of
// shards (as the shards' outboxes are), delivered in an order a seed picks.
type net struct {
	r *rand.Rand
	q map[[2]int][]func()
}

func (n *net) send(from, to int, fn func()) {
	k := [2]int{from, to}
	n.q[k] = append(n.q[k], fn)
}

// step delivers the head of a random non-empty pair; false when none.
func (n *net) step() bool {
	var keys [][2]int
	for k, q := range n.q {
		if len(q) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return false
	}
	// Map order is random: sort for a seed-determined pick.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (keys[j][0] < keys[j-1][0] || keys[j][0] == keys[j-1][0] && keys[j][1] < keys[j-1][1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	k := keys[n.r.IntN(len(keys))]
	fn := n.q[k][0]
	n.q[k] = n.q[k][1:]
	fn()
	return true
}

// TestTxnProtocol runs many transactions with random keys over several
// shards' Tables, with commands arriving at the shards meanwhile, every
// message delivered in a random order that keeps each pair of shards
// FIFO. Every transaction must finish (no deadlock), a part must find its
// keys held when it runs, and no two conflicting parts or commands may run
// on a shard at once.
func TestTxnProtocol(t *testing.T) {
	totalRefused, ordered, queued := 0, 0, 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		const shards = 4
		nw := &net{r: r, q: map[[2]int][]func(){}}
		tables := make([]*Table, shards)
		for i := range tables {
			tables[i] = NewTable()
		}
		names := []string{"a", "b", "c"}
		// active[shard] are the key sets running on a shard now.
		active := make([]map[int][]Key, shards)
		for i := range active {
			active[i] = map[int][]Key{}
		}
		enter := func(shard, who int, keys []Key) {
			for w, ks := range active[shard] {
				if conflict(ks, keys) {
					t.Fatalf("seed %d: %d runs on shard %d beside conflicting %d", seed, who, shard, w)
				}
			}
			active[shard][who] = keys
		}
		finished, refused := 0, 0
		const txns = 12
		for n := range txns {
			home := r.IntN(shards)
			tx := &Txn{ID: uint64(n + 1)}
			for sh := range shards {
				if r.IntN(2) == 0 && len(tx.Parts) < 3 || sh == shards-1 && len(tx.Parts) == 0 {
					var keys []Key
					for _, k := range names {
						if r.IntN(2) == 0 {
							keys = append(keys, Key{Name: []byte(k), Intent: Intent(r.IntN(2))})
						}
					}
					if len(keys) == 0 {
						keys = []Key{{Name: []byte("a"), Intent: Exclusive}}
					}
					tx.Parts = append(tx.Parts, Part{Shard: sh, Keys: keys})
				}
			}
			who := 1000 + n
			var do func(steps []Step)
			do = func(steps []Step) {
				for _, st := range steps {
					switch st.Kind {
					case TryLock:
						p, i := tx.Parts[st.Part], st.Part
						nw.send(home, p.Shard, func() {
							ok := tables[p.Shard].TryLock(tx.ID, p.Keys)
							oom := r.IntN(20) == 0
							nw.send(p.Shard, home, func() { do(tx.Tried(i, ok, oom)) })
						})
					case LockFirst:
						p := tx.Parts[0]
						nw.send(home, p.Shard, func() {
							now, granted := true, false
							tables[p.Shard].Lock(tx.ID, p.Keys, func() {
								granted = true
								if now {
									return
								}
								queued++
								oom := r.IntN(20) == 0
								nw.send(p.Shard, home, func() { do(tx.Locked(0, oom)) })
							})
							now = false
							oom := granted && r.IntN(20) == 0
							ok := granted // the answer as it is now
							nw.send(p.Shard, home, func() { do(tx.Tried(0, ok, oom)) })
						})
					case Lock:
						ordered++
						p, i := tx.Parts[st.Part], st.Part
						nw.send(home, p.Shard, func() {
							tables[p.Shard].Lock(tx.ID, p.Keys, func() {
								oom := r.IntN(20) == 0
								nw.send(p.Shard, home, func() { do(tx.Locked(i, oom)) })
							})
						})
					case Unlock:
						p := tx.Parts[st.Part]
						nw.send(home, p.Shard, func() { tables[p.Shard].Unlock(tx.ID, p.Keys) })
					case Run, Refuse:
						if st.Kind == Refuse {
							refused++
						}
						for _, p := range tx.Parts {
							nw.send(home, p.Shard, func() {
								tb := tables[p.Shard]
								for _, k := range p.Keys {
									l := tb.held[string(k.Name)]
									if l == nil || k.Intent == Exclusive && l.excl != tx.ID || k.Intent == Shared && l.shared == 0 {
										t.Fatalf("seed %d: txn %d runs on shard %d without %s", seed, tx.ID, p.Shard, k.Name)
									}
								}
								enter(p.Shard, who, p.Keys)
							})
							// The part ends later: other messages run meanwhile.
							nw.send(home, p.Shard, func() {
								delete(active[p.Shard], who)
								tables[p.Shard].Unlock(tx.ID, p.Keys)
							})
						}
						finished++
					}
				}
			}
			nw.send(home, home, func() { do(tx.Begin()) })
		}
		// Commands arriving at the shards while the txns run.
		for n := range 30 {
			sh := r.IntN(shards)
			keys := []Key{{Name: []byte(names[r.IntN(len(names))]), Intent: Intent(r.IntN(2))}}
			who := n
			nw.send(sh, sh, func() {
				run := func() {
					enter(sh, who, keys)
					delete(active[sh], who)
				}
				if tables[sh].Free(keys) {
					run()
					return
				}
				tables[sh].Enqueue(&Item{Keys: keys, Run: run})
			})
		}
		for nw.step() {
		}
		if finished != txns {
			t.Fatalf("seed %d: %d of %d txns finished: deadlock", seed, finished, txns)
		}
		for i, tb := range tables {
			if !tb.Idle() {
				t.Fatalf("seed %d: shard %d not idle: %d queued", seed, i, tb.Queued())
			}
		}
		totalRefused += refused
	}
	if totalRefused == 0 || ordered == 0 || queued == 0 {
		t.Fatalf("the test never refused a txn (%d), fell back to ordered locking (%d) or granted a queued first part (%d)",
			totalRefused, ordered, queued)
	}
}

// TestRounds: commands on one part at most run together, a command on
// several parts alone, in order.
func TestRounds(t *testing.T) {
	for _, tc := range []struct {
		parts [][]int
		want  []Round
	}{
		{nil, nil},
		{[][]int{{0}, {1}, {}, {0}}, []Round{{0, 4}}},
		{[][]int{{0, 1}}, []Round{{0, 1}}},
		{[][]int{{0}, {0, 1}, {0, 1}, {1}, {}}, []Round{{0, 1}, {1, 2}, {2, 3}, {3, 5}}},
	} {
		tx := Txn{}
		for _, p := range tc.parts {
			tx.Cmds = append(tx.Cmds, Cmd{Parts: p})
		}
		if got := tx.Rounds(nil); !slices.Equal(got, tc.want) {
			t.Errorf("Rounds(%v) = %v, want %v", tc.parts, got, tc.want)
		}
	}
}

// TestLastRounds: a part is released in its last round when that round
// runs commands on one part each, else with the transaction.
func TestLastRounds(t *testing.T) {
	for _, tc := range []struct {
		parts int
		cmds  [][]int
		want  []int
	}{
		{2, [][]int{{0}, {1}}, []int{0, 0}},
		{2, [][]int{{0}, {0, 1}, {1}}, []int{-1, 2}},
		{3, [][]int{{0}, {0, 1}, {}, {0}}, []int{2, -1, -1}},
		{2, [][]int{{0, 1}}, []int{-1, -1}},
	} {
		tx := Txn{Parts: make([]Part, tc.parts)}
		for _, p := range tc.cmds {
			tx.Cmds = append(tx.Cmds, Cmd{Parts: p})
		}
		if got := tx.LastRounds(tx.Rounds(nil), nil); !slices.Equal(got, tc.want) {
			t.Errorf("LastRounds(%v) = %v, want %v", tc.cmds, got, tc.want)
		}
	}
}

// TestBeginManyParts: a transaction of more parts than a Txn holds
// inline, and then a smaller one in the same Txn, begin and run alike.
func TestBeginManyParts(t *testing.T) {
	var tx Txn
	for _, n := range []int{inlineParts + 2, 2, inlineParts} {
		tx.Parts = make([]Part, n)
		steps := tx.Begin()
		if len(steps) != n || steps[0] != (Step{LockFirst, 0}) || steps[n-1] != (Step{TryLock, n - 1}) {
			t.Fatalf("%d parts: Begin %v", n, steps)
		}
		var last []Step
		for i := range n {
			last = tx.Tried(i, true, false)
		}
		if len(last) != 1 || last[0].Kind != Run {
			t.Fatalf("%d parts, every one granted: %v, want Run", n, last)
		}
	}
}

package coord

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// work is one submitted piece of work in the model test.
type work struct {
	id   int
	txn  uint64 // non-zero: a lock request
	keys []Key
	all  bool // touches every key
	ran  bool
}

// clash reports whether two pieces of work may not overlap or overtake
// each other.
func clash(a, b *work) bool { return a.all || b.all || conflict(a.keys, b.keys) }

func conflict(a, b []Key) bool {
	for _, x := range a {
		for _, y := range b {
			if string(x.Name) == string(y.Name) && (x.Intent == Exclusive || y.Intent == Exclusive) {
				return true
			}
		}
	}
	return false
}

// TestTableModel submits random commands and lock requests (of keys, or
// of every key: LockAll) over a few keys with random intents, and releases held transactions at random, with
// some Run functions that submit or release more work from inside. It
// checks that holders never conflict, that a command never runs against a
// conflicting holder, that conflicting work runs in arrival order, and
// that everything runs once every transaction is released.
func TestTableModel(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		tb := NewTable()
		names := []string{"a", "b", "c", "d"}
		var all []*work
		var order []*work // in the order they ran
		holding := map[uint64]*work{}
		nextTxn := uint64(1)
		var submit, release func()
		check := func(w *work) {
			if w.ran {
				t.Fatalf("seed %d: work %d ran twice", seed, w.id)
			}
			w.ran = true
			for _, h := range holding {
				if h != w && clash(h, w) {
					t.Fatalf("seed %d: work %d (txn %d) ran against holder txn %d", seed, w.id, w.txn, h.txn)
				}
			}
			for _, o := range all[:w.id] {
				if !o.ran && clash(o, w) {
					t.Fatalf("seed %d: work %d overtook earlier conflicting work %d", seed, w.id, o.id)
				}
			}
			order = append(order, w)
			if w.txn != 0 {
				holding[w.txn] = w
			}
			// Re-entrancy: a Run that submits more work, or releases.
			switch r.IntN(8) {
			case 0:
				if len(all) < 400 {
					submit()
				}
			case 1:
				release()
			}
		}
		submit = func() {
			n := 1 + r.IntN(3)
			var keys []Key
			used := map[string]bool{}
			for range n {
				k := names[r.IntN(len(names))]
				if used[k] {
					continue
				}
				used[k] = true
				keys = append(keys, Key{Name: []byte(k), Intent: Intent(r.IntN(2))})
			}
			w := &work{id: len(all), keys: keys}
			all = append(all, w)
			if r.IntN(12) == 0 {
				w.keys, w.all = nil, true
				if r.IntN(2) == 0 {
					w.txn = nextTxn
					nextTxn++
					tb.LockAll(w.txn, func() { check(w) })
					return
				}
				tb.RunAll(func() { check(w) })
				return
			}
			if r.IntN(2) == 0 {
				w.txn = nextTxn
				nextTxn++
				tb.Lock(w.txn, keys, func() { check(w) })
				return
			}
			if tb.Free(keys) {
				check(w)
				return
			}
			tb.Enqueue(&Item{Keys: keys, Run: func() { check(w) }})
		}
		release = func() {
			ids := slices.Sorted(maps.Keys(holding))
			if len(ids) == 0 {
				return
			}
			id := ids[r.IntN(len(ids))]
			h := holding[id]
			delete(holding, id)
			if h.all {
				tb.UnlockAll(id)
				return
			}
			tb.Unlock(id, h.keys)
		}
		for range 150 {
			if r.IntN(3) == 0 {
				release()
			} else {
				submit()
			}
		}
		for len(holding) > 0 {
			release()
		}
		for _, w := range all {
			if !w.ran {
				t.Fatalf("seed %d: work %d never ran (queued %d)", seed, w.id, tb.Queued())
			}
		}
		if !tb.Idle() {
			t.Fatalf("seed %d: table not idle: %v held, %d waiting", seed, len(tb.held), len(tb.waiting))
		}
	}
}

// TestSharedIntentsDoNotWait: two readers of a key hold it together; a
// writer waits for both, and a reader after the writer waits for it.
func TestSharedIntentsDoNotWait(t *testing.T) {
	tb := NewTable()
	read := []Key{{Name: []byte("k"), Intent: Shared}}
	write := []Key{{Name: []byte("k"), Intent: Exclusive}}
	var log []string
	note := func(s string) func() { return func() { log = append(log, s) } }
	tb.Lock(1, read, note("r1"))
	tb.Lock(2, read, note("r2"))
	if !tb.Free(read) || tb.Free(write) {
		t.Fatal("a shared key must admit readers and refuse writers")
	}
	tb.Lock(3, write, note("w3"))
	tb.Lock(4, read, note("r4")) // behind the writer: no overtaking
	if fmt.Sprint(log) != "[r1 r2]" {
		t.Fatalf("ran %v", log)
	}
	tb.Unlock(1, read)
	tb.Unlock(2, read)
	if fmt.Sprint(log) != "[r1 r2 w3]" {
		t.Fatalf("ran %v", log)
	}
	tb.Unlock(3, write)
	tb.Unlock(4, read)
	if fmt.Sprint(log) != "[r1 r2 w3 r4]" || !tb.Idle() {
		t.Fatalf("ran %v, idle %v", log, tb.Idle())
	}
	if !tb.TryLock(5, write) || tb.TryLock(6, read) {
		t.Fatal("TryLock must take free keys and refuse held ones")
	}
}

// TestLockNames: a held lock keeps its own copy of the key (the caller's
// buffer may change), a released one is reused for another key, and
// taking and releasing locks allocates nothing once the table warmed up.
func TestLockNames(t *testing.T) {
	tb := NewTable()
	buf := []byte("alpha")
	if !tb.TryLock(1, []Key{{Name: buf, Intent: Exclusive}}) {
		t.Fatal("TryLock on an empty table")
	}
	copy(buf, "omega")
	if held, excl := tb.Held([]byte("alpha")); !held || !excl {
		t.Fatalf("alpha after its buffer changed: held %v exclusive %v", held, excl)
	}
	if held, _ := tb.Held([]byte("omega")); held {
		t.Fatal("omega is held: the table kept the caller's buffer")
	}
	tb.Unlock(1, []Key{{Name: []byte("alpha"), Intent: Exclusive}})
	if !tb.TryLock(2, []Key{{Name: []byte("beta"), Intent: Shared}}) {
		t.Fatal("TryLock after the release")
	}
	if held, _ := tb.Held([]byte("alpha")); held {
		t.Fatal("alpha is held after its release")
	}
	if held, excl := tb.Held([]byte("beta")); !held || excl {
		t.Fatalf("beta: held %v exclusive %v", held, excl)
	}
	tb.Unlock(2, []Key{{Name: []byte("beta"), Intent: Shared}})
	keys := []Key{{Name: []byte("k1"), Intent: Shared}, {Name: []byte("k2"), Intent: Exclusive}, {Name: []byte("k3"), Intent: Shared}}
	if a := testing.AllocsPerRun(100, func() {
		if !tb.TryLock(3, keys) {
			t.Fatal("TryLock")
		}
		tb.Unlock(3, keys)
	}); a != 0 {
		t.Errorf("TryLock and Unlock of 3 keys: %v allocations", a)
	}
	if !tb.Idle() {
		t.Error("the table is not idle after every release")
	}
}

package shard

import (
	"testing"

	"github.com/radish-kv/radish/coord"
)

// TestSimLockMessages: a txn's lock steps are values the simulator reads
// in flight: each request names its txn and its part's shard, keys and
// intents (the first part's queues, the others only try), and each answer
// says whether the keys were taken.
func TestSimLockMessages(t *testing.T) {
	m := newSim(t, 3, 1)
	c := m.dial(0)
	keys := map[int]string{1: keysOn(1, 3, 1)[0], 2: keysOn(2, 3, 1)[0]}
	m.write(c, "MSET "+keys[1]+" a "+keys[2]+" b\r\n")
	m.read(c, true)
	m.turn(0)
	var id uint64
	for dst := 1; dst <= 2; dst++ {
		b := m.queue[0][dst]
		if len(b) != 1 || len(b[0]) != 1 || b[0][0].kind != msgTryLock || b[0][0].lock == nil {
			t.Fatalf("shard 0 -> %d: %v, want one typed try-lock", dst, b)
		}
		l := b[0][0].lock
		if id == 0 {
			id = l.id
		}
		if l.id != id || l.part != dst-1 || l.p.Shard != dst || l.queue != (dst == 1) ||
			len(l.p.Keys) != 1 || string(l.p.Keys[0].Name) != keys[dst] || l.p.Keys[0].Intent != coord.Exclusive {
			t.Fatalf("shard 0 -> %d: request %+v", dst, l)
		}
		m.deliverNext(0, dst)
		m.turn(dst)
		a := m.queue[dst][0]
		if len(a) != 1 || len(a[0]) != 1 || a[0][0].kind != msgTried || a[0][0].lock != l || !l.ok || l.oom || l.dirty {
			t.Fatalf("shard %d -> 0: %v, want the request answered: taken", dst, a)
		}
	}
	m.settle()
	if got := m.take(c); got != "+OK\r\n" {
		t.Fatalf("MSET: %q", got)
	}
	m.noneLeft()
}

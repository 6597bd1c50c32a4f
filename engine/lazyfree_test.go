package engine

import (
	"fmt"
	"testing"
)

// TestLazyFree: UNLINK of a large value of each kind takes the key out at
// once and frees its blocks a few per step, while the keyspace goes on
// (the same key created again is not touched); a small value is freed at
// once; every byte is given back.
func TestLazyFree(t *testing.T) {
	fills := map[string]func(db *DB, k []byte){
		"list": func(db *DB, k []byte) {
			for i := range 100000 {
				db.ListPush(k, [][]byte{fmt.Appendf(nil, "element-%d", i)}, false, false, 0)
			}
		},
		"hash": func(db *DB, k []byte) {
			for i := range 2000 {
				db.HSet(k, [][]byte{fmt.Appendf(nil, "f%d", i), []byte("v")}, 0)
			}
		},
		"set": func(db *DB, k []byte) {
			for i := range 500 {
				db.SAdd(k, [][]byte{fmt.Appendf(nil, "m%d", i)}, 0)
			}
		},
		"zset": func(db *DB, k []byte) {
			for i := range 500 {
				db.ZAdd(k, 0, 1, func(int) (float64, []byte) { return float64(i), fmt.Appendf(nil, "m%d", i) }, 0)
			}
		},
	}
	for name, fill := range fills {
		s := NewStore(1)
		db := s.DB(0)
		key := []byte(name)
		fill(db, key)
		if !db.Unlink(key, 0) || db.Exists(key, 0) || db.Len() != 0 {
			t.Fatalf("%s: the key is still there", name)
		}
		if s.LazyPending() != 1 || s.slab.InUse() == 0 {
			t.Fatalf("%s: %d pending, %d bytes", name, s.LazyPending(), s.slab.InUse())
		}
		db.SetString(key, []byte("again"), 0, false)
		steps := 0
		for s.LazyPending() > 0 {
			s.LazyFreeStep(16)
			steps++
		}
		if steps < 10 {
			t.Errorf("%s: freed in %d steps of 16 blocks", name, steps)
		}
		if v, _, _ := db.GetString(key, 0); string(v) != "again" {
			t.Errorf("%s: the new key holds %q", name, v)
		}
		db.Delete(key, 0)
		if s.slab.InUse() != 0 || s.LazyFreed() != 1 {
			t.Errorf("%s: %d bytes left, %d freed", name, s.slab.InUse(), s.LazyFreed())
		}
		s.Close()
	}
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	db.ListPush([]byte("small"), [][]byte{[]byte("a")}, false, false, 0)
	if !db.Unlink([]byte("small"), 0) || s.LazyPending() != 0 || s.slab.InUse() != 0 {
		t.Errorf("a small value: %d pending, %d bytes", s.LazyPending(), s.slab.InUse())
	}
	if db.Unlink([]byte("small"), 0) {
		t.Error("UNLINK of a missing key")
	}
}

// TestFlushAsync: FLUSHDB ASYNC empties the database at once and frees
// its tree (and the large values in it) in steps, while another
// database's keys, with TTLs, and the expiry cycle go on; then the slab
// holds exactly the other database.
func TestFlushAsync(t *testing.T) {
	s := NewStore(2)
	defer s.Close()
	a, b := s.DB(0), s.DB(1)
	b.SetString([]byte("keep"), []byte("v"), 0, false)
	keep := s.slab.InUse()
	for i := range 3000 {
		k := fmt.Appendf(nil, "key:%d", i)
		a.SetString(k, []byte("value"), int64(1000+i), false)
	}
	for i := range 100000 {
		a.ListPush([]byte("biglist"), [][]byte{fmt.Appendf(nil, "e%d", i)}, false, false, 0)
	}
	a.FlushAsync()
	if a.Len() != 0 || a.ExpiresLen() != 0 || s.LazyPending() != 1 {
		t.Fatalf("after FLUSHDB ASYNC: %d keys, %d pending", a.Len(), s.LazyPending())
	}
	a.SetString([]byte("key:1"), []byte("new"), 0, false)
	for now := int64(0); s.LazyPending() > 0; now += 10 {
		s.LazyFreeStep(64)
		s.ActiveExpire(now, 20)
	}
	if v, _, _ := a.GetString([]byte("key:1"), 0); string(v) != "new" || b.Len() != 1 {
		t.Fatalf("the new key holds %q, db 1 has %d keys", v, b.Len())
	}
	a.Delete([]byte("key:1"), 0)
	if s.slab.InUse() != keep {
		t.Errorf("%d bytes in use, want %d (db 1 alone)", s.slab.InUse(), keep)
	}
	if s.LazyFreed() != 2 { // the tree, then the large list found in it
		t.Errorf("%d freed", s.LazyFreed())
	}
}

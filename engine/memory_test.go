package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestMemoryUsage: a key alone in a store is all of its slab, so its
// MEMORY USAGE is the slab's bytes in use, for every type and encoding
// (small and large), and the bytes Delete gives back.
func TestMemoryUsage(t *testing.T) {
	big := strings.Repeat("x", 5000)
	cases := map[string]func(db *DB, k []byte){
		"int":    func(db *DB, k []byte) { db.SetString(k, []byte("12345"), 0, false) },
		"inline": func(db *DB, k []byte) { db.SetString(k, []byte("hello"), 0, false) },
		"ext":    func(db *DB, k []byte) { db.SetString(k, []byte(big), 0, false) },
		"list-small": func(db *DB, k []byte) {
			db.ListPush(k, [][]byte{[]byte("a"), []byte("b")}, false, false, 0)
		},
		"list-large": func(db *DB, k []byte) {
			for i := range 3000 {
				db.ListPush(k, [][]byte{fmt.Appendf(nil, "element-%d", i)}, false, false, 0)
			}
		},
		"hash-small": func(db *DB, k []byte) { db.HSet(k, [][]byte{[]byte("f"), []byte("v")}, 0) },
		"hash-large": func(db *DB, k []byte) {
			for i := range 1000 {
				db.HSet(k, [][]byte{fmt.Appendf(nil, "f%d", i), []byte("v")}, 0)
			}
		},
		"intset": func(db *DB, k []byte) { db.SAdd(k, [][]byte{[]byte("1"), []byte("2")}, 0) },
		"set-large": func(db *DB, k []byte) {
			for i := range 1000 {
				db.SAdd(k, [][]byte{fmt.Appendf(nil, "m%d", i)}, 0)
			}
		},
		"stream": func(db *DB, k []byte) {
			for i := range 2000 {
				db.XAdd(k, XAddID{ID: StreamID{uint64(i + 1), 0}}, [][]byte{[]byte("field"), fmt.Appendf(nil, "value %d", i)}, false, nil, 0)
			}
		},
		"zset-small": func(db *DB, k []byte) {
			db.ZAdd(k, 0, 1, func(int) (float64, []byte) { return 1, []byte("a") }, 0)
		},
		"zset-large": func(db *DB, k []byte) {
			for i := range 1000 {
				db.ZAdd(k, 0, 1, func(int) (float64, []byte) { return float64(i), fmt.Appendf(nil, "m%d", i) }, 0)
			}
		},
	}
	for name, fill := range cases {
		s := NewStore(1)
		db := s.DB(0)
		key := []byte("key:" + name)
		fill(db, key)
		n, ok := db.MemoryUsage(key, 0)
		if !ok || n != s.slab.InUse() {
			t.Errorf("%s: MEMORY USAGE %d (%v), slab in use %d", name, n, ok, s.slab.InUse())
		}
		db.Delete(key, 0)
		if s.slab.InUse() != 0 {
			t.Errorf("%s: %d bytes left after Delete", name, s.slab.InUse())
		}
		if _, ok := db.MemoryUsage(key, 0); ok {
			t.Errorf("%s: usage of a deleted key", name)
		}
		s.Close()
	}
}

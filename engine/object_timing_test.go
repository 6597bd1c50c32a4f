package engine

import (
	"os"
	"strconv"
	"testing"
)

// TestMemoryObjects measures 1M hashes of 10 small fields (field0..field9
// set to value<i>) and 1M sets of 10 integers (i..i+9) under keys key:<i>:
// UsedMemory and RSS growth per key. Opt-in, like TestMemoryPerKey:
//
//	RADISH_MEM=1 go test ./engine/ -run MemoryObjects -v
//
// The same data loaded into redis-server gives the comparison (see the
// hash/set benchmark notes in the report).
func TestMemoryObjects(t *testing.T) {
	if os.Getenv("RADISH_MEM") == "" {
		t.Skip("set RADISH_MEM=1 to measure memory per key")
	}
	const n = 1_000_000
	for _, kind := range []string{"hash", "set"} {
		settle()
		rss0 := rss(t)
		s := NewStore(16)
		db := s.DB(0)
		base := s.UsedMemory()
		kb := make([]byte, 0, 32)
		args := make([][]byte, 20)
		for i := 0; i < n; i++ {
			kb = strconv.AppendInt(append(kb[:0], "key:"...), int64(i), 10)
			if kind == "hash" {
				for j := 0; j < 10; j++ {
					args[2*j] = []byte("field" + strconv.Itoa(j))
					args[2*j+1] = strconv.AppendInt([]byte("value"), int64(i), 10)
				}
				db.HSet(kb, args, 0)
			} else {
				for j := 0; j < 10; j++ {
					args[j] = strconv.AppendInt(nil, int64(i+j), 10)
				}
				db.SAdd(kb, args[:10], 0)
			}
		}
		settle()
		rss1 := rss(t)
		enc, _ := db.Encoding([]byte("key:1"), 0)
		t.Logf("%s (%s): UsedMemory %.1f B/key, slab mapped %.1f B/key, RSS +%.1f B/key",
			kind, enc, float64(s.UsedMemory()-base)/n, float64(s.SlabMapped())/n, float64(rss1-rss0)/n)
		s.Close()
	}
}

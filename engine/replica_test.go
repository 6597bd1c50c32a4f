package engine

import "testing"

// TestReplicaExpiry: with SetReplica on, a key past its TTL reads as
// absent at the real time but stays, with no OnExpire; at time 0 (the
// primary's writes) it is alive and a SET KEEPTTL keeps its deadline;
// DEL removes it; off again, the lookup deletes it.
func TestReplicaExpiry(t *testing.T) {
	s, db := newTestDB(t)
	got := recordExpiries(s)
	s.SetReplica(true)
	db.SetString([]byte("a"), []byte("1"), t0+1000, false)
	db.SetString([]byte("b"), []byte("2"), t0+1000, false)
	if _, ok, _ := db.GetString([]byte("a"), t0+2000); ok {
		t.Fatal("a read alive past its deadline")
	}
	if db.Exists([]byte("a"), t0+2000) || db.Len() != 2 || len(*got) != 0 {
		t.Fatalf("a past its deadline: Len %d, expired %v", db.Len(), *got)
	}
	if v, ok, _ := db.GetString([]byte("a"), 0); !ok || string(v) != "1" {
		t.Fatalf("a at time 0: %q %v", v, ok)
	}
	db.GetString([]byte("b"), t0+2000) // lastNow is past b's deadline now
	db.SetString([]byte("b"), []byte("3"), 0, true)
	if exp, ok := db.Expiry([]byte("b"), 0); !ok || exp != t0+1000 {
		t.Fatalf("b after SET KEEPTTL at time 0: deadline %d, %v", exp, ok)
	}
	if !db.Delete([]byte("a"), 0) || db.Len() != 1 {
		t.Fatalf("DEL a: Len %d", db.Len())
	}
	s.SetReplica(false)
	if db.Exists([]byte("b"), t0+2000) || db.Len() != 0 || len(*got) != 1 {
		t.Fatalf("b after SetReplica(false): Len %d, expired %v", db.Len(), *got)
	}
}

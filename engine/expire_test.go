package engine

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/engine/slab"
)

// t0 is the controlled clock's start (a realistic unix-ms time).
const t0 = int64(1_700_000_000_000)

type expired struct {
	db  int
	key string
}

func recordExpiries(s *Store) *[]expired {
	var got []expired
	s.OnExpire = func(db int, key []byte) { got = append(got, expired{db, string(key)}) }
	return &got
}

func TestLazyExpiry(t *testing.T) {
	s, db := newTestDB(t)
	got := recordExpiries(s)
	db.SetString([]byte("a"), []byte("1"), t0+1000, false)
	db.SetString([]byte("b"), []byte("x"), t0+1000, false)
	if _, ok, _ := db.GetString([]byte("a"), t0+999); !ok {
		t.Fatal("a gone before its deadline")
	}
	if _, ok, _ := db.GetString([]byte("a"), t0+1000); ok {
		t.Fatal("a alive at its deadline")
	}
	if db.Exists([]byte("b"), t0+1000) {
		t.Fatal("b alive at its deadline")
	}
	if db.Exists([]byte("a"), t0+2000) || db.Len() != 0 {
		t.Fatalf("Len %d", db.Len())
	}
	if len(*got) != 2 || (*got)[0] != (expired{0, "a"}) || (*got)[1] != (expired{0, "b"}) {
		t.Fatalf("events %v", *got)
	}
	if st := s.Stats(); st.ExpiredKeys != 2 {
		t.Fatalf("stats %+v", st)
	}
	// SET over an expired key: the old key expires first (an event), the
	// new one does not inherit the TTL with KEEPTTL.
	db.SetString([]byte("c"), []byte("1"), t0+3000, false)
	db.Exists([]byte("zz"), t0+5000) // the clock moves on
	db.SetString([]byte("c"), []byte("2"), 0, true)
	if exp, ok := db.Expiry([]byte("c"), t0+5000); !ok || exp != 0 || len(*got) != 3 {
		t.Fatalf("c: exp %d %v, events %v", exp, ok, *got)
	}
	if s.SlabLive() == 0 {
		t.Fatal("c should be live")
	}
	db.Delete([]byte("c"), t0+5000)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks leaked", s.SlabLive())
	}
}

// TestActiveExpiryConvergence: keys with deadlines spread over 20 s, hz=10
// cycles of ExpireCycleWork(10, 1): every key is deleted within a wheel tick
// plus a period of its deadline and no call exceeds its work.
func TestActiveExpiryConvergence(t *testing.T) {
	s, _ := newTestDB(t)
	const n = 100_000
	deadline := map[string]int64{}
	var late int64
	s.OnExpire = func(dbi int, key []byte) {
		d := deadline[string(key)]
		late = max(late, s.lastNow-d)
		delete(deadline, string(key))
	}
	s.DB(0).Exists([]byte("x"), t0) // the clock starts (as in a server)
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("k:%d", i)
		d := t0 + 1 + int64(i)*20_000/n
		deadline[k] = d
		s.DB(i%3).SetString([]byte(k), []byte("v"), d, false)
	}
	for i := 0; i < 1000; i++ { // keys without TTL stay
		s.DB(0).SetString([]byte("p:"+strconv.Itoa(i)), []byte("v"), 0, false)
	}
	work := ExpireCycleWork(10, 1)
	now := t0
	for step := 0; step < 220; step++ {
		now += 100
		sm, _ := s.ActiveExpireCycle(now, 1, work)
		if sm > work {
			t.Fatalf("cycle examined %d > %d", sm, work)
		}
		// Nothing older than a tick plus a period may remain.
		for k, d := range deadline {
			if d <= now-250 {
				t.Fatalf("at +%d ms key %s (deadline +%d) still there", now-t0, k, d-t0)
			}
		}
	}
	if len(deadline) != 0 || s.DB(0).Len() != 1000 || s.DB(1).Len() != 0 {
		t.Fatalf("left %d, Len %d %d", len(deadline), s.DB(0).Len(), s.DB(1).Len())
	}
	t.Logf("worst lateness %d ms (tick 128 ms, period 100 ms)", late)
	if late > 250 {
		t.Fatalf("lateness %d ms", late)
	}
	if st := s.Stats(); st.ExpiredKeys != n {
		t.Fatalf("stats %+v", st)
	}
}

// TestActiveExpiryLongTTLs: deadlines an hour out sit in high levels of the
// wheel; their buckets are cascaded ahead, in the background, so with a
// small work limit per call no key waits for a whole bucket to be cascaded.
func TestActiveExpiryLongTTLs(t *testing.T) {
	s, db := newTestDB(t)
	const n = 200_000
	db.Exists([]byte("x"), t0)
	for i := 0; i < n; i++ {
		db.SetString([]byte(fmt.Sprintf("k:%d", i)), []byte("v"), t0+600_000+int64(i)*3_600_000/n, false)
	}
	var late int64
	s.OnExpire = func(_ int, key []byte) {
		i, _ := strconv.Atoi(string(key[2:]))
		late = max(late, s.lastNow-(t0+600_000+int64(i)*3_600_000/n))
	}
	for now := t0; now < t0+4_300_000; now += 100 {
		if sm, _ := s.ActiveExpireCycle(now, 1, 2000); sm > 2000 {
			t.Fatalf("examined %d", sm)
		}
	}
	t.Logf("worst lateness %d ms", late)
	if db.Len() != 0 || late > 250 {
		t.Fatalf("Len %d, lateness %d ms", db.Len(), late)
	}
}

// TestActiveExpiryBoundedWork: a mass expiry is spread over calls of at most
// `work` units, ExpireCapped says so, and the backlog drains.
func TestActiveExpiryBoundedWork(t *testing.T) {
	s, db := newTestDB(t)
	const n = 50_000
	for i := 0; i < n; i++ {
		db.SetString([]byte(fmt.Sprintf("k:%d", i)), []byte("v"), t0+1000, false)
	}
	now := t0 + 5000
	calls := 0
	for db.Len() > 0 {
		sm, _ := s.ActiveExpireCycle(now, 1, 1000)
		if sm > 1000 {
			t.Fatalf("examined %d", sm)
		}
		calls++
		if db.Len() > 0 && !s.ExpireCapped() {
			t.Fatalf("call %d: %d keys left but not capped", calls, db.Len())
		}
		// Filed before the Store saw a time: each key is filed once more.
		if calls > 2*n/1000+5 {
			t.Fatalf("not converging: %d left after %d calls", db.Len(), calls)
		}
	}
	s.ActiveExpireCycle(now+100, 1, 1000)
	if s.ExpireCapped() || s.SlabLive() != 0 {
		t.Fatalf("capped %v, %d blocks live", s.ExpireCapped(), s.SlabLive())
	}
	if st := s.Stats(); st.ExpiredTimeCapReached == 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestExpiryTTLChanges: a deadline moved later, earlier, removed, a leaf
// that moves to another block, and clock jumps of years.
func TestExpiryTTLChanges(t *testing.T) {
	s, db := newTestDB(t)
	got := recordExpiries(s)
	k := func(name string) []byte { return []byte(name) }
	db.SetString(k("later"), k("v"), t0+1000, false)
	db.SetString(k("earlier"), k("v"), t0+3_600_000, false)
	db.SetString(k("persist"), k("v"), t0+1000, false)
	db.SetString(k("moved"), k("v"), t0+2000, false)
	db.SetString(k("far"), k("v"), t0+10*365*86_400_000, false)
	db.SetString(k("plain"), k("v"), 0, false)
	db.SetExpiry(k("later"), t0+60_000, t0)
	db.SetExpiry(k("earlier"), t0+1500, t0)
	db.Persist(k("persist"), t0)
	db.SetString(k("moved"), []byte("a much longer value than before, another class"), 0, true)
	cycle := func(now int64) {
		for i := 0; i < 3; i++ {
			s.ActiveExpireCycle(now, 1, 10000)
		}
	}
	cycle(t0 + 2500)
	names := func() string {
		var out []string
		for _, e := range *got {
			out = append(out, e.key)
		}
		return fmt.Sprint(out)
	}
	if names() != "[earlier moved]" {
		t.Fatalf("at +2.5s expired %s", names())
	}
	cycle(t0 + 61_000)
	if names() != "[earlier moved later]" {
		t.Fatalf("at +61s expired %s", names())
	}
	cycle(t0 + 365*86_400_000)
	cycle(t0 + 10*365*86_400_000 + 1000)
	if names() != "[earlier moved later far]" || db.Len() != 2 {
		t.Fatalf("after 10y expired %s, Len %d", names(), db.Len())
	}
}

// TestExpiryStaleEntries: TTL keys created and deleted long before their
// deadline leave entries that compaction bounds.
func TestExpiryStaleEntries(t *testing.T) {
	s, db := newTestDB(t)
	db.SetString([]byte("keep"), []byte("v"), t0+86_400_000, false)
	now := t0
	for round := 0; round < 50; round++ {
		for i := 0; i < 2000; i++ {
			key := []byte(fmt.Sprintf("tmp:%d", i))
			db.SetString(key, []byte("v"), now+3_600_000+int64(i), false)
			db.Delete(key, now)
		}
		now += 100
		s.ActiveExpireCycle(now, 1, ExpireCycleWork(10, 1))
	}
	if live := s.slab.LiveTagged(); live != 1 || s.exp.entries > 2*live+8*chunkCap {
		t.Fatalf("%d wheel entries for %d TTL keys", s.exp.entries, live)
	}
	if !db.Exists([]byte("keep"), now) {
		t.Fatal("keep lost")
	}
	db.Delete([]byte("keep"), now)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks live", s.SlabLive())
	}
}

// TestExpirySampling: Redis's sampling loop alone (a leaf the wheel does
// not know) still finds expired keys.
func TestExpirySampling(t *testing.T) {
	s, db := newTestDB(t)
	for i := 0; i < 1000; i++ {
		db.SetString([]byte(fmt.Sprintf("k:%d", i)), []byte("v"), t0+1000, false)
	}
	// Forget the wheel (its chunks stay allocated: only for this test).
	x := &s.exp
	x.head, x.tail, x.nonEmpty, x.entries = [wheelLevels][ringSlots]slab.Handle{}, [wheelLevels][ringSlots]slab.Handle{}, [wheelLevels][2]uint64{}, 0
	total := 0
	for i := 0; i < 100 && db.Len() > 0; i++ {
		_, ex := s.ActiveExpireCycle(t0+2000+int64(i)*100, 1, 25000)
		total += ex
	}
	if db.Len() != 0 || total != 1000 {
		t.Fatalf("sampling left %d keys (deleted %d)", db.Len(), total)
	}
}

func TestExpiryOtherTypes(t *testing.T) {
	s, db := newTestDB(t)
	got := recordExpiries(s)
	if _, err := db.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SAdd([]byte("s"), [][]byte{[]byte("m")}, t0); err != nil {
		t.Fatal(err)
	}
	db.SetExpiry([]byte("h"), t0+1000, t0)
	db.SetExpiry([]byte("s"), t0+1000, t0)
	s.ActiveExpireCycle(t0+1500, 1, 1000)
	if len(*got) != 2 || db.Len() != 0 || s.SlabLive() != 0 {
		t.Fatalf("events %v Len %d live %d", *got, db.Len(), s.SlabLive())
	}
}

func BenchmarkActiveExpire(b *testing.B) {
	s := NewStore(16)
	defer s.Close()
	db := s.DB(0)
	kb := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		kb = strconv.AppendInt(append(kb[:0], "key:"...), int64(i), 10)
		db.SetString(kb, []byte("value"), t0+1000+int64(i%10000), false)
	}
	b.ResetTimer()
	for now := t0 + 1000; db.Len() > 0; now += 100 {
		s.ActiveExpireCycle(now+20_000, 1, 1<<30)
	}
}

// TestCountReads: while reads are counted, each key looked up counts
// one hit or miss, however often the handler looks the same argument up;
// otherwise nothing counts.
func TestCountReads(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	a, b := []byte("a"), []byte("b")
	db.SetString(a, []byte("1"), 0, false)
	db.GetString(a, 0)
	s.RecordMisses(true)
	s.CountReads(true)
	db.GetString(a, 0)
	db.TypeOf(a, 0)
	db.GetString(b, 0)
	db.Exists([]byte("a"), 0)
	s.CountReads(false)
	db.GetString(b, 0)
	if st := s.Stats(); st.KeyspaceHits != 2 || st.KeyspaceMisses != 1 {
		t.Fatalf("hits %d misses %d, want 2 and 1", st.KeyspaceHits, st.KeyspaceMisses)
	}
	var missed []string
	s.Misses(func(k []byte) { missed = append(missed, string(k)) })
	if len(missed) != 1 || missed[0] != "b" {
		t.Fatalf("Misses told %q, want [b]", missed)
	}
	s.Misses(func([]byte) { t.Fatal("a miss told twice") })
	s.ResetStats()
	if st := s.Stats(); st.KeyspaceHits != 0 || st.KeyspaceMisses != 0 {
		t.Fatalf("after ResetStats: %+v", st)
	}
}

// TestAvgTTL: the active expiry's samples give each database Redis's
// avg_ttl, the TTL its keys have left; 0 in a database whose keys carry
// none, and after a flush.
func TestAvgTTL(t *testing.T) {
	s := NewStore(3)
	for i := range 200 {
		k := []byte(strconv.Itoa(i))
		s.DB(0).SetString(k, k, 100_000, false)
		s.DB(1).SetString(k, k, 0, false)
	}
	if s.DB(0).AvgTTL() != 0 {
		t.Fatalf("avg_ttl %d before any cycle", s.DB(0).AvgTTL())
	}
	for now := int64(40_000); now < 40_010; now++ {
		s.ActiveExpireCycle(now, 1, 1000)
	}
	if got := s.DB(0).AvgTTL(); got < 59_900 || got > 60_000 {
		t.Errorf("avg_ttl %d, want about 60000", got)
	}
	if got := s.DB(1).AvgTTL(); got != 0 {
		t.Errorf("avg_ttl of keys with no TTL: %d", got)
	}
	s.DB(0).Flush()
	if got := s.DB(0).AvgTTL(); got != 0 {
		t.Errorf("avg_ttl after FLUSHDB: %d", got)
	}
}

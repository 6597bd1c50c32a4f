package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/persistence/snapshot"
)

// keyspace is every live key of the stores at now, canonically: database,
// key, type, expiry, elements (sets and hashes sorted).
func keyspace(now int64, stores ...*engine.Store) map[string]string {
	out := map[string]string{}
	for _, s := range stores {
		for i := range s.Databases() {
			db := s.DB(i)
			var keys [][]byte
			db.Keys([]byte("*"), now, func(k []byte) bool {
				keys = append(keys, append([]byte(nil), k...))
				return true
			})
			for _, k := range keys {
				r, _, _, _, ok := db.ExportAppend(nil, k, now)
				if !ok {
					continue
				}
				var el []string
				r.Elements(func(m, v []byte, score float64) {
					el = append(el, fmt.Sprintf("%q=%q/%v", m, v, score))
				})
				if r.Type == engine.TypeSet || r.Type == engine.TypeHash {
					slices.Sort(el)
				}
				v := fmt.Sprintf("%v exp=%d %q %s", r.Type, r.ExpireAt, r.Data, strings.Join(el, ","))
				if r.Type != engine.TypeString {
					v = fmt.Sprintf("%v exp=%d %s", r.Type, r.ExpireAt, strings.Join(el, ","))
				}
				out[fmt.Sprintf("%d/%q", i, k)] = v
			}
		}
	}
	return out
}

// liveAt drops the keys of a keyspace whose expiry is not after now.
func liveAt(ks map[string]string, now int64) map[string]string {
	out := map[string]string{}
	for k, v := range ks {
		var exp int64
		fmt.Sscanf(v[strings.Index(v, "exp="):], "exp=%d", &exp)
		if exp == 0 || exp > now {
			out[k] = v
		}
	}
	return out
}

// TestSimBgSave starts a BGSAVE on three simulated shards holding the
// differential stream's keys and DEBUG POPULATE's, then runs more of the
// stream (overwrites, deletes, expiries, new keys, collection changes,
// MOVE, SWAPDB, FLUSHDB, blocking pops) while the shards write their files
// a slice per turn: the files hold the keyspace of the moment BGSAVE
// started.
func TestSimBgSave(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { simBgSave(t, seed) })
	}
}

func simBgSave(t *testing.T, seed uint64) {
	dir := t.TempDir()
	m := newSim(t, 3, seed)
	conf, err := config.Load([]string{"--dir", dir, "--enable-debug-command", "yes"})
	if err != nil {
		t.Fatal(err)
	}
	m.g.conf = conf
	for _, s := range m.g.shards {
		s.applyConfig(conf.Snapshot())
	}
	c := m.dial(0)
	gen := workload.New(rand.New(rand.NewPCG(seed, 1)))
	run := func(n int) {
		for sent := 0; sent < n; {
			batch := gen.Batch(32)
			sent += len(batch)
			m.write(c, encodeBatch(batch))
			m.replies(c, len(batch))
		}
	}
	run(1500)
	if got := m.do(c, "DEBUG POPULATE 12000 p 20\r\n"); got != "+OK\r\n" {
		t.Fatalf("DEBUG POPULATE: %q", got)
	}
	var stores []*engine.Store
	for _, s := range m.g.shards {
		stores = append(stores, s.store)
	}
	want := keyspace(m.now.UnixMilli(), stores...)
	if got := m.do(c, "BGSAVE\r\n"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	if got := m.do(c, "BGSAVE\r\n"); got != "-ERR Background save already in progress\r\n" {
		t.Fatalf("BGSAVE during BGSAVE: %q", got)
	}
	during := 0
	for sent := 0; sent < 1500; sent += 32 {
		for _, s := range m.g.shards {
			if s.snap != nil {
				during++
			}
		}
		batch := gen.Batch(32)
		m.write(c, encodeBatch(batch))
		m.replies(c, len(batch))
	}
	if during == 0 {
		t.Fatal("the save was over before the writes began")
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		for i, s := range m.g.shards {
			if s.snap != nil {
				m.turn(i)
			}
		}
		m.g.persist.mu.Lock()
		done := m.g.persist.run == nil
		m.g.persist.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the save did not finish")
		}
		time.Sleep(time.Millisecond)
	}
	if m.g.persist.lastErr.Load() {
		t.Fatal("the save failed")
	}
	now := m.now.UnixMilli()
	src, err := snapshot.Open(dir, "dump.rdb")
	if err != nil || src == nil {
		t.Fatalf("Open: %v", err)
	}
	defer src.Close()
	loaded := engine.NewStore(16)
	defer loaded.Close()
	for _, im := range src.Images {
		if _, err := snapshot.LoadRDB(im.Data, im.Name, snapshot.LoadOptions{Store: loaded, Now: now, Verify: true}); err != nil {
			t.Fatal(err)
		}
	}
	got, want := keyspace(now, loaded), liveAt(want, now)
	n := 0
	for k, v := range want {
		if got[k] != v {
			if n++; n <= 5 {
				t.Errorf("%s = %.200q, want %.200q", k, got[k], v)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			if n++; n <= 10 {
				t.Errorf("%s is in the file and was not there at the start", k)
			}
		}
	}
	if n > 0 {
		t.Errorf("%d keys differ (of %d)", n, len(want))
	}
}

// saveSim is one simulated shard that saves into a temporary dir (no
// save points), with a connection that ran populate (DEBUG POPULATE ...).
func saveSim(tb testing.TB, populate string) (*sim, *Shard, *simConn) {
	m := newSim(tb, 1, 1)
	conf, err := config.Load([]string{"--dir", tb.TempDir(), "--save", "", "--enable-debug-command", "yes"})
	if err != nil {
		tb.Fatal(err)
	}
	m.g.conf = conf
	s := m.g.shards[0]
	s.applyConfig(conf.Snapshot())
	c := m.dial(0)
	if got := m.do(c, populate+"\r\n"); got != "+OK\r\n" {
		tb.Fatalf("%s: %q", populate, got)
	}
	return m, s, c
}

// savingSim is saveSim with a BGSAVE of 200000 keys running and a clock
// that moves on 5 µs at each reading (a slice ends on time); now is that
// clock's time.
func savingSim(t *testing.T) (*sim, *Shard, *simConn, *time.Time) {
	m, s, c := saveSim(t, "DEBUG POPULATE 200000")
	now := new(time.Time)
	*now = m.now
	m.g.clock = func() time.Time { *now = now.Add(5 * time.Microsecond); return *now }
	if got := m.do(c, "BGSAVE\r\n"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	return m, s, c, now
}

// drainWriter waits until the save's file writer is no longer behind.
func drainWriter(t *testing.T, s *Shard) {
	for deadline := time.Now().Add(10 * time.Second); s.snap.busy(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the file's writer did not drain")
		}
	}
}

// TestSnapCutShort: once the driver reports input waiting, a slice ends
// after one step and the next may run at the next turn, unless a write
// since the last slice reached a key ahead of the save's walk; with no
// input waiting it runs its length.
func TestSnapCutShort(t *testing.T) {
	m, s, c, now := savingSim(t)
	d := m.drv[0]
	slice := func(waiting bool) (took time.Duration, keys int64) {
		drainWriter(t, s)
		if waiting {
			d.data = append(d.data, c.id) // received, not dispatched yet
			defer func() { d.data = d.data[:0] }()
		}
		start, before := *now, s.snap.w.Keys()
		s.snapStep()
		if s.snap == nil {
			t.Fatal("the save ended: populate more keys")
		}
		return now.Sub(start), s.snap.w.Keys() - before
	}
	slice(false)
	for i := range 3 {
		if took, keys := slice(true); took >= snapSlice/4 || keys != snapStepKeys {
			t.Errorf("slice %d, input waiting: took %v, wrote %d keys; want one step of %d", i, took, keys, snapStepKeys)
		}
		if s.snapAt.After(*now) {
			t.Errorf("slice %d, cut short: the next waits %v; want it at the next turn", i, s.snapAt.Sub(*now))
		}
		s.snapAt = now.Add(time.Hour) // the SET's turn steps no slice
		// key:99999... sorts after every key the walk has reached.
		if got := m.do(c, fmt.Sprintf("SET key:9999%d x\r\n", i)); got != "+OK\r\n" {
			t.Fatalf("SET: %q", got)
		}
		if took, _ := slice(true); took < snapSlice {
			t.Errorf("slice %d, input waiting, a write ahead of the walk since the last: took %v; want the slice's length", i, took)
		}
		if took, _ := slice(false); took < snapSlice {
			t.Errorf("slice %d, no input waiting: took %v; want the slice's length", i, took)
		}
	}
}

// TestSnapPacing: a slice of a save waits as long as it took after a turn
// that served commands (the save takes at most half of a busy shard's
// thread), and not at all on a shard that served none since the last
// slice (an idle shard's save runs at the disk's speed).
func TestSnapPacing(t *testing.T) {
	m, s, c, now := savingSim(t)
	step := func() (took, wait time.Duration) {
		drainWriter(t, s)
		start := *now
		s.snapStep()
		if s.snap == nil {
			t.Fatal("the save ended: populate more keys")
		}
		return now.Sub(start), s.snapAt.Sub(*now)
	}
	for i := range 3 {
		s.snapAt = now.Add(time.Hour) // the GET's turns step no slice
		if got := m.do(c, "GET key:1\r\n"); got != "$7\r\nvalue:1\r\n" {
			t.Fatalf("GET: %q", got)
		}
		took, wait := step()
		if took < snapSlice || wait < took-10*time.Microsecond {
			t.Errorf("slice %d after a command: took %v, waits %v; want a wait as long as the slice", i, took, wait)
		}
		if _, wait := step(); wait > 0 {
			t.Errorf("slice %d with no command since the last: waits %v; want none", i, wait)
		}
	}
}

// TestSaveProgress: while a BGSAVE runs, INFO persistence counts the keys
// written against those the shard held when it began, as Redis counts
// its child's (current_save_keys_processed, current_save_keys_total,
// current_fork_perc); once it ended, zeros.
func TestSaveProgress(t *testing.T) {
	m, s, _, _ := savingSim(t)
	progress := func() (done, total int64, perc float64) {
		info := m.g.Info([]string{"persistence"})
		perc, err := strconv.ParseFloat(infoField(info, "current_fork_perc"), 64)
		if err != nil {
			t.Fatal(err)
		}
		return infoInt(t, info, "current_save_keys_processed"), infoInt(t, info, "current_save_keys_total"), perc
	}
	var last int64
	for range 3 {
		drainWriter(t, s)
		s.snapStep()
		done, total, perc := progress()
		if total != 200_000 || done <= last || done >= total || math.Abs(perc-float64(done)*100/float64(total)) > 0.01 {
			t.Fatalf("during the save: %d of %d keys, %.2f%%", done, total, perc)
		}
		last = done
	}
	for s.snap != nil {
		drainWriter(t, s)
		s.snapStep()
	}
	if done, total, perc := progress(); done != 0 || total != 0 || perc != 0 {
		t.Fatalf("after the save: %d of %d keys, %.2f%%", done, total, perc)
	}
}

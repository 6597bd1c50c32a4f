package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/persistence/rdb"
)

const testNow = int64(1_700_000_000_000)

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// populate fills s with every type in every encoding, TTLs, and keys in
// three databases.
func populate(t testing.TB, s *engine.Store) {
	t.Helper()
	for dbi, db := range []*engine.DB{s.DB(0), s.DB(1), s.DB(9)} {
		p := fmt.Sprintf("d%d:", dbi)
		k := func(n string) []byte { return []byte(p + n) }
		db.SetString(k("int"), []byte("12345"), 0, false)
		db.SetString(k("neg"), []byte("-7"), 0, false)
		db.SetString(k("embstr"), []byte("hello"), 0, false)
		db.SetString(k("raw"), bytes.Repeat([]byte("abc"), 100), 0, false)
		db.SetString(k("rand"), []byte{0, 255, 1, 254, 13, 10}, 0, false)
		db.SetString(k("empty"), nil, 0, false)
		db.SetString(k("ttl"), []byte("v"), testNow+3_600_000, false)
		db.SetString(k("gone"), []byte("v"), testNow+10, false)
		db.SetString([]byte("123"+p), []byte("key looks like a number"), 0, false)
		if _, err := db.ListPush(k("list"), bs("a", "1", "b", "-300000"), false, false, testNow); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ListPush(k("biglist"), bs(seq("element-", 2000)...), false, false, testNow); err != nil {
			t.Fatal(err)
		}
		db.SAdd(k("intset"), bs("1", "2", "-3", "99999999999"), testNow)
		db.SAdd(k("set"), bs("a", "b", "c"), testNow)
		db.SAdd(k("bigset"), bs(seq("m", 1000)...), testNow)
		db.HSet(k("hash"), bs("f1", "v1", "f2", "2"), testNow)
		db.HSet(k("bighash"), bs(seq("x", 2000)...), testNow)
		db.HSet(k("longval"), bs("f", strings.Repeat("z", 100)), testNow)
		zadd(t, db, k("zset"), 3, 1.5, 2)
		zadd(t, db, k("bigzset"), 500, 0.25, 1)
		db.SetExpiry(k("hash"), testNow+60_000, testNow)
		db.SetExpiry(k("bigzset"), testNow+120_000, testNow)
	}
}

func zadd(t testing.TB, db *engine.DB, key []byte, n int, base, step float64) {
	t.Helper()
	if _, err := db.ZAdd(key, 0, n, func(i int) (float64, []byte) {
		return base + step*float64(i%7), []byte("member" + strconv.Itoa(i))
	}, testNow); err != nil {
		t.Fatal(err)
	}
}

// contents is every live key of s at now, canonically: database, key,
// type, expiry, elements (sets and hashes sorted).
func contents(s *engine.Store, now int64) map[string]string {
	out := map[string]string{}
	for i := range s.Databases() {
		db := s.DB(i)
		var keys [][]byte
		db.Keys([]byte("*"), now, func(k []byte) bool {
			keys = append(keys, append([]byte(nil), k...))
			return true
		})
		for _, k := range keys {
			r, ok := db.Export(k, now)
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
			v := fmt.Sprintf("%v exp=%d", r.Type, r.ExpireAt)
			if r.Type == engine.TypeString {
				v += fmt.Sprintf(" %q", r.Data)
			}
			out[fmt.Sprintf("%d/%q", i, k)] = v + " " + strings.Join(el, ",")
		}
	}
	return out
}

func write(t testing.TB, s *engine.Store, opt Options, step int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(s, &b, opt)
	for {
		done, err := w.Step(testNow, step)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if w.Written() != int64(b.Len()) {
		t.Fatalf("Written %d, wrote %d", w.Written(), b.Len())
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	src := engine.NewStore(16)
	defer src.Close()
	populate(t, src)
	want := contents(src, testNow)
	for _, opt := range []Options{
		{Compress: true, Checksum: true, Time: testNow},
		{Compress: false, Checksum: false, Time: testNow},
	} {
		for _, step := range []int{1, 7, 100000} {
			file := write(t, src, opt, step)
			dst := engine.NewStore(16)
			st, err := LoadRDB(file, "f", LoadOptions{Store: dst, Now: testNow, Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if int(st.Loaded) != len(want) {
				t.Errorf("loaded %d keys, want %d", st.Loaded, len(want))
			}
			if got := contents(dst, testNow); !mapsEqual(got, want) {
				t.Errorf("opt %+v step %d: loaded contents differ:\n%s", opt, step, diff(got, want))
			}
			dst.Close()
		}
	}
}

// TestSplit loads one file into three stores by owner: together they hold
// everything, each only its own.
func TestSplit(t *testing.T) {
	src := engine.NewStore(16)
	defer src.Close()
	populate(t, src)
	file := write(t, src, Options{Compress: true, Checksum: true}, 50)
	want := contents(src, testNow)
	got := map[string]string{}
	for i := range 3 {
		dst := engine.NewStore(16)
		owns := func(k []byte) bool { return int(k[len(k)-1])%3 == i }
		if _, err := LoadRDB(file, "f", LoadOptions{Store: dst, Owns: owns, Now: testNow}); err != nil {
			t.Fatal(err)
		}
		for k, v := range contents(dst, testNow) {
			if key, _ := strconv.Unquote(k[strings.IndexByte(k, '/')+1:]); int(key[len(key)-1])%3 != i {
				t.Errorf("store %d holds %s", i, k)
			}
			got[k] = v
		}
		dst.Close()
	}
	if !mapsEqual(got, want) {
		t.Errorf("split load differs:\n%s", diff(got, want))
	}
}

// TestExpiredDropped: a key whose TTL passed by the load is not stored.
func TestExpiredDropped(t *testing.T) {
	src := engine.NewStore(1)
	defer src.Close()
	src.DB(0).SetString([]byte("soon"), []byte("v"), testNow+1000, false)
	src.DB(0).SetString([]byte("later"), []byte("v"), testNow+5000, false)
	file := write(t, src, Options{Checksum: true}, 10)
	dst := engine.NewStore(1)
	defer dst.Close()
	st, err := LoadRDB(file, "f", LoadOptions{Store: dst, Now: testNow + 2000})
	if err != nil {
		t.Fatal(err)
	}
	if st.Loaded != 1 || st.Expired != 1 || dst.DB(0).Exists([]byte("soon"), testNow) {
		t.Errorf("loaded %+v; soon exists: %v", st, dst.DB(0).Exists([]byte("soon"), testNow))
	}
}

// TestLoadOrder: keys out of order, repeated, in a database selected
// twice, and into a database that holds keys already: each key ends with
// the file's last value for it, once (a key past the last one loaded
// into an empty database is linked in without a lookup).
func TestLoadOrder(t *testing.T) {
	enc := rdb.NewEncoder(engine.Limits{})
	file := []byte("REDIS0010")
	sel := func(db byte) { file = append(file, opSelectDB, db) }
	set := func(k, v string) {
		file = append(file, rdb.TypeString)
		file = enc.AppendString(file, []byte(k))
		file = enc.AppendString(file, []byte(v))
	}
	sel(0)
	set("b", "1")
	set("d", "1")
	set("a", "1")
	set("d", "2")
	set("e", "1")
	sel(1)
	set("x", "1")
	sel(0)
	set("f", "1")
	set("b", "2")
	sel(2)
	set("m", "1")
	set("n", "2")
	file = append(file, opEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	dst := engine.NewStore(3)
	defer dst.Close()
	dst.DB(2).SetString([]byte("n"), []byte("0"), 0, false)
	dst.DB(2).SetString([]byte("z"), []byte("0"), 0, false)
	if _, err := LoadRDB(file, "f", LoadOptions{Store: dst, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for k, v := range map[string]string{"0/a": "1", "0/b": "2", "0/d": "2", "0/e": "1", "0/f": "1", "1/x": "1",
		"2/m": "1", "2/n": "2", "2/z": "0"} {
		want[fmt.Sprintf("%s/%q", k[:1], k[2:])] = fmt.Sprintf("string exp=0 %q ", v)
	}
	if got := contents(dst, testNow); !mapsEqual(got, want) {
		t.Errorf("loaded:\n%s", diff(got, want))
	}
	for i, n := range []int{5, 1, 3} {
		if got := dst.DB(i).Len(); got != n {
			t.Errorf("database %d holds %d keys, want %d", i, got, n)
		}
	}
}

// TestCorrupt: every truncation and a flipped byte anywhere is an error
// naming the file and an offset, never a panic.
func TestCorrupt(t *testing.T) {
	src := engine.NewStore(16)
	defer src.Close()
	populate(t, src)
	file := write(t, src, Options{Compress: true, Checksum: true}, 1000)
	check := func(b []byte, what string) {
		dst := engine.NewStore(16)
		defer dst.Close()
		_, err := LoadRDB(b, "shard.rdb", LoadOptions{Store: dst, Now: testNow, Verify: true})
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.File != "shard.rdb" || ce.Offset < 0 || ce.Offset > len(b) {
			t.Fatalf("%s: err = %v", what, err)
		}
		if !strings.Contains(err.Error(), "shard.rdb") || !strings.Contains(err.Error(), "offset") {
			t.Fatalf("%s: message %q names no file or offset", what, err)
		}
	}
	for n := 0; n < len(file); n += 1 + n/10 {
		check(file[:n], fmt.Sprintf("truncated at %d", n))
	}
	for i := 9; i < len(file); i += 1 + i/10 {
		b := slices.Clone(file)
		b[i] ^= 0x20
		check(b, fmt.Sprintf("byte %d flipped", i))
	}
	b := slices.Clone(file)
	b[len(b)-1] ^= 1
	check(b, "checksum")
	check(append([]byte("REDIS0013"), file[9:]...), "version 13")
	check(append([]byte("RADISH"), file[6:]...), "magic")
}

func TestManifest(t *testing.T) {
	m := &Manifest{Generation: 42, Files: []File{{"dump.rdb.42.0.rdb", 10}, {"dump.rdb.42.1.rdb", 0}}}
	text := m.Marshal()
	got, err := ParseManifest(text)
	if err != nil || got.Generation != 42 || !slices.Equal(got.Files, m.Files) {
		t.Fatalf("ParseManifest = %+v, %v", got, err)
	}
	for n := 0; n < len(text); n++ {
		if _, err := ParseManifest(text[:n]); err == nil {
			t.Errorf("a manifest cut at %d parsed", n)
		}
	}
	for _, bad := range []string{
		strings.Replace(string(text), "shards 2", "shards 3", 1),
		strings.Replace(string(text), "file dump.rdb.42.0.rdb", "file ../x", 1),
		strings.Replace(string(text), " 10\n", " -1\n", 1),
	} {
		if _, err := ParseManifest([]byte(bad)); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
}

// TestSaveGenerations writes two generations through Save and checks the
// layout on disk after each: the manifest names the new files, the old
// ones and strays of a crashed save are gone, others' files stay.
func TestSaveGenerations(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"dump.rdb.9.0.rdb.tmp", "dump.rdb.9.manifest.tmp", "dump.rdb.keep", "other.1.0.rdb"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	src := engine.NewStore(16)
	defer src.Close()
	populate(t, src)
	for gen := uint64(1); gen <= 2; gen++ {
		sv, err := BeginSave(dir, "dump.rdb", 2)
		if err != nil || sv.Generation() != gen {
			t.Fatalf("BeginSave: generation %d, %v", sv.Generation(), err)
		}
		sizes := make([]int64, 2)
		for i := range 2 {
			f, err := sv.Create(i)
			if err != nil {
				t.Fatal(err)
			}
			w := NewWriter(src, f, Options{Checksum: true})
			if err := w.WriteAll(testNow); err != nil {
				t.Fatal(err)
			}
			sizes[i] = w.Written()
			if err := sv.Close(i, f); err != nil {
				t.Fatal(err)
			}
		}
		if err := sv.Commit(sizes); err != nil {
			t.Fatal(err)
		}
		var names []string
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		want := []string{"dump.rdb", fmt.Sprintf("dump.rdb.%d.0.rdb", gen), fmt.Sprintf("dump.rdb.%d.1.rdb", gen), "dump.rdb.keep", "other.1.0.rdb"}
		if !slices.Equal(names, want) {
			t.Errorf("generation %d: dir holds %v, want %v", gen, names, want)
		}
		s, err := Open(dir, "dump.rdb")
		if err != nil || s.Manifest.Generation != gen || len(s.Images) != 2 {
			t.Fatalf("Open: %+v, %v", s, err)
		}
		for _, im := range s.Images {
			dst := engine.NewStore(16)
			if _, err := LoadRDB(im.Data, im.Name, LoadOptions{Store: dst, Now: testNow, Verify: true}); err != nil {
				t.Fatal(err)
			}
			dst.Close()
		}
		s.Close()
	}
	// A file of the wrong size is refused.
	os.WriteFile(filepath.Join(dir, "dump.rdb.2.1.rdb"), []byte("REDIS0010"), 0o644)
	if _, err := Open(dir, "dump.rdb"); err == nil || !strings.Contains(err.Error(), "dump.rdb.2.1.rdb") {
		t.Errorf("Open of a short file: %v", err)
	}
	if s, err := Open(t.TempDir(), "dump.rdb"); s != nil || err != nil {
		t.Errorf("Open of nothing: %v, %v", s, err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diff(got, want map[string]string) string {
	var b strings.Builder
	n := 0
	for k, v := range want {
		if got[k] != v && n < 10 {
			fmt.Fprintf(&b, "%s: got %.200s\n   want %.200s\n", k, got[k], v)
			n++
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && n < 10 {
			fmt.Fprintf(&b, "%s: extra\n", k)
			n++
		}
	}
	return b.String()
}

// TestPointInTime writes a file in small steps while the store changes
// between them (overwrites, deletes, expiries, new keys, collection
// changes, in every database), each change preceded by Before as a shard
// does during BGSAVE: the file holds the keyspace as it was at the start.
func TestPointInTime(t *testing.T) {
	for seed := range 5 {
		src := engine.NewStore(16)
		populate(t, src)
		want := contents(src, testNow)
		var names [][2]any // (db, key) of every key at the start, and some new ones
		for k := range want {
			i := strings.IndexByte(k, '/')
			db, _ := strconv.Atoi(k[:i])
			key, _ := strconv.Unquote(k[i+1:])
			names = append(names, [2]any{db, key})
		}
		slices.SortFunc(names, func(a, b [2]any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for i := range 20 {
			names = append(names, [2]any{[]int{0, 1, 9, 4}[i%4], fmt.Sprintf("new%d", i)})
		}
		var b bytes.Buffer
		w := NewWriter(src, &b, Options{Checksum: true, Compress: true})
		r := uint64(seed*7919 + 1)
		rnd := func(n int) int {
			r ^= r << 13
			r ^= r >> 7
			r ^= r << 17
			return int(r % uint64(n))
		}
		for step := 0; ; step++ {
			done, err := w.Step(testNow, 1+rnd(4))
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
			for range 1 + rnd(6) {
				nk := names[rnd(len(names))]
				dbi, key := nk[0].(int), []byte(nk[1].(string))
				w.Before(dbi, key, testNow)
				db := src.DB(dbi)
				switch rnd(8) {
				case 0:
					db.SetString(key, []byte("overwritten"), 0, false)
				case 1:
					db.Delete(key, testNow)
				case 2:
					db.SetExpiry(key, testNow+1, testNow) // gone before any load
				case 3:
					db.SetExpiry(key, testNow+999_999, testNow)
				case 4:
					db.SAdd(key, bs("added", strconv.Itoa(step)), testNow)
				case 5:
					db.ListPush(key, bs("pushed"), rnd(2) == 0, false, testNow)
				case 6:
					db.HSet(key, bs("f1", "changed", "new", "x"), testNow)
				default:
					db.ZAdd(key, 0, 1, func(int) (float64, []byte) { return float64(step), []byte("zm") }, testNow)
				}
			}
		}
		dst := engine.NewStore(16)
		if _, err := LoadRDB(b.Bytes(), "f", LoadOptions{Store: dst, Now: testNow, Verify: true}); err != nil {
			t.Fatal(err)
		}
		if got := contents(dst, testNow); !mapsEqual(got, want) {
			t.Errorf("seed %d: the file is not the keyspace at the start:\n%s", seed, diff(got, want))
		}
		if w.Early() != 0 {
			t.Errorf("seed %d: %d keys still held for the walk", seed, w.Early())
		}
		src.Close()
		dst.Close()
	}
}

// TestPointInTimeEviction: keys evicted while the file is written in steps
// are in it, through engine.Store.BeforeEvict.
func TestPointInTimeEviction(t *testing.T) {
	for _, policy := range []engine.Policy{engine.AllKeysRandom, engine.AllKeysLRU, engine.VolatileTTL} {
		src := engine.NewStore(16)
		populate(t, src)
		for i := range 3000 {
			src.DB(2).SetString([]byte("filler"+strconv.Itoa(i)), bytes.Repeat([]byte("f"), 100), testNow+int64(i)*1000+5000, false)
		}
		want := contents(src, testNow)
		var b bytes.Buffer
		w := NewWriter(src, &b, Options{Checksum: true})
		src.BeforeEvict = func(db int, key []byte) { w.Before(db, key, testNow) }
		src.SetMaxMemory(src.UsedMemory()/2, policy, 5)
		evicted := 0
		for {
			done, err := w.Step(testNow, 50)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
			n, _ := src.Evict(testNow)
			evicted += n
		}
		if evicted == 0 {
			t.Fatalf("%v: nothing evicted", policy)
		}
		dst := engine.NewStore(16)
		if _, err := LoadRDB(b.Bytes(), "f", LoadOptions{Store: dst, Now: testNow, Verify: true}); err != nil {
			t.Fatal(err)
		}
		if got := contents(dst, testNow); !mapsEqual(got, want) {
			t.Errorf("%v: %d evicted; the file is not the keyspace at the start:\n%s", policy, evicted, diff(got, want))
		}
		src.Close()
		dst.Close()
	}
}

// TestFunctions: the FUNCTION libraries a Writer is given come back to a
// load's Function, in order, beside the keys; a load without Function
// skips them, and Function's error fails the load.
func TestFunctions(t *testing.T) {
	src := engine.NewStore(16)
	defer src.Close()
	populate(t, src)
	codes := [][]byte{[]byte("#!lua name=a\n" + strings.Repeat("-- padding\n", 10)), []byte("#!lua name=b\n")}
	file := write(t, src, Options{Compress: true, Checksum: true, Functions: codes}, 7)
	var got [][]byte
	dst := engine.NewStore(16)
	defer dst.Close()
	if _, err := LoadRDB(file, "f", LoadOptions{Store: dst, Now: testNow, Verify: true, Function: func(c []byte) error {
		got = append(got, c)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, codes, bytes.Equal) {
		t.Errorf("functions %q, want %q", got, codes)
	}
	if c, w := contents(dst, testNow), contents(src, testNow); !mapsEqual(c, w) {
		t.Errorf("keys differ:\n%s", diff(c, w))
	}
	if _, err := LoadRDB(file, "f", LoadOptions{Store: engine.NewStore(16), Now: testNow}); err != nil {
		t.Errorf("a load without Function: %v", err)
	}
	boom := errors.New("boom")
	_, err := LoadRDB(file, "f", LoadOptions{Store: engine.NewStore(16), Now: testNow, Function: func([]byte) error { return boom }})
	if !errors.Is(err, boom) {
		t.Errorf("Function's error: %v", err)
	}
}

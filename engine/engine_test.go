package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func newTestDB(t testing.TB) (*Store, *DB) {
	s := NewStore(16)
	t.Cleanup(s.Close)
	return s, s.DB(0)
}

func TestStringEncodings(t *testing.T) {
	_, db := newTestDB(t)
	long := bytes.Repeat([]byte("x"), 300)
	cases := []struct {
		val  []byte
		enc  string
		slen int
	}{
		{[]byte("123"), "int", 3},
		{[]byte("-9223372036854775808"), "int", 20},
		{[]byte("9223372036854775807"), "int", 19},
		{[]byte("9223372036854775808"), "embstr", 19},
		{[]byte("0"), "int", 1},
		{[]byte("-0"), "embstr", 2},
		{[]byte("007"), "embstr", 3},
		{[]byte("+1"), "embstr", 2},
		{[]byte(""), "embstr", 0},
		{[]byte("hello"), "embstr", 5},
		{bytes.Repeat([]byte("y"), 44), "embstr", 44},
		{bytes.Repeat([]byte("y"), 45), "raw", 45},
		{long, "raw", 300},
	}
	for _, c := range cases {
		db.SetString([]byte("k"), c.val, 0, false)
		got, found, err := db.GetString([]byte("k"), 0)
		if !found || err != nil || !bytes.Equal(got, c.val) {
			t.Errorf("GET after SET %q = %q %v %v", c.val, got, found, err)
		}
		if enc, _ := db.Encoding([]byte("k"), 0); enc != c.enc {
			t.Errorf("encoding of %q = %s, want %s", c.val, enc, c.enc)
		}
		if n, _ := db.StrLen([]byte("k"), 0); n != c.slen {
			t.Errorf("STRLEN %q = %d", c.val, n)
		}
	}
	if db.Len() != 1 {
		t.Errorf("Len = %d", db.Len())
	}
}

func TestIncrAppend(t *testing.T) {
	_, db := newTestDB(t)
	k := []byte("n")
	steps := []struct {
		op    string
		arg   string
		want  string
		err   error
		value string
	}{
		{"incr", "5", "5", nil, "5"},
		{"incr", "-7", "-2", nil, "-2"},
		{"append", "3", "3", nil, "-23"},
		{"incr", "1", "-22", nil, "-22"},
		{"set", "9223372036854775807", "", nil, "9223372036854775807"},
		{"incr", "1", "", ErrOverflow, "9223372036854775807"},
		{"set", "abc", "", nil, "abc"},
		{"incr", "1", "", ErrNotInteger, "abc"},
		{"append", "def", "6", nil, "abcdef"},
		{"set", " 1", "", nil, " 1"},
		{"incr", "1", "", ErrNotInteger, " 1"},
	}
	for i, s := range steps {
		switch s.op {
		case "incr":
			d, _ := strconv.ParseInt(s.arg, 10, 64)
			n, err := db.IncrBy(k, d, 0)
			if err != s.err || (err == nil && strconv.FormatInt(n, 10) != s.want) {
				t.Fatalf("step %d: INCRBY %s = %d %v", i, s.arg, n, err)
			}
		case "append":
			n, err := db.Append(k, []byte(s.arg), 0)
			if err != s.err || strconv.Itoa(n) != s.want {
				t.Fatalf("step %d: APPEND = %d %v", i, n, err)
			}
		case "set":
			db.SetString(k, []byte(s.arg), 0, false)
		}
		if got, _, _ := db.GetString(k, 0); string(got) != s.value {
			t.Fatalf("step %d: value %q, want %q", i, got, s.value)
		}
	}
	db.Append(k, []byte("1"), 0)
	if enc, _ := db.Encoding(k, 0); enc != "raw" {
		t.Errorf("after APPEND encoding %s", enc)
	}
	// APPEND growing across the inline limit, aliasing its own value.
	db.SetString(k, []byte("ab"), 0, false)
	for i := 0; i < 10; i++ {
		v, _, _ := db.GetString(k, 0)
		if _, err := db.Append(k, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	v, _, _ := db.GetString(k, 0)
	if want := bytes.Repeat([]byte("ab"), 1024); !bytes.Equal(v, want) {
		t.Fatalf("self-append: len %d", len(v))
	}
	// SET of a value this Store returned (aliasing the leaf) with a TTL change.
	db.SetString(k, []byte("short"), 0, false)
	v, _, _ = db.GetString(k, 0)
	db.SetString(k, v, 100, false)
	if got, _, _ := db.GetString(k, 0); string(got) != "short" {
		t.Fatalf("aliasing SET: %q", got)
	}
}

func TestWrongType(t *testing.T) {
	_, db := newTestDB(t)
	db.Import([]byte("h"), Record{Type: TypeHash, Data: []byte("\x01\x01f\x01v")})
	if _, _, err := db.GetString([]byte("h"), 0); err != ErrWrongType {
		t.Errorf("GET hash: %v", err)
	}
	if _, err := db.IncrBy([]byte("h"), 1, 0); err != ErrWrongType {
		t.Errorf("INCR hash: %v", err)
	}
	if _, err := db.Append([]byte("h"), []byte("x"), 0); err != ErrWrongType {
		t.Errorf("APPEND hash: %v", err)
	}
	if typ := db.TypeOf([]byte("h"), 0); typ != TypeHash || typ.String() != "hash" {
		t.Errorf("TYPE = %v", typ)
	}
	db.SetString([]byte("h"), []byte("s"), 0, false)
	if typ := db.TypeOf([]byte("h"), 0); typ != TypeString {
		t.Errorf("SET over hash: %v", typ)
	}
}

func TestExpiry(t *testing.T) {
	_, db := newTestDB(t)
	k := []byte("k")
	db.SetString(k, []byte("v"), 1000, false)
	if exp, ok := db.Expiry(k, 500); !ok || exp != 1000 {
		t.Fatalf("Expiry = %d %v", exp, ok)
	}
	if db.ExpiresLen() != 1 {
		t.Fatalf("ExpiresLen %d", db.ExpiresLen())
	}
	// KEEPTTL keeps it; a plain SET drops it.
	db.SetString(k, []byte("v2"), 0, true)
	if exp, _ := db.Expiry(k, 500); exp != 1000 {
		t.Fatalf("KEEPTTL lost the TTL: %d", exp)
	}
	if !db.Persist(k, 500) || db.Persist(k, 500) {
		t.Fatal("PERSIST")
	}
	if exp, _ := db.Expiry(k, 500); exp != 0 || db.ExpiresLen() != 0 {
		t.Fatalf("after PERSIST: %d %d", exp, db.ExpiresLen())
	}
	if !db.SetExpiry(k, 2000, 500) {
		t.Fatal("SetExpiry")
	}
	if db.Exists(k, 1999) != true || db.Exists(k, 2000) != false {
		t.Fatal("expiry boundary: expireAt <= now is absent")
	}
	if db.Len() != 0 || db.ExpiresLen() != 0 {
		t.Fatalf("expired key not deleted lazily: %d %d", db.Len(), db.ExpiresLen())
	}
	if db.SetExpiry(k, 5000, 3000) {
		t.Fatal("SetExpiry of an absent key")
	}
	db.SetString(k, []byte("v"), 0, false)
	if !db.SetExpiry(k, 2999, 3000) || db.Exists(k, 3000) {
		t.Fatal("SetExpiry in the past must delete")
	}
	// Active expiry finds TTL keys through the slab tags.
	s := db.s
	for i := 0; i < 100; i++ {
		db.SetString([]byte(fmt.Sprint("t", i)), []byte("v"), 4000+int64(i%2)*10000, false)
	}
	total := 0
	for i := 0; i < 200 && db.Len() > 50; i++ {
		_, e := s.ActiveExpire(5000, 20)
		total += e
	}
	if db.Len() != 50 || total != 50 || db.ExpiresLen() != 50 {
		t.Fatalf("ActiveExpire: len %d expired %d expires %d", db.Len(), total, db.ExpiresLen())
	}
}

func TestRename(t *testing.T) {
	_, db := newTestDB(t)
	long := bytes.Repeat([]byte("L"), 1000)
	db.SetString([]byte("a"), long, 900, false)
	db.SetString([]byte("b"), []byte("old"), 0, false)
	if !db.Rename([]byte("a"), []byte("b"), 0) {
		t.Fatal("RENAME")
	}
	if db.Exists([]byte("a"), 0) {
		t.Fatal("src still there")
	}
	if v, _, _ := db.GetString([]byte("b"), 0); !bytes.Equal(v, long) {
		t.Fatal("dst value")
	}
	if exp, _ := db.Expiry([]byte("b"), 0); exp != 900 {
		t.Fatalf("TTL not kept: %d", exp)
	}
	if db.Len() != 1 || db.ExpiresLen() != 1 {
		t.Fatalf("counts %d %d", db.Len(), db.ExpiresLen())
	}
	if db.Rename([]byte("zz"), []byte("b"), 0) {
		t.Fatal("RENAME of absent src")
	}
	if !db.Rename([]byte("b"), []byte("b"), 0) {
		t.Fatal("RENAME to itself")
	}
	db.Delete([]byte("b"), 0)
	if db.s.SlabLive() != 0 {
		t.Fatalf("%d blocks leaked", db.s.SlabLive())
	}
}

// TestTreeShapes grows and shrinks nodes through every kind and checks the
// invariants, contents and order at each step.
func TestTreeShapes(t *testing.T) {
	s, db := newTestDB(t)
	var keys []string
	for i := 0; i < 256; i++ {
		keys = append(keys, "p:"+string(rune('a'+i%26))+string([]byte{byte(i)}))
		keys = append(keys, "q"+string([]byte{byte(i)}))
	}
	keys = append(keys, "", "p", "p:", "q", "qq\x00")
	for i, k := range keys {
		db.SetString([]byte(k), []byte(k), 0, false)
		if i%17 == 0 {
			if err := checkDB(db); err != nil {
				t.Fatalf("insert %d: %v", i, err)
			}
		}
	}
	if err := checkDB(db); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(keys)
	slices.Sort(want)
	want = slices.Compact(want)
	var got []string
	db.Keys([]byte("*"), 0, func(k []byte) bool {
		got = append(got, string(k))
		return true
	})
	if !slices.Equal(got, want) {
		t.Fatalf("KEYS * order/contents differ: %d vs %d keys", len(got), len(want))
	}
	for i, k := range want {
		if !db.Delete([]byte(k), 0) {
			t.Fatalf("DEL %q", k)
		}
		if err := checkDB(db); err != nil {
			t.Fatalf("delete %d %q: %v", i, k, err)
		}
	}
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks leaked", s.SlabLive())
	}
}

func TestKeysPatterns(t *testing.T) {
	_, db := newTestDB(t)
	for _, k := range []string{"", "hello", "hallo", "hxllo", "hllo", "heeeello", "user:1", "user:2", "user:10", "users", "a*b", `a\b`} {
		db.SetString([]byte(k), []byte("v"), 0, false)
	}
	db.SetString([]byte("gone"), []byte("v"), 5, false)
	cases := []struct {
		pattern string
		want    []string
	}{
		{"*", []string{"", "a*b", `a\b`, "gone", "hallo", "heeeello", "hello", "hllo", "hxllo", "user:1", "user:10", "user:2", "users"}},
		{"h?llo", []string{"hallo", "hello", "hxllo"}},
		{"h*llo", []string{"hallo", "heeeello", "hello", "hllo", "hxllo"}},
		{"h[ae]llo", []string{"hallo", "hello"}},
		{"h[^e]llo", []string{"hallo", "hxllo"}},
		{"h[a-b]llo", []string{"hallo"}},
		{"user:?", []string{"user:1", "user:2"}},
		{"user:*", []string{"user:1", "user:10", "user:2"}},
		{"a\\*b", []string{"a*b"}},
		{"a\\", nil},
		{`a\\b`, []string{`a\b`}},
		{"", []string{""}},
		{"**", []string{"a*b", `a\b`, "hallo", "heeeello", "hello", "hllo", "hxllo", "user:1", "user:10", "user:2", "users"}},
		{"[", nil},
		{"nothing*", nil},
	}
	for _, c := range cases {
		var got []string
		now := int64(0)
		if c.pattern != "*" {
			now = 10 // "gone" has expired
		}
		db.Keys([]byte(c.pattern), now, func(k []byte) bool {
			got = append(got, string(k))
			return true
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("KEYS %q = %q, want %q", c.pattern, got, c.want)
		}
	}
}

func TestScanCursorTable(t *testing.T) {
	_, db := newTestDB(t)
	const n = 3000
	for i := 0; i < n; i++ {
		db.SetString([]byte(fmt.Sprintf("key:%05d", i)), []byte("v"), 0, false)
	}
	// Many interleaved scans push the first cursor out of the ring, then its
	// key is deleted: the cursor restarts from the beginning (duplicates,
	// no skips).
	var first []string
	cur := db.Scan(0, 5, nil, TypeNone, 0, func(k []byte) { first = append(first, string(k)) })
	if cur == 0 || cur >= 1<<56 || len(first) != 5 {
		t.Fatalf("first call: cur %x, %d keys", cur, len(first))
	}
	// Still in the ring, key deleted: resumes exactly after it.
	db.Delete([]byte(first[4]), 0)
	var next []string
	db.Scan(cur, 1, nil, TypeNone, 0, func(k []byte) { next = append(next, string(k)) })
	if len(next) != 1 || next[0] != "key:00005" {
		t.Fatalf("resume after deleted key: %q", next)
	}
	// Out of the ring but the leaf lives: resumes after it.
	cur2 := db.Scan(0, 7, nil, TypeNone, 0, func([]byte) {})
	for i := 0; i < cursorRing; i++ {
		db.Scan(0, 1, nil, TypeNone, 0, func([]byte) {})
	}
	next = next[:0]
	db.Scan(cur2, 1, nil, TypeNone, 0, func(k []byte) { next = append(next, string(k)) })
	if len(next) != 1 || next[0] != "key:00008" {
		t.Fatalf("resume via leaf: %q", next)
	}
	// Out of the ring and the leaf gone: restart.
	db.Delete([]byte("key:00008"), 0)
	cur3 := db.Scan(0, 8, nil, TypeNone, 0, func([]byte) {})
	for i := 0; i < cursorRing; i++ {
		db.Scan(0, 1, nil, TypeNone, 0, func([]byte) {})
	}
	db.Delete([]byte("key:00009"), 0)
	next = next[:0]
	db.Scan(cur3, 1, nil, TypeNone, 0, func(k []byte) { next = append(next, string(k)) })
	if len(next) != 1 || next[0] != "key:00000" {
		t.Fatalf("restart: %q", next)
	}
	// TYPE and MATCH filters; COUNT counts examined keys.
	db.Import([]byte("key:00001x"), Record{Type: TypeSet, Data: []byte("\x01\x01x")})
	var got []string
	for c := uint64(0); ; {
		c = db.Scan(c, 100, []byte("key:0000[0-2]*"), TypeSet, 0, func(k []byte) { got = append(got, string(k)) })
		if c == 0 {
			break
		}
	}
	if !slices.Equal(got, []string{"key:00001x"}) {
		t.Fatalf("SCAN TYPE set = %q", got)
	}
}

func TestRandomKeyAndDatabases(t *testing.T) {
	s, db := newTestDB(t)
	if _, ok := db.RandomKey(0); ok {
		t.Fatal("RandomKey of an empty DB")
	}
	other := s.DB(3)
	for i := 0; i < 1000; i++ {
		other.SetString([]byte(fmt.Sprint("o", i)), []byte("v"), 0, false)
	}
	db.SetString([]byte("mine"), []byte("v"), 0, false)
	for i := 0; i < 20; i++ {
		if k, ok := db.RandomKey(0); !ok || string(k) != "mine" {
			t.Fatalf("RandomKey = %q %v", k, ok)
		}
	}
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		k, _ := other.RandomKey(0)
		seen[string(k)] = true
	}
	if len(seen) < 500 {
		t.Fatalf("RandomKey reached only %d of 1000 keys", len(seen))
	}
	s.SwapDB(0, 3)
	if db.Len() != 1000 || other.Len() != 1 || !other.Exists([]byte("mine"), 0) {
		t.Fatal("SwapDB")
	}
	other.Flush()
	if other.Len() != 0 || db.Len() != 1000 {
		t.Fatal("FLUSHDB touched another DB")
	}
	used := s.UsedMemory()
	if used <= 0 {
		t.Fatal("UsedMemory")
	}
	db.Flush()
	if s.SlabLive() != 0 {
		t.Fatal("Flush left blocks")
	}
	if s.UsedMemory() >= used {
		t.Fatal("UsedMemory did not drop")
	}
}

func TestAscend(t *testing.T) {
	_, db := newTestDB(t)
	for _, k := range []string{"a", "ab", "abc", "abd", "b", "ba"} {
		db.SetString([]byte(k), nil, 0, false)
	}
	var got []string
	db.Ascend([]byte("abc"), []byte("ab"), 0, func(k []byte) bool {
		got = append(got, string(k))
		return true
	})
	if !slices.Equal(got, []string{"abc", "abd"}) {
		t.Fatalf("Ascend = %q", got)
	}
	got = got[:0]
	db.Ascend([]byte("aa"), nil, 0, func(k []byte) bool {
		got = append(got, string(k))
		return len(got) < 3
	})
	if !slices.Equal(got, []string{"ab", "abc", "abd"}) {
		t.Fatalf("Ascend from = %q", got)
	}
}

func TestZeroAllocs(t *testing.T) {
	_, db := newTestDB(t)
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%d", i))
		db.SetString(keys[i], []byte(fmt.Sprintf("value:%d", i)), 0, false)
	}
	val := []byte("value:xxxx")
	i := 0
	if a := testing.AllocsPerRun(1000, func() {
		db.GetString(keys[i%1000], 0)
		i++
	}); a != 0 {
		t.Errorf("GET allocs %v", a)
	}
	if a := testing.AllocsPerRun(1000, func() {
		db.SetString(keys[i%1000], val, 0, false)
		i++
	}); a != 0 {
		t.Errorf("SET existing allocs %v", a)
	}
	db.SetString([]byte("n"), []byte("1"), 0, false)
	if a := testing.AllocsPerRun(1000, func() {
		db.IncrBy([]byte("n"), 1, 0)
		db.GetString([]byte("n"), 0)
	}); a != 0 {
		t.Errorf("INCR+GET allocs %v", a)
	}
}

// TestBigKeysAndValues covers multi-byte key lengths, keys in the slab's
// large class and values in external blocks of every size.
func TestBigKeysAndValues(t *testing.T) {
	s, db := newTestDB(t)
	keys := [][]byte{
		bytes.Repeat([]byte("k"), 200),
		append(bytes.Repeat([]byte("k"), 200), 'x'),
		bytes.Repeat([]byte("k"), 70_000),
		bytes.Repeat([]byte("q"), 130),
	}
	vals := [][]byte{nil, []byte("12"), bytes.Repeat([]byte("v"), 300), bytes.Repeat([]byte("w"), 1<<20)}
	for _, k := range keys {
		for i, v := range vals {
			db.SetString(k, v, int64(i%2)*1e12, false)
			if got, _, _ := db.GetString(k, 0); !bytes.Equal(got, v) {
				t.Fatalf("key len %d value len %d: got len %d", len(k), len(v), len(got))
			}
			if err := checkDB(db); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := db.Append(k, []byte("tail"), 0); err != nil || n != 1<<20+4 {
			t.Fatalf("APPEND: %d %v", n, err)
		}
	}
	var got int
	db.Keys([]byte("k*"), 0, func(k []byte) bool { got++; return true })
	if got != 3 {
		t.Fatalf("KEYS k* = %d", got)
	}
	if !db.Rename(keys[2], []byte("short"), 0) {
		t.Fatal("RENAME")
	}
	for _, k := range append(keys, []byte("short")) {
		db.Delete(k, 0)
	}
	if db.Len() != 0 || s.SlabLive() != 0 {
		t.Fatalf("len %d live blocks %d", db.Len(), s.SlabLive())
	}
}

// TestEncodingsKept: SETRANGE's result stays raw and INCRBYFLOAT's stays a
// string whatever its bytes; a set, hash or sorted set that reached its
// large encoding keeps it when shrunk; and Export/Import (RENAME, COPY, MOVE
// across shards) keep every encoding, as Redis keeps the moved object's.
func TestEncodingsKept(t *testing.T) {
	_, db := newTestDB(t)
	db.SetRawString([]byte("r"), []byte("12"))
	db.SetTextString([]byte("f"), []byte("1005"))
	db.SetString([]byte("i"), []byte("12"), 0, false)
	db.SetString([]byte("e"), []byte("abc"), 0, false)
	bs := func(s ...string) [][]byte {
		var b [][]byte
		for _, x := range s {
			b = append(b, []byte(x))
		}
		return b
	}
	db.SAdd([]byte("S"), bs("abc", "0", "-3"), 0)
	db.SRem([]byte("S"), bs("abc"), 0)
	db.SAdd([]byte("s"), bs("0", "-3"), 0)
	long := strings.Repeat("x", 100)
	db.HSet([]byte("H"), bs("f", long, "g", "1"), 0)
	db.HDel([]byte("H"), bs("f"), 0)
	db.ZAdd([]byte("Z"), 0, 2, func(i int) (float64, []byte) { return 1, []byte(long[i:]) }, 0)
	db.ZRem([]byte("Z"), bs(long), 0)
	for key, want := range map[string]string{"r": "raw", "f": "embstr", "i": "int", "e": "embstr",
		"S": "hashtable", "s": "intset", "H": "hashtable", "Z": "skiplist"} {
		rec, ok := db.Export([]byte(key), 0)
		if !ok {
			t.Fatalf("Export %s", key)
		}
		db.Import([]byte(key+"2"), rec)
		for _, k := range []string{key, key + "2"} {
			if got, _ := db.Encoding([]byte(k), 0); got != want {
				t.Errorf("OBJECT ENCODING %s = %s, want %s", k, got, want)
			}
		}
	}
}

// TestPrefetch: a walk toward every present key ends on a leaf, walks
// toward absent keys may stop early, and nothing changes.
func TestPrefetch(t *testing.T) {
	_, db := newTestDB(t)
	if n := db.Prefetch([][]byte{[]byte("a")}); n != 0 {
		t.Fatalf("empty tree: %d leaves", n)
	}
	db.SetString([]byte("key:"), []byte("end"), 0, false) // an end leaf
	keys := [][]byte{[]byte("key:")}
	for i := 0; i < 5000; i++ {
		k := fmt.Appendf(nil, "key:%d", i*7)
		db.SetString(k, []byte("v"), 0, false)
		if i%160 == 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) != PrefetchMax+1 {
		t.Fatalf("%d keys", len(keys))
	}
	if n := db.Prefetch(keys); n != PrefetchMax {
		t.Fatalf("present keys: %d leaves, want %d (the first %d keys)", n, PrefetchMax, PrefetchMax)
	}
	absent := [][]byte{[]byte("zzz"), []byte("key:1x"), []byte(""), []byte("key:00000000000000")}
	if n := db.Prefetch(absent); n > len(absent) {
		t.Fatalf("absent keys: %d leaves", n)
	}
	if err := checkDB(db); err != nil {
		t.Fatal(err)
	}
	if db.Len() != 5001 {
		t.Fatalf("Len = %d", db.Len())
	}
}

// TestWalkCache: after a Prefetch, lookups of the same key slices come from
// the walk cache, and whatever happens in between (inserts that grow or
// split nodes, deletes that shrink them, values that move their leaf,
// renames, SWAPDB, FLUSHDB, FLUSHALL), a lookup returns what a walk of the
// tree returns.
func TestWalkCache(t *testing.T) {
	s, db := newTestDB(t)
	r := rand.New(rand.NewPCG(7, 7))
	// Each key keeps one address, as a key in a request buffer does.
	keys := make([][]byte, 300)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "k:%d", r.IntN(1000))
	}
	key := func() []byte { return keys[r.IntN(len(keys))] }
	var batch [][]byte
	hits := 0
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(100); {
		case op < 40:
			db.SetString(key(), bytes.Repeat([]byte("v"), r.IntN(300)), 0, false)
		case op < 60:
			db.Delete(key(), 0)
		case op < 65:
			db.Rename(key(), key(), 0)
		case op < 66:
			s.SwapDB(0, 1)
		case op == 66 && r.IntN(10) == 0:
			db.Flush()
		case op == 67 && r.IntN(10) == 0:
			s.FlushAll()
		case op < 90:
			batch = batch[:0]
			for range PrefetchMax {
				batch = append(batch, key())
			}
			db.Prefetch(batch)
			for _, k := range batch {
				if _, _, p := db.cachedLeaf(k); p != nil {
					hits++
				}
			}
		}
		for _, k := range batch {
			ref, h, p := db.lookupLeaf(k)
			wref, wh, wp := db.walkLeaf(k)
			if ref != wref || h != wh || p != wp {
				t.Fatalf("step %d: lookup of %q = %p %x %p, a walk finds %p %x %p", step, k, ref, h, p, wref, wh, wp)
			}
		}
	}
	if hits < 1000 {
		t.Fatalf("%d lookups came from the walk cache", hits)
	}
	if err := checkDB(db); err != nil {
		t.Fatal(err)
	}
}

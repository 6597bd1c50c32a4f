package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"unsafe"
)

// Benchmarks compare the engine with a map[string][]byte in the same run,
// on sequential keys key:%010d and random UUID keys, visited in random
// order. The 1M size always runs; 10M only with RADISH_BENCH_10M=1 (a few GB
// and minutes to build); RADISH_BENCH_N=n runs just size n:
//
//	go test ./engine/ -run '^$' -bench 'Get|GetCopied|SetExisting|Delete$' -benchmem -benchtime 2000000x
//	RADISH_BENCH_10M=1 RADISH_BENCH_N=10000000 go test ./engine/ -run '^$' -bench 'Get|GetCopied|SetExisting|Delete$' -benchmem -benchtime 2000000x -timeout 30m
//	go test ./engine/ -run '^$' -bench Keys -benchmem

func benchSizes() []int {
	if n, err := strconv.Atoi(os.Getenv("RADISH_BENCH_N")); err == nil {
		return []int{n}
	}
	if os.Getenv("RADISH_BENCH_10M") != "" {
		return []int{1_000_000, 10_000_000}
	}
	return []int{1_000_000}
}

// keyset holds n keys in one pointer-free arena.
type keyset struct {
	arena []byte
	off   []uint32
}

func (k *keyset) key(i int) []byte { return k.arena[k.off[i]:k.off[i+1]:k.off[i+1]] }
func (k *keyset) str(i int) string { b := k.key(i); return unsafe.String(unsafe.SliceData(b), len(b)) }
func (k *keyset) len() int         { return len(k.off) - 1 }
func (k *keyset) add(b []byte) int {
	k.arena = append(k.arena, b...)
	k.off = append(k.off, uint32(len(k.arena)))
	return len(k.off) - 2
}
func newKeyset(n, per int) *keyset {
	return &keyset{arena: make([]byte, 0, n*per), off: append(make([]uint32, 0, n+1), 0)}
}
func seqKey(b []byte, i int) []byte { return fmt.Appendf(b[:0], "key:%010d", i) }
func benchVal(b []byte, i int) []byte {
	return strconv.AppendInt(append(b[:0], "value:"...), int64(i), 10)
}

func seqKeys(n int) *keyset {
	k := newKeyset(n, 14)
	var buf []byte
	for i := 0; i < n; i++ {
		buf = seqKey(buf, i)
		k.add(buf)
	}
	return k
}

// uuidKeys returns n random version-4-shaped UUID strings (36 bytes).
func uuidKeys(n int) *keyset {
	k := newKeyset(n, 36)
	r := rand.New(rand.NewPCG(7, 7))
	const hex = "0123456789abcdef"
	var buf [36]byte
	for i := 0; i < n; i++ {
		a, b := r.Uint64(), r.Uint64()
		for j, o := 0, 0; j < 36; j++ {
			if j == 8 || j == 13 || j == 18 || j == 23 {
				buf[j] = '-'
				continue
			}
			var nib uint64
			if o < 16 {
				nib = a >> (4 * o) & 15
			} else {
				nib = b >> (4 * (o - 16)) & 15
			}
			buf[j] = hex[nib]
			o++
		}
		k.add(buf[:])
	}
	return k
}

type fixture struct {
	keys *keyset
	vals *keyset  // value:%d per key
	perm []uint32 // random visiting order
	s    *Store
	db   *DB
	m    map[string][]byte
	idx  *leafIndex // built by the first BenchmarkGetIndexed on it
}

var fixtures = map[string]*fixture{}

func getFixture(b *testing.B, n int, kind string) *fixture {
	name := fmt.Sprint(n, kind)
	if f := fixtures[name]; f != nil {
		return f
	}
	// Only one size is kept at a time.
	for k, f := range fixtures {
		f.s.Close()
		delete(fixtures, k)
	}
	f := &fixture{}
	if kind == "seq" {
		f.keys = seqKeys(n)
	} else {
		f.keys = uuidKeys(n)
	}
	f.perm = make([]uint32, n)
	for i := range f.perm {
		f.perm[i] = uint32(i)
	}
	r := rand.New(rand.NewPCG(1, 1))
	r.Shuffle(n, func(i, j int) { f.perm[i], f.perm[j] = f.perm[j], f.perm[i] })
	f.s = NewStore(1)
	f.db = f.s.DB(0)
	f.m = make(map[string][]byte, n)
	f.vals = newKeyset(n, 14)
	var vb []byte
	for i := 0; i < n; i++ {
		vb = benchVal(vb, i)
		f.vals.add(vb)
		f.db.SetString(f.keys.key(i), vb, 0, false)
		f.m[f.keys.str(i)] = f.vals.key(i)
	}
	fixtures[name] = f
	return f
}

var sink []byte

func benchBoth(b *testing.B, name string, eng func(b *testing.B, f *fixture), base func(b *testing.B, f *fixture)) {
	for _, n := range benchSizes() {
		for _, kind := range []string{"seq", "uuid"} {
			b.Run(fmt.Sprintf("n=%s/%s/radish", sizeName(n), kind), func(b *testing.B) {
				f := getFixture(b, n, kind)
				b.ReportAllocs()
				b.ResetTimer()
				eng(b, f)
			})
			b.Run(fmt.Sprintf("n=%s/%s/map", sizeName(n), kind), func(b *testing.B) {
				f := getFixture(b, n, kind)
				b.ReportAllocs()
				b.ResetTimer()
				base(b, f)
			})
		}
	}
}

// BenchmarkGet reads existing keys in random order.
func BenchmarkGet(b *testing.B) {
	benchBoth(b, "Get", func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i++ {
			v, _, _ := f.db.GetString(f.keys.key(int(f.perm[i%n])), 0)
			sink = v
		}
	}, func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i++ {
			sink = f.m[f.keys.str(int(f.perm[i%n]))]
		}
	})
}

// BenchmarkGetCopied is BenchmarkGet with each key first copied into one
// reused buffer, as a key arrives in a server's read buffer: the map must
// then compare its stored key's bytes (in BenchmarkGet the lookup key is
// the stored string itself, and Go's string compare returns on equal
// pointers without reading them), as the tree compares its leaf's.
func BenchmarkGetCopied(b *testing.B) {
	benchBoth(b, "GetCopied", func(b *testing.B, f *fixture) {
		n := len(f.perm)
		buf := make([]byte, 0, 64)
		for i := 0; i < b.N; i++ {
			buf = append(buf[:0], f.keys.key(int(f.perm[i%n]))...)
			v, _, _ := f.db.GetString(buf, 0)
			sink = v
		}
	}, func(b *testing.B, f *fixture) {
		n := len(f.perm)
		buf := make([]byte, 0, 64)
		for i := 0; i < b.N; i++ {
			buf = append(buf[:0], f.keys.key(int(f.perm[i%n]))...)
			sink = f.m[string(buf)]
		}
	})
}

// BenchmarkGetPipelined reads keys in random order in batches of 32, as a
// shard serves a pipeline: Prefetch the batch's keys, then Get each (the
// map does the 32 lookups).
func BenchmarkGetPipelined(b *testing.B) {
	benchBoth(b, "GetPipelined", func(b *testing.B, f *fixture) {
		n := len(f.perm)
		var batch [PrefetchMax][]byte
		for i := 0; i < b.N; i += PrefetchMax {
			for j := range batch {
				batch[j] = f.keys.key(int(f.perm[(i+j)%n]))
			}
			f.db.Prefetch(batch[:])
			for _, k := range batch {
				v, _, _ := f.db.GetString(k, 0)
				sink = v
			}
		}
	}, func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i += PrefetchMax {
			for j := 0; j < PrefetchMax; j++ {
				sink = f.m[f.keys.str(int(f.perm[(i+j)%n]))]
			}
		}
	})
}

// BenchmarkSetExisting overwrites existing keys in random order with a
// value of the same size (the engine rewrites the leaf in place).
func BenchmarkSetExisting(b *testing.B) {
	benchBoth(b, "Set", func(b *testing.B, f *fixture) {
		// The value is formatted into a cache-hot buffer, as a value
		// arriving in a request buffer would be.
		n := len(f.perm)
		vb := make([]byte, 0, 32)
		for i := 0; i < b.N; i++ {
			j := int(f.perm[i%n])
			vb = benchVal(vb, j)
			f.db.SetString(f.keys.key(j), vb, 0, false)
		}
	}, func(b *testing.B, f *fixture) {
		n := len(f.perm)
		vb := make([]byte, 0, 32)
		for i := 0; i < b.N; i++ {
			j := int(f.perm[i%n])
			vb = benchVal(vb, j)
			f.m[f.keys.str(j)] = vb
		}
	})
}

// BenchmarkDeleteInsert deletes a random existing key and inserts it again,
// so the size stays n (one op = one delete + one insert).
func BenchmarkDeleteInsert(b *testing.B) {
	val := []byte("value:xxxxxxxxxx")
	benchBoth(b, "DeleteInsert", func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i++ {
			k := f.keys.key(int(f.perm[i%n]))
			f.db.Delete(k, 0)
			f.db.SetString(k, val, 0, false)
		}
	}, func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i++ {
			k := f.keys.str(int(f.perm[i%n]))
			delete(f.m, k)
			f.m[k] = val
		}
	})
}

// BenchmarkDelete deletes existing keys in random order; when every key is
// gone it refills them with the timer stopped.
func BenchmarkDelete(b *testing.B) {
	val := []byte("value:xxxxxxxxxx")
	benchBoth(b, "Delete", func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i++ {
			if i%n == 0 && i > 0 {
				b.StopTimer()
				for j := 0; j < n; j++ {
					f.db.SetString(f.keys.key(j), val, 0, false)
				}
				b.StartTimer()
			}
			f.db.Delete(f.keys.key(int(f.perm[i%n])), 0)
		}
		b.StopTimer()
		for j := 0; j < min(b.N, n); j++ {
			f.db.SetString(f.keys.key(int(f.perm[j])), val, 0, false)
		}
	}, func(b *testing.B, f *fixture) {
		n := len(f.perm)
		for i := 0; i < b.N; i++ {
			if i%n == 0 && i > 0 {
				b.StopTimer()
				for j := 0; j < n; j++ {
					f.m[f.keys.str(j)] = val
				}
				b.StartTimer()
			}
			delete(f.m, f.keys.str(int(f.perm[i%n])))
		}
		b.StopTimer()
		for j := 0; j < min(b.N, n); j++ {
			f.m[f.keys.str(int(f.perm[j]))] = val
		}
	})
}

// BenchmarkKeys: KEYS with a prefix pattern matching 1,000 of 1M keys
// (key:%06d, pattern key:123*) against walks of the whole tree.
func BenchmarkKeys(b *testing.B) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	var kb, vb []byte
	for i := 0; i < 1_000_000; i++ {
		kb = fmt.Appendf(kb[:0], "key:%06d", i)
		vb = benchVal(vb, i)
		db.SetString(kb, vb, 0, false)
	}
	for _, c := range []struct{ name, pattern string }{
		{"prefix-1000", "key:123*"},
		{"all", "*"},
		{"unprunable-1000", "*123"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; i < b.N; i++ {
				n = 0
				db.Keys([]byte(c.pattern), 0, func([]byte) bool { n++; return true })
			}
			b.ReportMetric(float64(n), "keys/op")
		})
	}
}

func sizeName(n int) string {
	if n%1_000_000 == 0 {
		return strconv.Itoa(n/1_000_000) + "M"
	}
	return strconv.Itoa(n)
}

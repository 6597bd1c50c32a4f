package engine

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/num"
)

// model is the reference the fuzz test holds the engine to: a map, with
// expired entries treated as absent.
type model struct {
	m   map[string]*entry
	now int64
}

type entry struct {
	typ Type
	val []byte
	exp int64
}

func (m *model) get(k string) *entry {
	e := m.m[k]
	if e == nil || (e.exp != 0 && e.exp <= m.now) {
		return nil
	}
	return e
}

func (m *model) live() []string {
	var out []string
	for k := range m.m {
		if m.get(k) != nil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// opReader decodes fuzz input into operations.
type opReader struct{ b []byte }

func (r *opReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *opReader) n(max int) int { return int(r.byte()) % max }

var fuzzAlpha = []byte("ab:\x00\xff*")

// key draws a short key from a small alphabet so that keys collide, share
// prefixes and are prefixes of each other; sometimes a long one.
func (r *opReader) key() []byte {
	switch r.n(8) {
	case 0:
		return nil
	case 1:
		// Long shared prefix: exercises optimistic prefixes.
		return append([]byte("user:session:0123456789abcdef:"), r.shortKey()...)
	case 2:
		return []byte("k" + strconv.Itoa(r.n(200)))
	default:
		return r.shortKey()
	}
}

func (r *opReader) shortKey() []byte {
	n := r.n(5)
	k := make([]byte, n)
	for i := range k {
		k[i] = fuzzAlpha[r.n(len(fuzzAlpha))]
	}
	return k
}

func (r *opReader) val() []byte {
	switch r.n(6) {
	case 0:
		return []byte(strconv.Itoa(int(int8(r.byte())) * 1000))
	case 1:
		return bytes.Repeat([]byte{'v', r.byte()}, 20+r.n(200)) // long: external
	case 2:
		return []byte("-0")
	case 3:
		return nil
	default:
		return []byte("v" + strconv.Itoa(r.n(100)))
	}
}

func (r *opReader) pattern() []byte {
	const palpha = "ab:*?[]^-\\"
	n := r.n(6)
	p := make([]byte, n)
	for i := range p {
		p[i] = palpha[r.n(len(palpha))]
	}
	return p
}

func FuzzDB(f *testing.F) {
	f.Add([]byte("\x00\x03ab\x05\x01\x00\x03ab\x0a\x00"))
	f.Add(bytes.Repeat([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 30))
	f.Add(bytes.Repeat([]byte{0, 3, 3, 1, 2, 0, 7, 0, 9, 4, 8, 2, 1}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		runFuzzDB(t, data)
	})
}

func runFuzzDB(t *testing.T, data []byte) {
	s := NewStore(2)
	defer s.Close()
	db := s.DB(0)
	m := &model{m: map[string]*entry{}, now: 1000}
	r := &opReader{b: data}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format, args...)
	}
	var batch [][]byte // the last Prefetch's keys: later ops reuse these slices
	for step := 0; len(r.b) > 0 && step < 2000; step++ {
		op := r.n(19)
		k := r.key()
		if len(batch) > 0 && r.n(2) == 0 {
			k = batch[r.n(len(batch))]
		}
		ks := string(k)
		now := m.now
		switch op {
		case 0, 1: // SET [EX] [KEEPTTL]
			v := r.val()
			var exp int64
			keep := false
			switch r.n(4) {
			case 0:
				exp = now + int64(r.n(50))
			case 1:
				keep = true
			}
			s.seen(now)
			db.SetString(k, v, exp, keep)
			old := m.get(ks)
			if keep {
				exp = 0
				if old != nil {
					exp = old.exp
				}
			}
			m.m[ks] = &entry{typ: TypeString, val: slices.Clone(v), exp: exp}
		case 2: // GET
			got, found, err := db.GetString(k, now)
			e := m.get(ks)
			switch {
			case e == nil:
				if found {
					fail("GET %q found %q, want absent", k, got)
				}
			case e.typ != TypeString:
				if err != ErrWrongType {
					fail("GET %q of %v: err %v", k, e.typ, err)
				}
			default:
				if !found || err != nil || !bytes.Equal(got, e.val) {
					fail("GET %q = %q %v %v, want %q", k, got, found, err, e.val)
				}
			}
		case 3: // DEL
			got := db.Delete(k, now)
			if want := m.get(ks) != nil; got != want {
				fail("DEL %q = %v want %v", k, got, want)
			}
			delete(m.m, ks)
		case 4: // EXISTS / TYPE / TTL / STRLEN
			e := m.get(ks)
			if got := db.Exists(k, now); got != (e != nil) {
				fail("EXISTS %q = %v", k, got)
			}
			wantT := TypeNone
			if e != nil {
				wantT = e.typ
			}
			if got := db.TypeOf(k, now); got != wantT {
				fail("TYPE %q = %v want %v", k, got, wantT)
			}
			exp, found := db.Expiry(k, now)
			if found != (e != nil) || (e != nil && exp != e.exp) {
				fail("Expiry %q = %d %v, model %+v", k, exp, found, e)
			}
			n, err := db.StrLen(k, now)
			if e != nil && e.typ == TypeString && (err != nil || n != len(e.val)) {
				fail("STRLEN %q = %d %v want %d", k, n, err, len(e.val))
			}
		case 5: // EXPIREAT
			exp := now + int64(r.n(40)) - 5
			got := db.SetExpiry(k, exp, now)
			e := m.get(ks)
			if got != (e != nil) {
				fail("SetExpiry %q = %v", k, got)
			}
			if e != nil {
				if exp <= now {
					delete(m.m, ks)
				} else {
					e.exp = exp
				}
			}
		case 6: // PERSIST
			got := db.Persist(k, now)
			e := m.get(ks)
			if want := e != nil && e.exp != 0; got != want {
				fail("PERSIST %q = %v want %v", k, got, want)
			}
			if e != nil {
				e.exp = 0
			}
		case 7: // RENAME
			dst := r.key()
			got := db.Rename(k, dst, now)
			e := m.get(ks)
			if got != (e != nil) {
				fail("RENAME %q %q = %v", k, dst, got)
			}
			if e != nil && ks != string(dst) {
				delete(m.m, ks)
				m.m[string(dst)] = e
			}
		case 8: // INCRBY
			d := int64(int8(r.byte()))
			if r.n(8) == 0 {
				d = 1 << 62
			}
			got, err := db.IncrBy(k, d, now)
			e := m.get(ks)
			switch {
			case e == nil:
				if err != nil || got != d {
					fail("INCRBY new %q = %d %v", k, got, err)
				}
				m.m[ks] = &entry{typ: TypeString, val: []byte(strconv.FormatInt(d, 10))}
			case e.typ != TypeString:
				if err != ErrWrongType {
					fail("INCRBY wrong type: %v", err)
				}
			default:
				cur, ok := num.ParseInt(e.val)
				switch {
				case !ok:
					if err != ErrNotInteger {
						fail("INCRBY %q on %q: %v", k, e.val, err)
					}
				case (d > 0 && cur > (1<<63-1)-d) || (d < 0 && cur < -(1<<63)-d):
					if err != ErrOverflow {
						fail("INCRBY overflow: %v", err)
					}
				default:
					if err != nil || got != cur+d {
						fail("INCRBY %q = %d %v want %d", k, got, err, cur+d)
					}
					e.val = []byte(strconv.FormatInt(cur+d, 10))
				}
			}
		case 9: // APPEND
			v := r.val()
			n, err := db.Append(k, v, now)
			e := m.get(ks)
			switch {
			case e == nil:
				m.m[ks] = &entry{typ: TypeString, val: slices.Clone(v)}
				if err != nil || n != len(v) {
					fail("APPEND new: %d %v", n, err)
				}
			case e.typ != TypeString:
				if err != ErrWrongType {
					fail("APPEND wrong type: %v", err)
				}
			default:
				e.val = append(slices.Clone(e.val), v...)
				if err != nil || n != len(e.val) {
					fail("APPEND %q = %d %v want %d", k, n, err, len(e.val))
				}
			}
		case 10: // time passes
			m.now += int64(r.n(20))
		case 11: // KEYS pattern
			p := r.pattern()
			var got []string
			db.Keys(p, now, func(key []byte) bool {
				got = append(got, string(key))
				return true
			})
			var want []string
			for _, key := range m.live() {
				if (len(p) == 1 && p[0] == '*') || Match(p, []byte(key), false) {
					want = append(want, key)
				}
			}
			if !slices.Equal(got, want) {
				fail("KEYS %q = %q, want %q", p, got, want)
			}
		case 12: // SCAN with changes between calls
			fuzzScan(t, db, m, r)
		case 13: // Import a non-string type, Export round trip
			typ := Type(2 + r.n(4))
			var data []byte
			if typ == TypeHash || typ == TypeSet {
				// A valid record: count, then 1..3 members (field/value pairs).
				n := 1 + r.n(3)
				data = binary.AppendUvarint(nil, uint64(n))
				for j := 0; j < n; j++ {
					data = appendStr(data, r.val())
					if typ == TypeHash {
						data = appendStr(data, r.val())
					}
				}
			} else if objTypes[typ] != nil {
				break // a registered type: its own fuzz test covers it
			} else {
				data = r.val()
			}
			exp := int64(0)
			if r.n(2) == 0 {
				exp = now + 10
			}
			db.Import(k, Record{Type: typ, Data: data, ExpireAt: exp})
			m.m[ks] = &entry{typ: typ, val: slices.Clone(data), exp: exp}
			rec, ok := db.Export(k, now)
			if !ok || rec.Type != typ || !sameRecord(typ, rec.Data, data) || rec.ExpireAt != exp {
				fail("Export after Import: %+v %v", rec, ok)
			}
		case 14: // RANDOMKEY
			got, ok := db.RandomKey(now)
			live := m.live()
			if ok != (len(live) > 0) {
				fail("RANDOMKEY ok=%v with %d live", ok, len(live))
			}
			if ok && m.get(string(got)) == nil {
				fail("RANDOMKEY %q not live", got)
			}
		case 15: // other database
			s.DB(1).SetString(k, []byte("other"), 0, false)
			if r.n(2) == 0 {
				s.DB(1).Delete(k, now)
			}
		case 16: // ActiveExpire
			s.ActiveExpire(now, 5)
		case 17:
			if r.n(16) == 0 {
				db.Flush()
				clear(m.m)
			}
		case 18: // Prefetch: lookups of these slices may use the walk cache
			batch = append(batch[:0], k)
			for range r.n(PrefetchMax) {
				batch = append(batch, r.key())
			}
			db.Prefetch(batch)
		}
		if err := checkDB(db); err != nil {
			t.Fatalf("step %d op %d key %q: %v\n%s", step, op, k, err, dumpTree(db, db.root, ""))
		}
	}
	// Everything the model holds is readable; then delete it all.
	for _, key := range m.live() {
		e := m.get(key)
		if e.typ == TypeString {
			got, _, _ := db.GetString([]byte(key), m.now)
			if !bytes.Equal(got, e.val) {
				t.Fatalf("final GET %q = %q want %q", key, got, e.val)
			}
		}
	}
	for k := range m.m {
		db.Delete([]byte(k), m.now)
	}
	s.DB(1).Flush()
	if db.Len() != 0 || db.ExpiresLen() != 0 || db.root != 0 {
		t.Fatalf("after deleting all: len %d expires %d root %x", db.Len(), db.ExpiresLen(), db.root)
	}
	if n := s.SlabLive(); n != 0 {
		t.Fatalf("slab holds %d live blocks after deleting every key", n)
	}
}

// fuzzScan runs a full SCAN, deleting and adding keys between calls, and
// checks that every key live throughout is returned exactly once, in order.
func fuzzScan(t *testing.T, db *DB, m *model, r *opReader) {
	t.Helper()
	start := m.live()
	deleted := map[string]bool{}
	seen := map[string]int{}
	var order []string
	count := 1 + r.n(4)
	var p []byte
	if r.n(3) == 0 {
		p = r.pattern()
	}
	cur := uint64(0)
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatalf("SCAN does not finish")
		}
		cur = db.Scan(cur, count, p, TypeNone, m.now, func(key []byte) {
			seen[string(key)]++
			order = append(order, string(key))
		})
		if cur >= 1<<56 {
			t.Fatalf("cursor %x too big", cur)
		}
		if cur == 0 {
			break
		}
		switch r.n(4) {
		case 0:
			if live := m.live(); len(live) > 0 {
				k := live[r.n(len(live))]
				db.Delete([]byte(k), m.now)
				delete(m.m, k)
				deleted[k] = true
			}
		case 1:
			k := r.key()
			db.SetString(k, []byte("new"), 0, false)
			m.m[string(k)] = &entry{typ: TypeString, val: []byte("new")}
		}
	}
	for _, k := range start {
		if deleted[k] || m.get(k) == nil {
			continue
		}
		if p != nil && !Match(p, []byte(k), false) {
			continue
		}
		if seen[k] != 1 {
			t.Fatalf("SCAN returned %q %d times (pattern %q)", k, seen[k], p)
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("SCAN returned %q %d times", k, n)
		}
	}
	if !slices.IsSorted(order) {
		t.Fatalf("SCAN order %q", order)
	}
}

// TestFuzzDBCorpus runs the fuzz body on pseudo-random inputs so that plain
// `go test` covers it.
func TestFuzzDBCorpus(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	var seed [8]byte
	for i := 0; i < n; i++ {
		b := make([]byte, 400+i*4)
		x := uint64(i)*0x9e3779b97f4a7c15 + 1
		for j := range b {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b[j] = byte(x)
		}
		binary.LittleEndian.PutUint64(seed[:], uint64(i))
		runFuzzDB(t, b)
	}
}

// sameRecord compares two serialized values: hashes and sets by content
// (the order of a record depends on the encoding), others byte for byte.
func sameRecord(typ Type, a, b []byte) bool {
	if typ != TypeHash && typ != TypeSet {
		return bytes.Equal(a, b)
	}
	decode := func(d []byte) map[string]string {
		m := map[string]string{}
		_, w := binary.Uvarint(d)
		for off := w; off < len(d); {
			k, next := readStr(d, off)
			var v []byte
			if typ == TypeHash {
				v, next = readStr(d, next)
			}
			m[string(k)] = string(v) // a later duplicate wins, as HSET
			off = next
		}
		return m
	}
	ma, mb := decode(a), decode(b)
	if len(ma) != len(mb) {
		return false
	}
	for k, v := range ma {
		if w, ok := mb[k]; !ok || w != v {
			return false
		}
	}
	return true
}

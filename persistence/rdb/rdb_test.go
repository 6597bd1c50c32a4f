package rdb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/radish-kv/radish/engine"
)

func TestCRC64(t *testing.T) {
	// src/crc64.c's test vector.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %#x", got)
	}
	// Continuing equals one pass.
	if CRC64(CRC64(0, []byte("1234")), []byte("56789")) != 0xe9c6d914c4b8d9ca {
		t.Fatal("crc64 does not continue")
	}
}

// model is a key's contents, order-free where the type is.
func model(r engine.Record) string {
	var els []string
	r.Elements(func(m, v []byte, s float64) {
		switch r.Type {
		case engine.TypeHash:
			els = append(els, string(m)+"="+string(v))
		case engine.TypeZSet:
			els = append(els, string(m)+"@"+strconv.FormatFloat(s, 'g', -1, 64))
		default:
			els = append(els, string(m))
		}
	})
	if r.Type != engine.TypeList {
		slices.Sort(els)
	}
	switch r.Type {
	case engine.TypeString:
		return "string:" + string(r.Data)
	case engine.TypeStream:
		// The record is canonical: the same stream, the same bytes.
		return fmt.Sprintf("stream:%q", r.Data)
	}
	return fmt.Sprint(r.Type, ":", len(els), ":", strings.Join(els, "\x00"))
}

type sample struct {
	name  string
	build func(db *engine.DB, key []byte)
	typ   byte // the RDB type Redis 7.0 writes for it
}

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func nums(n, step int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i*step)
	}
	return out
}

func samples() []sample {
	str := func(v string) func(db *engine.DB, key []byte) {
		return func(db *engine.DB, key []byte) { db.SetString(key, []byte(v), 0, false) }
	}
	list := func(vs ...string) func(db *engine.DB, key []byte) {
		return func(db *engine.DB, key []byte) { db.ListPush(key, bs(vs...), false, false, 0) }
	}
	set := func(vs ...string) func(db *engine.DB, key []byte) {
		return func(db *engine.DB, key []byte) { db.SAdd(key, bs(vs...), 0) }
	}
	hash := func(vs ...string) func(db *engine.DB, key []byte) {
		return func(db *engine.DB, key []byte) { db.HSet(key, bs(vs...), 0) }
	}
	zset := func(vs ...string) func(db *engine.DB, key []byte) {
		return func(db *engine.DB, key []byte) {
			db.ZAdd(key, 0, len(vs)/2, func(i int) (float64, []byte) {
				s, _ := strconv.ParseFloat(vs[2*i], 64)
				return s, []byte(vs[2*i+1])
			}, 0)
		}
	}
	stream := func(n int, fv func(i int) []string, del ...int) func(db *engine.DB, key []byte) {
		return func(db *engine.DB, key []byte) {
			for i := 0; i < n; i++ {
				db.XAdd(key, engine.XAddID{ID: engine.StreamID{Ms: uint64(1000 + i/3), Seq: uint64(i % 3)}}, bs(fv(i)...), false, nil, 0)
			}
			db.XDel(key, len(del), func(j int) engine.StreamID {
				return engine.StreamID{Ms: uint64(1000 + del[j]/3), Seq: uint64(del[j] % 3)}
			}, 0)
			db.XSetID(key, engine.StreamID{Ms: 5000, Seq: 7}, -1, engine.StreamID{}, 0)
		}
	}
	pairs := func(n, vlen int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, "f"+strconv.Itoa(i), strings.Repeat("v", vlen)+strconv.Itoa(i))
		}
		return out
	}
	scored := func(n, mlen int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, strconv.FormatFloat(float64(i%17)*0.37-2, 'g', -1, 64), strings.Repeat("m", mlen)+strconv.Itoa(i))
		}
		return out
	}
	return []sample{
		{"int8", str("-12"), TypeString},
		{"int16", str("1234"), TypeString},
		{"int32", str("-2147483648"), TypeString},
		{"int64 text", str("9223372036854775807"), TypeString},
		{"not canonical", str("0012"), TypeString},
		{"empty string", str(""), TypeString},
		{"short", str("hello world"), TypeString},
		{"compressible", str(strings.Repeat("abcd", 1000)), TypeString},
		{"binary", str("\x00\xff\r\n\x00"), TypeString},
		{"list small", list("a", "1", "-1", "4095", "-4096", "32767", "8388607", "2147483647", "9223372036854775807", "x"), TypeListQuicklist2},
		{"list many nodes", list(nums(5000, 7, "e")...), TypeListQuicklist2},
		{"list long elements", list(strings.Repeat("L", 70), strings.Repeat("M", 5000), strings.Repeat("N", 20000)), TypeListQuicklist2},
		{"intset16", set("1", "-2", "300"), TypeSetIntset},
		{"intset32", set("1", "70000"), TypeSetIntset},
		{"intset64", set("-9223372036854775808", "1"), TypeSetIntset},
		{"set strings", set("a", "b", "1"), TypeSet},
		{"set big intset", set(nums(513, 1, "")...), TypeSet},
		{"hash small", hash("f", "v", "n", "12", "e", ""), TypeHashListpack},
		{"hash long value", hash("f", strings.Repeat("v", 65)), TypeHash},
		{"hash many", hash(pairs(600, 3)...), TypeHash},
		{"zset small", zset("1.5", "a", "-0", "b", "inf", "c", "-inf", "d", "1e300", "e", "3", "f"), TypeZSetListpack},
		{"zset long member", zset("1", strings.Repeat("m", 65)), TypeZSet2},
		{"zset many", zset(scored(200, 2)...), TypeZSet2},
		{"stream small", stream(3, func(i int) []string { return []string{"f", strconv.Itoa(i), "name", "x"} }), TypeStreamListpacks2},
		{"stream fields vary", stream(50, func(i int) []string {
			return []string{"f" + strconv.Itoa(i%4), strings.Repeat("v", i), "-12", strconv.Itoa(-i * 1000)}
		}, 0, 7, 49), TypeStreamListpacks2},
		{"stream many nodes", stream(1000, func(i int) []string { return []string{"f", strconv.Itoa(i)} }, 3, 500, 999), TypeStreamListpacks2},
		{"stream long values", stream(20, func(i int) []string { return []string{"f", strings.Repeat("L", 3000+i)} }), TypeStreamListpacks2},
		{"stream empty", stream(2, func(i int) []string { return []string{"f", "v"} }, 0, 1), TypeStreamListpacks2},
	}
}

// TestRoundTrip takes every type and encoding from an engine through a
// DUMP payload into another engine and compares contents and encodings.
func TestRoundTrip(t *testing.T) {
	src, dst := engine.NewStore(1), engine.NewStore(1)
	e := NewEncoder(src.Limits)
	for _, s := range samples() {
		key := []byte(s.name)
		s.build(src.DB(0), key)
		rec, ok := src.DB(0).Export(key, 0)
		if !ok {
			t.Fatalf("%s: not built", s.name)
		}
		if got := e.Type(rec); got != s.typ {
			t.Errorf("%s: RDB type %d, want %d", s.name, got, s.typ)
		}
		p := e.AppendDump(nil, rec)
		back, err := ParseDump(p)
		if err != nil {
			t.Fatalf("%s: %v (payload %q)", s.name, err, p)
		}
		if model(back) != model(rec) {
			t.Fatalf("%s: back %.200q\nwant %.200q", s.name, model(back), model(rec))
		}
		back.ExpireAt = 12345
		dst.DB(0).Import(key, back)
		encA, _ := src.DB(0).Encoding(key, 0)
		encB, _ := dst.DB(0).Encoding(key, 0)
		if encA != encB {
			t.Errorf("%s: encoding %s, restored %s", s.name, encA, encB)
		}
		if exp, _ := dst.DB(0).Expiry(key, 0); exp != 12345 {
			t.Errorf("%s: expiry %d", s.name, exp)
		}
		// Without compression: the same contents.
		plain := Encoder{Limits: src.Limits}
		if back, err := ParseDump(plain.AppendDump(nil, rec)); err != nil || model(back) != model(rec) {
			t.Errorf("%s without compression: %v", s.name, err)
		}
	}
}

// TestListNodes checks the quicklist split against the limits:
// list-max-listpack-size -2 (8 KiB nodes) and a count limit.
func TestListNodes(t *testing.T) {
	vals := nums(3000, 1, "element-")
	for _, fill := range []int{-2, -1, -5, 5, 128, 0} {
		lim := engine.DefaultLimits()
		lim.ListMaxListpackSize = fill
		e := Encoder{Limits: lim}
		rec := record(engine.TypeList, vals...)
		p := e.AppendValue(nil, rec)
		r := NewReader(p[1:])
		nodes, _, _ := r.ReadLen()
		total := 0
		for i := uint64(0); i < nodes; i++ {
			r.ReadLen()
			lp, err := r.ReadString()
			if err != nil {
				t.Fatal(err)
			}
			n, err := lpEach(lp, func([]byte) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			total += n
			switch {
			case fill < 0 && len(lp) > 4096<<(-fill-1):
				t.Errorf("fill %d: node of %d bytes", fill, len(lp))
			case fill >= 0 && n > max(fill, 1):
				t.Errorf("fill %d: node of %d elements", fill, n)
			}
		}
		if total != len(vals) {
			t.Errorf("fill %d: %d elements in %d nodes", fill, total, nodes)
		}
	}
}

// record builds a Record of type t from its elements (pairs for a hash;
// member, score text for a sorted set).
func record(t engine.Type, els ...string) engine.Record {
	var b engine.RecordBuilder
	b.Start(t)
	for i := 0; i < len(els); i++ {
		b.Add([]byte(els[i]))
		switch t {
		case engine.TypeHash:
			i++
			b.Value([]byte(els[i]))
		case engine.TypeZSet:
			i++
			s, _ := strconv.ParseFloat(els[i], 64)
			b.Score(s)
		}
	}
	return b.Record()
}

// Writers of the formats Redis 7.0 no longer writes, for the tests.

func zlEntry(prevlen int, s string) []byte {
	var b []byte
	if prevlen < 254 {
		b = append(b, byte(prevlen))
	} else {
		b = binary.LittleEndian.AppendUint32(append(b, 0xfe), uint32(prevlen))
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(v, 10) == s {
		switch {
		case v >= 0 && v <= 12:
			return append(b, 0xf1+byte(v))
		case v >= math.MinInt8 && v <= math.MaxInt8:
			return append(b, 0xfe, byte(v))
		case v >= math.MinInt16 && v <= math.MaxInt16:
			return binary.LittleEndian.AppendUint16(append(b, 0xc0), uint16(v))
		case v >= -1<<23 && v < 1<<23:
			return append(b, 0xf0, byte(v), byte(v>>8), byte(v>>16))
		case v >= math.MinInt32 && v <= math.MaxInt32:
			return binary.LittleEndian.AppendUint32(append(b, 0xd0), uint32(v))
		}
		return binary.LittleEndian.AppendUint64(append(b, 0xe0), uint64(v))
	}
	switch n := len(s); {
	case n < 64:
		b = append(b, byte(n))
	case n < 16384:
		b = append(b, 0x40|byte(n>>8), byte(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
	}
	return append(b, s...)
}

func ziplist(els ...string) []byte {
	b := make([]byte, zlHdr)
	prev, last := 0, zlHdr
	for _, s := range els {
		e := zlEntry(prev, s)
		last = len(b)
		b = append(b, e...)
		prev = len(e)
	}
	b = append(b, 0xff)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(last))
	binary.LittleEndian.PutUint16(b[8:], uint16(len(els)))
	return b
}

func zipmap(pairs ...string) []byte {
	b := []byte{byte(len(pairs) / 2)}
	zlen := func(n int) {
		if n < 254 {
			b = append(b, byte(n))
		} else {
			b = binary.LittleEndian.AppendUint32(append(b, 254), uint32(n))
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		zlen(len(pairs[i]))
		b = append(b, pairs[i]...)
		zlen(len(pairs[i+1]))
		b = append(b, 2) // two free bytes
		b = append(b, pairs[i+1]...)
		b = append(b, 0, 0)
	}
	return append(b, 0xff)
}

func listpack(els ...string) []byte {
	var w lpWriter
	w.reset(nil)
	for _, s := range els {
		w.add([]byte(s))
	}
	return w.finish()
}

// legacy returns values of every type Radish reads but does not write,
// with the record each must decode to.
func legacy() []struct {
	name string
	val  []byte // type byte and object
	want engine.Record
} {
	raw := func(s []byte) []byte { return append(AppendLen(nil, uint64(len(s))), s...) }
	long := strings.Repeat("z", 300)
	els := []string{"a", "0", "12", "13", "-1", "200", "-30000", "1000000", "-8000000", "3000000000", long, strings.Repeat("w", 20000)}
	var e Encoder
	plainList := AppendLen([]byte{TypeList}, 3)
	for _, s := range []string{"x", "123", long} {
		plainList = e.AppendString(plainList, []byte(s))
	}
	textZSet := AppendLen([]byte{TypeZSet}, 4)
	for _, m := range []struct{ m, s string }{{"a", "1.5"}, {"b", "\xfe"}, {"c", "\xff"}, {"d", "-2"}} {
		textZSet = e.AppendString(textZSet, []byte(m.m))
		if len(m.s) == 1 && m.s[0] >= 254 {
			textZSet = append(textZSet, m.s[0])
		} else {
			textZSet = append(append(textZSet, byte(len(m.s))), m.s...)
		}
	}
	quick := AppendLen([]byte{TypeListQuicklist}, 3)
	quick = append(quick, raw(ziplist("a", "b"))...)
	quick = append(quick, raw(ziplist())...) // empty nodes are skipped
	quick = append(quick, raw(ziplist("c", "7"))...)
	quick2 := AppendLen([]byte{TypeListQuicklist2}, 2)
	quick2 = append(AppendLen(quick2, containerPlain), raw([]byte("plain element"))...)
	quick2 = append(AppendLen(quick2, containerPacked), raw(listpack("p", "-5"))...)
	return []struct {
		name string
		val  []byte
		want engine.Record
	}{
		{"list", plainList, record(engine.TypeList, "x", "123", long)},
		{"list ziplist", append([]byte{TypeListZiplist}, raw(ziplist(els...))...), record(engine.TypeList, els...)},
		{"quicklist", quick, record(engine.TypeList, "a", "b", "c", "7")},
		{"quicklist 2 plain", quick2, record(engine.TypeList, "plain element", "p", "-5")},
		{"zset text scores", textZSet, record(engine.TypeZSet, "a", "1.5", "b", "inf", "c", "-inf", "d", "-2")},
		{"zset ziplist", append([]byte{TypeZSetZiplist}, raw(ziplist("a", "1", "b", "2.5", "c", "-3e10"))...),
			record(engine.TypeZSet, "a", "1", "b", "2.5", "c", "-3e10")},
		{"hash ziplist", append([]byte{TypeHashZiplist}, raw(ziplist("f", "v", "n", "-7", long, "x"))...),
			record(engine.TypeHash, "f", "v", "n", "-7", long, "x")},
		{"hash zipmap", append([]byte{TypeHashZipmap}, raw(zipmap("f", "v", "k", long))...),
			record(engine.TypeHash, "f", "v", "k", long)},
		{"set listpack", append([]byte{TypeSetListpack}, raw(listpack("a", "1", "-100000"))...),
			record(engine.TypeSet, "a", "1", "-100000")},
	}
}

func TestReadLegacy(t *testing.T) {
	for _, c := range legacy() {
		r := NewReader(c.val)
		typ, _ := r.ReadByte()
		got, err := r.ReadObject(typ)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if model(got) != model(c.want) || r.Offset() != len(c.val) {
			t.Errorf("%s: %.200q, want %.200q", c.name, model(got), model(c.want))
		}
	}
}

func TestReadLengths(t *testing.T) {
	for _, n := range []uint64{0, 63, 64, 16383, 16384, math.MaxUint32, math.MaxUint32 + 1, math.MaxUint64} {
		b := AppendLen(nil, n)
		r := NewReader(b)
		got, enc, err := r.ReadLen()
		if err != nil || enc || got != n || r.Offset() != len(b) {
			t.Errorf("%d: %d %v %v", n, got, enc, err)
		}
	}
}

// TestRefused: malformed values are errors matching ErrFormat, types
// Radish lacks are UnsupportedErrors, bad footers ErrPayload.
func TestRefused(t *testing.T) {
	var e Encoder
	good := e.AppendDump(nil, record(engine.TypeString, "v"))
	for _, p := range [][]byte{nil, good[:9], append(slices.Clone(good[:len(good)-1]), good[len(good)-1]^1)} {
		if _, err := ParseDump(p); err != ErrPayload {
			t.Errorf("%q: %v", p, err)
		}
	}
	future := slices.Clone(good)
	binary.LittleEndian.PutUint16(future[len(future)-10:], MaxVersion+1)
	binary.LittleEndian.PutUint64(future[len(future)-8:], CRC64(0, future[:len(future)-8]))
	if _, err := ParseDump(future); err != ErrPayload {
		t.Errorf("version %d: %v", MaxVersion+1, err)
	}
	for _, typ := range []byte{TypeModulePreGA, TypeModule2, 22, 23, 24, 25} {
		var u *UnsupportedError
		if _, err := NewReader([]byte{0}).ReadObject(typ); !errors.As(err, &u) || !IsFormat(err) {
			t.Errorf("type %d: %v", typ, err)
		}
	}
	raw := func(s []byte) []byte { return append(AppendLen(nil, uint64(len(s))), s...) }
	dupZip := ziplist("a", "1", "a", "2")
	badPrev := ziplist("a", "b")
	badPrev[zlHdr+3] = 9
	badTail := ziplist("a", "b")
	badTail[4]++
	badLP := listpack("a", "b")
	badLP[4] = 3 // count
	badBack := listpack("abc")
	badBack[len(badBack)-2] = 7
	cases := map[string][]byte{
		"unknown type":      {8},
		"huge count":        AppendLen([]byte{TypeList}, 1<<40),
		"empty list":        AppendLen([]byte{TypeList}, 0),
		"huge string":       AppendLen([]byte{TypeString}, 1<<40),
		"bad length":        {TypeString, 0x82},
		"bad string enc":    {TypeString, 0xc4},
		"huge lzf":          append([]byte{TypeString, 0xc3, 1}, append(AppendLen(nil, 1<<40), 0)...),
		"dup set":           e.AppendString(e.AppendString(AppendLen([]byte{TypeSet}, 2), []byte("a")), []byte("a")),
		"dup zset ziplist":  append([]byte{TypeZSetZiplist}, raw(dupZip)...),
		"odd hash ziplist":  append([]byte{TypeHashZiplist}, raw(ziplist("a", "1", "b"))...),
		"bad prevlen":       append([]byte{TypeListZiplist}, raw(badPrev)...),
		"bad tail":          append([]byte{TypeListZiplist}, raw(badTail)...),
		"bad lp count":      append([]byte{TypeSetListpack}, raw(badLP)...),
		"bad lp backlen":    append([]byte{TypeSetListpack}, raw(badBack)...),
		"bad intset width":  append([]byte{TypeSetIntset}, raw([]byte{3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0})...),
		"intset order":      append([]byte{TypeSetIntset}, raw([]byte{2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 1, 0})...),
		"intset count":      append([]byte{TypeSetIntset}, raw([]byte{2, 0, 0, 0, 9, 0, 0, 0, 5, 0})...),
		"nan score":         append(e.AppendString(AppendLen([]byte{TypeZSet}, 1), []byte("a")), 253),
		"nan binary":        binary.LittleEndian.AppendUint64(e.AppendString(AppendLen([]byte{TypeZSet2}, 1), []byte("a")), math.Float64bits(math.NaN())),
		"bad text score":    append(e.AppendString(AppendLen([]byte{TypeZSet}, 1), []byte("a")), 2, 'x', 'y'),
		"bad container":     append(AppendLen([]byte{TypeListQuicklist2}, 1), 3),
		"zipmap count":      append([]byte{TypeHashZipmap}, raw(append([]byte{5}, zipmap("a", "b")[1:]...))...),
		"empty lp":          append([]byte{TypeHashListpack}, raw(listpack())...),
		"empty quicklist 2": append(AppendLen(append(AppendLen([]byte{TypeListQuicklist2}, 1), containerPacked), 7), listpack()...),
	}
	for name, v := range cases {
		r := NewReader(v)
		typ, _ := r.ReadByte()
		if _, err := r.ReadObject(typ); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestTruncated: every value cut anywhere is an error.
func TestTruncated(t *testing.T) {
	e := NewEncoder(engine.DefaultLimits())
	var vals [][]byte
	src := engine.NewStore(1)
	for _, s := range samples() {
		s.build(src.DB(0), []byte(s.name))
		rec, _ := src.DB(0).Export([]byte(s.name), 0)
		vals = append(vals, e.AppendValue(nil, rec))
	}
	for _, l := range legacy() {
		vals = append(vals, l.val)
	}
	for _, v := range vals {
		for cut := 0; cut < len(v); cut += 1 + cut/64 {
			r := NewReader(v[:cut])
			typ, err := r.ReadByte()
			if err != nil {
				continue
			}
			if _, err := r.ReadObject(typ); err == nil {
				t.Fatalf("%q cut at %d decoded", v[:min(len(v), 40)], cut)
			}
		}
	}
}

// TestStreamFromRedis decodes DUMP payloads of redis-server 7.0.15: a
// stream whose node holds a deleted entry (XADD 1-1 a 1 b hello, 1-5 a 2
// b x*30, 2-0 c 3, XDEL 1-5, XADD 5-5 a -7 b y, XSETID 7-0), and one with
// a consumer group, which encodes back to Redis's bytes.
func TestStreamFromRedis(t *testing.T) {
	p, _ := hex.DecodeString("13011000000000000000010000000000000001c34056406e126e0000001f00030101010201816102816202002009000020010b01018568656c6c6f06050103200e00042016019e78e01400011f0520270c0101dfff02010181630203010620330004200108dff9028179020501ff0307000101010504000a005efdc938d9602393")
	rec, err := ParseDump(p)
	if err != nil {
		t.Fatal(err)
	}
	sr, _ := engine.OpenStreamRecord(rec.Data)
	var got []string
	for id, fv, ok := sr.Next(); ok; id, fv, ok = sr.Next() {
		got = append(got, fmt.Sprint(id, fmt.Sprintf("%s", fv)))
	}
	want := []string{"1-1[a 1 b hello]", "2-0[c 3]", "5-5[a -7 b y]"}
	if !slices.Equal(got, want) || sr.Last.String() != "7-0" || sr.MaxDeleted.String() != "1-5" || sr.EntriesAdded != 4 || sr.First.String() != "1-1" {
		t.Fatalf("entries %q, last %v, max deleted %v, added %d, first %v", got, sr.Last, sr.MaxDeleted, sr.EntriesAdded, sr.First)
	}
	groups, _ := hex.DecodeString("1301100000000000000001000000000000000126260000000f0002010001010181610200010201000100010101040102010101000102010401ff0202010101000002010367727001010101000000000000000100000000000000016ba7a231a2010000010105616c6963656ba7a231a201000001000000000000000100000000000000010a00dc4ec8a2f82febde")
	rec, err = ParseDump(groups)
	if err != nil {
		t.Fatalf("a stream with a group: %v", err)
	}
	sr, _ = engine.OpenStreamRecord(rec.Data)
	gs, ok := sr.Groups()
	if !ok || len(gs) != 1 {
		t.Fatalf("groups: %v %d", ok, len(gs))
	}
	g := gs[0]
	if got := fmt.Sprintf("%s %v %d %v %s %v", g.Name, g.LastID, g.EntriesRead, g.PEL, g.Consumers[0].Name, g.Consumers[0].PEL); got !=
		"grp 1-1 1 [{1-1  1796129073003 1}] alice [1-1]" {
		t.Fatalf("group: %s", got)
	}
	// Written back, the payload is Redis's, byte for byte.
	if got := NewEncoder(engine.DefaultLimits()).AppendValue(nil, rec); !bytes.Equal(got, groups[:len(groups)-10]) {
		t.Fatalf("DUMP body\n got %x\nwant %x", got, groups[:len(groups)-10])
	}
	r := NewReader(groups[1 : len(groups)-10])
	if err := r.SkipObject(groups[0]); err != nil || r.Offset() != len(groups)-11 {
		t.Fatalf("skip: %v at %d of %d", err, r.Offset(), len(groups)-11)
	}
}

package workload

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/rdb"
)

// DUMP and RESTORE in the stream. RESTORE takes payloads made here with
// persistence/rdb (Redis 7.0's bytes for these small values), a few of
// them broken; a DUMP reply is compared by what it holds (canonicalDump),
// since the bytes of a hashtable-encoded value follow hash-table order.

// restorePayloads are DUMP payloads by the key family they suit.
var restorePayloads = map[byte][]string{}

func init() {
	e := rdb.NewEncoder(engine.DefaultLimits())
	add := func(family byte, t engine.Type, els ...string) {
		restorePayloads[family] = append(restorePayloads[family], string(e.AppendDump(nil, record(t, els...))))
	}
	add('s', engine.TypeString, "hello")
	add('s', engine.TypeString, "12")
	add('s', engine.TypeString, strings.Repeat("ab", 40)) // LZF
	add('l', engine.TypeList, "a", "1", "hello")
	add('e', engine.TypeSet, "1", "2", "3")
	add('e', engine.TypeSet, "a", "hello", "10")
	add('h', engine.TypeHash, "x", "1", "hello", "abc")
	add('z', engine.TypeZSet, "a", "1", "hello", "2.5", "x", "-1")
	good := []byte(restorePayloads['s'][0])
	badCRC := slices.Clone(good)
	badCRC[len(badCRC)-1] ^= 0xff
	cut := append(slices.Clone(good[:3]), good[len(good)-10:len(good)-8]...)
	cut = binary.LittleEndian.AppendUint64(cut, rdb.CRC64(0, cut))
	restorePayloads['s'] = append(restorePayloads['s'], string(badCRC), string(cut))
}

// record builds an engine record from its elements: members, field and
// value pairs, or member and score pairs.
func record(t engine.Type, els ...string) engine.Record {
	if t == engine.TypeString {
		return engine.Record{Type: t, Data: []byte(els[0])}
	}
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

// dumpOrRestore is a DUMP of any key or a RESTORE into a key of the
// payload's family, with TTLs of many seconds, absolute ones far ahead
// or past, and the options.
func (g *Gen) dumpOrRestore() []string {
	fam := "slehz"[g.r.IntN(5)]
	k := g.key(fam)
	if g.r.IntN(3) == 0 {
		return []string{"DUMP", k}
	}
	ps := restorePayloads[fam]
	args := []string{"RESTORE", k, g.pick("0", "0", "100000000", "-1", "x"), ps[g.r.IntN(len(ps))]}
	if g.r.IntN(2) == 0 {
		args = append(args, "REPLACE")
	}
	switch g.r.IntN(6) {
	case 0:
		// 1e9 is long past as ABSTTL, and days ahead as the relative TTL
		// it turns into when Next cuts ABSTTL off.
		args[2] = g.pick("4102444800000", "1000000000")
		args = append(args, "ABSTTL")
	case 1:
		args = append(args, g.pick("IDLETIME", "FREQ"), g.pick("5", "-1", "300"))
	}
	return args
}

// canonicalDump replaces a DUMP payload by its RDB type and contents
// (members sorted where the type has no order); a reply that is not a
// valid payload stays as it is.
func canonicalDump(raw []byte) []byte {
	v, _, err := resp.ReadReply(raw)
	if err != nil || v.Type != '$' || v.Str == nil {
		return raw
	}
	rec, err := rdb.ParseDump(v.Str)
	if err != nil {
		return raw
	}
	if rec.Type == engine.TypeString {
		return []byte("dump 0 " + string(rec.Data))
	}
	var els []string
	rec.Elements(func(m, val []byte, s float64) {
		els = append(els, string(m)+"\x00"+string(val)+"\x00"+strconv.FormatFloat(s, 'g', -1, 64))
	})
	if rec.Type != engine.TypeList {
		slices.Sort(els)
	}
	// The type byte says which encoding the server chose.
	return []byte("dump " + strconv.Itoa(int(v.Str[0])) + " " + strings.Join(els, "\x01"))
}

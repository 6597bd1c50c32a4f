package command

import (
	"slices"
	"testing"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/net/resp"
)

// fuzzFamilies are the ACL categories of the commands FuzzHandlers runs:
// the data types' and the keyspace's, whose handlers need nothing but a
// database.
var fuzzFamilies = []string{"string", "list", "hash", "set", "sortedset", "bitmap", "hyperloglog", "geo", "stream", "keyspace"}

// fuzzRows are the rows FuzzHandlers picks from: handlers of the data
// families, but for the commands that reach other shards or the server
// (their handlers are the shard's: SORT's BY patterns, MIGRATE, MOVE).
func fuzzRows() []*Spec {
	var rows []*Spec
	for _, s := range All() {
		if s.Handler != nil && slices.ContainsFunc(s.ACL, func(c string) bool { return slices.Contains(fuzzFamilies, c) }) &&
			!slices.Contains(s.ACL, "dangerous") && !slices.Contains(s.ACL, "admin") && !s.AllShards {
			rows = append(rows, s)
		}
	}
	return rows
}

// FuzzHandlers runs a data command's handler with fuzzed arguments (split
// at NUL bytes) over a database holding a key of each type and encoding:
// any reply, never a panic, and a reply that is one whole RESP value.
func FuzzHandlers(f *testing.F) {
	rows := fuzzRows()
	if len(rows) < 100 {
		f.Fatalf("only %d rows", len(rows))
	}
	for i := range rows {
		f.Add(uint16(i), []byte("l\x000\x00-1"))
		f.Add(uint16(i), []byte("z\x009223372036854775807\x00z\x00MIN\x00COUNT\x00-1"))
	}
	f.Fuzz(func(t *testing.T, which uint16, raw []byte) {
		s := rows[int(which)%len(rows)]
		args := workload.FuzzCall(s.Name, raw)
		if s.Arity > 0 && len(args) != s.Arity || s.Arity < 0 && len(args) < -s.Arity {
			return
		}
		st := engine.NewStore(1)
		defer st.Close()
		var w resp.Writer
		c := &Ctx{Store: st, DB: st.DB(0), W: &w, Now: 1_000_000}
		for _, line := range []string{"rpush l a b 1", "zadd z 1 a 2 b", "hset h f v n 1", "sadd s a b", "sadd i 1 2",
			"xadd x 1-1 f v", "set str 10", "pfadd p a"} {
			a := split(line)
			Lookup(a[0]).Handler(c, a)
		}
		w.B = w.B[:0]
		s.Handler(c, args)
		if _, n, err := resp.ReadReply(w.B); err != nil || n != len(w.B) {
			t.Fatalf("%q: the reply %q is not one RESP value (%v)", args, w.B, err)
		}
	})
}

package shard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// BenchmarkPipelinedACL is a pipeline of 32 GETs and 32 SETs on one
// shard run by the default user (the check is a flag test) and by a user
// with 20 key patterns whose keys match the last one (20 glob matches per
// key): the difference is what the ACL check costs a command.
func BenchmarkPipelinedACL(b *testing.B) {
	for _, user := range []string{"default", "app"} {
		b.Run(user, func(b *testing.B) {
			m := newSim(b, 1, 1)
			ops := []string{"on", ">pw", "+@all"}
			for i := range 20 {
				ops = append(ops, fmt.Sprintf("~app%d:*", i))
			}
			if err := m.g.acl.reg.SetUser("app", ops); err != nil {
				b.Fatal(err)
			}
			c := m.dial(0)
			s, d := m.g.shards[0], m.drv[0]
			s.Turn(m.now)
			var w resp.Writer
			if user == "app" {
				w.Array(3)
				w.BulkString("AUTH")
				w.BulkString("app")
				w.BulkString("pw")
				d.in[c.id] = w.B
				s.OnData(c.id)
				if out := d.Output(c.id); string(*out) != "+OK\r\n" {
					b.Fatalf("AUTH: %q", *out)
				}
				*d.Output(c.id) = (*d.Output(c.id))[:0]
			}
			w.B = nil
			for range 32 {
				w.Array(2)
				w.BulkString("GET")
				w.BulkString("app19:user:1000")
				w.Array(3)
				w.BulkString("SET")
				w.BulkString("app19:user:1000")
				w.BulkString("v")
			}
			req := w.B
			b.ReportAllocs()
			for b.Loop() {
				d.in[c.id] = req
				s.OnData(c.id)
				out := d.Output(c.id)
				if strings.Contains(string(*out), "NOPERM") {
					b.Fatalf("refused: %q", *out)
				}
				*out = (*out)[:0]
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/cmd")
		})
	}
}

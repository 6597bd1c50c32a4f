package shard

import (
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// TestGeoHopAllocs: GEOSEARCH and GEORADIUS on a key of the other shard
// (a hop) allocate nothing once warm: the owner runs them in its own Ctx,
// whose result buffers it keeps between calls, as for a local command.
func TestGeoHopAllocs(t *testing.T) {
	m := newSim(t, 2, 1)
	if err := m.g.conf.Set([][2]string{{"migrate-connections", "no"}}); err != nil {
		t.Fatal(err)
	}
	c := m.dial(0)
	home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
	far := keysOn(1, 2, 1)[0]
	send := func(cmds ...[]string) string {
		var w resp.Writer
		for _, cmd := range cmds {
			w.Array(len(cmd))
			for _, a := range cmd {
				w.BulkString(a)
			}
		}
		d.in[c.id] = w.B
		home.OnData(c.id)
		home.flushOutbox()
		owner.Turn(m.now)
		owner.flushOutbox()
		home.Turn(m.now)
		out := d.Output(c.id)
		r := string(*out)
		*out = (*out)[:0]
		return r
	}
	send([]string{"GEOADD", far, "0.1", "0.1", "a", "0.2", "0.2", "b", "0.3", "0.1", "c"})
	cmds := [][]string{
		{"GEOSEARCH", far, "FROMLONLAT", "0", "0", "BYRADIUS", "200", "km", "ASC", "COUNT", "10"},
		{"GEORADIUS", far, "0", "0", "200", "km", "WITHDIST", "ASC"},
	}
	if r := send(cmds...); !strings.HasPrefix(r, "*3\r\n$1\r\na\r\n") {
		t.Fatalf("replies %q", r)
	}
	var w resp.Writer
	for _, cmd := range cmds {
		w.Array(len(cmd))
		for _, a := range cmd {
			w.BulkString(a)
		}
	}
	req := w.B
	n := testing.AllocsPerRun(200, func() {
		d.in[c.id] = req
		home.OnData(c.id)
		home.flushOutbox()
		owner.Turn(m.now)
		owner.flushOutbox()
		home.Turn(m.now)
		out := d.Output(c.id)
		*out = (*out)[:0]
	})
	if n != 0 {
		t.Fatalf("%.1f allocations per pipeline of a GEOSEARCH and a GEORADIUS that hop", n)
	}
}

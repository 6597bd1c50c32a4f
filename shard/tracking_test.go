package shard

import (
	"strconv"
	"testing"

	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/track"
)

// pipeline encodes commands as one client write.
func pipeline(cmds ...[]string) []byte {
	var w resp.Writer
	for _, cmd := range cmds {
		w.Array(len(cmd))
		for _, a := range cmd {
			w.BulkString(a)
		}
	}
	return w.B
}

// A tracking client's reads of keys the tables hold already, here and
// on the other shard, allocate nothing; each key is held by its owner,
// for the client's home shard; a write on the owner invalidates it at
// home, in one batch.
func TestTrackingReads(t *testing.T) {
	m := newSim(t, 2, 1)
	c := m.dial(0)
	home, owner, d := m.g.shards[0], m.g.shards[1], m.drv[0]
	far, near := keysOn(1, 2, 1)[0], keysOn(0, 2, 1)[0]
	// step runs req through both shards; it reports whether the client
	// received want (compared without a copy: the test counts allocations).
	step := func(req []byte, want string) bool {
		d.in[c.id] = req
		home.OnData(c.id)
		home.flushOutbox()
		owner.Turn(m.now)
		owner.flushOutbox()
		home.Turn(m.now)
		home.flushOutbox()
		owner.Turn(m.now) // takes the batches back
		out := d.Output(c.id)
		ok := string(*out) == want
		*out = (*out)[:0]
		return ok
	}
	step(pipeline([]string{"HELLO", "3"}, []string{"CLIENT", "TRACKING", "ON"}), "")
	reads := pipeline([]string{"GET", near}, []string{"GET", far})
	if !step(reads, "_\r\n_\r\n") {
		t.Fatal("the reads' replies differ")
	}
	id := home.conns[c.id].cl.ID
	if n := testing.AllocsPerRun(500, func() { step(reads, "_\r\n_\r\n") }); n != 0 {
		t.Errorf("%.1f allocations per pipeline of a tracked local and a tracked hop GET", n)
	}
	for _, sh := range []*Shard{home, owner} {
		if sh.trk.table.Len() != 1 || sh.trk.table.Items() != 1 {
			t.Fatalf("shard %d holds %d keys, %d items; want 1 and 1", sh.id, sh.trk.table.Len(), sh.trk.table.Items())
		}
	}
	// Another client, on the owner, writes the far key.
	w := m.dial(1)
	m.drv[1].in[w.id] = pipeline([]string{"SET", far, "v"})
	owner.OnData(w.id)
	owner.Turn(m.now)
	if q := owner.outbox[0]; len(q) != 1 || q[0].kind != msgInvalidate {
		t.Fatalf("owner's outbox to home: %v, want one invalidation batch", q)
	}
	owner.flushOutbox()
	home.Turn(m.now)
	out := d.Output(c.id)
	if want := ">2\r\n$10\r\ninvalidate\r\n*1\r\n$" + strconv.Itoa(len(far)) + "\r\n" + far + "\r\n"; string(*out) != want {
		t.Fatalf("home's client received %q, want %q", *out, want)
	}
	if rs := owner.trk.table.Take([]byte(far)); rs != nil {
		t.Fatalf("owner still holds %s for %v", far, rs)
	}
	if rs := home.trk.table.Take([]byte(near)); len(rs) != 1 || rs[0] != (track.Reader{ID: id, Home: 0}) {
		t.Fatalf("home holds %s for %v", near, rs)
	}
}

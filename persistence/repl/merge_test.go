package repl

import (
	"strings"
	"testing"
)

// chunkOf builds a chunk from items written as "db:cmd" (a plain
// command), "db:cmd@txn/seq" (a part), "db:cmd@txn/seq#i" (a part of
// the transaction's command i), "db:cmd@txn/seq!" (a part of a command
// on every shard), "done:txn" and "cut:id"; cmd's words are its
// arguments.
func chunkOf(shard int, items ...string) *Chunk {
	c := &Chunk{Shard: shard}
	for _, s := range items {
		switch {
		case strings.HasPrefix(s, "done:"):
			c.Items = append(c.Items, Item{Kind: ItemDone, Txn: num(s[5:])})
			continue
		case strings.HasPrefix(s, "cut:"):
			c.Items = append(c.Items, Item{Kind: ItemCut, Cut: num(s[4:])})
			continue
		}
		db, rest, _ := strings.Cut(s, ":")
		cmd, tag, _ := strings.Cut(rest, "@")
		it := Item{Kind: ItemCmd, DB: int(num(db)), Off: len(c.Buf)}
		if tag != "" {
			it.All = strings.HasSuffix(tag, "!")
			txn, seq, _ := strings.Cut(strings.TrimSuffix(tag, "!"), "/")
			seq, i, _ := strings.Cut(seq, "#")
			it.Txn, it.Seq, it.Cmd = num(txn), num(seq), int(num(i))
		}
		c.Buf = appendCommand(c.Buf, strings.Fields(cmd)...)
		it.End = len(c.Buf)
		c.Items = append(c.Items, it)
	}
	return c
}

func num(s string) uint64 {
	var n uint64
	for _, d := range s {
		n = n*10 + uint64(d-'0')
	}
	return n
}

// stream renders a Merger's output as its commands, one per line.
func stream(t *testing.T, b []byte) string {
	t.Helper()
	var out []string
	for len(b) > 0 {
		n := skipReply(b, 0)
		if n == 0 {
			t.Fatalf("partial command in %q", b)
		}
		var args []string
		rest := string(b[:n])
		_, rest, _ = strings.Cut(rest, "\r\n")
		for rest != "" {
			var l string
			_, rest, _ = strings.Cut(rest, "\r\n") // $len
			l, rest, _ = strings.Cut(rest, "\r\n")
			args = append(args, l)
		}
		out = append(out, strings.Join(args, " "))
		b = b[n:]
	}
	return strings.Join(out, "\n")
}

// TestMerger: commands before a shard's first cut are dropped; each
// shard keeps its order; SELECT precedes a change of database (and the
// first command after a cut); a cross-shard transaction goes out once
// its done marker is in, its parts in one MULTI/EXEC without their own;
// a command on every shard goes out once; independent transactions whose
// parts ran in opposite orders on two shards go out lowest lock order
// first; the cut's offset is where its full sync continues.
func TestMerger(t *testing.T) {
	m := NewMerger(2, 100)
	var cuts []int64
	m.OnCut = func(id uint64, off int64) { cuts = append(cuts, off) }
	freed := 0
	m.Free = func(*Chunk) { freed++ }
	m.Add(chunkOf(0, "0:SET before 1", "cut:1", "0:SET a 1"))
	if len(m.Out) != 0 {
		t.Fatalf("out before every shard's cut: %q", stream(t, m.Out))
	}
	m.Add(chunkOf(1, "cut:1", "1:SET b 2"))
	if len(cuts) != 1 || cuts[0] != 100 {
		t.Fatalf("cut offsets %v, want [100]", cuts)
	}
	// A transaction: its part on shard 0 waits for shard 1's and the
	// done marker; shard 0's later command waits behind it.
	m.Add(chunkOf(0, "0:MULTI@7/1", "0:SET x 1@7/1", "0:SET y 1@7/1", "0:EXEC@7/1", "0:SET after 1"))
	m.Add(chunkOf(0, "0:MULTI@7/1", "0:SET x2 1@7/1", "0:SET y2 1@7/1", "0:EXEC@7/1"))
	m.Add(chunkOf(1, "0:SET z 1@7/1"))
	before := stream(t, m.Out)
	m.Add(chunkOf(0, "done:7"))
	// A command on every shard, once; then a cycle: txn 8 (seq 2) first
	// on shard 0 and last on shard 1, txn 9 (seq 3) the other way.
	m.Add(chunkOf(0, "0:FLUSHDB@5/4!", "0:SET u 1@8/2", "0:SET v 1@9/3"))
	m.Add(chunkOf(1, "0:FLUSHDB@5/4!", "0:SET w 1@9/3", "0:SET q 1@8/2", "done:5", "done:9", "done:8"))
	want := strings.Join([]string{
		"SELECT 0", "SET a 1", "SELECT 1", "SET b 2",
		"SELECT 0", "MULTI", "SET x 1", "SET y 1", "SET x2 1", "SET y2 1", "SET z 1", "EXEC", "SET after 1",
		"FLUSHDB",
		"MULTI", "SET u 1", "SET q 1", "EXEC",
		"MULTI", "SET v 1", "SET w 1", "EXEC",
	}, "\n")
	if got := stream(t, m.Out); got != want {
		t.Errorf("stream:\n%s\nwant:\n%s", got, want)
	}
	if before != "SELECT 0\nSET a 1\nSELECT 1\nSET b 2" {
		t.Errorf("before the done marker:\n%s", before)
	}
	if m.Offset != 100+int64(len(m.Out)) {
		t.Errorf("Offset %d, want %d", m.Offset, 100+len(m.Out))
	}
	if freed != 8 {
		t.Errorf("%d chunks handed back, want all 8", freed)
	}
	m.Out = m.Out[:0]
	m.Add(chunkOf(0, "cut:2"))
	m.Add(chunkOf(1, "1:SET late 1", "cut:2", "1:SET c 1"))
	if got := stream(t, m.Out); got != "SELECT 1\nSET late 1\nSELECT 1\nSET c 1" {
		t.Errorf("around a second cut:\n%s", got)
	}
	if len(cuts) != 2 || cuts[1] != m.Offset-int64(len(appendCommand(nil, "SELECT", "1"))+len(appendCommand(nil, "SET", "c", "1"))) {
		t.Errorf("second cut at %v", cuts)
	}
}

// TestMergerExecOrder: an EXEC's parts go out in its queue's order,
// whichever shard ran them, and a command of it that ran on every shard
// (SWAPDB) once, in its place.
func TestMergerExecOrder(t *testing.T) {
	m := NewMerger(2, 0)
	m.Add(chunkOf(0, "cut:1"))
	m.Add(chunkOf(1, "cut:1"))
	m.Add(chunkOf(0, "0:MULTI@7/2", "0:SWAPDB 0 1@7/2#1!", "0:SET a 1@7/2#2", "0:EXEC@7/2"))
	m.Add(chunkOf(1, "0:MULTI@7/2", "0:SET b 1@7/2#0", "0:SWAPDB 0 1@7/2#1!", "0:EXEC@7/2", "done:7"))
	want := "SELECT 0\nMULTI\nSET b 1\nSWAPDB 0 1\nSET a 1\nEXEC"
	if got := stream(t, m.Out); got != want {
		t.Errorf("stream:\n%s\nwant:\n%s", got, want)
	}
}

package repl

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
)

// The primary's side: a Merger turns the shards' effect streams into the
// one command stream a Redis replica reads.
//
// Each shard hands over, once per loop turn, a Chunk: its turn's effects
// in order (RESP commands, each with its database and, for a part of a
// cross-shard transaction, the transaction's ID and lock order), and
// markers: the cut of a full sync (where the shard's snapshot was taken)
// and, on a transaction's home shard, that every part of a transaction
// has been handed over (its parts' shards hand theirs over before they
// answer the home shard, so the marker comes after them).
//
// The stream keeps every shard's order; a SELECT precedes a command of
// another database than the last; a transaction's parts go out together
// in one MULTI ... EXEC (a part's own MULTI/EXEC wrapping dropped), once
// its done marker is in. A transaction waits at the head of each shard
// holding a part of it; when every shard's head waits (independent
// transactions whose parts ran in different orders on two shards), the
// transaction with the lowest lock order goes first, its parts taken out
// of their places: every command before them on their shards either ran
// before that transaction took its locks, and then belongs to a
// transaction with a lower lock order, which is impossible, or does not
// touch its keys. A cut is a point in every shard's stream with no
// transaction across it (the shards take it holding every shard's
// locks): the stream's offset when every shard's pre-cut commands are
// out is where a full sync taken at the cut continues.

// Item kinds.
const (
	ItemCmd  = iota // a command (Buf[Off:End])
	ItemDone        // every part of transaction Txn was handed over
	ItemCut         // the cut of full sync Cut
)

// Item is one entry of a Chunk.
type Item struct {
	Kind     uint8
	DB       int
	Txn, Seq uint64 // a part of a cross-shard transaction when Seq != 0
	// Cmd: a part's command's place in its transaction; All: it is one
	// shard's copy of a command on every shard (FLUSHALL, SWAPDB), which
	// the stream holds once (command.Tag).
	Cmd      int
	All      bool
	Cut      uint64
	Off, End int
	gone     bool
}

// Gone reports whether the Merger has used the item.
func (it *Item) Gone() bool { return it.gone }

// Chunk is one shard's hand-over of one loop turn.
type Chunk struct {
	Shard int
	N     int64 // the caller's: the order it was received in
	Buf   []byte
	Items []Item
	left  int  // items the Merger has not used yet
	refs  int  // its items in the Merger's queues
	held  bool // Add is reading it
}

// Merger builds the stream. One goroutine at a time uses it.
type Merger struct {
	queues [][]ref
	// bases are the queues' arrays from their first element: a queue
	// that empties starts again there, so a shard's turns reuse one.
	bases   [][]ref
	started []bool
	done    map[uint64]bool
	parts   map[uint64]int // queued items of each transaction
	db      int
	// Out is the stream written since the caller last emptied it; Offset
	// counts every byte written.
	Out    []byte
	Offset int64
	// Spans are whose bytes Out holds (split.go), emptied with it.
	Spans []Span
	// OnCut is told the stream's offset at cut id's point.
	OnCut func(id uint64, offset int64)
	// Free is handed every Chunk the Merger is done with.
	Free func(*Chunk)
}

type ref struct {
	c *Chunk
	i int
}

// NewMerger returns a Merger of shards' streams starting at offset. A
// shard's commands before its first cut are dropped (no replica needs
// them: the first full sync holds them).
func NewMerger(shards int, offset int64) *Merger {
	return &Merger{queues: make([][]ref, shards), bases: make([][]ref, shards), started: make([]bool, shards), done: map[uint64]bool{},
		parts: map[uint64]int{}, db: -1, Offset: offset}
}

// Add takes c and writes to Out what may go out now.
func (m *Merger) Add(c *Chunk) {
	c.left, c.held = len(c.Items), true
	q := m.queues[c.Shard]
	for i := range c.Items {
		it := &c.Items[i]
		switch {
		case it.Kind == ItemDone:
			// Its items came first; one that wrote nothing has none.
			if m.parts[it.Txn] > 0 {
				m.done[it.Txn] = true
			}
			m.use(c, i)
		case !m.started[c.Shard] && it.Kind != ItemCut:
			m.use(c, i)
		default:
			if it.Kind == ItemCut {
				m.started[c.Shard] = true
			}
			grows := len(q) == cap(q)
			q = append(q, ref{c, i})
			if grows {
				m.bases[c.Shard] = q[:0]
			}
			c.refs++
			if it.Seq != 0 {
				m.parts[it.Txn]++
			}
		}
	}
	m.queues[c.Shard] = q
	c.held = false
	m.release(c)
	m.drain()
}

// use marks item i of c as used, handing c back once all are.
func (m *Merger) use(c *Chunk, i int) {
	c.Items[i].gone = true
	c.left--
	m.release(c)
}

// release hands c back once no item of it is left or queued.
func (m *Merger) release(c *Chunk) {
	if c.left == 0 && c.refs == 0 && !c.held && m.Free != nil {
		m.Free(c)
	}
}

// head returns shard s's first item still queued (dropping used ones).
func (m *Merger) head(s int) (ref, bool) {
	q := m.queues[s]
	for len(q) > 0 && q[0].c.Items[q[0].i].gone {
		c := q[0].c
		q = q[1:]
		c.refs--
		m.release(c)
	}
	if len(q) == 0 {
		base := m.bases[s]
		clear(base[:cap(base)-cap(q)]) // no chunk kept alive
		m.queues[s] = base
		return ref{}, false
	}
	m.queues[s] = q
	return q[0], true
}

func (m *Merger) drain() {
	for {
		moved := false
		for s := range m.queues {
			for {
				r, ok := m.head(s)
				if !ok {
					break
				}
				it := &r.c.Items[r.i]
				if it.Kind == ItemCut {
					break
				}
				if it.Seq == 0 {
					m.emit(r)
					moved = true
					continue
				}
				if !m.done[it.Txn] || !m.atHeads(it.Txn) {
					break
				}
				m.emitTxn(it.Txn)
				moved = true
			}
		}
		if m.cutReady() {
			moved = true
		} else if !moved {
			if t := m.lowest(); t != 0 && m.done[t] {
				m.emitTxn(t)
				moved = true
			}
		}
		if !moved {
			return
		}
	}
}

// cutReady passes a cut every shard's head has reached, reporting the
// stream's offset there.
func (m *Merger) cutReady() bool {
	var id uint64
	for s := range m.queues {
		r, ok := m.head(s)
		if !ok || r.c.Items[r.i].Kind != ItemCut || s > 0 && r.c.Items[r.i].Cut != id {
			return false
		}
		id = r.c.Items[r.i].Cut
	}
	for s := range m.queues {
		r, _ := m.head(s)
		m.use(r.c, r.i)
	}
	m.db = -1 // a replica starting here selects its database first
	if m.OnCut != nil {
		m.OnCut(id, m.Offset)
	}
	return true
}

// atHeads reports whether, on every shard holding a part of txn, its
// first item left is txn's.
func (m *Merger) atHeads(txn uint64) bool {
	for s := range m.queues {
		r, ok := m.head(s)
		if !ok {
			continue
		}
		if it := &r.c.Items[r.i]; it.Kind == ItemCmd && it.Txn == txn {
			continue
		}
		for _, x := range m.queues[s] {
			it := &x.c.Items[x.i]
			if !it.gone && it.Kind == ItemCmd && it.Txn == txn && it.Seq != 0 {
				return false
			}
		}
	}
	return true
}

// lowest returns the transaction with the lowest lock order among the
// parts queued before any cut, 0 when none.
func (m *Merger) lowest() uint64 {
	var best, txn uint64
	for s := range m.queues {
		for _, x := range m.queues[s] {
			it := &x.c.Items[x.i]
			if it.gone {
				continue
			}
			if it.Kind == ItemCut {
				break
			}
			if it.Seq != 0 && (best == 0 || it.Seq < best) {
				best, txn = it.Seq, it.Txn
			}
		}
	}
	return txn
}

var (
	cmdMulti = []byte("*1\r\n$5\r\nMULTI\r\n")
	cmdExec  = []byte("*1\r\n$4\r\nEXEC\r\n")
)

// emitTxn writes every queued part of txn as one MULTI ... EXEC (a
// single command alone): its commands in their order in the
// transaction, a command's effects shard by shard, and one shard's copy
// of a command that ran on every shard.
func (m *Merger) emitTxn(txn uint64) {
	var parts []ref
	for s := range m.queues {
		for _, x := range m.queues[s] {
			it := &x.c.Items[x.i]
			if it.gone || it.Kind != ItemCmd || it.Txn != txn || it.Seq == 0 {
				continue
			}
			// A part's own MULTI ... EXEC (each round of an EXEC's share)
			// is dropped: the transaction gets one around all its parts. A
			// transaction's commands are never MULTI or EXEC themselves.
			if c := m.cmd(x); bytes.Equal(c, cmdMulti) || bytes.Equal(c, cmdExec) {
				m.use(x.c, x.i)
				continue
			}
			parts = append(parts, x)
		}
	}
	slices.SortStableFunc(parts, func(a, b ref) int { return cmp.Compare(a.c.Items[a.i].Cmd, b.c.Items[b.i].Cmd) })
	kept := parts[:0]
	allCmd, allFrom := -1, -1 // the command on every shard, and the shard whose copy goes out
	for _, r := range parts {
		if it := &r.c.Items[r.i]; it.All {
			if it.Cmd != allCmd {
				allCmd, allFrom = it.Cmd, r.c.Shard
			}
			if r.c.Shard != allFrom {
				m.use(r.c, r.i)
				continue
			}
		}
		kept = append(kept, r)
	}
	parts = kept
	delete(m.done, txn)
	delete(m.parts, txn)
	if len(parts) == 0 {
		return
	}
	if len(parts) == 1 {
		m.emit(parts[0])
		return
	}
	m.selectDB(parts[0].c.Items[parts[0].i].DB)
	m.write(cmdMulti)
	for _, r := range parts {
		m.emit(r)
	}
	m.write(cmdExec)
}

func (m *Merger) cmd(r ref) []byte {
	it := &r.c.Items[r.i]
	return r.c.Buf[it.Off:it.End]
}

// emit writes one command, after a SELECT when its database differs.
func (m *Merger) emit(r ref) {
	it := &r.c.Items[r.i]
	m.selectDB(it.DB)
	m.writeOf(r.c.Shard, r.c.Buf[it.Off:it.End])
	m.use(r.c, r.i)
}

func (m *Merger) selectDB(db int) {
	if db == m.db {
		return
	}
	m.db = db
	n := strconv.Itoa(db)
	m.write([]byte("*2\r\n$6\r\nSELECT\r\n$" + strconv.Itoa(len(n)) + "\r\n" + n + "\r\n"))
}

// Write adds b, a command of the primary's own (PING), to the stream.
func (m *Merger) Write(b []byte) { m.write(b) }

func (m *Merger) write(b []byte) { m.writeOf(-1, b) }

package rdb

import (
	"encoding/binary"
	"strconv"

	"github.com/radish-kv/radish/engine"
)

// Streams (RDB_TYPE_STREAM_LISTPACKS*, rdb.c rdbSaveObject/rdbLoadObject):
//
//	nodes     count, then per node its master ID (a 16-byte string, ms
//	          and seq big endian) and its listpack (a string)
//	length    count of live entries
//	last ID   ms, seq (lengths)
//	          type 19 and 21 only: first ID, largest deleted ID (ms, seq
//	          each), entries added
//	groups    count, then per group: name, last delivered ID (ms, seq),
//	          entries read (19, 21), the pending entries (count; each a raw
//	          16-byte ID, an 8-byte delivery time and a delivery count),
//	          the consumers (count; each its name, its 8-byte seen time,
//	          in 21 its active time too, and the IDs it owns: count, raw
//	          16-byte IDs)
//
// A node's listpack holds its master entry (live count, deleted count,
// field count, the fields, 0) and then each entry: flags (1 deleted, 2
// same fields as the master), the ID's ms and seq differences from the
// master, the field count and fields unless flag 2, the values, and the
// number of listpack elements of the entry before this one.
//
// The engine's Record keeps a stream's nodes, deleted entries included,
// so a stream is written and read node for node, as Redis does.

const (
	xFlagDeleted    = 1
	xFlagSameFields = 2
)

// appendStream writes a stream record as type 19, node for node.
func (e *Encoder) appendStream(dst []byte, r engine.Record) []byte {
	sr, _ := engine.OpenStreamRecord(r.Data)
	dst = AppendLen(dst, uint64(sr.Nodes))
	var master [][]byte
	for {
		mf, n, ok := sr.NextNode()
		if !ok {
			break
		}
		master = append(master[:0], mf...)
		// Count the deleted entries first: the master entry comes first.
		ahead := sr
		live, del := 0, 0
		var m engine.StreamID
		for k := 0; k < n; k++ {
			id, deleted, _, _ := ahead.NextEntry()
			if k == 0 {
				m = id
			}
			if deleted {
				del++
			} else {
				live++
			}
		}
		e.lp.reset(e.lp.buf)
		e.lp.addInt(int64(live))
		e.lp.addInt(int64(del))
		e.lp.addInt(int64(len(master)))
		for _, f := range master {
			e.lp.add(f)
		}
		e.lp.addInt(0)
		for k := 0; k < n; k++ {
			id, deleted, fv, _ := sr.NextEntry()
			same := sameFields(master, fv)
			flags := int64(0)
			if same {
				flags = xFlagSameFields
			}
			if deleted {
				flags |= xFlagDeleted
			}
			e.lp.addInt(flags)
			e.lp.addInt(int64(id.Ms - m.Ms))
			e.lp.addInt(int64(id.Seq - m.Seq))
			elems := 3 + len(fv)/2
			if !same {
				e.lp.addInt(int64(len(fv) / 2))
				elems += len(fv)/2 + 1
			}
			for i := 0; i < len(fv); i += 2 {
				if !same {
					e.lp.add(fv[i])
				}
				e.lp.add(fv[i+1])
			}
			e.lp.addInt(int64(elems))
		}
		var key [16]byte
		binary.BigEndian.PutUint64(key[:], m.Ms)
		binary.BigEndian.PutUint64(key[8:], m.Seq)
		dst = e.AppendString(dst, key[:])
		dst = e.AppendString(dst, e.lp.finish())
	}
	dst = AppendLen(dst, uint64(sr.Len))
	for _, v := range []uint64{sr.Last.Ms, sr.Last.Seq, sr.First.Ms, sr.First.Seq, sr.MaxDeleted.Ms, sr.MaxDeleted.Seq, sr.EntriesAdded} {
		dst = AppendLen(dst, v)
	}
	gs, _ := sr.Groups()
	dst = AppendLen(dst, uint64(len(gs)))
	for _, g := range gs {
		dst = e.AppendString(dst, g.Name)
		dst = AppendLen(dst, g.LastID.Ms)
		dst = AppendLen(dst, g.LastID.Seq)
		dst = AppendLen(dst, uint64(g.EntriesRead))
		dst = AppendLen(dst, uint64(len(g.PEL)))
		for _, p := range g.PEL {
			dst = appendRawID(dst, p.ID)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.Time))
			dst = AppendLen(dst, p.Count)
		}
		dst = AppendLen(dst, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			dst = e.AppendString(dst, c.Name)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(c.Seen))
			dst = AppendLen(dst, uint64(len(c.PEL)))
			for _, id := range c.PEL {
				dst = appendRawID(dst, id)
			}
		}
	}
	return dst
}

// appendRawID appends an ID as Redis's rax keys it: ms and seq big
// endian.
func appendRawID(dst []byte, id engine.StreamID) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(dst, id.Ms), id.Seq)
}

// sameFields reports whether fv's fields are master's.
func sameFields(master, fv [][]byte) bool {
	if len(master) != len(fv)/2 {
		return false
	}
	for i, f := range master {
		if string(f) != string(fv[2*i]) {
			return false
		}
	}
	return true
}

// readStream reads a stream of RDB type t (15, 19 or 21), deleted entries
// and consumer groups included.
func (r *Reader) readStream(t byte) (engine.Record, error) {
	nodes, enc, err := r.ReadLen()
	if err != nil || enc || nodes > uint64(r.remaining()) {
		return engine.Record{}, errFormat("bad stream node count")
	}
	var p streamParse
	for range nodes {
		key, err := r.ReadString()
		if err != nil {
			return engine.Record{}, err
		}
		if len(key) != 16 {
			return engine.Record{}, errFormat("stream node key is not 16 bytes")
		}
		m := engine.StreamID{Ms: binary.BigEndian.Uint64(key), Seq: binary.BigEndian.Uint64(key[8:])}
		lp, err := r.ReadString()
		if err != nil {
			return engine.Record{}, err
		}
		p.elems = p.elems[:0]
		if _, err := lpEach(lp, func(e []byte) error {
			p.elems = append(p.elems, append([]byte(nil), e...))
			return nil
		}); err != nil {
			return engine.Record{}, err
		}
		if len(p.elems) == 0 {
			return engine.Record{}, errFormat("empty listpack inside stream")
		}
		if err := p.node(m); err != nil {
			return engine.Record{}, err
		}
	}
	var v [8]uint64 // length, last, first, largest deleted, entries added
	n := 8
	if t == TypeStreamListpacks {
		n = 3
	}
	for i := 0; i < n; i++ {
		if v[i], enc, err = r.ReadLen(); err != nil || enc {
			return engine.Record{}, errFormat("bad stream metadata")
		}
	}
	if t == TypeStreamListpacks {
		// Redis 5 and 6 kept no first ID, deleted ID or count: Redis 7
		// loads them as the first entry, none and the length.
		v[3], v[4], v[7] = p.first.Ms, p.first.Seq, v[0]
	}
	gs, err := r.readGroups(t, engine.StreamID{Ms: v[1], Seq: v[2]}, v[0], v[7], p.first)
	if err != nil {
		return engine.Record{}, err
	}
	p.b.Groups = gs
	return p.b.Record(engine.StreamID{Ms: v[1], Seq: v[2]}, engine.StreamID{Ms: v[3], Seq: v[4]},
		engine.StreamID{Ms: v[5], Seq: v[6]}, v[7]), nil
}

// readGroups reads a stream's consumer groups (after its metadata: last
// ID, length, entries added, first live ID). Type 15 keeps no
// entries-read: it is estimated from the group's last ID, as Redis 7.0
// loads it; type 21's consumers have an active time, which is dropped.
func (r *Reader) readGroups(t byte, last engine.StreamID, length, added uint64, first engine.StreamID) ([]engine.GroupRecord, error) {
	lenOf := func() (uint64, error) {
		n, enc, err := r.ReadLen()
		if err == nil && enc {
			err = errFormat("bad stream group")
		}
		return n, err
	}
	rawID := func() (engine.StreamID, error) {
		b, err := r.take(16)
		if err != nil {
			return engine.StreamID{}, err
		}
		return engine.StreamID{Ms: binary.BigEndian.Uint64(b), Seq: binary.BigEndian.Uint64(b[8:])}, nil
	}
	ms := func() (int64, error) {
		b, err := r.take(8)
		if err != nil {
			return 0, err
		}
		return int64(binary.LittleEndian.Uint64(b)), nil
	}
	n, err := lenOf()
	if err != nil || n > uint64(r.remaining()) {
		return nil, errFormat("bad stream group count")
	}
	var gs []engine.GroupRecord
	for range n {
		var g engine.GroupRecord
		name, err := r.ReadString()
		if err != nil {
			return nil, err
		}
		g.Name = append([]byte(nil), name...)
		if g.LastID.Ms, err = lenOf(); err != nil {
			return nil, err
		}
		if g.LastID.Seq, err = lenOf(); err != nil {
			return nil, err
		}
		if t == TypeStreamListpacks {
			g.EntriesRead = estimateRead(g.LastID, last, first, length, added)
		} else {
			er, err := lenOf()
			if err != nil {
				return nil, err
			}
			g.EntriesRead = int64(er)
		}
		np, err := lenOf()
		if err != nil || np > uint64(r.remaining())/24 {
			return nil, errFormat("bad stream PEL")
		}
		g.PEL = make([]engine.PendingEntry, np)
		for i := range g.PEL {
			pe := &g.PEL[i]
			if pe.ID, err = rawID(); err != nil {
				return nil, err
			}
			if pe.Time, err = ms(); err != nil {
				return nil, err
			}
			if pe.Count, err = lenOf(); err != nil {
				return nil, err
			}
		}
		nc, err := lenOf()
		if err != nil || nc > uint64(r.remaining()) {
			return nil, errFormat("bad stream consumers")
		}
		g.Consumers = make([]engine.ConsumerRecord, nc)
		for i := range g.Consumers {
			c := &g.Consumers[i]
			name, err := r.ReadString()
			if err != nil {
				return nil, err
			}
			c.Name = append([]byte(nil), name...)
			if c.Seen, err = ms(); err != nil {
				return nil, err
			}
			if t == TypeStreamListpacks3 {
				if _, err = ms(); err != nil {
					return nil, err
				}
			}
			owned, err := lenOf()
			if err != nil || owned > uint64(r.remaining())/16 {
				return nil, errFormat("bad stream consumer PEL")
			}
			c.PEL = make([]engine.StreamID, owned)
			for k := range c.PEL {
				if c.PEL[k], err = rawID(); err != nil {
					return nil, err
				}
			}
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// estimateRead is Redis's streamEstimateDistanceFromFirstEverEntry for a
// stream loaded from a type 15 RDB, which has no tombstones: a group's
// entries-read, -1 when unknown.
func estimateRead(id, last, first engine.StreamID, length, added uint64) int64 {
	switch {
	case added == 0:
		return 0
	case length == 0 && id.Cmp(last) < 1, id == last:
		return int64(added)
	case last.Less(id):
		return -1
	case id.Less(first):
		return int64(added - length)
	case id == first:
		return int64(added - length + 1)
	}
	return -1
}

// streamParse turns the elements of a stream's node listpacks into
// record nodes.
type streamParse struct {
	b       engine.StreamRecordBuilder
	elems   [][]byte
	entries []streamEntry
	first   engine.StreamID // the first live entry's (0-0: none yet)
	live    bool
}

type streamEntry struct {
	id      engine.StreamID
	deleted bool
	fv      [][]byte
}

// node parses one node's elements (master ID m) into a record node.
func (p *streamParse) node(m engine.StreamID) error {
	el := p.elems
	i := 0
	bad := false
	next := func() []byte {
		if i >= len(el) {
			bad = true
			return nil
		}
		i++
		return el[i-1]
	}
	nextInt := func() int64 {
		v, err := strconv.ParseInt(string(next()), 10, 64)
		bad = bad || err != nil
		return v
	}
	nextInt() // live count
	nextInt() // deleted count
	nf := nextInt()
	if bad || nf < 0 || nf > int64(len(el)) {
		return errFormat("bad stream master entry")
	}
	master := el[i : i+int(nf)]
	i += int(nf)
	if nextInt() != 0 || bad {
		return errFormat("bad stream master entry")
	}
	p.entries = p.entries[:0]
	for i < len(el) && !bad {
		flags := nextInt()
		id := m
		id.Ms += uint64(nextInt())
		id.Seq += uint64(nextInt())
		n := nf
		if flags&xFlagSameFields == 0 {
			n = nextInt()
		}
		if n <= 0 || n > int64(len(el)) || flags&^(xFlagDeleted|xFlagSameFields) != 0 {
			return errFormat("bad stream entry")
		}
		var fv [][]byte
		for k := int64(0); k < n; k++ {
			if flags&xFlagSameFields != 0 {
				if k >= int64(len(master)) {
					return errFormat("bad stream entry")
				}
				fv = append(fv, master[k])
			} else {
				fv = append(fv, next())
			}
			fv = append(fv, next())
		}
		nextInt() // the element count, for walking backwards
		if bad {
			break
		}
		deleted := flags&xFlagDeleted != 0
		if !deleted && !p.live {
			p.first, p.live = id, true
		}
		p.entries = append(p.entries, streamEntry{id, deleted, fv})
	}
	if bad || len(p.entries) == 0 {
		return errFormat("bad stream entry")
	}
	p.b.Node(master, len(p.entries))
	for _, e := range p.entries {
		p.b.Entry(e.id, e.deleted, e.fv)
	}
	return nil
}

// skipStream reads past a stream of RDB type t.
func (r *Reader) skipStream(t byte) error {
	lenOf := func() (uint64, error) {
		n, enc, err := r.ReadLen()
		if err == nil && enc {
			err = errFormat("bad stream length")
		}
		return n, err
	}
	skip := func(n uint64) error {
		if n > uint64(r.remaining()) {
			return errTruncated
		}
		_, err := r.take(int(n))
		return err
	}
	nodes, err := lenOf()
	if err != nil {
		return err
	}
	for range 2 * min(nodes, uint64(r.remaining())+1) {
		if err := r.skipString(); err != nil {
			return err
		}
	}
	meta := 8
	if t == TypeStreamListpacks {
		meta = 3
	}
	for range meta {
		if _, err := lenOf(); err != nil {
			return err
		}
	}
	groups, err := lenOf()
	if err != nil {
		return err
	}
	for range min(groups, uint64(r.remaining())+1) {
		if err := r.skipString(); err != nil {
			return err
		}
		ids := 2
		if t != TypeStreamListpacks {
			ids = 3
		}
		for range ids {
			if _, err := lenOf(); err != nil {
				return err
			}
		}
		pel, err := lenOf()
		if err != nil {
			return err
		}
		for range min(pel, uint64(r.remaining())+1) {
			if err := skip(24); err != nil {
				return err
			}
			if _, err := lenOf(); err != nil {
				return err
			}
		}
		consumers, err := lenOf()
		if err != nil {
			return err
		}
		for range min(consumers, uint64(r.remaining())+1) {
			if err := r.skipString(); err != nil {
				return err
			}
			times := uint64(8)
			if t == TypeStreamListpacks3 {
				times = 16
			}
			if err := skip(times); err != nil {
				return err
			}
			owned, err := lenOf()
			if err != nil {
				return err
			}
			if err := skip(16 * min(owned, uint64(r.remaining())+1)); err != nil {
				return err
			}
		}
	}
	return nil
}

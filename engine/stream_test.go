package engine

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// xmodel is the reference a stream is held to: its live entries in ID
// order (a sorted map of IDs), and its metadata.
type xmodel struct {
	ids    []StreamID
	fv     map[StreamID][]string
	last   StreamID
	maxDel StreamID
	added  uint64
	exists bool
}

func (m *xmodel) add(id StreamID, fv []string) {
	m.ids = append(m.ids, id)
	m.fv[id] = fv
	m.last = id
	m.added++
	m.exists = true
}

func (m *xmodel) del(id StreamID) bool {
	i, ok := slices.BinarySearchFunc(m.ids, id, StreamID.Cmp)
	if !ok {
		return false
	}
	m.ids = slices.Delete(m.ids, i, i+1)
	delete(m.fv, id)
	return true
}

// streamContents reads the stream back through XRange, forward and
// backward, and checks they agree.
func streamContents(t *testing.T, db *DB, key []byte) ([]StreamID, map[StreamID][]string) {
	t.Helper()
	var ids []StreamID
	fv := map[StreamID][]string{}
	db.XRange(key, StreamID{}, MaxStreamID, 0, false, 0, func(id StreamID, f [][]byte) bool {
		ids = append(ids, id)
		var s []string
		for _, b := range f {
			s = append(s, string(b))
		}
		fv[id] = s
		return true
	})
	var rev []StreamID
	db.XRange(key, StreamID{}, MaxStreamID, 0, true, 0, func(id StreamID, _ [][]byte) bool {
		rev = append(rev, id)
		return true
	})
	slices.Reverse(rev)
	if !slices.Equal(ids, rev) {
		t.Fatalf("forward %v, backward %v", ids, rev)
	}
	return ids, fv
}

// checkStream checks the node invariants: the index sorted by master ID,
// each node's entries in ID order after its master, counts that add up to
// the length, and Redis's listpack size recomputed from the entries.
func checkStream(db *DB, key []byte) error {
	st, ok, err := db.openStream(key, 0)
	if err != nil || !ok {
		return err
	}
	sl := db.s.slab
	ix := sl.Bytes(st.index())
	var live uint64
	prev := StreamID{}
	for i := 0; i < ixCount(ix); i++ {
		b := sl.Bytes(ixNode(ix, i))
		m := getID(b, ndMaster)
		if m != ixKey(ix, i) {
			return fmt.Errorf("node %d: master %v, index key %v", i, m, ixKey(ix, i))
		}
		lp := 0
		mo, mn := ndMasterFields(b)
		lp += lpIntEntrySize(int64(mn)) + 2
		for j := 0; j < mn; j++ {
			var f []byte
			f, mo = readStr(b, mo)
			lp += lpStrEntrySize(f)
		}
		if mo != ndEntries(b) {
			return fmt.Errorf("node %d: entries at %d, master fields end at %d", i, ndEntries(b), mo)
		}
		nl, nd := 0, 0
		for o := ndEntries(b); o < ndEnd(b); {
			e := readEntry(b, o, m)
			if i+nl+nd > 0 && !prev.Less(e.id) || e.id.Less(m) {
				return fmt.Errorf("node %d: entry %v after %v (master %v)", i, e.id, prev, m)
			}
			prev = e.id
			if e.flags&xDeleted != 0 {
				nd++
			} else {
				nl++
			}
			lp += 2 + lpIntEntrySize(int64(e.id.Ms-m.Ms)) + lpIntEntrySize(int64(e.id.Seq-m.Seq))
			n := 3 + e.nf
			fv := entryFields(b, &e, nil)
			if e.flags&xSameFields == 0 {
				lp += lpIntEntrySize(int64(e.nf))
				n += e.nf + 1
			}
			for j := 0; j < len(fv); j += 2 {
				if e.flags&xSameFields == 0 {
					lp += lpStrEntrySize(fv[j])
				}
				lp += lpStrEntrySize(fv[j+1])
			}
			lp += lpIntEntrySize(int64(n))
			o = e.end
		}
		if nl != u32(b, ndLive) || nd != u32(b, ndDel) {
			return fmt.Errorf("node %d: %d live %d deleted, header says %d %d", i, nl, nd, u32(b, ndLive), u32(b, ndDel))
		}
		if lp != u32(b, ndLP) {
			return fmt.Errorf("node %d: listpack body %d, header says %d", i, lp, u32(b, ndLP))
		}
		live += uint64(nl)
	}
	if live != st.length() {
		return fmt.Errorf("%d live entries, length %d", live, st.length())
	}
	return nil
}

func streamModel(t *testing.T, ops []byte, nodeEntries, nodeBytes int) {
	s := NewStore(1)
	defer s.Close()
	s.Limits.StreamNodeMaxEntries, s.Limits.StreamNodeMaxBytes = nodeEntries, nodeBytes
	db := s.DB(0)
	key := []byte("x")
	m := &xmodel{fv: map[StreamID][]string{}}
	fieldSets := [][]string{{"a"}, {"a", "b"}, {"b"}, {"123"}, {strings.Repeat("f", 70)}}
	now := int64(1000)
	for i := 0; i+3 < len(ops); i += 4 {
		op, a, b, c := ops[i], ops[i+1], ops[i+2], ops[i+3]
		desc := fmt.Sprintf("op %d (%d %d %d %d)", i/4, op%8, a, b, c)
		// An ID near the model's last one, so that some are too small.
		near := func() StreamID {
			id := StreamID{m.last.Ms + uint64(a%4), uint64(b % 5)}
			if a%4 == 0 && a%8 == 0 {
				id.Ms = m.last.Ms - min(m.last.Ms, 1)
			}
			return id
		}
		switch op % 8 {
		case 0, 1, 2: // XADD
			var xid XAddID
			switch c % 3 {
			case 0:
				xid.Auto = true
			case 1:
				xid.ID = near()
			case 2:
				xid.SeqAuto, xid.ID = true, near()
			}
			now += int64(b % 3)
			fields := fieldSets[int(a)%len(fieldSets)]
			var fv [][]byte
			var sfv []string
			for j, f := range fields {
				v := fmt.Sprint(int(c)*(j+1) - 50)
				if c%7 == 0 {
					v = strings.Repeat("v", 100+int(c))
				}
				fv = append(fv, []byte(f), []byte(v))
				sfv = append(sfv, f, v)
			}
			var trim *XTrimArgs
			if b%4 == 0 {
				trim = &XTrimArgs{Strategy: XTrimMaxLen, MaxLen: int64(c % 20), Approx: c%3 == 0}
				if c%2 == 0 {
					trim = &XTrimArgs{Strategy: XTrimMinID, MinID: StreamID{m.last.Ms - min(m.last.Ms, uint64(c%4)), 0}, Approx: c%3 == 0}
				}
			}
			noMk := a%16 == 15
			res, ok, err := db.XAdd(key, xid, fv, noMk, trim, now)
			// The model's choice of ID.
			var want StreamID
			switch {
			case xid.Auto:
				if uint64(now) > m.last.Ms {
					want = StreamID{uint64(now), 0}
				} else {
					want, _ = m.last.Next()
				}
			case xid.SeqAuto:
				want = StreamID{xid.ID.Ms, 0}
				if xid.ID.Ms == m.last.Ms {
					want.Seq = m.last.Seq + 1
				}
			default:
				want = xid.ID
			}
			switch {
			case !m.exists && noMk:
				if ok || err != nil {
					t.Fatalf("%s: NOMKSTREAM on absent: ok %v err %v", desc, ok, err)
				}
				continue
			case xid.SeqAuto && xid.ID.Ms == m.last.Ms && m.last.Seq == 1<<64-1:
				if err != ErrXAddSeqOverflow {
					t.Fatalf("%s: XADD %v-* after %v: err %v", desc, xid.ID.Ms, m.last, err)
				}
				continue
			case !m.last.Less(want):
				if err != ErrXAddIDSmall {
					t.Fatalf("%s: XADD %v after %v: err %v", desc, want, m.last, err)
				}
				continue
			}
			if err != nil || !ok || res.ID != want {
				t.Fatalf("%s: XADD: %v %v %v, want %v", desc, res.ID, ok, err, want)
			}
			m.add(want, sfv)
			if trim != nil {
				modelTrim(t, desc, m, trim, res.Trimmed)
			}
		case 3: // XDEL
			var ids []StreamID
			for j := 0; j < 1+int(c%3); j++ {
				if len(m.ids) > 0 && a%3 != 0 {
					ids = append(ids, m.ids[(int(b)+j*7)%len(m.ids)])
				} else {
					ids = append(ids, near())
				}
			}
			n, err := db.XDel(key, len(ids), func(i int) StreamID { return ids[i] }, 0)
			want := 0
			for _, id := range ids {
				if m.del(id) {
					want++
					if m.maxDel.Less(id) {
						m.maxDel = id
					}
				}
			}
			if err != nil || n != want {
				t.Fatalf("%s: XDEL %v = %d %v, want %d", desc, ids, n, err, want)
			}
		case 4: // XTRIM
			trim := &XTrimArgs{Strategy: XTrimMaxLen, MaxLen: int64(c % 30), Approx: a%2 == 0}
			if b%2 == 0 {
				var min StreamID
				if len(m.ids) > 0 {
					min = m.ids[int(c)%len(m.ids)]
				}
				trim = &XTrimArgs{Strategy: XTrimMinID, MinID: min, Approx: a%2 == 0}
			}
			if a%5 == 0 {
				trim.Limit = int64(c % 7)
			}
			n, err := db.XTrim(key, trim, 0)
			if err != nil {
				t.Fatalf("%s: XTRIM: %v", desc, err)
			}
			modelTrim(t, desc, m, trim, n)
		case 5: // XRANGE / XREVRANGE with COUNT
			if len(m.ids) == 0 {
				continue
			}
			lo := m.ids[int(a)%len(m.ids)]
			hi := m.ids[int(b)%len(m.ids)]
			if c%5 == 0 {
				lo, hi = StreamID{lo.Ms, 0}, StreamID{hi.Ms, 1<<64 - 1}
			}
			count := int(c % 4)
			rev := c%2 == 1
			var got, want []StreamID
			db.XRange(key, lo, hi, count, rev, 0, func(id StreamID, _ [][]byte) bool {
				got = append(got, id)
				return true
			})
			for _, id := range m.ids {
				if !id.Less(lo) && !hi.Less(id) {
					want = append(want, id)
				}
			}
			if rev {
				slices.Reverse(want)
			}
			if count > 0 && len(want) > count {
				want = want[:count]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: XRANGE %v %v count %d rev %v = %v, want %v", desc, lo, hi, count, rev, got, want)
			}
		case 6: // Export and Import: the same nodes
			rec, ok := db.Export(key, 0)
			if ok != m.exists {
				t.Fatalf("%s: export ok %v", desc, ok)
			}
			if ok {
				before, _, _ := db.XInfo(key, 0)
				db.Import(key, rec)
				after, _, _ := db.XInfo(key, 0)
				if before != after {
					t.Fatalf("%s: imported %+v, exported %+v", desc, after, before)
				}
				if again, _ := db.Export(key, 0); string(again.Data) != string(rec.Data) {
					t.Fatalf("%s: exported again %q, first %q", desc, again.Data, rec.Data)
				}
			}
		case 7: // XSETID forward
			if !m.exists {
				continue
			}
			id := StreamID{m.last.Ms + uint64(a%3), uint64(b)}
			err := db.XSetID(key, id, -1, StreamID{}, 0)
			var lastLive StreamID
			if len(m.ids) > 0 {
				lastLive = m.ids[len(m.ids)-1]
			}
			switch {
			case len(m.ids) > 0 && id.Less(lastLive):
				if err != ErrXSetIDSmall {
					t.Fatalf("%s: XSETID %v below %v: %v", desc, id, lastLive, err)
				}
			default:
				if err != nil {
					t.Fatalf("%s: XSETID %v: %v", desc, id, err)
				}
				m.last = id
			}
		}
		if err := checkStream(db, key); err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		ids, fv := streamContents(t, db, key)
		if !slices.Equal(ids, m.ids) {
			t.Fatalf("%s: ids %v, model %v", desc, ids, m.ids)
		}
		for _, id := range ids {
			if !slices.Equal(fv[id], m.fv[id]) {
				t.Fatalf("%s: %v holds %q, model %q", desc, id, fv[id], m.fv[id])
			}
		}
		if m.exists {
			info, ok, _ := db.XInfo(key, 0)
			if !ok || info.Length != uint64(len(m.ids)) || info.LastID != m.last || info.EntriesAdded != m.added || info.MaxDeletedID != m.maxDel {
				t.Fatalf("%s: info %+v, model len %d last %v added %d maxdel %v", desc, info, len(m.ids), m.last, m.added, m.maxDel)
			}
			if len(m.ids) > 0 && info.FirstID != m.ids[0] {
				t.Fatalf("%s: first ID %v, model %v", desc, info.FirstID, m.ids[0])
			}
		}
	}
	db.Delete(key, 0)
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks leaked", s.SlabLive())
	}
}

// modelTrim applies a trim to the model. An exact trim is the model's
// own; an approximate one (whole nodes) must have removed a prefix of the
// entries, no more than an exact trim would.
func modelTrim(t *testing.T, desc string, m *xmodel, a *XTrimArgs, got int64) {
	t.Helper()
	var exact int
	if a.Strategy == XTrimMaxLen {
		exact = max(0, len(m.ids)-int(a.MaxLen))
	} else {
		exact, _ = slices.BinarySearchFunc(m.ids, a.MinID, StreamID.Cmp)
	}
	if !a.Approx && a.Limit == 0 && got != int64(exact) || got > int64(exact) {
		t.Fatalf("%s: trim %+v removed %d, exact %d", desc, a, got, exact)
	}
	for _, id := range m.ids[:got] {
		delete(m.fv, id)
	}
	m.ids = m.ids[got:]
}

func TestStreamModel(t *testing.T) {
	for _, lim := range [][2]int{{100, 4096}, {3, 4096}, {5, 120}, {0, 0}, {1, 1}} {
		for seed := int64(0); seed < 6; seed++ {
			r := rand.New(rand.NewSource(seed))
			ops := make([]byte, 4*800)
			r.Read(ops)
			t.Run(fmt.Sprintf("lim%v/seed%d", lim, seed), func(t *testing.T) { streamModel(t, ops, lim[0], lim[1]) })
		}
	}
}

func FuzzStream(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 5, 6, 7, 4, 1, 2, 3, 3, 1, 1, 1, 5, 0, 1, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		streamModel(t, ops, 100, 4096)
		streamModel(t, ops, 3, 100)
	})
}

// TestStreamNodes checks where nodes close: at stream-node-max-entries
// entries, and where Redis's listpack would reach stream-node-max-bytes
// (Redis 7.0.15 puts 100 entries of one small field per node, 29 entries
// of a 128-byte value, 4 of two fields with a 1000-byte value), and the
// radix tree's node count (node and rax node counts read from its XINFO
// STREAM).
func TestStreamNodes(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	for _, tc := range []struct {
		fv         []string
		n          int
		nodes, rax int
	}{
		{[]string{"f", "v"}, 1000, 10, 26},
		{[]string{"f", strings.Repeat("x", 128)}, 290, 10, 23},
		{[]string{"f", strings.Repeat("x", 128)}, 291, 11, 26},
		{[]string{"f", strings.Repeat("y", 1000), "g", "12345"}, 39, 10, 22},
	} {
		key := []byte(fmt.Sprint(tc))
		var fv [][]byte
		for _, s := range tc.fv {
			fv = append(fv, []byte(s))
		}
		for i := 0; i < tc.n; i++ {
			if _, _, err := db.XAdd(key, XAddID{ID: StreamID{uint64(i + 1), 0}}, fv, false, nil, 0); err != nil {
				t.Fatal(err)
			}
		}
		info, _, _ := db.XInfo(key, 0)
		if info.Nodes != tc.nodes || info.RaxNodes != tc.rax {
			t.Errorf("%d entries of %d fields: %d nodes, %d rax nodes, want %d, %d", tc.n, len(tc.fv)/2, info.Nodes,
				info.RaxNodes, tc.nodes, tc.rax)
		}
	}
}

// TestStreamRecordMalformed: a record cut anywhere, or with entries out
// of order, is refused and leaks nothing.
func TestStreamRecordMalformed(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	for i := 1; i <= 5; i++ {
		db.XAdd([]byte("x"), XAddID{ID: StreamID{uint64(i), 0}}, [][]byte{[]byte("f"), []byte("v")}, false, nil, 0)
	}
	rec, _ := db.Export([]byte("x"), 0)
	db.Delete([]byte("x"), 0)
	for n := 0; n < len(rec.Data); n++ {
		db.Import([]byte("y"), Record{Type: TypeStream, Data: rec.Data[:n]})
		if db.Exists([]byte("y"), 0) {
			t.Fatalf("a record cut at %d of %d loaded", n, len(rec.Data))
		}
	}
	// Two entries in the wrong order.
	var sb StreamRecordBuilder
	sb.Node([][]byte{[]byte("f")}, 2)
	sb.Entry(StreamID{5, 0}, false, [][]byte{[]byte("f"), []byte("v")})
	sb.Entry(StreamID{4, 0}, false, [][]byte{[]byte("f"), []byte("v")})
	db.Import([]byte("y"), sb.Record(StreamID{9, 0}, StreamID{}, StreamID{}, 2))
	if db.Exists([]byte("y"), 0) {
		t.Fatal("entries out of order loaded")
	}
	if s.SlabLive() != 0 {
		t.Fatalf("%d blocks leaked", s.SlabLive())
	}
}

// TestXLast: XLast's length, last ID and last live ID are XInfo's, while
// entries are added, the last ones deleted and the stream emptied.
func TestXLast(t *testing.T) {
	s := NewStore(1)
	defer s.Close()
	db := s.DB(0)
	key := []byte("x")
	check := func(step string) {
		t.Helper()
		got, gotOK, err1 := db.XLast(key, 0)
		want, wantOK, err2 := db.XInfo(key, 0)
		if err1 != nil || err2 != nil || gotOK != wantOK || got.Length != want.Length || got.LastID != want.LastID || got.LastLive != want.LastLive {
			t.Fatalf("%s: XLast %+v %v %v, XInfo %+v %v %v", step, got, gotOK, err1, want, wantOK, err2)
		}
	}
	check("absent")
	for i := 1; i <= 300; i++ {
		if _, _, err := db.XAdd(key, XAddID{ID: StreamID{uint64(i), 0}}, [][]byte{[]byte("f"), []byte("v")}, false, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	check("300 entries")
	for i := 300; i >= 1; i -= 7 {
		if _, err := db.XDel(key, 1, func(int) StreamID { return StreamID{uint64(i), 0} }, 0); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("after deleting %d-0", i))
	}
	if _, err := db.XTrim(key, &XTrimArgs{Strategy: XTrimMaxLen, MaxLen: 0}, 0); err != nil {
		t.Fatal(err)
	}
	check("emptied")
}

package engine

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
)

// gmodel is the reference consumer groups are held to: per group its last
// ID, its PEL as a map of ID to owner, delivery time and count, and its
// consumers' seen-times.
type gmodel struct {
	last StreamID
	read int64
	pel  map[StreamID]gnack
	seen map[string]int64
}

type gnack struct {
	owner string
	time  int64
	count uint64
}

// groupState reads a group back through the engine's read calls.
func groupState(t *testing.T, db *DB, key []byte, name string) (GroupInfo, map[StreamID]gnack, map[string]int64) {
	t.Helper()
	g, err := db.XGroupInfo(key, []byte(name), 0)
	if err != nil {
		t.Fatalf("group %s: %v", name, err)
	}
	pel := map[StreamID]gnack{}
	var prev *StreamID
	db.XPending(key, []byte(name), nil, StreamID{}, MaxStreamID, 0, func(p PendingEntry) bool {
		if prev != nil && !prev.Less(p.ID) {
			t.Fatalf("PEL out of order: %v after %v", p.ID, *prev)
		}
		prev = &p.ID
		pel[p.ID] = gnack{p.Consumer, p.Time, p.Count}
		return true
	})
	seen := map[string]int64{}
	owned := 0
	db.XConsumers(key, []byte(name), 0, func(c ConsumerInfo) {
		seen[c.Name] = c.Seen
		n := 0
		db.XPending(key, []byte(name), []byte(c.Name), StreamID{}, MaxStreamID, 0, func(p PendingEntry) bool {
			if pel[p.ID].owner != c.Name {
				t.Fatalf("consumer %s holds %v, the group's PEL says %s", c.Name, p.ID, pel[p.ID].owner)
			}
			n++
			return true
		})
		if n != c.Pending {
			t.Fatalf("consumer %s: %d pending, PEL walk %d", c.Name, c.Pending, n)
		}
		owned += n
	})
	if owned != len(pel) || g.Pending != len(pel) || g.Consumers != len(seen) {
		t.Fatalf("group %s: %d pending, %d owned, %+v", name, len(pel), owned, g)
	}
	return g, pel, seen
}

// groupModel runs ops (4 bytes each) on one stream with groups and checks
// the groups against the model after each, and that a copy of the key
// (Export, Import) holds the same groups. The first byte picks the
// entries per node (Redis's 100, or 1 to 3, so that reads of new entries
// cross nodes and find their group's position in nodes freed or grown).
func groupModel(t *testing.T, ops []byte) {
	s := NewStore(1)
	if len(ops) > 0 {
		s.Limits.StreamNodeMaxEntries = []int{100, 1, 2, 3}[ops[0]%4]
	}
	db := s.DB(0)
	key := []byte("s")
	var xm xmodel
	xm.fv = map[StreamID][]string{}
	groups := map[string]*gmodel{}
	names := []string{"g0", "g1", "g2"}
	cons := []string{"a", "b", "c", "d"}
	now := int64(1000)
	var fx []GroupEffect
	for i := 0; i+4 <= len(ops); i += 4 {
		op, a, b, c := ops[i]%11, int(ops[i+1]), int(ops[i+2]), int(ops[i+3])
		now += int64(c % 7)
		gname := names[a%len(names)]
		g := groups[gname]
		cname := cons[b%len(cons)]
		pick := func() StreamID { // an ID near the stream's
			return StreamID{uint64(c % 40), uint64(b % 2)}
		}
		had := false
		if g != nil {
			_, had = g.seen[cname]
		}
		switch op {
		case 0, 1: // XADD
			id := StreamID{xm.last.Ms + 1 + uint64(b%3), uint64(c % 2)}
			if _, _, err := db.XAdd(key, XAddID{ID: id}, [][]byte{[]byte("f"), []byte(fmt.Sprint(c))}, false, nil, now); err != nil {
				t.Fatal(err)
			}
			xm.add(id, []string{"f", fmt.Sprint(c)})
		case 2: // XGROUP CREATE
			id := pick()
			err := db.XGroupCreate(key, []byte(gname), id, b%3 == 0, -1, true, now)
			switch {
			case g != nil:
				if err != ErrBusyGroup {
					t.Fatalf("create %s: %v", gname, err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if b%3 == 0 {
					id = xm.last
				}
				xm.exists = true
				groups[gname] = &gmodel{last: id, read: -1, pel: map[StreamID]gnack{}, seen: map[string]int64{}}
			}
		case 3, 4: // XREADGROUP >
			if g == nil {
				continue
			}
			count := c % 4
			noack := a%5 == 0
			var got []StreamID
			served, err := db.XReadGroup(&XReadGroupArgs{Key: key, Group: []byte(gname), Consumer: []byte(cname), Count: count, NoAck: noack}, now,
				func(id StreamID, fv [][]byte) { got = append(got, id) })
			if err != nil {
				t.Fatal(err)
			}
			var want []StreamID
			for _, id := range xm.ids {
				if g.last.Less(id) && (count == 0 || len(want) < count) {
					want = append(want, id)
				}
			}
			if !slices.Equal(got, want) || served != (len(want) > 0) {
				t.Fatalf("XREADGROUP >: %v (served %v), want %v", got, served, want)
			}
			if served { // a read of nothing new creates no consumer
				g.seen[cname] = now
			}
			for _, id := range want {
				g.last = id
				if !noack {
					g.pel[id] = gnack{cname, now, 1}
				}
			}
		case 5: // XREADGROUP history
			if g == nil {
				continue
			}
			from := pick()
			var got []StreamID
			var gone []StreamID
			db.XReadGroup(&XReadGroupArgs{Key: key, Group: []byte(gname), Consumer: []byte(cname), History: true, From: from, Count: c % 3}, now,
				func(id StreamID, fv [][]byte) {
					got = append(got, id)
					if fv == nil {
						gone = append(gone, id)
					}
				})
			g.seen[cname] = now
			var want []StreamID
			for _, id := range slices.SortedFunc(maps.Keys(g.pel), StreamID.Cmp) {
				if n := g.pel[id]; n.owner == cname && !id.Less(from) && (c%3 == 0 || len(want) < c%3) {
					want = append(want, id)
					if _, live := xm.fv[id]; live {
						g.pel[id] = gnack{cname, now, n.count + 1}
					} else if !slices.Contains(gone, id) {
						t.Fatalf("history: %v deleted, served", id)
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("history from %v: %v, want %v", from, got, want)
			}
		case 6: // XACK
			if g == nil {
				continue
			}
			ids := []StreamID{pick(), {uint64(b % 40), uint64(c % 2)}}
			n, _ := db.XAck(key, []byte(gname), ids, now)
			want := 0
			for _, id := range ids {
				if _, ok := g.pel[id]; ok {
					delete(g.pel, id)
					want++
				}
			}
			if n != want {
				t.Fatalf("XACK %v: %d, want %d", ids, n, want)
			}
		case 7: // XCLAIM
			if g == nil {
				continue
			}
			ids := []StreamID{pick()}
			ca := XClaimArgs{MinIdle: int64(a % 4), Time: now - int64(b%3), RetryCount: -1, Force: a%2 == 0, JustID: b%2 == 0}
			if c%5 == 0 {
				ca.RetryCount = int64(c)
			}
			var got []StreamID
			fx, _ = db.XClaim(key, []byte(gname), []byte(cname), ids, &ca, now, fx[:0], func(id StreamID, _ [][]byte) { got = append(got, id) })
			var want []StreamID
			for _, id := range ids {
				n, pending := g.pel[id]
				_, live := xm.fv[id]
				switch {
				case !live:
					delete(g.pel, id)
					continue
				case !pending && !ca.Force:
					continue
				case !pending:
					n = gnack{"", now, 1}
				case now-n.time < ca.MinIdle:
					continue
				}
				if ca.RetryCount >= 0 {
					n.count = uint64(ca.RetryCount)
				} else if !ca.JustID {
					n.count++
				}
				n.owner, n.time = cname, ca.Time
				g.pel[id] = n
				g.seen[cname] = now
				want = append(want, id)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("XCLAIM %v: %v, want %v", ids, got, want)
			}
		case 8: // XAUTOCLAIM
			if g == nil {
				continue
			}
			start, count, minIdle := pick(), 1+c%3, int64(a%3)
			var got, del []StreamID
			next, _, del, _ := db.XAutoClaim(key, []byte(gname), []byte(cname), minIdle, start, count, false, now, fx[:0], del,
				func(id StreamID, _ [][]byte) { got = append(got, id) })
			var want, wantDel []StreamID
			wantNext := StreamID{}
			attempts, left := 10*count, count
			for _, id := range slices.SortedFunc(maps.Keys(g.pel), StreamID.Cmp) {
				if id.Less(start) {
					continue
				}
				if attempts == 0 || left == 0 {
					wantNext = id
					break
				}
				attempts--
				n := g.pel[id]
				if _, live := xm.fv[id]; !live {
					delete(g.pel, id)
					wantDel = append(wantDel, id)
					left--
					continue
				}
				if now-n.time < minIdle {
					continue
				}
				g.pel[id] = gnack{cname, now, n.count + 1}
				g.seen[cname] = now
				want = append(want, id)
				left--
			}
			if !slices.Equal(got, want) || !slices.Equal(del, wantDel) || next != wantNext {
				t.Fatalf("XAUTOCLAIM %v %d: %v %v %v, want %v %v %v", start, count, next, got, del, wantNext, want, wantDel)
			}
		case 9: // XGROUP DELCONSUMER / CREATECONSUMER / DESTROY
			if g == nil {
				continue
			}
			switch c % 3 {
			case 0:
				n, existed, _ := db.XGroupDelConsumer(key, []byte(gname), []byte(cname), now)
				_, had := g.seen[cname]
				want := 0
				for id, nk := range g.pel {
					if nk.owner == cname {
						delete(g.pel, id)
						want++
					}
				}
				delete(g.seen, cname)
				if existed != had || n != want {
					t.Fatalf("DELCONSUMER %s: %d %v, want %d %v", cname, n, existed, want, had)
				}
			case 1:
				created, _ := db.XGroupCreateConsumer(key, []byte(gname), []byte(cname), now)
				_, had := g.seen[cname]
				if created == had {
					t.Fatalf("CREATECONSUMER %s: %v", cname, created)
				}
				if !had {
					g.seen[cname] = now
				}
			case 2:
				if ok, _ := db.XGroupDestroy(key, []byte(gname), now); !ok {
					t.Fatal("DESTROY")
				}
				delete(groups, gname)
				continue
			}
		case 10: // XDEL
			id := pick()
			if len(xm.ids) > 0 && b%2 == 0 {
				id = xm.ids[c%len(xm.ids)]
			}
			n, _ := db.XDel(key, 1, func(int) StreamID { return id }, now)
			if n == 1 != xm.del(id) {
				t.Fatalf("XDEL %v: %d", id, n)
			}
		}
		if g != nil && (op >= 3 && op <= 5 || op == 7 || op == 8) {
			// The consumer the read or claim created, if any (Redis's
			// xgroup-createconsumer event).
			want := ""
			if _, has := g.seen[cname]; has && !had {
				want = cname
			}
			if got := db.XGroupFresh(key, []byte(gname), now); got != want {
				t.Fatalf("op %d: fresh consumer %q, want %q", op, got, want)
			}
		}
		checkGroups(t, db, key, groups)
	}
	if !xm.exists {
		return
	}
	rec, ok := db.Export(key, now)
	if !ok {
		t.Fatal("export")
	}
	s2 := NewStore(1)
	s2.DB(0).Import(key, rec)
	checkGroups(t, s2.DB(0), key, groups)
	sr, _ := OpenStreamRecord(rec.Data)
	gs, ok := sr.Groups()
	if !ok || len(gs) != len(groups) {
		t.Fatalf("record groups: %d %v, want %d", len(gs), ok, len(groups))
	}
	db.Delete(key, now)
	if len(s.groups) != 0 {
		t.Fatalf("groups left after DEL: %d", len(s.groups))
	}
}

func checkGroups(t *testing.T, db *DB, key []byte, groups map[string]*gmodel) {
	t.Helper()
	if n := db.XGroupCount(key, 0); n != len(groups) {
		t.Fatalf("%d groups, want %d", n, len(groups))
	}
	for name, m := range groups {
		g, pel, seen := groupState(t, db, key, name)
		if g.LastID != m.last {
			t.Fatalf("group %s last %v, want %v", name, g.LastID, m.last)
		}
		if !maps.Equal(pel, m.pel) || !maps.Equal(seen, m.seen) {
			t.Fatalf("group %s:\n pel %v\nwant %v\n seen %v\nwant %v", name, pel, m.pel, seen, m.seen)
		}
	}
}

func TestStreamGroupModel(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		ops := make([]byte, 4*600)
		r.Read(ops)
		t.Run(fmt.Sprint(seed), func(t *testing.T) { groupModel(t, ops) })
	}
}

func FuzzStreamGroups(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 2, 0, 0, 0, 3, 0, 1, 0, 7, 0, 2, 3, 8, 1, 1, 1, 10, 0, 0, 0, 5, 0, 1, 0})
	f.Fuzz(groupModel)
}

// TestStreamGroupLag checks entries-read and lag as Redis 7.0.15 reports
// them (XINFO GROUPS after the same commands).
func TestStreamGroupLag(t *testing.T) {
	s := NewStore(1)
	db := s.DB(0)
	key := []byte("s")
	for i := uint64(1); i <= 5; i++ {
		db.XAdd(key, XAddID{ID: StreamID{i, 0}}, [][]byte{[]byte("f"), []byte("v")}, false, nil, 0)
	}
	db.XGroupCreate(key, []byte("g"), StreamID{}, false, -1, false, 0)
	lag := func() string {
		g, _ := db.XGroupInfo(key, []byte("g"), 0)
		if !g.LagKnown {
			return fmt.Sprintf("%d/nil", g.EntriesRead)
		}
		return fmt.Sprintf("%d/%d", g.EntriesRead, g.Lag)
	}
	steps := []string{lag()}
	db.XReadGroup(&XReadGroupArgs{Key: key, Group: []byte("g"), Consumer: []byte("c"), Count: 2}, 0, func(StreamID, [][]byte) {})
	steps = append(steps, lag())
	db.XDel(key, 1, func(int) StreamID { return StreamID{4, 0} }, 0)
	steps = append(steps, lag())
	db.XReadGroup(&XReadGroupArgs{Key: key, Group: []byte("g"), Consumer: []byte("c")}, 0, func(StreamID, [][]byte) {})
	steps = append(steps, lag())
	// redis-server 7.0.15: XINFO GROUPS entries-read/lag after each step.
	want := []string{"-1/5", "2/3", "2/nil", "5/0"}
	if !slices.Equal(steps, want) {
		t.Fatalf("entries-read/lag %v, want %v", steps, want)
	}
}

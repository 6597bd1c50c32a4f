package engine

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/radish-kv/radish/engine/slab"
)

// Consumer groups of streams, as Redis 7.0 keeps them (t_stream.c):
//
//   - a group: its name, the last ID delivered to it, the count of
//     entries it has read (entries-read; -1 when unknown), its pending
//     entries list (PEL) ordered by ID, and its consumers ordered by name;
//   - a pending entry (Redis's NACK): the ID, the consumer that owns it,
//     the time it was last delivered and how many times it was;
//   - a consumer: its name, the time it was last seen (seen-time) and its
//     own PEL, the group PEL's entries it owns, ordered by ID.
//
// Unlike the stream's entries, groups live in ordinary Go memory, in a map
// of the Store keyed by the stream's root block: a PEL changes at every
// XREADGROUP and XACK (an entry in the middle goes), consumers come and go
// by name, and both are bounded by the work in flight, not by the
// stream's length; sorted slices of pointers keep them ordered at a cost
// the Go collector scans only for streams that have groups. The root
// block, the key's value, does not change when groups do, so a stream's
// handle finds its groups for its whole life; freeing the stream drops
// them. The engine has no clock: every call that stamps a delivery or a
// seen-time gets now.

// Group errors (the command formats NOGROUP with the key and the group).
var (
	ErrNoGroup   = errors.New("NOGROUP")
	ErrBusyGroup = errors.New("BUSYGROUP Consumer Group name already exists")
)

// cgroups are a stream's groups, ordered by name.
type cgroups struct{ list []*cgroup }

type cgroup struct {
	name        string
	lastID      StreamID
	entriesRead int64 // -1: unknown
	pel         []*nack
	consumers   []*consumer
	// fresh is the consumer the last XReadGroup, XClaim or XAutoClaim on
	// the group created ("" when it created none): Redis propagates its
	// creation under NOACK, and notifies xgroup-createconsumer.
	fresh string
	// next is where the entry after lastID starts when next.last is
	// lastID, so that a read of new entries does not decode its node from
	// the start (see XReadGroup).
	next groupPos
}

// groupPos is a position in a stream: the node (its handle and master
// ID) that holds the entry last, and the offset after that entry. A node
// changes in place only by its entries' flags and by entries appended,
// and a new node's master ID is larger than every ID before it, so the
// position stays right while the stream's index holds that handle, with
// that master ID, where last would be.
type groupPos struct {
	node   slab.Handle
	master StreamID
	last   StreamID
	off    int
}

type consumer struct {
	name string
	seen int64
	pel  []*nack
}

// nack is a pending entry.
type nack struct {
	id    StreamID
	owner *consumer
	time  int64
	count uint64
}

// newNack returns a pending entry, reusing one an acknowledgement freed.
func (s *Store) newNack(id StreamID, owner *consumer, time int64) *nack {
	n := len(s.freeNacks)
	if n == 0 {
		return &nack{id: id, owner: owner, time: time, count: 1}
	}
	nk := s.freeNacks[n-1]
	s.freeNacks = s.freeNacks[:n-1]
	*nk = nack{id: id, owner: owner, time: time, count: 1}
	return nk
}

// dropNack keeps a pending entry no PEL holds any more for reuse (at most
// maxFreeNacks of them).
func (s *Store) dropNack(nk *nack) {
	if len(s.freeNacks) < maxFreeNacks {
		*nk = nack{}
		s.freeNacks = append(s.freeNacks, nk)
	}
}

const maxFreeNacks = 1024

// findNack returns the position of id in a PEL, or where it would go.
func findNack(pel []*nack, id StreamID) (int, bool) {
	return slices.BinarySearchFunc(pel, id, func(n *nack, id StreamID) int { return n.id.Cmp(id) })
}

func insertNack(pel []*nack, n *nack) []*nack {
	i, found := findNack(pel, n.id)
	if found {
		pel[i] = n
		return pel
	}
	if i == len(pel) {
		return append(pel, n)
	}
	return slices.Insert(pel, i, n)
}

func removeNack(pel []*nack, id StreamID) []*nack {
	i, found := findNack(pel, id)
	if !found {
		return pel
	}
	return slices.Delete(pel, i, i+1)
}

// cmpName compares a name with b as strings.Compare would, without a
// conversion that allocates.
func cmpName(a string, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func (g *cgroups) find(name []byte) (int, bool) {
	return slices.BinarySearchFunc(g.list, name, func(c *cgroup, n []byte) int { return cmpName(c.name, n) })
}

func (g *cgroups) lookup(name []byte) *cgroup {
	if g == nil {
		return nil
	}
	if i, ok := g.find(name); ok {
		return g.list[i]
	}
	return nil
}

func (cg *cgroup) findConsumer(name []byte) (int, bool) {
	return slices.BinarySearchFunc(cg.consumers, name, func(c *consumer, n []byte) int { return cmpName(c.name, n) })
}

func (cg *cgroup) lookupConsumer(name []byte) *consumer {
	if i, ok := cg.findConsumer(name); ok {
		return cg.consumers[i]
	}
	return nil
}

// createConsumer adds a consumer seen now; nil when it exists.
func (cg *cgroup) createConsumer(name []byte, now int64) *consumer {
	i, ok := cg.findConsumer(name)
	if ok {
		return nil
	}
	c := &consumer{name: string(name), seen: now}
	cg.consumers = slices.Insert(cg.consumers, i, c)
	return c
}

// consumerFor returns the consumer, seen now, creating it (created
// true) when it is new, and counts the creation as a change.
func (st stream) consumerFor(key []byte, cg *cgroup, name []byte, now int64) (c *consumer, created bool) {
	if c = cg.lookupConsumer(name); c != nil {
		c.seen = now
		return c, false
	}
	st.db.changed(key, 1)
	return cg.createConsumer(name, now), true
}

// freshConsumer is consumerFor that records a created consumer as the
// group's fresh one.
func (st stream) freshConsumer(key []byte, cg *cgroup, name []byte, now int64) *consumer {
	c, created := st.consumerFor(key, cg, name, now)
	if created {
		cg.fresh = c.name
	}
	return c
}

// Store returns the Store the database belongs to.
func (db *DB) Store() *Store { return db.s }

// groups returns the stream's groups, nil when it has none.
func (st stream) groups() *cgroups { return st.db.s.groups[st.x] }

// groupsOrNew returns the stream's groups, creating the set.
func (st stream) groupsOrNew() *cgroups {
	g := st.db.s.groups[st.x]
	if g == nil {
		if st.db.s.groups == nil {
			st.db.s.groups = map[slab.Handle]*cgroups{}
		}
		g = &cgroups{}
		st.db.s.groups[st.x] = g
	}
	return g
}

// dropGroups forgets the groups of the stream rooted at x (freed).
func (s *Store) dropGroups(x slab.Handle) {
	if s.groups != nil {
		delete(s.groups, x)
	}
}

// ---- entries-read and lag (Redis's streamEstimateDistanceFromFirstEverEntry) ----

// hasTombstones is Redis's streamRangeHasTombstones(s, start, +).
func (st stream) hasTombstones(start StreamID) bool {
	md := st.maxDeleted()
	if st.length() == 0 || md.IsZero() || md.Less(st.firstID()) {
		return false
	}
	return !md.Less(start)
}

// estimateRead is Redis's streamEstimateDistanceFromFirstEverEntry: the
// entries-read count of a group whose last ID is id, -1 when unknown.
func (st stream) estimateRead(id StreamID) int64 {
	added := int64(st.added())
	if added == 0 {
		return 0
	}
	last := st.lastID()
	if st.length() == 0 && id.Cmp(last) < 1 {
		return added
	}
	switch id.Cmp(last) {
	case 0:
		return added
	case 1:
		return -1
	}
	md, first := st.maxDeleted(), st.firstID()
	if md.IsZero() || md.Less(first) {
		switch id.Cmp(first) {
		case -1:
			return added - int64(st.length())
		case 0:
			return added - int64(st.length()) + 1
		}
	}
	return -1
}

// lag is Redis's streamReplyWithCGLag: the entries the group has not
// read; ok false when it cannot be known.
func (st stream) lag(cg *cgroup) (int64, bool) {
	added := int64(st.added())
	if added == 0 {
		return 0, true
	}
	if cg.entriesRead != -1 && !st.hasTombstones(cg.lastID) {
		return added - cg.entriesRead, true
	}
	if r := st.estimateRead(cg.lastID); r != -1 {
		return added - r, true
	}
	return 0, false
}

// ---- the key API ----

// openGroup opens key's stream and its group: ErrNoGroup when the key or
// the group is absent, ErrWrongType for another type.
func (db *DB) openGroup(key, group []byte, now int64) (stream, *cgroup, error) {
	st, found, err := db.openStream(key, now)
	if err != nil {
		return st, nil, err
	}
	if !found {
		return st, nil, ErrNoGroup
	}
	cg := st.groups().lookup(group)
	if cg == nil {
		return st, nil, ErrNoGroup
	}
	return st, cg, nil
}

// XGroupCreate creates group on the stream at key with last ID id (the
// stream's last ID when dollar) and entries-read entriesRead (-1:
// unknown); mkStream creates an empty stream when the key is absent (the
// caller reports an absent key otherwise). ErrBusyGroup when it exists.
func (db *DB) XGroupCreate(key, group []byte, id StreamID, dollar bool, entriesRead int64, mkStream bool, now int64) error {
	st, found, err := db.openStream(key, now)
	if err != nil {
		return err
	}
	if found && st.groups().lookup(group) != nil {
		return ErrBusyGroup
	}
	if !found {
		if !mkStream {
			return ErrNoGroup
		}
		st = db.newStream()
		db.newObj(key, TypeStream, encStream, st.x)
	}
	if dollar {
		id = st.lastID()
	}
	g := st.groupsOrNew()
	i, _ := g.find(group)
	g.list = slices.Insert(g.list, i, &cgroup{name: string(group), lastID: id, entriesRead: entriesRead})
	db.changed(key, 1)
	return nil
}

// XGroupSetID sets the group's last ID (the stream's last ID when dollar)
// and entries-read count.
func (db *DB) XGroupSetID(key, group []byte, id StreamID, dollar bool, entriesRead int64, now int64) error {
	st, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return err
	}
	if dollar {
		id = st.lastID()
	}
	cg.lastID, cg.entriesRead = id, entriesRead
	db.changed(key, 1)
	return nil
}

// XGroupDestroy removes the group; false when it did not exist.
func (db *DB) XGroupDestroy(key, group []byte, now int64) (bool, error) {
	st, cg, err := db.openGroup(key, group, now)
	if err == ErrNoGroup {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	g := st.groups()
	i, _ := g.find([]byte(cg.name))
	g.list = slices.Delete(g.list, i, i+1)
	if len(g.list) == 0 {
		db.s.dropGroups(st.x)
	}
	db.changed(key, 1)
	return true, nil
}

// XGroupCreateConsumer adds a consumer to the group; false when it
// existed.
func (db *DB) XGroupCreateConsumer(key, group, name []byte, now int64) (bool, error) {
	_, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return false, err
	}
	if cg.createConsumer(name, now) == nil {
		return false, nil
	}
	db.changed(key, 1)
	return true, nil
}

// XGroupDelConsumer removes a consumer and its pending entries; it
// returns how many it had (existed false when there was no such consumer).
func (db *DB) XGroupDelConsumer(key, group, name []byte, now int64) (pending int, existed bool, err error) {
	_, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return 0, false, err
	}
	i, ok := cg.findConsumer(name)
	if !ok {
		return 0, false, nil
	}
	c := cg.consumers[i]
	for _, n := range c.pel {
		cg.pel = removeNack(cg.pel, n.id)
		db.s.dropNack(n)
	}
	cg.consumers = slices.Delete(cg.consumers, i, i+1)
	db.changed(key, 1)
	return len(c.pel), true, nil
}

// XReadGroupArgs is one stream of an XREADGROUP.
type XReadGroupArgs struct {
	Key, Group, Consumer []byte
	// History: the consumer's pending entries with IDs >= From (Redis
	// serves them even when there are none); else (">") the entries
	// after the group's last ID, which become pending unless NoAck.
	History bool
	From    StreamID
	Count   int // 0: no limit
	NoAck   bool
}

// XReadGroup serves one stream of an XREADGROUP as Redis's
// streamReplyWithRange does with a group: fn gets each entry delivered
// (fv nil: a pending entry whose entry was deleted); fv and its bytes are
// valid during the call, and fn must not call the Store. A history read
// is always served; a read of new entries (">") only when the stream has
// an entry after the group's last ID, and changes nothing otherwise. A
// served read creates the consumer when it is new. served: the read was
// served. err is ErrNoGroup or ErrWrongType.
func (db *DB) XReadGroup(a *XReadGroupArgs, now int64, fn func(id StreamID, fv [][]byte)) (served bool, err error) {
	st, cg, err := db.openGroup(a.Key, a.Group, now)
	if err != nil {
		return false, err
	}
	var c *consumer
	cg.fresh = ""
	serve := func() {
		var created bool
		if c, created = st.consumerFor(a.Key, cg, a.Consumer, now); created {
			cg.fresh = c.name
		}
		db.changed(a.Key, 1)
	}
	if a.History {
		serve()
		i, _ := findNack(c.pel, a.From)
		n := 0
		for ; i < len(c.pel) && (a.Count == 0 || n < a.Count); i++ {
			nk := c.pel[i]
			served := false
			st.rangeEach(nk.id, nk.id, 1, false, func(id StreamID, fv [][]byte) bool {
				fn(id, fv)
				served = true
				return false
			})
			if !served {
				fn(nk.id, nil)
			} else {
				nk.time = now
				nk.count++
			}
			n++
		}
		return true, nil
	}
	from, ok := cg.lastID.Next()
	if !ok || !cg.lastID.Less(st.lastID()) {
		return false, nil
	}
	sl := db.s.slab
	ix := sl.Bytes(st.index())
	ni, off := max(ixFind(ix, from), 0), -1
	if p := cg.next; p.last == cg.lastID && ni < ixCount(ix) && ixNode(ix, ni) == p.node && getID(sl.Bytes(p.node), ndMaster) == p.master {
		off = p.off
	}
	n := 0
	st.eachFrom(ni, off, from, MaxStreamID, false, func(ni int, b []byte, e xentry) bool {
		if c == nil {
			serve()
		}
		id := e.id
		db.s.fv = entryFields(b, &e, db.s.fv)
		if cg.lastID.Less(id) {
			if cg.entriesRead != -1 && !st.hasTombstones(id) {
				cg.entriesRead++
			} else if st.added() != 0 {
				cg.entriesRead = st.estimateRead(id)
			}
			cg.lastID = id
		}
		if !a.NoAck {
			i, found := findNack(cg.pel, id)
			if found {
				nk := cg.pel[i]
				nk.owner.pel = removeNack(nk.owner.pel, id)
				nk.owner, nk.time, nk.count = c, now, 1
				c.pel = insertNack(c.pel, nk)
			} else {
				nk := db.s.newNack(id, c, now)
				cg.pel = slices.Insert(cg.pel, i, nk)
				c.pel = insertNack(c.pel, nk)
			}
		}
		cg.next = groupPos{node: ixNode(sl.Bytes(st.index()), ni), master: getID(b, ndMaster), last: cg.lastID, off: e.end}
		fn(id, db.s.fv)
		n++
		return a.Count <= 0 || n < a.Count
	})
	return c != nil, nil
}

// XAck removes the IDs from the group's PEL; it returns how many were
// there (0 when the key or the group is absent).
func (db *DB) XAck(key, group []byte, ids []StreamID, now int64) (int, error) {
	_, cg, err := db.openGroup(key, group, now)
	if err == ErrNoGroup {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		i, found := findNack(cg.pel, id)
		if !found {
			continue
		}
		nk := cg.pel[i]
		cg.pel = slices.Delete(cg.pel, i, i+1)
		nk.owner.pel = removeNack(nk.owner.pel, id)
		db.s.dropNack(nk)
		n++
		db.changed(key, 1)
	}
	return n, nil
}

// GroupEffect is one of the writes a claim did, in the form Redis
// propagates it: an XCLAIM ... FORCE JUSTID of one pending entry as it is
// now (a deleted entry's as it was, with its old owner: the claim drops
// it), or (SetID) an XGROUP SETID of the group.
type GroupEffect struct {
	SetID       bool
	Arg         int // XClaim: the index in ids of the claimed ID; -1 otherwise
	ID          StreamID
	Consumer    string
	Time        int64
	Count       uint64
	LastID      StreamID // the group's last ID then
	EntriesRead int64    // SetID
}

// XClaimArgs is XCLAIM's parsed options.
type XClaimArgs struct {
	MinIdle    int64
	Time       int64 // the delivery time to set
	RetryCount int64 // -1: not given
	Force      bool
	JustID     bool
	LastID     StreamID
}

// XClaim is Redis's xclaimCommand after parsing: it claims the pending
// entries ids for consumer name, calling fn for each claimed (fv nil
// with JustID), and appends what it did to fx in Redis's propagation
// order. fn must not call the Store.
func (db *DB) XClaim(key, group, name []byte, ids []StreamID, a *XClaimArgs, now int64,
	fx []GroupEffect, fn func(id StreamID, fv [][]byte)) ([]GroupEffect, error) {
	st, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return fx, err
	}
	cg.fresh = ""
	setID := false
	if cg.lastID.Less(a.LastID) {
		cg.lastID = a.LastID
		setID = true
	}
	var c *consumer
	for j, id := range ids {
		i, found := findNack(cg.pel, id)
		if !st.exists(id) {
			if found {
				nk := cg.pel[i]
				fx = append(fx, GroupEffect{Arg: j, ID: id, Consumer: nk.owner.name, Time: nk.time, Count: nk.count, LastID: cg.lastID})
				setID = false
				db.changed(key, 1)
				cg.pel = slices.Delete(cg.pel, i, i+1)
				nk.owner.pel = removeNack(nk.owner.pel, id)
				db.s.dropNack(nk)
			}
			continue
		}
		var nk *nack
		switch {
		case found:
			nk = cg.pel[i]
			if a.MinIdle != 0 && now-nk.time < a.MinIdle {
				continue
			}
		case a.Force:
			nk = db.s.newNack(id, nil, now)
			cg.pel = slices.Insert(cg.pel, i, nk)
		default:
			continue
		}
		if c == nil {
			c = st.freshConsumer(key, cg, name, now)
		}
		if nk.owner != c && nk.owner != nil {
			nk.owner.pel = removeNack(nk.owner.pel, id)
		}
		nk.time = a.Time
		switch {
		case a.RetryCount >= 0:
			nk.count = uint64(a.RetryCount)
		case !a.JustID:
			nk.count++
		}
		if nk.owner != c {
			c.pel = insertNack(c.pel, nk)
			nk.owner = c
		}
		if a.JustID {
			fn(id, nil)
		} else {
			st.rangeEach(id, id, 1, false, func(id StreamID, fv [][]byte) bool {
				fn(id, fv)
				return false
			})
		}
		fx = append(fx, GroupEffect{Arg: j, ID: id, Consumer: c.name, Time: nk.time, Count: nk.count, LastID: cg.lastID})
		setID = false
		db.changed(key, 1)
	}
	if setID {
		fx = append(fx, GroupEffect{SetID: true, Arg: -1, LastID: cg.lastID, EntriesRead: cg.entriesRead})
		db.changed(key, 1)
	}
	return fx, nil
}

// exists reports whether the stream has a live entry id.
func (st stream) exists(id StreamID) bool {
	found := false
	st.each(id, id, false, false, func(int, []byte, xentry) bool {
		found = true
		return false
	})
	return found
}

// XAutoClaim is Redis's xautoclaimCommand after parsing: it claims for
// consumer name up to count pending entries from start on idle at least
// minIdle, looking at no more than 10*count of them, dropping those whose
// entry was deleted (deleted gets their IDs). fn gets each claimed entry
// (fv nil with justID); next is the cursor (0-0 at the end). The effects
// are appended to fx as XClaim does (Arg -1).
func (db *DB) XAutoClaim(key, group, name []byte, minIdle int64, start StreamID, count int, justID bool, now int64,
	fx []GroupEffect, deleted []StreamID, fn func(id StreamID, fv [][]byte)) (next StreamID, _ []GroupEffect, _ []StreamID, err error) {
	st, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return next, fx, deleted, err
	}
	cg.fresh = ""
	attempts := 10 * count
	var c *consumer
	i, _ := findNack(cg.pel, start)
	for attempts > 0 && count > 0 && i < len(cg.pel) {
		attempts--
		nk := cg.pel[i]
		id := nk.id
		if !st.exists(id) {
			fx = append(fx, GroupEffect{Arg: -1, ID: id, Consumer: nk.owner.name, Time: nk.time, Count: nk.count, LastID: cg.lastID})
			db.changed(key, 1)
			cg.pel = slices.Delete(cg.pel, i, i+1)
			nk.owner.pel = removeNack(nk.owner.pel, id)
			db.s.dropNack(nk)
			deleted = append(deleted, id)
			count--
			continue
		}
		i++
		if minIdle != 0 && now-nk.time < minIdle {
			continue
		}
		if c == nil {
			c = st.freshConsumer(key, cg, name, now)
		}
		if nk.owner != c {
			nk.owner.pel = removeNack(nk.owner.pel, id)
		}
		nk.time = now
		if !justID {
			nk.count++
		}
		if nk.owner != c {
			c.pel = insertNack(c.pel, nk)
			nk.owner = c
		}
		if justID {
			fn(id, nil)
		} else {
			st.rangeEach(id, id, 1, false, func(id StreamID, fv [][]byte) bool {
				fn(id, fv)
				return false
			})
		}
		count--
		fx = append(fx, GroupEffect{Arg: -1, ID: id, Consumer: c.name, Time: nk.time, Count: nk.count, LastID: cg.lastID})
		db.changed(key, 1)
	}
	if i < len(cg.pel) {
		next = cg.pel[i].id
	}
	return next, fx, deleted, nil
}

// ---- reading groups ----

// GroupInfo is a group as XINFO GROUPS shows it.
type GroupInfo struct {
	Name        string
	Consumers   int
	Pending     int
	LastID      StreamID
	EntriesRead int64 // -1: unknown
	Lag         int64
	LagKnown    bool
}

// PendingEntry is a pending entry.
type PendingEntry struct {
	ID       StreamID
	Consumer string
	Time     int64 // last delivery (unix ms)
	Count    uint64
}

// ConsumerInfo is a consumer.
type ConsumerInfo struct {
	Name    string
	Seen    int64
	Pending int
}

func (st stream) groupInfo(cg *cgroup) GroupInfo {
	lag, ok := st.lag(cg)
	return GroupInfo{Name: cg.name, Consumers: len(cg.consumers), Pending: len(cg.pel), LastID: cg.lastID,
		EntriesRead: cg.entriesRead, Lag: lag, LagKnown: ok}
}

// XGroupCount returns the number of groups of the stream at key.
func (db *DB) XGroupCount(key []byte, now int64) int {
	st, found, err := db.openStream(key, now)
	if err != nil || !found || st.groups() == nil {
		return 0
	}
	return len(st.groups().list)
}

// XGroups calls fn for each group of the stream at key, by name.
func (db *DB) XGroups(key []byte, now int64, fn func(g GroupInfo)) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found || st.groups() == nil {
		return
	}
	for _, cg := range st.groups().list {
		fn(st.groupInfo(cg))
	}
}

// XGroupInfo returns one group (ErrNoGroup when absent).
func (db *DB) XGroupInfo(key, group []byte, now int64) (GroupInfo, error) {
	st, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return GroupInfo{}, err
	}
	return st.groupInfo(cg), nil
}

// XConsumers calls fn for each consumer of the group, by name.
func (db *DB) XConsumers(key, group []byte, now int64, fn func(c ConsumerInfo)) error {
	_, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return err
	}
	for _, c := range cg.consumers {
		fn(ConsumerInfo{Name: c.name, Seen: c.seen, Pending: len(c.pel)})
	}
	return nil
}

// XPending calls fn for the group's pending entries (those of consumer
// when not nil; none when it does not exist) with start <= ID <= end, in
// order, until fn returns false.
func (db *DB) XPending(key, group, consumer []byte, start, end StreamID, now int64, fn func(p PendingEntry) bool) error {
	_, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return err
	}
	pel := cg.pel
	if consumer != nil {
		c := cg.lookupConsumer(consumer)
		if c == nil {
			return nil
		}
		pel = c.pel
	}
	i, _ := findNack(pel, start)
	for ; i < len(pel) && !end.Less(pel[i].id); i++ {
		nk := pel[i]
		if !fn(PendingEntry{ID: nk.id, Consumer: nk.owner.name, Time: nk.time, Count: nk.count}) {
			return nil
		}
	}
	return nil
}

// XGroupsFull walks the stream's groups as XINFO STREAM FULL does: group
// for each, then pending for its PEL's entries, consumers with its
// consumer count, then consumer for each consumer and cpending for that
// consumer's PEL's entries (count > 0: at most count of each PEL).
func (db *DB) XGroupsFull(key []byte, count int, now int64, group func(g GroupInfo), pending func(p PendingEntry),
	consumers func(n int), consumer func(c ConsumerInfo), cpending func(p PendingEntry)) {
	st, found, err := db.openStream(key, now)
	if err != nil || !found || st.groups() == nil {
		return
	}
	for _, cg := range st.groups().list {
		group(st.groupInfo(cg))
		for i, nk := range cg.pel {
			if count > 0 && i >= count {
				break
			}
			pending(PendingEntry{ID: nk.id, Consumer: nk.owner.name, Time: nk.time, Count: nk.count})
		}
		consumers(len(cg.consumers))
		for _, c := range cg.consumers {
			consumer(ConsumerInfo{Name: c.name, Seen: c.seen, Pending: len(c.pel)})
			for i, nk := range c.pel {
				if count > 0 && i >= count {
					break
				}
				cpending(PendingEntry{ID: nk.id, Consumer: c.name, Time: nk.time, Count: nk.count})
			}
		}
	}
}

// XGroupFresh returns the consumer the last XReadGroup, XClaim or
// XAutoClaim on the group created ("" when none): Redis propagates an
// XREADGROUP NOACK's, and notifies each.
func (db *DB) XGroupFresh(key, group []byte, now int64) string {
	_, cg, err := db.openGroup(key, group, now)
	if err != nil {
		return ""
	}
	return cg.fresh
}

// groupsSize estimates the bytes of a stream's groups, as Redis's
// objectComputeSize counts its consumer groups' structures.
func (st stream) groupsSize() int64 {
	g := st.groups()
	if g == nil {
		return 0
	}
	var n int64
	for _, cg := range g.list {
		n += int64(96 + len(cg.name) + 32*len(cg.pel))
		for _, c := range cg.consumers {
			n += int64(64 + len(c.name) + 8*len(c.pel))
		}
	}
	return n
}

// ---- Record ----
//
// A stream with groups appends them to its Record, in the order Redis's
// RDB writes them: a uvarint group count; per group its name, last ID,
// entries-read + 1 (uvarints), its PEL (a count, then per entry the ID,
// the delivery time and count), its consumers (a count, then per consumer
// its name, seen-time and PEL: a count, then IDs, each one of the group's
// PEL). A stream without groups has no such part.

func appendGroups(dst []byte, g *cgroups) []byte {
	if g == nil || len(g.list) == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(g.list)))
	for _, cg := range g.list {
		dst = appendStr(dst, []byte(cg.name))
		dst = appendIDVarint(dst, cg.lastID)
		dst = binary.AppendUvarint(dst, uint64(cg.entriesRead+1))
		dst = binary.AppendUvarint(dst, uint64(len(cg.pel)))
		for _, nk := range cg.pel {
			dst = appendIDVarint(dst, nk.id)
			dst = binary.AppendUvarint(dst, uint64(nk.time))
			dst = binary.AppendUvarint(dst, nk.count)
		}
		dst = binary.AppendUvarint(dst, uint64(len(cg.consumers)))
		for _, c := range cg.consumers {
			dst = appendStr(dst, []byte(c.name))
			dst = binary.AppendUvarint(dst, uint64(c.seen))
			dst = binary.AppendUvarint(dst, uint64(len(c.pel)))
			for _, nk := range c.pel {
				dst = appendIDVarint(dst, nk.id)
			}
		}
	}
	return dst
}

// loadGroups reads the groups part of a Record into the stream; false on
// malformed data (an unordered PEL, a consumer's entry the group lacks,
// two groups or consumers of one name).
func (st stream) loadGroups(r *recReader) bool {
	n := r.count(4)
	if n == 0 || r.bad {
		return false
	}
	g := st.groupsOrNew()
	for range n {
		name := r.str()
		cg := &cgroup{name: string(name), lastID: r.id(), entriesRead: int64(r.uvarint()) - 1}
		if r.bad || g.lookup(name) != nil || len(g.list) > 0 && g.list[len(g.list)-1].name > cg.name {
			return false
		}
		g.list = append(g.list, cg)
		np := r.count(4)
		cg.pel = make([]*nack, 0, np)
		for range np {
			nk := &nack{id: r.id(), time: int64(r.uvarint()), count: r.uvarint()}
			if len(cg.pel) > 0 && !cg.pel[len(cg.pel)-1].id.Less(nk.id) {
				return false
			}
			cg.pel = append(cg.pel, nk)
		}
		nc := r.count(3)
		for range nc {
			name := r.str()
			if r.bad || len(cg.consumers) > 0 && cg.consumers[len(cg.consumers)-1].name >= string(name) {
				return false
			}
			c := &consumer{name: string(name), seen: int64(r.uvarint())}
			cg.consumers = append(cg.consumers, c)
			ncp := r.count(2)
			for range ncp {
				id := r.id()
				i, found := findNack(cg.pel, id)
				if r.bad || !found || cg.pel[i].owner != nil || len(c.pel) > 0 && !c.pel[len(c.pel)-1].id.Less(id) {
					return false
				}
				cg.pel[i].owner = c
				c.pel = append(c.pel, cg.pel[i])
			}
		}
		for _, nk := range cg.pel {
			if nk.owner == nil {
				return false
			}
		}
	}
	return !r.bad && r.off == len(r.b)
}

// GroupRecord is a group as a Record keeps it.
type GroupRecord struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64 // -1: unknown
	PEL         []PendingEntry
	Consumers   []ConsumerRecord
}

// ConsumerRecord is a consumer as a Record keeps it: its PEL's IDs are
// entries of its group's PEL.
type ConsumerRecord struct {
	Name []byte
	Seen int64
	PEL  []StreamID
}

// Groups reads the record's groups, after its entries (the rest of the
// nodes is skipped); the names alias the record. ok false on malformed
// data.
func (s *StreamRecord) Groups() ([]GroupRecord, bool) {
	for s.nodes > 0 || s.left > 0 {
		if _, _, more := s.NextNode(); !more {
			break
		}
	}
	r := s.r
	if r.bad {
		return nil, false
	}
	if r.off == len(r.b) {
		return nil, true
	}
	gs := make([]GroupRecord, r.count(4))
	for i := range gs {
		g := &gs[i]
		g.Name, g.LastID, g.EntriesRead = r.str(), r.id(), int64(r.uvarint())-1
		g.PEL = make([]PendingEntry, r.count(4))
		for j := range g.PEL {
			g.PEL[j] = PendingEntry{ID: r.id(), Time: int64(r.uvarint()), Count: r.uvarint()}
		}
		g.Consumers = make([]ConsumerRecord, r.count(3))
		for j := range g.Consumers {
			c := &g.Consumers[j]
			c.Name, c.Seen = r.str(), int64(r.uvarint())
			c.PEL = make([]StreamID, r.count(2))
			for k := range c.PEL {
				c.PEL[k] = r.id()
			}
		}
	}
	return gs, !r.bad && r.off == len(r.b)
}

// appendGroupRecords appends gs as a Record's groups part.
func appendGroupRecords(dst []byte, gs []GroupRecord) []byte {
	if len(gs) == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(gs)))
	for _, g := range gs {
		dst = appendStr(dst, g.Name)
		dst = appendIDVarint(dst, g.LastID)
		dst = binary.AppendUvarint(dst, uint64(g.EntriesRead+1))
		dst = binary.AppendUvarint(dst, uint64(len(g.PEL)))
		for _, p := range g.PEL {
			dst = appendIDVarint(dst, p.ID)
			dst = binary.AppendUvarint(dst, uint64(p.Time))
			dst = binary.AppendUvarint(dst, p.Count)
		}
		dst = binary.AppendUvarint(dst, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			dst = appendStr(dst, c.Name)
			dst = binary.AppendUvarint(dst, uint64(c.Seen))
			dst = binary.AppendUvarint(dst, uint64(len(c.PEL)))
			for _, id := range c.PEL {
				dst = appendIDVarint(dst, id)
			}
		}
	}
	return dst
}

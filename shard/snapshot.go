package shard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/aof"
	"github.com/radish-kv/radish/persistence/snapshot"
	"github.com/radish-kv/radish/script"
)

// Snapshots (persistence/snapshot): a save writes one RDB file per shard,
// each shard its own, on its own goroutine; the shard that completes the
// last one puts the manifest in place. A start-up loads the files on
// every shard's thread in parallel, each keeping the keys it owns.

// persist is the group's snapshot state. mu orders saves; the atomics are
// what INFO and LASTSAVE read.
type persist struct {
	mu  sync.Mutex
	run *saveRun // the save in progress, nil when none
	// next runs once the save in progress is over (a SHUTDOWN's save
	// waiting for a BGSAVE).
	next []func()

	lastSave atomic.Int64 // unix seconds of the last successful save
	lastTry  int64        // unix ms the last background save began (under mu)
	lastErr  atomic.Bool  // the last background save failed (rdb_last_bgsave_status)
	lastBg   atomic.Int64 // seconds the last background save took, -1 before one
	bgStart  atomic.Int64 // unix ms the background save in progress began, 0 when none
	saves    atomic.Int64 // successful saves since start (rdb_saves)
	// base[i] is shard i's change count at the point its last successful
	// save wrote: rdb_changes_since_last_save is the sum of what each
	// counted since.
	base []atomic.Uint64

	loaded, expired int64 // what the start-up load stored and dropped (under mu, then read-only)

	rw rewrites // BGREWRITEAOF (aofrw.go)
}

func (p *persist) init(shards int, started time.Time) {
	p.base = make([]atomic.Uint64, shards)
	p.lastSave.Store(started.Unix())
	p.lastBg.Store(-1)
	p.rw.last.Store(-1)
}

func (p *persist) addLoaded(st snapshot.LoadStats) {
	p.mu.Lock()
	p.loaded += st.Loaded
	p.expired += st.Expired
	p.mu.Unlock()
}

// saveRun is one save: its files, and what each shard reported.
type saveRun struct {
	bg    bool // BGSAVE
	sv    *snapshot.Save
	start time.Time
	left  int
	sizes []int64
	dirty []uint64
	err   error
	// done runs once the save is over (manifest in place, or failed), on
	// the goroutine of the shard that finished last.
	done func(err error)
}

const errSaveInProgress = "ERR Background save already in progress"

// beginSave starts a save of every shard's file, or says why not.
func (g *Group) beginSave(bg bool, done func(err error)) (*saveRun, string) {
	p := &g.persist
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		return nil, errSaveInProgress
	}
	if bg && p.rw.run != nil {
		return nil, errChildActive
	}
	c := g.conf.Snapshot()
	sv, err := snapshot.BeginSave(c.Dir, c.DBFilename, len(g.shards))
	if err != nil {
		g.log.Warn("cannot start a save", zap.Error(err))
		return nil, "ERR"
	}
	n := len(g.shards)
	r := &saveRun{bg: bg, sv: sv, start: time.Now(), left: n, sizes: make([]int64, n), dirty: make([]uint64, n), done: done}
	p.run = r
	if bg {
		p.bgStart.Store(r.start.UnixMilli())
		p.lastTry = r.start.UnixMilli()
	}
	return r, ""
}

// partSaved records shard's file of r: its size, the shard's change
// count at the point it wrote, or its error. The last one commits.
func (g *Group) partSaved(r *saveRun, shard int, size int64, dirty uint64, err error) {
	p := &g.persist
	p.mu.Lock()
	r.sizes[shard], r.dirty[shard] = size, dirty
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("shard %d: %w", shard, err)
	}
	r.left--
	if r.left > 0 {
		p.mu.Unlock()
		return
	}
	if r.err == nil {
		r.err = r.sv.Commit(r.sizes)
	}
	if r.err != nil {
		r.sv.Abort()
		g.log.Warn("save failed", zap.Error(r.err))
	} else {
		p.lastSave.Store(r.start.Unix())
		p.saves.Add(1)
		for i, d := range r.dirty {
			p.base[i].Store(d)
		}
		g.log.Info("DB saved on disk", zap.Uint64("generation", r.sv.Generation()),
			zap.Duration("took", time.Since(r.start)))
	}
	if r.bg {
		p.lastErr.Store(r.err != nil)
		p.lastBg.Store(int64(time.Since(r.start).Seconds()))
		p.bgStart.Store(0)
	}
	p.run = nil
	next := p.next
	p.next = nil
	p.mu.Unlock()
	r.done(r.err)
	for _, fn := range next {
		fn()
	}
	if r.bg {
		g.rewriteAfterSave()
	}
}

// saveAll saves every shard, each in its next turn (as SAVE), after the
// save in progress if there is one, and calls done when it is over.
func (g *Group) saveAll(done func(err error)) {
	p := &g.persist
	p.mu.Lock()
	if p.run != nil {
		p.next = append(p.next, func() { g.saveAll(done) })
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	r, errText := g.beginSave(false, done)
	switch {
	case errText == errSaveInProgress:
		g.saveAll(done) // another began in between: wait for it
		return
	case errText != "":
		done(errors.New("cannot start the save"))
		return
	}
	m := &saveMsg{r: r}
	for _, s := range g.shards {
		s.deliver([]message{{kind: msgSave, data: m}})
	}
}

// saveMsg is one shard's part of a save as a message's contents
// (msgSave): the shard writes its file of r (the group's save, shared
// under the group's lock), behind every lock and deferred command there;
// for a BGSAVE it starts its background part instead and, for the
// command's client (started set), tells home so in the same value
// (msgSaved), for BGSAVE's reply once every shard has. One value goes to
// every shard, which none writes; started is home's only.
type saveMsg struct {
	r       *saveRun
	home    int
	started *saveStarted
}

// saveStarted is home's side of a BGSAVE command: the reply once every
// shard started its part.
type saveStarted struct {
	c    *conn
	sl   *slot
	left int
}

func (m *saveMsg) handle(s *Shard, k msgKind) {
	if k == msgSaved {
		h := m.started
		if h.left--; h.left == 0 {
			s.saveReplied(h.c, h.sl, "Background saving started")
		}
		return
	}
	s.runOrDeferAll(func() {
		if !m.r.bg {
			s.saveShard(m.r)
			return
		}
		s.startBgSave(m.r)
		if m.started != nil {
			s.post(m.home, msgSaved, m)
		}
	})
}

// savePoints starts a background save when a save point is due, as
// Redis's serverCron: for some point, at least its changes since the last
// save and more than its seconds since it; after a failed save, not
// within 5 s of the last try.
func (g *Group) savePoints(c *config.Snapshot, now int64) {
	if len(c.Save) == 0 {
		return
	}
	p := &g.persist
	p.mu.Lock()
	busy, lastTry := p.run != nil, p.lastTry
	p.mu.Unlock()
	if busy || p.lastErr.Load() && now-lastTry <= 5000 {
		return
	}
	changes := g.changesSinceSave()
	since := now/1000 - p.lastSave.Load()
	for _, sp := range c.Save {
		if changes >= uint64(sp.Changes) && since > sp.Seconds {
			g.log.Info("save point reached: saving", zap.Int64("changes", sp.Changes), zap.Int64("seconds", sp.Seconds))
			g.BgSave(false)
			return
		}
	}
}

// changesSinceSave is rdb_changes_since_last_save: the sum of the changes
// each shard published since the point its last successful save wrote.
func (g *Group) changesSinceSave() uint64 {
	var n uint64
	for i, s := range g.shards {
		// A shard publishes at the end of its turn: its count may not yet
		// hold the changes its save, in that turn, counted in.
		if d, b := s.stats.pub.dirty.Load(), g.persist.base[i].Load(); d > b {
			n += d - b
		}
	}
	return n
}

// stopWrites reports whether writes are refused with -MISCONF: the last
// background save failed, stop-writes-on-bgsave-error is yes and save
// points are set, as in Redis. A later successful save lifts it.
func (g *Group) stopWrites(c *config.Snapshot) bool {
	return c.StopWritesOnBgsaveError && len(c.Save) > 0 && g.persist.lastErr.Load()
}

// errMisconf is Redis's reply to a write while stopWrites holds.
const errMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. " +
	"Commands that may modify the data set are disabled, because this instance is configured to report errors during " +
	"writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details " +
	"about the RDB error."

// errReload is Redis's reply to a DEBUG RELOAD whose load failed.
const errReload = "ERR Error trying to load the RDB dump, check server logs."

// refuseWrite answers a write (or PING, as Redis does) with -MISCONF
// while stopWrites holds, and reports whether it did.
func (s *Shard) refuseWrite(c *conn, spec *command.Spec) bool {
	if spec.Flags&command.Write == 0 && spec.Name != "ping" {
		return false
	}
	s.refuseCmd(c, spec, errMisconf)
	return true
}

// persistCmd runs SAVE or BGSAVE [SCHEDULE] for client c (the router
// places them here). SAVE: every shard writes its file in its next turn,
// behind every lock and waiting command there (as FLUSHALL runs), and c's
// reply waits for the manifest. BGSAVE: every shard starts its part there
// (startBgSave), and c's reply waits until all have, so that a write sent
// after the reply is not in the file, as with Redis's fork.
func (s *Shard) persistCmd(c *conn, spec *command.Spec, args [][]byte) {
	switch spec.Name {
	case "shutdown":
		s.shutdownCmd(c, args)
		return
	case "debug":
		s.reloadCmd(c, args)
		return
	case "bgrewriteaof":
		s.rewriteCmd(c)
		return
	case "replicaof", "slaveof", "replconf", "psync", "sync", "wait", "waitaof":
		s.replCmd(c, spec, args)
		return
	}
	bg := spec.Name == "bgsave"
	if bg && (len(args) > 2 || len(args) == 2 && !strings.EqualFold(string(args[1]), "schedule")) {
		s.saveReplied(c, nil, errtext.Syntax)
		return
	}
	home := s.id
	var sl *slot // set before anything can call done
	done := func(error) {}
	if !bg {
		done = func(err error) {
			s.group.shards[home].deliver([]message{{kind: msgSaved, data: runMsg(func(h *Shard) {
				h.saveReplied(c, sl, err)
			})}})
		}
	}
	r, errText := s.group.beginSave(bg, done)
	if errText == errChildActive && len(args) == 2 && s.group.scheduleSave() {
		errText = saveScheduled
	}
	if errText != "" {
		s.saveReplied(c, nil, errText)
		return
	}
	sl = s.pend(c)
	c.barrier = true
	m := &saveMsg{r: r, home: home}
	if bg {
		m.started = &saveStarted{c: c, sl: sl, left: len(s.group.shards)}
	}
	for i := range s.group.shards {
		s.post(i, msgSave, m)
	}
}

// shutdownCmd is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT], as Redis
// 7.0 (shutdown.go): a primary with lagging replicas waits for them
// (unless NOW); it saves first when asked to or when save points are set
// (NOSAVE aside), after a save in progress; if that save fails the server
// runs on and the client gets Redis's error, unless FORCE. A shutdown is
// not answered: the connection closes. ABORT cancels one waiting for its
// replicas.
func (s *Shard) shutdownCmd(c *conn, args [][]byte) {
	var flags int
	abort := false
	for _, a := range args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave":
			flags |= config.ShutdownNoSave
		case "save":
			flags |= config.ShutdownSave
		case "now":
			flags |= config.ShutdownNow
		case "force":
			flags |= config.ShutdownForce
		case "abort":
			abort = true
		default:
			s.saveReplied(c, nil, errtext.Syntax)
			return
		}
	}
	switch {
	case abort && len(args) > 2 || flags&config.ShutdownSave != 0 && flags&config.ShutdownNoSave != 0:
		s.saveReplied(c, nil, errtext.Syntax)
		return
	case abort:
		if s.group.abortShutdown() {
			s.saveReplied(c, nil, nil)
		} else {
			s.saveReplied(c, nil, "ERR No shutdown in progress.")
		}
		return
	case flags&config.ShutdownNoSave == 0 && s.group.busy.Load() != 0:
		// A script runs past busy-reply-threshold: no save could run.
		s.reply(c, func(w *resp.Writer) { w.Error(s.group.busyText()) })
		return
	}
	home := s.id
	sl := s.pend(c)
	c.barrier = true
	s.group.beginShutdown(flags, func(errText string) {
		s.group.shards[home].deliver([]message{{kind: msgSaved, data: runMsg(func(h *Shard) {
			if errText != "" {
				h.saveReplied(c, sl, errText)
				return
			}
			c.cl.Close = true
			c.barrier = false
			h.fill(c, sl, nil)
		})}})
	})
}

// reloadCmd is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE], as Redis 7.0
// does it: SAVE (unless NOSAVE), then on every shard, in one step of its
// loop, FLUSHALL (unless NOFLUSH) and the load of its keys from the files,
// as at start. A key the files hold replaces the one in memory (NOFLUSH
// merges, with or without MERGE: nothing here can stop the server).
func (s *Shard) reloadCmd(c *conn, args [][]byte) {
	flush, save := true, true
	for _, a := range args[2:] {
		switch strings.ToLower(string(a)) {
		case "merge":
		case "noflush":
			flush = false
		case "nosave":
			save = false
		default:
			s.saveReplied(c, nil, "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	home := s.id
	sl := s.pend(c)
	c.barrier = true
	load := func(h *Shard) {
		src, err := openSnapshot(h.conf)
		if err != nil {
			h.group.log.Warn("DEBUG RELOAD", zap.Error(err))
			h.saveReplied(c, sl, errReload)
			return
		}
		h.holdAll(func(o *Shard) error { return o.reload(src, flush) }, func(err error) {
			if src != nil {
				src.Close()
			}
			if err != nil {
				h.group.log.Warn("DEBUG RELOAD", zap.Error(err))
				h.saveReplied(c, sl, errReload)
				return
			}
			h.group.log.Info("DB reloaded by DEBUG RELOAD")
			h.saveReplied(c, sl, nil)
		})
	}
	if !save {
		load(s)
		return
	}
	s.group.saveAll(func(err error) {
		s.group.shards[home].deliver([]message{{kind: msgSaved, data: runMsg(func(h *Shard) {
			if err != nil {
				h.saveReplied(c, sl, err)
				return
			}
			load(h)
		})}})
	})
}

// holdAll takes every shard whole, as one transaction from this shard
// (coord's protocol, as a replication cut), runs fn on each shard while
// it holds them all, releases them once every shard ran it and calls
// then with the first error fn returned: no command runs on any shard
// in between, so a reader sees every shard from before or every shard
// from after (DEBUG RELOAD, a replica's full sync).
func (s *Shard) holdAll(fn func(*Shard) error, then func(error)) {
	n := len(s.group.shards)
	t := s.wholeTxn(cutSpec)
	t.done = func([]byte) {}
	r := &holdRound{t: t, left: n, then: then}
	t.run = func() {
		for sh := range n {
			s.post(sh, msgHold, &holdMsg{fn: fn, home: s.id, round: r})
		}
	}
	s.acquire(t)
}

// holdMsg is one shard's step of holdAll as a message's contents
// (msgHold, answered msgHeld in the same value): the shard, held, runs
// fn and answers its error. round is home's only.
type holdMsg struct {
	fn    func(*Shard) error
	home  int
	err   error
	round *holdRound
}

// holdRound is home's side of holdAll: its transaction, how many shards
// have not run fn yet, the first error, and what runs once all have.
type holdRound struct {
	t    *txn
	left int
	err  error
	then func(error)
}

func (m *holdMsg) handle(s *Shard, k msgKind) {
	if k == msgHold {
		m.err = m.fn(s)
		s.post(m.home, msgHeld, m)
		return
	}
	r := m.round
	if m.err != nil && r.err == nil {
		r.err = m.err
	}
	if r.left--; r.left == 0 {
		s.releaseExec(r.t, true)
		r.then(r.err)
	}
}

// reload empties this shard (flush) and loads its keys of src (nil: no
// file), for DEBUG RELOAD; watchers and blocked clients of every key are
// told, as after FLUSHALL.
func (s *Shard) reload(src *snapshot.Source, flush bool) error {
	if s.snap != nil {
		s.snapFinish()
	}
	if flush {
		s.store.FlushAll()
		if s.id == 0 {
			s.group.scripts.FlushLibraries()
		}
	}
	var err error
	if src != nil {
		_, err = s.load(src)
	}
	s.TouchDB(-1)
	return err
}

// saveReplied answers a SAVE or BGSAVE in slot sl (nil: in order now):
// nil is +OK, an error -ERR (Redis says no more), a string starting with
// ERR that error, another string a status.
func (s *Shard) saveReplied(c *conn, sl *slot, reply any) {
	w := resp.Writer{Proto: c.cl.Proto}
	switch e := reply.(type) {
	case nil:
		w.OK()
	case string:
		if strings.HasPrefix(e, "ERR") {
			w.Error(e)
		} else {
			w.Simple(e)
		}
	default:
		w.Error("ERR")
	}
	if sl == nil {
		s.reply(c, func(rw *resp.Writer) { rw.B = append(rw.B, w.B...) })
		return
	}
	c.barrier = false
	s.fill(c, sl, w.B)
	if !c.dead && !c.closing {
		s.serve(c)
	}
}

// saveShard writes this shard's file of r at once.
func (s *Shard) saveShard(r *saveRun) {
	var size int64
	f, err := r.sv.Create(s.id)
	if err == nil {
		w := snapshot.NewWriter(s.store, f, s.writeOptions())
		err = w.WriteAll(s.now)
		size = w.Written()
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		} else {
			err = r.sv.Close(s.id, f)
		}
	}
	s.group.partSaved(r, s.id, size, s.mut.dirty, err)
}

// writeOptions are the snapshot writer's settings from the configuration.
// Shard 0's file holds the FUNCTION libraries, as shard 0's log holds
// their changes (the router runs them there).
func (s *Shard) writeOptions() snapshot.Options {
	o := snapshot.Options{Compress: s.conf.RDBCompression, Checksum: s.conf.RDBChecksum, Time: s.now}
	if s.id == 0 {
		o.Functions = s.group.scripts.Codes()
	}
	switch p := s.conf.MaxMemoryPolicy; {
	case strings.HasSuffix(p, "-lru"):
		o.Access = snapshot.AccessLRU
	case strings.HasSuffix(p, "-lfu"):
		o.Access = snapshot.AccessLFU
	}
	return o
}

// LastSave implements command.Server.
func (g *Group) LastSave() int64 { return g.persist.lastSave.Load() }

// BgSave implements command.Server, for a BGSAVE its handler runs (inside
// a transaction): every shard starts its part in its next turn, behind
// every lock and waiting command there (startBgSave), and the reply does
// not wait for them. SCHEDULE asks Redis to wait for another child
// process (an AOF rewrite); with none running it starts at once, as here.
func (g *Group) BgSave(schedule bool) (string, string) {
	r, errText := g.beginSave(true, func(error) {})
	if errText == errChildActive && schedule && g.scheduleSave() {
		return saveScheduled, ""
	}
	if errText != "" {
		return "", errText
	}
	m := &saveMsg{r: r}
	for _, s := range g.shards {
		s.deliver([]message{{kind: msgSave, data: m}})
	}
	return "Background saving started", ""
}

// bgSave is a shard's part of a background save in progress: a Writer of
// its store stepped once a loop turn (snapStep), whose file is written by
// a goroutine of its own (fileWriter). While it runs, every change to a
// key is preceded by Writer.Before (snapBefore, writeBack, BeforeEvict),
// so the file is the shard's keyspace when the save started.
type bgSave struct {
	run *saveRun // a BGSAVE's file, or
	// a rewrite's new AOF base (aofrw.go)
	rewrite *rewriteRun
	part    *aof.Part

	w     *snapshot.Writer
	out   *fileWriter
	dirty uint64 // the change count at the start
	ahead int64  // w.Ahead() when the last slice ended (snapStep)
	// mem and then, instead of run and out: the keys of a full sync's
	// payload (primary.go), written into mem and handed to then.
	mem  *bytes.Buffer
	then func(body []byte, err error)
	// flow, instead of mem: the part goes out on a replica's flow as
	// written (flows.go).
	flow *flowOut
}

// busy reports whether the save's file writer (or flow) is behind.
func (b *bgSave) busy() bool {
	return b.out != nil && b.out.busy() || b.flow != nil && b.flow.busy()
}

// A loop turn writes a slice of the save in progress: steps of
// snapStepKeys keys (fewer when their values are large, see
// snapshot.Writer.Step) until snapSlice has passed or snapTurnKeys keys
// are written (the bound that holds where the clock does not move, in a
// simulation). While the shard serves commands, the next slice waits as
// long as this one took: the save takes at most half of the shard's
// thread, so on a machine whose cores are all busy (a shard on each) the
// clients' own threads still find one. A shard that
// served no command since the last slice runs the next at once: an idle
// shard's save (or full sync) runs at the disk's or the replica's speed
// (BGSAVE of 2M keys, one shard, 0.8 s -> 0.5 s; benchmarks/HISTORY.md, "The twelfth
// session's findings"). A command waits for at most one slice, and, where
// the driver tells that input arrived (Driver.Waiting; io_uring can), for
// one step: a slice ends at the step after input arrived, and the next
// runs once the turn that takes that input has served it, with no wait
// of its own (a wait would only spin the loop: the input is there). Not
// when writes since the last slice reached keys ahead of the save's walk
// (Before wrote them first): those cost memory for as long as the save
// runs, so a save behind writes keeps its whole slices and its half of
// the thread, and one behind reads gives way to them at once (one shard
// on one CPU with the load on the other, GET p99 during a save of 2M keys
// 0.77 -> 0.41 ms: benchmarks/HISTORY.md, "The fourteenth session's findings").
const (
	snapSlice    = 100 * time.Microsecond
	snapStepKeys = 32
	snapTurnKeys = 1024
)

// startBgSave starts this shard's part of r: the point in time of its file.
func (s *Shard) startBgSave(r *saveRun) {
	if s.snap != nil {
		s.snapFinish() // a full sync's payload
	}
	f, err := r.sv.Create(s.id)
	if err != nil {
		s.group.partSaved(r, s.id, 0, s.mut.dirty, err)
		return
	}
	b := &bgSave{run: r, out: newFileWriter(f), dirty: s.mut.dirty}
	b.w = snapshot.NewWriter(s.store, b.out, s.writeOptions())
	s.beginSnap(b)
}

// beginSnap makes b the save in progress: from now on a key is written
// before it changes, and INFO counts the keys b writes against those the
// shard holds now (current_save_keys_processed and _total).
func (s *Shard) beginSnap(b *bgSave) {
	s.snap = b
	s.store.BeforeEvict = func(db int, key []byte) { b.w.Before(db, key, s.now) }
	total := int64(0)
	for i := range s.group.opts.Databases {
		total += int64(s.store.DB(i).Len())
	}
	p := &s.stats.pub
	p.saveKeys.Store(0)
	p.saveTotal.Store(total)
}

// snapStep writes the next slice of the save in progress, unless the
// file's writer is behind: the loop never waits for the disk.
func (s *Shard) snapStep() {
	clock := s.group.clock
	start := clock()
	yield := s.drv != nil && s.snap.w.Ahead() == s.snap.ahead
	cut := false
	for keys := 0; keys < snapTurnKeys && !s.snap.busy(); keys += snapStepKeys {
		done, err := s.snap.w.Step(s.now, snapStepKeys)
		if done || err != nil {
			s.snapEnd(err)
			return
		}
		if clock().Sub(start) >= snapSlice {
			break
		}
		if yield && s.drv.Waiting() {
			cut = true
			break
		}
	}
	s.snap.ahead = s.snap.w.Ahead()
	setInt(&s.stats.pub.saveKeys, s.snap.w.Keys())
	end := clock()
	s.snapAt = end
	if !cut && s.stats.commands != s.snapCmds {
		s.snapAt = end.Add(end.Sub(start))
		s.snapCmds = s.stats.commands
	}
}

// snapFinish writes the rest of the save in progress at once: before a
// command that may change every key (FLUSHALL, SWAPDB, DEBUG).
func (s *Shard) snapFinish() {
	err := s.snap.w.WriteAll(s.now)
	s.snapEnd(err)
}

// snapEnd ends this shard's part: its writer goroutine makes the file
// durable (or removes it after err) and reports to the group.
func (s *Shard) snapEnd(err error) {
	b := s.snap
	s.snap = nil
	s.store.BeforeEvict = nil
	s.stats.pub.saveKeys.Store(0)
	s.stats.pub.saveTotal.Store(0)
	if b.then != nil {
		b.then(b.mem.Bytes(), err)
		return
	}
	if b.rewrite != nil {
		s.rewriteEnd(b, err)
		return
	}
	g, id := s.group, s.id
	b.out.close(err, func(f *os.File, err error) {
		if err == nil {
			err = b.run.sv.Close(id, f)
		} else {
			f.Close()
			os.Remove(f.Name())
		}
		g.partSaved(b.run, id, b.w.Written(), b.dirty, err)
	})
}

// snapBefore runs ahead of a command while a background save runs: the
// keys it may write are written to the file first (in their database and,
// for MOVE and COPY ... DB, the other), or, for a command that may change
// any key (FLUSHDB, FLUSHALL, SWAPDB: Touches; DEBUG; a write whose keys
// cannot be told), the save is finished first.
func (s *Shard) snapBefore(db int, spec *command.Spec, args [][]byte) {
	idx, ok := spec.WriteKeys(args, s.mut.keys[:0])
	s.mut.keys = idx
	if spec.Touches || !ok || len(idx) == 0 && (spec.Flags&command.Write != 0 ||
		spec.Route != nil && spec.Flags&command.ReadOnly == 0) {
		s.snapFinish()
		return
	}
	other := -1
	if spec.OtherDB != nil {
		other = spec.OtherDB(args)
	}
	for _, i := range idx {
		s.snap.w.Before(db, args[i], s.now)
		if other >= 0 && other < s.store.Databases() {
			s.snap.w.Before(other, args[i], s.now)
		}
	}
}

// fileWriter writes a save's file on a goroutine of its own, so that the
// shard's loop never waits for the disk: Write copies into a buffer and
// queues it. busy says the queue is half full (the shard then skips a
// step); Write blocks only when a turn's changes filled the whole queue.
type fileWriter struct {
	f      *os.File
	q      chan []byte
	free   chan []byte
	failed atomic.Bool
	err    error // the first write error; read after the goroutine ended
	end    chan endMsg
}

type endMsg struct {
	err  error
	then func(f *os.File, err error)
}

const fileQueue = 32 // buffers of about 64 KiB in flight

func newFileWriter(f *os.File) *fileWriter {
	fw := &fileWriter{f: f, q: make(chan []byte, fileQueue), free: make(chan []byte, fileQueue), end: make(chan endMsg, 1)}
	go fw.loop()
	return fw
}

func (fw *fileWriter) busy() bool { return len(fw.q) >= fileQueue/2 }

// Write implements io.Writer: p is copied and queued.
func (fw *fileWriter) Write(p []byte) (int, error) {
	if fw.failed.Load() {
		return 0, errWriteFailed
	}
	var b []byte
	select {
	case b = <-fw.free:
	default:
	}
	fw.q <- append(b[:0], p...)
	return len(p), nil
}

var (
	errWriteFailed = errors.New("writing the snapshot file failed")
	errShutdown    = errors.New("the server shut down during the save")
)

// close ends the queue; once the goroutine wrote it all it calls then
// with the file and the first error (err, else a write error).
func (fw *fileWriter) close(err error, then func(f *os.File, err error)) {
	fw.end <- endMsg{err: err, then: then}
	close(fw.q)
}

func (fw *fileWriter) loop() {
	for b := range fw.q {
		if fw.err == nil {
			if _, err := fw.f.Write(b); err != nil {
				fw.err = err
				fw.failed.Store(true)
			}
		}
		select {
		case fw.free <- b:
		default:
		}
	}
	e := <-fw.end
	err := e.err
	if err == nil {
		err = fw.err
	}
	e.then(fw.f, err)
}

// openSnapshot maps what the configuration's dir and dbfilename name, for
// the shards to load at start.
func openSnapshot(c *config.Snapshot) (*snapshot.Source, error) {
	src, err := snapshot.Open(c.Dir, c.DBFilename)
	if err != nil {
		return nil, fmt.Errorf("loading the snapshot: %w", err)
	}
	return src, nil
}

// load stores this shard's keys of src, before the loop serves: every
// file when the shard counts differ (or src is a plain RDB file), else
// only its own, whose keys are all its own (none is hashed). Each file's checksum is checked by one shard. Shard 0
// loads the FUNCTION libraries (its file holds them, see writeOptions),
// for every shard: they are the process's.
func (s *Shard) load(src *snapshot.Source) (snapshot.LoadStats, error) {
	n := len(s.group.shards)
	var total snapshot.LoadStats
	now := time.Now().UnixMilli()
	var codes [][]byte
	if s.replica {
		now = 0 // a replica keeps expired keys: its primary deletes them
	}
	own := src.Manifest != nil && len(src.Images) == n
	for j, im := range src.Images {
		if own && j != s.id {
			continue
		}
		o := snapshot.LoadOptions{Store: s.store, Owns: s.owns, Now: now, Verify: j%n == s.id && s.conf.RDBChecksum}
		if own {
			o.Owns = nil // shard j of as many wrote it: every key is its own
		}
		s.collectLibraries(&o, &codes)
		st, err := snapshot.LoadRDB(im.Data, im.Name, o)
		total.Loaded += st.Loaded
		total.Expired += st.Expired
		if err != nil {
			return total, err
		}
	}
	return total, s.restoreLibraries(codes)
}

// collectLibraries has o's load append the FUNCTION libraries to codes
// on shard 0 (which loads them for every shard, see writeOptions); other
// shards skip them.
func (s *Shard) collectLibraries(o *snapshot.LoadOptions, codes *[][]byte) {
	if s.id == 0 {
		o.Function = func(code []byte) error {
			*codes = append(*codes, code)
			return nil
		}
	}
}

// restoreLibraries makes the libraries a load read known, replacing
// those of the same names.
func (s *Shard) restoreLibraries(codes [][]byte) error {
	if len(codes) == 0 {
		return nil
	}
	libs, errText := s.runtime().CheckLibraries(codes)
	if errText == "" {
		errText = s.group.scripts.RestoreLibraries(libs, script.RestoreReplace)
	}
	if errText != "" {
		return fmt.Errorf("loading the FUNCTION libraries: %s", errText)
	}
	return nil
}

// persistenceInfo is INFO's rdb_ lines.
func (g *Group) persistenceInfo() string {
	p := &g.persist
	dirty := g.changesSinceSave()
	status := "ok"
	if p.lastErr.Load() {
		status = "err"
	}
	inProgress, current := 0, int64(-1)
	if t := p.bgStart.Load(); t != 0 {
		inProgress, current = 1, (g.clock().UnixMilli()-t)/1000
	}
	return fmt.Sprintf("%srdb_changes_since_last_save:%d\r\nrdb_bgsave_in_progress:%d\r\nrdb_last_save_time:%d\r\n"+
		"rdb_last_bgsave_status:%s\r\nrdb_last_bgsave_time_sec:%d\r\nrdb_current_bgsave_time_sec:%d\r\n"+
		"rdb_saves:%d\r\nrdb_last_cow_size:0\r\nrdb_last_load_keys_expired:%d\r\nrdb_last_load_keys_loaded:%d\r\n",
		g.saveProgress(), dirty, inProgress, p.lastSave.Load(), status, p.lastBg.Load(), current, p.saves.Load(), p.expired, p.loaded)
}

// saveProgress is INFO's current_fork_perc, current_save_keys_processed
// and current_save_keys_total. Radish forks nothing; what Redis counts of
// its child, it counts of the shards' parts in progress (a BGSAVE's, an
// AOF rewrite's base, a full sync's payload): the keys written and the
// keys the shards held when their parts began. A shard whose part ended
// counts no more.
func (g *Group) saveProgress() string {
	var done, total int64
	for _, s := range g.shards {
		done += s.stats.pub.saveKeys.Load()
		total += s.stats.pub.saveTotal.Load()
	}
	perc := 0.0
	if total > 0 {
		perc = min(100, float64(done)*100/float64(total))
	}
	return fmt.Sprintf("current_fork_perc:%.2f\r\ncurrent_save_keys_processed:%d\r\ncurrent_save_keys_total:%d\r\n", perc, done, total)
}

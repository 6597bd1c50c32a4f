package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/persistence/aof"
	"github.com/radish-kv/radish/persistence/snapshot"
)

// BGREWRITEAOF, fork-less (persistence/aof/doc.go, "Rewrite"). A rewrite
// starts with its cut: a transaction holding every key of every shard at
// once (coord's LockAll on each, as a script that spans every shard), in
// which each shard ends its log with RADISH.CUT, moves its Log to a new
// incremental file and starts writing its keyspace as it is then into a
// new base, with the snapshot Writer stepped once a loop turn and
// copy-before-write, as BGSAVE's (bgSave). Holding every shard at once,
// the cut falls between the same transactions on every shard: one that
// spans shards ran wholly before it or wholly after. Once a shard's base
// is written, its file writer puts it in place (aof.Part.Install); the
// rewrite is over when every shard's is.
//
// One background writer runs per shard at a time: BGREWRITEAOF during a
// BGSAVE is scheduled for when it ends (Redis's "scheduled"), BGSAVE
// during a rewrite is refused, or with SCHEDULE runs once it ends.

// rewrites is the group's rewrite state: run, scheduled and saveNext
// under persist.mu; the atomics are what INFO and the cron read.
type rewrites struct {
	run       *rewriteRun
	scheduled bool // BGREWRITEAOF waits for the BGSAVE in progress
	saveNext  bool // BGSAVE SCHEDULE waits for the rewrite in progress

	start    atomic.Int64 // unix ms the rewrite in progress began, 0 when none
	last     atomic.Int64 // seconds the last rewrite took, -1 before one
	failed   atomic.Bool  // the last rewrite failed
	fails    atomic.Int64 // failures since the last success
	count    atomic.Int64 // rewrites started (aof_rewrites)
	baseSize atomic.Int64 // the AOF's size after the last rewrite or at start
	ended    atomic.Int64 // unix ms the last rewrite ended
}

// rewriteRun is one rewrite: what each shard reported.
type rewriteRun struct {
	set      *aof.Set
	baseOnly bool // appendonly no: aof.BaseOnly's Set, attached to no shard
	rw       *aof.Rewrite
	start    time.Time
	left     int
	err      error
}

// Redis's replies.
const (
	rewriteStarted    = "Background append only file rewriting started"
	rewriteScheduled  = "Background append only file rewriting scheduled"
	errRewriteRunning = "ERR Background append only file rewriting already in progress"
	errChildActive    = "ERR Another child process is active (AOF?): can't BGSAVE right now. " +
		"Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."
	saveScheduled = "Background saving scheduled"
)

// beginRewrite starts a rewrite (r set), schedules one after the BGSAVE
// in progress (status rewriteScheduled), or says why not.
func (g *Group) beginRewrite() (r *rewriteRun, status, errText string) {
	set := g.aofSet()
	p := &g.persist
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.rw.run != nil:
		return nil, "", errRewriteRunning
	case p.run != nil && p.run.bg:
		p.rw.scheduled = true
		return nil, rewriteScheduled, ""
	}
	baseOnly := set == nil
	if baseOnly {
		// appendonly no: the bases alone, as Redis 7 writes them then.
		c := g.conf.Snapshot()
		var err error
		if set, err = aof.BaseOnly(aof.Options{Dir: filepath.Join(c.Dir, c.AppendDirName), Name: c.AppendFilename,
			Shards: len(g.shards), Log: g.log}); err != nil {
			g.log.Warn("can't start the AOF rewrite", zap.Error(err))
			p.rw.failed.Store(true)
			return nil, "", "ERR Can't execute an AOF background rewriting. Please check the server logs for more information."
		}
	}
	r = &rewriteRun{set: set, baseOnly: baseOnly, rw: set.BeginRewrite(), start: time.Now(), left: len(g.shards)}
	p.rw.run = r
	p.rw.scheduled = false
	p.rw.count.Add(1)
	p.rw.start.Store(r.start.UnixMilli())
	return r, rewriteStarted, ""
}

// rewriteCmd is BGREWRITEAOF for client c: the reply waits until every
// shard made its cut, so that a write sent after it is not in the bases.
func (s *Shard) rewriteCmd(c *conn) {
	r, status, errText := s.group.beginRewrite()
	if r == nil {
		if errText != "" {
			status = errText
		}
		s.saveReplied(c, nil, status)
		return
	}
	sl := s.pend(c)
	c.barrier = true
	s.cutAll(r, func() { s.saveReplied(c, sl, status) })
}

// BgRewriteAOF implements command.Server, for a BGREWRITEAOF its handler
// runs (inside a transaction): the cut runs from shard 0, and the reply
// does not wait for it.
func (g *Group) BgRewriteAOF() (string, string) {
	r, status, errText := g.beginRewrite()
	if r != nil {
		g.cutFrom0(r)
	}
	return status, errText
}

// cutFrom0 runs r's cut from shard 0's loop.
func (g *Group) cutFrom0(r *rewriteRun) {
	g.shards[0].deliver([]message{{kind: msgSave, data: runMsg(func(o *Shard) { o.cutAll(r, nil) })}})
}

// cutAll runs r's cut on every shard as one transaction holding every
// shard's every key, from this shard, then calls then (if set).
func (s *Shard) cutAll(r *rewriteRun, then func()) {
	t := s.wholeTxn(command.Lookup([]byte("bgrewriteaof")))
	c := &cutRound{left: len(t.parts), then: then}
	t.run = func() {
		for _, p := range t.co.Parts {
			s.post(p.Shard, msgCut, &cutMsg{aof: r, id: t.id, p: p, home: s.id, round: c})
		}
	}
	s.acquire(t)
}

// cutMsg is one shard's step of a cut that holds every shard, as a
// message's contents (msgCut, answered msgCutDone in the same value):
// of the AOF, the shard cuts its log for aof (the group's rewrite, shared
// under its own lock) and releases p, its part of the cut's transaction
// id; of the replication stream (primary.go cutTxn), it marks cut feed
// in its feed and, with dump, starts its part of the payload, and home
// releases every part once all have. round is home's only.
type cutMsg struct {
	aof   *rewriteRun
	feed  uint64
	dump  bool
	id    uint64
	p     coord.Part
	home  int
	round *cutRound
}

// cutRound is home's side of a cut: how many shards have not cut yet,
// and what runs once every one has.
type cutRound struct {
	left int
	then func()
}

func (m *cutMsg) handle(s *Shard, k msgKind) {
	if k == msgCut {
		if m.aof != nil {
			s.cutAOF(m.aof)
			s.unlockPart(m.id, m.p)
		} else {
			s.cutHere(m.feed, m.dump)
		}
		s.post(m.home, msgCutDone, m)
		return
	}
	c := m.round
	if c.left--; c.left == 0 && c.then != nil {
		c.then()
	}
}

// cutAOF is this shard's cut of r: the effects of the turn so far go to
// the log, which then ends its file with the cut and goes on in a new
// one; the new base is the keyspace as it is now.
func (s *Shard) cutAOF(r *rewriteRun) {
	switch {
	case r.baseOnly:
	case s.group.aofSet() != r.set:
		r.rw.Skip()
		s.group.rewritePartDone(r, s.id, errAOFOff)
		return
	case s.aof.set != r.set:
		s.attachRuntime(r.set) // CONFIG SET appendonly yes
	default:
		s.flushEffects()
	}
	p := r.rw.Cut(s.id)
	f, err := p.CreateBase()
	if err != nil {
		s.group.rewritePartDone(r, s.id, err)
		return
	}
	o := s.writeOptions()
	o.AOFBase, o.Access = true, snapshot.AccessNone
	b := &bgSave{rewrite: r, part: p, out: newFileWriter(f)}
	b.w = snapshot.NewWriter(s.store, b.out, o)
	if s.snap != nil {
		s.snapFinish() // a full sync's payload (primary.go)
	}
	s.beginSnap(b)
}

// rewriteEnd ends this shard's base of b (snapEnd): its file writer puts
// it in place once written, or removes it after err.
func (s *Shard) rewriteEnd(b *bgSave, err error) {
	g, id := s.group, s.id
	b.out.close(err, func(f *os.File, err error) {
		if err == nil {
			err = b.part.Install(f)
		} else {
			b.part.Abort(f)
		}
		g.rewritePartDone(b.rewrite, id, err)
	})
}

// rewritePartDone records that shard's part of r is over; the last one
// ends the rewrite, then starts a BGSAVE scheduled behind it.
func (g *Group) rewritePartDone(r *rewriteRun, shard int, err error) {
	p := &g.persist
	p.mu.Lock()
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("shard %d: %w", shard, err)
	}
	if r.left--; r.left > 0 {
		p.mu.Unlock()
		return
	}
	if r.set.Enabling() && r.err == nil && (r.baseOnly || g.aofSet() == r.set) {
		r.err = r.set.Commit(r.rw)
	}
	off := r.set.Enabling() && r.err != nil && !r.baseOnly
	p.rw.run = nil
	p.rw.start.Store(0)
	p.rw.ended.Store(time.Now().UnixMilli())
	p.rw.last.Store(int64(time.Since(r.start).Seconds()))
	p.rw.failed.Store(r.err != nil)
	if r.err != nil {
		p.rw.fails.Add(1)
		g.log.Warn("background AOF rewrite failed", zap.Error(r.err))
	} else {
		p.rw.fails.Store(0)
		if !r.baseOnly {
			p.rw.baseSize.Store(r.set.Size())
		}
		g.log.Info("background AOF rewrite finished successfully", zap.Duration("took", time.Since(r.start)))
	}
	save := p.rw.saveNext
	p.rw.saveNext = false
	p.mu.Unlock()
	g.rewriteAfterSave() // one scheduled behind this one (scheduleRewrite)
	if off {
		// The AOF turned on at run time never got its files: off again.
		g.aofMu.Lock()
		if g.aofSet() == r.set {
			g.disableAOF()
			g.conf.Set([][2]string{{"appendonly", "no"}})
		}
		g.aofMu.Unlock()
	}
	if save {
		g.BgSave(false)
	}
}

// scheduleSave is BGSAVE SCHEDULE during a rewrite: the save runs when it
// ends. It reports false when the rewrite ended meanwhile.
func (g *Group) scheduleSave() bool {
	p := &g.persist
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rw.run == nil {
		return false
	}
	p.rw.saveNext = true
	return true
}

// scheduleRewrite has a rewrite start once the one in progress ended, or
// now if it did already.
func (g *Group) scheduleRewrite() {
	p := &g.persist
	p.mu.Lock()
	p.rw.scheduled = true
	p.mu.Unlock()
	g.rewriteAfterSave()
}

// rewriteAfterSave starts the rewrite scheduled behind the background
// save or rewrite that just ended (partSaved, rewritePartDone), if any
// and if nothing else runs now.
func (g *Group) rewriteAfterSave() {
	p := &g.persist
	p.mu.Lock()
	due := p.rw.scheduled
	p.mu.Unlock()
	if !due {
		return
	}
	if r, _, _ := g.beginRewrite(); r != nil {
		g.cutFrom0(r)
	}
}

// autoRewrite starts a rewrite when auto-aof-rewrite-percentage says, as
// Redis's serverCron: the AOF (every shard's files together, the one AOF
// a rewrite replaces) is over auto-aof-rewrite-min-size and has grown by
// the percentage since the last rewrite or the start, and no rewrite or
// BGSAVE runs. After 3 failures in a row the next waits a minute,
// doubling up to an hour, as Redis's aofRewriteLimited.
func (g *Group) autoRewrite(c *config.Snapshot, now int64) {
	set := g.aofSet()
	if set == nil || c.AutoAOFRewritePercentage == 0 {
		return
	}
	size := set.Size()
	if size <= c.AutoAOFRewriteMinSize {
		return
	}
	p := &g.persist
	if n := p.rw.fails.Load(); n >= 3 && now-p.rw.ended.Load() < min(int64(60_000)<<min(n-3, 6), 3_600_000) {
		return
	}
	base := max(p.rw.baseSize.Load(), 1)
	growth := size*100/base - 100
	if growth < int64(c.AutoAOFRewritePercentage) {
		return
	}
	p.mu.Lock()
	busy := p.run != nil && p.run.bg || p.rw.run != nil
	p.mu.Unlock()
	if busy {
		return
	}
	if r, _, _ := g.beginRewrite(); r != nil {
		g.log.Info("starting automatic rewriting of AOF", zap.Int64("growth_percent", growth), zap.Int64("size", size))
		g.shards[0].cutAll(r, nil)
	}
}

// rewriteInfo writes INFO persistence's rewrite fields.
func (g *Group) rewriteInfo(b *strings.Builder) {
	p := &g.persist
	p.mu.Lock()
	scheduled := p.rw.scheduled
	p.mu.Unlock()
	inProgress, current := 0, int64(-1)
	if t := p.rw.start.Load(); t != 0 {
		inProgress, current = 1, (g.clock().UnixMilli()-t)/1000
	}
	status := "ok"
	if p.rw.failed.Load() {
		status = "err"
	}
	fmt.Fprintf(b, "aof_rewrite_in_progress:%d\r\naof_rewrite_scheduled:%d\r\naof_last_rewrite_time_sec:%d\r\n"+
		"aof_current_rewrite_time_sec:%d\r\naof_last_bgrewrite_status:%s\r\naof_rewrites:%d\r\n"+
		"aof_rewrites_consecutive_failures:%d\r\n",
		inProgress, b2i(scheduled), p.rw.last.Load(), current, status, p.rw.count.Load(), p.rw.fails.Load())
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

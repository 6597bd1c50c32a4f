package shard

import (
	"errors"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/persistence/aof"
)

// CONFIG SET appendonly at run time, as Redis 7. yes: the AOF starts with
// a rewrite whose cut attaches every shard's Log (aof.Enable): its files
// are named by no manifest until every shard's base is written, then all
// manifests go in place at once (aof.Set.Commit), so that a crash before
// leaves the directory as it was; the reply comes at once, and INFO shows
// the rewrite in progress. no: every shard stops logging in its next
// turn; what it logged is made durable and the files are closed (they stay
// on disk, as Redis leaves them).

// errAOFOff ends a rewrite that CONFIG SET appendonly no overtook.
var errAOFOff = errors.New("the AOF was turned off")

// errEnable is Redis's error when the AOF cannot be turned on.
const errEnable = "ERR CONFIG SET failed (possibly related to argument 'appendonly') - Unable to turn on AOF. Check server logs."

// aofSet is the AOF in use, nil when appendonly is no.
func (g *Group) aofSet() *aof.Set { return g.aof.Load() }

// CloseAOF flushes and closes the AOF in use, after Stop: the shards'
// last turns are on disk before the process exits.
func (g *Group) CloseAOF() error {
	if set := g.aof.Swap(nil); set != nil {
		return set.Close()
	}
	return nil
}

// switchAOF turns the AOF on or off (under aofMu, after the configuration
// took the new value); a failure to start one puts appendonly back to no
// and is Redis's error.
func (g *Group) switchAOF(on bool) error {
	if !on {
		g.disableAOF()
		return nil
	}
	c := g.conf.Snapshot()
	if n := g.aofDraining.Load(); n > 0 {
		g.log.Warn("can't turn the AOF on: the one turned off is not closed yet", zap.Int32("shards", n))
		g.conf.Set([][2]string{{"appendonly", "no"}})
		return errors.New(errEnable)
	}
	set, err := aof.Enable(aof.Options{Dir: filepath.Join(c.Dir, c.AppendDirName), Name: c.AppendFilename,
		Shards: len(g.shards), Fsync: c.AppendFsync, LoadTruncated: c.AOFLoadTruncated, Log: g.log})
	if err == nil {
		err = set.Start(func(i int) { g.shards[i].drv.Wake() })
	}
	if err != nil {
		g.log.Warn("can't turn the AOF on", zap.Error(err))
		g.conf.Set([][2]string{{"appendonly", "no"}})
		return errors.New(errEnable)
	}
	g.aof.Store(set)
	switch r, _, errText := g.beginRewrite(); {
	case r != nil:
		g.cutFrom0(r)
	case errText == errRewriteRunning:
		// The rewrite of an AOF turned off just before is still ending.
		g.scheduleRewrite()
	}
	return nil
}

// disableAOF turns the AOF off: every shard detaches its Log in its next
// turn, and once all have, the Set is closed (on a goroutine of its own:
// the last turns' bytes are written and fsynced, which releases the
// replies that wait for them).
func (g *Group) disableAOF() {
	set := g.aof.Swap(nil)
	if set == nil {
		return
	}
	left := len(g.shards)
	g.aofDraining.Add(int32(left))
	done := make(chan struct{}, len(g.shards))
	for _, s := range g.shards {
		s.deliver([]message{{kind: msgSave, data: runMsg(func(o *Shard) {
			o.detachAOF(set)
			done <- struct{}{}
		})}})
	}
	go func() {
		for range left {
			<-done
		}
		if err := set.Close(); err != nil {
			g.log.Warn("closing the append only file", zap.Error(err))
		}
	}()
}

// detachAOF stops this shard logging to set: a rewrite's base in progress
// ends unwritten, the turn's effects so far are logged, and the Log stays
// until the replies and messages that wait for its disk left (then the
// shard no longer counts in aofDraining).
func (s *Shard) detachAOF(set *aof.Set) {
	if s.aof.set != set {
		s.group.aofDraining.Add(-1) // never attached (its cut had not come)
		return
	}
	if s.snap != nil && s.snap.rewrite != nil {
		s.snapEnd(errAOFOff)
	}
	s.flushEffects()
	s.aof.log.UseLoop(nil) // Close runs on another goroutine
	s.mut.sink, s.aof.next = s.aof.next, nil
	s.aof.set, s.aof.hold, s.aof.draining = nil, false, true
}

// attachRuntime makes this shard log to set, an AOF turned on at run
// time, at its rewrite's cut: the effects of the turn so far are in the
// base, not the log.
func (s *Shard) attachRuntime(set *aof.Set) {
	s.flushEffects()
	s.attachAOF(set.Log(s.id))
	s.aof.set = set
	s.applyConfig(s.conf)
}

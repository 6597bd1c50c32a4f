package shard

import "github.com/radish-kv/radish/net/resp"

// execPart is what a partMsg carries of an EXEC's work on one part
// (multi.go): a round's commands on the part (msgPartRun, answered
// msgPartDone with their replies), or the whole EXEC when its keys all
// live on the part (msgExec: the watched keys checked, the memory, then
// the commands, answered msgPartDone). The part's shard reads run and
// watch, the EXEC's copies; idx and round are home's, carried there and
// back.
type execPart struct {
	run   cmdRun
	watch []watched // msgExec: the watched keys, all on the part's shard
	idx   []int     // home's: the commands' indexes in the EXEC's queue
	round int       // home's: msgPartRun's round

	// The answer: the commands' replies, or (msgExec) that a watched key
	// changed or the shard is out of memory, and nothing ran.
	replies    [][]byte
	dirty, oom bool
	w          resp.Writer // runCmds'
}

// runExecPart runs pm's share of an EXEC on this shard and answers home:
// a round's commands, the part's keys released after them when this is
// its last round; or, alone, the whole EXEC once its keys are free.
func (s *Shard) runExecPart(k msgKind, pm *partMsg) {
	ep := pm.ex
	if k == msgPartRun {
		ep.replies = s.runCmds(ep.run, ep.replies, &ep.w)
		if !pm.held {
			s.unlockPart(pm.id, pm.p)
		}
		pm.step = msgPartRun
		s.sendPart(pm.home, msgPartDone, pm)
		return
	}
	if !txnLocks || s.freeFor(pm.p) {
		s.execAlone(pm) // no closure to wait with
		return
	}
	s.whenFree(pm.p, func() { s.execAlone(pm) })
}

// execAlone runs an EXEC whose keys all live on this shard, now free,
// and answers home.
func (s *Shard) execAlone(pm *partMsg) {
	ep := pm.ex
	switch {
	case !s.unchanged(ep.watch):
		ep.dirty = true
	case s.oom(pm.spec):
		ep.oom = true
	default:
		ep.replies = s.runCmds(ep.run, ep.replies, &ep.w)
	}
	pm.step = msgExec
	s.sendPart(pm.home, msgPartDone, pm)
}

// execPartDone takes a part's answer at home: a round's replies, the
// round over once every part answered; an EXEC run alone's outcome.
func (s *Shard) execPartDone(pm *partMsg) {
	t, ep := pm.t, pm.ex
	if pm.step == msgExec {
		s.aloneDone(t, ep.idx, ep)
		return
	}
	for k, i := range ep.idx {
		t.res[i] = ep.replies[k]
	}
	if t.roundLeft--; t.roundLeft == 0 {
		s.round(t, ep.round+1)
	}
}

package shard

import (
	"github.com/radish-kv/radish/command"
)

// CLIENT PAUSE and UNPAUSE. The pause is one word of the group (its end
// in unix ms, times two, plus one for ALL), which each shard reads into
// s.pause at each turn and each read, as it reads whether anyone
// monitors. While it holds, a connection whose next command it pauses
// (every command under ALL; under WRITE, writes, commands that may
// replicate and an EXEC of queued writes, as Redis) reads nothing more:
// it waits on the shard's paused list, and runs on at the first turn
// after the pause ended or CLIENT UNPAUSE woke every shard. While it
// holds, no shard expires or evicts keys (fastCycles), as Redis: nothing
// but the paused commands writes. When no pause holds, a command costs
// one branch.

// Pause implements command.Server: commands pause until untilMs (unix
// ms), all of them or (all false) writes; a later end or ALL wins over
// a pause already in force.
func (g *Group) Pause(untilMs int64, all bool) {
	for {
		old := g.pauseWord.Load()
		oldUntil, oldAll := old>>1, old&1 == 1
		w := max(untilMs, oldUntil) << 1
		if all || oldAll && oldUntil > untilMs {
			w |= 1
		}
		if g.pauseWord.CompareAndSwap(old, w) {
			return
		}
	}
}

// Unpause implements command.Server: the pause ends, and every shard is
// woken to run its paused connections.
func (g *Group) Unpause() {
	g.pauseWord.Store(0)
	for _, s := range g.shards {
		s.drv.Wake()
	}
}

// paused reports whether the pause in force holds back args, c's next
// command.
func (s *Shard) paused(c *conn, args [][]byte) bool {
	if s.now >= s.pause>>1 {
		return false
	}
	if s.pause&1 == 1 {
		return true
	}
	spec, errText := s.cmds.Resolve(args)
	if errText != "" {
		return false
	}
	if spec.Flags&(command.Write|command.MayReplicate) != 0 {
		return true
	}
	if spec.Tx == command.TxExec && c.inMulti() {
		for _, q := range c.tx.cmds {
			if q.spec.Flags&(command.Write|command.MayReplicate) != 0 {
				return true
			}
		}
	}
	return false
}

// hold puts c on the paused list: it reads nothing until resumePaused.
func (s *Shard) hold(c *conn) {
	c.paused = true
	s.pausedConns = append(s.pausedConns, c)
}

// resumePaused runs the paused connections on once the pause ended.
func (s *Shard) resumePaused() {
	if len(s.pausedConns) == 0 || s.now < s.pause>>1 {
		return
	}
	cs := s.pausedConns
	s.pausedConns = nil
	for _, c := range cs {
		c.paused = false
		if !c.dead && !c.closing {
			s.serve(c)
		}
	}
}

package script

import (
	"context"
	"sync"
	"sync/atomic"
)

// Killer is what other goroutines may see of a Runtime's run, so that
// SCRIPT KILL and FUNCTION KILL, served by any shard, can stop it: the
// interpreter watches a context that Kill cancels. A run that wrote
// cannot be killed (Redis's UNKILLABLE). The zero Killer is ready.
type Killer struct {
	running  atomic.Bool
	function atomic.Bool
	wrote    atomic.Bool
	killed   atomic.Bool
	mu       sync.Mutex
	cancel   context.CancelFunc
}

// Kill stops the run in progress if it is of the kind asked (a
// function's or an EVAL's): "" when it was told to stop, else the
// error reply's text.
func (k *Killer) Kill(function bool) string {
	if !k.running.Load() || k.function.Load() != function {
		return "NOTBUSY No scripts in execution right now."
	}
	if k.wrote.Load() {
		return "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	}
	k.killed.Store(true)
	k.mu.Lock()
	if k.cancel != nil {
		k.cancel()
	}
	k.mu.Unlock()
	return ""
}

// killedText is the error of a killed run.
const killedText = "ERR Script killed by user with SCRIPT KILL..."

// arm gives the interpreter a fresh context when the last one was
// cancelled (or at first), and marks a run of s as in progress.
func (r *Runtime) arm(s *Script) {
	k := r.Killer
	if r.L.Context() == nil || r.L.Context().Err() != nil {
		ctx, cancel := context.WithCancel(context.Background())
		k.mu.Lock()
		k.cancel = cancel
		k.mu.Unlock()
		r.L.SetContext(ctx)
	}
	k.killed.Store(false)
	k.wrote.Store(false)
	k.function.Store(s.function)
	k.running.Store(true)
}

// disarm marks the run over, and reports whether it was killed.
func (r *Runtime) disarm() bool {
	r.Killer.running.Store(false)
	return r.Killer.killed.Load()
}

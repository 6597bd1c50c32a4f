package script

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/radish-kv/radish/errtext"
)

// Killer is what other goroutines may see of a Runtime's run, so that
// SCRIPT KILL and FUNCTION KILL, served by any shard, can stop it: the
// interpreter watches a context (hook) that Kill cancels. A run that
// wrote cannot be killed (Redis's UNKILLABLE). The zero Killer is ready.
type Killer struct {
	running  atomic.Bool
	function atomic.Bool
	wrote    atomic.Bool
	killed   atomic.Bool
	mu       sync.Mutex
	h        *hook
}

// Kill stops the run in progress if it is of the kind asked (a
// function's or an EVAL's): "" when it was told to stop, else the
// error reply's text.
func (k *Killer) Kill(function bool) string {
	// Under mu, which disarm takes to end the run: a kill never lands on
	// the hook of a run that ended meanwhile, which the next would inherit.
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.running.Load() {
		return errtext.NotBusy
	}
	if k.wrote.Load() {
		return "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	}
	if f := k.function.Load(); f != function {
		// SCRIPT KILL does not stop a function, nor FUNCTION KILL an
		// EVAL: Redis answers what a client of the busy server gets.
		if f {
			return BusyFunction
		}
		return BusyEval
	}
	k.killed.Store(true)
	if k.h != nil {
		k.h.cancel()
	}
	return ""
}

// Abort stops the run in progress whatever it did (the server stops).
func (k *Killer) Abort() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.running.Load() {
		return
	}
	k.killed.Store(true)
	if k.h != nil {
		k.h.cancel()
	}
}

// Fail stops the run in progress whatever it did, with the error text
// given (its ERR code included): the run's reply is that error, where the
// script stood. It must be called on the run's goroutine (from Tick).
func (r *Runtime) Fail(text string) {
	r.failText = text
	r.Killer.Abort()
}

// Function reports whether the run in progress (or the last) is a
// FUNCTION's, else an EVAL's.
func (k *Killer) Function() bool { return k.function.Load() }

// The -BUSY texts of a long EVAL's and a long FUNCTION's.
const (
	BusyEval     = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	BusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// killedText is the error of a killed run.
const killedText = "ERR Script killed by user with SCRIPT KILL..."

// TickEvery is how many Lua instructions run between two calls of a
// Runtime's Tick.
const TickEvery = 10000

// hook is the interpreter's context. gopher-lua asks for Done before
// every instruction: every TickEvery calls the Runtime's Tick runs (the
// shard's look at the clock, and its busy mode), and Done's channel is
// closed once Kill cancels the run. It implements AfterFunc, so that the
// contexts gopher-lua derives from it for coroutines need no goroutine
// (which would call Done from another thread).
type hook struct {
	r    *Runtime
	left int
	mu   sync.Mutex
	done chan struct{}
	err  error
	fns  []func()
}

var _ context.Context = (*hook)(nil)

func (h *hook) Done() <-chan struct{} {
	if h.left--; h.left <= 0 {
		h.left = TickEvery
		if h.r.Tick != nil && h.r.inRun {
			h.r.Tick()
		}
	}
	return h.done
}

func (h *hook) Deadline() (time.Time, bool) { return time.Time{}, false }
func (h *hook) Value(any) any               { return nil }

func (h *hook) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// AfterFunc runs f once the run is cancelled.
func (h *hook) AfterFunc(f func()) func() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		go f()
		return func() bool { return false }
	}
	i := len(h.fns)
	h.fns = append(h.fns, f)
	return func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		if i < len(h.fns) && h.fns[i] != nil {
			h.fns[i] = nil
			return true
		}
		return false
	}
}

func (h *hook) cancel() {
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return
	}
	h.err = context.Canceled
	close(h.done)
	fns := h.fns
	h.fns = nil
	h.mu.Unlock()
	for _, f := range fns {
		if f != nil {
			f()
		}
	}
}

// freshHook gives the interpreter a new hook: at first, and after a kill
// cancelled the last one (a library's code runs with it too).
func (r *Runtime) freshHook() {
	k := r.Killer
	k.mu.Lock()
	k.h = &hook{r: r, done: make(chan struct{})}
	r.L.SetContext(k.h)
	k.mu.Unlock()
}

// arm marks a run of s as in progress.
func (r *Runtime) arm(s *Script) {
	k := r.Killer
	k.mu.Lock()
	k.h.left = TickEvery
	k.h.fns = k.h.fns[:0]
	k.mu.Unlock()
	k.killed.Store(false)
	k.wrote.Store(false)
	k.function.Store(s.function)
	k.running.Store(true)
	r.inRun = true
}

// disarm marks the run over, and reports whether it was killed.
func (r *Runtime) disarm() bool {
	r.inRun = false
	k := r.Killer
	k.mu.Lock()
	k.running.Store(false)
	cancelled := k.h.err != nil
	k.mu.Unlock()
	if cancelled {
		r.freshHook()
	}
	return k.killed.Load()
}

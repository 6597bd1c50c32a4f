package command

import (
	"math"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN,
// BZPOPMAX, BZMPOP) have two entry points:
//
//   - Spec.Handler, the form that never blocks: what Redis does inside
//     MULTI or a script (pop if it can, else the timeout reply at once).
//   - BlockingFunc(spec, args), a BlockFunc the shard loop runs instead when
//     the client may block (nil when these arguments never block: XREAD
//     without BLOCK). When the command can reply now (data was there, or
//     an argument error) it writes the reply exactly as Redis would and
//     returns false. When every key it reads is empty it writes nothing,
//     fills Wait and returns true: the loop parks the client on those keys
//     and, when one of them may have received data (any write to it:
//     LPUSH, ZADD, LMOVE's destination, *STORE, RENAME, ...), runs the
//     BlockFunc again with the same args (it replies, or asks to wait
//     again; keep the first Deadline). When the deadline passes the loop
//     writes WriteTimeout's reply.
//
// The engine needs nothing special: a blocked client is only waiting keys
// and a deadline.
//
// A BlockFunc may replace elements of args to remember what its first
// attempt resolved (XREAD's "$": the stream's last ID then): it does so
// only for keys c.Owns reports as the executing shard's (none in the dry
// run on an empty store), and every shard that keeps a waiter has its
// own copy of args.

// Wait says what a blocked command waits for.
type Wait struct {
	// Keys are the indexes in args of the keys the command waits on, in
	// argument order (the order Redis serves them in).
	Keys []int
	// Deadline is the absolute unix-ms time at which the client gets the
	// timeout reply; 0 means never.
	Deadline int64

	buf [8]int
}

func (w *Wait) set(deadline int64, from, to int) {
	w.Deadline = deadline
	w.Keys = w.buf[:0]
	for i := from; i < to; i++ {
		w.Keys = append(w.Keys, i)
	}
}

// BlockFunc runs a blocking command's attempt; see the comment above.
type BlockFunc func(c *Ctx, args [][]byte, wait *Wait) (blocked bool)

// blockFuncs maps the rows of blocking commands to their BlockFunc;
// blocksIf, for a row that blocks only with some arguments, says whether
// these do.
var (
	blockFuncs = map[string]BlockFunc{}
	blocksIf   = map[string]func(args [][]byte) bool{}
	servesGone = map[string]bool{}
)

// ServesGone reports whether a blocked command is run again when the key
// it waits on is deleted (XREADGROUP answers an error then), not only
// when it holds data.
func ServesGone(s *Spec) bool { return servesGone[s.Name] }

func registerBlocking(name string, f BlockFunc) { blockFuncs[name] = f }

func init() {
	registerBlocking("blpop", BlockLPop)
	registerBlocking("brpop", BlockRPop)
	registerBlocking("blmove", BlockLMove)
	registerBlocking("brpoplpush", BlockRPopLPush)
	registerBlocking("blmpop", BlockLMPop)
}

// BlockingFunc returns the BlockFunc of a blocking command's row, nil for a
// command that never blocks or does not with these arguments. It
// inlines: a command that never blocks costs its caller one flag test.
func BlockingFunc(s *Spec, args [][]byte) BlockFunc {
	if s == nil || s.Flags&Blocking == 0 {
		return nil
	}
	return blockingFunc(s, args)
}

// blockingFunc is BlockingFunc for a row flagged Blocking.
func blockingFunc(s *Spec, args [][]byte) BlockFunc {
	if f := blocksIf[s.Name]; f != nil && !f(args) {
		return nil
	}
	return blockFuncs[s.Name]
}

// WriteTimeout writes the reply a blocked command gets when its deadline
// passes: a null array for every one of them, BLMOVE and BRPOPLPUSH
// included (Redis 7.0's replyToBlockedClientTimedOut; RESP3 "_"), although
// their non-blocking form (inside MULTI) answers a null bulk.
func WriteTimeout(c *Ctx, s *Spec) { c.W.NullArray() }

// nonBlocking runs a BlockFunc as a command that must not block: nothing
// to pop gives the timeout reply at once.
func nonBlocking(c *Ctx, args [][]byte, f BlockFunc, array bool) {
	var w Wait
	if f(c, args, &w) {
		if array {
			c.W.NullArray()
		} else {
			c.W.Null()
		}
	}
}

// blockTimeout parses a timeout in seconds (Redis's getTimeoutFromObjectOrReply
// with UNIT_SECONDS) into an absolute deadline: 0 means none. ok false: replied.
func blockTimeout(c *Ctx, b []byte) (int64, bool) {
	f, ok := num.ParseLongDouble64(b)
	if !ok {
		c.W.Error("ERR timeout is not a float or out of range")
		return 0, false
	}
	ms := f * 1000
	// C converts an out-of-range value to LLONG_MIN on x86: "negative".
	if ms >= math.MaxInt64 || ms < math.MinInt64 || ms <= -1 {
		c.W.Error(errtext.TimeoutNegative)
		return 0, false
	}
	t := int64(ms)
	if t <= 0 {
		return 0, true
	}
	if t > math.MaxInt64-c.Now {
		return math.MaxInt64, true
	}
	return c.Now + t, true
}

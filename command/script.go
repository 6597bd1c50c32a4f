package command

import (
	"strings"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// The scripting family: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT,
// FCALL, FCALL_RO and FUNCTION.
// Where a script runs and how its redis.call reaches the keys is the
// shard's business (shard/script.go, over package script), so the EVAL
// rows say what they are to it (Spec.Script); their handler runs only
// where a script is one command of a transaction (inside MULTI), through
// Ctx.Scripts on the store the handler was given. Their effects are
// those of the commands the script called, never the EVAL itself:
// Propagate states nothing.

// ScriptRole is what a row is to the scripting engine (Spec.Script).
type ScriptRole uint8

// Roles.
const (
	ScriptNone    ScriptRole = iota
	ScriptEval               // EVAL, EVAL_RO: the body is args[1]
	ScriptEvalSHA            // EVALSHA, EVALSHA_RO: the SHA is args[1]
	ScriptFCall              // FCALL, FCALL_RO: the function's name is args[1]
)

// Scripts is the executing shard's scripting engine.
type Scripts interface {
	// Eval runs an EVAL row's command (args as sent) on c's store, where
	// the only keys it may touch are those the transaction running it
	// holds.
	Eval(c *Ctx, args [][]byte)
	// Load compiles body and makes it known on every shard: its SHA, or
	// the error reply's text.
	Load(body []byte) (sha, errText string)
	// Exists reports whether a script with this SHA is known.
	Exists(sha []byte) bool
	// Flush forgets every script.
	Flush()
	// KillScript stops the script (function: the function) running on any
	// shard: "" when it was told to stop, else the error reply's text.
	KillScript(function bool) string
	// Function runs a FUNCTION subcommand (LOAD, DELETE, FLUSH, LIST,
	// STATS, HELP); the libraries are the same on every shard.
	Function(c *Ctx, args [][]byte)
}

func init() {
	eval := func(name, summary string, role ScriptRole, ro bool) *Spec {
		s := &Spec{Name: name, Arity: -3, Flags: NoScript | SkipMonitor | NoMandatoryKeys | Stale,
			ACL: []string{"scripting"}, Script: role, Handler: cmdEval, Propagate: func(*Prop) {},
			Summary: summary, Group: "scripting", Complexity: "Depends on the script that is executed."}
		ks := KeySpec{Flags: KeyRW | KeyAccess | KeyUpdate, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1}
		if ro {
			s.Flags |= ReadOnly
			ks.Flags = KeyRO | KeyAccess
		}
		if role != ScriptEvalSHA {
			ks.Notes = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE"
			if ro {
				ks.Notes = "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"
			}
		}
		s.KeySpecs = []KeySpec{ks}
		return s
	}
	sub := func(name string, arity int, flags Flag, h Handler, tips ...string) *Spec {
		return &Spec{Name: "script|" + name, Arity: arity, Flags: flags, ACL: []string{"scripting"},
			Tips: tips, Handler: h, Group: "scripting"}
	}
	fsub := func(name string, arity int, flags Flag, tips ...string) *Spec {
		s := &Spec{Name: "function|" + name, Arity: arity, Flags: flags, ACL: []string{"scripting"},
			Tips: tips, Handler: cmdFunction, Group: "scripting"}
		if flags&Write != 0 {
			// Every change to the libraries is logged by shard 0, in
			// order (the shards' logs replay side by side).
			s.Route = func([][]byte) Route { return Route{First: true} }
		}
		return s
	}
	register(
		eval("eval", "Execute a Lua script server side", ScriptEval, false),
		eval("evalsha", "Execute a Lua script server side", ScriptEvalSHA, false),
		eval("eval_ro", "Execute a read-only Lua script server side", ScriptEval, true),
		eval("evalsha_ro", "Execute a read-only Lua script server side", ScriptEvalSHA, true),
		eval("fcall", "Invoke a function", ScriptFCall, false),
		eval("fcall_ro", "Invoke a read-only function", ScriptFCall, true),
		&Spec{Name: "function", Arity: -2, Summary: "A container for function commands", Group: "scripting",
			Sub: []*Spec{
				fsub("delete", 3, Write|NoScript, "request_policy:all_shards", "response_policy:all_succeeded"),
				fsub("dump", 2, NoScript),
				fsub("flush", -2, Write|NoScript, "request_policy:all_shards", "response_policy:all_succeeded"),
				fsub("help", 2, Loading|Stale),
				{Name: "function|kill", Arity: 2, Flags: NoScript | AllowBusy, ACL: []string{"scripting"},
					Tips: []string{"request_policy:all_shards", "response_policy:one_succeeded"}, Handler: cmdFunctionKill,
					Group: "scripting"},
				fsub("list", -2, NoScript, "nondeterministic_output_order"),
				fsub("load", -3, Write|DenyOOM|NoScript, "request_policy:all_shards", "response_policy:all_succeeded"),
				fsub("restore", -3, Write|DenyOOM|NoScript, "request_policy:all_shards", "response_policy:all_succeeded"),
				fsub("stats", 2, NoScript|AllowBusy, "nondeterministic_output", "request_policy:all_shards",
					"response_policy:special"),
			}},
		&Spec{Name: "script", Arity: -2, Summary: "A container for Lua scripts management commands",
			Group: "scripting", Sub: []*Spec{
				sub("exists", -3, NoScript, cmdScriptExists, "request_policy:all_shards", "response_policy:agg_logical_and"),
				sub("flush", -2, NoScript, cmdScriptFlush, "request_policy:all_nodes", "response_policy:all_succeeded"),
				sub("help", 2, Loading|Stale, cmdScriptHelp),
				sub("kill", 2, NoScript|AllowBusy, cmdScriptKill, "request_policy:all_shards", "response_policy:one_succeeded"),
				sub("load", 3, NoScript|Stale, cmdScriptLoad, "request_policy:all_nodes", "response_policy:all_succeeded"),
			}},
	)
}

func cmdEval(c *Ctx, args [][]byte) { c.Scripts.Eval(c, args) }

func cmdFunction(c *Ctx, args [][]byte) { c.Scripts.Function(c, args) }

func cmdScriptKill(c *Ctx, args [][]byte)   { kill(c, false) }
func cmdFunctionKill(c *Ctx, args [][]byte) { kill(c, true) }

// kill is SCRIPT KILL (FUNCTION KILL when function is set).
func kill(c *Ctx, function bool) {
	if errText := c.Scripts.KillScript(function); errText != "" {
		c.W.Error(errText)
		return
	}
	c.W.OK()
}

// EvalKeys checks an EVAL row's numkeys: how many keys follow it, or the
// error reply's text.
func EvalKeys(args [][]byte) (int, string) {
	n, ok := num.ParseInt(args[2])
	switch {
	case !ok:
		return 0, errtext.NotInt
	case n < 0:
		return 0, "ERR Number of keys can't be negative"
	case n > int64(len(args)-3):
		return 0, errtext.NumKeysArgs
	}
	return int(n), ""
}

func cmdScriptLoad(c *Ctx, args [][]byte) {
	sha, errText := c.Scripts.Load(args[2])
	if errText != "" {
		c.W.Error(errText)
		return
	}
	c.W.BulkString(sha)
}

func cmdScriptExists(c *Ctx, args [][]byte) {
	c.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		if c.Scripts.Exists(a) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func cmdScriptFlush(c *Ctx, args [][]byte) {
	if len(args) > 3 || len(args) == 3 && !strings.EqualFold(string(args[2]), "sync") &&
		!strings.EqualFold(string(args[2]), "async") {
		c.W.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	c.Scripts.Flush()
	c.W.OK()
}

func cmdScriptHelp(c *Ctx, args [][]byte) {
	lines := []string{
		"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DEBUG (YES|SYNC|NO)", "    Set the debug mode for subsequent scripts executed.",
		"EXISTS <sha1> [<sha1> ...]", "    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.", "    * SYNC: Synchronously flush the scripts cache.",
		"KILL", "    Kill the currently executing Lua script.",
		"LOAD <script>", "    Load a script into the scripts cache without executing it.",
		"HELP", "    Prints this help.",
	}
	c.W.Array(len(lines))
	for _, l := range lines {
		c.W.Simple(l)
	}
}

package script

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
)

// Version is the Redis version scripts see (redis.REDIS_VERSION).
const Version = "7.0.15"

// Host runs the commands a script calls. The Runtime resolves and checks
// each one first (unknown, arity, noscript, writes from a read-only
// script, out of memory); the Host runs it where the script runs.
type Host interface {
	// Call runs spec with args (valid only during the call), writing its
	// one reply to w. It returns false when the command cannot run where
	// the script runs (a key of a shard the run does not hold): the run is
	// abandoned, its result is Faulted, and the Host undoes what it did.
	Call(spec *command.Spec, args [][]byte, w *resp.Writer) bool
	// OutOfMemory reports whether a command that may grow memory must be
	// refused.
	OutOfMemory() bool
	// Permit returns the error that refuses the script's user spec with
	// args (its ACL), or "".
	Permit(spec *command.Spec, args [][]byte) string
}

// Flags are a script's shebang flags (#!lua flags=...).
type Flags uint8

// Shebang flags.
const (
	NoWrites Flags = 1 << iota
	AllowOOM
	AllowStale
	NoCluster
	AllowCrossSlot
	Shebang // the script has a shebang line: flags are in force
)

// Script is a compiled script on one Runtime.
type Script struct {
	SHA   string
	Flags Flags
	// Spread is set once a run of it touched keys on several shards: the
	// shard that places it remembers to take every shard at once.
	Spread bool
	fn     *lua.LFunction
	// function: a FUNCTION's callback, called with KEYS and ARGV as its
	// parameters; SHA is then the function's name.
	function bool
}

// Call is one run's inputs.
type Call struct {
	Keys, Argv [][]byte
	ReadOnly   bool // EVAL_RO, EVALSHA_RO, or the no-writes flag
	Host       Host
}

// Runtime is one shard's Lua interpreter, sandboxed as Redis sandboxes
// it, with the scripts it compiled. Owned by one goroutine.
type Runtime struct {
	L       *lua.LState
	reg     *Registry
	gen     uint64
	scripts map[string]*Script
	globals *lua.LTable          // the real globals, behind the read-only proxy env
	proxies map[*lua.LTable]bool // the read-only proxies
	env     *lua.LTable
	// The FUNCTION side: the functions compiled from the Registry's
	// libraries (at libGen), the environment library code runs in, and
	// the library loading now.
	funcs      map[string]*Script
	libGen     uint64
	libGlobals *lua.LTable
	libEnv     *lua.LTable
	loadRedis  *lua.LTable
	loading    *Library
	loaded     []*Script
	// Killer lets SCRIPT KILL, from any goroutine, stop the run in
	// progress.
	Killer *Killer
	// Log receives redis.log's messages (level 0 debug ... 3 warning).
	Log func(level int, msg string)
	// DumpCompress is rdbcompression, for FUNCTION DUMP.
	DumpCompress bool
	// Tick, when set, runs about every TickEvery Lua instructions while a
	// run lasts, on the run's goroutine: the shard looks at the clock
	// there and, past busy-reply-threshold, answers its other clients.
	Tick func()

	// The run in progress.
	inRun    bool
	failText string // the error Fail stopped the run with
	call     *Call
	sha      string
	chunk    string // the chunk name errors give: user_script, user_function
	resp3    bool
	faulted  bool
	callErr  lua.LString // the error redis.call raised last
	errLine  int
	w        resp.Writer
	args     [][]byte
	argBuf   []byte // the bytes of args
	// bulk and status are the last bulk string and status text of a
	// call's reply, as Lua strings.
	bulk, status lastString
	calls        callFns
	// keys and argv are the KEYS and ARGV tables of the last EVAL run,
	// refilled by the next (see refill).
	keys, argv argTable
}

// New makes a Runtime over the process's Registry, whose runs k lets
// other goroutines stop (a new Killer when k is nil).
func New(reg *Registry, k *Killer) *Runtime {
	if k == nil {
		k = &Killer{}
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	r := &Runtime{L: L, reg: reg, Killer: k, scripts: make(map[string]*Script), gen: reg.Gen(), funcs: make(map[string]*Script),
		libGen: reg.libGen.Load(), proxies: make(map[*lua.LTable]bool), keys: argTable{name: "KEYS"}, argv: argTable{name: "ARGV"}}
	g := L.G.Global
	for _, name := range []string{"dofile", "loadfile", "print", "_printregs", "module", "require", "newproxy", "_G"} {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("error", L.NewFunction(r.luaError))
	g.RawSetString("tonumber", L.NewFunction(r.luaToNumber))
	g.RawSetString("tostring", L.NewFunction(r.luaToString))
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	r.openRedis(g)
	g.RawSetString("bit", openBit(L))
	g.RawSetString("cjson", openCJSON(L))
	g.RawSetString("cmsgpack", r.openCMsgpack(L))
	g.RawSetString("struct", r.openStruct(L))
	// Every library table and the globals become read-only: each is
	// replaced by an empty proxy whose metatable reads through to it and
	// refuses writes; reading a missing global is an error. The functions
	// that add to a table raw refuse a proxy (table.remove and table.sort
	// find it empty, and change nothing, as Redis's on its read-only
	// tables).
	g.RawGetString("string").(*lua.LTable).RawSetString("format", L.NewFunction(r.luaFormat))
	g.RawGetString("table").(*lua.LTable).RawSetString("concat", L.NewFunction(r.luaConcat))
	r.guard(g, "rawset")
	r.guard(g.RawGetString("table").(*lua.LTable), "insert")
	for _, name := range []string{"string", "table", "math", "coroutine", "bit", "cjson", "cmsgpack", "struct"} {
		g.RawSetString(name, r.readOnly(g.RawGetString(name).(*lua.LTable)))
	}
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		mt.RawSetString("__index", g.RawGetString("string"))
	}
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		r.errLine = currentLine(L)
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.Get(2).String())
		return 0
	}))
	L.SetMetatable(g, missing)
	r.globals = g
	r.env = r.readOnly(g)
	g.RawSetString("_G", r.env)
	L.Env = r.env
	r.openLibraries()
	r.freshHook()
	return r
}

// readOnly returns a proxy of t that refuses writes.
func (r *Runtime) readOnly(t *lua.LTable) *lua.LTable {
	L := r.L
	p := L.NewTable()
	r.proxies[p] = true
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		r.errLine = currentLine(L)
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	mt.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(p, mt)
	return p
}

// guard makes the function name of library t refuse a read-only table
// as its first argument, as Redis's Lua refuses rawset or table.insert
// on one (else a script could write into a proxy, and keep what it
// wrote there for the next run).
func (r *Runtime) guard(t *lua.LTable, name string) {
	fn := t.RawGetString(name).(*lua.LFunction).GFunction
	t.RawSetString(name, r.L.NewFunction(func(L *lua.LState) int {
		if p, ok := L.Get(1).(*lua.LTable); ok && r.proxies[p] {
			return r.fail(L, "Attempt to modify a readonly table")
		}
		return fn(L)
	}))
}

// currentLine is the line the innermost Lua function runs.
func currentLine(L *lua.LState) int {
	for level := 0; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return 0
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
			return dbg.CurrentLine
		}
	}
}

// luaError is Lua's error, noting the line it was called from (Redis's
// error handler reports it).
func (r *Runtime) luaError(L *lua.LState) int {
	obj := L.Get(1)
	level := L.OptInt(2, 1)
	r.errLine = currentLine(L)
	switch obj.(type) {
	case lua.LString, lua.LNumber:
		if level > 0 {
			obj = lua.LString(L.Where(level) + " " + lua.LVAsString(obj))
		}
	}
	L.Error(obj, 0)
	return 0
}

// fail raises msg with no position, as Redis's library functions do.
func (r *Runtime) fail(L *lua.LState, msg string) int {
	r.errLine = currentLine(L)
	L.Error(lua.LString(msg), 0)
	return 0
}

// Get returns the script named sha (lower case), compiled from the
// Registry if this Runtime has not seen it.
func (r *Runtime) Get(sha string) (*Script, bool) {
	if g := r.reg.Gen(); g != r.gen {
		clear(r.scripts)
		r.keys.refs, r.argv.refs = nil, nil
		r.gen = g
	}
	if s, ok := r.scripts[sha]; ok {
		return s, true
	}
	body, ok := r.reg.Get(sha)
	if !ok {
		return nil, false
	}
	s, errText := r.compile(sha, body)
	return s, errText == ""
}

// GetSHA is Get of an EVALSHA's SHA, in any case.
func (r *Runtime) GetSHA(sha []byte) (*Script, bool) {
	if r.reg.Gen() == r.gen {
		if s, ok := r.scripts[string(sha)]; ok {
			return s, true
		}
	}
	return r.Get(strings.ToLower(string(sha)))
}

// Load compiles body, records it in the Registry and returns its SHA, or
// the error reply's text.
func (r *Runtime) Load(body []byte) (*Script, string) {
	sha := SHA(body)
	if s, ok := r.Get(sha); ok {
		return s, ""
	}
	s, errText := r.compile(sha, string(body))
	if errText != "" {
		return nil, errText
	}
	r.reg.Add(sha, string(body))
	return s, ""
}

func (r *Runtime) compile(sha, body string) (*Script, string) {
	flags, src, errText := shebang(body)
	if errText != "" {
		return nil, errText
	}
	chunk, err := parse.Parse(strings.NewReader(src), "user_script")
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + compileError(err, src)
	}
	proto, err := lua.Compile(chunk, "user_script")
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + compileError(err, src)
	}
	// gopher-lua gives the main chunk, a vararg function, Lua 5.0's
	// "arg" table, a table with a map per call that no code can reach
	// (the main chunk has no local "arg"); Lua 5.1's main chunk has none.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	r.fastCalls(proto)
	fn := r.L.NewFunctionFromProto(proto)
	fn.Env = r.env
	s := &Script{SHA: sha, Flags: flags, fn: fn}
	r.scripts[sha] = s
	return s, ""
}

// compileError words a parse error as Lua 5.1 does: "user_script:1:
// unexpected symbol near '<eof>'".
func compileError(err error, src string) string {
	if pe, ok := err.(*parse.Error); ok {
		tok := pe.Token
		if pe.Pos.Line < 1 { // gopher-lua's position of the end of input
			pe.Pos.Line, tok = strings.Count(src, "\n")+1, "<eof>"
		}
		msg := pe.Message
		if msg == "syntax error" {
			msg = "unexpected symbol"
		}
		return fmt.Sprintf("user_script:%d: %s near '%s'", pe.Pos.Line, msg, tok)
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// shebang reads a script's "#!lua flags=..." line: its flags, and the
// source to compile (the line blanked, so line numbers stay).
func shebang(body string) (Flags, string, string) {
	if !strings.HasPrefix(body, "#!") {
		return 0, body, ""
	}
	line, rest, _ := strings.Cut(body, "\n")
	parts := strings.Fields(line[2:])
	if len(parts) == 0 || parts[0] != "lua" {
		engine := ""
		if len(parts) > 0 {
			engine = parts[0]
		}
		return 0, "", "ERR Could not find scripting engine '" + engine + "'"
	}
	f := Shebang
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, "", "ERR Unknown lua shebang option: " + p
		}
		for _, name := range strings.Split(list, ",") {
			switch name {
			case "no-writes":
				f |= NoWrites
			case "allow-oom":
				f |= AllowOOM
			case "allow-stale":
				f |= AllowStale
			case "no-cluster":
				f |= NoCluster
			case "allow-cross-slot-keys":
				f |= AllowCrossSlot
			case "":
			default:
				return 0, "", "ERR Unexpected flag in script shebang: " + name
			}
		}
	}
	return f, "\n" + rest, ""
}

// Run runs s with c's keys and arguments and writes its result (or its
// error) to w, in w's protocol. It reports false when the run was
// abandoned (the Host refused a command): then w holds nothing of it.
func (r *Runtime) Run(s *Script, c *Call, w *resp.Writer) bool {
	L := r.L
	r.call, r.sha, r.resp3, r.faulted, r.callErr, r.errLine, r.failText = c, s.SHA, false, false, "", 0, ""
	r.chunk = "user_script"
	if s.function {
		r.chunk = "user_function"
	}
	L.Push(s.fn)
	nargs := 0
	if s.function {
		L.Push(strTable(L, c.Keys))
		L.Push(strTable(L, c.Argv))
		nargs = 2
	} else {
		r.keys.fill(r, c.Keys)
		r.argv.fill(r, c.Argv)
	}
	r.arm(s)
	err := L.PCall(nargs, 1, nil)
	killed := r.disarm()
	r.call = nil
	if r.faulted {
		if err == nil {
			L.Pop(1)
		}
		return false
	}
	if err != nil && killed {
		// The interpreter raised the context's error where it stopped:
		// its line is the one to report.
		if ae, ok := err.(*lua.ApiError); ok {
			r.errLine = lineOf(lua.LVAsString(ae.Object), r.chunk, r.errLine)
		}
		r.callErr = killedText
		if r.failText != "" {
			r.callErr = lua.LString(r.failText)
		}
		err = &lua.ApiError{Object: r.callErr}
	}
	if err != nil {
		r.writeError(w, err)
		return true
	}
	writeLua(w, L.Get(-1), r.resp3, 0)
	L.Pop(1)
	return true
}

func strTable(L *lua.LState, vs [][]byte) *lua.LTable {
	t := L.CreateTable(len(vs), 0)
	for i, v := range vs {
		t.RawSetInt(i+1, lua.LString(v))
	}
	return t
}

// refill returns t holding vs, as a new table from strTable would, when
// the last run left t as a plain array (no metatable, no key but its
// integers); else a new table. An entry equal to its string stays, so
// the keys and arguments a script is called with again cost nothing. An
// EVAL script cannot keep a table past its run (its globals are
// read-only), so no later run sees the table change.
func refill(L *lua.LState, t *lua.LTable, vs [][]byte) *lua.LTable {
	if t == nil || t.Metatable != lua.LNil {
		return strTable(L, vs)
	}
	for i, v := range vs {
		if old, ok := t.RawGetInt(i + 1).(lua.LString); !ok || string(old) != string(v) {
			t.RawSetInt(i+1, lua.LString(v))
		}
	}
	for i := t.MaxN(); i > len(vs); i-- {
		t.RawSetInt(i, lua.LNil)
	}
	var last lua.LValue = lua.LNil
	if len(vs) > 0 {
		last = lua.LNumber(len(vs))
	}
	if k, _ := t.Next(last); k != lua.LNil {
		return strTable(L, vs)
	}
	return t
}

// writeError writes a failed run's error as Redis does: "<text> script:
// <sha>, on @user_script:<line>.", the text with an ERR code unless it
// came from redis.call or an {err=...} table.
func (r *Runtime) writeError(w *resp.Writer, err error) {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	line := r.errLine
	var text string
	switch o := obj.(type) {
	case lua.LString:
		if o == r.callErr {
			text = string(o)
			break
		}
		text = "ERR " + string(o)
		line = lineOf(string(o), r.chunk, line)
	case *lua.LTable:
		if e, ok := o.RawGetString("err").(lua.LString); ok {
			text = string(e)
		} else {
			text = "ERR " + o.String()
		}
	default:
		text = "ERR " + lua.LVAsString(obj)
		if obj == lua.LNil {
			text = "ERR nil"
		}
	}
	w.Error(fmt.Sprintf("%s script: %s, on @%s:%d.", stripLines(text), r.sha, r.chunk, line))
}

// lineOf is the line an error message's "chunk:N:" prefix names, else
// line.
func lineOf(msg, chunk string, line int) int {
	if rest, ok := strings.CutPrefix(msg, chunk+":"); ok {
		if n, _, ok := strings.Cut(rest, ":"); ok {
			if v, err := strconv.Atoi(n); err == nil {
				return v
			}
		}
	}
	return line
}

// Log levels of redis.log.
const (
	LogDebug = iota
	LogVerbose
	LogNotice
	LogWarning
)

// openRedis installs the redis library, and server as its alias.
func (r *Runtime) openRedis(g *lua.LTable) {
	L := r.L
	t := L.NewTable()
	r.calls = callFns{
		call:      L.NewFunction(func(L *lua.LState) int { return r.redisCall(L, true, true) }),
		pcall:     L.NewFunction(func(L *lua.LState) int { return r.redisCall(L, false, true) }),
		callVoid:  L.NewFunction(func(L *lua.LState) int { return r.redisCall(L, true, false) }),
		pcallVoid: L.NewFunction(func(L *lua.LState) int { return r.redisCall(L, false, false) }),
	}
	t.RawSetString("call", r.calls.call)
	t.RawSetString("pcall", r.calls.pcall)
	L.SetFuncs(t, map[string]lua.LGFunction{
		"error_reply": func(L *lua.LState) int {
			s, ok := L.Get(1).(lua.LString)
			if L.GetTop() != 1 || !ok {
				return pushErr(L, "ERR wrong number or type of arguments")
			}
			return pushErr(L, errorReply(string(s)))
		},
		"status_reply": func(L *lua.LState) int {
			s, ok := L.Get(1).(lua.LString)
			if L.GetTop() != 1 || !ok {
				return pushErr(L, "ERR wrong number or type of arguments")
			}
			tb := L.CreateTable(0, 1)
			tb.RawSetString("ok", s)
			L.Push(tb)
			return 1
		},
		"sha1hex": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				return r.fail(L, "wrong number of arguments")
			}
			L.Push(lua.LString(SHA([]byte(lua.LVAsString(L.Get(1))))))
			return 1
		},
		"log": func(L *lua.LState) int {
			if L.GetTop() < 2 {
				return r.fail(L, "redis.log() requires two arguments or more.")
			}
			lv, ok := L.Get(1).(lua.LNumber)
			if !ok {
				return r.fail(L, "First argument must be a number (log level).")
			}
			if lv < LogDebug || lv > LogWarning {
				return r.fail(L, "Invalid debug level.")
			}
			var msg []string
			for i := 2; i <= L.GetTop(); i++ {
				msg = append(msg, lua.LVAsString(L.Get(i)))
			}
			if r.Log != nil {
				r.Log(int(lv), strings.Join(msg, " "))
			}
			return 0
		},
		"setresp": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				return r.fail(L, "redis.setresp() requires one argument.")
			}
			n, ok := L.Get(1).(lua.LNumber)
			if !ok || n != 2 && n != 3 {
				return r.fail(L, "RESP version must be 2 or 3.")
			}
			r.resp3 = n == 3
			return 0
		},
		"set_repl": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				return r.fail(L, "redis.set_repl() requires one argument.")
			}
			n, ok := L.Get(1).(lua.LNumber)
			if !ok || n < 0 || n > 3 {
				return r.fail(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
			}
			return 0
		},
		"replicate_commands": func(L *lua.LState) int {
			L.Push(lua.LTrue)
			return 1
		},
		"breakpoint": func(L *lua.LState) int {
			L.Push(lua.LFalse)
			return 1
		},
		"debug": func(L *lua.LState) int { return 0 },
	})
	for name, v := range map[string]lua.LValue{
		"REDIS_VERSION": lua.LString(Version), "REDIS_VERSION_NUM": lua.LNumber(0x07000f),
		"SERVER_VERSION": lua.LString(Version), "SERVER_VERSION_NUM": lua.LNumber(0x07000f),
		"SERVER_NAME": lua.LString("radish"),
		"LOG_DEBUG":   lua.LNumber(LogDebug), "LOG_VERBOSE": lua.LNumber(LogVerbose),
		"LOG_NOTICE": lua.LNumber(LogNotice), "LOG_WARNING": lua.LNumber(LogWarning),
		"REPL_NONE": lua.LNumber(0), "REPL_AOF": lua.LNumber(1), "REPL_SLAVE": lua.LNumber(2),
		"REPL_REPLICA": lua.LNumber(2), "REPL_ALL": lua.LNumber(3),
	} {
		t.RawSetString(name, v)
	}
	p := r.readOnly(t)
	g.RawSetString("redis", p)
	g.RawSetString("server", p)
}

func pushErr(L *lua.LState, text string) int {
	tb := L.CreateTable(0, 1)
	tb.RawSetString("err", lua.LString(text))
	L.Push(tb)
	return 1
}

// redisCall is redis.call (raise) and redis.pcall; keep: the caller
// wants its result (else it returns none: see fastCalls).
func (r *Runtime) redisCall(L *lua.LState, raise, keep bool) int {
	c := r.call
	if c == nil || r.faulted {
		r.faulted = r.faulted || c != nil
		L.RaiseError("script run abandoned")
		return 0
	}
	n := L.GetTop()
	if n == 0 {
		return r.callFail(L, raise, keep, "ERR Please specify at least one argument for this redis lib call")
	}
	// The arguments' bytes go to one buffer the calls reuse: a slice of
	// it stays valid when the buffer grows (the old array lives on), and a
	// command keeps no argument past its call.
	args, buf := r.args[:0], r.argBuf[:0]
	for i := 1; i <= n; i++ {
		start := len(buf)
		switch v := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, v...)
		case lua.LNumber:
			// As Redis 7.0: "%.17g", not Lua's lossy "%.14g".
			buf = strconv.AppendFloat(buf, float64(v), 'g', 17, 64)
		default:
			r.args, r.argBuf = args, buf
			return r.callFail(L, raise, keep, "ERR Lua redis lib command arguments must be strings or integers")
		}
		args = append(args, buf[start:len(buf):len(buf)])
	}
	r.args, r.argBuf = args, buf
	spec, errText := command.Resolve(args)
	switch {
	case spec == nil:
		return r.callFail(L, raise, keep, "ERR Unknown Redis command called from script")
	case errText != "":
		return r.callFail(L, raise, keep, "ERR Wrong number of args calling Redis command from script")
	case spec.Flags&command.NoScript != 0:
		return r.callFail(L, raise, keep, "ERR This Redis command is not allowed from script")
	}
	if e := c.Host.Permit(spec, args); e != "" {
		return r.callFail(L, raise, keep, e)
	}
	switch {
	case c.ReadOnly && spec.Flags&command.Write != 0:
		return r.callFail(L, raise, keep, "ERR Write commands are not allowed from read-only scripts.")
	case spec.Flags&command.DenyOOM != 0 && c.Host.OutOfMemory():
		return r.callFail(L, raise, keep, errtext.OOM)
	}
	r.w.B, r.w.Proto = r.w.B[:0], 2
	if r.resp3 {
		r.w.Proto = 3
	}
	if spec.Flags&command.Write != 0 {
		r.Killer.wrote.Store(true)
	}
	if !c.Host.Call(spec, args, &r.w) {
		r.faulted = true
		L.RaiseError("script run abandoned")
		return 0
	}
	clear(r.args)
	if cap(r.argBuf) > keepBuf {
		r.argBuf = nil
	}
	b := r.w.B
	if cap(b) > keepBuf {
		r.w.B = nil
	}
	if raise && len(b) > 0 && b[0] == '-' {
		return r.callFail(L, true, keep, string(b[1:len(b)-2]))
	}
	if !keep {
		return 0
	}
	v, _ := r.toLua(b, 0)
	L.Push(v)
	return 1
}

// keepBuf is the most a call's argument or reply buffer keeps for the
// next call.
const keepBuf = 64 << 10

// callFail is callError of a call whose caller may drop its result
// (keep false): a redis.pcall's error table is then not made.
func (r *Runtime) callFail(L *lua.LState, raise, keep bool, text string) int {
	if !raise && !keep {
		return 0
	}
	return r.callError(L, raise, text)
}

// callError fails a redis.call (raised, reported as is) or returns the
// error table of a redis.pcall.
func (r *Runtime) callError(L *lua.LState, raise bool, text string) int {
	if !raise {
		return pushErr(L, text)
	}
	r.errLine = currentLine(L)
	r.callErr = lua.LString(text)
	L.Error(r.callErr, 0)
	return 0
}

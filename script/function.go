package script

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
)

// FUNCTION libraries: a library is Lua code whose first line is
// "#!lua name=<library>"; running it registers functions with
// redis.register_function (name and callback, or a table with
// function_name, callback, flags and description). The code runs with a
// redis table that has only register_function, log and the constants
// (reading anything else is the missing-global error); the functions it
// registers run later with the whole library, their keys and arguments
// as their two parameters.

// Library is a loaded library, as FUNCTION LIST shows it.
type Library struct {
	Name  string
	Code  string
	Funcs []Func // by name
}

// Func is one function of a library.
type Func struct {
	Name, Desc string
	HasDesc    bool
	Flags      Flags
}

// FlagNames are the function flags in the order Redis lists them.
var FlagNames = []struct {
	Flag Flags
	Name string
}{{NoWrites, "no-writes"}, {AllowOOM, "allow-oom"}, {AllowStale, "allow-stale"}, {NoCluster, "no-cluster"},
	{AllowCrossSlot, "allow-cross-slot-keys"}}

// PutLibrary records lib, replacing the library of its name when replace
// is set, or returns the error reply's text (a library of that name, a
// function of another library with a name it uses).
func (g *Registry) PutLibrary(lib *Library, replace bool) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.libs[lib.Name]; ok && !replace {
		return "ERR Library '" + lib.Name + "' already exists"
	}
	for _, f := range lib.Funcs {
		if owner, ok := g.funcs[f.Name]; ok && owner != lib.Name {
			return "ERR Function " + f.Name + " already exists"
		}
	}
	if g.libs == nil {
		g.libs, g.funcs = make(map[string]*Library), make(map[string]string)
	}
	g.dropLibrary(lib.Name)
	g.libs[lib.Name] = lib
	for _, f := range lib.Funcs {
		g.funcs[f.Name] = lib.Name
	}
	g.libGen.Add(1)
	return ""
}

func (g *Registry) dropLibrary(name string) {
	if old, ok := g.libs[name]; ok {
		for _, f := range old.Funcs {
			delete(g.funcs, f.Name)
		}
		delete(g.libs, name)
	}
}

// DeleteLibrary forgets a library; false when there is none of that name.
func (g *Registry) DeleteLibrary(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.libs[name]; !ok {
		return false
	}
	g.dropLibrary(name)
	g.libGen.Add(1)
	return true
}

// FlushLibraries forgets every library (FUNCTION FLUSH).
func (g *Registry) FlushLibraries() {
	g.mu.Lock()
	g.libs, g.funcs = nil, nil
	g.libGen.Add(1)
	g.mu.Unlock()
}

// Libraries returns every library, by name.
func (g *Registry) Libraries() []*Library {
	g.mu.RLock()
	out := make([]*Library, 0, len(g.libs))
	for _, l := range g.libs {
		out = append(out, l)
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Library) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// libraryOf returns the library that has function name.
func (g *Registry) libraryOf(name string) (*Library, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	l, ok := g.libs[g.funcs[name]]
	return l, ok
}

// LoadLibrary runs code to check it and learn its functions, and records
// it (FUNCTION LOAD): the library's name, or the error reply's text.
func (r *Runtime) LoadLibrary(code string, replace bool) (string, string) {
	lib, _, errText := r.runLibrary(code)
	if errText != "" {
		return "", errText
	}
	if errText := r.reg.PutLibrary(lib, replace); errText != "" {
		return "", errText
	}
	return lib.Name, ""
}

// Function returns function name, compiled on this Runtime from its
// library if needed.
func (r *Runtime) Function(name string) (*Script, bool) {
	if g := r.reg.libGen.Load(); g != r.libGen {
		clear(r.funcs)
		r.libGen = g
	}
	if s, ok := r.funcs[name]; ok {
		return s, true
	}
	lib, ok := r.reg.libraryOf(name)
	if !ok {
		return nil, false
	}
	_, fns, errText := r.runLibrary(lib.Code)
	if errText != "" {
		return nil, false
	}
	for _, s := range fns {
		r.funcs[s.SHA] = s
	}
	s, ok := r.funcs[name]
	return s, ok
}

// runLibrary runs a library's code with the load-time redis table and
// returns what it registered.
func (r *Runtime) runLibrary(code string) (*Library, []*Script, string) {
	first, _, _ := strings.Cut(code, "\n")
	if !strings.HasPrefix(first, "#!") {
		return nil, nil, "ERR Missing library metadata"
	}
	parts := strings.Fields(first[2:])
	if len(parts) == 0 || parts[0] != "lua" {
		engine := ""
		if len(parts) > 0 {
			engine = parts[0]
		}
		return nil, nil, "ERR Engine '" + engine + "' not found"
	}
	lib := &Library{Code: code}
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "name=")
		if !ok {
			return nil, nil, "ERR Invalid metadata value given: " + p
		}
		lib.Name = v
	}
	if lib.Name == "" {
		return nil, nil, "ERR Library name was not given"
	}
	if !validName(lib.Name) {
		return nil, nil, "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	}
	src := "\n" + code[len(first):]
	if len(code) > len(first) {
		src = "\n" + code[len(first)+1:]
	}
	chunk, err := parse.Parse(strings.NewReader(src), "user_function")
	if err != nil {
		return nil, nil, "ERR Error compiling function: " + strings.Replace(compileError(err, src), "user_script", "user_function", 1)
	}
	proto, err := lua.Compile(chunk, "user_function")
	if err != nil {
		return nil, nil, "ERR Error compiling function: " + err.Error()
	}
	L := r.L
	fn := L.NewFunctionFromProto(proto)
	fn.Env = r.libEnv
	r.loading, r.loaded = lib, nil
	r.libGlobals.RawSetString("redis", r.loadRedis)
	r.callErr = ""
	L.Push(fn)
	err = L.PCall(0, 0, nil)
	r.libGlobals.RawSetString("redis", lua.LNil)
	fns := r.loaded
	r.loading, r.loaded = nil, nil
	if err != nil {
		var w strings.Builder
		w.WriteString("ERR Error registering functions: ")
		w.WriteString(loadErrorText(err, r.callErr))
		return nil, nil, w.String()
	}
	if len(lib.Funcs) == 0 {
		return nil, nil, "ERR No functions registered"
	}
	slices.SortFunc(lib.Funcs, func(a, b Func) int { return strings.Compare(a.Name, b.Name) })
	return lib, fns, ""
}

// loadErrorText is the text of an error raised while a library loads.
func loadErrorText(err error, callErr lua.LString) string {
	ae, ok := err.(*lua.ApiError)
	if !ok {
		return "ERR " + err.Error()
	}
	switch o := ae.Object.(type) {
	case lua.LString:
		if o == callErr {
			return string(o)
		}
		return "ERR " + string(o)
	case *lua.LTable:
		if e, ok := o.RawGetString("err").(lua.LString); ok {
			return string(e)
		}
	}
	return "ERR " + lua.LVAsString(ae.Object)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// openLibraries makes the environment library code runs in: globals
// that read through to the real ones, where redis is, while a library
// loads, the load-time table.
func (r *Runtime) openLibraries() {
	L := r.L
	r.libGlobals = L.NewTable()
	through := L.NewTable()
	through.RawSetString("__index", r.globals)
	L.SetMetatable(r.libGlobals, through)
	r.libEnv = r.readOnly(r.libGlobals)
	load := L.NewTable()
	L.SetFuncs(load, map[string]lua.LGFunction{"register_function": r.registerFunction})
	full := r.globals.RawGetString("redis").(*lua.LTable)
	for _, name := range []string{"log", "REDIS_VERSION", "REDIS_VERSION_NUM", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"} {
		load.RawSetString(name, L.GetField(full, name))
	}
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		r.errLine = currentLine(L)
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.Get(2).String())
		return 0
	}))
	L.SetMetatable(load, missing)
	r.loadRedis = r.readOnly(load)
}

// registerFunction is redis.register_function while a library loads.
func (r *Runtime) registerFunction(L *lua.LState) int {
	lib := r.loading
	var f Func
	var cb *lua.LFunction
	if _, ok := L.Get(1).(*lua.LTable); !ok && L.GetTop() == 1 {
		return r.callError(L, true, "ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
	}
	switch a := L.Get(1).(type) {
	case lua.LString:
		if L.GetTop() != 2 {
			return r.callError(L, true, "ERR wrong number of arguments to redis.register_function")
		}
		f.Name = string(a)
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return r.callError(L, true, "ERR second argument to redis.register_function must be a function")
		}
		cb = fn
	case *lua.LTable:
		if L.GetTop() != 1 {
			return r.callError(L, true, "ERR wrong number of arguments to redis.register_function")
		}
		var bad string
		a.ForEach(func(k, v lua.LValue) {
			switch k.String() {
			case "function_name":
				f.Name = lua.LVAsString(v)
			case "callback":
				cb, _ = v.(*lua.LFunction)
			case "description":
				f.Desc, f.HasDesc = lua.LVAsString(v), true
			case "flags":
				t, ok := v.(*lua.LTable)
				if !ok {
					bad = "ERR flags argument to redis.register_function must be a table representing function flags"
					return
				}
				t.ForEach(func(_, fv lua.LValue) {
					i := slices.IndexFunc(FlagNames, func(n struct {
						Flag Flags
						Name string
					}) bool {
						return n.Name == lua.LVAsString(fv)
					})
					if i < 0 {
						bad = "ERR unknown flag given"
						return
					}
					f.Flags |= FlagNames[i].Flag
				})
			default:
				bad = "ERR unknown argument given to redis.register_function"
			}
		})
		if bad != "" {
			return r.callError(L, true, bad)
		}
		if f.Name == "" {
			return r.callError(L, true, "ERR redis.register_function must get a function name argument")
		}
		if cb == nil {
			return r.callError(L, true, "ERR redis.register_function must get a callback argument")
		}
	default:
		return r.callError(L, true, "ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
	}
	if !validName(f.Name) {
		return r.callError(L, true, "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	if slices.ContainsFunc(lib.Funcs, func(g Func) bool { return g.Name == f.Name }) {
		return r.callError(L, true, "ERR Function already exists in the library")
	}
	lib.Funcs = append(lib.Funcs, f)
	r.loaded = append(r.loaded, &Script{SHA: f.Name, Flags: f.Flags | Shebang, fn: cb, function: true})
	return 0
}

// FunctionCommand runs a FUNCTION subcommand (args as sent: FUNCTION,
// the subcommand, its arguments) and writes its reply to w.
func (r *Runtime) FunctionCommand(w *resp.Writer, args [][]byte) {
	switch strings.ToLower(string(args[1])) {
	case "load":
		replace := false
		for _, o := range args[2 : len(args)-1] {
			if !strings.EqualFold(string(o), "replace") {
				w.Error("ERR Unknown option given: " + string(o))
				return
			}
			replace = true
		}
		name, errText := r.LoadLibrary(string(args[len(args)-1]), replace)
		if errText != "" {
			w.Error(errText)
			return
		}
		w.BulkString(name)
	case "delete":
		if !r.reg.DeleteLibrary(string(args[2])) {
			w.Error("ERR Library not found")
			return
		}
		w.OK()
	case "flush":
		if len(args) > 3 {
			w.Error(errtext.SubSyntax(args[0], args[1]))
			return
		}
		if len(args) == 3 && !strings.EqualFold(string(args[2]), "sync") && !strings.EqualFold(string(args[2]), "async") {
			w.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			return
		}
		r.reg.FlushLibraries()
		w.OK()
	case "list":
		r.functionList(w, args[2:])
	case "dump":
		r.functionDump(w)
	case "restore":
		r.functionRestore(w, args)
	case "stats":
		libs := r.reg.Libraries()
		n := 0
		for _, l := range libs {
			n += len(l.Funcs)
		}
		w.Map(2)
		w.BulkString("running_script")
		w.Null()
		w.BulkString("engines")
		w.Map(1)
		w.BulkString("LUA")
		w.Map(2)
		w.BulkString("libraries_count")
		w.Int(int64(len(libs)))
		w.BulkString("functions_count")
		w.Int(int64(n))
	case "help":
		lines := functionHelp
		w.Array(len(lines))
		for _, l := range lines {
			w.Simple(l)
		}
	}
}

func (r *Runtime) functionList(w *resp.Writer, opts [][]byte) {
	var pattern []byte
	withCode := false
	for i := 0; i < len(opts); i++ {
		switch o := strings.ToLower(string(opts[i])); {
		case o == "withcode" && !withCode:
			withCode = true
		case o == "libraryname" && pattern == nil:
			if i+1 == len(opts) {
				w.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern = opts[i]
		default:
			w.Error("ERR Unknown argument " + string(opts[i]))
			return
		}
	}
	var libs []*Library
	for _, l := range r.reg.Libraries() {
		if pattern == nil || engine.Match(pattern, []byte(l.Name), false) {
			libs = append(libs, l)
		}
	}
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.Funcs))
		for _, f := range l.Funcs {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDesc {
				w.BulkString(f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			var names []string
			for _, n := range FlagNames {
				if f.Flags&n.Flag != 0 {
					names = append(names, n.Name)
				}
			}
			w.Set(len(names))
			for _, n := range names {
				w.Simple(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
}

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

package script

import (
	"errors"
	"slices"
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/rdb"
)

// FUNCTION DUMP and FUNCTION RESTORE: the libraries' codes in Redis 7.0's
// payload (persistence/rdb), so that a dump moves between radish-server
// and redis-server both ways.

// Restore policies of FUNCTION RESTORE.
type Restore uint8

// Policies.
const (
	RestoreAppend  Restore = iota // a library that exists refuses the restore
	RestoreReplace                // a library that exists is replaced
	RestoreFlush                  // every library is replaced by the payload's
)

// Codes returns every library's code, by library name.
func (g *Registry) Codes() [][]byte {
	libs := g.Libraries()
	out := make([][]byte, len(libs))
	for i, l := range libs {
		out[i] = []byte(l.Code)
	}
	return out
}

// RestoreLibraries adds libs (checked: their names and functions are
// distinct) as policy says, as Redis's libraryJoin does: all or nothing;
// "" or the error reply's text.
func (g *Registry) RestoreLibraries(libs []*Library, policy Restore) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if policy == RestoreFlush {
		g.libs, g.funcs = nil, nil
	}
	incoming := func(name string) bool {
		return slices.ContainsFunc(libs, func(l *Library) bool { return l.Name == name })
	}
	for _, l := range libs {
		if _, ok := g.libs[l.Name]; ok && policy != RestoreReplace {
			return "ERR Library " + l.Name + " already exists"
		}
	}
	for _, l := range libs {
		for _, f := range l.Funcs {
			// A function of a library being replaced does not collide.
			if owner, ok := g.funcs[f.Name]; ok && !incoming(owner) {
				return "ERR Function " + f.Name + " already exists"
			}
		}
	}
	if g.libs == nil {
		g.libs, g.funcs = make(map[string]*Library), make(map[string]string)
	}
	for _, l := range libs {
		g.dropLibrary(l.Name)
		g.libs[l.Name] = l
		for _, f := range l.Funcs {
			g.funcs[f.Name] = l.Name
		}
	}
	g.libGen.Add(1)
	return ""
}

// CheckLibraries compiles the codes of libraries (a FUNCTION RESTORE
// payload's, a snapshot's) to check them and learn their functions: the
// libraries, or the error reply's text (a code that does not load, two
// libraries of one name, a function two of them register).
func (r *Runtime) CheckLibraries(codes [][]byte) ([]*Library, string) {
	var libs []*Library
	for _, c := range codes {
		lib, _, errText := r.runLibrary(string(c))
		if errText != "" {
			return nil, errText
		}
		for _, o := range libs {
			if o.Name == lib.Name {
				return nil, "ERR Library '" + lib.Name + "' already exists"
			}
			for _, f := range lib.Funcs {
				if slices.ContainsFunc(o.Funcs, func(g Func) bool { return g.Name == f.Name }) {
					return nil, "ERR Function " + f.Name + " already exists"
				}
			}
		}
		libs = append(libs, lib)
	}
	return libs, ""
}

// functionDump is FUNCTION DUMP: compress is rdbcompression.
func (r *Runtime) functionDump(w *resp.Writer) {
	enc := rdb.NewEncoder(engine.Limits{})
	enc.Compress = r.DumpCompress
	w.Bulk(enc.AppendFunctionDump(nil, r.reg.Codes()))
}

// functionRestore is FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE].
func (r *Runtime) functionRestore(w *resp.Writer, args [][]byte) {
	if len(args) > 4 {
		w.Error(errtext.SubSyntax(args[0], args[1]))
		return
	}
	policy := RestoreAppend
	if len(args) == 4 {
		switch strings.ToLower(string(args[3])) {
		case "append":
		case "replace":
			policy = RestoreReplace
		case "flush":
			policy = RestoreFlush
		default:
			w.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, err := rdb.ParseFunctionDump(args[2])
	if errors.Is(err, rdb.ErrPayload) {
		w.Error(errtext.BadPayload)
		return
	}
	if err != nil {
		w.Error("ERR " + err.Error())
		return
	}
	libs, errText := r.CheckLibraries(codes)
	if errText == "" {
		errText = r.reg.RestoreLibraries(libs, policy)
	}
	if errText != "" {
		w.Error(errText)
		return
	}
	w.OK()
}

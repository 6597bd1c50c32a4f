package script

import (
	"crypto/sha1"
	"encoding/hex"
	"sync"
	"sync/atomic"
)

// Registry holds the bodies of the scripts a process knows, by SHA1, and
// its FUNCTION libraries: the
// one copy every shard's Runtime compiles from, so a script loaded on one
// shard (SCRIPT LOAD, EVAL) is known on all. A shard reads it only when
// its own cache misses; SCRIPT FLUSH bumps the generation every Runtime
// checks (one atomic load) before it uses its cache. Safe for concurrent
// use; the zero Registry is empty and ready.
type Registry struct {
	mu     sync.RWMutex
	bodies map[string]string
	gen    atomic.Uint64
	// The FUNCTION libraries by name, the library of each function, and
	// the number of changes to them.
	libs   map[string]*Library
	funcs  map[string]string
	libGen atomic.Uint64
}

// SHA returns the lower-case hex SHA1 of body, a script's name.
func SHA(body []byte) string {
	h := sha1.Sum(body)
	return hex.EncodeToString(h[:])
}

// Add records body under sha.
func (g *Registry) Add(sha, body string) {
	g.mu.Lock()
	if g.bodies == nil {
		g.bodies = make(map[string]string)
	}
	g.bodies[sha] = body
	g.mu.Unlock()
}

// Get returns the body recorded under sha.
func (g *Registry) Get(sha string) (string, bool) {
	g.mu.RLock()
	b, ok := g.bodies[sha]
	g.mu.RUnlock()
	return b, ok
}

// Flush forgets every script (SCRIPT FLUSH).
func (g *Registry) Flush() {
	g.mu.Lock()
	g.bodies = nil
	g.gen.Add(1)
	g.mu.Unlock()
}

// Gen is the number of flushes so far.
func (g *Registry) Gen() uint64 { return g.gen.Load() }

// Counts returns how many scripts, FUNCTION libraries and functions the
// Registry holds (INFO's number_of_cached_scripts, number_of_libraries,
// number_of_functions).
func (g *Registry) Counts() (scripts, libraries, functions int) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.bodies), len(g.libs), len(g.funcs)
}

// Memory returns the bytes the Registry holds of EVAL scripts (their
// names and bodies) and of FUNCTION libraries (names, code and the
// functions' names and descriptions): INFO's used_memory_scripts_eval
// and used_memory_functions. The Lua states that run them are the
// shards' and not counted here.
func (g *Registry) Memory() (eval, functions int64) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for sha, body := range g.bodies {
		eval += int64(len(sha) + len(body))
	}
	for name, lib := range g.libs {
		functions += int64(len(name) + len(lib.Code))
		for _, f := range lib.Funcs {
			functions += int64(len(f.Name) + len(f.Desc))
		}
	}
	return eval, functions
}

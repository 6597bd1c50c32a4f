package config

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Config is the server's live configuration: an immutable *Snapshot
// behind an atomic pointer, replaced whole by Set (copy-on-write).
// Snapshot is safe from any goroutine and costs one atomic load; Set and
// OnChange serialize on a mutex.
type Config struct {
	cur     atomic.Pointer[Snapshot]
	file    string   // absolute path of the config file, "" if none
	ignored []string // foreign directives Load accepted and ignored

	mu     sync.Mutex // guards hooks and verifiers and orders Set calls
	hooks  []hook
	checks []verifier
}

type verifier struct {
	ps []*param
	fn func(s *Snapshot) string
}

type hook struct {
	p  *param
	fn func(old, new *Snapshot)
}

// New returns a Config holding every default. It reads no cgroup limit:
// CgroupMemoryLimit is 0, so maxmemory auto gives no budget (use Load).
func New() *Config { return newConfig(defaults()) }

func newConfig(s *Snapshot) *Config {
	c := &Config{}
	c.cur.Store(s)
	return c
}

// Snapshot returns the current values. The result never changes; call
// Snapshot again to see later Sets (a shard may keep one per loop turn).
func (c *Config) Snapshot() *Snapshot { return c.cur.Load() }

// CgroupMemoryLimit is the cgroup memory limit in bytes that applied to
// this process when Load ran (cgroup v2 memory.max or v1
// memory.limit_in_bytes, the smallest along its cgroup path); 0 if none.
// It was read once and never changes. At start the server warns when this
// is positive but Snapshot().MemoryBudget() is 0: the kernel's OOM killer
// would stop the process before any maxmemory policy acts.
func (c *Config) CgroupMemoryLimit() int64 { return c.Snapshot().cgroupMem }

// File is the absolute path of the config file Load read, "" if none.
func (c *Config) File() string { return c.file }

// Ignored names the directives of Redis or Valkey that Load read and
// ignored because they do not apply to radish (see foreign), once each,
// in the order first read. The server logs them once at start.
func (c *Config) Ignored() []string { return c.ignored }

// Get answers CONFIG GET: for each pattern, an exact name or alias (any
// case, echoed as given) or a glob matched without case against every name
// and alias; each name appears once, in table order within a glob.
// Values are formatted as Redis prints them: memory as plain bytes, bools
// yes/no, bind and save space-separated.
func (c *Config) Get(patterns []string) [][2]string {
	s := c.Snapshot()
	var out [][2]string
	seen := make(map[string]bool)
	add := func(name string, p *param) {
		k := strings.ToLower(name)
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, [2]string{name, p.get(s)})
	}
	for _, pat := range patterns {
		if !strings.ContainsAny(pat, "[*?") {
			if p := lookup(pat); p != nil {
				add(pat, p)
			}
			continue
		}
		for _, p := range params {
			for _, n := range append([]string{p.name}, p.aliases...) {
				if Match(pat, n, true) {
					add(n, p)
				}
			}
		}
	}
	return out
}

// Set answers CONFIG SET name value [name value ...]: all pairs apply or
// none does. The returned error's text is Redis's reply, "ERR ..." (write
// it with resp.Writer.Error). A multi-word parameter's value (bind, save)
// is split on single spaces. Hooks of the parameters named run after the
// new snapshot is published, in registration order, on this goroutine.
func (c *Config) Set(pairs [][2]string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.Snapshot()
	ps := make([]*param, len(pairs))
	// First pass, as Redis: the first unknown name wins over every other
	// error; otherwise the first immutable or duplicate one. (The name
	// may be empty: whether one was met is a flag of its own.)
	var unknown, errName, errText string
	isUnknown, isErr := false, false
	for i, kv := range pairs {
		p := lookup(kv[0])
		if p == nil {
			if !isUnknown && !isErr {
				unknown, isUnknown = kv[0], true
			}
			continue
		}
		if isUnknown || isErr {
			continue
		}
		switch p.mode {
		case Immutable:
			errName, errText, isErr = kv[0], "can't set immutable config", true
			continue
		case Protected:
			errName, errText, isErr = kv[0], "can't set protected config", true
			continue
		}
		for j := 0; j < i; j++ {
			if strings.EqualFold(pairs[j][0], kv[0]) {
				errName, errText, isErr = kv[0], "duplicate parameter", true
				break
			}
		}
		ps[i] = p
	}
	if isUnknown {
		return errors.New("ERR Unknown option or number of arguments for CONFIG SET - '" + unknown + "'")
	}
	if isErr {
		return setError(errName, errText)
	}
	s := old.clone()
	for i, kv := range pairs {
		p := ps[i]
		args := []string{kv[1]}
		if p.multiArg {
			args = nil
			if kv[1] != "" {
				args = strings.Split(kv[1], " ")
			}
		}
		if msg := p.apply(s, args, nil); msg != "" {
			return setError(strings.ToLower(kv[0]), msg)
		}
	}
	// A value radish cannot honour fails like Redis's apply step: after
	// every value parsed.
	for i, p := range ps {
		if p.refuse != nil {
			if msg := p.refuse(s); msg != "" {
				return setError(strings.ToLower(pairs[i][0]), msg)
			}
		}
		if p.name == "maxclients" && s.MaxClients > old.MaxClients {
			if n := MaxClientsAllowed(s); s.MaxClients > n {
				return setError(strings.ToLower(pairs[i][0]),
					"The operating system is not able to handle the specified number of clients, try with "+strconv.Itoa(n))
			}
		}
	}
	// Then what only the server can check (a certificate loads), as
	// Redis's apply functions do.
	for _, v := range c.checks {
		for i, p := range ps {
			if slices.Contains(v.ps, p) {
				if msg := v.fn(s); msg != "" {
					return setError(strings.ToLower(pairs[i][0]), msg)
				}
				break
			}
		}
	}
	c.cur.Store(s)
	for _, h := range c.hooks {
		for _, p := range ps {
			if p == h.p {
				h.fn(old, s)
				break
			}
		}
	}
	return nil
}

func setError(name, msg string) error {
	return errors.New("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + msg)
}

// OnChange registers fn to run after every successful Set that names the
// parameter (by its name or an alias), even if the value is unchanged.
// fn runs on Set's goroutine with Set's lock held: it must not call Set or
// OnChange, and should be quick (post a message to the shards, say).
// OnChange panics on an unknown name: that is a programming error.
func (c *Config) OnChange(name string, fn func(old, new *Snapshot)) {
	p := lookup(name)
	if p == nil {
		panic("config: OnChange: unknown parameter " + name)
	}
	c.mu.Lock()
	c.hooks = append(c.hooks, hook{p: p, fn: fn})
	c.mu.Unlock()
}

// Verify registers fn to run in every Set naming one of the parameters
// names, once, after every value parsed and before the new snapshot is
// published: a non-empty result is the reason Set fails (naming the first
// of those parameters in the Set), and nothing changes. Verifiers run
// last, in registration order, so when every one passed the Set succeeds:
// fn may install what it built from s. Like a hook, fn runs under Set's
// lock and must not call Set. Verify panics on an unknown name.
func (c *Config) Verify(names []string, fn func(s *Snapshot) string) {
	v := verifier{fn: fn}
	for _, n := range names {
		p := lookup(n)
		if p == nil {
			panic("config: Verify: unknown parameter " + n)
		}
		v.ps = append(v.ps, p)
	}
	c.mu.Lock()
	c.checks = append(c.checks, v)
	c.mu.Unlock()
}

// Names returns every parameter's canonical name in table order.
func Names() []string {
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p.name
	}
	return out
}

package acl

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Snapshot is one immutable set of users. Read it from any goroutine.
type Snapshot struct {
	users map[string]*User
	def   *User
}

// User returns the user named name, or nil. It does not allocate.
func (s *Snapshot) User(name []byte) *User { return s.users[string(name)] }

// UserNamed is User for a name held as a string.
func (s *Snapshot) UserNamed(name string) *User { return s.users[name] }

// Default is the default user.
func (s *Snapshot) Default() *User { return s.def }

// Users returns every user sorted by name, as ACL LIST and ACL USERS
// list them.
func (s *Snapshot) Users() []*User {
	out := make([]*User, 0, len(s.users))
	for _, u := range s.users {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Authenticate returns the user name and pass authenticate, or nil: the
// user must exist, be on, and be nopass or have pass among its passwords
// (compared in constant time).
func (s *Snapshot) Authenticate(name, pass []byte) *User {
	u := s.User(name)
	if u == nil || u.flags&userOff != 0 {
		return nil
	}
	if u.flags&userNoPass != 0 {
		return u
	}
	h := HashPassword(pass)
	ok := 0
	for _, p := range u.passwords {
		ok |= subtle.ConstantTimeCompare([]byte(h), []byte(p))
	}
	if ok == 0 {
		return nil
	}
	return u
}

// Registry holds the users and publishes every change as a new Snapshot.
// Changes are serialized by a mutex; readers only load the snapshot.
type Registry struct {
	mu     sync.Mutex
	cur    atomic.Pointer[Snapshot]
	serial uint64
	// pubsubDefault is acl-pubsub-default allchannels.
	pubsubDefault atomic.Bool
	// Changed, when set, is called (under no lock of the registry) after
	// each published change.
	Changed func()
	// Log is the ACL LOG.
	Log Log
}

// NewRegistry returns a registry holding the default user alone, with
// password pass ("" : nopass), as requirepass makes it.
func NewRegistry(pass string) *Registry {
	r := &Registry{}
	r.Log.SetMax(128)
	def := r.defaultUser()
	setPassword(def, pass)
	def.finish()
	r.cur.Store(&Snapshot{users: map[string]*User{"default": def}, def: def})
	return r
}

// Current is the snapshot in force: one atomic load.
func (r *Registry) Current() *Snapshot { return r.cur.Load() }

// SetPubsubDefault sets acl-pubsub-default: allchannels (true) or
// resetchannels, the channels new users and selectors start with.
func (r *Registry) SetPubsubDefault(all bool) { r.pubsubDefault.Store(all) }

// defaultUser is a new default user: on, nopass, every permission. The
// caller holds mu, or the registry is not shared yet.
func (r *Registry) defaultUser() *User {
	r.serial++
	u := newUser("default", r.serial, false)
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		u.apply(op, false)
	}
	return u
}

func setPassword(u *User, pass string) {
	u.apply("resetpass", false)
	if pass == "" {
		u.apply("nopass", false)
		return
	}
	u.apply(">"+pass, false)
}

// publish makes users the snapshot in force. The caller holds mu, and
// calls changed once it released it.
func (r *Registry) publish(users map[string]*User) {
	r.cur.Store(&Snapshot{users: users, def: users["default"]})
}

func (r *Registry) changed() {
	if r.Changed != nil {
		r.Changed()
	}
}

// copyUsers is the snapshot's map, copied for a change.
func (s *Snapshot) copyUsers() map[string]*User {
	m := make(map[string]*User, len(s.users)+1)
	for n, u := range s.users {
		m[n] = u
	}
	return m
}

// SetDefaultPassword makes pass the default user's only password, or
// makes it nopass when pass is "" (requirepass, as Redis's
// ACLUpdateDefaultUserPassword).
func (r *Registry) SetDefaultPassword(pass string) {
	r.mu.Lock()
	cur := r.Current()
	u := cur.def.clone()
	setPassword(u, pass)
	u.finish()
	m := cur.copyUsers()
	m["default"] = u
	r.publish(m)
	r.mu.Unlock()
	r.changed()
}

// SetUser is ACL SETUSER name ops...: every rule applies, to a copy of
// the user (or a new one), or none does. The error text is Redis's reply.
func (r *Registry) SetUser(name string, ops []string) error {
	if hasSpaces(name) {
		return errors.New("ERR Usernames can't contain spaces or null characters")
	}
	merged, bad := MergeSelectors(ops)
	if bad >= 0 {
		return fmt.Errorf("ERR Unmatched parenthesis in acl selector starting at '%s'.", ops[bad])
	}
	r.mu.Lock()
	cur := r.Current()
	var u *User
	if old := cur.users[name]; old != nil {
		u = old.clone()
	} else {
		u = newUser(name, r.serial+1, r.pubsubDefault.Load())
	}
	all := r.pubsubDefault.Load()
	for _, op := range merged {
		if err := u.apply(op, all); err != nil {
			r.mu.Unlock()
			return fmt.Errorf("ERR Error in ACL SETUSER modifier '%s': %s", op, err)
		}
	}
	if cur.users[name] == nil {
		r.serial++
	}
	u.finish()
	m := cur.copyUsers()
	m[name] = u
	r.publish(m)
	r.mu.Unlock()
	r.changed()
	return nil
}

// DelUser is ACL DELUSER: it removes the named users and returns how many
// existed. Connections of a removed user are closed by their shards.
func (r *Registry) DelUser(names []string) (int, error) {
	for _, n := range names {
		if n == "default" {
			return 0, errors.New("ERR The 'default' user cannot be removed")
		}
	}
	r.mu.Lock()
	cur := r.Current()
	m := cur.copyUsers()
	n := 0
	for _, name := range names {
		if m[name] != nil {
			delete(m, name)
			n++
		}
	}
	if n > 0 {
		r.publish(m)
	}
	r.mu.Unlock()
	if n > 0 {
		r.changed()
	}
	return n, nil
}

// LoadConfigUsers applies the config file's user lines (each: the name,
// then its rules) at start: a user named twice, or a refused rule, is an
// error and nothing is applied. The default user, when named, starts
// from reset.
func (r *Registry) LoadConfigUsers(lines [][]string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.Current()
	m := cur.copyUsers()
	seen := map[string]bool{}
	all := r.pubsubDefault.Load()
	for _, l := range lines {
		decl := "user " + strings.Join(l, " ")
		if seen[l[0]] {
			return fmt.Errorf("Error in user declaration '%s': %s", decl, ErrDuplicate)
		}
		seen[l[0]] = true
		if hasSpaces(l[0]) {
			return errors.New("Spaces not allowed in ACL usernames")
		}
		merged, bad := MergeSelectors(l[1:])
		if bad >= 0 {
			return fmt.Errorf("Error in user declaration '%s': Unmatched parenthesis in selector definition", decl)
		}
		var u *User
		if l[0] == "default" {
			u = cur.def.clone()
			u.apply("reset", all)
		} else {
			r.serial++
			u = newUser(l[0], r.serial, all)
		}
		for _, op := range merged {
			if err := u.apply(op, all); err != nil {
				return fmt.Errorf("Error in user declaration '%s': %s", decl, err)
			}
		}
		u.finish()
		m[l[0]] = u
	}
	r.publish(m)
	return nil
}

// LoadFile is ACL LOAD (and the aclfile at start): it replaces every user
// with the file's, or, on any error, changes nothing and returns Redis's
// error text. Users other than default are new users (their connections
// are closed, as Redis frees them); the default user takes the file's
// rules, or the default rules when the file has none for it. name is the
// aclfile as configured, for the messages.
func (r *Registry) LoadFile(name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("Error loading ACLs, opening file '%s': %s", name, errnoText(err))
	}
	r.mu.Lock()
	cur := r.Current()
	all := r.pubsubDefault.Load()
	m := map[string]*User{}
	var errs strings.Builder
	serial := r.serial
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, n)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, n, argv[1])
			continue
		}
		if m[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], n)
			continue
		}
		serial++
		u := newUser(argv[1], serial, all)
		m[argv[1]] = u
		merged, bad := MergeSelectors(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, n)
		}
		for _, op := range merged {
			op = strings.Trim(op, "\t\r\n")
			if err := u.apply(op, all); err != nil {
				fmt.Fprintf(&errs, "%s:%d: %s. ", name, n, err)
			}
		}
		u.finish()
	}
	if errs.Len() > 0 {
		r.mu.Unlock()
		return errors.New(errs.String() + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
	}
	r.serial = serial
	def := m["default"]
	if def == nil {
		def = r.defaultUser()
	}
	// The default user keeps its identity: its connections stay.
	def.name, def.serial = "default", cur.def.serial
	m["default"] = def
	r.publish(m)
	r.mu.Unlock()
	r.changed()
	return nil
}

// SaveFile is ACL SAVE: every user, in ACL LIST's form, written to a
// temporary file renamed over name.
func (r *Registry) SaveFile(name string) error {
	var b strings.Builder
	for _, u := range r.Current().Users() {
		b.WriteString("user " + u.name + " " + u.Describe() + "\n")
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", name, os.Getpid(), time.Now().UnixMilli())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(name)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// errnoText is C's strerror for an I/O error ("No such file or
// directory"), as Redis prints it.
func errnoText(err error) string {
	var e syscall.Errno
	if errors.As(err, &e) {
		s := e.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

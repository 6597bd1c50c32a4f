package acl

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/engine"
)

// Perm is what a key pattern allows: reading, writing, or both.
type Perm uint8

// Key permissions.
const (
	PermRead Perm = 1 << iota
	PermWrite
	PermAll = PermRead | PermWrite
)

// keyPattern is one key pattern of a selector.
type keyPattern struct {
	perm    Perm
	pattern []byte
	// prefix: the pattern is a literal followed by one '*' (app1:*), so a
	// key matches when it extends the literal; else it is globbed.
	prefix bool
	// head and mask: the literal's first (up to 8) bytes as a little
	// endian word and the mask of those bytes, so that a key of 8 bytes
	// or more is refused by one load and compare, not a string compare.
	head, mask uint64
}

// newKeyPattern makes a key pattern, noting a literal prefix pattern.
func newKeyPattern(perm Perm, pat string) keyPattern {
	lit := len(pat) > 0 && pat[len(pat)-1] == '*' && !strings.ContainsAny(pat[:len(pat)-1], "*?[\\")
	k := keyPattern{perm: perm, pattern: []byte(pat), prefix: lit}
	if lit {
		var b [8]byte
		n := copy(b[:], pat[:len(pat)-1])
		k.head = binary.LittleEndian.Uint64(b[:])
		k.mask = ^uint64(0) >> (64 - 8*n) // 0 for the empty literal
	}
	return k
}

// match reports whether key matches the pattern, as Redis's
// stringmatchlen: a trailing '*' matches any bytes, and the empty key
// only the empty pattern.
func (k *keyPattern) match(key []byte) bool {
	if k.prefix {
		p := k.pattern[:len(k.pattern)-1]
		if len(key) < len(p) || len(key) == 0 {
			return false
		}
		if len(key) >= 8 {
			return binary.LittleEndian.Uint64(key)&k.mask == k.head && (len(p) <= 8 || string(key[8:len(p)]) == string(p[8:]))
		}
		return string(key[:len(p)]) == string(p)
	}
	return engine.Match(k.pattern, key, false)
}

type selFlag uint8

const (
	selRoot selFlag = 1 << iota
	selAllKeys
	selAllChannels
	selAllCommands
)

// selector is one set of permissions (see doc.go).
type selector struct {
	flags selFlag
	// cmds has one bit per command.Spec ID and, last, futureBit.
	cmds []uint64
	// first holds, per command ID, the first arguments allowed of a
	// command whose bit is clear (+select|0).
	first    map[int][]string
	keys     []keyPattern
	channels [][]byte
}

type userFlag uint8

const (
	userOn userFlag = 1 << iota
	userOff
	userNoPass
	userSkipSanitize
	userSanitize
)

// userFlagNames are the user flags in the order Redis prints them.
var userFlagNames = []struct {
	f    userFlag
	name string
}{{userOn, "on"}, {userOff, "off"}, {userNoPass, "nopass"},
	{userSkipSanitize, "skip-sanitize-payload"}, {userSanitize, "sanitize-payload"}}

// User is one ACL user. A User in a published Snapshot is immutable.
type User struct {
	name string
	// serial identifies the user across changes: SETUSER keeps it, a
	// user created anew (SETUSER of a new name, ACL LOAD) gets a fresh
	// one, so a connection can tell a changed user from a replaced one.
	serial    uint64
	flags     userFlag
	passwords []string // SHA-256, lower-case hex
	sels      []*selector
	// all: one selector allows every command, key and channel, so Check
	// is a flag test.
	all bool
}

// Name is the user's name.
func (u *User) Name() string { return u.name }

// Serial identifies the user across its changes (see User.serial).
func (u *User) Serial() uint64 { return u.serial }

// Enabled reports whether the user is on.
func (u *User) Enabled() bool { return u.flags&userOn != 0 }

// NoPass reports whether any password authenticates the user.
func (u *User) NoPass() bool { return u.flags&userNoPass != 0 }

// AllowsAll reports whether the user may run every command on every key
// and channel (Check is then a flag test).
func (u *User) AllowsAll() bool { return u.all }

// catalog is the command table as the ACL sees it, built once.
var catalog struct {
	once sync.Once
	rows []*command.Spec
	cats []uint32 // per row ID, one bit per category of Categories
	// future is the bit +@all sets for commands that do not exist yet.
	future int
	words  int
}

// Categories are Redis's ACL categories in the order ACL CAT lists them.
var Categories = command.ACLCategories()

func cat() {
	catalog.once.Do(func() {
		catalog.rows = command.Rows()
		catalog.cats = make([]uint32, len(catalog.rows))
		for i, s := range catalog.rows {
			for j, c := range Categories {
				if s.HasACL(c) {
					catalog.cats[i] |= 1 << j
				}
			}
		}
		catalog.future = len(catalog.rows)
		catalog.words = catalog.future/64 + 1
	})
}

// categoryBit returns the bit of a category name (any case), or 0.
func categoryBit(name string) uint32 {
	for j, c := range Categories {
		if strings.EqualFold(c, name) {
			return 1 << j
		}
	}
	return 0
}

// CategoryCommands returns the full names of the commands in category
// (ACL CAT <category>), subcommands after their container, or ok false
// for an unknown category.
func CategoryCommands(category string) (names []string, ok bool) {
	cat()
	b := categoryBit(category)
	if b == 0 {
		return nil, false
	}
	names = []string{}
	walk(func(s *command.Spec) {
		if catalog.cats[s.ID()]&b != 0 {
			names = append(names, s.Name)
		}
	})
	return names, true
}

// walk calls fn for every row, each container before its subcommands.
func walk(fn func(s *command.Spec)) {
	var rec func(specs []*command.Spec)
	rec = func(specs []*command.Spec) {
		for _, s := range specs {
			fn(s)
			rec(s.Sub)
		}
	}
	rec(command.All())
}

func newSelector(flags selFlag, pubsubDefault bool) *selector {
	cat()
	if pubsubDefault {
		flags |= selAllChannels
	}
	return &selector{flags: flags, cmds: make([]uint64, catalog.words)}
}

func (s *selector) clone() *selector {
	c := *s
	c.cmds = slices.Clone(s.cmds)
	c.keys = slices.Clone(s.keys)
	c.channels = slices.Clone(s.channels)
	if s.first != nil {
		c.first = make(map[int][]string, len(s.first))
		for id, a := range s.first {
			c.first[id] = slices.Clone(a)
		}
	}
	return &c
}

func (s *selector) bit(id int) bool { return s.cmds[id/64]&(1<<(id%64)) != 0 }

func (s *selector) setBit(id int, on bool) {
	if on {
		s.cmds[id/64] |= 1 << (id % 64)
		return
	}
	s.cmds[id/64] &^= 1 << (id % 64)
	s.flags &^= selAllCommands
}

// change allows or denies a command, and a container's subcommands with
// it (Redis's ACLChangeSelectorPerm).
func (s *selector) change(spec *command.Spec, on bool) {
	s.setBit(spec.ID(), on)
	delete(s.first, spec.ID())
	for _, sub := range spec.Sub {
		s.setBit(sub.ID(), on)
	}
}

// changeCategory applies +@cat or -@cat.
func (s *selector) changeCategory(b uint32, on bool) {
	walk(func(spec *command.Spec) {
		if catalog.cats[spec.ID()]&b != 0 {
			s.change(spec, on)
		}
	})
}

func (s *selector) all(on bool) {
	var w uint64
	if on {
		w = ^uint64(0)
		s.flags |= selAllCommands
	} else {
		s.flags &^= selAllCommands
	}
	for i := range s.cmds {
		s.cmds[i] = w
	}
	s.first = nil
}

// RuleError is a rule the language refuses; its text is Redis's.
type RuleError struct{ Text string }

func (e *RuleError) Error() string { return e.Text }

// Redis's texts for refused rules (ACLSetUserStringError).
var (
	errSyntax   = &RuleError{"Syntax error"}
	errUnknown  = &RuleError{"Unknown command or category name in ACL"}
	errKeyAll   = &RuleError{"Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"}
	errChanAll  = &RuleError{"Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"}
	errNoSuchPw = &RuleError{"The password you are trying to remove from the user does not exist"}
	errBadHash  = &RuleError{"The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"}
	errFirstSub = &RuleError{"Allowing first-arg of a subcommand is not supported"}
	// ErrDuplicate is the error of a second user line for one name in
	// the config file.
	ErrDuplicate = &RuleError{"Duplicate user found. A user can only be defined once in config files"}
)

// hasSpaces reports whether s holds white space or a NUL byte, which user
// names and patterns may not.
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply applies one selector rule (Redis's ACLSetSelector).
func (s *selector) apply(op string) error {
	switch {
	case op == "": // a selector's "" word
		return errSyntax
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.flags |= selAllKeys
		s.keys = nil
	case strings.EqualFold(op, "resetkeys"):
		s.flags &^= selAllKeys
		s.keys = nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.flags |= selAllChannels
		s.channels = nil
	case strings.EqualFold(op, "resetchannels"):
		s.flags &^= selAllChannels
		s.channels = nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.all(true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.all(false)
	case op[0] == '~' || op[0] == '%':
		return s.addKeys(op)
	case op[0] == '&':
		if s.flags&selAllChannels != 0 {
			return errChanAll
		}
		if hasSpaces(op[1:]) {
			return errSyntax
		}
		if !slices.ContainsFunc(s.channels, func(c []byte) bool { return string(c) == op[1:] }) {
			s.channels = append(s.channels, []byte(op[1:]))
		}
		s.flags &^= selAllChannels
	case op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		return s.allow(op[1:])
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		spec := command.LookupFull([]byte(op[1:]))
		if spec == nil {
			return errUnknown
		}
		s.change(spec, false)
	case op[0] == '+' || op[0] == '-':
		b := categoryBit(op[2:])
		if b == 0 {
			return errUnknown
		}
		s.changeCategory(b, op[0] == '+')
	default:
		return errSyntax
	}
	return nil
}

func (s *selector) addKeys(op string) error {
	if s.flags&selAllKeys != 0 {
		return errKeyAll
	}
	var perm Perm
	off := 1
	if op[0] == '%' {
		for ; off < len(op); off++ {
			c := op[off]
			if (c == 'R' || c == 'r') && perm&PermRead == 0 {
				perm |= PermRead
			} else if (c == 'W' || c == 'w') && perm&PermWrite == 0 {
				perm |= PermWrite
			} else if c == '~' {
				off++
				break
			} else {
				return errSyntax
			}
		}
		if perm == 0 {
			return errSyntax
		}
	} else {
		perm = PermAll
	}
	pat := op[off:]
	if hasSpaces(pat) {
		return errSyntax
	}
	if i := slices.IndexFunc(s.keys, func(k keyPattern) bool { return string(k.pattern) == pat }); i >= 0 {
		s.keys[i].perm |= perm
	} else {
		s.keys = append(s.keys, newKeyPattern(perm, pat))
	}
	s.flags &^= selAllKeys
	return nil
}

// allow applies +cmd, +container|sub and +cmd|first-arg.
func (s *selector) allow(name string) error {
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		spec := command.Lookup([]byte(name))
		if spec == nil {
			return errUnknown
		}
		s.change(spec, true)
		return nil
	}
	spec := command.LookupFull([]byte(name[:i]))
	switch {
	case spec == nil:
		return errUnknown
	case spec.Parent() != nil:
		return errFirstSub
	case i == len(name)-1:
		return errSyntax
	case len(spec.Sub) > 0:
		sub := command.LookupFull([]byte(name))
		if sub == nil {
			return errUnknown
		}
		s.change(sub, true)
	default:
		arg := name[i+1:]
		if s.first == nil {
			s.first = make(map[int][]string)
		}
		if !slices.ContainsFunc(s.first[spec.ID()], func(a string) bool { return strings.EqualFold(a, arg) }) {
			s.first[spec.ID()] = append(s.first[spec.ID()], arg)
		}
	}
	return nil
}

// HashPassword is the form a password is kept and compared in: its
// SHA-256, lower-case hex.
func HashPassword(pass []byte) string {
	h := sha256.Sum256(pass)
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// newUser is a user as Redis creates one: off, no password, no
// permissions.
func newUser(name string, serial uint64, pubsubDefault bool) *User {
	return &User{name: name, serial: serial, flags: userOff,
		sels: []*selector{newSelector(selRoot, pubsubDefault)}}
}

func (u *User) clone() *User {
	c := *u
	c.passwords = slices.Clone(u.passwords)
	c.sels = make([]*selector, len(u.sels))
	for i, s := range u.sels {
		c.sels[i] = s.clone()
	}
	return &c
}

// apply applies one rule to u (Redis's ACLSetUser); pubsubDefault is
// acl-pubsub-default allchannels. On error u may be half changed: rules
// are applied to a copy.
func (u *User) apply(op string, pubsubDefault bool) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		u.flags = u.flags&^userOff | userOn
	case strings.EqualFold(op, "off"):
		u.flags = u.flags&^userOn | userOff
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.flags = u.flags&^userSanitize | userSkipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		u.flags = u.flags&^userSkipSanitize | userSanitize
	case strings.EqualFold(op, "nopass"):
		u.flags |= userNoPass
		u.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		u.flags &^= userNoPass
		u.passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return errBadHash
		}
		if !slices.Contains(u.passwords, h) {
			u.passwords = append(u.passwords, h)
		}
		u.flags &^= userNoPass
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return errBadHash
		}
		i := slices.Index(u.passwords, h)
		if i < 0 {
			return errNoSuchPw
		}
		u.passwords = slices.Delete(u.passwords, i, i+1)
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(0, pubsubDefault)
		words, ok := config.SplitArgs(op[1 : len(op)-1])
		if !ok {
			return errSyntax
		}
		for _, w := range words {
			if err := s.apply(w); err != nil {
				return err
			}
		}
		u.sels = append(u.sels, s)
	case strings.EqualFold(op, "clearselectors"):
		u.sels = u.sels[:1]
	case strings.EqualFold(op, "reset"):
		u.flags &^= userNoPass
		u.passwords = nil
		root := u.sels[0]
		root.apply("resetkeys")
		root.apply("resetchannels")
		if pubsubDefault {
			root.apply("allchannels")
		}
		u.flags = u.flags&^(userOn|userSkipSanitize) | userOff | userSanitize
		u.sels = u.sels[:1]
		root.apply("-@all")
	default:
		return u.sels[0].apply(op)
	}
	return nil
}

// finish computes what Check reads from the rules: call it after the
// last rule, before the user is published.
func (u *User) finish() {
	u.all = false
	for _, s := range u.sels {
		if s.flags&(selAllKeys|selAllChannels|selAllCommands) == selAllKeys|selAllChannels|selAllCommands {
			u.all = true
		}
	}
}

// MergeSelectors joins the rules of a selector that spans several words
// ("(+get" "~k)") into one, as Redis's ACLMergeSelectorArguments. bad is
// the index of the word that opens an unclosed selector, or -1.
func MergeSelectors(ops []string) (merged []string, bad int) {
	open := -1
	var sel string
	for j, op := range ops {
		if len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			sel, open = op, j
			continue
		}
		if open >= 0 {
			sel += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				merged = append(merged, sel)
				open = -1
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open
	}
	return merged, -1
}

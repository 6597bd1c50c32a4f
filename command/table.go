package command

import (
	"fmt"
	"sort"
	"strings"

	"github.com/radish-kv/radish/errtext"
)

// DocFlag is a documentation flag COMMAND DOCS prints ("deprecated", "syscmd").
type DocFlag uint8

// Documentation flags.
const (
	DocDeprecated DocFlag = 1 << iota
	DocSysCmd
)

// ArgFlag is a flag of one documented argument.
type ArgFlag uint8

// Argument flags, as COMMAND DOCS prints them.
const (
	ArgOptional ArgFlag = 1 << iota
	ArgMultiple
	ArgMultipleToken
)

// Arg documents one argument for COMMAND DOCS (Redis's redisCommandArg).
// Type is one of "string", "integer", "double", "key", "pattern",
// "unix-time", "pure-token", "oneof", "block". KeySpecIndex is printed for
// Type "key", and for a "pattern" that names keys (SORT's BY and GET: an
// index above 0); Args only for "oneof" and "block".
type Arg struct {
	Name            string
	Type            string
	KeySpecIndex    int
	Token           string
	Summary         string
	Since           string
	DeprecatedSince string
	Flags           ArgFlag
	Args            []Arg
}

// aclMask is a set of ACL categories, one bit per entry of aclNames.
type aclMask uint32

// aclNames are Redis's ACL categories in the order Redis prints them.
var aclNames = [...]string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// ACLCategories returns Redis's ACL categories (without '@') in the order
// ACL CAT lists them. The slice is the table's own: callers must not
// modify it.
func ACLCategories() []string { return aclNames[:] }

func aclBit(name string) aclMask {
	name = strings.TrimPrefix(strings.ToLower(name), "@")
	for i, n := range aclNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// ACLCategories returns the row's categories as COMMAND prints them
// ("@read", ...): the declared ones plus those Redis implies from the flags.
// It allocates; it is for COMMAND and ACL, not the hot path.
func (s *Spec) ACLCategories() []string {
	var out []string
	for i, n := range aclNames {
		if s.acl&(1<<i) != 0 {
			out = append(out, "@"+n)
		}
	}
	return out
}

// HasACL reports whether the row is in category cat ("string" or "@string").
func (s *Spec) HasACL(cat string) bool {
	b := aclBit(cat)
	return b != 0 && s.acl&b != 0
}

// Parent returns the container row of a subcommand row, or nil.
func (s *Spec) Parent() *Spec { return s.parent }

// table is the registry. It is written only by register during package
// initialization and read-only afterwards, so readers need no lock.
var table struct {
	byName map[string]*Spec
	all    []*Spec // sorted by Name
	rows   []*Spec // every row, subcommands too, by ID
}

// maxNameLen bounds the names Lookup lower-cases on the stack; no Redis
// command or subcommand name is longer.
const maxNameLen = 32

// register adds rows to the table. Families call it from init. It panics on
// a malformed row (duplicate name, unknown ACL category, bad subcommand
// name): the table is code, and a bad row is a bug found at start-up.
//
// register completes each row as Redis completes its commands: ACL
// categories implied by the flags (write -> @write, fast or else @slow, ...),
// the legacy first/last/step from the key specs when the row left them zero,
// and MovableKeys when the key positions depend on the arguments. It also
// derives the row's fan-out (AllShards, Merge) from its command tips (see
// fanOut). A row states only what cannot be derived: register panics on a
// declared ACL category its flags imply, on first/last/step equal to what
// its key specs give, and on AllShards or Merge equal to what its tips give.
func register(specs ...*Spec) {
	if table.byName == nil {
		table.byName = make(map[string]*Spec)
	}
	for _, s := range specs {
		complete(s, nil)
		if _, dup := table.byName[s.Name]; dup {
			panic("command: duplicate row " + s.Name)
		}
		table.byName[s.Name] = s
		i := sort.Search(len(table.all), func(i int) bool { return table.all[i].Name >= s.Name })
		table.all = append(table.all, nil)
		copy(table.all[i+1:], table.all[i:])
		table.all[i] = s
	}
}

func complete(s *Spec, parent *Spec) {
	if s.Name == "" || s.Name != strings.ToLower(s.Name) || len(s.Name) > 2*maxNameLen {
		panic(fmt.Sprintf("command: bad row name %q", s.Name))
	}
	if parent != nil {
		if !strings.HasPrefix(s.Name, parent.Name+"|") {
			panic(fmt.Sprintf("command: subcommand %q of %q must be named %q", s.Name, parent.Name, parent.Name+"|..."))
		}
		s.parent = parent
	} else if strings.Contains(s.Name, "|") || len(s.Name) > maxNameLen {
		panic(fmt.Sprintf("command: bad row name %q", s.Name))
	}
	s.reads = writeReads[s.Name]
	var declared aclMask
	for _, c := range s.ACL {
		b := aclBit(c)
		if b == 0 {
			panic(fmt.Sprintf("command: %s: unknown ACL category %q", s.Name, c))
		}
		declared |= b
	}
	for _, c := range s.ACL {
		if impliedACL(s.Flags, declared&^aclBit(c))&aclBit(c) != 0 {
			panic(fmt.Sprintf("command: %s: ACL category %q is implied by the flags", s.Name, c))
		}
	}
	if s.First != 0 || s.Last != 0 || s.Step != 0 {
		if f, l, st := legacyRange(s.KeySpecs); f == s.First && l == s.Last && st == s.Step {
			panic(fmt.Sprintf("command: %s: first/last/step are what the key specs give", s.Name))
		}
	} else if len(s.KeySpecs) > 0 {
		s.First, s.Last, s.Step = legacyRange(s.KeySpecs)
	}
	fanOut(s, declared|impliedACL(s.Flags, declared))
	s.oneKey = oneKey(s)
	s.id = len(table.rows)
	table.rows = append(table.rows, s)
	s.acl = declared | impliedACL(s.Flags, declared)
	if legacyMovable(s) {
		s.Flags |= MovableKeys
	}
	if len(s.Sub) > 0 {
		s.subs = make(map[string]*Spec, len(s.Sub))
		for _, sub := range s.Sub {
			complete(sub, s)
			short := sub.Name[len(s.Name)+1:]
			if short == "" || len(short) > maxNameLen {
				panic("command: bad subcommand name " + sub.Name)
			}
			if _, dup := s.subs[short]; dup {
				panic("command: duplicate row " + sub.Name)
			}
			s.subs[short] = sub
		}
		sort.Slice(s.Sub, func(i, j int) bool { return s.Sub[i].Name < s.Sub[j].Name })
	}
}

// fanOut derives AllShards and Merge from Redis's command tips, as a
// cluster client reads them (Redis's "command tips" documentation):
//
//   - request_policy:all_shards on a keyless row in @keyspace (DBSIZE,
//     KEYS, FLUSHALL ...): every Radish shard holds part of every
//     database, so the command runs on all of them. The same tip on a row
//     outside @keyspace (PING, INFO) speaks of cluster nodes; Radish is one
//     node, and such a row runs where its connection is.
//   - The replies of a row that runs on several shards (all shards, or
//     request_policy:multi_shard: its keys may span them) merge by its
//     response policy: agg_sum adds integers, all_succeeded is +OK when
//     every part is. Without a response policy Redis's default applies: a
//     keyed command keeps its keys' order (MGET), a keyless one
//     concatenates the arrays (KEYS). Any other response policy (MSETNX's
//     agg_min) is no merge: the command needs all its keys at once and runs
//     on gathered copies (MergeNone).
//
// A row states AllShards or Merge only where Radish needs what the tips do
// not say, with the reason beside it; fanOut panics when a stated value is
// the derived one.
func fanOut(s *Spec, acl aclMask) {
	all := len(s.KeySpecs) == 0 && acl&aclBit("keyspace") != 0 && s.hasTip("request_policy:all_shards")
	if s.AllShards && all {
		panic(fmt.Sprintf("command: %s: AllShards is what the tips give", s.Name))
	}
	s.AllShards = s.AllShards || all
	multi := s.hasTip("request_policy:multi_shard")
	m := MergeNone
	switch {
	case !s.AllShards && !multi:
	case s.hasTip("response_policy:agg_sum"):
		m = MergeSum
	case s.hasTip("response_policy:all_succeeded"):
		m = MergeAllOK
	case s.hasTipPrefix("response_policy:"):
	case multi:
		m = MergeKeyOrder
	default:
		m = MergeConcat
	}
	if s.Merge != MergeNone && s.Merge == m {
		panic(fmt.Sprintf("command: %s: Merge is what the tips give", s.Name))
	}
	if s.Merge == MergeNone {
		s.Merge = m
	}
}

func (s *Spec) hasTip(tip string) bool {
	for _, t := range s.Tips {
		if t == tip {
			return true
		}
	}
	return false
}

func (s *Spec) hasTipPrefix(prefix string) bool {
	for _, t := range s.Tips {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

func impliedACL(f Flag, m aclMask) aclMask {
	var out aclMask
	if f&Write != 0 {
		out |= aclBit("write")
	}
	if f&ReadOnly != 0 && m&aclBit("scripting") == 0 {
		out |= aclBit("read")
	}
	if f&Admin != 0 {
		out |= aclBit("admin") | aclBit("dangerous")
	}
	if f&PubSub != 0 {
		out |= aclBit("pubsub")
	}
	if f&Fast != 0 {
		out |= aclBit("fast")
	}
	if f&Blocking != 0 {
		out |= aclBit("blocking")
	}
	if (m|out)&aclBit("fast") == 0 {
		out |= aclBit("slow")
	}
	return out
}

func (k *KeySpec) indexRange() bool { return !k.Unknown && k.Index > 0 && !k.KeyNum }

// legacyMovable reports whether Redis 7.0 would set CMD_MOVABLE_KEYS for
// these key specs (populateCommandLegacyRangeSpec and
// populateCommandMovableKeys).
func legacyMovable(s *Spec) bool {
	ks := s.KeySpecs
	if len(ks) == 0 {
		return false
	}
	if len(ks) == 1 && ks[0].indexRange() {
		return ks[0].Flags&KeyIncomplete != 0
	}
	prevLast := 0
	found := false
	movable := false
	for i := range ks {
		k := &ks[i]
		if !k.indexRange() {
			movable = true
			continue
		}
		if k.Step != 1 || (prevLast != 0 && prevLast != k.Index-1) {
			movable = true
			continue
		}
		if k.Flags&KeyIncomplete != 0 {
			movable = true
		}
		found = true
		prevLast = legacyLast(k, prevLast)
	}
	return movable || !found
}

func legacyLast(k *KeySpec, last int) int {
	abs := k.LastKey
	if abs >= 0 {
		abs += k.Index
	}
	if uint(abs) > uint(last) { // unsigned, as Redis does: -1 is the largest
		return abs
	}
	return last
}

// legacyRange computes COMMAND INFO's first/last/step from key specs the
// way Redis 7.0's populateCommandLegacyRangeSpec does.
func legacyRange(ks []KeySpec) (first, last, step int) {
	if len(ks) == 1 && ks[0].indexRange() {
		k := ks[0]
		last = k.LastKey
		if last >= 0 {
			last += k.Index
		}
		return k.Index, last, k.Step
	}
	first = -1
	prevLast := 0
	for i := range ks {
		k := &ks[i]
		if !k.indexRange() || k.Step != 1 || (prevLast != 0 && prevLast != k.Index-1) {
			continue
		}
		if first < 0 || k.Index < first {
			first = k.Index
		}
		last = legacyLast(k, last)
		prevLast = last
	}
	if first < 0 {
		return 0, 0, 0
	}
	return first, last, 1
}

// lower copies name into buf in lower case; ok is false when it does not fit.
func lower(buf *[maxNameLen]byte, name []byte) ([]byte, bool) {
	if len(name) > maxNameLen {
		return nil, false
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(name)], true
}

// Lookup returns the row of a top-level command, matching name without
// regard to case, or nil. It does not allocate.
func Lookup(name []byte) *Spec {
	var buf [maxNameLen]byte
	b, ok := lower(&buf, name)
	if !ok {
		return nil
	}
	return table.byName[string(b)]
}

// LookupSub returns the subcommand row of s named name ("get" for CONFIG
// GET), matching without regard to case, or nil. It does not allocate.
func (s *Spec) LookupSub(name []byte) *Spec {
	if s.subs == nil {
		return nil
	}
	var buf [maxNameLen]byte
	b, ok := lower(&buf, name)
	if !ok {
		return nil
	}
	return s.subs[string(b)]
}

// LookupFull finds a row by its full name: "get", or "config|get" for a
// subcommand (COMMAND INFO and DOCS accept both).
func LookupFull(name []byte) *Spec {
	for i, c := range name {
		if c == '|' {
			p := Lookup(name[:i])
			if p == nil {
				return nil
			}
			return p.LookupSub(name[i+1:])
		}
	}
	return Lookup(name)
}

// All returns every top-level row sorted by name. The slice is the table's
// own: callers must not modify it.
func All() []*Spec { return table.all }

// CheckArity reports whether nargs arguments (the command name counts, as
// do the container's name and the subcommand's name for a subcommand) suit
// the row's arity.
func CheckArity(s *Spec, nargs int) bool {
	if s.Arity >= 0 {
		return nargs == s.Arity
	}
	return nargs >= -s.Arity
}

// Resolve finds the row that executes args (the subcommand row for a
// container command such as CONFIG GET) and checks its arity. On failure
// spec may still be set (arity error) and errText is Redis's error reply
// text, e.g. "ERR wrong number of arguments for 'get' command". It does
// not allocate on success. len(args) must be > 0.
func Resolve(args [][]byte) (spec *Spec, errText string) {
	base := Lookup(args[0])
	spec = base
	if base != nil && base.subs != nil && len(args) > 1 {
		spec = base.LookupSub(args[1])
	}
	if spec == nil {
		if base != nil {
			return nil, UnknownSubcommandError(args[0], args[1])
		}
		return nil, UnknownCommandError(args)
	}
	if !CheckArity(spec, len(args)) {
		return spec, WrongArityError(spec)
	}
	return spec, ""
}

// Resolver is Resolve with a one-entry cache of the last command name, for
// one goroutine: a pipeline repeats its command, and comparing the name's
// bytes costs less than hashing it. Container commands are not cached.
type Resolver struct {
	name [maxNameLen]byte
	n    int
	spec *Spec
}

// Resolve is the package's Resolve.
func (r *Resolver) Resolve(args [][]byte) (*Spec, string) {
	if r.spec != nil && string(args[0]) == string(r.name[:r.n]) {
		if !CheckArity(r.spec, len(args)) {
			return r.spec, WrongArityError(r.spec)
		}
		return r.spec, ""
	}
	spec, errText := Resolve(args)
	if spec != nil && spec.subs == nil && spec.parent == nil {
		r.n = copy(r.name[:], args[0])
		r.spec = spec
	}
	return spec, errText
}

// WrongArityError is the error text Redis replies when the argument count
// does not suit s's arity.
func WrongArityError(s *Spec) string {
	return errtext.WrongArgs + s.Name + errtext.WrongArgsEnd
}

// cstr returns b up to its first NUL byte and at most max bytes, as C's
// "%.*s" would print it.
func cstr(b []byte, max int) []byte {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	if max >= 0 && len(b) > max {
		b = b[:max]
	}
	return b
}

// sanitize replaces CR and LF by spaces, as Redis does in error replies.
func sanitize(b []byte) string {
	out := []byte(string(b))
	for i, c := range out {
		if c == '\r' || c == '\n' {
			out[i] = ' '
		}
	}
	return string(out)
}

// UnknownCommandError is Redis 7.0's reply text for an unknown command:
// "ERR unknown command 'foo', with args beginning with: 'a' 'b' ".
func UnknownCommandError(args [][]byte) string {
	b := []byte("ERR unknown command '")
	b = append(b, cstr(args[0], 128)...)
	b = append(b, "', with args beginning with: "...)
	n := 0
	for i := 1; i < len(args) && n < 128; i++ {
		a := cstr(args[i], 128-n)
		b = append(b, '\'')
		b = append(b, a...)
		b = append(b, "' "...)
		n += len(a) + 3
	}
	return sanitize(b)
}

// UnknownSubcommandError is Redis's reply text for an unknown subcommand of
// a container command: "ERR unknown subcommand 'x'. Try CONFIG HELP.".
func UnknownSubcommandError(cmd, sub []byte) string {
	b := []byte("ERR unknown subcommand '")
	b = append(b, cstr(sub, 128)...)
	b = append(b, "'. Try "...)
	b = append(b, strings.ToUpper(string(cstr(cmd, -1)))...)
	b = append(b, " HELP."...)
	return sanitize(b)
}

package command

import (
	"time"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// Flag is a command flag, as Redis documents them in COMMAND INFO.
type Flag uint32

// Command flags; names as Redis prints them (see Flag.Names).
const (
	Write Flag = 1 << iota
	ReadOnly
	DenyOOM
	Admin
	PubSub
	NoScript
	Blocking
	Loading
	Stale
	SkipMonitor
	SkipSlowlog
	Fast
	NoAuth
	MayReplicate
	NoMulti
	AllowBusy
	Asking
	NoMandatoryKeys
	NoAsyncLoading
	// MovableKeys marks a command whose key positions depend on its
	// arguments. register sets it when a key spec is not index+range, as
	// Redis does; a row may also set it itself.
	MovableKeys
)

// KeyFlag describes how a command uses the keys one KeySpec finds.
type KeyFlag uint32

// Key-spec flags, as Redis 7 prints them.
const (
	KeyRO KeyFlag = 1 << iota
	KeyRW
	KeyOW
	KeyRM
	KeyAccess
	KeyUpdate
	KeyInsert
	KeyDelete
	KeyNotKey
	KeyIncomplete
	KeyVariableFlags
)

// KeySpec is one Redis 7 key specification: where the search for keys
// begins (an argument index, or the argument after a keyword) and how keys
// are found from there (a range, or a count stored in an argument).
type KeySpec struct {
	Flags KeyFlag
	Notes string // printed by COMMAND INFO when set

	// Unknown: neither where the keys begin nor how to find them can be
	// told from the arguments (SORT's BY/GET patterns). Keys skips it.
	Unknown bool

	// Begin search: Index > 0 starts at that argument; otherwise Keyword is
	// searched from KeywordFrom (negative counts from the end).
	Index       int
	Keyword     string
	KeywordFrom int

	// Find keys, range form (KeyNum false): keys from the start to LastKey
	// (relative to the start; -1 means the last argument, -2 the one before),
	// every Step arguments, Limit > 1 meaning only 1/Limit of the remaining.
	// Keynum form (KeyNum true): the argument at NumIdx (relative to the
	// start) holds the count; keys begin at FirstKey, every Step.
	KeyNum   bool
	LastKey  int
	Step     int
	Limit    int
	NumIdx   int
	FirstKey int
}

// Merge says how the replies of the per-shard parts of a command combine
// into the client's reply when its keys span shards (or when it visits
// every shard).
type Merge uint8

// Merge kinds.
const (
	MergeNone       Merge = iota // one reply; across shards the command runs on gathered copies (shard/cross.go)
	MergeSum                     // integer replies are added (DEL, EXISTS, DBSIZE)
	MergeKeyOrder                // array replies hold one element per key; restore argument order (MGET)
	MergeAllOK                   // +OK when every part said +OK (MSET, FLUSHALL)
	MergeConcat                  // arrays are concatenated (KEYS)
	MergeAny                     // first non-null reply wins (RANDOMKEY)
	MergeText                    // bulk strings are concatenated (CLIENT LIST)
	MergeDigest                  // per-database digests mixed into one (DEBUG DIGEST)
	MergeXor                     // arrays of hex digests XORed element by element (DEBUG DIGEST-VALUE)
	MergeUnion                   // arrays of names, each name once (PUBSUB CHANNELS)
	MergeUnionCount              // arrays of names: how many distinct ones (PUBSUB NUMPAT)
	MergePairSum                 // arrays of name, count pairs: counts added per pair (PUBSUB NUMSUB)
	MergeFound                   // the first reply that is not an error, else the first (CLIENT KILL addr:port)
)

// Route is where a command with a Route function runs.
type Route struct {
	All    bool // on every shard, replies merged with the row's Merge
	Key    int  // > 0: on the shard of args[Key]
	Cursor int  // > 0: args[Cursor] is a cross-shard SCAN cursor
	// Merge, with All, replaces the row's Merge for this command (a
	// subcommand of a row without a subcommand table: DEBUG DIGEST).
	Merge Merge
	// Persist: the shard's persistence runs it (SAVE, BGSAVE): it spans
	// every shard and its reply waits for them.
	Persist bool
	// First: on shard 0, which logs it (FUNCTION LOAD: the changes to the
	// FUNCTION libraries are in one shard's log, in order).
	First bool
}

// Handler executes one command on the shard that owns its keys and writes
// exactly one reply to c.W. args[0] is the command name as the client sent it.
// args and the bytes they point to are valid only during the call.
type Handler func(c *Ctx, args [][]byte)

// Spec is one row of the command table: everything the server knows about a
// command is here, declared once.
type Spec struct {
	Name  string // lower case, as COMMAND prints it
	Arity int    // Redis arity: n means exactly n arguments, -n at least n (the name counts)
	Flags Flag
	// ACL lists the categories (without '@') the flags do not imply;
	// register adds @write, @read, @fast or @slow, @admin, @dangerous,
	// @blocking and @pubsub from the flags.
	ACL []string
	// First, Last and Step are COMMAND INFO's legacy key positions.
	// register derives them from KeySpecs; a row states them only where
	// Redis prints something else.
	First    int
	Last     int
	Step     int
	KeySpecs []KeySpec
	// GetKeys, when set, finds the keys instead of the key specs, as
	// Redis's getkeys procedure does for a command whose key specs cannot
	// (SORT's STORE may come anywhere): it appends one KeyRange per key
	// found, naming the key spec whose flags apply.
	GetKeys func(args [][]byte, dst []KeyRange) []KeyRange
	// Patterns, when set, reports whether the command, with these
	// arguments, reads keys that the values of its own keys name through
	// patterns (SORT's BY and GET): no key spec can say which, so on
	// several shards it runs holding every shard, on copies of its keys
	// and of the keys PatternKeys names (shard/patterns.go).
	Patterns func(args [][]byte) bool
	// PatternKeys appends to dst the keys those patterns name, read from
	// db, which holds the command's own keys.
	PatternKeys func(db *engine.DB, args [][]byte, now int64, dst [][]byte) [][]byte
	// BeforeGather, when set, runs on every shard that owns keys of the
	// command before they are copied for a run elsewhere (the gather plan,
	// a Held run): what the command does to its keys beyond their values,
	// which a run on copies cannot do (SORT turns the sorted set it sorts
	// into a skiplist, as Redis does).
	BeforeGather func(db *engine.DB, args [][]byte, now int64)
	// KeyFlags, for a row whose key spec is flagged KeyVariableFlags,
	// gives the flags its key has with these arguments (Redis's getkeys
	// procedure: SET without GET only overwrites). See Spec.KeyFlagsOf.
	KeyFlags func(args [][]byte) KeyFlag
	// Redact, when set, appends to dst the arguments MONITOR and SLOWLOG
	// show as "(redacted)" (redact.go).
	Redact func(args [][]byte, dst []int) []int
	// Protected names the command whose enable-<name>-command setting
	// decides who may run the row ("debug": DEBUG; "module": MODULE LOAD
	// ...), as Redis's PROTECTED flag, which COMMAND does not print; ""
	// for the others.
	Protected string
	// Merge says how the replies of the shards the command ran on combine.
	// register derives it from the tips (fanOut in table.go); a row states
	// it only where the tips cannot say it, with the reason.
	Merge Merge
	// AllShards: the command runs on every shard (DBSIZE, KEYS, FLUSHALL)
	// and the replies are merged with Merge. Derived from the tips like
	// Merge.
	AllShards bool
	// Route, when set, decides from the arguments where a command runs,
	// for commands whose placement no key spec can say (SCAN's cursor names
	// a shard; DEBUG POPULATE runs everywhere, DEBUG OBJECT where its key
	// is). It is part of the row, like Redis's getkeys procedures. A zero
	// Route leaves the placement to the key specs.
	Route func(args [][]byte) Route
	// WarmZ, when set, returns the score and member the command will add
	// to the sorted set at its first key (ZADD key score member), so that a
	// shard can prefetch the skiplist walks and member lookups of a
	// pipeline's commands (engine.DB.PrefetchZSet). ok is false when it
	// cannot tell.
	WarmZ func(args [][]byte) (score float64, member []byte, ok bool)
	// Propagate, when set, states the command's propagated form after it
	// changed data (see effect.go): the form a replica or the AOF must
	// replay, when that is not the command itself. It may also touch keys
	// its key specs do not name (FLUSHDB: the whole database).
	Propagate func(p *Prop)
	// Verbatim, when not 0, is a number of arguments (the name counts)
	// with which the command is its own propagated form whatever
	// Propagate would say (SET key value): the mutation path then copies
	// it without calling Propagate, the cost of a pipeline of plain SETs.
	Verbatim int
	// Touches: Propagate also touches keys its key specs do not name
	// (FLUSHDB: the whole database), so it runs even when nobody consumes
	// effects; other Propagate functions run only when someone does.
	Touches bool
	// WritesRO: the command writes the keys its key specs flag RO
	// (XREADGROUP, whose spec Redis flags RO ACCESS, moves its group's
	// last ID and PEL); WriteKeys counts them as written.
	WritesRO bool
	// OtherDB, when set, returns the database other than the client's
	// that the command writes its keys in (MOVE's db, COPY's DB option),
	// or -1: the keys are touched there too, and a cross-shard run
	// gathers them from there.
	OtherDB func(args [][]byte) int
	// Selects, when set, returns the database the connection's later
	// commands run in after this one (SELECT), or -1 when the argument is
	// not a database index: MULTI knows it as it queues them.
	Selects func(args [][]byte) int
	// Tx is what the row is to MULTI (transaction.go): a command to
	// queue, or one the connection's shard runs itself (MULTI, EXEC ...).
	Tx TxRole
	// Script is what the row is to the scripting engine (script.go): an
	// EVAL row, which the shard places itself, or none.
	Script ScriptRole
	// PubSub is what a Pub/Sub row asks the shard loop to do (pubsub.go);
	// PSNone for any other row.
	PubSub  PubSubOp
	Handler Handler
	Sub     []*Spec // subcommands (CONFIG GET, CLIENT LIST); Name is "config|get"

	// Documentation for COMMAND DOCS.
	Summary    string
	Since      string
	Group      string
	Complexity string
	Tips       []string
	// Optional documentation, printed by COMMAND DOCS when set.
	DocFlags        DocFlag
	DeprecatedSince string
	ReplacedBy      string
	History         [][2]string // (version, description)
	Args            []Arg

	// Filled by register; read-only afterwards.
	acl    aclMask
	parent *Spec
	subs   map[string]*Spec
	id     int                          // index in Rows()
	reads  func(args [][]byte) ReadMode // writeReads' entry (reads.go)
	// oneKey is the index of the row's only key when its key specs
	// always find exactly one there (GET, SET, INCR ...), else 0 (keys.go).
	oneKey int
}

// ID is the row's index in Rows(): dense, for per-command counters.
func (s *Spec) ID() int { return s.id }

// Rows returns every registered row, subcommands included, indexed by ID.
// The slice is the table's own: callers must not modify it.
func Rows() []*Spec { return table.rows }

// Ctx is what a handler gets: the shard's data, the client's selected
// database, the reply writer and the time. It belongs to the executing
// shard's goroutine and is reused between commands.
type Ctx struct {
	Store   *engine.Store
	DB      *engine.DB
	DBIndex int
	W       *resp.Writer
	Now     int64 // unix milliseconds, read once per loop turn
	// NowMicro is the same instant in microseconds (TIME), 0 when unknown.
	NowMicro int64
	// MaxBulkLen is proto-max-bulk-len: the longest string SETRANGE and
	// APPEND may build (and LCS's working memory); 0 means Redis's default.
	MaxBulkLen int64

	// Obey: the command comes from this replica's primary or from the AOF
	// (Redis's mustObeyClient): arguments a client may not give (XADD's
	// LIMIT without ~) are taken as the primary sent them.
	Obey bool

	// Client is the connection's state. It is set only when the command runs
	// on the shard that owns the connection (commands with no keys, or keys
	// that are local); handlers of key commands must not depend on it.
	Client *Client
	// Server gives access to process-wide things: configuration, the
	// client registry, statistics of every shard.
	Server Server
	// Owns reports whether a key belongs to the executing shard; commands
	// that run on every shard and create keys (DEBUG POPULATE) create only
	// the keys it accepts.
	Owns func(key []byte) bool
	// Local is the executing shard's own connections.
	Local Local
	// Scratch is a buffer a handler may use during its call (a sparse
	// HyperLogLog is rebuilt here); it keeps its capacity between calls.
	Scratch []byte
	// geo is the geo searches' result buffer, kept like Scratch (whose
	// bytes hold the results' members).
	geo []geoPoint
	// Scripts is the executing shard's scripting engine.
	Scripts Scripts
	// Access, when set, is the ACL user the command runs for: SORT names
	// keys through BY and GET patterns only for a user that may read every
	// key, as Redis. Nil: no restriction.
	Access UserAccess
}

// Reset makes c n, keeping the buffers c's handlers grew (Scratch, the
// geo results) for the calls that follow, so that a caller that runs
// commands in one Ctx of its own allocates none per command.
func (c *Ctx) Reset(n Ctx) {
	n.Scratch, n.geo = c.Scratch[:0], c.geo[:0]
	*c = n
}

// UserAccess is what a handler may ask of the ACL user it runs for
// (package acl's User).
type UserAccess interface {
	// FullReadAccess reports whether a selector that allows spec with
	// args may read every key (allkeys, or the pattern * with read).
	FullReadAccess(spec *Spec, args [][]byte) bool
}

// Local gives a handler the connections of the shard it runs on. Commands
// about every client (CLIENT LIST, CLIENT KILL) run on every shard and
// merge what each shard reports.
type Local interface {
	// Clients calls fn for every connection this shard owns.
	Clients(fn func(c *Client))
	// Kill closes the connection with this client ID after the current
	// reply; false if this shard has no such client.
	Kill(id int64) bool
	// Unblock ends the blocking command the client waits in, with its
	// timeout reply or (withError) the UNBLOCKED error; false if this shard
	// has no such blocked client.
	Unblock(id int64, withError bool) bool
	// Unsubscribe drops every subscription of the client (RESET).
	Unsubscribe(cl *Client)
	// Publish delivers msg to this shard's subscribers of channel (and
	// of the patterns matching it) and returns how many got it.
	Publish(channel, msg []byte) int64
	// SPublish delivers msg to this shard's subscribers of the sharded
	// channel and returns how many got it.
	SPublish(channel, msg []byte) int64
	// Subscribe runs a (P)SUBSCRIBE or (P|S)UNSUBSCRIBE (op) of the client
	// whose connection this shard owns, writing its confirmations to w;
	// false when it does not own it.
	Subscribe(cl *Client, op PubSubOp, names [][]byte, w *resp.Writer) bool
	// PubSubQuery is this shard's part of a PUBSUB introspection
	// subcommand (op) with its arguments after the subcommand: channel or
	// pattern names (CHANNELS, NUMPAT, SHARDCHANNELS), or one subscriber
	// count per channel argument (NUMSUB, SHARDNUMSUB).
	PubSubQuery(op PubSubOp, args [][]byte) (names []string, counts []int64)
	// ClientExists reports whether a client with this ID is connected,
	// on any shard (CLIENT TRACKING's REDIRECT).
	ClientExists(id int64) bool
	// Tracked tells the shard that cl's tracking state changed (CLIENT
	// TRACKING, RESET); oldPrefixes are its BCAST prefixes before.
	Tracked(cl *Client, oldPrefixes []string)
	// Authenticate makes cl the user named user when pass authenticates
	// it (AUTH, HELLO AUTH: cmd is the command's name as sent), else
	// records the failure in the ACL LOG and reports false; user nil is
	// the default user (RESET: authenticated only when it needs no
	// password).
	Authenticate(cl *Client, cmd, user, pass []byte) bool
	// Monitor makes cl's connection a MONITOR (on), or no longer one
	// (RESET).
	Monitor(cl *Client, on bool)
}

// Client is one connection's state, owned by the shard that accepted it.
type Client struct {
	ID      int64
	Name    string
	LibName string
	LibVer  string
	Addr    string
	LAddr   string
	Proto   int // 2 or 3
	DB      int
	Authed  bool
	// User is the name of the ACL user the connection runs as.
	User      string
	CreatedMs int64
	LastMs    int64
	LastCmd   string
	Reply     ReplyMode
	NoEvict   bool
	NoTouch   bool
	// Redirect: the client said CLIENT CAPA redirect (Valkey 8): on a
	// replica its commands on keys get -REDIRECT to the primary, those
	// that only read not once it said READONLY (ReadOnly).
	Redirect bool
	ReadOnly bool
	// Close asks the shard to close the connection after this reply (QUIT,
	// CLIENT KILL of oneself).
	Close bool
	// Subs, PSubs and SSubs count the client's subscriptions to channels,
	// patterns and sharded channels; the shard keeps them.
	Subs, PSubs, SSubs int
	// Track is the client's CLIENT TRACKING state (tracking.go).
	Track Tracking
	// Master: the client is a replica's link to its primary (CLIENT LIST
	// flag M, TYPE master).
	Master bool
	// Replica: the client is a replica's connection to this primary, its
	// SYNC or PSYNC served (CLIENT LIST flag S, TYPE replica).
	Replica bool
	// What the shard fills in before Local.Clients shows the client:
	// commands queued in MULTI (-1 outside one), bytes of input not yet
	// run and of output not yet sent, and its states.
	Multi            int
	QBuf, OMem       int
	Blocked, Monitor bool
	// Bufs is the rest of CLIENT LIST's buffer fields, filled in with
	// the others.
	Bufs ClientBufs
}

// ClientBufs is what CLIENT LIST shows of a connection's socket and
// buffers, in Redis 7.0's fields (doc.go says what each maps to).
type ClientBufs struct {
	Fd       int // fd: the socket's descriptor
	QBufFree int // qbuf-free: room left in the input buffer
	ArgvMem  int // argv-mem: the bytes of the command being run or blocked
	MultiMem int // multi-mem: the queued MULTI commands, as Redis counts them
	RBS, RBP int // rbs, rbp: the output buffer's capacity
	OBL, OLL int // obl: bytes in the output buffer; oll: reply pieces behind it
}

// Subscribed reports whether the client holds any subscription (RESP2
// clients are then in subscribed mode).
func (cl *Client) Subscribed() bool { return cl.Subs|cl.PSubs|cl.SSubs != 0 }

// ReplyMode is CLIENT REPLY's setting.
type ReplyMode uint8

// Reply modes.
const (
	ReplyOn ReplyMode = iota
	ReplyOff
	ReplySkip
)

// Server is what handlers may ask of the process around the shard. Every
// method is safe to call from any shard's goroutine and never blocks on
// another shard.
type Server interface {
	// ConfigGet returns name/value pairs of the parameters matching any of
	// the glob patterns.
	ConfigGet(patterns []string) [][2]string
	// ConfigSet applies all pairs or none; the error text is Redis's.
	ConfigSet(pairs [][2]string) error
	// ACL runs an ACL subcommand (args[0] is "ACL") on the users every
	// shard shares, writing its reply to c.W.
	ACL(c *Ctx, args [][]byte)
	// HasUser reports whether an ACL user of that name exists.
	HasUser(name []byte) bool
	// DefaultNoPass reports whether the default user is on and needs no
	// password: a new connection, and RESET, are then authenticated.
	DefaultNoPass() bool
	// ConfigRewrite rewrites the config file (CONFIG REWRITE); the
	// error text is Redis's.
	ConfigRewrite() error
	// Info is the text of INFO for the given sections, in Redis's format.
	Info(sections []string) string
	// ResetStats clears the counters CONFIG RESETSTAT clears.
	ResetStats()
	// Shutdown stops the server after the current loop turns.
	Shutdown()
	// LastSave is the unix time of the last successful save (LASTSAVE).
	LastSave() int64
	// BgSave starts a background save (BGSAVE; schedule: BGSAVE
	// SCHEDULE) and returns its status reply, or Redis's error text.
	BgSave(schedule bool) (status, errText string)
	// BgRewriteAOF starts a rewrite of the AOF (BGREWRITEAOF) and returns
	// its status reply, or Redis's error text.
	BgRewriteAOF() (status, errText string)
	// SlowlogGet returns the newest count entries of the slow log, newest
	// first (count < 0: every one kept); SlowlogLen counts them and
	// SlowlogReset empties it.
	// SetActiveExpire turns every shard's active expiry on or off (DEBUG
	// SET-ACTIVE-EXPIRE); ChangeReplID draws a new replication ID (DEBUG
	// CHANGE-REPL-ID).
	SetActiveExpire(on bool)
	ChangeReplID()
	// Pause holds back commands (every one, or with all false writes)
	// until untilMs, unix ms (CLIENT PAUSE); Unpause ends the pause.
	Pause(untilMs int64, all bool)
	Unpause()
	SlowlogGet(count int) []SlowEntry
	SlowlogLen() int
	SlowlogReset()
	// LatencyEvents returns the latency monitor's events, each with its
	// samples oldest first; LatencyReset forgets the events named (all
	// when none) and returns how many it forgot.
	LatencyEvents() []LatencyEvent
	LatencyReset(events []string) int
	// LatencyHistograms returns the commands' latency histograms, for the
	// commands named (every one that ran when names is nil; a container
	// names its subcommands too).
	LatencyHistograms(names []string) []CmdLatency
	// Role writes ROLE's reply; Replica reports whether the server is a
	// replica (HELLO's role).
	Role(w *resp.Writer)
	Replica() bool
	// ReplicasAcked is how many replicas acknowledged the whole stream.
	ReplicasAcked() int
	// ReplicaOf changes the replication role in the background: a
	// replica of host:port, or a primary when host is "" (REPLICAOF).
	ReplicaOf(host string, port int)
	// Failover starts (or, FAILOVER ABORT, stops) a coordinated
	// failover to a replica; it returns Redis's error, "" for +OK.
	Failover(args [][]byte) string
	// Migrate sends cmds, n commands in RESP, to host:port (MIGRATE's
	// AUTH, SELECT and RESTOREs) over a connection kept from an earlier
	// MIGRATE or a new one, waiting at most timeout for each step, and
	// returns each reply's error text ("" for a reply that is none) in
	// order; ioErr is Redis's IOERR error when the connection failed,
	// errs then holding the replies read before.
	Migrate(host, port string, timeout time.Duration, cmds []byte, n int) (errs []string, ioErr string)
	// AOFAcked is WAITAOF's answer now: whether this server's AOF fsynced
	// every write made so far, and how many replicas' AOFs did; errText
	// is Redis's error (a replica, or local with appendonly no).
	AOFAcked(local bool) (locals, replicas int, errText string)
}

// LatencySample is a latency monitor sample: the unix second it was
// taken in and the worst latency of that second, in milliseconds.
type LatencySample struct{ Time, Ms int64 }

// LatencyEvent is one event of the latency monitor ("command",
// "fast-command", "expire-cycle"): its samples and its worst ever.
type LatencyEvent struct {
	Name    string
	Samples []LatencySample
	Max     int64
}

// CmdLatency is one command's latency histogram as LATENCY HISTOGRAM
// replies it: its calls and, per bucket (its upper bound in µs), the
// calls at most that long.
type CmdLatency struct {
	Name    string
	Calls   int64
	Buckets [][2]int64
}

// SlowEntry is one command in the slow log: its id, when it was logged
// (unix seconds), how long it ran, its arguments as Redis keeps them
// (truncated), and its client's address and name.
type SlowEntry struct {
	ID, Time, Micros int64
	Args             [][]byte
	Addr, Name       string
}

package config

import (
	"errors"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Snapshot is one immutable view of every parameter, typed. A *Snapshot
// returned by Config.Snapshot is never modified: read it freely from any
// goroutine; never write to it or to its slices.
type Snapshot struct {
	Port       int
	Bind       []string // as configured: "-addr" means optional (skip if unavailable); see BindAddrs
	Shards     int
	IO         string // "auto", "uring" or "epoll"
	MaxClients int
	// ProtectedMode: with no password, only loopback and Unix-socket
	// clients are served (the others are told -DENIED and closed).
	ProtectedMode bool
	// EnableDebugCommand says who may run DEBUG: "no" (nobody, Redis's
	// default), "yes", or "local" (loopback and Unix-socket clients).
	EnableDebugCommand string
	// EnableModuleCommand says, as EnableDebugCommand, who may run MODULE
	// LOAD, LOADEX and UNLOAD (which find no module to load here).
	EnableModuleCommand string
	RequirePass         string
	// ACLFile is aclfile: the users' file ACL LOAD and ACL SAVE use
	// ("": none). Users are the config file's user lines, each the
	// user's name then its rules (package acl applies them).
	ACLFile string
	Users   [][]string
	// ACLPubsubAllChannels is acl-pubsub-default allchannels (new users
	// may use every channel) rather than resetchannels.
	ACLPubsubAllChannels bool
	ACLLogMaxLen         int
	Databases            int
	Dir                  string // absolute path
	LogFile              string // "" = stderr
	LogLevel             string // "debug", "verbose", "notice", "warning"
	// LogFormat is "json" (one JSON object per line) or "console" (text);
	// Valkey's "legacy" and "logfmt" are read as console.
	LogFormat    string
	Timeout      int // seconds idle before closing a client; 0 = never
	TCPKeepalive int // seconds; 0 = off

	ProtoMaxBulkLen        int64
	ClientQueryBufferLimit int64
	// OutputLimits is client-output-buffer-limit, per class.
	OutputLimits [NumClasses]OutputLimit
	// NotifyKeyspaceEvents is notify-keyspace-events: Notify* bits.
	NotifyKeyspaceEvents uint32
	Hz                   int // clamped to 1..500 as Redis does

	// MaxMemory is maxmemory in bytes: 0 = no limit, and 0 when
	// MaxMemoryAuto. Use MemoryBudget for the limit to enforce.
	MaxMemory             int64
	MaxMemoryAuto         bool    // maxmemory auto: the budget is a fraction of the cgroup memory limit
	MaxMemoryAutoFraction float64 // maxmemory-auto-fraction, in (0, 1]
	// MaxMemoryClients is maxmemory-clients in bytes, or, when
	// MaxMemoryClientsPerc is set, that percentage of the memory budget
	// (ClientsBudget); 0: no limit.
	MaxMemoryClients     int64
	MaxMemoryClientsPerc int
	MaxMemoryPolicy      string
	MaxMemorySamples     int
	// TrackingTableMaxKeys bounds the keys client tracking remembers
	// (0: no bound); each shard keeps its share.
	TrackingTableMaxKeys int

	// AppendOnly: the shards log their writes (persistence/aof) under
	// Dir/AppendDirName, as AppendFsync says, and load them at start.
	AppendOnly       bool
	AppendFsync      string // "always", "everysec" or "no"
	AppendDirName    string // a name, never a path
	AppendFilename   string // a name, never a path
	AOFLoadTruncated bool
	AOFTimestamps    bool // aof-timestamp-enabled
	// AutoAOFRewritePercentage and AutoAOFRewriteMinSize: a rewrite
	// starts by itself once every shard's AOF files together exceed the
	// minimum size and have grown by the percentage (0: never) since the
	// last rewrite or the start.
	AutoAOFRewritePercentage int
	AutoAOFRewriteMinSize    int64

	// Daemonize holds only its "off" value: anything else is refused
	// until the feature exists.
	Save      []SavePoint // save points: a BGSAVE once as many changes and seconds passed
	Daemonize bool        // always false
	PidFile   string
	// ShutdownOnSigterm and ShutdownOnSigint are what those signals do, as
	// SHUTDOWN's flags (ShutdownSave ...; 0: "default": save when save
	// points are set).
	ShutdownOnSigterm, ShutdownOnSigint int
	// ShutdownTimeout is how long (seconds) a shutdown waits for lagging
	// replicas to acknowledge the stream (0: it does not wait).
	ShutdownTimeout int
	// UnixSocket is the path of a Unix-domain listener ("": none);
	// UnixSocketPerm its file's permission bits (0: as the umask leaves them).
	UnixSocket     string
	UnixSocketPerm int

	DBFilename              string // the snapshot's manifest (or a plain RDB file), in Dir
	RDBCompression          bool
	RDBChecksum             bool
	StopWritesOnBgsaveError bool

	HashMaxListpackEntries int64
	HashMaxListpackValue   int64
	SetMaxIntsetEntries    int64
	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64
	ListMaxListpackSize    int
	ListCompressDepth      int
	HLLSparseMaxBytes      int64
	StreamNodeMaxBytes     int64
	StreamNodeMaxEntries   int64
	LFULogFactor           int
	LFUDecayTime           int
	ActiveExpireEffort     int

	// Replication (persistence/repl). ReplicaOf is replicaof's "host
	// port" at start ("": a primary); REPLICAOF changes the role at run
	// time, not this.
	ReplicaOf              string
	MasterAuth, MasterUser string
	ReplicaReadOnly        bool
	ReplicaServeStaleData  bool
	ReplTimeout            int // seconds
	ReplPingReplicaPeriod  int // seconds
	ReplicaPriority        int
	ReplicaAnnounced       bool
	ReplicaAnnounceIP      string
	ReplicaAnnouncePort    int
	ReplBacklogSize        int64
	ReplBacklogTTL         int // seconds
	// TLS: TLSPort is the TLS listener's port on the bind addresses (0:
	// none); the rest are Redis's tls-* parameters (net/tlsio.Settings),
	// and TLSHandshakeTimeout (seconds) cuts a handshake that takes longer.
	TLSPort                                     int
	TLSCertFile, TLSKeyFile, TLSKeyFilePass     string
	TLSCACertFile, TLSCACertDir                 string
	TLSAuthClients                              string // "yes", "no" or "optional"
	TLSProtocols, TLSCiphers, TLSCiphersuites   string
	TLSPreferServerCiphers, TLSSessionCaching   bool
	TLSSessionCacheSize, TLSSessionCacheTimeout int
	TLSHandshakeTimeout                         int
	// TLSReplication: a replica's links to its primary speak TLS
	// (tls-replication), with the client certificate TLSClientCertFile
	// and TLSClientKeyFile when set, else the server's.
	TLSReplication                                            bool
	TLSClientCertFile, TLSClientKeyFile, TLSClientKeyFilePass string
	// MinReplicasToWrite and MinReplicasMaxLag: a primary refuses writes
	// (-NOREPLICAS) with fewer replicas whose last ACK is at most that
	// many seconds old (0: no minimum).
	MinReplicasToWrite, MinReplicasMaxLag int

	// MetricsPort is where /metrics is served (Prometheus), on the bind
	// addresses; 0: no metrics endpoint.
	MetricsPort int

	// SlowlogLogSlowerThan is slowlog-log-slower-than in microseconds: a
	// command that ran at least so long enters the slow log; -1: none.
	SlowlogLogSlowerThan int64
	SlowlogMaxLen        int64
	// LatencyMonitorThreshold is latency-monitor-threshold in
	// milliseconds: events at least so long are kept (LATENCY); 0: off.
	LatencyMonitorThreshold int64
	// LatencyTracking: per-command latency histograms are shown (INFO
	// latencystats, LATENCY HISTOGRAM), with LatencyPercentiles in
	// INFO (latency-tracking-info-percentiles, each in [0, 100]).
	LatencyTracking    bool
	LatencyPercentiles []float64
	// BusyReplyThreshold is busy-reply-threshold (lua-time-limit) in
	// milliseconds: a script that runs longer makes the server answer
	// -BUSY to other clients until it ends or SCRIPT KILL stops it.
	BusyReplyThreshold int64
	// MigrateConnections is migrate-connections (radish's own): a
	// connection whose commands mostly go to one other shard is handed
	// over to it (shard/migrate.go).
	MigrateConnections bool
	// LuaMemoryLimit is lua-memory-limit in bytes (radish's own): how much
	// the heap may grow while one script runs before the script fails.
	LuaMemoryLimit int64

	// cgroupMem is not a parameter: the cgroup memory limit in bytes that
	// Load read (0: none), carried into every later Snapshot by Set.
	cgroupMem int64
}

// MemoryBudget is the memory limit to enforce, in bytes; 0 means none. It
// is MaxMemory, or under maxmemory auto MaxMemoryAutoFraction of the
// cgroup memory limit Load read (0 when there was none, and always 0 for a
// Config from New). It touches no file: call it every loop turn freely.
func (s *Snapshot) MemoryBudget() int64 {
	if !s.MaxMemoryAuto {
		return s.MaxMemory
	}
	if s.cgroupMem <= 0 {
		return 0
	}
	return max(int64(float64(s.cgroupMem)*s.MaxMemoryAutoFraction), 1)
}

// ClientsBudget is the memory every client together may hold before the
// largest are evicted (maxmemory-clients); 0: no limit.
func (s *Snapshot) ClientsBudget() int64 {
	if s.MaxMemoryClientsPerc > 0 {
		return s.MemoryBudget() * int64(s.MaxMemoryClientsPerc) / 100
	}
	return s.MaxMemoryClients
}

// OutputLimit is one class's client-output-buffer-limit: a client whose
// pending output reaches Hard bytes, or stays at or above Soft bytes for
// more than SoftSeconds, is disconnected. 0 disables a limit.
type OutputLimit struct {
	Hard, Soft, SoftSeconds int64
}

// Client classes of client-output-buffer-limit, in the order CONFIG GET
// prints them.
const (
	ClassNormal  = iota
	ClassReplica // "slave" or "replica"
	ClassPubSub  // a client subscribed to a channel or pattern
	NumClasses
)

var classNames = [NumClasses]string{"normal", "slave", "pubsub"}

// SavePoint is one "save <seconds> <changes>" rule.
type SavePoint struct {
	Seconds int64
	Changes int64
}

// BindAddr is one bind address; Optional addresses ("-::1") are skipped
// when they cannot be bound (no IPv6, say), as Redis does.
type BindAddr struct {
	Addr     string
	Optional bool
}

// BindAddrs splits Bind into addresses and their optional flags.
func (s *Snapshot) BindAddrs() []BindAddr {
	out := make([]BindAddr, 0, len(s.Bind))
	for _, b := range s.Bind {
		if strings.HasPrefix(b, "-") {
			out = append(out, BindAddr{Addr: b[1:], Optional: true})
		} else {
			out = append(out, BindAddr{Addr: b})
		}
	}
	return out
}

// clone returns a deep copy that may be modified.
func (s *Snapshot) clone() *Snapshot {
	n := *s
	n.Bind = append([]string(nil), s.Bind...)
	n.Save = append([]SavePoint(nil), s.Save...)
	return &n
}

// baseName is the error text of a file or directory name that is empty
// or a path (Redis's words), or "".
func baseName(v, param, what string) string {
	switch {
	case v == "":
		return param + " can't be empty"
	case filepath.Base(v) != v:
		return param + " can't be a path, just a " + what
	}
	return ""
}

// Kind is the type of a parameter's value.
type Kind uint8

const (
	KindBool    Kind = iota // yes/no
	KindInt                 // Redis integer (string2ll)
	KindMemory              // bytes with k/kb/m/mb/g/gb suffixes
	KindEnum                // one of a fixed list, case-insensitive
	KindFloat               // a finite decimal number (strtod syntax); ranges via check
	KindString              // any single word
	KindSpecial             // its own parse and format (bind, save, dir)
)

// Mode says when a parameter may change.
type Mode uint8

const (
	Runtime   Mode = iota // CONFIG SET allowed
	Immutable             // start only: "can't set immutable config"
	Protected             // start only: "can't set protected config" (Redis's enable-protected-configs no)
)

// param is one row of the table. Exactly one of the field accessors
// matching kind is set.
type param struct {
	name    string
	aliases []string
	kind    Kind
	def     string        // default as config-file text (multiArg: split like a line)
	defFn   func() string // computed default, overrides def
	mode    Mode
	min     int64 // KindInt, KindMemory
	max     int64
	enum    []string // KindEnum
	// multiArg: the directive takes several words (bind a b, save 1 2 3 4);
	// one non-empty word is split again; CONFIG SET splits on spaces.
	multiArg bool

	i   func(*Snapshot) *int
	i64 func(*Snapshot) *int64
	b   func(*Snapshot) *bool
	f   func(*Snapshot) *float64
	s   func(*Snapshot) *string
	// KindSpecial
	parse  func(s *Snapshot, args []string, ld *loadState) string // returns "" or Redis's error text
	format func(s *Snapshot) string

	check func(s *Snapshot) string // after parsing: "" or error text
	fix   func(s *Snapshot)        // after parsing: normalize (hz clamp)
	// refuse returns why radish cannot honour the value yet ("" when it
	// can): a feature not built (appendonly yes), not a bad value. CONFIG
	// SET checks it at once; Load checks the final value after every line,
	// so a later line or option may override an earlier one.
	refuse func(s *Snapshot) string
}

const maxInt = math.MaxInt32

// MaxShards is the most shards a SCAN cursor can name (router.MaxShards:
// the cursor's top byte is the shard).
const MaxShards = 256

// params is the table: one row per parameter. To add one: add a field to
// Snapshot and a row here; parsing, CONFIG GET/SET, defaults and --help
// follow from the row.
var params = []*param{
	{name: "port", kind: KindInt, def: "6379", mode: Immutable, min: 0, max: 65535, i: func(s *Snapshot) *int { return &s.Port }},
	{name: "bind", kind: KindSpecial, def: "127.0.0.1 -::1", mode: Immutable, multiArg: true, parse: parseBind, format: func(s *Snapshot) string { return strings.Join(s.Bind, " ") }},
	{name: "shards", kind: KindInt, defFn: func() string { return strconv.Itoa(DefaultShards()) }, mode: Immutable, min: 1, max: MaxShards, i: func(s *Snapshot) *int { return &s.Shards }},
	{name: "io", kind: KindEnum, def: "auto", mode: Immutable, enum: []string{"auto", "uring", "epoll"}, s: func(s *Snapshot) *string { return &s.IO }},
	{name: "maxclients", kind: KindInt, def: "10000", min: 1, max: math.MaxUint32, i: func(s *Snapshot) *int { return &s.MaxClients }},
	{name: "enable-debug-command", kind: KindEnum, def: "no", mode: Immutable, enum: []string{"no", "yes", "local"}, s: func(s *Snapshot) *string { return &s.EnableDebugCommand }},
	{name: "enable-module-command", kind: KindEnum, def: "no", mode: Immutable, enum: []string{"no", "yes", "local"}, s: func(s *Snapshot) *string { return &s.EnableModuleCommand }},
	{name: "protected-mode", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.ProtectedMode }},
	{name: "requirepass", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.RequirePass }},
	{name: "aclfile", kind: KindString, def: "", mode: Immutable, s: func(s *Snapshot) *string { return &s.ACLFile }},
	{name: "acl-pubsub-default", kind: KindSpecial, def: "resetchannels", parse: func(s *Snapshot, args []string, _ *loadState) string {
		switch strings.ToLower(args[0]) {
		case "allchannels":
			s.ACLPubsubAllChannels = true
		case "resetchannels":
			s.ACLPubsubAllChannels = false
		default:
			return "argument(s) must be one of the following: allchannels, resetchannels"
		}
		return ""
	}, format: func(s *Snapshot) string {
		if s.ACLPubsubAllChannels {
			return "allchannels"
		}
		return "resetchannels"
	}},
	{name: "acllog-max-len", kind: KindInt, def: "128", min: 0, max: math.MaxInt64, i: func(s *Snapshot) *int { return &s.ACLLogMaxLen }},
	{name: "databases", kind: KindInt, def: "16", mode: Immutable, min: 1, max: maxInt, i: func(s *Snapshot) *int { return &s.Databases }},
	{name: "dir", kind: KindSpecial, defFn: cwd, mode: Protected, parse: parseDir, format: func(s *Snapshot) string { return s.Dir }},
	{name: "logfile", kind: KindString, def: "", mode: Immutable, s: func(s *Snapshot) *string { return &s.LogFile }},
	{name: "log-format", kind: KindEnum, def: "json", mode: Immutable, enum: []string{"json", "console", "legacy", "logfmt"}, s: func(s *Snapshot) *string { return &s.LogFormat }},
	{name: "loglevel", kind: KindEnum, def: "notice", enum: []string{"debug", "verbose", "notice", "warning"}, s: func(s *Snapshot) *string { return &s.LogLevel }},
	{name: "timeout", kind: KindInt, def: "0", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.Timeout }},
	{name: "tcp-keepalive", kind: KindInt, def: "300", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.TCPKeepalive }},
	{name: "proto-max-bulk-len", kind: KindMemory, def: "512mb", min: 1024 * 1024, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.ProtoMaxBulkLen }},
	{name: "client-query-buffer-limit", kind: KindMemory, def: "1gb", min: 1024 * 1024, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.ClientQueryBufferLimit }},
	{name: "client-output-buffer-limit", kind: KindSpecial, def: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		multiArg: true, parse: parseOutputLimits, format: formatOutputLimits},
	{name: "notify-keyspace-events", kind: KindSpecial, def: "", parse: parseNotify, format: formatNotify},
	{name: "hz", kind: KindInt, def: "10", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.Hz }, fix: func(s *Snapshot) { s.Hz = min(max(s.Hz, 1), 500) }},
	{name: "maxmemory", kind: KindSpecial, def: "0", parse: parseMaxMemory, format: formatMaxMemory},
	{name: "maxmemory-clients", kind: KindSpecial, def: "0", parse: parseMaxMemoryClients, format: formatMaxMemoryClients},
	{name: "maxmemory-policy", kind: KindEnum, def: "noeviction", enum: []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}, s: func(s *Snapshot) *string { return &s.MaxMemoryPolicy }},
	{name: "maxmemory-samples", kind: KindInt, def: "5", min: 1, max: maxInt, i: func(s *Snapshot) *int { return &s.MaxMemorySamples }},
	{name: "maxmemory-auto-fraction", kind: KindFloat, def: "0.8", f: func(s *Snapshot) *float64 { return &s.MaxMemoryAutoFraction }, check: func(s *Snapshot) string {
		if f := s.MaxMemoryAutoFraction; !(f > 0 && f <= 1) {
			return errFraction
		}
		return ""
	}},
	// appendonly at run time: the shards' Group starts or stops the AOF
	// (shard/aofrun.go), writing a base of the data first, as Redis.
	{name: "appendonly", kind: KindBool, def: "no", b: func(s *Snapshot) *bool { return &s.AppendOnly }},
	{name: "appendfsync", kind: KindEnum, def: "everysec", enum: []string{"everysec", "always", "no"}, s: func(s *Snapshot) *string { return &s.AppendFsync }},
	{name: "appenddirname", kind: KindString, def: "appendonlydir", mode: Immutable, s: func(s *Snapshot) *string { return &s.AppendDirName }, check: func(s *Snapshot) string {
		return baseName(s.AppendDirName, "appenddirname", "dirname")
	}},
	{name: "appendfilename", kind: KindString, def: "appendonly.aof", mode: Immutable, s: func(s *Snapshot) *string { return &s.AppendFilename }, check: func(s *Snapshot) string {
		return baseName(s.AppendFilename, "appendfilename", "filename")
	}},
	{name: "aof-load-truncated", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.AOFLoadTruncated }},
	{name: "aof-timestamp-enabled", kind: KindBool, def: "no", b: func(s *Snapshot) *bool { return &s.AOFTimestamps }},
	{name: "auto-aof-rewrite-percentage", kind: KindInt, def: "100", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.AutoAOFRewritePercentage }},
	{name: "auto-aof-rewrite-min-size", kind: KindMemory, def: "64mb", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.AutoAOFRewriteMinSize }},
	{name: "save", kind: KindSpecial, def: "3600 1 300 100 60 10000", multiArg: true, parse: parseSave, format: formatSave},
	{name: "dbfilename", kind: KindString, def: "dump.rdb", mode: Protected, s: func(s *Snapshot) *string { return &s.DBFilename }, check: func(s *Snapshot) string {
		if s.DBFilename == "" || strings.ContainsRune(s.DBFilename, '/') {
			return "dbfilename can't be a path, just a filename"
		}
		return ""
	}},
	{name: "rdbcompression", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.RDBCompression }},
	{name: "rdbchecksum", kind: KindBool, def: "yes", mode: Immutable, b: func(s *Snapshot) *bool { return &s.RDBChecksum }},
	{name: "stop-writes-on-bgsave-error", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.StopWritesOnBgsaveError }},
	{name: "daemonize", kind: KindBool, def: "no", mode: Immutable, b: func(s *Snapshot) *bool { return &s.Daemonize }, refuse: func(s *Snapshot) string {
		if s.Daemonize {
			return "daemonize yes is not supported: run radish-server in the foreground under a supervisor (systemd, docker)"
		}
		return ""
	}},
	{name: "unixsocket", kind: KindString, def: "", mode: Immutable, s: func(s *Snapshot) *string { return &s.UnixSocket }},
	{name: "unixsocketperm", kind: KindSpecial, def: "0", mode: Immutable, parse: parseUnixPerm, format: func(s *Snapshot) string {
		return strconv.FormatInt(int64(s.UnixSocketPerm), 8)
	}},
	{name: "shutdown-on-sigterm", kind: KindSpecial, def: "default", multiArg: true,
		parse: func(s *Snapshot, args []string, _ *loadState) string {
			return parseShutdown(&s.ShutdownOnSigterm, args)
		},
		format: func(s *Snapshot) string { return formatShutdown(s.ShutdownOnSigterm) }},
	{name: "shutdown-on-sigint", kind: KindSpecial, def: "default", multiArg: true,
		parse:  func(s *Snapshot, args []string, _ *loadState) string { return parseShutdown(&s.ShutdownOnSigint, args) },
		format: func(s *Snapshot) string { return formatShutdown(s.ShutdownOnSigint) }},
	{name: "shutdown-timeout", kind: KindInt, def: "10", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.ShutdownTimeout }},
	{name: "pidfile", kind: KindString, def: "", mode: Immutable, s: func(s *Snapshot) *string { return &s.PidFile }},
	{name: "hash-max-listpack-entries", aliases: []string{"hash-max-ziplist-entries"}, kind: KindInt, def: "512", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.HashMaxListpackEntries }},
	{name: "hash-max-listpack-value", aliases: []string{"hash-max-ziplist-value"}, kind: KindMemory, def: "64", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.HashMaxListpackValue }},
	{name: "set-max-intset-entries", kind: KindInt, def: "512", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.SetMaxIntsetEntries }},
	{name: "zset-max-listpack-entries", aliases: []string{"zset-max-ziplist-entries"}, kind: KindInt, def: "128", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.ZSetMaxListpackEntries }},
	{name: "zset-max-listpack-value", aliases: []string{"zset-max-ziplist-value"}, kind: KindMemory, def: "64", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.ZSetMaxListpackValue }},
	{name: "hll-sparse-max-bytes", kind: KindMemory, def: "3000", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.HLLSparseMaxBytes }},
	{name: "stream-node-max-bytes", kind: KindMemory, def: "4096", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.StreamNodeMaxBytes }},
	{name: "stream-node-max-entries", kind: KindInt, def: "100", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.StreamNodeMaxEntries }},
	{name: "list-max-listpack-size", aliases: []string{"list-max-ziplist-size"}, kind: KindInt, def: "-2", min: math.MinInt32, max: math.MaxInt32, i: func(s *Snapshot) *int { return &s.ListMaxListpackSize }},
	{name: "list-compress-depth", kind: KindInt, def: "0", min: 0, max: math.MaxInt32, i: func(s *Snapshot) *int { return &s.ListCompressDepth }},
	{name: "lfu-log-factor", kind: KindInt, def: "10", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.LFULogFactor }},
	{name: "lfu-decay-time", kind: KindInt, def: "1", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.LFUDecayTime }},
	{name: "tracking-table-max-keys", kind: KindInt, def: "1000000", min: 0, max: math.MaxInt64, i: func(s *Snapshot) *int { return &s.TrackingTableMaxKeys }},
	{name: "active-expire-effort", kind: KindInt, def: "1", min: 1, max: 10, i: func(s *Snapshot) *int { return &s.ActiveExpireEffort }},
	{name: "slowlog-log-slower-than", kind: KindInt, def: "10000", min: -1, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.SlowlogLogSlowerThan }},
	{name: "slowlog-max-len", kind: KindInt, def: "128", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.SlowlogMaxLen }},
	{name: "latency-monitor-threshold", kind: KindInt, def: "0", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.LatencyMonitorThreshold }},
	{name: "busy-reply-threshold", aliases: []string{"lua-time-limit"}, kind: KindInt, def: "5000", min: 0, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.BusyReplyThreshold }},
	{name: "migrate-connections", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.MigrateConnections }},
	{name: "lua-memory-limit", kind: KindMemory, def: "1gb", min: 1024 * 1024, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.LuaMemoryLimit }},
	{name: "latency-tracking", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.LatencyTracking }},
	{name: "latency-tracking-info-percentiles", kind: KindSpecial, def: "50 99 99.9", multiArg: true, parse: parsePercentiles, format: formatPercentiles},
	{name: "replicaof", aliases: []string{"slaveof"}, kind: KindSpecial, def: "", mode: Immutable, multiArg: true,
		parse: parseReplicaOf, format: func(s *Snapshot) string { return s.ReplicaOf }},
	{name: "masterauth", aliases: []string{"primaryauth"}, kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.MasterAuth }},
	{name: "masteruser", aliases: []string{"primaryuser"}, kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.MasterUser }},
	{name: "replica-read-only", aliases: []string{"slave-read-only"}, kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.ReplicaReadOnly }},
	{name: "replica-serve-stale-data", aliases: []string{"slave-serve-stale-data"}, kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.ReplicaServeStaleData }},
	{name: "repl-timeout", kind: KindInt, def: "60", min: 1, max: maxInt, i: func(s *Snapshot) *int { return &s.ReplTimeout }},
	{name: "repl-ping-replica-period", aliases: []string{"repl-ping-slave-period"}, kind: KindInt, def: "10", min: 1, max: maxInt, i: func(s *Snapshot) *int { return &s.ReplPingReplicaPeriod }},
	{name: "replica-priority", aliases: []string{"slave-priority"}, kind: KindInt, def: "100", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.ReplicaPriority }},
	{name: "replica-announced", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.ReplicaAnnounced }},
	{name: "replica-announce-ip", aliases: []string{"slave-announce-ip"}, kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.ReplicaAnnounceIP }},
	{name: "replica-announce-port", aliases: []string{"slave-announce-port"}, kind: KindInt, def: "0", min: 0, max: 65535, i: func(s *Snapshot) *int { return &s.ReplicaAnnouncePort }},
	{name: "repl-backlog-size", kind: KindMemory, def: "1mb", min: 1, max: math.MaxInt64, i64: func(s *Snapshot) *int64 { return &s.ReplBacklogSize }},
	{name: "repl-backlog-ttl", kind: KindInt, def: "3600", min: 0, max: math.MaxInt64, i: func(s *Snapshot) *int { return &s.ReplBacklogTTL }},
	{name: "tls-port", kind: KindInt, def: "0", mode: Immutable, min: 0, max: 65535, i: func(s *Snapshot) *int { return &s.TLSPort }},
	{name: "tls-cert-file", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSCertFile }},
	{name: "tls-key-file", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSKeyFile }},
	{name: "tls-key-file-pass", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSKeyFilePass }},
	{name: "tls-ca-cert-file", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSCACertFile }},
	{name: "tls-ca-cert-dir", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSCACertDir }},
	{name: "tls-auth-clients", kind: KindEnum, def: "yes", enum: []string{"no", "yes", "optional"}, s: func(s *Snapshot) *string { return &s.TLSAuthClients }},
	{name: "tls-protocols", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSProtocols }},
	{name: "tls-ciphers", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSCiphers }},
	{name: "tls-ciphersuites", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSCiphersuites }},
	{name: "tls-prefer-server-ciphers", kind: KindBool, def: "no", b: func(s *Snapshot) *bool { return &s.TLSPreferServerCiphers }},
	{name: "tls-session-caching", kind: KindBool, def: "yes", b: func(s *Snapshot) *bool { return &s.TLSSessionCaching }},
	{name: "tls-session-cache-size", kind: KindInt, def: "20480", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.TLSSessionCacheSize }},
	{name: "tls-session-cache-timeout", kind: KindInt, def: "300", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.TLSSessionCacheTimeout }},
	{name: "tls-replication", kind: KindBool, def: "no", b: func(s *Snapshot) *bool { return &s.TLSReplication }},
	{name: "tls-client-cert-file", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSClientCertFile }},
	{name: "tls-client-key-file", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSClientKeyFile }},
	{name: "tls-client-key-file-pass", kind: KindString, def: "", s: func(s *Snapshot) *string { return &s.TLSClientKeyFilePass }},
	{name: "tls-handshake-timeout", kind: KindInt, def: "10", min: 1, max: maxInt, i: func(s *Snapshot) *int { return &s.TLSHandshakeTimeout }},
	{name: "min-replicas-to-write", aliases: []string{"min-slaves-to-write"}, kind: KindInt, def: "0", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.MinReplicasToWrite }},
	{name: "min-replicas-max-lag", aliases: []string{"min-slaves-max-lag"}, kind: KindInt, def: "10", min: 0, max: maxInt, i: func(s *Snapshot) *int { return &s.MinReplicasMaxLag }},
	{name: "metrics-port", kind: KindInt, def: "0", mode: Immutable, min: 0, max: 65535, i: func(s *Snapshot) *int { return &s.MetricsPort }},
}

// byName maps every lower-case name and alias to its row.
var byName = func() map[string]*param {
	m := make(map[string]*param)
	for _, p := range params {
		for _, n := range append([]string{p.name}, p.aliases...) {
			if m[n] != nil {
				panic("config: duplicate parameter " + n)
			}
			m[n] = p
		}
	}
	return m
}()

func lookup(name string) *param { return byName[strings.ToLower(name)] }

// apply parses args into s. It returns "" or Redis's error text.
func (p *param) apply(s *Snapshot, args []string, ld *loadState) string {
	if p.kind == KindSpecial {
		if e := p.parse(s, args, ld); e != "" {
			return e
		}
	} else {
		if len(args) != 1 {
			return errArgs
		}
		v := args[0]
		switch p.kind {
		case KindBool:
			b, ok := parseBool(v)
			if !ok {
				return errNotBool
			}
			*p.b(s) = b
		case KindInt, KindMemory:
			var n int64
			if p.kind == KindMemory {
				var msg string
				if n, msg = memoryArg(v, p.min, p.max); msg != "" {
					return msg
				}
			} else {
				var ok bool
				if n, ok = ParseInt(v); !ok {
					return errNotInt
				}
				if n < p.min || n > p.max {
					return rangeError(p.min, p.max)
				}
			}
			if p.i != nil {
				*p.i(s) = int(n)
			} else {
				*p.i64(s) = n
			}
		case KindEnum:
			found := false
			for _, e := range p.enum {
				if strings.EqualFold(e, v) {
					*p.s(s), found = e, true
					break
				}
			}
			if !found {
				return enumError(p.enum)
			}
		case KindString:
			*p.s(s) = v
		case KindFloat:
			f, ok := parseFloat(v)
			if !ok {
				return errNotFloat
			}
			*p.f(s) = f
		}
	}
	if p.check != nil {
		if e := p.check(s); e != "" {
			return e
		}
	}
	if p.fix != nil {
		p.fix(s)
	}
	return ""
}

// get formats the value as CONFIG GET prints it.
func (p *param) get(s *Snapshot) string {
	switch p.kind {
	case KindBool:
		return formatBool(*p.b(s))
	case KindInt, KindMemory:
		if p.i != nil {
			return strconv.Itoa(*p.i(s))
		}
		return strconv.FormatInt(*p.i64(s), 10)
	case KindEnum, KindString:
		return *p.s(s)
	case KindFloat:
		return strconv.FormatFloat(*p.f(s), 'g', -1, 64)
	}
	return p.format(s)
}

// defaultText is the default as it would be written in a config file.
func (p *param) defaultText() string {
	if p.defFn != nil {
		return p.defFn()
	}
	return p.def
}

func parseBind(s *Snapshot, args []string, _ *loadState) string {
	if len(args) > 16 {
		return errManyBinds
	}
	s.Bind = append([]string(nil), args...)
	return ""
}

// memoryArg parses a memory value for a parameter whose range is
// [min, max]; it returns the bytes or Redis's error text.
func memoryArg(v string, min, max int64) (int64, string) {
	u, ok := ParseMemory(v)
	if !ok {
		return 0, errNotMemory
	}
	if u > math.MaxInt64 || int64(u) < min || int64(u) > max {
		return 0, rangeError(min, max)
	}
	return int64(u), ""
}

// parseMaxMemory takes a memory value as Redis does, or "auto" (any case):
// a fraction of the cgroup memory limit (see Snapshot.MemoryBudget).
func parseMaxMemory(s *Snapshot, args []string, _ *loadState) string {
	if len(args) != 1 {
		return errArgs
	}
	if strings.EqualFold(args[0], "auto") {
		s.MaxMemory, s.MaxMemoryAuto = 0, true
		return ""
	}
	n, msg := memoryArg(args[0], 0, math.MaxInt64)
	if msg != "" {
		return msg
	}
	s.MaxMemory, s.MaxMemoryAuto = n, false
	return ""
}

// parseMaxMemoryClients takes a memory value or a percentage of the
// memory budget ("10%"), as Redis does.
func parseMaxMemoryClients(s *Snapshot, args []string, _ *loadState) string {
	if len(args) != 1 {
		return errArgs
	}
	if v, ok := strings.CutSuffix(args[0], "%"); ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0:
			return "argument must be a memory or percent value"
		case n > 100:
			return "percentage argument must be less or equal to 100"
		}
		s.MaxMemoryClients, s.MaxMemoryClientsPerc = 0, n
		return ""
	}
	n, msg := memoryArg(args[0], 0, math.MaxInt64)
	if msg != "" {
		return "argument must be a memory or percent value"
	}
	s.MaxMemoryClients, s.MaxMemoryClientsPerc = n, 0
	return ""
}

func formatMaxMemoryClients(s *Snapshot) string {
	if s.MaxMemoryClientsPerc > 0 {
		return strconv.Itoa(s.MaxMemoryClientsPerc) + "%"
	}
	return strconv.FormatInt(s.MaxMemoryClients, 10)
}

func formatMaxMemory(s *Snapshot) string {
	if s.MaxMemoryAuto {
		return "auto"
	}
	return strconv.FormatInt(s.MaxMemory, 10)
}

// parseOutputLimits takes "<class> <hard> <soft> <soft seconds>" for one
// or more classes, as Redis does: the classes named change, the others
// keep their limits; nothing changes when any group is wrong.
func parseOutputLimits(s *Snapshot, args []string, _ *loadState) string {
	if len(args)%4 != 0 { // none: nothing changes, as in Redis
		return "Wrong number of arguments in buffer limit configuration."
	}
	limits := s.OutputLimits
	for j := 0; j < len(args); j += 4 {
		class := -1
		switch strings.ToLower(args[j]) {
		case "normal":
			class = ClassNormal
		case "slave", "replica":
			class = ClassReplica
		case "pubsub":
			class = ClassPubSub
		}
		if class < 0 {
			return "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := ParseMemory(args[j+1])
		soft, ok2 := ParseMemory(args[j+2])
		secs, ok3 := strtoll(args[j+3])
		if !ok1 || !ok2 || !ok3 || hard > math.MaxInt64 || soft > math.MaxInt64 || secs < 0 {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		limits[class] = OutputLimit{Hard: int64(hard), Soft: int64(soft), SoftSeconds: secs}
	}
	s.OutputLimits = limits
	return ""
}

func formatOutputLimits(s *Snapshot) string {
	var b []byte
	for i, l := range s.OutputLimits {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, classNames[i]...)
		for _, v := range []int64{l.Hard, l.Soft, l.SoftSeconds} {
			b = append(b, ' ')
			b = strconv.AppendInt(b, v, 10)
		}
	}
	return string(b)
}

// Keyspace notification bits (notify-keyspace-events), one per letter.
const (
	NotifyKeyspace uint32 = 1 << iota // K: __keyspace@<db>__:<key> channels
	NotifyKeyevent                    // E: __keyevent@<db>__:<event> channels
	NotifyGeneric                     // g: DEL, EXPIRE, RENAME ...
	NotifyString                      // $
	NotifyList                        // l
	NotifySet                         // s
	NotifyHash                        // h
	NotifyZSet                        // z
	NotifyExpired                     // x
	NotifyEvicted                     // e
	NotifyStream                      // t
	NotifyKeyMiss                     // m
	NotifyModule                      // d
	NotifyNew                         // n
	// NotifyAll is A: every class but m and n.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash | NotifyZSet |
		NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// notifyLetters are the letters of the bits, in bit order.
const notifyLetters = "KEg$lshzxetmdn"

// NotifyClass returns the bit of an event class letter (g $ l s h z x e
// t m d n), 0 for any other byte.
func NotifyClass(letter byte) uint32 {
	for i := 2; i < len(notifyLetters); i++ {
		if notifyLetters[i] == letter {
			return 1 << i
		}
	}
	return 0
}

func parseNotify(s *Snapshot, args []string, _ *loadState) string {
	if len(args) > 1 {
		return errArgs
	}
	var flags uint32
	for _, a := range args {
		for i := 0; i < len(a); i++ {
			switch j := strings.IndexByte(notifyLetters, a[i]); {
			case a[i] == 'A':
				flags |= NotifyAll
			case j >= 0:
				flags |= 1 << j
			default:
				return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
			}
		}
	}
	s.NotifyKeyspaceEvents = flags
	return ""
}

// formatNotify writes the flags as Redis 7.0 does: A for all of its
// classes, then K, E and m; n is never printed (as in Redis 7.0).
func formatNotify(s *Snapshot) string {
	f := s.NotifyKeyspaceEvents
	var b []byte
	if f&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, bit := range []uint32{NotifyGeneric, NotifyString, NotifyList, NotifySet, NotifyHash, NotifyZSet,
			NotifyExpired, NotifyEvicted, NotifyStream, NotifyModule} {
			if f&bit != 0 {
				b = append(b, notifyLetters[bits.TrailingZeros32(bit)])
			}
		}
	}
	for _, bit := range []uint32{NotifyKeyspace, NotifyKeyevent, NotifyKeyMiss} {
		if f&bit != 0 {
			b = append(b, notifyLetters[bits.TrailingZeros32(bit)])
		}
	}
	return string(b)
}

func parseSave(s *Snapshot, args []string, ld *loadState) string {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	if len(args)%2 != 0 {
		return errBadSave
	}
	pts := make([]SavePoint, 0, len(args)/2)
	for j := 0; j < len(args); j += 2 {
		sec, ok1 := strtoll(args[j])
		chg, ok2 := strtoll(args[j+1])
		if !ok1 || !ok2 || sec < 1 || chg < 0 {
			return errBadSave
		}
		pts = append(pts, SavePoint{Seconds: sec, Changes: chg})
	}
	// In a config file the first save line replaces the defaults and later
	// ones add rules, as in Redis; CONFIG SET replaces.
	if ld != nil && len(args) > 0 {
		if ld.saveLoaded {
			pts = append(append([]SavePoint(nil), s.Save...), pts...)
		}
		ld.saveLoaded = true
	}
	s.Save = pts
	return ""
}

// SHUTDOWN's flags, as shutdown-on-sigterm and shutdown-on-sigint name
// them (Redis's order).
const (
	ShutdownSave = 1 << iota
	ShutdownNoSave
	ShutdownNow
	ShutdownForce
)

var shutdownFlags = []string{"save", "nosave", "now", "force"}

// parseShutdown reads "default" or a combination of save, nosave, now and
// force, as Redis's enum of flags.
func parseShutdown(dst *int, args []string) string {
	v := 0
	for _, a := range args {
		switch i := slices.Index(shutdownFlags, strings.ToLower(a)); {
		case strings.EqualFold(a, "default"):
		case i >= 0:
			v |= 1 << i
		default:
			return "argument(s) must be one of the following: default, save, nosave, now, force"
		}
	}
	if len(args) == 0 {
		return "argument(s) must be one of the following: default, save, nosave, now, force"
	}
	*dst = v
	return ""
}

func formatShutdown(v int) string {
	var out []string
	for i, f := range shutdownFlags {
		if v&(1<<i) != 0 {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return "default"
	}
	return strings.Join(out, " ")
}

// parseUnixPerm reads unixsocketperm in octal, as Redis does.
func parseUnixPerm(s *Snapshot, args []string, _ *loadState) string {
	v, err := strconv.ParseInt(args[0], 8, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange), err == nil && (v < 0 || v > 0o777):
		return "argument must be between 0 and 777 inclusive"
	case err != nil:
		return "argument couldn't be parsed into an integer"
	}
	s.UnixSocketPerm = int(v)
	return ""
}

// parseReplicaOf reads replicaof's "host port" or "no one" (a primary).
func parseReplicaOf(s *Snapshot, args []string, _ *loadState) string {
	if len(args) == 1 {
		args = strings.Fields(args[0])
	}
	if len(args) == 0 {
		s.ReplicaOf = ""
		return ""
	}
	if len(args) != 2 {
		return errArgs
	}
	if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
		s.ReplicaOf = ""
		return ""
	}
	if p, ok := ParseInt(args[1]); !ok || p < 0 || p > 65535 {
		return "Invalid master port"
	}
	s.ReplicaOf = args[0] + " " + args[1]
	return ""
}

func formatSave(s *Snapshot) string {
	var b []byte
	for i, p := range s.Save {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, p.Seconds, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, p.Changes, 10)
	}
	return string(b)
}

// parseDir resolves the directory against the current one (Redis chdirs,
// so a relative dir is relative to the previous one). Load checks that the
// final one exists (dirError), so that a later line or option can replace
// a packaged file's dir; it does not chdir: the server does that at start.
func parseDir(s *Snapshot, args []string, _ *loadState) string {
	if len(args) != 1 {
		return errArgs
	}
	d := args[0]
	if !filepath.IsAbs(d) {
		d = filepath.Join(s.Dir, d)
	}
	s.Dir = filepath.Clean(d)
	return ""
}

// dirError is "" when d is a directory, else why not, as strerror says.
func dirError(d string) string {
	fi, err := os.Stat(d)
	if err != nil {
		return strerror(err)
	}
	if !fi.IsDir() {
		return strerror(syscall.ENOTDIR)
	}
	return ""
}

func cwd() string {
	d, err := os.Getwd()
	if err != nil {
		return "/"
	}
	return d
}

// strerror renders err as C's strerror would ("No such file or directory").
func strerror(err error) string {
	var errno syscall.Errno
	msg := err.Error()
	if errors.As(err, &errno) {
		msg = errno.Error()
	}
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return msg
}

// parsePercentiles reads latency-tracking-info-percentiles as Redis:
// numbers in [0, 100], none at all for an empty list.
func parsePercentiles(s *Snapshot, args []string, _ *loadState) string {
	ps := make([]float64, 0, len(args))
	for _, a := range args {
		if a == "" && len(args) == 1 {
			break
		}
		f, ok := parseFloat(a)
		if !ok {
			return "Invalid latency-tracking-info-percentiles parameters"
		}
		if f < 0 || f > 100 {
			return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		ps = append(ps, f)
	}
	s.LatencyPercentiles = ps
	return ""
}

func formatPercentiles(s *Snapshot) string {
	out := make([]string, len(s.LatencyPercentiles))
	for i, f := range s.LatencyPercentiles {
		out[i] = FormatPercentile(f)
	}
	return strings.Join(out, " ")
}

// FormatPercentile prints a percentile as Redis does ("%f" with its
// trailing zeros trimmed): 50, 99.9.
func FormatPercentile(f float64) string {
	t := strconv.FormatFloat(f, 'f', 6, 64)
	t = strings.TrimRight(t, "0")
	return strings.TrimSuffix(t, ".")
}

package errtext

import "strings"

// Texts about a value or an argument.
const (
	WrongType   = "WRONGTYPE Operation against a key holding the wrong kind of value"
	NotInt      = "ERR value is not an integer or out of range"
	NotFloat    = "ERR value is not a valid float"
	Syntax      = "ERR syntax error"
	Overflow    = "ERR increment or decrement would overflow"
	IncrNaN     = "ERR increment would produce NaN or Infinity"
	TooLarge    = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	NoSuchKey   = "ERR no such key"
	IndexRange  = "ERR index out of range"
	SameObject  = "ERR source and destination objects are the same"
	DBRange     = "ERR DB index is out of range"
	OutOfRange  = "ERR value is out of range"
	NotPositive = "ERR value is out of range, must be positive"
	NumKeys     = "ERR numkeys should be greater than 0"
	Count       = "ERR count should be greater than 0"
	NegLimit    = "ERR LIMIT can't be negative"
	// TimeoutNotInt and TimeoutNegative are a blocking command's, WAIT's
	// or CLIENT PAUSE's timeout that is not a number, or below zero.
	TimeoutNotInt   = "ERR timeout is not an integer or out of range"
	TimeoutNegative = "ERR timeout is negative"
	// TimeoutRange: a BLOCK timeout whose deadline overflows.
	TimeoutRange = "ERR timeout is out of range"
	// NumKeysArgs: a numkeys argument (EVAL, SINTERCARD ...) past the
	// arguments there are.
	NumKeysArgs = "ERR Number of keys can't be greater than number of args"
	// BadPayload is RESTORE's (and FUNCTION RESTORE's) refusal of a
	// payload whose version or checksum is wrong.
	BadPayload = "ERR DUMP payload version or checksum are wrong"
	// NotBusy is SCRIPT KILL's and FUNCTION KILL's when nothing runs.
	NotBusy = "NOTBUSY No scripts in execution right now."
)

// Texts about the connection or the server's state.
const (
	NoAuth = "NOAUTH Authentication required."
	// Denied is what protected mode tells a client from another host
	// (Redis 7.0's text, one line).
	Denied = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set " +
		"for the default user. In this mode connections are only accepted from the loopback interface. If you want " +
		"to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable " +
		"protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting " +
		"to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from " +
		"internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just " +
		"disable the protected mode by editing the Redis configuration file, and setting the protected mode option " +
		"to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart " +
		"it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. " +
		"NOTE: You only need to do one of the above things in order for the server to start accepting connections " +
		"from the outside."
	OOM       = "OOM command not allowed when used memory > 'maxmemory'."
	Unblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
	// UnblockedRole ends a blocked command when its server becomes a
	// replica.
	UnblockedRole = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"
	// ReadOnly and MasterDown are a replica's refusals (replica-read-only,
	// replica-serve-stale-data no while the link to its primary is down).
	ReadOnly   = "READONLY You can't write against a read only replica."
	MasterDown = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	// NoReplicas is a primary's refusal of a write under
	// min-replicas-to-write.
	NoReplicas = "NOREPLICAS Not enough good replicas to write."
)

// Texts of MULTI/EXEC.
const (
	ExecAbort      = "EXECABORT Transaction discarded because of previous errors."
	ExecAbortWhy   = "EXECABORT Transaction discarded because of: " // the reason follows, without its '-'
	MultiNested    = "ERR MULTI calls can not be nested"
	ExecNoMulti    = "ERR EXEC without MULTI"
	DiscardNoMulti = "ERR DISCARD without MULTI"
	WatchInMulti   = "ERR WATCH inside MULTI is not allowed"
	NoMulti        = "ERR Command not allowed inside a transaction"
)

// WrongArgs is the arity error around a command's table name:
// WrongArgs + "get" + WrongArgsEnd.
const (
	WrongArgs    = "ERR wrong number of arguments for '"
	WrongArgsEnd = "' command"
)

// SubSyntax is Redis's addReplySubcommandSyntaxError: the error of a
// container command's (cmd's) subcommand sub with wrong arguments, sub as
// sent, as C's "%.128s" prints it.
func SubSyntax(cmd, sub []byte) string {
	if i := strings.IndexByte(string(sub), 0); i >= 0 {
		sub = sub[:i]
	}
	return "ERR unknown subcommand or wrong number of arguments for '" + string(sub[:min(len(sub), 128)]) +
		"'. Try " + strings.ToUpper(string(cmd)) + " HELP."
}

// NotAllowed is the refusal of a protected command (DEBUG, MODULE) under
// its enable-<cmd>-command no (or local, to a remote client); cmd in lower
// case.
func NotAllowed(cmd string) string {
	return "ERR " + strings.ToUpper(cmd) + " command not allowed. If the enable-" + cmd + "-command option is set to \"local\", " +
		"you can run it from a local connection, otherwise you need to set this option in the configuration " +
		"file, and then restart the server."
}

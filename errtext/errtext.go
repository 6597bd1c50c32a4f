package errtext

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
)

// Texts about the connection or the server's state.
const (
	NoAuth    = "NOAUTH Authentication required."
	OOM       = "OOM command not allowed when used memory > 'maxmemory'."
	Unblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
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

// UnknownSubOrArgs starts the error of a container command's unknown
// subcommand or wrong arity; the subcommand and "'. Try X HELP." follow.
const UnknownSubOrArgs = "ERR unknown subcommand or wrong number of arguments for '"

// Package command is the command table, declared once as data, and the
// handlers behind it.
//
// A Spec row says everything the server knows about a command: name, arity,
// flags, where its keys are (Redis 7 key specs), how per-shard replies merge
// and which Handler runs it. The router reads key positions from the rows and
// never switches on a command name; COMMAND prints the same rows. A row
// states only what cannot be derived: register derives the legacy
// first/last/step from the key specs, the ACL categories the flags imply,
// and AllShards and Merge from Redis's command tips, and panics on a row
// that states one of them as derived (table.go, register and fanOut).
//
// A row whose key specs cannot find its keys states GetKeys (Redis's
// getkeys procedure: SORT's STORE), and a row whose keys' values name
// more keys states Patterns and PatternKeys (SORT's BY and GET, sort.go),
// from which the router places it Held.
//
// CopyArgs is the one way to keep a command's arguments past the read
// buffer they alias.
//
// A row also states what a write leaves for its consumers (effect.go): its
// propagated form (Propagate, when that is not the command itself) and the
// keys it writes beyond its key specs (OtherDB, or Toucher calls), and its
// keyspace events (notify.go). The shard's mutation path reads them;
// handlers never report their writes.
//
// Handlers run on the shard that owns the command's keys, get a Ctx with that
// shard's engine.Store, and write exactly one reply with resp.Writer. They do
// no I/O and never block. Families live in one file each (string.go,
// keyspace.go, server.go, bitmap.go, hll.go, ...) with their rows beside
// their handlers. A HyperLogLog is a string to the engine: its
// representation, Redis's byte for byte, is hllcore.go's. The transaction
// rows (transaction.go: MULTI, EXEC, DISCARD, WATCH, UNWATCH) have no
// handler but UNWATCH's: their Tx role tells the shard to run them, and a
// row's Selects tells it the database a queued SELECT leads to.
// The ACL rows (acl.go) hand their subcommands to Server.ACL: the users
// are the server's (package acl), and AUTH and HELLO AUTH authenticate
// through Local.Authenticate; the permission check reads the rows' key
// specs (Spec.KeyFlagsOf: KeyFlags for SET and BITFIELD, whose flags
// depend on the arguments) and PubSubOf.
// CLIENT LIST and CLIENT INFO (connection.go) print every field Redis
// 7.0 prints; the shard fills a Client's buffer fields (ClientBufs) only
// when they ask, from the driver (ioloop.Driver.Buffers) and the
// connection. fd is the socket's descriptor; qbuf-free the room after
// the received bytes in the input buffer; argv-mem the argument bytes of
// the command the client is running (the caller's own CLIENT LIST, a
// command across shards in flight, a blocked command's), 0 between
// commands and for a command not yet whole in the input (Redis counts
// the arguments it parsed so far); multi-mem the queued MULTI commands'
// argument bytes plus 8 per argument, as Redis's argv_len_sums counts
// them. Radish has no static reply buffer and reply list: obl is the
// bytes appended to the driver's output buffer and not yet handed to
// the kernel, oll counts the pieces behind it (a send in flight,
// finished replies waiting behind one still being computed, replies held
// for the AOF's disk), and rbs and rbp are both the output buffer's
// capacity: it grows by doubling to hold its largest run of replies and
// is released after a large send, so its capacity is its peak.
//
// The EVAL and FCALL rows (script.go) are placed by the shard itself
// (Spec.Script), and their handler runs a script only inside a
// transaction, through Ctx.Scripts.
package command

package command

// The transactions family: MULTI, EXEC, DISCARD, WATCH, UNWATCH. What
// they do is the connection's shard's business (shard/multi.go: queueing,
// the watched keys' versions, running the queue as one txn across
// shards), so their rows say only what they are to it (Spec.Tx) and carry
// no handler, but UNWATCH's: queued inside MULTI, it answers +OK when
// EXEC runs it (EXEC forgets the watched keys anyway).

// TxRole is what a row is to MULTI (Spec.Tx).
type TxRole uint8

// Roles.
const (
	TxQueued  TxRole = iota // any other command: queued inside MULTI
	TxMulti                 // MULTI
	TxExec                  // EXEC
	TxDiscard               // DISCARD
	TxWatch                 // WATCH
	TxUnwatch               // UNWATCH: forgets the watched keys outside MULTI, queued inside
	TxReset                 // RESET: ends MULTI and forgets the watched keys, inside MULTI too
	TxQuit                  // QUIT: runs at once, inside MULTI too
)

func init() {
	tx := []string{"transaction"}
	flags := NoScript | Loading | Stale | Fast | AllowBusy
	register(
		&Spec{Name: "multi", Arity: 1, Flags: flags, ACL: tx, Tx: TxMulti,
			Summary: "Mark the start of a transaction block", Since: "1.2.0", Group: "transactions",
			Complexity: "O(1)"},
		&Spec{Name: "exec", Arity: 1, Flags: NoScript | Loading | Stale | SkipSlowlog, ACL: tx, Tx: TxExec,
			Summary: "Execute all commands issued after MULTI", Since: "1.2.0", Group: "transactions",
			Complexity: "Depends on commands in the transaction"},
		&Spec{Name: "discard", Arity: 1, Flags: flags, ACL: tx, Tx: TxDiscard,
			Summary: "Discard all commands issued after MULTI", Since: "2.0.0", Group: "transactions",
			Complexity: "O(N), when N is the number of queued commands"},
		&Spec{Name: "watch", Arity: -2, Flags: flags, ACL: tx, Tx: TxWatch,
			KeySpecs: []KeySpec{{Flags: KeyRO, Index: 1, LastKey: -1, Step: 1}},
			Summary:  "Watch the given keys to determine execution of the MULTI/EXEC block", Since: "2.2.0",
			Group: "transactions", Complexity: "O(1) for every key.",
			Args: []Arg{{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple}}},
		&Spec{Name: "unwatch", Arity: 1, Flags: flags, ACL: tx, Tx: TxUnwatch, Handler: cmdUnwatch,
			Summary: "Forget about all watched keys", Since: "2.2.0", Group: "transactions", Complexity: "O(1)"},
	)
}

func cmdUnwatch(c *Ctx, args [][]byte) { c.W.OK() }

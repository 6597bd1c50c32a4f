package shard

// message is what one shard hands another: a kind that names the step of
// the protocol it carries, and its contents, which the destination shard
// runs on its own goroutine: a typed value in a field of its own for the
// kinds of the common paths (a hop and its reply, a pooled payload that
// needs no allocation, hop.go; a batch of publishes, pubsub.go; a txn's
// lock request and its answer, lockmsg.go; a locked txn's part-runs, an
// EXEC's, a refused txn's unlocks, the gather plan's exports and
// write-backs and WATCH's registrations, partmsg.go; a SCAN step is a
// hop), else data: a typed payload (listed at payload) or, for what a
// goroutine outside the loops hands a shard (doc.go), a runMsg. The kind
// is what a simulator (or a trace) sees: it can hold, drop or reorder
// deliveries by kind and destination, and read a typed one's fields.
// Seven words: the common kinds' own fields and one interface for the
// rest keep a message inside a cache line.
type message struct {
	kind msgKind
	hop  *hopMsg   // msgHop, msgHopReply of a single-shard command or a SCAN step
	pub  *pubBatch // msgPublish, msgPublished (pubsub.go)
	lock *lockMsg  // a txn's lock request or its answer (lockmsg.go)
	part *partMsg  // a locked txn's step on one part and its answer (partmsg.go)
	data payload   // every other kind's contents
}

// payload is the contents of a message of the kinds without a field of
// their own, each a value a test can read: the blocking protocol's
// claimMsg and waitMsg (claimmsg.go, waitmsg.go); psQuery, a PUBSUB
// introspection part or a script's receiver count, and ssubMsg, a
// sharded channel's subscriber count (pubsub.go); invBatch, a turn's
// tracking invalidations, and bcastMsg, a BCAST client's prefixes
// (tracking.go); exportMsg, a held command's or script's copies of keys
// and a copy-run command's preparation of the real ones (exportmsg.go);
// scriptMsg, a direct script run (script.go); cutMsg, an AOF or
// replication cut's step (aofrw.go); saveMsg, a save's part, and
// holdMsg, a step run with every shard held (DEBUG RELOAD, a full sync's
// load: snapshot.go); slowMsg, monitorMsg, unblockMsg,
// migrateMsg, adoptMsg, resetStats, a replica's output (*replica), a
// pipe's input (*pipe) and its close (pipeClose, pipeGone: pipe.go);
// and runMsg. Its request and its answer are mostly one value, which
// each side fills in turn. handle runs it on the destination as a message
// of kind k.
type payload interface {
	handle(s *Shard, k msgKind)
}

// runMsg is a closure as a message's contents: only what is handed to a
// shard with deliver by a goroutine outside the loops or a callback that
// does not know which loop calls it (doc.go says which and why).
type runMsg func(s *Shard)

func (f runMsg) handle(s *Shard, _ msgKind) { f(s) }

// msgKind names a step of the protocols between shards.
type msgKind uint8

const (
	msgHop           msgKind = iota + 1 // a command for the shard owning its keys (also SCAN)
	msgHopReply                         // its reply, back to the connection's shard
	msgTryLock                          // a txn's first round: take its keys on one shard if they are free
	msgTried                            // whether they were taken
	msgLock                             // a txn asks for its keys on one shard, waiting for them
	msgLockGranted                      // the keys are held
	msgPartRun                          // run a txn's part (or a fan-out's) and unlock
	msgGather                           // export a txn's keys for the gather plan
	msgGathered                         // the keys' values, back home
	msgWriteBack                        // write the gathered result back and unlock
	msgWrittenBack                      // the write-back is done
	msgUnlock                           // release a refused txn's keys
	msgPartDone                         // a part-run, unlock or exec finished
	msgPark                             // register a blocked client's waiter on a holder
	msgUnpark                           // forget a waiter
	msgUnparked                         // the waiter is forgotten: home may answer the timeout
	msgClaim                            // a holder asks home whether its waiter's client still waits
	msgClaimAnswer                      // home's answer
	msgServed                           // a holder served a blocked client: home answers it
	msgUnclaim                          // a holder could not serve after all: the client waits on
	msgMove                             // home runs a blocked BLMOVE across shards as a txn
	msgRetry                            // a claim on a blocked client was released: its waiters look again
	msgUnblock                          // CLIENT UNBLOCK, in the shard's next turn
	msgStats                            // CONFIG RESETSTAT
	msgPublish                          // a turn's publishes for the shard's subscribers (pubsub.go)
	msgPublished                        // the batch back, with the receivers counted
	msgSSub                             // a shard's client subscribed to a sharded channel the destination owns
	msgSSubAck                          // the owner counted it
	msgSUnsub                           // a shard's client left a sharded channel
	msgPSQuery                          // a PUBSUB introspection command's part
	msgPSAnswer                         // its answer
	msgWatch                            // WATCH registers keys on their shard and asks their versions
	msgWatched                          // the versions, back to the connection's shard
	msgUnwatch                          // forget watched keys
	msgExec                             // run an EXEC whose keys all live on the destination, alone
	msgAdopt                            // a connection accepted on the Unix socket, for the shard (unix.go)
	msgSave                             // write the shard's snapshot file (SAVE, BGSAVE), or detach its AOF
	msgSaved                            // a shard started its BGSAVE part, or a save is over: its client is answered
	msgInvalidate                       // a turn's tracking invalidations for the destination's clients (tracking.go)
	msgInvalidated                      // the batch back to its sender
	msgTrackPrefixes                    // a BCAST client's prefixes, for every shard
	msgScript                           // run a script on the shard of its keys (script.go)
	msgScriptDone                       // its reply, or the key it could not use, back home
	msgExport                           // copy keys out of a shard a held command or script holds (exportmsg.go)
	msgExported                         // the copies, back home
	msgPrepare                          // a command a script ran on copies prepares its real keys (BeforeGather)
	msgSlow                             // a slow command's entry, for its client's shard's slow log
	msgRepl                             // replication: a role change, a full sync's load, a REPLICAOF's reply, a replica's output (repl.go)
	msgMonitor                          // a turn's MONITOR lines, for the destination's monitors
	msgMigrate                          // a connection handed over to the destination (migrate.go)
	msgCut                              // cut the shard's AOF or replication feed, holding every shard (aofrw.go)
	msgCutDone                          // the cut is done
	msgHold                             // holdAll: run a step on the shard held with every other (DEBUG RELOAD, a full sync's load)
	msgHeld                             // the shard ran it
	msgPipe                             // a pipe's commands, or its close (pipe.go)
	numMsgKinds
)

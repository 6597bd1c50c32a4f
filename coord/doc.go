// Package coord is the coordination of work that spans shards: the key
// locks each shard keeps and the protocol by which a transaction (a
// multi-key command whose keys live on several shards, or MULTI/EXEC's
// queue of commands; later scripts) takes them. It is pure: no goroutines, no I/O, no clock.
// The shard loop owns one Table and carries the protocol's messages.
//
// Nouns:
//   - intent: how work uses a key, Shared (reads it) or Exclusive (may
//     write it), from the command table's key specs.
//   - Table: one shard's locks (a key is held by one exclusive transaction
//     or by any number of shared ones; or every key by one transaction,
//     LockAll) and its queue of waiting work, in arrival order: VLL's
//     per-shard intent queue.
//   - item: work waiting in a queue: a command on a held key, or a
//     transaction's lock request.
//   - Txn: one transaction's lock taking, a state machine the home shard
//     drives: it returns the Steps to carry out (messages to send) and is
//     told each answer. It sends nothing itself, so the protocol is tested
//     here with many transactions, Tables and delivery orders (txn_test.go).
//     It holds the transaction's commands too (Cmd: the parts each runs
//     on), cut into Rounds: a MULTI's commands on one shard each run
//     together, every shard its share in order; one on several shards
//     alone.
//
// The protocol. A transaction's home shard (the client's) splits it into
// per-shard parts, each with its keys and intents, and
//
//  1. sends every part's lock request at once (TryLock): a shard grants it
//     when the keys are free now and refuses it otherwise, never queueing
//     it. If every shard granted, the parts run, each shard releasing its
//     keys as its part finishes: one round trip, however many shards.
//  2. Otherwise it releases what was granted and takes the locks shard by
//     shard in ascending shard order (Lock), each request queueing behind
//     the work before it, then runs the parts.
//
// Why it cannot deadlock: a transaction that waits (phase 2) holds locks
// only on shards below the one it waits on, so a cycle of waiting
// transactions would need one to wait on a lower shard than one it holds;
// a transaction in phase 1 never waits, so it is in no cycle, and it
// keeps its locks only until its home has every answer. Phase 1 fails at
// most once per transaction, so nothing starves.
//
// What stays true:
//   - conflicting holders never coexist (two Exclusive, or Exclusive and
//     Shared, on one key);
//   - work on one key runs in the order it reached the shard, except that
//     readers holding a key together do not wait for each other;
//   - every queued item runs once the locks before it are released, even
//     when an item's Run queues, locks or unlocks (Table.wake).
package coord

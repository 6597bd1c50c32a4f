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
// per-shard parts, each with its keys and intents, in ascending shard
// order, and
//
//  1. sends every part's request at once: part 0's queues (LockFirst: its
//     shard grants it now, or queues it and says so at once, and grants it
//     later, answering again), every other one only tries (TryLock: its
//     shard grants it when the keys are free now and refuses it
//     otherwise, never queueing it). If every shard granted, the parts
//     run: one round trip, however many shards.
//  2. Otherwise, once every first answer is in, it keeps the parts held
//     before the first one not granted, releases those granted after it,
//     and takes the rest shard by shard in ascending order (Lock), each
//     request queueing behind the work before it (part 0's is queued
//     already), then runs the parts.
//
// Once every key is held the parts run, and each part releases its keys as
// it finishes its last commands (two-phase locking: no lock is taken after
// the first is released), so no key stays held for the replies of other
// shards. A MULTI's part used last by a command on several parts is
// released at the end (Txn.LastRounds).
//
// Why it cannot deadlock: a transaction waits only (a) in phase 2, holding
// locks only on shards below the one it waits on, or (b) with part 0
// queued in phase 1, holding nothing below shard 0's part and, above it,
// only what phase 1's tries granted, which it releases once every first
// answer is in, and those come without waiting. A cycle of waiting
// transactions would need one to wait on a lower shard than one it holds
// for good. Nothing starves: phase 1 fails at most once per transaction,
// and every queue is served in arrival order.
//
// Why not VLL's sequence numbers: VLL orders every transaction's requests
// by one global sequence so that each shard can queue them in that order
// without deadlock; here the order comes from the shards' own order
// instead, which needs no sequencer shared by every shard (no cross-core
// counter on each transaction) and no batching epoch (no added latency).
// It keeps what the sequence numbers give: independent transactions run
// in parallel (shared locks for readers; per-key queues, not one per
// shard), an uncontended transaction takes its locks in one parallel
// round, and a contended one queues on its first shard at once. What it
// costs: under contention on several shards the later parts are taken one
// hop each, in order.
//
// What stays true:
//   - conflicting holders never coexist (two Exclusive, or Exclusive and
//     Shared, on one key);
//   - work on one key runs in the order it reached the shard, except that
//     readers holding a key together do not wait for each other;
//   - every queued item runs once the locks before it are released, even
//     when an item's Run queues, locks or unlocks (Table.wake).
package coord

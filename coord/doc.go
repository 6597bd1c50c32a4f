// Package coord is the coordination of work that spans shards: the key
// locks each shard keeps, the protocol by which a transaction (a
// multi-key command whose keys live on several shards, or MULTI/EXEC's
// queue of commands; later scripts) takes them, the gather plan by which
// a locked transaction's command runs at home on copies of its keys, and
// the claim protocol by which the shards holding a blocked client's keys
// serve it. It is pure: no goroutines, no I/O, no clock. The shard loop
// owns one Table, a Txn and its Gather per transaction and a Wait per
// blocked client, and carries the protocols' messages.
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
//   - Gather: one locked transaction's gather plan, a state machine home
//     asks and tells as Txn is: which keys each part's shard exports,
//     from which database (Read), when the command runs (every export
//     in), which keys go back to each part (those it may write and
//     changed, once each), and when it is over (gather_test.go).
//   - Wait: one blocked client's state on its home shard in the claim
//     protocol below, a state machine home asks and tells as Txn is
//     (wait_test.go runs it against holders in many delivery orders).
//   - Waiting: one blocked client's waiter on a holder shard, a state
//     machine the holder asks: what to do with it when it stands first
//     on a key that may have data (pass, claim, or at the client's home
//     drop, stand or serve), and when home answers its claim (move,
//     forget, keep or pop). The holders of wait_test.go's model decide
//     with it.
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
// The gather plan. A command whose keys span shards and whose reply is
// not a merge of per-part replies (RENAME, SMOVE, ZUNIONSTORE, COPY ...)
// runs, once its Txn holds every key, as
//
//  1. every part's shard exports its keys (Gather.Reads: each from the
//     client's database, or one the command writes from the database it
//     names, COPY ... DB n), in one message each, all at once;
//  2. once every export is in (Gather.Exported), home runs the command's
//     own handler on copies of them;
//  3. home sends each part's shard the keys the command may write and
//     changed (Gather.Writes: a key named twice once, a read that changed
//     only its copy, PFCOUNT's cache, not at all), and that shard writes
//     them and releases the part;
//  4. once every write-back is done (Gather.WroteBack), home answers.
//
// Why it cannot deadlock: it runs while its Txn holds every key, so it
// waits for nothing but the answers, which each part's shard gives at once
// without taking a lock. Each part's keys are released as its write-back
// is done (two-phase locking: every key was held before the first is
// released).
//
// The claim protocol of blocking commands (BLPOP, BLMOVE, XREAD BLOCK
// ...). A blocked client's home shard parks a waiter on each shard that
// owns a key it waits on (a holder). A write that may have filled a key
// has its holder look at the key's first waiter (Waiting.Look): when the
// client's home is another shard, the holder takes the command's keys on
// its own shard (Table.Lock, so no transaction holds them half-written)
// and asks home to claim the client (Wait.Claim); the waiter passes every
// later look until home answers (Waiting.Answered). Home grants one claim at a time: the
// holder pops and home answers the client, or the holder finds nothing
// left and releases the claim (Wait.Release). A claim that finds another
// in flight is refused, and its holder keeps its waiter first in line;
// when the granted claim is released without serving, home has every
// holder look again (retry), since a key may have had data for the
// client meanwhile. A deadline or CLIENT UNBLOCK ends the wait (Wait.End)
// only while no claim holds it, withdraws every waiter behind its park,
// and answers once every holder has withdrawn (Wait.Withdrawn): a holder
// that served the client first wins, so a popped element is never lost.
// A BLMOVE whose destination lives on another shard than its source runs
// at home as a transaction once its claim is granted.
//
// Why it cannot deadlock: a holder's claim holds locks on one shard only,
// its own, while it waits for home's answer, and home answers at once,
// from its Wait, without taking any lock or waiting on any shard; so no
// holder waits for a shard that waits for it. A BLMOVE across shards is
// a transaction, with the transaction protocol's order. Nothing is lost:
// a refused claim leaves its waiter in place, and the release of the
// claim that refused it makes every holder look again.
//
// What stays true:
//   - conflicting holders never coexist (two Exclusive, or Exclusive and
//     Shared, on one key);
//   - work on one key runs in the order it reached the shard, except that
//     readers holding a key together do not wait for each other;
//   - every queued item runs once the locks before it are released, even
//     when an item's Run queues, locks or unlocks (Table.wake).
package coord

// Package shard runs the loop of one shard and wires the shards of a
// process together.
//
// A Shard is one locked OS thread that owns an ioloop.Driver (its ring), an
// engine.Store (its part of the keyspace) and the connections it accepted.
// One loop iteration: the driver submits everything queued and waits;
// completions come back as OnData/OnOpen/OnClose calls, whose commands are
// parsed and run at once when their keys are local, or sent to the owning
// shard as messages; then Turn(now) drains the inbox (requests from other
// shards, replies to ours), times out blocked clients and runs the cron;
// then flushOutbox hands every message produced in the turn to its shard,
// one batch per destination. Turn reads no clock: the loop passes it the
// time, and OnOpen/OnData read the group's clock, so the tests' simulator
// (sim_test.go) drives shards, deliveries and time from a seed.
//
// Nouns:
//   - message: a value with a kind (hop, lock, gather, park, claim ...: see
//     msg.go) and a closure that runs on the destination shard's goroutine.
//     It is the only way one shard affects another; a shard never writes
//     another shard's memory, and reads only what no one changes after the
//     message was sent (a txn's args and parts).
//   - slot: a place in a connection's reply queue. Replies leave a connection
//     in request order: a command whose reply is not ready (it ran elsewhere)
//     holds back the replies behind it.
//   - txn: a command whose keys span shards. It locks its keys shard by
//     shard in ascending shard order, runs its parts, then unlocks; commands
//     on locked keys wait in the shard's deferred queue (VLL-style intents),
//     so no client observes half of one, and no global lock exists. A
//     command on every shard (DBSIZE, FLUSHDB, SWAPDB ...) waits, on each
//     shard, behind every lock and deferred command there.
//
// What must stay true:
//   - a key is only ever read or written by the shard ShardOf(key) names;
//   - per shard, commands on one key run in the order they reached the shard;
//   - a connection's replies leave in the order its commands arrived;
//   - what a blocking command pops reaches its client: a wait ends at home
//     (deadline, CLIENT UNBLOCK) only once every holder has withdrawn its
//     waiter, and a waiter is served only while no txn holds a key of its
//     command (see block.go).
package shard

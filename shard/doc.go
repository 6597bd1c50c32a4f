// Package shard runs the loop of one shard and wires the shards of a
// process together.
//
// A Shard is one locked OS thread that owns an ioloop.Driver (its ring), an
// engine.Store (its part of the keyspace) and the connections it accepted.
// One loop turn: the driver submits everything queued and waits; completions
// come back as OnData/OnOpen/OnClose calls, whose commands are parsed and
// placed by the router (router.Planner: here, a hop, a txn, every shard, a
// SCAN step); the shard only carries the placement out: it runs the command
// at once when it is local, or sends it to the owning shards as messages;
// then the inbox is drained (requests from other shards, replies to ours) and
// every message produced in the turn is handed to its shard in one batch.
//
// Nouns:
//   - message: a closure that runs on the destination shard's goroutine. It is
//     the only way one shard affects another; a shard never reads or writes
//     another shard's memory.
//   - slot: a place in a connection's reply queue. Replies leave a connection
//     in request order: a command whose reply is not ready (it ran elsewhere)
//     holds back the replies behind it.
//   - mutation path: the few functions (effects.go) every change to a key
//     passes through: a command whose handler changed data (the engine's
//     Dirty count moved), an expiry, an eviction, a cross-shard write-back.
//     Each counts the change, bumps the key's version if it is watched,
//     wakes the clients blocked on it and appends an effect.
//   - effect: a write in the form it must be replayed (command.Effects),
//     handed in order to Options.Effects at the end of the turn, before
//     any reply of the turn leaves.
//   - txn: a command whose keys span shards. It takes its keys on every
//     shard with coord's protocol (one parallel try round; if a shard
//     refuses, shard by shard in ascending order), runs its parts, then
//     unlocks; keys it only reads are held shared. Work on locked keys
//     waits in the shard's coord.Table queue (VLL-style intents), so no
//     client observes half of one, and no global lock exists. Each message
//     carries what its shard needs; only the home shard reads the txn.
//   - configuration: Options holds what cannot change after start (shards,
//     io, addresses, databases, the effect sink). Every other setting is
//     read from the Config's Snapshot, which a shard takes at start and,
//     when it changed, at the next loop turn (applyConfig): a CONFIG SET
//     applies from then on, with no lock on the command path. tcp-keepalive
//     is read at each accept; timeout is checked by the cron (closeIdle).
//
// What must stay true:
//   - a key is only ever read or written by the shard ShardOf(key) names;
//   - per shard, commands on one key run in the order they reached the shard;
//   - a connection's replies leave in the order its commands arrived;
//   - no key changes outside the mutation path, so a shard's effects,
//     replayed in order on an empty shard, rebuild its data.
package shard

// Package router decides where a command runs: where its keys live, and,
// when they live on several shards, how the command is cut into parts and
// how the parts' replies become the client's reply. It is pure: no
// goroutines, no I/O, no clock; the shard loop calls it and carries out
// what it decided, moving the bytes.
//
// Nouns:
//   - placement: where one command runs (Planner.Plan): on the client's
//     shard (Local; Owned when its keys are there, which a txn may hold), on
//     the one other shard that owns all its keys (Hop), as a txn over parts
//     on several shards (Parts), on every shard (All), or as a SCAN step on
//     the shard its cursor names (Scan, ScanEnd), or holding every shard
//     when its keys' values name the keys it reads (Held: SORT's BY and
//     GET patterns). It is computed from the row's data only: AllShards,
//     Route, Patterns, the key specs (Spec.Keys).
//   - tag: the part of a key that is hashed (Tag). The bytes inside the first
//     "{...}" when that is non-empty (Redis Cluster hash-tag rules), else the
//     whole key. Keys with the same tag always share a shard, so users can
//     co-locate keys on purpose ("{user1}:name", "{user1}:mail").
//   - shard: ShardOf(key, n) = xxhash64(tag) % n.
//   - part: one per-shard sub-command built by Splitter.Split: the
//     arguments before the first key (with a key count rewritten for keynum
//     commands), the keys of that shard each with the arguments that travel
//     with it (MSET's value, XREAD's id), then the arguments after the keys.
//   - merge: combining the parts' raw RESP replies into the client's reply
//     (Merger.Merge), driven by the row's command.Merge kind.
//   - cursor: a SCAN cursor across shards: the shard index in the top byte,
//     that shard's own cursor in the low 56 bits (PackCursor, NextCursor);
//     the shard's reply gets the client's cursor back (RewriteCursor).
//
// What stays true:
//   - A key has one shard: ShardOf depends on the key's tag and n only.
//   - Parts keep argument order: within a part keys (and their companions)
//     appear in the order the client sent them; parts are ordered by shard
//     index, and Part.Pos gives each key's rank among all keys so merges
//     can restore the client's order (MGET).
//   - A command whose keys are all on one shard is never rewritten: Split
//     returns one part whose Args are the client's args, and Plan places
//     it Owned or Hop, never Parts.
//   - A malformed multi-key command (MSET with a key and no value) is never
//     split: Plan places it Local, where its handler refuses it whole.
//   - Plan does not allocate (its key positions live in the Planner), and
//     with one shard it is a few comparisons, inlined into the caller.
//   - The router never switches on a command name; key positions come from
//     the row's key specs (command.Spec.KeyRanges).
package router

// Package track holds one shard's client-side caching state (CLIENT
// TRACKING): which clients read which of the shard's keys, and which
// clients asked for every change under a prefix (BCAST). It is pure data:
// no I/O, no goroutines, no messages; the shard loop (shard/tracking.go)
// fills it on reads, asks it on writes, and carries the invalidations to
// the shards that own the clients' connections.
//
// Nouns:
//   - Reader: a client that read a key, by its ID and the shard that owns
//     its connection (its home). The table never holds a connection: a
//     client is reached through its home shard, which alone knows whether
//     it still tracks.
//   - Table: the default mode's keys. A key is remembered with its readers
//     when a tracking client reads it, and forgotten, readers and all, when
//     it changes (Take): Redis's semantics, where an invalidation is sent
//     once and the client must read again to hear of the next change. Keys
//     are names without a database, as in Redis: a write to k in any
//     database invalidates every reader of k.
//   - Evict: the key a table over tracking-table-max-keys gives up.
//
// BCAST prefixes, which every shard keeps a copy of, live with the shard
// (shard/tracking.go).
//
// What must stay true:
//   - a (key, reader) pair is held at most once: Items counts pairs, Len
//     keys (INFO's tracking_total_items and tracking_total_keys);
//   - Remember of a key already held by that reader allocates nothing, and
//     a key's entry (and its reader slice) is reused after Take;
//   - the readers Take and Evict return are valid until the next call on
//     the Table.
package track

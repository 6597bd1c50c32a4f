// Package persistence is the parent of what keeps Radish's data on disk;
// its own code is the two file steps its children share: a file written
// and fsynced (WriteFileSync) and a directory fsynced (SyncDir).
//
//   - rdb: the one encoding of a key's value in Redis's RDB format and back
//     (DUMP/RESTORE payloads, and every file below).
//   - snapshot: one RDB file per shard plus a manifest (SAVE, BGSAVE, the
//     save points, the load at start-up); its Writer also writes the AOF's
//     base file.
//   - aof: each shard's append-only file of effects.
//   - repl: replication's protocol (PSYNC): a replica's link to its
//     primary, whose full sync loads through snapshot's loader.
//
// Every shard writes and loads its own part, on its own thread, with no
// global lock and no fork; a file is renamed into place only once it is
// complete and durable, and the file naming the others (a manifest) goes
// last, so a crash at any point leaves the previous state loadable.
package persistence

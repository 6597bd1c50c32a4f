// Package snapshot writes a shard's keyspace as an RDB file (Redis's
// format, version 10, so each file loads into redis-server on its own)
// and loads RDB files into a shard, and lays out a snapshot on disk: one
// file per shard and a manifest naming them.
//
// # Nouns
//
//   - Writer: one store's keyspace as an RDB stream to an io.Writer: the
//     magic "REDIS0010", aux fields (redis-ver, redis-bits, ctime, used-mem,
//     aof-base), the FUNCTION libraries given (Options.Functions, one
//     RDB_OPCODE_FUNCTION2 record each), then per database holding keys
//     SELECTDB, RESIZEDB and its keys in key order (expiry in ms, the LRU
//     idle time or LFU counter under such a policy, type, key, value),
//     then EOF and the CRC64
//     (zero with rdbchecksum no). WriteAll writes it at once; Step writes
//     a bounded number of keys per call (and about 32 KiB of keys and
//     values at most, in one walk of the tree), so a shard can write between
//     loop turns. The AOF's base file is a Writer's stream with AOFBase.
//   - Before: while a Writer steps, the caller calls Before ahead of every
//     change to a key (a command's write keys, a cross-shard write-back,
//     an eviction through engine.Store.BeforeEvict); a key the walk has
//     not reached yet is written then, with its old value (an absent key
//     is only remembered), and the walk skips it. So the file is the
//     keyspace at the first step (BGSAVE without fork and without a copy)
//     at the cost of remembering the names of the keys changed ahead of
//     the walk. A key whose TTL passes during the save may be left out:
//     any load after that drops it anyway.
//   - LoadRDB: one file image into a store: the keys its Owns accepts
//     (the router's hash, so a snapshot of N shards loads into M), minus
//     those whose TTL passed; the other keys' values are skipped, not
//     decoded (rdb.Reader.SkipObject), so across the shards each value is
//     decoded once. Versions 1 to 12 are read (rdb.MaxVersion). The
//     FUNCTION libraries' codes go to LoadOptions.Function.
//   - Manifest: <dir>/<dbfilename>: the magic line, the generation, the
//     shard count, one line per shard (in shard order) naming its file and
//     size, and "end" (see Manifest.Marshal). If <dbfilename> starts with
//     "REDIS" instead, it is a plain RDB file (a redis-server dump.rdb) and
//     loads the same way, into every shard.
//   - Source: what a start-up loads: the mapped (mmap) files of the
//     manifest, or the plain file.
//   - Save: one generation being written. Per-shard files are
//     <dbfilename>.<generation>.<shard>.rdb; the generation is one more
//     than the manifest's in place.
//
// A manifest:
//
//	RADISH-SNAPSHOT 1
//	generation 7
//	shards 2
//	file dump.rdb.7.0.rdb 1234
//	file dump.rdb.7.1.rdb 1187
//	end
//
// # The order of a save, and what a crash at each step leaves
//
//  1. Each shard writes <name>.<g>.<i>.rdb.tmp, fsyncs it and renames it
//     to <name>.<g>.<i>.rdb (Save.Create, Save.Close). A crash here
//     leaves temporary or complete files of generation g that no manifest
//     names: the manifest in place still names generation g-1's files,
//     which are untouched; the next successful save removes the strays.
//  2. Once every shard's file is complete, the manifest is written to
//     <name>.<g>.manifest.tmp, fsynced, renamed to <name>, and the
//     directory is fsynced (Save.Commit). The rename is the commit point:
//     a crash before it leaves generation g-1, after it generation g; both
//     are whole, since g-1's files are still there.
//  3. Then every file of the snapshot's naming that the new manifest does
//     not name is removed: g-1's files, strays of crashed saves. A crash
//     here leaves files the next save removes.
//
// A failed save (a write or fsync error, a full disk) removes what it
// wrote and changes nothing else.
//
// # What it never does
//
// It never replaces a file that is not complete and fsynced, never
// removes a file the manifest in place names, and never lets a load
// succeed on part of a file: a bad magic, version, length, encoding,
// database number or checksum is a CorruptError naming the file and the
// offset, and the caller (the server) refuses to start. It touches no
// file but <dbfilename> and those of its naming (above). The Writer and
// the loader read and change only the store they are given, on the
// caller's goroutine; the Writer changes nothing in it (no access clock,
// no lazy expiry).
//
// # What must stay true
//
//   - LoadRDB of a Writer's output into an empty store gives back every
//     key live at the time it was written, with its value, expiry and
//     (under LRU/LFU) access clock.
//   - Each per-shard file is a valid RDB file on its own (redis-server
//     loads it).
//   - A key is stored only by the shard Owns names.
package snapshot

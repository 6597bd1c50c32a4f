// Package aof is Radish's append-only file: every shard logs its own
// writes, in Redis 7's multi-part layout, and loads them at start.
//
// # Layout
//
// Under <dir>/<appenddirname>, for shard i of N (name is appendfilename):
//
//	<name>.<i>.<seq>.base.rdb   the base: an RDB file (until the snapshot
//	                            writer exists, one holding no keys, which
//	                            is what Redis 7 writes for an empty dataset)
//	<name>.<i>.<seq>.incr.aof   incremental files: RESP commands
//	<name>.<i>.manifest         the manifest, Redis 7's lines:
//	                            "file <name> seq <n> type <b|h|i>"
//
// The shard number in every name keeps the shards' files apart. A shard's
// files load only into the same shard (its keys are the keys the router
// gives it), so a directory with the manifests of another shard count is
// refused at start with the count to use; nothing reroutes keys.
//
// # Nouns
//
//   - Set: every shard's manifests and, once started, their Logs.
//   - Log: a shard's open incremental file and its writer goroutine. The
//     shard encodes each turn's effects (command.Effects) into one buffer
//     and submits it once; the writer takes all that was submitted in one
//     write, then fsyncs as appendfsync says (always: after every write;
//     everysec: about once a second; no: never). Positions (byte counts
//     since the Log opened) say how far the disk is: Durable.
//   - Marker: a command only the loader reads. RADISH.EPOCH <ns> starts
//     what one process wrote (its start time, the same in every shard's
//     log); RADISH.PART <txn> <part> <parts> <n> says the n commands that
//     follow are part <part> of <parts> of cross-shard transaction <txn>
//     of that epoch.
//
// # Load
//
// Two passes, each over every shard in parallel. The first maps each
// shard's files (mmap), checks the base, checks that each incremental
// file is a sequence of whole commands, and collects the transaction
// parts it holds whole. A transaction is complete when the logs hold all
// its parts. The second replays each shard's commands through its
// command handlers, skipping the parts of incomplete transactions, so a
// crash never leaves half of a multi-shard MSET. A torn tail (the last
// incremental file ending inside a command, a part or a MULTI ... EXEC
// block, how an EXEC's effects are logged) is cut at the start of that
// command, part or MULTI with aof-load-truncated yes and logged, and
// refused with the file and offset with no; anything else malformed,
// anywhere, refuses the start with the file and offset. A shard's keys
// expire only after the load (the log holds absolute times).
//
// # Creation, and what a crash leaves
//
// With no manifest in the directory, Open writes, per shard: the base
// (written and fsynced), an empty incremental file, then the manifest as
// temp-<name>.<i>.manifest, fsynced and renamed into place; then it
// fsyncs the directory. A crash before a shard's rename leaves files no
// manifest names: the next start finds no manifest (or too few, which it
// refuses, naming the count) and writes them again. After the renames,
// every file a manifest names exists.
//
// # What it never does
//
// It never blocks a shard's loop on the disk: Submit takes a lock held
// only to swap buffers, and a failing write or fsync is retried by the
// writer every 100 ms while its reason shows in Err (the shards then
// refuse writes with MISCONF). A write that fails half way is taken back
// (ftruncate), so the file never ends in half a command it will later
// repeat.
//
// # What must stay true
//
//   - Replaying a shard's files on an empty shard rebuilds its data, but
//     for the parts of transactions some other log lacks.
//   - Durable never passes what is on disk as the policy requires.
//   - The commands of one part are adjacent in a log, after its marker.
package aof

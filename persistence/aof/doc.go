// Package aof is Radish's append-only file: every shard logs its own
// writes, in Redis 7's multi-part layout, and loads them at start.
//
// # Layout
//
// Under <dir>/<appenddirname>, for shard i of N (name is appendfilename):
//
//	<name>.<i>.<seq>.base.rdb   the base: an RDB file (empty when the AOF
//	                            was created; a rewrite's holds the shard's
//	                            keyspace at its cut, written by the
//	                            snapshot Writer)
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
//     and submits it once, as a chunk (no copy: it takes an emptied
//     buffer back); the writer takes every chunk submitted and writes them
//     with one writev, then fsyncs as appendfsync says (always: after
//     every write, by a syncer goroutine while the writer goes on, one
//     fsync in flight, and what comes while it runs goes in one write and
//     one fsync (syncers.go); everysec: about once a second; no: never).
//     Under always, where the shard's driver runs fdatasyncs off its
//     thread (io_uring), the loop writes each turn itself and asks its
//     ring for the fdatasync, one in flight, the writer parked
//     (direct.go): no thread of ours between a write and its reply. The
//     writer takes the file back at a rewrite's rotation, a failed write
//     or fdatasync, another policy or the loop's end, and fdatasyncs what
//     the loop wrote before it writes. Under
//     everysec and no it writes at most once in 10 ms (writeEvery):
//     while turns come faster it sleeps that long after each write and
//     takes what came, so a busy loop never wakes it; slower turns wake
//     it, one wake per write. A kill -9 loses at most about the last
//     10 ms of writes (the disk's second under everysec). Positions (byte counts since the Log opened) say how far
//     the disk is: Durable. Logged, Writes and the fsync count say how
//     many commands a write and an fsync covered (INFO).
//   - Marker: a command only the loader reads. RADISH.EPOCH <ns> starts
//     what one process wrote (its start time, the same in every shard's
//     log); RADISH.PART <txn> <part> <parts> <n> says the n commands that
//     follow are part <part> of <parts> of cross-shard transaction <txn>
//     of that epoch; RADISH.CUT <id> ends a shard's log at a rewrite's cut
//     and RADISH.BASE <id> starts the file that follows it (see Rewrite).
//   - Rewrite, Part: one BGREWRITEAOF over every shard, and one shard's
//     share of it.
//
// # Load
//
// Two passes, each over every shard in parallel. The first maps each
// shard's files (mmap), checks that each incremental file is a sequence
// of whole commands, and collects the transaction parts it holds whole
// and its cuts. A transaction is complete when the logs hold all its
// parts (or a rewrite's base covers the rest, see Rewrite). The second
// loads each shard's base (the caller's BaseLoader: the snapshot loader,
// keeping every key whatever its TTL) and replays its commands through
// its command handlers, skipping the parts of incomplete transactions,
// so a crash never leaves half of a multi-shard MSET. A torn tail (the last
// incremental file ending inside a command, a part or a MULTI ... EXEC
// block, how an EXEC's effects are logged) is cut at the start of that
// command, part or MULTI with aof-load-truncated yes and logged, and
// refused with the file and offset with no; anything else malformed,
// anywhere, refuses the start with the file and offset. A shard's keys
// expire only after the load (the log holds absolute times).
//
// # Rewrite (BGREWRITEAOF, fork-less)
//
// A rewrite replaces each shard's base and incremental files by a new
// base, the shard's keyspace at the rewrite's cut, and the incremental
// file the shard's Log wrote from the cut on. Its id is a unix time in
// ns, above every earlier one.
//
//  1. The cut: one transaction holds every key of every shard at once
//     (the shard package runs it with coord's LockAll on every shard),
//     and each shard, in it, appends RADISH.CUT <id> to its log and moves
//     its Log to a new incremental file that starts with RADISH.EPOCH and
//     RADISH.BASE <id> (Rewrite.Cut, Log.Rotate). Holding every shard at
//     once, the cut falls between the same transactions everywhere: a
//     cross-shard one ran before it on every shard or after it on every
//     shard. The shard then writes its new base with the snapshot Writer,
//     stepped between its loop turns with copy-before-write (no fork, no
//     second encoder), into temp-<base name>.
//  2. The Log's writer makes the old file durable up to the cut, creates
//     the new incremental file holding only RADISH.EPOCH and RADISH.BASE
//     <id>, fsynced, and puts in place the manifest that adds it (old
//     base, old incremental files, new one), before it writes a command
//     to the new file: Redis 7's order. So the BASE is on disk before
//     any shard's step 3, even on a shard that logs nothing after its
//     cut.
//  3. Install, once the shard's base is written and fsynced and once
//     every shard's step 2 is done: the base is renamed into place and
//     the directory fsynced (as before every manifest a rewrite puts in
//     place: the files it names are on disk before it), the manifest
//     becomes "new base, incremental files from the new one on"
//     with the replaced files as history lines (type h, as Redis 7), the
//     directory is fsynced, the history files are removed, and the
//     manifest is written again without them. A start finding history
//     lines removes those files.
//
// Cross-shard atomicity across a crash in the middle of a rewrite on
// several shards: step 3 waits for every shard's step 2, so once some
// shard's base holds cut c, every shard's log is on disk up to its CUT c,
// each shard's manifest names either its old files and the new one (step
// 2 done) or the new base and the new one (step 3 done). A transaction
// after the cut has all its parts, as markers, in the new files. One
// before it has each part either as a marker before a CUT c in its
// shard's old files, or folded into the new base of a shard that
// installed. So the load's first pass counts a transaction as complete
// when some log holds one of its parts before a cut that some shard's
// base holds (the RADISH.BASE at the start of that shard's first
// incremental file names it): every other part is in a log or a base.
// Before any shard installs, every log holds every part as a marker,
// and the usual rule applies. One rewrite runs at a time.
//
// A failed rewrite (its base's write fails, a shutdown) removes its
// temporary base; the manifest keeps the old base and every incremental
// file, the new one included, as Redis leaves it, and the next rewrite
// replaces them all.
//
// # Enable (CONFIG SET appendonly yes)
//
// Enable creates every shard's new incremental file (sequence numbers
// after those of a stale AOF in the directory) and names its new base;
// no manifest names them. A rewrite then runs as above, except that at
// its cut each shard's Log starts (RADISH.EPOCH, RADISH.BASE) instead of
// rotating, and Install only renames the base into place. Once every
// shard's base is, Commit writes each shard's manifest as
// temp-<name>.<i>.manifest (first line "# radish-enable <id> <shards>",
// a comment to Redis's parser and to ours), fsyncs them and the
// directory, renames them all into place in shard order, fsyncs the
// directory, and removes the stale AOF's files. A crash before the first
// rename leaves the directory as it was, plus files no manifest names
// and temporary manifests that the next Open removes; a crash during the
// renames leaves, for every shard of the commit, its temporary or its
// renamed manifest, both marked: Open finishes the renames. So the AOF
// turned on is every shard's or none's.
//
// BGREWRITEAOF with appendonly no (BaseOnly) is an Enable without Logs:
// the bases alone, committed the same way, each manifest naming its base
// only, as Redis 7 writes one then; an Open that finds a manifest with no
// incremental file (this, or Redis's) adds an empty one.
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
// only to hand over a buffer and take another, and a failing write or
// fsync is retried by the writer every 100 ms while its reason shows in
// Err (the shards then refuse writes with MISCONF). A write that fails half way is taken back
// (ftruncate), so the file never ends in half a command it will later
// repeat.
//
// # What must stay true
//
//   - Loading a shard's base and replaying its incremental files on an
//     empty shard rebuilds its data, but for the parts of transactions
//     neither another log nor another base holds.
//   - A base holding cut c is in place only once every shard's log is on
//     disk up to its CUT c, and its shard's new incremental file starts
//     with RADISH.BASE c on disk (else a crash before the shard logs
//     again leaves no log naming c, and the other shards' logs drop the
//     parts before their CUT c that the base took).
//   - Durable never passes what is on disk as the policy requires.
//   - The commands of one part are adjacent in a log, after its marker.
package aof

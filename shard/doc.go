// Package shard runs the loop of one shard and wires the shards of a
// process together.
//
// A Shard is one locked OS thread that owns an ioloop.Driver (its ring), an
// engine.Store (its part of the keyspace) and the connections it accepted
// (on its own SO_REUSEPORT sockets for port and tls-port; with a TLS
// listener the driver is wrapped by net/tlsio, so the shard sees plaintext
// from every connection).
// One loop iteration: the driver submits everything queued and waits;
// completions come back as OnData/OnOpen/OnClose calls, whose commands are
// parsed and placed by the router (router.Planner: here, a hop, a txn,
// every shard, a SCAN step); the shard only carries the placement out: it
// runs the command at once when it is local, or sends it to the owning
// shards as messages; then Turn(now) drains the inbox (requests from other
// shards, replies to ours), times out blocked clients, runs the cron and
// hands the turn's effects to their consumer; then flushOutbox hands every
// message produced in the turn to its shard, one batch per destination
// pushed onto its inbox with one compare-and-swap, no lock and no copy
// (inbox.go), waking it only when its inbox was empty and it sleeps,
// through this shard's own ring (ioloop.Driver.WakeOther: a MSG_RING
// submitted with the next Poll, no eventfd write).
// Turn reads no clock: the loop passes it the time, and OnOpen/OnData read
// the group's clock, so the tests' simulator (sim_test.go) drives shards,
// deliveries and time from a seed.
//
// Nouns:
//   - message: a value with a kind (hop, lock, gather, park, claim ...: see
//     msg.go) and typed contents that the destination shard runs on its
//     goroutine: for a hop (and a SCAN step) and its reply a pooled
//     hopMsg (hop.go) that the sender fills, the owner answers in, and
//     the reply hands back; for a txn's lock steps a lockMsg (lockmsg.go),
//     the request's fields read by the part's shard, the answer's by
//     home; for a locked txn's part-runs (a fan-out's and an EXEC's too),
//     a refused one's unlocks, the gather plan's exports and write-backs
//     and WATCH's registrations a partMsg (partmsg.go), likewise; and for
//     every other step between shards a payload (msg.go lists them: the
//     blocking protocol's, PUBSUB's queries, sharded subscriptions,
//     tracking's invalidations, a held run's exports, a direct script
//     run, AOF and replication cuts, saves, DEBUG RELOAD, the slow log,
//     MONITOR, CLIENT UNBLOCK, a migration), whose request and answer are
//     one value each side fills in turn, and whose home-only fields (the
//     client, what runs once all answers are in) the other side never
//     reads. A closure (runMsg) remains only for what is handed to a shard
//     with deliver by a goroutine outside the loops, or by a callback that
//     does not know which loop calls it: the replication link (the
//     opening of its pipes too), its sub-replicas and a full sync's parts
//     (repl.go, pipe.go, chain.go, primary.go), FAILOVER (failover.go), WAIT's and WAITAOF's waiters
//     (waitaof.go), the end of a save, SHUTDOWN or DEBUG RELOAD's save
//     answered on the client's shard, an AOF rewrite's cut started from
//     its goroutine, CONFIG SET appendonly no's detach (snapshot.go,
//     aofrw.go, aofrun.go), a replication flow's close from whichever
//     shard's write found its queue over the limit (flowstream.go). Each
//     is a one-off step of an admin or persistence path that hands over what its sender owns (a
//     connection to close, a channel or wait group it blocks on, its
//     caller's callback), and none passes through the simulator's
//     network, which drives no such goroutine: there is no delivery of
//     it to hold or reorder.
//     It is the only way one shard affects another; a shard never writes
//     another shard's memory but a hop payload it holds, and reads only what
//     no one changes after the message was sent (a txn's args and parts, a
//     hop's command). A small command and its reply travel inside the
//     payload itself (no buffer of their own). A batch of hop requests is
//     prefetched (the engine warms their keys) before it runs, as a
//     connection's pipeline is; a run of replies to one connection in a
//     batch is written out once.
//   - slot: a place in a connection's reply queue. Replies leave a connection
//     in request order: a command whose reply is not ready (it ran elsewhere)
//     holds back the replies behind it, and the replies a pipeline wrote
//     before its first hop wait with it, to leave in one send (holdPrefix).
//   - mutation path: the few functions (effects.go) every change to a key
//     passes through: a command whose handler changed data (the engine's
//     Dirty count moved), an expiry, an eviction, a cross-shard write-back.
//     Each counts the change, bumps the key's version if it is watched,
//     wakes the clients blocked on it and appends an effect.
//   - effect: a write in the form it must be replayed (command.Effects),
//     handed in order to Options.Effects at the end of the turn, before
//     any reply of the turn leaves, with the write's keyspace events,
//     which the shard then publishes (notify.go).
//   - AOF (aof.go): with appendonly yes the shard loads its own log before
//     it starts, then appends each turn's effects to it and submits them
//     once; under appendfsync always what leaves after the turn's first
//     write (replies, messages to other shards) waits until the log's
//     writer has it on disk. BGREWRITEAOF (aofrw.go) cuts every shard's
//     log in one transaction holding every shard's keys, and each shard
//     writes its new base like a BGSAVE's file; CONFIG SET appendonly
//     (aofrun.go) attaches or detaches the logs at run time.
//   - txn: a command whose keys span shards, or an EXEC (multi.go). It takes its keys on every
//     shard with coord's protocol (one parallel round, the first part's
//     request queueing; if a shard refuses, the rest shard by shard in
//     ascending order), runs its parts, each part releasing its keys as
//     it finishes its last commands; keys it only reads are held shared.
//     Work on locked keys waits in the shard's coord.Table queue
//     (VLL-style intents), so no client observes half of one, and no
//     global lock exists. Each message carries what its shard needs as
//     its contents (a part, a command's header, the keys to write back),
//     whose bytes are the txn's copy of its arguments, which nothing
//     writes while the txn runs; only the home shard reads the txn itself
//     (a direct script run elsewhere gets its call's copy, scriptCall, in
//     its scriptMsg). A plain command's txn (not an EXEC's, a script's or
//     a blocking command's) is pooled: it and its buffers go back to the
//     home shard's free list once its reply is written (txnpool.go); an
//     EXEC's is kept, with its buffers, for the shard's next EXEC. A single-reply one runs with the gather plan, which
//     coord.Gather decides and cross.go carries out: each part's shard
//     exports its keys, each from the one database the command uses it
//     in, home runs the handler on the copies and writes back the keys
//     the command may write that the copies' store noted changed
//     (engine.Store.TrackWrites), re-exporting nothing to compare. A
//     command on every shard that reads (DBSIZE, KEYS ...) waits, on
//     each shard, behind every lock and waiting command there; one that
//     writes (FLUSHALL, FLUSHDB, SWAPDB) takes every shard whole with
//     coord's protocol first, so that each cross-shard transaction runs
//     wholly before it or wholly after, on every shard alike.
//   - subscription: a connection's channels, patterns and sharded
//     channels, kept by its own shard (pubsub.Registry); a publish goes to
//     the other shards whose pubsub.Filter wants its channel as entries of
//     one batch per destination per turn, which comes back with the
//     receivers counted (pubsub.go explains the choice and its cost).
//     Consecutive publishes to one channel reach a subscriber as one run,
//     one append to its output (pubrun.go).
//   - tracking: CLIENT TRACKING's state. The shard owning a key keeps its
//     tracking readers (track.Table: client ID and home shard), filled by
//     run1 for the client a command runs for (reader, carried by hops,
//     txns and EXECs); a change on the mutation path (Touch, Flushed)
//     sends the invalidations to the readers' home shards in one batch
//     per destination per turn, and the home turns them into pushes or
//     redirected messages (tracking.go).
//   - user: a connection's ACL user, taken from the group's acl.Registry
//     snapshot (acl.go); dispatch checks every command against it where
//     the connection is, before placing it, so hops and txn parts are
//     never checked again; a script's calls are checked with the user its
//     reader carries. A change of the users wakes every shard, which
//     closes the connections of a deleted or reloaded user.
//   - MULTI: a connection's queued commands and watched keys (multiState).
//     WATCH registers each key's version on its shard; EXEC runs the queue
//     as one txn over every key of its commands and the watched keys
//     (checked as the locks are granted), one shard alone when they all
//     live there (no message when it is the connection's), else in
//     coord.Rounds while every key is held. Its effects on a shard are
//     wrapped in MULTI ... EXEC.
//   - snapshot (snapshot.go): SAVE writes every shard's RDB file in its
//     turn, in parallel; BGSAVE steps a snapshot.Writer a slice per loop
//     turn (at most about 100 µs, and the next slice waits as long: the
//     save takes at most half of the thread), at the end of the turn once
//     its replies were sent (Driver.Flush), its file written by a
//     goroutine of its own, and while it runs
//     every change to a key (run1, a blocked client served, writeBack,
//     eviction) first hands the key's old value to the Writer, so the
//     file is the shard at BGSAVE's start; the shard finishing last puts
//     the manifest in place. At start every shard loads (mmap) on its own
//     thread, in parallel, before any serves. Shard 0's cron starts the
//     save points' BGSAVEs; after a failed one each shard refuses writes
//     with -MISCONF (stop-writes-on-bgsave-error); SHUTDOWN and SIGTERM
//     save first; DEBUG RELOAD saves, then each shard flushes and loads in
//     one step of its loop.
//   - replication (repl.go): as a replica the group is the Host of a
//     persistence/repl.Replica: a full sync reloads every shard from the
//     received RDB file in one step of its loop; the stream runs on the
//     master link's lanes, pipes (pipe.go: connections with no socket,
//     fed by messages, their replies handed back at each turn's end)
//     marked as the primary's, whose commands take the ordinary path (a
//     cross-shard MSET or EXEC of the stream is a txn as any client's). A replica shard refuses clients'
//     writes (-READONLY) and, under replica-serve-stale-data no while the
//     link is down, what is not stale-safe (-MASTERDOWN); it runs no
//     active expiry, hides expired keys without deleting them, and runs
//     the primary's writes at time 0, so they see what the primary saw.
//   - primary (primary.go): once a replica asked for a full sync, every
//     shard merges its turn's effects into the stream under the merger's
//     lock (one chunk per turn, reused), with a cross-shard transaction's
//     lock order (its Tag's Seq, taken when it holds every lock) and, on
//     its home shard, the marker that all its parts were handed over; a
//     full sync is a txn holding every shard whole, during which each
//     marks the cut and writes its keys as part of the payload. A radish
//     replica's full sync goes on flows (flows.go): one connection per
//     shard, detached from its loop (ioloop.Driver.Detach), on which a
//     goroutine sends the shard's part as an RDB file of its own through
//     the rdma transport as the shard's slices write it; then the
//     socket becomes a connection of the shard's loop again (Driver.Take,
//     with no conn: Shard.flows), on which the shard's frames of the
//     write stream follow (flowstream.go: the merged stream split by the
//     backlog's index of runs, the merger's own bytes on the replica's
//     connection), written with the turn's other sends: the shard's own
//     frames at once, another's by a message. A flow that came in on the
//     TLS port keeps its
//     tls.Conn (flowtls.go: tlsio's DetachTLS, a socket pair between the
//     sender and a goroutine that encrypts), so no zero-copy send.
//   - chain (chain.go): a replica serves sub-replicas its primary's
//     stream as its link applies it (repl.Options.Forward), a partial
//     resync from the link's history, a full sync of its own data taken
//     while the link holds its stream still (every shard starts its part
//     of one payload, no feed or merger involved); it drops them when
//     the stream changes under them, it follows another primary, or is
//     promoted.
//   - script: an EVAL or FCALL call (script.go; package script is the Lua
//     runtime). It runs on the shard of its declared keys, on the real
//     store, each redis.call through the mutation path, with an undo
//     record of what it wrote; a run that meets a key of another shard is
//     undone and run again there or held: with coord's protocol over its
//     declared keys or every shard, on gathered copies written back. A
//     script whose keys share one shard never stops another. A direct run
//     on the connection's own shard copies nothing: its job borrows the
//     command's arguments and, with its host, undo record and reply, is
//     the shard's, reused (directRun). One that runs
//     past busy-reply-threshold makes the server busy (busy.go): -BUSY
//     from every shard, and its own shard answers its clients from the
//     interpreter's hook.
//   - Held command: one whose keys' values name the keys it reads (SORT
//     with BY or GET patterns, patterns.go): its txn takes every shard
//     whole, home copies its keys, then the keys their values name, and
//     runs it with the gather plan.
//   - slow log (slowlog.go): while slowlog-log-slower-than is not -1
//     every command is timed (one reading of the command clock per
//     command: the CPU's time-stamp counter where the kernel keeps time
//     by it, ticks.go); a slow one's
//     entry goes to the slow log of its client's shard, under that log's
//     own mutex (taken only for a slow command and by SLOWLOG); a command
//     or expiry slice past latency-monitor-threshold is a latency event,
//     filed in the group's table under its mutex (latmon.go).
//   - monitor (monitor.go): while any client monitors, each shard writes
//     a line per command it runs into its turn's buffer, sent at the end
//     of the turn to the shards with monitors as one message each; when
//     nobody monitors a command costs one branch.
//   - shutdown (shutdown.go): SHUTDOWN and SIGTERM of a primary with
//     replicas pause writes and wait, up to shutdown-timeout, until every
//     replica acknowledged the stream, then save and stop; ABORT cancels.
//   - failover (failover.go): FAILOVER pauses writes, holds the stream
//     still, waits until the target replica acknowledged it, then
//     follows the target with PSYNC ... FAILOVER, which promotes it; a
//     replica asked so promotes itself and serves the PSYNC. A group
//     becoming a replica stops its feeds; promoted again, its merger
//     restarts at the offset it applied.
//   - WAITAOF (waitaof.go): every shard's AOF fsynced past what it was
//     handed when WAITAOF came, and the replicas whose FACK reached the
//     stream's offset then; as a replica, the offset its AOF fsynced is
//     learnt by sampling the AOF's positions at each ACK.
//   - pause (pause.go): CLIENT PAUSE is one word of the group each shard
//     reads per turn and read; a connection whose next command it holds
//     back waits on the shard's paused list until it ends.
//   - migration (migrate.go): a connection whose keyed commands mostly
//     go to one other shard (90% of a window of 64, a second's cooldown)
//     stops reading, waits until no reply of it is in flight, and is
//     released by its driver (the output sent, the socket and unread
//     input handed back) and taken by the other shard's driver, which
//     serves the input; the conn value moves whole. It never moves while
//     blocked, in MULTI, watching, subscribed, tracking, a MONITOR, a
//     replica or the master link, paused, holding replies for the AOF's
//     disk or during a busy script (that state lives on its shard, or
//     messages address it there): it moves once out of it. TLS
//     connections never move (net/tlsio keeps their record state).
//   - configuration: Options holds what cannot change after start (shards,
//     io, addresses, databases, the effect sink). Every other setting is
//     read from the Config's Snapshot, which a shard takes at start and,
//     when it changed, at the next loop turn (applyConfig): a CONFIG SET
//     applies from then on, with no lock on the command path. tcp-keepalive
//     is read at each accept; timeout is checked by the cron (closeIdle);
//     client-output-buffer-limit where output grows (outlimit.go, and a
//     replication flow's queue before its connection, flowstream.go).
//
// What must stay true:
//   - a key is only ever read or written by the shard ShardOf(key) names;
//   - per shard, commands on one key run in the order they reached the shard;
//   - a connection's replies leave in the order its commands arrived, also
//     across a migration: it leaves a shard with no reply in flight;
//   - no key changes outside the mutation path, so a shard's effects,
//     replayed in order on an empty shard, rebuild its data.
//   - what a blocking command pops reaches its client: a wait ends at home
//     (deadline, CLIENT UNBLOCK) only once every holder has withdrawn its
//     waiter, and a waiter is served only while no txn holds a key of its
//     command (see block.go).
package shard

// Package repl is replication's protocol: Redis's PSYNC, spoken as a
// replica to any Redis-protocol primary (redis-server 7, Valkey, radish),
// and the merge of a sharded primary's writes into the one stream its
// replicas read.
//
// It owns no data. A Replica reads its primary's stream and hands it to
// a Host (shard.Group): the Host loads the full sync's RDB file into its
// shards and runs the stream's commands on lanes into its ordinary
// command path, as the primary's client (Host.Apply; on flows, one per
// flow: apply.go), which hand back each command's reply. A Merger (merge.go)
// takes each shard's effects, a Chunk per loop turn, and writes the one
// command stream a Redis replica expects; shard/primary.go serves it.
//
// Nouns:
//   - replication ID and offset: a primary's stream of writes is named
//     by a 40-hex-digit ID; the offset counts its bytes. A replica holds
//     (ID, offset) of what it applied: the offset of the last byte of the
//     last command whose reply came back from the Host's connection, it
//     and every command before it (a command read but not yet run does
//     not count), plus the link's own commands (PING, REPLCONF), which
//     move it without running.
//   - replid2: after a +CONTINUE that names a new ID (the primary was
//     itself promoted), the old ID and the offset where its history ends
//     (second_repl_offset, that offset + 1), so that this replica's own
//     replicas may still continue the old stream.
//
// The protocol, as a Redis 7 replica speaks it:
//
//	-> PING                                  <- +PONG (or -NOAUTH: AUTH follows)
//	-> AUTH [masteruser] masterauth          <- +OK   (when masterauth is set)
//	-> REPLCONF listening-port <port>        <- +OK
//	-> REPLCONF ip-address <ip>              <- +OK   (replica-announce-ip)
//	-> REPLCONF capa eof capa psync2         <- +OK
//	-> PSYNC <replid> <offset+1> | PSYNC ? -1
//	<- +FULLRESYNC <replid> <offset>, newlines while the primary prepares,
//	   then $<length>\r\n<RDB> or $EOF:<40-byte mark>\r\n<RDB><mark>
//	   (diskless), then the stream from <offset>
//	<- +CONTINUE [<new replid>]: the stream from <offset+1>
//	<- the stream: commands as RESP arrays, never answered; the offset
//	   counts every byte. REPLCONF GETACK * asks for
//	-> REPLCONF ACK <offset applied>, sent once the commands before the
//	   GETACK have run, and once a second regardless.
//
// A radish replica asks a radish primary for a full sync on flows, one
// connection per primary shard (flows.go, shard/flows.go):
//
//	-> REPLCONF radish-flows <its shards>   <- +FLOWS <n> <token>
//	   (redis-server: -ERR Unrecognized REPLCONF option: the one payload)
//	n flow connections, flow i:
//	-> AUTH ... (as above), REPLCONF radish-flow <token> <i>   <- +OK
//	   (the primary's shard detaches the socket from its loop: from then
//	   on only the sender of part i, then the flow's stream, writes it)
//	-> PSYNC as above, on the first connection
//	<- +CONTINUE <replid> flows: the stream follows on the flows (below);
//	   +CONTINUE <replid> (a chained replica): the flows are closed, unused
//	<- newlines, one a second (as Redis while it prepares a payload),
//	   until every shard wrote its part, then
//	   +FULLRESYNC <replid> <offset>, $FLOWS:<n> instead of the payload,
//	   then the stream from <offset> (held back by the primary until
//	   then, as for the one payload)
//	<- on flow i, as shard i writes its part (in slices between its loop
//	   turns, which wait while the flow holds 4 MiB unsent):
//	   $EOF:<40-byte mark>, an RDB file of its own (shard 0's with the
//	   FUNCTION libraries) and the mark, sent through rdma.Transport
//	   (TCP, MSG_ZEROCOPY where it pays); a flow that makes no progress
//	   for repl-timeout is shut down. The flow stays open: the write
//	   stream follows on it (below).
//
// The flows' files are received in parallel, from the moment the flows
// are open (before PSYNC is answered: the shards' parts are written
// first, and a flow that is not read holds them), into temp-<pid>-repl.rdb.<i>.rdb
// and a manifest at temp-<pid>-repl.rdb names them as a snapshot of n
// shards, which the Host loads as its own snapshot (with as many shards
// on both sides, each shard reads only its file).
//
// The write stream on flows (split.go, shard/flowstream.go). The merged
// stream stays the one history: its replication ID, offsets, backlog,
// replid2, WAIT and ACKs, chained replicas and redis-server replicas
// count its bytes as ever. To a radish replica holding flows (after
// $FLOWS:<n>, or a partial resync answered +CONTINUE <replid> flows) the
// primary sends it split: each run of shard i's commands (a Merger's
// Span) on flow i, the Merger's own bytes (SELECT, MULTI and EXEC around
// a cross-shard transaction's parts, PING, REPLCONF GETACK) on the
// replication connection, every piece as a frame
//
//	@<offset> <length>\r\n<the stream's bytes after offset>
//
// so each flow carries its shard's writes with their own offsets, which
// are their places in the merged stream. The backlog keeps an index of
// its runs (whose each byte is; a promoted replica's history, which has
// none, goes on the replication connection), so a partial resync splits
// the backlog from any offset, in the middle of a run too, the same way.
// A flow's frames need not come in their order (the primary's shard
// writes its own at once, another shard's, or a ping's, follow by a
// message): the replica puts the frames back in their places (joiner,
// by their offsets) and reads
// the merged stream from them: its history and forwarding are the same
// bytes as without flows. It runs each flow's commands on a lane of its
// own (apply.go: a lane into the command path of its shard i,
// modulo its shard count; with as many shards as the primary each
// command runs where its keys are, with no hop), the lanes in parallel,
// each in the database the stream's SELECTs name: a key's commands are
// all on its shard's flow, so their order holds. A MULTI ... EXEC block
// (a cross-shard transaction's parts, from several flows, and their
// glue) and a command that is not local (FLUSHALL, SWAPDB, FUNCTION ...;
// Options.Local) run alone, once every command before them ran and
// before any after them is sent, through the ordinary path (a
// transaction over every shard it touches): a reader never sees half
// of one. The offset applied (ACK, PSYNC, promotion, forwarding) is the
// end of the longest run of the merged stream whose every command ran.
// The replication connection and the flows have no read deadline of
// their own (a shard may write nothing for long); the stream fails when
// no byte of it came in place for repl-timeout (the primary's PINGs on
// the replication connection come after every earlier frame).
//
// With tls-replication (Options.TLS) every one of these connections, the
// replication connection and each flow, is TLS (dial.go: one dial point),
// with Redis's client certificate and CA (net/tlsio NewClientConfig); a
// handshake that fails (a primary whose certificate does not chain to the
// CA) fails the session, logged, and is tried again a second later. A
// radish primary's flows then go over TLS as well: the primary's shard
// hands the connection with its tls.Conn to a goroutine that encrypts
// what the part's sender and then the flow's stream write
// (shard/flowtls.go), so no zero-copy send.
//
// The full sync's RDB is written to a file in dir (temp-<pid>-repl.rdb),
// then the Host empties every database and loads it (each shard keeps
// the keys it owns: the two sides may have different shard counts, and
// a redis-server's dump loads as one file), with keys past their TTL
// kept (the primary deletes them); the file is removed after. Commands
// go to the Host in batches, one per read from the primary (on one
// connection, or on flows on their lanes); a MULTI ... EXEC block waits
// until its EXEC is read, so it reaches the Host whole and runs
// atomically there over every shard it touches.
//
// What happens on each kind of disconnect:
//   - the link fails or goes silent for repl-timeout (the primary pings
//     every repl-ping-replica-period): what was read and sent to the
//     Host still runs; a partial command or an unfinished MULTI block is
//     dropped; once every command sent has run, the link reconnects
//     (after a second) with PSYNC <replid> <applied+1>. A primary whose
//     backlog still holds that offset answers +CONTINUE and the stream
//     resumes with no byte lost or run twice; otherwise +FULLRESYNC and a
//     full sync replaces the data. On flows, any of the connections
//     failing (a flow's read error, the replication connection's, or no
//     byte in place for repl-timeout: a flow that stalled) fails the
//     session the same way: frames past a missing one were not applied,
//     the replica opens new flows and its PSYNC continues every flow from
//     the one offset applied (the primary re-splits its backlog there);
//     the primary closes a replica's flows when its connection closes, and
//     a flow whose send makes no progress for repl-timeout.
//   - the primary is down: the link retries once a second; meanwhile
//     the replica serves its data (or -MASTERDOWN to commands that are
//     not stale-safe under replica-serve-stale-data no).
//   - REPLICAOF another primary: the link stops (its commands sent run
//     first) and a new one starts with the same (ID, offset), so a
//     sibling promoted from the same primary continues it (replid2).
//   - REPLICAOF NO ONE: the link stops the same way; the (ID, offset)
//     applied is what the server, now a primary, reports as replid2 and
//     second_repl_offset - 1.
//   - a lane closes (CLIENT KILL TYPE master, or the server stopping):
//     the session ends at its next read, and the offset applied moves no
//     more in it (the replies that come after are ignored). With no
//     command in flight on any lane the data is the stream's up to that
//     offset, and the next session continues it with PSYNC; with some in
//     flight (the closed lane drops what it had not run, and other lanes
//     may have run commands past it) the data is no prefix of the
//     stream: the next session asks for a full sync (PSYNC ? -1), and a
//     Stop reports no ID to continue. The lanes open again.
//
// As a primary (shard/primary.go, merge.go):
//   - the stream is the Merger's output; its offset starts where this
//     server's history ends (0, or a promoted replica's applied offset)
//     and counts every byte, the PINGs sent every
//     repl-ping-replica-period and the GETACKs WAIT sends included; the
//     backlog is its last repl-backlog-size bytes (a promoted replica
//     starts with the stream it applied).
//   - PSYNC <replid> <offset> where <replid> is this server's ID, or its
//     replid2 and <offset> at most second_repl_offset, and the backlog
//     holds <offset>: +CONTINUE <replid>, then the stream from <offset>.
//     Otherwise (and SYNC, PSYNC ? -1): a full sync. The shards take a
//     cut together, holding every shard's whole keyspace (no cross-shard
//     transaction is on both sides of it): each marks it in its feed and
//     writes its keys as databases of an RDB body; the bodies are framed
//     as one RDB (one header, EOF, CRC64) and sent as $<length> after
//     +FULLRESYNC <replid> <offset>, <offset> being the stream's offset
//     where every shard's commands before the cut are out; the stream
//     from there follows. REPLCONF rdb-only 1 (redis-cli --rdb) gets the
//     payload alone.
//   - a replica's REPLCONF ACK <offset> is its acknowledged offset (INFO's
//     slaveN offset and lag, WAIT, min-replicas-to-write); FACK <offset>
//     after it (Redis 7.2; a radish replica with its AOF on sends it:
//     Options.Fsynced) is the offset its AOF fsynced (WAITAOF).
//   - a replica's connection closing forgets it; when it comes back its
//     PSYNC continues from the backlog, or takes a full sync.
//   - FAILOVER (shard/failover.go): once the target acknowledged the
//     whole stream, the primary connects to it as a replica whose PSYNC
//     is PSYNC <replid> <offset+1> FAILOVER (Options.Failover); a replica
//     whose replication ID is <replid> promotes itself (its ID becomes
//     replid2) and serves the PSYNC as a primary: +CONTINUE <new ID>.
//
// As a replica with replicas of its own (chain.go, shard/chain.go; Redis
// 7's sub-replicas):
//   - the Replica hands the stream's bytes on (Options.Forward) once the
//     Host ran them, every byte once and in order, PINGs and GETACKs
//     included: a sub-replica's offsets and replication ID are the
//     primary's, and it acknowledges to this server. The history it
//     keeps for a promotion is also the sub-replicas' backlog: PSYNC
//     <ID or ID2> <offset> that it holds gets +CONTINUE <ID> and the
//     stream from there (Chained).
//   - a sub-replica's full sync is this server's data at the offset
//     forwarded: Hold stops the stream's commands to the Host and waits
//     until those sent ran; while held, the group registers the
//     sub-replica at that offset and has every shard start writing its
//     keys (copy-before-write), then the stream moves on; the bytes
//     forwarded meanwhile follow the payload and +FULLRESYNC <ID> <offset>.
//     It is the one payload (every shard's keys framed as one RDB), to a
//     radish sub-replica too: the middle answers REPLCONF radish-flows as
//     a primary does, and closes the flows unused at PSYNC.
//   - with replica-read-only no, a write made on the middle itself is in
//     a later full sync's payload (the middle's data) but never in the
//     stream, which is the primary's: as Redis 7.
//   - while the link is down, PSYNC is refused (-NOMASTERLINK) and the
//     sub-replicas stay connected, receiving nothing; a partial resync
//     of the link continues their stream (the bytes read but not applied
//     before the cut come again and are kept once).
//   - Options.Reset drops them when the stream changes under them: a full
//     sync loaded, a +CONTINUE naming a new ID; the group drops them too
//     when it follows another primary or is promoted. The history keeps
//     every byte read and not yet forwarded, whatever repl-backlog-size
//     says (the lanes' room bounds them). They come back with a PSYNC: a promoted server
//     continues them from its replid2.
//
// What it never does: touch the data itself, run a command the primary
// did not send, or acknowledge an offset whose commands have not run.
package repl

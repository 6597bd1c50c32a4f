// Package tlsio is TLS on a shard's own ring: a Driver wrapping an
// ioloop.Driver, in which connections accepted on a TLS listener have
// plaintext Input and Output while the wrapped driver (io_uring or epoll)
// reads and writes their ciphertext; NewConfig, Redis's tls-*
// parameters as a crypto/tls server configuration; and NewClientConfig,
// the configuration of a replica's links to its primary (tls-replication).
//
// How far crypto/tls can be driven by an event loop, and what follows:
//   - Records: tls.Conn reads its transport through a buffer it keeps
//     (readFromUntil); a transport error that is a temporary net.Error is
//     returned but not remembered (conn.go readRecordOrCCS sets c.in's
//     sticky error only for others), and a partial record stays buffered.
//     So after the handshake the transport (transport.go) is plain memory:
//     Read takes the ciphertext the ring received and answers
//     errWouldBlock when there is no more, Write appends records to the
//     ring's output buffer. Decrypting and encrypting run in the shard's
//     loop: in OnData (decrypt, then the handler's OnData sees plaintext)
//     and at the start of Poll (encrypt what the handler wrote, before the
//     ring submits). No goroutine, no lock but tls.Conn's own uncontended
//     mutexes, no system call of its own. One cost is crypto/tls's and
//     stays: readFromUntil allocates a small reader each time it reads
//     the transport, about once per record, so a TLS connection's hot
//     path is not allocation-free as a plain one's is; a pipelined batch
//     pays it per 16 KB record. Reads that would find no whole record
//     (the one that finds nothing left, and each for a part of a record
//     that arrived in pieces), which cost one each, are not made: the
//     transport follows the record framing of what it handed crypto/tls,
//     and decrypt calls Read only while a whole record can be decrypted,
//     one crypto/tls holds or one the waiting ciphertext completes
//     (BenchmarkEcho, Go's client and this server together: an
//     unpipelined round trip 3 -> 2 allocations, a 64 KB batch on
//     io_uring 14 -> 6). Plaintext input buffers a batch grew are reused
//     (a few, up to 256 KiB each), not allocated per batch.
//   - Handshake: tls.Conn's handshake is a blocking function; any error
//     from the transport, temporary or not, ends it and is kept
//     (handshakeErr). crypto/tls has no other server handshake API for
//     TCP: tls.QUICConn is event driven, but it speaks QUIC's framing
//     (no TLS records, TLS 1.3 only) and refuses a ClientHello without
//     the quic_transport_parameters extension, which no Redis client
//     sends. So the one deviation from "no goroutine per connection": each
//     handshake runs on a goroutine of its own, short-lived and bounded.
//     That goroutine never touches a socket: its transport blocks in Read
//     until the loop feeds it the ciphertext the ring received, and its
//     Write queues ciphertext that the loop appends to the ring's output
//     (notify wakes the loop; OnWake takes it). When the handshake returns
//     the goroutine ends and the loop owns the tls.Conn from then on.
//     The goroutine is handed at most maxFeed bytes at a time; the rest
//     waits in the ring's input buffer (a client may send its first
//     commands right behind its Finished), up to Options.MaxInput
//     (client-query-buffer-limit), past which the connection is cut. A
//     handshake that is not over within the handshake timeout is cut (a
//     timer shuts its transport); so a client stalling mid-handshake
//     costs one parked goroutine until then and never holds a shard.
//
// Nouns:
//   - Driver: the wrapper, owned by the loop goroutine like the driver it
//     wraps. Connections from the sockets given to ListenTLS are TLS
//     connections; all others pass through (one slice lookup per call).
//   - conn: a TLS connection: its tls.Conn and transport, its plaintext
//     input (in[rd:], borrowed by Input until Consume or the next Poll)
//     and output (encrypted at the next Poll once the handshake is done).
//   - handshake goroutine: see above. The handler hears OnOpen at accept,
//     as for any connection (maxclients, protected mode and CLIENT LIST see
//     it), and OnData only once plaintext arrived; what it writes before
//     the handshake ends (a -ERR max number of clients reached) waits for
//     it.
//   - detached connection: one DetachTLS handed to a goroutine (a
//     replication flow's sender): once the ring sent every record written
//     on it (the wrapped driver's Release), its transport is the socket
//     itself, blocking, and the tls.Conn goes on with the next record.
//
// What it never does: hand a TLS connection over to another driver
// (Release refuses it: its records' sequence numbers and keys live in
// crypto/tls's tls.Conn, which has no way to export them, so a TLS
// connection stays on the shard that accepted it; a plain one is released
// by the wrapped driver), or its socket alone (Detach refuses it;
// DetachTLS hands over the socket with its tls.Conn); read or write a socket; hold a connection's
// tls.Conn from two goroutines at once; send output of a connection past
// Abort or a TLS error; keep a buffer for an idle connection beyond what
// tls.Conn keeps itself (emptied plaintext input buffers go back to a
// bounded spare list).
//
// What must stay true:
//   - While a conn handshakes, only its goroutine touches tc; the loop
//     touches the transport under its mutex only. The hand-over (hs
//     false) happens in the loop after it saw, under that mutex, that the
//     goroutine's Handshake returned.
//   - The handler's contract is the wrapped driver's: callbacks only inside
//     Poll (a handshake's end is acted on in OnWake), OnClose exactly once
//     per OnOpen.
//   - A new handshake reads Options.Config once, at accept: a reloaded
//     certificate reaches new connections, never established ones.
//   - Every byte the loop's transport hands crypto/tls (and the
//     handshake's) passes through its framing, and whole only overcounts:
//     ready never says no while crypto/tls could decrypt a record, or a
//     connection would stall with its request received.
//   - A detached connection's records go on in sequence: DetachTLS hands
//     it over only after the ring sent every record written on it.
package tlsio

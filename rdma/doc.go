// Package rdma holds the transports of a full sync's bulk copy: the
// snapshot slices a radish primary's shards send to a radish replica,
// each on its own connection (a flow, persistence/repl). A Transport
// moves one payload whole over a connected socket; TCP is the default,
// sending large payloads with MSG_ZEROCOPY and falling back to plain
// writes where that does not pay (small sends, and paths where the
// kernel reports it copied anyway, as on loopback). A flow over TLS
// (tls-replication) cannot take this path: its records are encrypted by
// crypto/tls on a goroutine of the primary's (shard/flowtls.go), so TCP
// sends it the pair's bytes by plain writes (a socket pair refuses
// SO_ZEROCOPY), and the ciphertext goes out through Go's own writes;
// kernel TLS would be the zero-copy way, not available here. RDMA verbs are the
// transport to add where the hardware exists: the flows' code sees only
// the interface.
//
// Nouns:
//   - payload: the bytes of one Send, which the caller does not touch
//     until Send returns (the kernel may read them until then).
//   - zero-copy send: sendmsg(MSG_ZEROCOPY) on a socket with SO_ZEROCOPY
//     set; the kernel pins the pages and reports on the socket's error
//     queue, by a range of send calls, when it is done with them and
//     whether it copied after all.
//
// What it never does: own the socket (the caller opens and closes it),
// frame or interpret the bytes, or return from Send while the kernel
// still holds the payload's pages.
package rdma

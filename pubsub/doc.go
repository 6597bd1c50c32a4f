// Package pubsub holds one shard's Pub/Sub subscriptions and the frames
// subscribers receive. It is pure data: no I/O, no goroutines, no
// messages between shards; the shard loop (shard/pubsub.go) moves
// publishes between shards and writes the frames.
//
// Nouns:
//   - Registry: who, of the shard's connections, is subscribed to what,
//     in both directions: channel (or pattern) to subscribers, for a
//     publish; subscriber to its channels, for its counts and for
//     UNSUBSCRIBE with no argument. Three namespaces (Kind): channels,
//     patterns (Redis's glob, engine.Match), sharded channels.
//   - Filter: the compact summary of a Registry that other shards read
//     without a message: a 4096-bit map of channel hash buckets with
//     subscribers, and the number of patterns. A publisher asks it whether
//     a shard may have receivers; a yes may be wrong (a bucket shared with
//     another channel), a no never is.
//   - Owned: the count of subscribers per shard of each sharded channel
//     that the owning shard (the one the channel hashes to) keeps.
//   - frame: a message, pmessage, smessage or (un)subscribe confirmation,
//     a RESP3 push or a RESP2 array.
//
// What must stay true:
//   - a subscriber's count after a (un)subscription is Redis's:
//     channels plus patterns, or sharded channels for SSUBSCRIBE and
//     SUNSUBSCRIBE;
//   - a Filter bit is set while, and before, any channel of its bucket has
//     a subscriber in the Registry (the shard stores it before it writes
//     the SUBSCRIBE's reply), and its pattern count is the Registry's;
//   - a publish allocates nothing in a Registry: Subscribers and Matching
//     hand out the Registry's own slices.
package pubsub

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
// PUBLISH's count: the publish gathers it. The destination shards count
// what they delivered and send the count back with the batch, so the
// reply is Redis's exact count, at the price of one round trip to the
// shards that may have receivers (the Filter keeps the others out) before
// the reply; a summary of every shard's channels with their counts would
// answer at once but would cost a copy per subscription change and could
// count a subscriber that left a moment ago (shard/pubsub.go).
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

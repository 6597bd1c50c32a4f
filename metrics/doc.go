// Package metrics renders the shards' counters for Prometheus: a
// collector that reads what every shard published at the end of its last
// loop turn, plus the Go runtime and process collectors and build_info,
// served over HTTP on metrics-port by a listener of its own.
//
// Nouns:
//   - Shard: one shard's counters as of its last loop turn (commands,
//     connections, cross-shard hops and transactions, keys per database,
//     memory, expiries, evictions, changes, keyspace hits and misses,
//     bytes in and out, calls per command row; with an AOF, its size,
//     bytes not yet on disk and the histogram of its fsyncs' durations,
//     which its writer goroutine files as it syncs).
//   - Source: what gives the Shards; the shard group implements it by
//     reading its published atomics.
//   - Server: the HTTP listener serving /metrics.
//
// What it never does: it never runs on a shard's loop, never stops a shard
// and takes no lock a shard takes: a scrape reads atomics the shards store
// once per turn, so its numbers are at most one loop turn old and scraping
// costs the command path nothing.
//
// What must stay true: names follow Prometheus's conventions (radish_
// prefix, _total for counters, base units such as bytes), checked by
// promtool in the end-to-end test; every per-shard series has a "shard"
// label, so sum() gives the server's total and the spread shows a hot
// shard.
package metrics

// Package loadgen is a closed-loop RESP load generator: Conns connections,
// each sending batches of Pipeline GET or SET commands on random keys and
// reading the replies before the next batch, for a fixed Duration.
//
// Nouns: a Config is one run's shape (address, connections, pipeline depth,
// keyspace, share of SETs, duration); a Result is what it did (requests,
// seconds, the client's own CPU time, and the batches' round trips: median,
// 99th percentile, longest, from a Latency histogram). A poller (poll.go)
// is one more connection of a run that polls INFO and may start and time
// a BGSAVE, so that a latency run watches a save without a process
// started beside it.
//
// Why not redis-benchmark: it runs one command per test (no GET/SET mix),
// stops after a request count (so a run's length depends on the server's
// speed), and in --threads mode notices the end only on a 250 ms timer.
// This one mixes commands, stops on time, and uses every CPU it is allowed
// (GOMAXPROCS follows taskset).
//
// Keys are key:0 .. key:(Keys-1), values value:<n>, as DEBUG POPULATE makes
// them, so a GET finds its key after DEBUG POPULATE Keys and a SET writes a
// value of the same size.
//
// It never allocates per request: each connection encodes a batch into one
// reused buffer and skips the replies in place.
package loadgen

// Package model predicts radish's throughput at N shards from per-request
// costs measured at 1 and 2 shards.
//
// Nouns: a Cost is what one test (GET, SET) at one pipeline depth costs the
// server, in µs of CPU per request: Local with every key on the
// connection's own shard (1 shard), Hop what a request on another shard
// adds (2 × the growth from 1 to 2 shards, since half the keys hop there).
// A Model holds the Costs of one binary on one machine; a Prediction is its
// answer for one shard count.
//
// The model: a random key is remote with probability (N-1)/N, so
//
//	CPU(N, P) = local(P) + (N-1)/N × hop(N, P)
//	throughput(N, P) = min(N cores / CPU(N, P), client bound)
//
// Each cost has a part paid per request and a part paid per batch (a loop
// turn's read, parse and submit for a connection's P requests; a message
// batch to another shard), found from the costs at two pipeline depths:
// local(P) = w + f/P. A connection's batch of P requests sends each other
// shard b(N, P) = (P/N) / (1 - (1-1/N)^P) of them (the remote requests over
// the shards that get at least one), so at 2 shards b is P/2 and at 64
// shards and P = 32 it is 1.3: the per-batch part of a hop is spread over
// fewer requests as N grows. That gives a Prediction's CPUMax (and RPSMin);
// its CPUMin (and RPSMax) keeps the hop's cost as measured at 2 shards
// (batches to one destination merged across connections within a loop
// turn, as the shard does). Where the measured curve falls below RPSMin,
// time goes somewhere the model does not know (cache-line traffic,
// wake-ups, a saturated client).
//
// It never measures anything: the caller passes the Costs (benchmarks/costs.sh
// prints them; the scaling workload derives them from its own 1- and
// 2-shard points).
package model

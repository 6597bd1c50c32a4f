// Package plan lays out a scaling run on a machine of C cores: which shard
// counts (and valkey io-thread counts) to run, which CPUs the server gets
// (the first ones) and which the load generator gets (the rest), how many
// connections each point uses, and how long each run may take so that the
// whole run fits its time budget; and whether the server's and the load
// generator's CPUs are hardware threads of the same cores.
//
// Nouns: a Plan is the whole layout; a Target is one server configuration
// (radish with N shards, valkey with N io-threads, redis); a Test is one
// workload (GET, SET, or the 90/10 GET/SET MIX).
//
// It never starts anything; it is arithmetic on counts, tested on its own.
package plan

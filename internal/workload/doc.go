// Package workload makes the random command stream the differential tests
// send: strings, keys, lists, hashes, sets and sorted sets over a few keys
// of each type on several shards, wrong types and wrong arities, database
// switches, expiry options, blocking pops with short timeouts, DUMP and
// RESTORE (dump.go), bit commands on the strings (bits.go), HyperLogLogs
// compared byte for byte (hll.go), geo sets (geo.go), and transaction
// blocks (MULTI ... EXEC or DISCARD, with WATCH and the errors that abort
// EXEC or do not).
//
// FuzzCall turns a fuzz target's input into a call of a command row (the
// command package's FuzzHandlers, the shard package's
// FuzzServerCommands).
//
// e2e.TestAgainstRedis sends it to radish-server and redis-server, the
// shard package's simulator to several simulated shards and to one; both
// compare the replies with Canonical.
//
// What must stay true: a command's reply depends neither on chance nor on
// the clock (beyond TTLs of many seconds, and timeouts of empty keys), so
// two servers given the same stream must answer byte for byte alike.
package workload

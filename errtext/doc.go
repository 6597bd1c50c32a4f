// Package errtext holds Redis 7.0's error reply texts that more than one
// command, or more than one package, answers: each is written here once,
// with its code and without the leading '-' (resp.Writer.Error adds it).
// A text that only one handler ever replies stays beside that handler.
//
// It imports nothing and is imported by engine (its error values), net/resp
// (the arity error it builds without allocating), command and shard.
//
// What must stay true: every text is byte for byte what redis-server 7.0
// replies (e2e's TestAgainstRedis compares them).
package errtext

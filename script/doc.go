// Package script is the Lua runtime of EVAL and its family: one sandboxed
// Lua 5.1 interpreter per shard (gopher-lua), the scripts it compiled, the
// conversions between RESP and Lua, and the process-wide Registry of
// script bodies by SHA1.
//
// Nouns:
//   - Runtime: a shard's interpreter. Its globals are read-only (a proxy
//     whose metatable reads through and refuses writes: "Attempt to modify
//     a readonly table"; reading a missing global is "Script attempted to
//     access nonexistent global variable"), as are the string, table, math,
//     coroutine, bit, cjson, cmsgpack, struct and redis tables; os, io,
//     debug, loadfile, dofile, require, module and print do not exist. bit
//     and cjson are LuaBitOp's and lua-cjson's behaviour (libs.go),
//     cmsgpack lua-cmsgpack 0.4.0's (msgpack.go), struct Redis's
//     lua_struct as built for x86-64 (struct.go), with Lua 5.1's argument
//     errors.
//   - library: FUNCTION's "#!lua name=" code and the functions it
//     registers (function.go), kept in the Registry and compiled on each
//     shard at first call. FUNCTION DUMP writes the libraries' codes in
//     Redis 7.0's payload and FUNCTION RESTORE compiles a payload's
//     libraries and joins them to the Registry's as Redis's libraryJoin
//     does, all or nothing (restore.go). The libraries persist through
//     shard 0 (shard/snapshot.go): every change to them runs there (the
//     router's Route.First) and is one of its writes, so its log holds
//     them in order; its snapshot file holds them, and its load (from its
//     file, or from a redis-server dump.rdb) restores them for every
//     shard, the Registry being the process's.
//     A run reuses what the last left: its KEYS and ARGV tables (refilled
//     when the last run left them plain arrays: an EVAL script cannot keep
//     a table past its run), redis.call's argument and reply buffers, and
//     the last short bulk string and status text a reply made (a Lua
//     string is a value); integer replies 0 to 255 are boxed once. A
//     compiled script reads redis.call and redis.pcall as constants, not
//     through the proxies, and a call whose results are dropped (a
//     statement) runs a variant that makes no Lua value of its reply
//     (calls.go: the compiled code is rewritten where this is sure); it
//     reads KEYS and ARGV as constants too, the Runtime's tables, which
//     a replaced table replaces in every constant that holds it.
//     rawset and table.insert refuse a proxy, so that no run keeps a value
//     for the next.
//   - Script: a compiled body, by SHA; Spread remembers that a run of it
//     touched keys on several shards.
//   - Host: what runs a script's redis.call where the script runs. The
//     Runtime resolves and checks each call (unknown command, arity,
//     noscript, writes from a read-only script, out of memory) with Redis's
//     texts; the Host runs it, and may refuse it (a key the run does not
//     hold), which abandons the run.
//   - Killer: what SCRIPT KILL and FUNCTION KILL, served by any shard,
//     see of a Runtime's run: the interpreter watches a context (the
//     hook, kill.go) that Kill cancels, unless the run wrote
//     (UNKILLABLE).
//   - Tick: gopher-lua asks the hook for its Done channel before every
//     instruction; every TickEvery instructions the hook calls the
//     Runtime's Tick, the shard's look at the clock during a run.
//   - Registry: the bodies every shard compiles from. SCRIPT LOAD and EVAL
//     add to it, so a script is known on every shard; SCRIPT FLUSH empties
//     it and bumps a generation each Runtime checks before using its cache.
//
// Where a script runs (the shard's business, shard/script.go): on the
// shard of its declared keys, directly on that shard's store and through
// its mutation path, with no lock and no message when the keys are there
// (a hop when they are on one other shard); while it runs, every write
// keeps an undo record (the key's value before, engine Export), so that a
// run that meets a key it cannot use (a key of another shard, or one a
// cross-shard transaction holds) is undone and run again where it can
// succeed: on the shard of that key when it touched no other, else holding
// every shard, on copies of the keys gathered from their shards (the
// gather plan of multi-key commands), fetching each key it meets and
// starting again until a run meets none, then writing back what changed.
// Declared keys over several shards take the same path, holding only
// their keys. A script spread once is remembered, and later calls take
// every shard at once. Lua cannot wait for a message in the middle of a
// call without a goroutine switch per command (the shard's thread runs the
// interpreter), so instead of sending each redis.call to the shard of its
// key, the keys come to the script: one round trip per shard, and Lua
// stays synchronous. A script whose keys, declared or not, share one shard
// (a hash tag) never stops another shard.
//
// A long script (busy-reply-threshold, the shard's business,
// shard/busy.go): the shard's thread is inside the interpreter, so the
// hook is where it acts. Past the threshold the shard turns the server
// busy (a flag every shard's dispatch reads: -BUSY to any command but the
// allow-busy ones), and each Tick polls the shard's own driver without
// waiting, answering its clients in a restricted mode: SCRIPT KILL and
// FUNCTION KILL served (cancelling the hook), SHUTDOWN NOSAVE served (the
// next Tick aborts the run), the commands that touch no data (MULTI,
// AUTH ...) run, the rest get -BUSY. Messages from other shards wait in
// its inbox, and nothing else touches its store until the script ends. A
// driver's Poll is not reentrant, so an EVAL the shard reads inside Poll
// waits for the loop's turn to start. The same Tick measures the heap
// (lua-memory-limit): a script under which it grew past the limit, even
// after a collection, is stopped with an error (Runtime.Fail).
//
// What it never does: touch a store (the Host does), block, or read a clock.
//
// What must stay true:
//   - a Runtime is used by one goroutine, one run at a time;
//   - a script's text and SHA are the same on every shard;
//   - an abandoned run leaves nothing in its Host (the Host undoes).
package script

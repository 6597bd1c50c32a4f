// Package rdb is the one place where a key's value is turned into Redis's
// RDB object encoding and back: DUMP and RESTORE payloads now, and later
// snapshot files, the AOF base file and replication's full sync, which
// frame the same values with keys, expiries and opcodes.
//
// It writes RDB version 10 as Redis 7.0 does (the encoding Redis would
// pick for the same contents and limits, so that a DUMP is byte for byte
// Redis's wherever Redis's bytes do not depend on hash-table order) and
// reads every value type of versions up to 12 (Redis 7.0 to 7.4, Valkey 8)
// that Radish has, the compact encodings of older files included.
//
// # Nouns
//
//   - Record: engine.Record, a key's value in the engine's own
//     serialization (engine.DB.Export and Import); Encoder reads one,
//     Reader.ReadObject builds one.
//   - Type: the byte before a value (Type* constants, rdb.h's
//     RDB_TYPE_*). Written: string, quicklist 2 of listpacks (and plain
//     nodes: an element of at least the packed threshold, plain.go), intset or
//     plain set, listpack or plain hash, listpack or ZSET_2 sorted set,
//     STREAM_LISTPACKS_2 stream (stream.go). Read besides: plain list,
//     ziplist list, quicklist of ziplists, listpack set, ZSET with text
//     scores, ziplist sorted set, ziplist and zipmap hashes, streams of
//     types 15 and 21, consumer groups included. Refused with an
//     UnsupportedError: modules, hashes with field TTLs.
//   - Length: 6, 14, 32 or 64 bits (AppendLen, Reader.ReadLen); a first
//     byte 11xxxxxx instead says a string is encoded: an 8, 16 or 32-bit
//     integer, or LZF (package lzf).
//   - Listpack, ziplist, zipmap, intset: the compact structures stored
//     inside a string (listpack.go, ziplist.go).
//   - DUMP payload: type byte and object, RDB version (2 bytes LE), CRC64
//     of all before (8 bytes LE; crc64.go is Redis's Jones CRC).
//   - Function record: RDB_OPCODE_FUNCTION2 and a FUNCTION library's code
//     as a string (function.go); FUNCTION DUMP's payload is such records
//     and a DUMP payload's footer.
//
// # What it never does
//
// It does no I/O (it appends to byte slices and reads from them), starts
// no goroutines and reads no clock. The reader never panics and never
// loops without consuming input; it never allocates from a length field
// alone: a count or string length is checked against the bytes that
// remain, and an LZF length against 88 times its compressed size (the
// format's largest ratio), before any allocation.
//
// # What must stay true
//
//   - ParseDump(AppendDump(r)) has r's contents, for every record of a non-empty
//     value (the fuzz test checks it for everything the reader accepts).
//   - Every malformed input is an error matching ErrFormat, an
//     UnsupportedError, or (footer) ErrPayload; nothing else.
//   - A decoded Record has neither Raw nor Text set: the engine gives the
//     value the encoding its contents call for, as Redis does on load.
//     Empty values, duplicate members or fields, NaN scores and compact
//     structures out of order are errors, as in Redis with
//     sanitize-dump-payload yes (Radish always checks deeply).
//   - An Encoder and a Reader belong to one goroutine; slices a Reader
//     returns are valid until its next call.
package rdb

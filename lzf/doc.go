// Package lzf is LZF, the compression Redis uses for strings in RDB files
// and DUMP payloads (RDB_ENC_LZF) and for the inner nodes of a list under
// list-compress-depth: liblzf's format, with liblzf 3.6's choices, so that
// what it compresses is byte for byte what Redis writes (lzf.go).
//
// Nouns: Table, the compressor's hash table, reused across calls without
// clearing; a run, one literal or back reference of the format.
//
// It never allocates beyond the output it appends, and Decompress refuses
// any input that does not decompress to exactly the length asked for.
package lzf

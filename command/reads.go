package command

import "bytes"

// Keyspace hits and misses. Redis counts the lookups a command makes with
// lookupKeyRead (keyspace_hits, keyspace_misses, and a keymiss event for
// each miss) and not those made with lookupKeyWrite. Every read-only
// command reads so; writeReads lists the write commands that read some of
// their keys so too, with how (checked against redis-server 7.0's INFO
// stats after each, e2e/TestKeyMissAgainstRedis).

// ReadMode is how a command's lookups of keys count as keyspace hits and
// misses.
type ReadMode uint8

// Read modes.
const (
	ReadsNone ReadMode = iota // not counted (a write command's lookups)
	// ReadsLookups: the lookups the engine's read paths make while the
	// command's handler runs count (every read-only command, GETEX, SET
	// ... GET, SORT, whose STORE ends them: engine.DB.EndReads).
	ReadsLookups
	// ReadsAccessKeys: each key argument whose key spec is flagged ACCESS
	// counts once, found or not, before the command runs (a *STORE's
	// sources, COPY's source, PFMERGE's keys): the command's own lookups,
	// which include its destination's, do not.
	ReadsAccessKeys
	// ReadsSilently: as ReadsLookups, but a miss emits no keymiss event
	// (OBJECT, which Redis looks up with LOOKUP_NONOTIFY).
	ReadsSilently
)

var writeReads = map[string]func(args [][]byte) ReadMode{
	"getex": lookups, "getdel": lookups, "getset": lookups,
	"set": func(args [][]byte) ReadMode { return modeIf(hasWord(args[3:], "get"), ReadsLookups) },
	// BITFIELD of GETs alone reads its key as a read (Redis's
	// BITFIELD_RO path); one that sets or increments looks it up to write.
	"bitfield": func(args [][]byte) ReadMode {
		return modeIf(!hasWord(args[2:], "set") && !hasWord(args[2:], "incrby"), ReadsLookups)
	},
	"sort": lookups,
	"copy": accessKeys, "bitop": accessKeys, "pfmerge": accessKeys,
	"sunionstore": accessKeys, "sinterstore": accessKeys, "sdiffstore": accessKeys,
	"zunionstore": accessKeys, "zinterstore": accessKeys, "zdiffstore": accessKeys, "zrangestore": accessKeys,
	"georadius": accessKeys, "georadiusbymember": accessKeys, "geosearchstore": accessKeys,
	"xack": lookups, "xclaim": lookups, "xautoclaim": lookups, "xreadgroup": lookups,
	"object|encoding": silently, "object|freq": silently, "object|idletime": silently, "object|refcount": silently,
}

func lookups([][]byte) ReadMode    { return ReadsLookups }
func accessKeys([][]byte) ReadMode { return ReadsAccessKeys }
func silently([][]byte) ReadMode   { return ReadsSilently }

func modeIf(cond bool, m ReadMode) ReadMode {
	if cond {
		return m
	}
	return ReadsNone
}

// hasWord reports whether one of args is word, in any case.
func hasWord(args [][]byte, word string) bool {
	for _, a := range args {
		if bytes.EqualFold(a, []byte(word)) {
			return true
		}
	}
	return false
}

// Reads is how s's lookups of keys, with these arguments, count as
// keyspace hits and misses.
func (s *Spec) Reads(args [][]byte) ReadMode {
	switch {
	case s.reads != nil:
		return s.reads(args)
	case s.Flags&ReadOnly != 0:
		return ReadsLookups
	}
	return ReadsNone
}

// AccessKeys appends to dst the argument indexes of the keys in args
// whose key spec is flagged ACCESS (the command reads their values), in
// Keys's order. It does not allocate when dst has room.
func (s *Spec) AccessKeys(args [][]byte, dst []int) []int {
	var buf [4]KeyRange
	rs, ok := s.KeyRanges(args, buf[:0])
	if !ok {
		return dst
	}
	for _, r := range rs {
		if s.KeyFlagsOf(r, args)&KeyAccess == 0 {
			continue
		}
		for i := r.First; i <= r.Last; i += r.Step {
			dst = append(dst, i)
		}
	}
	return dst
}

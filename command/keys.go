package command

import (
	"bytes"

	"github.com/radish-kv/radish/num"
)

// KeyRange is where one key spec found its keys in one argument list, in
// absolute argument indexes (args[0] is the command name). Keys are at
// First, First+Step, ... up to Last. The Step-1 arguments after each key
// travel with it (MSET's value). With Blocks > 1 (XREAD's STREAMS k1 k2 id1
// id2) the keys are consecutive and key j's companions are at
// First+j+m*Count for m in 1..Blocks-1. NumIdx is the index of the argument
// holding the key count (keynum specs), or 0.
type KeyRange struct {
	Spec   int // index in Spec.KeySpecs
	First  int
	Last   int
	Step   int
	Count  int // number of keys in the range
	Blocks int
	NumIdx int
}

// End returns the index just past the arguments the range covers: its keys
// and all their companions.
func (r KeyRange) End() int {
	if r.Count == 0 {
		return r.First
	}
	if r.Blocks > 1 {
		return r.First + r.Count*r.Blocks
	}
	return r.Last + r.Step
}

// KeyRanges resolves the row's key specs against args (args[0] is the
// command name) as Redis 7.0's getKeysUsingKeySpecs does, appending one
// KeyRange per spec that found keys to dst. Specs flagged KeyNotKey and
// Unknown specs are skipped, as is a keyword spec whose keyword is absent.
// ok is false when keys cannot be determined (a bad or out-of-range numkeys,
// a range past the end): the handler will report the error. A row without
// key specs but with a legacy First/Last/Step uses that; a row with
// GetKeys uses that instead. It does not allocate when dst has room,
// except for a row with GetKeys (dst would escape through the call, so
// GetKeys fills a slice of its own, appended to dst).
func (s *Spec) KeyRanges(args [][]byte, dst []KeyRange) (out []KeyRange, ok bool) {
	if s.GetKeys != nil {
		return append(dst, s.GetKeys(args, nil)...), true
	}
	return s.specRanges(args, dst)
}

// specRanges is KeyRanges from the key specs.
func (s *Spec) specRanges(args [][]byte, dst []KeyRange) (out []KeyRange, ok bool) {
	argc := len(args)
	if len(s.KeySpecs) == 0 {
		if s.First <= 0 {
			return dst, true
		}
		last := s.Last
		if last < 0 {
			last += argc
		}
		step := max(s.Step, 1)
		if s.First >= argc || last >= argc || last < s.First {
			return dst, false
		}
		return append(dst, KeyRange{Spec: -1, First: s.First, Last: last, Step: step,
			Count: (last-s.First)/step + 1, Blocks: 1}), true
	}
	for j := range s.KeySpecs {
		k := &s.KeySpecs[j]
		if k.Flags&KeyNotKey != 0 || k.Unknown {
			continue
		}
		first := 0
		if k.Index > 0 {
			first = k.Index
		} else {
			first = keywordStart(k, args)
			if first == 0 {
				continue
			}
		}
		r := KeyRange{Spec: j, Blocks: 1}
		var last int
		if !k.KeyNum {
			r.Step = max(k.Step, 1)
			switch {
			case k.LastKey >= 0:
				last = first + k.LastKey
			case k.Limit <= 1:
				last = argc + k.LastKey
			default:
				last = first + (argc-first)/k.Limit + k.LastKey
				r.Blocks = k.Limit
			}
		} else {
			r.Step = max(k.Step, 1)
			if k.NumIdx >= argc-first {
				return dst, false
			}
			r.NumIdx = first + k.NumIdx
			n, good := num.ParseInt(args[r.NumIdx])
			if !good || n < 0 || n > int64(argc) {
				return dst, false
			}
			first += k.FirstKey
			last = first + int(n) - 1
			if n == 0 {
				// Redis finds the spec invalid (last < first) and falls back
				// to the command's own getkeys, which accepts zero keys only
				// for commands such as EVAL that need none.
				if s.Flags&NoMandatoryKeys != 0 {
					continue
				}
				return dst, false
			}
		}
		if last >= argc || last < first || first >= argc {
			return dst, false
		}
		r.First, r.Last = first, last
		r.Count = (last-first)/r.Step + 1
		dst = append(dst, r)
	}
	return dst, true
}

func keywordStart(k *KeySpec, args [][]byte) int {
	argc := len(args)
	start, end := k.KeywordFrom, 0
	if k.KeywordFrom > 0 {
		end = argc - 1
	} else {
		start = argc + k.KeywordFrom
	}
	for i := start; i != end; {
		if i >= argc || i < 1 {
			break
		}
		if len(args[i]) == len(k.Keyword) && bytes.EqualFold(args[i], []byte(k.Keyword)) {
			return i + 1
		}
		if start <= end {
			i++
		} else {
			i--
		}
	}
	return 0
}

// Keys appends to dst the argument indexes of the keys in args (args[0] is
// the command name), spec by spec, in the order Redis's COMMAND GETKEYS
// lists them. ok is false when the keys cannot be determined (bad numkeys);
// the handler reports the error. It does not allocate when dst has room.
func (s *Spec) Keys(args [][]byte, dst []int) (out []int, ok bool) {
	if i := s.oneKey; i > 0 {
		// What the specs give, without walking them: every command on a
		// server of several shards is placed by its keys.
		if i >= len(args) {
			return dst, false
		}
		return append(dst, i), true
	}
	return s.specKeys(args, dst)
}

// specKeys is Keys from the key ranges.
func (s *Spec) specKeys(args [][]byte, dst []int) (out []int, ok bool) {
	var buf [4]KeyRange
	rs, ok := s.KeyRanges(args, buf[:0])
	if !ok {
		return dst, false
	}
	for _, r := range rs {
		for i := r.First; i <= r.Last; i += r.Step {
			dst = append(dst, i)
		}
	}
	return dst, true
}

// HasKeys reports whether the row declares keys (COMMAND GETKEYS says "The
// command has no key arguments" otherwise).
func (s *Spec) HasKeys() bool {
	for i := range s.KeySpecs {
		if s.KeySpecs[i].Flags&KeyNotKey == 0 {
			return true
		}
	}
	return len(s.KeySpecs) == 0 && s.First > 0
}

// KeyFlagsOf returns the flags of the keys range r found in args: its key
// spec's or, for a spec flagged KeyVariableFlags, those the row's KeyFlags
// gives these arguments. A legacy range (no key spec) has none.
func (s *Spec) KeyFlagsOf(r KeyRange, args [][]byte) KeyFlag {
	if r.Spec < 0 {
		return 0
	}
	f := s.KeySpecs[r.Spec].Flags
	if f&KeyVariableFlags != 0 && s.KeyFlags != nil {
		return s.KeyFlags(args)
	}
	return f
}

// oneKey returns the index of s's only key when its key specs (or, with
// none, its first and last key) always find exactly one key there, else
// 0: no GetKeys, one key spec that is a key at a fixed index, a range of
// one.
func oneKey(s *Spec) int {
	if s.GetKeys != nil {
		return 0
	}
	if len(s.KeySpecs) == 0 {
		if s.First > 0 && s.Last == s.First {
			return s.First
		}
		return 0
	}
	idx := 0
	for j := range s.KeySpecs {
		k := &s.KeySpecs[j]
		if k.Flags&KeyNotKey != 0 || k.Unknown {
			continue
		}
		if idx != 0 || k.Index <= 0 || k.KeyNum || k.LastKey != 0 {
			return 0
		}
		idx = k.Index
	}
	return idx
}

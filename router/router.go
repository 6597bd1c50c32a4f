package router

import (
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/radish-kv/radish/command"
)

// Tag returns the part of key that decides its shard: the bytes between the
// first '{' and the first '}' after it when that is non-empty, else the
// whole key. The result aliases key.
func Tag(key []byte) []byte {
	for i, c := range key {
		if c == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j == i+1 {
						return key // "{}": the whole key
					}
					return key[i+1 : j]
				}
			}
			return key
		}
	}
	return key
}

// ShardOf returns the shard (0..n-1) that owns key among n shards. It does
// not allocate. n must be > 0.
func ShardOf(key []byte, n int) int {
	return int(xxhash.Sum64(Tag(key)) % uint64(n))
}

// Part is the share of one shard in a command whose keys span shards.
type Part struct {
	Shard int
	// Args is the command to run on Shard. When the command is cut
	// (see Splitter.Split) it holds only this shard's keys; otherwise it is
	// the client's whole argument list. Its slices alias the client's args,
	// except a rewritten key count which points into the Splitter: valid
	// until the next Split on the same Splitter (use Clone to keep it).
	Args [][]byte
	// Pos is each key's rank among all the command's keys (0-based, in
	// argument order): its index in an MGET-style reply. Ascending.
	Pos []int
	// KeyIdx is the index in Args of each key, parallel to Pos. The
	// arguments that travel with a key follow it (MSET: Args[KeyIdx[i]+1]).
	KeyIdx []int
}

// Clone returns a copy of p that shares nothing with the Splitter or the
// client's buffers.
func (p Part) Clone() Part {
	return Part{Shard: p.Shard, Args: command.CopyArgs(p.Args),
		Pos: append([]int(nil), p.Pos...), KeyIdx: append([]int(nil), p.KeyIdx...)}
}

// Splitter cuts commands into per-shard parts. It reuses its buffers: after
// a few calls Split does not allocate. One Splitter per shard goroutine.
type Splitter struct {
	ranges []command.KeyRange
	shards []int // shard of each key, in key order
	counts []int // per shard: number of its keys
	parts  []Part
	args   [][]byte
	ints   []int
	num    []byte
	numIdx int // where the last Split's parts hold a key count it wrote (0: none)
}

// OwnAppend returns a copy of p, a part of the last Split, that shares
// nothing with the Splitter, for a caller whose args (those given to
// Split) outlive it: the arguments p has of args stay args' own, and only
// what Split wrote (a part's key count) is copied; cheaper than Clone. The
// copy lives in buffers the caller reuses: p's argument list is appended
// to args, its Pos and KeyIdx to ints, the key count to num; it returns
// the copy and the buffers, grown if they had to be (a copy made before
// keeps the arrays it points into).
func (s *Splitter) OwnAppend(p Part, args [][]byte, ints []int, num []byte) (Part, [][]byte, []int, []byte) {
	a, i, c := len(args), len(ints), len(p.Pos)
	args = append(args, p.Args...)
	ints = append(append(ints, p.Pos...), p.KeyIdx...)
	q := Part{Shard: p.Shard, Args: args[a:len(args):len(args)], Pos: ints[i : i+c : i+c], KeyIdx: ints[i+c : len(ints) : len(ints)]}
	if k := s.numIdx; k > 0 && k < len(q.Args) {
		n := len(num)
		num = append(num, q.Args[k]...)
		q.Args[k] = num[n:len(num):len(num)]
	}
	return q, args, ints, num
}

// Split groups the keys of args (args[0] is the command name), found at
// the argument indexes idx (from spec.Keys), by shard among n, and returns
// one part per shard holding keys, in ascending shard order. No keys: no
// parts. All keys on one shard: one part with the client's args.
//
// Otherwise the command is cut when its row merges replies (Merge is not
// MergeNone) and its keys
// come from a single key spec: each part holds the arguments before the
// first key (a keynum count rewritten to the part's number of keys), this
// shard's keys each with the arguments that travel with it (the Step-1
// after it, or XREAD's ids), then the arguments after the keys. Commands
// that cannot be cut (MergeNone rows such as RENAME, which the shard runs
// on gathered copies, or keys from several specs) get parts that all carry the client's whole args, with KeyIdx
// naming this shard's keys in them.
//
// The parts and their slices are valid until the next Split.
func (s *Splitter) Split(spec *command.Spec, args [][]byte, idx []int, n int) []Part {
	nk := len(idx)
	s.numIdx = 0
	if nk == 0 {
		return nil
	}
	s.shards = s.shards[:0]
	one := true
	for _, i := range idx {
		sh := ShardOf(args[i], n)
		s.shards = append(s.shards, sh)
		one = one && sh == s.shards[0]
	}
	s.ints = grow(s.ints, 2*nk)
	s.parts = s.parts[:0]
	if one {
		pos, kidx := s.ints[:nk:nk], s.ints[nk:2*nk]
		copy(kidx, idx)
		for i := range pos {
			pos[i] = i
		}
		s.parts = append(s.parts, Part{Shard: s.shards[0], Args: args, Pos: pos, KeyIdx: kidx})
		return s.parts
	}
	s.counts = grow(s.counts, n)
	clear(s.counts)
	for _, sh := range s.shards {
		s.counts[sh]++
	}
	var r command.KeyRange
	cut := false
	if spec.Merge != command.MergeNone {
		var ok bool
		s.ranges, ok = spec.KeyRanges(args, s.ranges[:0])
		if ok && len(s.ranges) == 1 && s.ranges[0].Count == nk && s.ranges[0].First == idx[0] {
			r, cut = s.ranges[0], true
		}
	}
	if !cut {
		used := 0
		for sh, c := range s.counts {
			if c == 0 {
				continue
			}
			p := Part{Shard: sh, Args: args, Pos: s.ints[used : used : used+c],
				KeyIdx: s.ints[nk+used : nk+used : nk+used+c]}
			used += c
			for k, ksh := range s.shards {
				if ksh == sh {
					p.Pos = append(p.Pos, k)
					p.KeyIdx = append(p.KeyIdx, idx[k])
				}
			}
			s.parts = append(s.parts, p)
		}
		return s.parts
	}

	np := 0
	for _, c := range s.counts {
		if c > 0 {
			np++
		}
	}
	s.numIdx = r.NumIdx
	per := r.Step // arguments per key
	if r.Blocks > 1 {
		per = r.Blocks
	}
	prefix, suffix := args[:r.First], args[min(r.End(), len(args)):]
	s.args = grow2(s.args, np*(len(prefix)+len(suffix))+nk*per)
	s.num = growB(s.num, np*20)
	used, argsUsed, numUsed := 0, 0, 0
	for sh, c := range s.counts {
		if c == 0 {
			continue
		}
		size := len(prefix) + len(suffix) + c*per
		p := Part{Shard: sh, Args: s.args[argsUsed : argsUsed : argsUsed+size],
			Pos: s.ints[used : used : used+c], KeyIdx: s.ints[nk+used : nk+used : nk+used+c]}
		argsUsed += size
		used += c
		p.Args = append(p.Args, prefix...)
		if r.NumIdx > 0 {
			b := strconv.AppendInt(s.num[numUsed:numUsed], int64(c), 10)
			p.Args[r.NumIdx] = b
			numUsed += len(b)
		}
		for k, ksh := range s.shards {
			if ksh != sh {
				continue
			}
			p.Pos = append(p.Pos, k)
			if r.Blocks > 1 {
				p.KeyIdx = append(p.KeyIdx, len(prefix)+len(p.KeyIdx))
				continue
			}
			i := idx[k]
			p.KeyIdx = append(p.KeyIdx, len(p.Args))
			p.Args = append(p.Args, args[i:min(i+r.Step, len(args))]...)
		}
		if r.Blocks > 1 {
			for m := 0; m < r.Blocks; m++ {
				for _, k := range p.Pos {
					if j := r.First + k + m*r.Count; j < len(args) {
						p.Args = append(p.Args, args[j])
					}
				}
			}
		}
		p.Args = append(p.Args, suffix...)
		s.parts = append(s.parts, p)
	}
	return s.parts
}

func grow(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n, 2*n)
	}
	return b[:n]
}

func grow2(b [][]byte, n int) [][]byte {
	if cap(b) < n {
		return make([][]byte, n, 2*n)
	}
	return b[:n]
}

func growB(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, 2*n)
	}
	return b[:n]
}

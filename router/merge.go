package router

import (
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
)

// ErrMerge: a part's reply does not have the shape the merge kind needs
// (an internal error: the shard loop should reply with an error).
var ErrMerge = errors.New("router: part reply cannot be merged")

// Merger combines the parts' replies. It reuses its buffers; one per shard
// goroutine.
type Merger struct {
	elems []span // MergeKeyOrder: element bytes by key rank
	text  []byte // MergeText scratch
}

type span struct{ part, lo, hi int }

// Merge writes to w the client's reply built from replies, where
// replies[i] is the raw reply (one complete RESP value, in the client's
// protocol, as resp.Writer wrote it) of parts[i]. parts may be nil except
// for MergeKeyOrder. When any reply is an error, the first one (in part
// order) is the client's reply. kind is the row's Merge:
//   - MergeSum: integer replies added.
//   - MergeKeyOrder: array replies, one element per key of the part, put
//     back in the client's key order (Part.Pos).
//   - MergeAllOK: the first reply when every reply is a status (+OK).
//   - MergeConcat: array or set replies concatenated; the first reply's
//     aggregate type is kept.
//   - MergeAny: the first reply that is not null, else the first reply.
//   - MergeFound: the first reply that is not an error (the shard that
//     found what the command looked for), else the first error.
//   - MergeText: bulk or verbatim string replies concatenated into one
//     verbatim "txt" reply (a bulk string for RESP2), as CLIENT LIST and
//     INFO-like commands need.
//   - MergeDigest: arrays of one element per database, null or the hex
//     XOR of the part's key digests, mixed into the dataset's digest
//     (command.DatasetDigest), a status reply.
//   - MergeXor: arrays of hex digests XORed element by element.
//   - MergeUnion: arrays of bulk strings, each distinct string once, in
//     the order first seen; MergeUnionCount: how many distinct strings.
//   - MergePairSum: arrays of the same name, integer pairs: the first
//     part's names with the integers added.
//   - MergeNone: the single reply as is.
//
// Merge copies element bytes without re-encoding them, so RESP2 and RESP3
// replies pass through unchanged.
func (m *Merger) Merge(w *resp.Writer, kind command.Merge, parts []Part, replies [][]byte) error {
	if len(replies) == 0 {
		return ErrMerge
	}
	if kind == command.MergeFound {
		for _, r := range replies {
			if len(r) > 0 && r[0] != '-' {
				w.B = append(w.B, r...)
				return nil
			}
		}
		w.B = append(w.B, replies[0]...)
		return nil
	}
	for _, r := range replies {
		if len(r) > 0 && (r[0] == '-' || r[0] == '!') {
			w.B = append(w.B, r...)
			return nil
		}
	}
	switch kind {
	case command.MergeNone:
		if len(replies) != 1 {
			return ErrMerge
		}
		w.B = append(w.B, replies[0]...)
	case command.MergeSum:
		var sum int64
		for _, r := range replies {
			v, n, err := resp.ReadReply(r)
			if err != nil || n == 0 || v.Type != ':' {
				return ErrMerge
			}
			sum += v.Int
		}
		w.Int(sum)
	case command.MergeAllOK:
		for _, r := range replies {
			if len(r) == 0 || r[0] != '+' {
				return ErrMerge
			}
		}
		w.B = append(w.B, replies[0]...)
	case command.MergeAny:
		for _, r := range replies {
			if !isNull(r) {
				w.B = append(w.B, r...)
				return nil
			}
		}
		w.B = append(w.B, replies[0]...)
	case command.MergeConcat:
		total := 0
		for _, r := range replies {
			n, _, ok := aggHeader(r)
			if !ok {
				return ErrMerge
			}
			total += n
		}
		// The parts' header type (a RESP3 set stays a set), not w.Proto's.
		w.B = append(w.B, replies[0][0])
		w.B = strconv.AppendInt(w.B, int64(total), 10)
		w.B = append(w.B, '\r', '\n')
		for _, r := range replies {
			_, hdr, _ := aggHeader(r)
			w.B = append(w.B, r[hdr:]...)
		}
	case command.MergeKeyOrder:
		if len(parts) != len(replies) {
			return ErrMerge
		}
		total := 0
		for _, p := range parts {
			total += len(p.Pos)
		}
		if cap(m.elems) < total {
			m.elems = make([]span, total)
		}
		m.elems = m.elems[:total]
		for i, r := range replies {
			n, off, ok := aggHeader(r)
			if !ok || n != len(parts[i].Pos) {
				return ErrMerge
			}
			for _, ord := range parts[i].Pos {
				_, k, err := resp.ReadReply(r[off:])
				if err != nil || k == 0 || ord >= total {
					return ErrMerge
				}
				m.elems[ord] = span{i, off, off + k}
				off += k
			}
		}
		w.Array(total)
		for _, e := range m.elems {
			w.B = append(w.B, replies[e.part][e.lo:e.hi]...)
		}
	case command.MergeText:
		m.text = m.text[:0]
		for _, r := range replies {
			v, n, err := resp.ReadReply(r)
			if err != nil || n == 0 || (v.Type != '$' && v.Type != '=' && v.Type != '+') {
				return ErrMerge
			}
			if v.Type == '=' && len(v.Str) >= 4 {
				v.Str = v.Str[4:] // drop "txt:"
			}
			m.text = append(m.text, v.Str...)
		}
		w.Verbatim("txt", m.text)
	case command.MergeDigest, command.MergeXor:
		return m.digests(w, kind, replies)
	case command.MergeUnion, command.MergeUnionCount:
		return union(w, kind, replies)
	case command.MergePairSum:
		return pairSum(w, replies)
	default:
		return ErrMerge
	}
	return nil
}

// digests merges DEBUG DIGEST's and DIGEST-VALUE's parts (MergeDigest,
// MergeXor): arrays of the same length whose elements are hex digests or,
// for MergeDigest, nulls (a database the part holds no key of).
func (m *Merger) digests(w *resp.Writer, kind command.Merge, replies [][]byte) error {
	n, _, ok := aggHeader(replies[0])
	if !ok {
		return ErrMerge
	}
	sums := make([]command.Digest, n)
	present := make([]bool, n)
	for _, r := range replies {
		k, off, ok := aggHeader(r)
		if !ok || k != n {
			return ErrMerge
		}
		for i := range n {
			v, size, err := resp.ReadReply(r[off:])
			if err != nil || size == 0 {
				return ErrMerge
			}
			off += size
			if isNull(r[off-size : off]) {
				continue
			}
			var d command.Digest
			if v.Type != '+' || hex.DecodedLen(len(v.Str)) != len(d) {
				return ErrMerge
			}
			if _, err := hex.Decode(d[:], v.Str); err != nil {
				return ErrMerge
			}
			sums[i].Xor(&d)
			present[i] = true
		}
	}
	if kind == command.MergeDigest {
		d := command.DatasetDigest(sums, present)
		w.Simple(hex.EncodeToString(d[:]))
		return nil
	}
	w.Array(n)
	for i := range sums {
		w.Simple(hex.EncodeToString(sums[i][:]))
	}
	return nil
}

// Merge is Merger.Merge for callers off the hot path: it returns the
// client's reply in a new slice, or an error reply when the parts' replies
// cannot be merged.
func Merge(kind command.Merge, proto int, parts []Part, replies [][]byte) []byte {
	var m Merger
	return m.Append(nil, kind, proto, parts, replies)
}

// Append is Merge with m's scratch, appending the reply to dst.
func (m *Merger) Append(dst []byte, kind command.Merge, proto int, parts []Part, replies [][]byte) []byte {
	w := resp.Writer{Proto: proto, B: dst}
	if err := m.Merge(&w, kind, parts, replies); err != nil {
		w.B = w.B[:len(dst)]
		w.Error("ERR " + err.Error())
	}
	return w.B
}

// isNull reports whether r is a null reply: "_", "$-1" or "*-1".
func isNull(r []byte) bool {
	return len(r) > 0 && (r[0] == '_' || (len(r) >= 3 && (r[0] == '$' || r[0] == '*') && r[1] == '-'))
}

// aggHeader parses an array or set header: element count and header size.
func aggHeader(r []byte) (n, size int, ok bool) {
	if len(r) < 4 || (r[0] != '*' && r[0] != '~') {
		return 0, 0, false
	}
	for i := 1; i < len(r); i++ {
		c := r[i]
		if c == '\r' {
			if i == 1 || i+1 >= len(r) || r[i+1] != '\n' {
				return 0, 0, false
			}
			return n, i + 2, true
		}
		if c < '0' || c > '9' {
			return 0, 0, false // also a null array "*-1"
		}
		n = n*10 + int(c-'0')
	}
	return 0, 0, false
}

// union merges MergeUnion and MergeUnionCount parts: arrays of bulk
// strings.
func union(w *resp.Writer, kind command.Merge, replies [][]byte) error {
	seen := make(map[string]struct{})
	var names []string
	for _, r := range replies {
		n, off, ok := aggHeader(r)
		if !ok {
			return ErrMerge
		}
		for range n {
			v, size, err := resp.ReadReply(r[off:])
			if err != nil || size == 0 || v.Type != '$' {
				return ErrMerge
			}
			off += size
			if _, dup := seen[string(v.Str)]; !dup {
				seen[string(v.Str)] = struct{}{}
				names = append(names, string(v.Str))
			}
		}
	}
	if kind == command.MergeUnionCount {
		w.Int(int64(len(names)))
		return nil
	}
	w.Array(len(names))
	for _, name := range names {
		w.BulkString(name)
	}
	return nil
}

// pairSum merges MergePairSum parts: arrays of name, integer pairs, the
// same names in the same order in every part.
func pairSum(w *resp.Writer, replies [][]byte) error {
	n, _, ok := aggHeader(replies[0])
	if !ok || n%2 != 0 {
		return ErrMerge
	}
	names := make([][]byte, n/2)
	sums := make([]int64, n/2)
	for _, r := range replies {
		k, off, ok := aggHeader(r)
		if !ok || k != n {
			return ErrMerge
		}
		for i := range n {
			v, size, err := resp.ReadReply(r[off:])
			if err != nil || size == 0 {
				return ErrMerge
			}
			off += size
			switch {
			case i%2 == 0 && v.Type == '$':
				names[i/2] = v.Str
			case i%2 == 1 && v.Type == ':':
				sums[i/2] += v.Int
			default:
				return ErrMerge
			}
		}
	}
	w.Array(n)
	for i, name := range names {
		w.Bulk(name)
		w.Int(sums[i])
	}
	return nil
}

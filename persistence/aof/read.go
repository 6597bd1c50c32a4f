package aof

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/radish-kv/radish/net/resp"
)

// txnKey names a cross-shard transaction in the logs: the epoch of the
// process that ran it and its id there.
type txnKey struct {
	epoch int64
	txn   uint64
}

// partKey names one shard's part of a transaction.
type partKey struct {
	txnKey
	part int
}

// tally is what the first pass found in one shard's incremental files:
// per transaction part held whole, its part count and how many of the
// shard's rewrite cuts follow it; the cuts (RADISH.CUT) in the order the
// files hold them; and the cut its base holds (the RADISH.BASE the first
// file starts with, 0: none).
type tally struct {
	parts map[partKey]partSeen
	cuts  []int64
	base  int64
}

// partSeen is one part in a shard's files: its transaction's part count,
// and the index in tally.cuts of the first cut after it (len: none).
type partSeen struct {
	parts int
	cut   int
}

func (t *tally) add(k partKey, parts int) {
	if t.parts == nil {
		t.parts = make(map[partKey]partSeen)
	}
	t.parts[k] = partSeen{parts: parts, cut: -1}
}

// cut records a RADISH.CUT: every part seen so far precedes it.
func (t *tally) cut(id int64) {
	for k, p := range t.parts {
		if p.cut < 0 {
			p.cut = len(t.cuts)
			t.parts[k] = p
		}
	}
	t.cuts = append(t.cuts, id)
}

// complete returns the transactions to replay: those every part of which
// some log holds, and those one of whose parts precedes, in its shard's
// files, a cut that some shard's base holds. A base holding cut c was
// put in place only once every shard's log was on disk up to c (see
// doc.go), and a transaction that ran on some shard before c ran before c
// on every shard (the cut holds every shard's every key at once): so each
// of its parts is in a log, or in the base of a shard that cut at c.
func complete(ts []tally) map[txnKey]bool {
	held := map[int64]bool{}
	for _, t := range ts {
		if t.base != 0 {
			held[t.base] = true
		}
	}
	seen := make(map[txnKey]int)
	want := make(map[txnKey]int)
	covered := make(map[txnKey]bool)
	for _, t := range ts {
		// after[k]: some cut from the k-th on is held by a base.
		after := make([]bool, len(t.cuts)+1)
		for k := len(t.cuts) - 1; k >= 0; k-- {
			after[k] = after[k+1] || held[t.cuts[k]]
		}
		for k, p := range t.parts {
			seen[k.txnKey]++
			want[k.txnKey] = p.parts
			if p.cut >= 0 && after[p.cut] {
				covered[k.txnKey] = true
			}
		}
	}
	out := make(map[txnKey]bool, len(seen))
	for k, n := range seen {
		out[k] = n == want[k] || covered[k]
	}
	return out
}

// errTorn is a file that ends inside a command.
var errTorn = errors.New("unexpected end of file")

// scanner reads the commands of an incremental file in order.
type scanner struct {
	data []byte
	off  int // where the next command starts
	r    resp.Reader
}

func newScanner(data []byte) *scanner {
	s := &scanner{data: data}
	s.r.MaxBulkLen, s.r.MaxMultibulkLen = math.MaxInt64, math.MaxInt64
	return s
}

// next returns the next command, nil at the clean end of the file,
// errTorn when the file ends inside one, a format error for bytes that
// are no command. The args are valid until the next call.
func (s *scanner) next() ([][]byte, error) {
	for s.off < len(s.data) {
		if s.data[s.off] == '#' {
			// An annotation (#TS:...), a line the load skips, as Redis's.
			n := bytes.IndexByte(s.data[s.off:], '\n')
			if n < 0 {
				return nil, errTorn
			}
			s.off += n + 1
			continue
		}
		if s.data[s.off] != '*' {
			return nil, errFormat
		}
		args, n, err := s.r.Next(s.data[s.off:])
		if err != nil {
			return nil, errFormat
		}
		if n == 0 {
			return nil, errTorn
		}
		s.off += n
		if len(args) > 0 {
			return args, nil
		}
	}
	return nil, nil
}

var errFormat = errors.New("bad file format")

// marker is a decoded RADISH.* command, or kind 0 for any other.
type marker struct {
	kind  int
	epoch int64
	cut   int64 // a rewrite's id (CUT, BASE)
	part  partKey
	parts int
	n     int
}

const (
	markEpoch = 1
	markPart  = 2
	markCut   = 3
	markBase  = 4
)

// parseMarker reads args as a marker; ok is false for a marker with bad
// arguments.
func parseMarker(args [][]byte, epoch int64) (m marker, ok bool) {
	switch {
	case bytes.EqualFold(args[0], []byte("RADISH.EPOCH")):
		if len(args) != 2 {
			return m, false
		}
		e, err := strconv.ParseInt(string(args[1]), 10, 64)
		return marker{kind: markEpoch, epoch: e}, err == nil
	case bytes.EqualFold(args[0], []byte("RADISH.CUT")), bytes.EqualFold(args[0], []byte("RADISH.BASE")):
		if len(args) != 2 {
			return m, false
		}
		c, err := strconv.ParseInt(string(args[1]), 10, 64)
		kind := markCut
		if len(args[0]) == len("RADISH.BASE") {
			kind = markBase
		}
		return marker{kind: kind, cut: c}, err == nil && c > 0
	case bytes.EqualFold(args[0], []byte("RADISH.PART")):
		if len(args) != 5 {
			return m, false
		}
		var v [4]int64
		for i := range v {
			x, err := strconv.ParseInt(string(args[1+i]), 10, 64)
			if err != nil || x < 0 {
				return m, false
			}
			v[i] = x
		}
		if v[1] >= v[2] {
			return m, false
		}
		return marker{kind: markPart, part: partKey{txnKey{epoch, uint64(v[0])}, int(v[1])}, parts: int(v[2]), n: int(v[3])}, true
	}
	return m, true
}

// scanIncr checks an incremental file and tallies the transaction parts
// it holds whole and its cuts; first says it is the shard's first file,
// whose RADISH.BASE names the cut its base holds. It returns where the
// valid commands end: len(data), or for a torn file the start of the
// command (or of the transaction part, or of the MULTI ... EXEC block) the
// file ends in, with errTorn.
func scanIncr(data []byte, t *tally, first bool) (validTo int, err error) {
	s := newScanner(data)
	var epoch int64
	multi := -1 // where an open MULTI starts
	for {
		start := s.off
		args, err := s.next()
		if err != nil {
			return cut(start, multi), err
		}
		if args == nil {
			if multi >= 0 {
				return multi, errTorn
			}
			return s.off, nil
		}
		m, ok := parseMarker(args, epoch)
		if !ok {
			return start, errFormat
		}
		switch {
		case isCmd(args, "MULTI"):
			if multi >= 0 {
				return start, errFormat
			}
			multi = start
		case isCmd(args, "EXEC"):
			if multi < 0 {
				return start, errFormat
			}
			multi = -1
		}
		switch m.kind {
		case markEpoch:
			epoch = m.epoch
		case markCut:
			t.cut(m.cut)
		case markBase:
			if first {
				t.base = m.cut
			}
		case markPart:
			for range m.n {
				args, err := s.next()
				if err == nil && args == nil {
					err = errTorn
				}
				if err != nil {
					return cut(start, multi), err
				}
			}
			t.add(m.part, m.parts)
		}
	}
}

// isCmd reports whether args is the command name, without arguments.
func isCmd(args [][]byte, name string) bool {
	return len(args) == 1 && bytes.EqualFold(args[0], []byte(name))
}

// Applier runs one logged command on its shard, in database db. The args
// are borrowed: valid until it returns. An error stops the load.
type Applier func(db int, args [][]byte) error

// replayIncr runs the commands of a checked incremental file through
// apply, skipping the parts of transactions not complete in every log.
// MULTI and EXEC are not run: the check made sure the file holds every
// block whole, and the commands between them run in order.
func replayIncr(data []byte, done map[txnKey]bool, apply Applier) (int, error) {
	s := newScanner(data)
	var epoch int64
	db := 0
	run := func(args [][]byte, skip bool) error {
		if bytes.EqualFold(args[0], []byte("SELECT")) {
			if len(args) != 2 {
				return errFormat
			}
			n, err := strconv.Atoi(string(args[1]))
			if err != nil || n < 0 {
				return errFormat
			}
			db = n
			return nil
		}
		if skip || isCmd(args, "MULTI") || isCmd(args, "EXEC") {
			return nil
		}
		return apply(db, args)
	}
	for {
		start := s.off
		args, err := s.next()
		if err != nil || args == nil {
			return start, err
		}
		m, _ := parseMarker(args, epoch)
		switch m.kind {
		case markEpoch:
			epoch = m.epoch
		case markCut, markBase:
		case markPart:
			skip := !done[m.part.txnKey]
			for range m.n {
				at := s.off
				args, err := s.next()
				if err != nil {
					return at, err
				}
				if err := run(args, skip); err != nil {
					return at, err
				}
			}
		default:
			if err := run(args, false); err != nil {
				return start, err
			}
		}
	}
}

// LoadError is a file the server cannot start from.
type LoadError struct {
	File   string
	Offset int64
	Msg    string
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("%s reading the append only file %s at offset %d", e.Msg, e.File, e.Offset)
}

// cut is where a torn file is cut: at start, or at the open MULTI before it.
func cut(start, multi int) int {
	if multi >= 0 && multi < start {
		return multi
	}
	return start
}

package command

import (
	"bytes"
	"math"
	"slices"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// SORT and SORT_RO, Redis 7.0's sort.c. The key to sort is a list, a set
// or a sorted set; BY names the weights through a pattern ("w_*", or
// "h_*->field" for a hash field), GET names what to return for each
// element ("#" is the element itself), LIMIT cuts the sorted result and
// STORE (SORT only) writes it as a list.
//
// A pattern's keys are named by the values of the sorted key, so no key
// spec can find them: the row's Patterns says when the arguments use
// them, and PatternKeys lists them given the sorted key; across shards
// the shard then runs the command holding every shard, on copies of its
// keys and of the pattern keys (shard/patterns.go). Without patterns SORT
// is an ordinary command on its key and its STORE key (GetKeys).
//
// Redis's rules, kept: BY without '*' does not sort (a list or sorted
// set keeps its order, LIMIT taking a range of it, DESC reversing it),
// except that a set sorted into STORE is sorted ALPHA, so the stored
// list does not depend on the set's layout; numeric ties are broken by
// comparing the elements, so the order is deterministic; a missing BY
// value weighs 0 (numeric) or sorts first (ALPHA); a missing GET value is
// a null (the empty string in STORE); a weight that is not a number
// fails the command with "One or more scores can't be converted into
// double". The sort is stable, as glibc's qsort (a merge sort) is, but
// BY with a LIMIT that leaves elements out is Redis's partial quicksort
// (pqsort.go), ties and all. A
// sorted set that is sorted becomes a skiplist, as in Redis (SORT_RO too).

func init() { register(sortSpecs...) }

var sortKeySpecs = []KeySpec{
	{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
	{Flags: KeyRO | KeyAccess, Unknown: true,
		Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort"},
}

func sortArgsDoc(store bool) []Arg {
	args := []Arg{
		{Name: "key", Type: "key", KeySpecIndex: 0},
		{Name: "pattern", Type: "pattern", KeySpecIndex: 1, Token: "BY", Flags: ArgOptional},
		{Name: "offset_count", Type: "block", Token: "LIMIT", Flags: ArgOptional, Args: []Arg{
			{Name: "offset", Type: "integer"},
			{Name: "count", Type: "integer"},
		}},
		{Name: "pattern", Type: "pattern", KeySpecIndex: 1, Token: "GET", Flags: ArgOptional | ArgMultiple | ArgMultipleToken},
		{Name: "order", Type: "oneof", Flags: ArgOptional, Args: []Arg{
			{Name: "asc", Type: "pure-token", Token: "ASC"},
			{Name: "desc", Type: "pure-token", Token: "DESC"},
		}},
		{Name: "sorting", Type: "pure-token", Token: "ALPHA", Flags: ArgOptional},
	}
	if store {
		args = append(args, Arg{Name: "destination", Type: "key", KeySpecIndex: 2, Token: "STORE", Flags: ArgOptional})
	}
	return args
}

const sortComplexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N)."

var sortSpecs = []*Spec{
	{
		Name: "sort", Arity: -2,
		Flags: Write | DenyOOM,
		ACL:   []string{"set", "sortedset", "list", "dangerous"},
		KeySpecs: append(slices.Clone(sortKeySpecs), KeySpec{Flags: KeyOW | KeyUpdate, Unknown: true,
			Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array"}),
		GetKeys:      sortGetKeys,
		BeforeGather: sortBeforeGather,
		Patterns:     func(args [][]byte) bool { return sortPatterned(args, false) },
		PatternKeys: func(db *engine.DB, args [][]byte, now int64, dst [][]byte) [][]byte {
			return sortPatternKeys(db, args, false, now, dst)
		},
		Handler: CmdSort,
		Summary: "Sort the elements in a list, set or sorted set",
		Since:   "1.0.0", Group: "generic",
		Complexity: sortComplexity,
		Args:       sortArgsDoc(true),
	},
	{
		Name: "sort_ro", Arity: -2,
		Flags:        ReadOnly,
		ACL:          []string{"set", "sortedset", "list", "dangerous"},
		KeySpecs:     slices.Clone(sortKeySpecs),
		BeforeGather: sortBeforeGather,
		Patterns:     func(args [][]byte) bool { return sortPatterned(args, true) },
		PatternKeys: func(db *engine.DB, args [][]byte, now int64, dst [][]byte) [][]byte {
			return sortPatternKeys(db, args, true, now, dst)
		},
		Handler: CmdSortRO,
		Summary: "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
		Since:   "7.0.0", Group: "generic",
		Complexity: sortComplexity,
		Args:       sortArgsDoc(false),
	},
}

// sortGetKeys is Redis's sortGetKeys: the sorted key, and the key of the
// last STORE. Options are skipped with their arguments, so a STORE
// inside LIMIT's or GET's arguments is not one.
func sortGetKeys(args [][]byte, dst []KeyRange) []KeyRange {
	dst = append(dst, KeyRange{Spec: 0, First: 1, Last: 1, Step: 1, Count: 1, Blocks: 1})
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case kvIs(args[i], "limit"):
			i += 2
		case kvIs(args[i], "get"), kvIs(args[i], "by"):
			i++
		case kvIs(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		dst = append(dst, KeyRange{Spec: 2, First: store, Last: store, Step: 1, Count: 1, Blocks: 1})
	}
	return dst
}

// sortBeforeGather turns the sorted key into a skiplist when it is a
// sorted set, as SORT does (sortLoad) where it runs, on its owner.
func sortBeforeGather(db *engine.DB, args [][]byte, now int64) { db.ZSetSkiplist(args[1], now) }

// sortOpts is a parsed SORT.
type sortOpts struct {
	desc, alpha bool
	dontsort    bool // BY without '*'
	start       int64
	count       int64 // -1: no LIMIT
	by          []byte
	gets        [][]byte
	store       []byte // nil: no STORE
}

// parseSort parses SORT's options (SORT_RO's when ro: no STORE), or
// returns the error reply's text. restricted: the user may not read every
// key, so BY with a pattern and GET are refused, as Redis 7.0 refuses
// them.
func parseSort(args [][]byte, ro, restricted bool) (o sortOpts, errText string) {
	o.count = -1
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case kvIs(a, "asc"):
			o.desc = false
		case kvIs(a, "desc"):
			o.desc = true
		case kvIs(a, "alpha"):
			o.alpha = true
		case kvIs(a, "limit") && left >= 2:
			var ok bool
			if o.start, ok = num.ParseInt(args[j+1]); !ok {
				return o, errtext.NotInt
			}
			if o.count, ok = num.ParseInt(args[j+2]); !ok {
				return o, errtext.NotInt
			}
			j += 2
		case !ro && kvIs(a, "store") && left >= 1:
			o.store = args[j+1]
			j++
		case kvIs(a, "by") && left >= 1:
			o.by = args[j+1]
			o.dontsort = bytes.IndexByte(cstr(o.by, -1), '*') < 0
			if !o.dontsort && restricted {
				return o, "ERR BY option of SORT denied due to insufficient ACL permissions."
			}
			j++
		case kvIs(a, "get") && left >= 1:
			if restricted {
				return o, "ERR GET option of SORT denied due to insufficient ACL permissions."
			}
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			return o, errtext.Syntax
		}
	}
	return o, ""
}

// isHash reports whether a GET pattern is "#", the element itself (C's
// view of the pattern: it ends at a NUL byte).
func isHash(pat []byte) bool { return len(pat) > 0 && pat[0] == '#' && (len(pat) == 1 || pat[1] == 0) }

// sortPatterned reports whether a SORT reads keys its patterns name: a
// BY that sorts, or a GET other than "#" (a pattern without '*' names no
// key). Arguments SORT refuses read none.
func sortPatterned(args [][]byte, ro bool) bool {
	o, errText := parseSort(args, ro, false)
	if errText != "" {
		return false
	}
	if o.by != nil && !o.dontsort {
		return true
	}
	for _, g := range o.gets {
		if !isHash(g) && bytes.IndexByte(cstr(g, -1), '*') >= 0 {
			return true
		}
	}
	return false
}

// patternKey is the key (and hash field, when hasField) that pattern pat
// names for element elem, built in buf, as Redis's lookupKeyByPattern
// builds it: the first '*' is replaced by the element, and a "->" after
// it followed by a field name makes the rest a hash field. ok is false
// when the pattern has no '*'. pat is not "#".
func patternKey(pat, elem, buf []byte) (key, field []byte, hasField, ok bool) {
	c := cstr(pat, -1) // strchr and strstr stop at a NUL
	p := bytes.IndexByte(c, '*')
	if p < 0 {
		return nil, nil, false, false
	}
	post := pat[p+1:]
	if f := bytes.Index(c[p+1:], []byte("->")); f >= 0 && p+1+f+2 < len(c) {
		field = pat[p+1+f+2:]
		post = pat[p+1 : len(pat)-len(field)-2]
		hasField = true
	}
	key = append(append(append(buf[:0], pat[:p]...), elem...), post...)
	return key, field, hasField, true
}

// sortLookup returns the value pattern pat names for elem, borrowed from
// db (valid until its next call), as lookupKeyByPattern: a string key's
// value, or a hash field's; ok false when there is none (no key, another
// type, no field). *buf is where the key is built.
func sortLookup(db *engine.DB, pat, elem []byte, now int64, buf *[]byte) ([]byte, bool) {
	if isHash(pat) {
		return elem, true
	}
	key, field, hasField, ok := patternKey(pat, elem, *buf)
	*buf = key
	if !ok {
		return nil, false
	}
	db.ReadAgain()
	if hasField {
		v, found, err := db.HGet(key, field, now)
		return v, found && err == nil
	}
	v, found, err := db.GetString(key, now)
	return v, found && err == nil
}

// sortElem is one element of the sort vector.
type sortElem struct {
	v      []byte
	score  float64
	cmp    []byte // the ALPHA weight a BY found
	hasCmp bool
}

// sortLoad reads key's elements into the sort vector as Redis loads it,
// with the output range [start, end] (end < start: nothing). When the
// elements are not sorted, a list or sorted set loads only the range
// (reversed for DESC) and the range becomes the whole vector. dontsort is
// what the options say after Redis's rule for sets sorted into STORE.
func sortLoad(db *engine.DB, key []byte, o *sortOpts, now int64) (elems []sortElem, start, end int, err error) {
	t := db.TypeOf(key, now)
	switch t {
	case engine.TypeNone, engine.TypeList, engine.TypeSet, engine.TypeZSet:
	default:
		return nil, 0, 0, engine.ErrWrongType
	}
	if t == engine.TypeZSet {
		db.ZSetSkiplist(key, now)
	}
	if o.dontsort && t == engine.TypeSet && o.store != nil {
		o.dontsort, o.alpha, o.by = false, true, nil
	}
	var n int
	switch t {
	case engine.TypeList:
		n, _ = db.ListLen(key, now)
	case engine.TypeSet:
		n, _ = db.SCard(key, now)
	case engine.TypeZSet:
		n, _ = db.ZCard(key, now)
	}
	vlen := int64(n)
	s := min(max(o.start, 0), vlen)
	count := min(max(o.count, -1), vlen)
	e := vlen
	if count >= 0 {
		e = s + count - 1
	}
	if s >= vlen {
		s, e = vlen-1, vlen-2
	}
	if e >= vlen {
		e = vlen - 1
	}
	start, end = int(s), int(e)
	add := func(v []byte) { elems = append(elems, sortElem{v: slices.Clone(v)}) }
	ranged := o.dontsort && (t == engine.TypeList || t == engine.TypeZSet)
	switch {
	case ranged && end < start:
		return nil, 0, -1, nil
	case ranged && t == engine.TypeList:
		from, to := start, end
		if o.desc {
			from, to = n-1-end, n-1-start
		}
		elems = make([]sortElem, 0, to-from+1)
		db.ListRange(key, from, to, now, func(_, _ int, v []byte) { add(v) })
		if o.desc {
			slices.Reverse(elems)
		}
		return elems, 0, end - start, nil
	case ranged:
		sp := engine.ZRangeSpec{Kind: engine.ZByRank, Start: start, Stop: end, Rev: o.desc}
		elems = make([]sortElem, 0, end-start+1)
		db.ZRange(key, &sp, now, func(_, _ int, m []byte, _ float64) { add(m) })
		return elems, 0, end - start, nil
	}
	elems = make([]sortElem, 0, n)
	switch t {
	case engine.TypeList:
		db.ListRange(key, 0, -1, now, func(_, _ int, v []byte) { add(v) })
	case engine.TypeSet:
		db.SEach(key, now, func(m []byte) bool { add(m); return true })
	case engine.TypeZSet:
		db.ZEach(key, now, func(m []byte, _ float64) bool { add(m); return true })
	}
	return elems, start, end, nil
}

// sortPatternKeys appends to dst the keys the patterns of a SORT read,
// db holding its sorted key: every element's BY key when it sorts by
// one, and the GET keys of every element that may be returned.
func sortPatternKeys(db *engine.DB, args [][]byte, ro bool, now int64, dst [][]byte) [][]byte {
	o, errText := parseSort(args, ro, false)
	if errText != "" {
		return dst
	}
	elems, _, _, err := sortLoad(db, args[1], &o, now)
	if err != nil {
		return dst
	}
	var buf []byte
	for _, e := range elems {
		if o.by != nil && !o.dontsort {
			if k, _, _, ok := patternKey(o.by, e.v, buf); ok {
				dst = append(dst, slices.Clone(k))
			}
		}
		for _, g := range o.gets {
			if isHash(g) {
				continue
			}
			if k, _, _, ok := patternKey(g, e.v, buf); ok {
				dst = append(dst, slices.Clone(k))
			}
		}
	}
	return dst
}

// CmdSort is SORT key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC|DESC] [ALPHA] [STORE destination].
func CmdSort(c *Ctx, args [][]byte) { sortCommand(c, args, false) }

// CmdSortRO is SORT_RO: SORT without STORE.
func CmdSortRO(c *Ctx, args [][]byte) { sortCommand(c, args, true) }

// errSortScore is the reply to a weight that is not a number.
const errSortScore = "ERR One or more scores can't be converted into double"

func sortCommand(c *Ctx, args [][]byte, ro bool) {
	restricted := false
	if c.Access != nil {
		name := "sort"
		if ro {
			name = "sort_ro"
		}
		restricted = !c.Access.FullReadAccess(table.byName[name], args)
	}
	o, errText := parseSort(args, ro, restricted)
	if errText != "" {
		c.W.Error(errText)
		return
	}
	elems, start, end, err := sortLoad(c.DB, args[1], &o, c.Now)
	if err != nil {
		c.W.Error(errtext.WrongType)
		return
	}
	var buf []byte
	if !o.dontsort {
		bad := false
		for i := range elems {
			e := &elems[i]
			w := e.v
			if o.by != nil {
				v, ok := sortLookup(c.DB, o.by, e.v, c.Now, &buf)
				if !ok {
					continue
				}
				w = v
			}
			if o.alpha {
				if o.by != nil {
					e.cmp, e.hasCmp = slices.Clone(w), true
				}
				continue
			}
			if !sortScore(w, &e.score) {
				bad = true
			}
		}
		if bad {
			c.W.Error(errSortScore)
			return
		}
		if o.by != nil && (start != 0 || end != len(elems)-1) {
			pqsort(elems, sortCompare(&o), start, end)
		} else {
			slices.SortStableFunc(elems, sortCompare(&o))
		}
	}
	n := max(end-start+1, 0)
	out := n
	if len(o.gets) > 0 {
		out = len(o.gets) * n
	}
	sel := elems[:0]
	if n > 0 {
		sel = elems[start : start+n]
	}
	if o.store == nil {
		c.W.Array(out)
		for _, e := range sel {
			if len(o.gets) == 0 {
				c.W.Bulk(e.v)
			}
			for _, g := range o.gets {
				if v, ok := sortLookup(c.DB, g, e.v, c.Now, &buf); ok {
					c.W.Bulk(v)
				} else {
					c.W.Null()
				}
			}
		}
		return
	}
	vals := make([][]byte, 0, out)
	for _, e := range sel {
		if len(o.gets) == 0 {
			vals = append(vals, e.v)
		}
		for _, g := range o.gets {
			v, _ := sortLookup(c.DB, g, e.v, c.Now, &buf)
			vals = append(vals, slices.Clone(v))
		}
	}
	c.DB.EndReads() // the destination is written, not read
	c.DB.Delete(o.store, c.Now)
	if out > 0 {
		c.DB.ListPush(o.store, vals, false, false, c.Now)
	}
	c.W.Int(int64(out))
}

// sortScore is a numeric weight as Redis reads it: strtod over all of w
// (the empty text is 0), with no NaN and no ERANGE, which glibc also
// reports for a subnormal result.
func sortScore(w []byte, score *float64) bool {
	w = cstr(w, -1)
	if len(w) == 0 {
		*score = 0
		return true
	}
	f, erange, ok := num.ParseStrtod(w)
	*score = f
	return ok && !erange && !math.IsNaN(f) && (f == 0 || math.Abs(f) >= 0x1p-1022)
}

// sortCompare is Redis's sortCompare for the options o.
func sortCompare(o *sortOpts) func(a, b sortElem) int {
	alpha, by, store, desc := o.alpha, o.by != nil, o.store != nil, o.desc
	return func(a, b sortElem) int {
		var cmp int
		switch {
		case !alpha:
			switch {
			case a.score > b.score:
				cmp = 1
			case a.score < b.score:
				cmp = -1
			default:
				cmp = bytes.Compare(a.v, b.v)
			}
		case by && (!a.hasCmp || !b.hasCmp):
			switch {
			case a.hasCmp == b.hasCmp:
			case !a.hasCmp:
				cmp = -1
			default:
				cmp = 1
			}
		case by && store:
			cmp = bytes.Compare(a.cmp, b.cmp)
		case by:
			cmp = collate(a.cmp, b.cmp)
		case store:
			cmp = bytes.Compare(a.v, b.v)
		default:
			cmp = collate(a.v, b.v)
		}
		if desc {
			return -cmp
		}
		return cmp
	}
}

// collate is strcoll in Redis's C.UTF-8 locale: byte order, each text
// ending at its first NUL.
func collate(a, b []byte) int { return bytes.Compare(cstr(a, -1), cstr(b, -1)) }

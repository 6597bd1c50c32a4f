package workload

import "strings"

// sortPatterns name keys of the workload through SORT's elements (the
// values diffVals draws: "1" names s1 and h1 here, "2" s2): string
// weights, hash fields, keys of other types, and patterns naming nothing.
var sortPatterns = []string{"s*", "s*", "h*->1", "h*->abc", "h*->", "l*", "*", "s*->x"}

// sort returns a SORT or SORT_RO of a key (mostly a list, a set or a
// sorted set) with random options. Redis leaves two things to its hash
// tables' order, and a key's name does not say its type here (RENAME,
// COPY): a set returned unsorted (BY without '*'), so that BY runs only
// into a STORE, where Redis sorts a set ALPHA; and the ties of an ALPHA
// sort BY a pattern (elements whose weights are missing or equal keep
// their input order, a set's or sorted set's dict order), so that one
// has neither STORE nor LIMIT (Redis's partial quicksort picks among
// ties) and its reply is compared as a multiset (canonicalSort).
func (g *Gen) sort(l, e, z string) []string {
	name := g.pick("SORT", "SORT", "SORT_RO")
	args := []string{name, g.pick(l, e, z)}
	store, alpha, by := name == "SORT" && g.r.IntN(3) == 0, g.r.IntN(3) == 0, ""
	switch g.r.IntN(4) {
	case 0:
		if name == "SORT" {
			by, store = g.pick("nosort", "nostar"), true
		}
	case 1, 2:
		by = sortPatterns[g.r.IntN(len(sortPatterns))]
		store = store && !alpha
	}
	if by != "" {
		args = append(args, "BY", by)
	}
	if g.r.IntN(3) == 0 && !(alpha && strings.Contains(by, "*")) {
		args = append(args, "LIMIT", g.idx(), g.pick("-1", "0", "1", "2", "5"))
	}
	for range g.r.IntN(3) {
		args = append(args, "GET", g.pick("#", "s*", "h*->1", "h*->abc", "l*", "nostar"))
	}
	if g.r.IntN(2) == 0 {
		args = append(args, g.pick("ASC", "DESC"))
	}
	if alpha {
		args = append(args, "ALPHA")
	}
	if store {
		args = append(args, "STORE", g.key('l'))
	}
	return args
}

// sortTies reports whether a SORT's order is, at least in part, Redis's
// dict order: ALPHA BY a pattern (its ties), or BY a pattern without '*'
// (no sort: a set's members in its order); and how many members each
// element has in its reply.
func sortTies(args []string) (ties bool, step int) {
	alpha, by, nosort, gets := false, false, false, 0
	for i := 2; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "ALPHA":
			alpha = true
		case "BY":
			by = i+1 < len(args) && strings.Contains(args[i+1], "*")
			nosort = i+1 < len(args) && !by
			i++
		case "GET":
			gets++
			i++
		case "LIMIT":
			i += 2
		}
	}
	return alpha && by || nosort, max(gets, 1)
}

// canonicalSort is the reply of a SORT with ties (sortTies) with its
// elements, each with its GET values, sorted; any other SORT's reply as
// it is.
func canonicalSort(args []string, raw []byte) []byte {
	if ties, step := sortTies(args); ties {
		return SortedReply(raw, step)
	}
	return raw
}

func isTiedSort(args []string) bool {
	ties, _ := sortTies(args)
	return ties && (args[0] == "SORT" || args[0] == "SORT_RO")
}

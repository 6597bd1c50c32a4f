package workload

import "strconv"

// hllKeys hold HyperLogLogs, on several shards.
var hllKeys = []string{"p1", "{t}p2", "p3"}

// hll returns a HyperLogLog command: PFADD of a few elements from a pool
// large enough to turn some keys dense, PFCOUNT of one key or several,
// PFMERGE, GET (the bytes must be Redis's), PFDEBUG; now and then on the
// string key s (not an HLL, or a wrong type).
func (g *Gen) hll(s string) []string {
	key := func() string {
		if g.r.IntN(10) == 0 {
			return s
		}
		return hllKeys[g.r.IntN(len(hllKeys))]
	}
	switch g.r.IntN(10) {
	case 0, 1, 2, 3:
		args := []string{"PFADD", key()}
		for range g.r.IntN(30) {
			args = append(args, strconv.Itoa(g.r.IntN(5000)))
		}
		return args
	case 4:
		return []string{"PFCOUNT", key()}
	case 5:
		return []string{"PFCOUNT", key(), key(), key()}
	case 6:
		return []string{"PFMERGE", key(), key(), key()}
	case 7, 8:
		return []string{"GET", key()}
	default:
		return []string{"PFDEBUG", g.pick("ENCODING", "TODENSE", "DECODE"), key()}
	}
}

package workload

import "strconv"

// bits returns a bit command (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP) on
// the string key s, mostly with offsets and ranges near the values'
// lengths; BITOP's keys may lie on several shards.
func (g *Gen) bits(s string) []string {
	off := func() string { return strconv.Itoa(g.r.IntN(200)) }
	unit := func() string { return g.pick("BYTE", "BIT", "bit", "BITS") }
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return []string{"SETBIT", s, off(), g.pick("0", "1", "1", "2", "x")}
	case 3:
		return []string{"GETBIT", s, g.pick(off(), off(), "-1", "x")}
	case 4:
		switch g.r.IntN(3) {
		case 0:
			return []string{"BITCOUNT", s}
		case 1:
			return []string{"BITCOUNT", s, g.idx(), g.idx()}
		}
		return []string{"BITCOUNT", s, g.pick(g.idx(), off()), g.pick(g.idx(), off()), unit()}
	case 5, 6:
		args := []string{"BITPOS", s, g.pick("0", "1", "1", "2")}
		switch g.r.IntN(4) {
		case 0:
			return args
		case 1:
			return append(args, g.idx())
		case 2:
			return append(args, g.idx(), g.idx())
		}
		return append(args, g.pick(g.idx(), off()), g.pick(g.idx(), off()), unit())
	default:
		op := g.pick("AND", "OR", "XOR", "NOT", "NOT", "nand")
		args := []string{"BITOP", op, g.key('s'), s}
		if op != "NOT" || g.r.IntN(5) == 0 {
			args = append(args, g.key('s'))
		}
		return args
	}
}

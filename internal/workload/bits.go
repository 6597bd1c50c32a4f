package workload

import "strconv"

// bits returns a bit command (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP,
// BITFIELD, BITFIELD_RO) on the string key s, mostly with offsets and
// ranges near the values' lengths; BITOP's keys may lie on several shards.
func (g *Gen) bits(s string) []string {
	off := func() string { return strconv.Itoa(g.r.IntN(200)) }
	unit := func() string { return g.pick("BYTE", "BIT", "bit", "BITS") }
	switch g.r.IntN(13) {
	case 10, 11:
		return g.bitField(s, "BITFIELD", off)
	case 12:
		return g.bitField(s, "BITFIELD_RO", off)
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

// bitField returns a BITFIELD (or BITFIELD_RO) of one to four operations
// of random widths, values and overflow modes, now and then a bad one.
func (g *Gen) bitField(s, name string, off func() string) []string {
	args := []string{name, s}
	for range 1 + g.r.IntN(4) {
		if g.r.IntN(4) == 0 {
			args = append(args, "OVERFLOW", g.pick("WRAP", "SAT", "FAIL", "sat", "bad"))
		}
		typ := g.pick("i", "u") + strconv.Itoa(1+g.r.IntN(64))
		if g.r.IntN(20) == 0 {
			typ = g.pick("u64", "i0", "x8", "I8")
		}
		o := off()
		if g.r.IntN(4) == 0 {
			o = "#" + strconv.Itoa(g.r.IntN(8))
		}
		val := g.pick("1", "-1", "0", "100", "-100", "9223372036854775807", "-9223372036854775808", "x", strconv.FormatUint(g.r.Uint64()>>g.r.IntN(64), 10))
		switch g.r.IntN(3) {
		case 0:
			args = append(args, g.pick("GET", "get"), typ, o)
		case 1:
			args = append(args, "SET", typ, o, val)
		default:
			args = append(args, "INCRBY", typ, o, val)
		}
	}
	return args
}

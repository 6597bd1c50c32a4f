package workload

import "strconv"

// streamKeys hold streams, on several shards.
var streamKeys = []string{"q1", "{t}q2", "q3"}

// stream returns a stream command with explicit IDs (the clock picks
// "*"'s): XADD with every option (IDs that only grow, now and then one
// too small, ms-* forms, trims exact and approximate), XRANGE and
// XREVRANGE with exclusive bounds and COUNT, XDEL, XTRIM, XSETID, XLEN,
// XINFO STREAM,
// XREAD over keys of several shards, COPY; consumer groups: XGROUP's
// subcommands, XREADGROUP (">" and history, NOACK, keys of several
// shards), XACK, XCLAIM and XAUTOCLAIM with a min-idle-time of 0,
// XPENDING (its idle times canonical), XINFO GROUPS; now and then on the
// string key s (a wrong type).
func (g *Gen) stream(s string) []string {
	key := func() string {
		if g.r.IntN(12) == 0 {
			return s
		}
		return streamKeys[g.r.IntN(len(streamKeys))]
	}
	id := func() string {
		if g.xms == 0 || g.r.IntN(3) == 0 {
			return g.pick("-", "+", "0", "1-1", "(1-1", "(5", "(+", "abc")
		}
		ms := g.r.IntN(g.xms + 1)
		switch g.r.IntN(3) {
		case 0:
			return strconv.Itoa(ms)
		case 1:
			return "(" + strconv.Itoa(ms) + "-" + strconv.Itoa(g.r.IntN(3))
		}
		return strconv.Itoa(ms) + "-" + strconv.Itoa(g.r.IntN(3))
	}
	group := func() string { return g.pick("g1", "g2", "nog") }
	consumer := func() string { return g.pick("alice", "bob", "carol") }
	kinds := 16
	if g.Groups {
		kinds = 24
	}
	switch g.r.IntN(kinds) {
	case 0, 1, 2, 3, 4, 5:
		args := []string{"XADD", key()}
		if g.r.IntN(8) == 0 {
			args = append(args, "NOMKSTREAM")
		}
		if g.r.IntN(2) == 0 { // often enough to keep the streams short
			args = append(args, g.pick("MAXLEN", "MINID", "maxlen"))
			if op := g.pick("", "=", "~", "~"); op != "" {
				args = append(args, op)
			}
			if args[len(args)-1] == "MINID" || args[len(args)-2] == "MINID" {
				args = append(args, strconv.Itoa(max(0, g.xms-g.r.IntN(60))))
			} else {
				args = append(args, strconv.Itoa(g.r.IntN(60)))
			}
			if g.r.IntN(3) == 0 {
				args = append(args, "LIMIT", g.pick("0", "1", "100", "-1"))
			}
		}
		g.xms += g.r.IntN(3)
		switch g.r.IntN(8) {
		case 0:
			args = append(args, strconv.Itoa(g.xms)+"-*")
		case 1:
			args = append(args, strconv.Itoa(max(0, g.xms-g.r.IntN(5)))+"-"+strconv.Itoa(g.r.IntN(3)))
		default:
			args = append(args, strconv.Itoa(g.xms)+"-"+strconv.Itoa(g.r.IntN(4)))
		}
		for range 1 + g.r.IntN(3) {
			args = append(args, g.pick("f", "g", "name", "1"), g.val())
		}
		return args
	case 6:
		name, k := g.pick("XLEN", "TYPE", "EXISTS", "XINFO"), key()
		if name == "XINFO" {
			return []string{"XINFO", "STREAM", k}
		}
		return []string{name, k}
	case 7, 8:
		args := []string{g.pick("XRANGE", "XREVRANGE"), key(), id(), id()}
		if g.r.IntN(20) != 0 { // whole streams make long replies
			args = append(args, "COUNT", g.pick("0", "1", "3", "10", "-1"))
		}
		return args
	case 9:
		args := []string{"XDEL", key()}
		for range 1 + g.r.IntN(3) {
			args = append(args, strconv.Itoa(g.r.IntN(g.xms+1))+"-"+strconv.Itoa(g.r.IntN(4)))
		}
		return args
	case 10:
		args := []string{"XTRIM", key(), g.pick("MAXLEN", "MINID")}
		if op := g.pick("", "=", "~"); op != "" {
			args = append(args, op)
		}
		args = append(args, strconv.Itoa(g.r.IntN(max(g.xms, 150)+1)))
		if g.r.IntN(3) == 0 {
			args = append(args, "LIMIT", g.pick("0", "1", "100"))
		}
		return args
	case 11:
		args := []string{"XSETID", key(), strconv.Itoa(g.xms+g.r.IntN(3)-1) + "-" + strconv.Itoa(g.r.IntN(5))}
		if g.r.IntN(2) == 0 {
			args = append(args, "ENTRIESADDED", strconv.Itoa(g.r.IntN(300)))
		}
		if g.r.IntN(3) == 0 {
			args = append(args, "MAXDELETEDID", strconv.Itoa(g.r.IntN(g.xms+1)))
		}
		return args
	case 12, 13:
		args := []string{"XREAD"}
		if g.r.IntN(20) != 0 {
			args = append(args, "COUNT", g.pick("1", "2", "5", "10"))
		}
		n := 1 + g.r.IntN(3)
		args = append(args, "STREAMS")
		for range n {
			args = append(args, key())
		}
		for range n {
			args = append(args, g.pick("0", "$", strconv.Itoa(g.r.IntN(g.xms+1)), strconv.Itoa(g.r.IntN(g.xms+1))+"-1"))
		}
		return args
	case 14:
		return []string{"COPY", key(), key(), "REPLACE"}
	case 16:
		args := []string{"XGROUP", "CREATE", key(), group(), g.pick("$", "0", id())}
		if g.r.IntN(2) == 0 {
			args = append(args, "MKSTREAM")
		}
		if g.r.IntN(4) == 0 {
			args = append(args, "ENTRIESREAD", g.pick("-1", "0", "3", "x"))
		}
		return args
	case 17:
		switch sub := g.pick("SETID", "DESTROY", "CREATECONSUMER", "DELCONSUMER"); sub {
		case "SETID":
			args := []string{"XGROUP", sub, key(), group(), g.pick("$", "0", id())}
			if g.r.IntN(3) == 0 {
				args = append(args, "ENTRIESREAD", g.pick("-1", "2", "-3"))
			}
			return args
		case "DESTROY":
			return []string{"XGROUP", sub, key(), group()}
		default:
			return []string{"XGROUP", sub, key(), group(), consumer()}
		}
	case 18, 19:
		args := []string{"XREADGROUP", "GROUP", group(), consumer()}
		if g.r.IntN(4) != 0 {
			args = append(args, "COUNT", g.pick("1", "2", "5"))
		}
		if g.r.IntN(5) == 0 {
			args = append(args, "NOACK")
		}
		n := 1 + g.r.IntN(2)
		args = append(args, "STREAMS")
		for range n {
			args = append(args, key())
		}
		for range n {
			args = append(args, g.pick(">", ">", ">", "0", strconv.Itoa(g.r.IntN(g.xms+1))))
		}
		return args
	case 20:
		args := []string{"XACK", key(), group()}
		for range 1 + g.r.IntN(3) {
			args = append(args, strconv.Itoa(g.r.IntN(g.xms+1))+"-"+strconv.Itoa(g.r.IntN(4)))
		}
		return args
	case 21:
		args := []string{"XCLAIM", key(), group(), consumer(), "0"}
		for range 1 + g.r.IntN(3) {
			args = append(args, strconv.Itoa(g.r.IntN(g.xms+1))+"-"+strconv.Itoa(g.r.IntN(4)))
		}
		for range g.r.IntN(3) {
			switch g.r.IntN(4) {
			case 0:
				args = append(args, "JUSTID")
			case 1:
				args = append(args, "FORCE")
			case 2:
				args = append(args, "RETRYCOUNT", g.pick("0", "3"))
			default:
				args = append(args, "LASTID", strconv.Itoa(g.r.IntN(g.xms+2))+"-0")
			}
		}
		return args
	case 22:
		args := []string{"XAUTOCLAIM", key(), group(), consumer(), "0", g.pick("0", "-", id())}
		if g.r.IntN(2) == 0 {
			args = append(args, "COUNT", g.pick("1", "2", "10"))
		}
		if g.r.IntN(3) == 0 {
			args = append(args, "JUSTID")
		}
		return args
	case 23:
		switch g.r.IntN(3) {
		case 0:
			return []string{"XPENDING", key(), group()}
		case 1:
			args := []string{"XPENDING", key(), group(), "-", "+", g.pick("1", "10")}
			if g.r.IntN(2) == 0 {
				args = append(args, consumer())
			}
			return args
		}
		return []string{"XINFO", "GROUPS", key()}
	default:
		return []string{"OBJECT", "ENCODING", key()}
	}
}

package command

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
)

// ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD: Redis's
// zunionInterDiffGenericCommand. Inputs may be sorted sets or sets (whose
// members score 1). The result is built in Go memory (these commands are
// O(N) in their inputs anyway), then replied or stored.

const (
	zsUnion = iota
	zsInter
	zsDiff
)

type zsSrc struct {
	key    []byte
	typ    engine.Type
	card   int
	weight float64
}

// each calls fn for every element of the source (nothing when absent).
func (s *zsSrc) each(c *Ctx, fn func(m []byte, score float64)) {
	switch s.typ {
	case engine.TypeZSet:
		c.DB.ZEach(s.key, c.Now, func(m []byte, sc float64) bool { fn(m, sc); return true })
	case engine.TypeSet:
		c.DB.SEach(s.key, c.Now, func(m []byte) bool { fn(m, 1); return true })
	}
}

// find returns member's score in the source.
func (s *zsSrc) find(c *Ctx, m []byte) (float64, bool) {
	switch s.typ {
	case engine.TypeZSet:
		f, ok, _ := c.DB.ZScore(s.key, m, c.Now)
		return f, ok
	case engine.TypeSet:
		ok, _ := c.DB.SIsMember(s.key, m, c.Now)
		return 1, ok
	}
	return 0, false
}

const (
	zsAggSum = iota
	zsAggMin
	zsAggMax
)

func zsAggregate(target *float64, v float64, agg int) {
	switch agg {
	case zsAggSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0
		}
	case zsAggMin:
		if v < *target {
			*target = v
		}
	case zsAggMax:
		if v > *target {
			*target = v
		}
	}
}

// zsSetOp runs the command whose numkeys argument is args[at]; dst is the
// STORE destination (nil otherwise); cardOnly is ZINTERCARD.
func zsSetOp(c *Ctx, args [][]byte, at int, op int, dst []byte, cardOnly bool) {
	setnum, ok := kvArgInt(c, args[at])
	if !ok {
		return
	}
	if setnum < 1 {
		c.W.Error("ERR at least 1 input key is needed for '" + strings.ToLower(string(args[0])) + "' command")
		return
	}
	if setnum > int64(len(args)-(at+1)) {
		c.W.Error(errtext.Syntax)
		return
	}
	src := make([]zsSrc, setnum)
	j := at + 1
	for i := range src {
		s := &src[i]
		s.key, s.weight = args[j], 1
		j++
		switch s.typ = c.DB.TypeOf(s.key, c.Now); s.typ {
		case engine.TypeNone:
		case engine.TypeZSet:
			s.card, _ = c.DB.ZCard(s.key, c.Now)
		case engine.TypeSet:
			s.card, _ = c.DB.SCard(s.key, c.Now)
		default:
			c.W.Error(errtext.WrongType)
			return
		}
	}
	agg, withScores, limit := zsAggSum, false, int64(0)
	for remaining := len(args) - j; remaining > 0; remaining = len(args) - j {
		switch a := args[j]; {
		case op != zsDiff && !cardOnly && remaining >= len(src)+1 && kvIs(a, "weights"):
			j++
			for i := range src {
				w, ok := zsArgScore(c, args[j], "ERR weight value is not a float")
				if !ok {
					return
				}
				src[i].weight = w
				j++
			}
		case op != zsDiff && !cardOnly && remaining >= 2 && kvIs(a, "aggregate"):
			switch b := args[j+1]; {
			case kvIs(b, "sum"):
				agg = zsAggSum
			case kvIs(b, "min"):
				agg = zsAggMin
			case kvIs(b, "max"):
				agg = zsAggMax
			default:
				c.W.Error(errtext.Syntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && kvIs(a, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && kvIs(a, "limit"):
			v, ok := lsRangeLong(c, args[j+1], 0, math.MaxInt64, errtext.NegLimit)
			if !ok {
				return
			}
			limit = v
			j += 2
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}

	// The result: members (copied) and scores.
	var members [][]byte
	var scores []float64
	index := map[string]int{}
	add := func(m []byte, s float64) {
		index[string(m)] = len(members)
		members = append(members, slices.Clone(m))
		scores = append(scores, s)
	}
	if op != zsDiff {
		// Smallest input first, as Redis does (the order of a sum matters
		// to its rounding).
		sort.SliceStable(src, func(a, b int) bool { return src[a].card < src[b].card })
	}
	card := 0
	switch op {
	case zsUnion:
		for i := range src {
			s := &src[i]
			s.each(c, func(m []byte, sc float64) {
				v := s.weight * sc
				if math.IsNaN(v) {
					v = 0
				}
				if k, ok := index[string(m)]; ok {
					zsAggregate(&scores[k], v, agg)
				} else {
					add(m, v)
				}
			})
		}
	case zsInter:
		if src[0].card == 0 {
			break
		}
		// Collect the smallest input first: finds on the others go
		// through the engine, which must not run inside its iteration.
		var ms [][]byte
		var ss []float64
		src[0].each(c, func(m []byte, sc float64) {
			ms = append(ms, slices.Clone(m))
			ss = append(ss, sc)
		})
		for k, m := range ms {
			score := src[0].weight * ss[k]
			if math.IsNaN(score) {
				score = 0
			}
			in := true
			for i := 1; i < len(src) && in; i++ {
				if bytes.Equal(src[i].key, src[0].key) {
					zsAggregate(&score, ss[k]*src[i].weight, agg)
				} else if v, ok := src[i].find(c, m); ok {
					zsAggregate(&score, v*src[i].weight, agg)
				} else {
					in = false
				}
			}
			if !in {
				continue
			}
			if cardOnly {
				card++
				if limit > 0 && int64(card) >= limit {
					break
				}
				continue
			}
			add(m, score)
		}
	case zsDiff:
		if src[0].card == 0 {
			break
		}
		src[0].each(c, func(m []byte, sc float64) { add(m, sc) })
		for i := 1; i < len(src); i++ {
			if bytes.Equal(src[i].key, src[0].key) {
				members = members[:0]
				break
			}
		}
		kept := 0
		for k, m := range members {
			in := false
			for i := 1; i < len(src) && !in; i++ {
				_, in = src[i].find(c, m)
			}
			if !in {
				members[kept], scores[kept] = m, scores[k]
				kept++
			}
		}
		members, scores = members[:kept], scores[:kept]
	}
	if cardOnly {
		c.W.Int(int64(card))
		return
	}
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		return scores[x] < scores[y] || scores[x] == scores[y] && bytes.Compare(members[x], members[y]) < 0
	})
	if dst != nil {
		n := c.DB.ZStore(dst, len(order), func(i int) (float64, []byte) { return scores[order[i]], members[order[i]] }, c.Now)
		c.W.Int(int64(n))
		return
	}
	out := zsElems{c: c, withScores: withScores}
	out.header(len(order))
	for _, i := range order {
		out.elem(members[i], scores[i])
	}
}

// CmdZUnion is ZUNION numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] [WITHSCORES].
func CmdZUnion(c *Ctx, args [][]byte) { zsSetOp(c, args, 1, zsUnion, nil, false) }

// CmdZInter is ZINTER numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] [WITHSCORES].
func CmdZInter(c *Ctx, args [][]byte) { zsSetOp(c, args, 1, zsInter, nil, false) }

// CmdZDiff is ZDIFF numkeys key [key ...] [WITHSCORES].
func CmdZDiff(c *Ctx, args [][]byte) { zsSetOp(c, args, 1, zsDiff, nil, false) }

// CmdZUnionStore is ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...].
func CmdZUnionStore(c *Ctx, args [][]byte) { zsSetOp(c, args, 2, zsUnion, args[1], false) }

// CmdZInterStore is ZINTERSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...].
func CmdZInterStore(c *Ctx, args [][]byte) { zsSetOp(c, args, 2, zsInter, args[1], false) }

// CmdZDiffStore is ZDIFFSTORE destination numkeys key [key ...].
func CmdZDiffStore(c *Ctx, args [][]byte) { zsSetOp(c, args, 2, zsDiff, args[1], false) }

// CmdZInterCard is ZINTERCARD numkeys key [key ...] [LIMIT limit].
func CmdZInterCard(c *Ctx, args [][]byte) { zsSetOp(c, args, 1, zsInter, nil, true) }

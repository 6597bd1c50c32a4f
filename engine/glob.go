package engine

import "math/bits"

// This file holds Redis's glob language twice: Match, a direct port of
// stringmatchlen (util.c), which is the definition; and glob, a compiled form
// of the same pattern that the tree walk uses to prune subtrees ("can any key
// that starts with this path still match?"). The fuzz and unit tests hold the
// two to the same answers.

// maxGlobNesting is Redis's guard against abusive patterns: a branch that
// recurses through more than this many '*' groups does not match.
const maxGlobNesting = 1000

// Match reports whether s matches pattern with exactly Redis's stringmatchlen
// semantics: '*', '?', '[...]' classes with '^' negation, 'a-z' ranges (ends
// swapped when reversed, compared as signed chars as C does), '\' escapes, an
// unclosed '[' that ends the class at the end of the pattern, a trailing '\'
// that is a literal backslash, and ASCII-only case folding when nocase is set.
// Note that, as in Redis, the empty string matches only the empty pattern
// ("*" does not match ""; KEYS/SCAN special-case the pattern "*").
func Match(pattern, s []byte, nocase bool) bool {
	skip := false
	return matchImpl(pattern, s, nocase, &skip, 0)
}

// at returns p[i], or 0 past the end: Redis reads the NUL terminator of its
// sds strings there and the port must see the same byte.
func at(p []byte, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

// lower is C's tolower in the "C" locale (Redis never sets LC_CTYPE).
func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func matchImpl(p, s []byte, nocase bool, skipLonger *bool, nesting int) bool {
	if nesting > maxGlobNesting {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && at(p, 1) == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if matchImpl(p[1:], s, nocase, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			var m bool
			p, m = classMatch(p, s[0], nocase)
			if !m {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if !litEq(p[0], s[0], nocase) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for at(p, 0) == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}

func litEq(pc, sc byte, nocase bool) bool {
	if !nocase {
		return pc == sc
	}
	return lower(int(int8(pc))) == lower(int(int8(sc)))
}

// classMatch runs Redis's '[' loop: p starts at the '['; it returns the
// pattern positioned on the class's last byte (the closing ']' or, for an
// unclosed class, the last byte of the pattern), so that the caller's p[1:]
// steps past the class, and whether c is in the class.
func classMatch(p []byte, c byte, nocase bool) ([]byte, bool) {
	// Redis keeps a pointer and a length; off is the pointer's offset into
	// the full pattern so that "pattern--" on an unclosed class can be undone.
	full := p[1:]
	off := 0
	not := at(full, off) == '^'
	if not {
		off++
	}
	match := false
	for {
		n := len(full) - off
		pc := at(full, off)
		if pc == '\\' && n >= 2 {
			off++
			if at(full, off) == c {
				match = true
			}
		} else if pc == ']' && n > 0 {
			break
		} else if n == 0 {
			off--
			break
		} else if n >= 3 && full[off+1] == '-' {
			start := int(int8(full[off]))
			end := int(int8(full[off+2]))
			ci := int(int8(c))
			if start > end {
				start, end = end, start
			}
			if nocase {
				start, end, ci = lower(start), lower(end), lower(ci)
			}
			off += 2
			if ci >= start && ci <= end {
				match = true
			}
		} else {
			if litEq(pc, c, nocase) {
				match = true
			}
		}
		off++
	}
	if not {
		match = !match
	}
	// off indexes the class's last byte within full (p[1:]); it is -1 only
	// for a bare "[" at the end of the pattern, which then ends on the '['.
	return p[1+off:], match
}

// glob is a pattern compiled for the tree walk. Redis's language has no
// construct whose meaning depends on the string, so a pattern is a sequence
// of tokens: '*' (runs collapse, as in Redis) or a set of bytes that matches
// exactly one byte ('?', a class, a literal with or without nocase). For a
// non-empty string, stringmatchlen is then exactly the classic glob match of
// that token sequence (a '*' that Redis only lets match a non-empty rest is
// always followed by a token that needs a byte). The walk runs the tokens as
// an NFA whose state set is a bitmask: bit i means "token i is next", bit
// ntok means "matched". A state set from which no state can still reach the
// end (every later byte-set non-empty) prunes the subtree.
type glob struct {
	pattern []byte
	nocase  bool
	all     bool // the pattern is exactly "*": KEYS/SCAN return every key
	nfa     bool // the token form is usable (<= 63 tokens, <= 1000 '*' groups)
	ntok    int
	star    uint64      // bit i: token i is '*'
	sat     uint64      // bit i: tokens i.. can still match some bytes
	single  [64]int16   // token i matches only this byte, or -1
	m       [256]uint64 // bit i of m[c]: byte-set token i contains c
	prefix  []byte      // literal bytes every match starts with (fallback seek)
}

// compile prepares g for pattern (borrowed: g keeps the slice until the next
// compile). It does not allocate.
func (g *glob) compile(pattern []byte, nocase bool) {
	g.pattern = pattern
	g.nocase = nocase
	g.all = len(pattern) == 1 && pattern[0] == '*'
	g.nfa = true
	g.ntok = 0
	g.star = 0
	g.sat = 0
	g.m = [256]uint64{}
	g.prefix = g.prefix[:0]
	prefixOpen := true
	groups := 0
	p := pattern
	for len(p) > 0 {
		if g.ntok >= 63 {
			g.nfa = false
			break
		}
		bit := uint64(1) << g.ntok
		g.single[g.ntok] = -1
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			g.star |= bit
			groups++
			prefixOpen = false
		case '?':
			for c := range g.m {
				g.m[c] |= bit
			}
			prefixOpen = false
		case '[':
			var rest []byte
			n := 0
			last := -1
			for c := 0; c < 256; c++ {
				var in bool
				rest, in = classMatch(p, byte(c), nocase)
				if in {
					g.m[c] |= bit
					n++
					last = c
				}
			}
			if n == 1 {
				g.single[g.ntok] = int16(last)
			}
			p = rest
			if n == 1 && prefixOpen {
				g.prefix = append(g.prefix, byte(last))
			} else {
				prefixOpen = false
			}
		default:
			if p[0] == '\\' && len(p) >= 2 {
				p = p[1:]
			}
			n := 0
			last := -1
			for c := 0; c < 256; c++ {
				if litEq(p[0], byte(c), nocase) {
					g.m[c] |= bit
					n++
					last = c
				}
			}
			if n == 1 {
				g.single[g.ntok] = int16(last)
			}
			if n == 1 && prefixOpen {
				g.prefix = append(g.prefix, byte(last))
			} else {
				prefixOpen = false
			}
		}
		p = p[1:]
		g.ntok++
	}
	if groups > maxGlobNesting {
		g.nfa = false
	}
	if !g.nfa {
		return
	}
	// sat: suffix of tokens whose byte-sets are all non-empty.
	g.sat = uint64(1) << g.ntok
	for i := g.ntok - 1; i >= 0; i-- {
		bit := uint64(1) << i
		if g.star&bit == 0 && !g.tokenNonEmpty(i) {
			break
		}
		g.sat |= bit
	}
}

func (g *glob) tokenNonEmpty(i int) bool {
	bit := uint64(1) << i
	for c := range g.m {
		if g.m[c]&bit != 0 {
			return true
		}
	}
	return false
}

// start is the state set before any byte.
func (g *glob) start() uint64 { return g.closure(1) }

func (g *glob) closure(s uint64) uint64 { return s | (s&g.star)<<1 }

// step consumes byte c.
func (g *glob) step(s uint64, c byte) uint64 {
	return g.closure((s&g.m[c])<<1 | s&g.star)
}

// steps consumes b.
func (g *glob) steps(s uint64, b []byte) uint64 {
	for _, c := range b {
		if s == 0 {
			return 0
		}
		s = g.step(s, c)
	}
	return s
}

// alive reports whether some continuation from state set s can still match.
// For a non-empty path it is exact.
func (g *glob) alive(s uint64) bool { return s&g.sat != 0 }

// accepts reports whether a key of length keyLen whose bytes led to s matches.
func (g *glob) accepts(s uint64, keyLen int) bool {
	if keyLen == 0 {
		return len(g.pattern) == 0
	}
	return s&(uint64(1)<<g.ntok) != 0
}

// only returns the one byte every continuation from s must start with, or -1.
func (g *glob) only(s uint64) int {
	if s&g.star != 0 || s == 0 {
		return -1
	}
	b := -1
	for x := s; x != 0; x &= x - 1 {
		i := bits.TrailingZeros64(x)
		if i >= g.ntok {
			return -1 // accepting: the key may end here
		}
		c := int(g.single[i])
		if c < 0 || (b >= 0 && c != b) {
			return -1
		}
		b = c
	}
	return b
}

// matchKey is the exact answer for a whole key, for callers without a state.
func (g *glob) matchKey(key []byte) bool {
	if g.all {
		return true
	}
	if !g.nfa {
		return Match(g.pattern, key, g.nocase)
	}
	return g.accepts(g.steps(g.start(), key), len(key))
}

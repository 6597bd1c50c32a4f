package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/radish-kv/radish/num"
)

// Redis's error texts for a value that does not parse or fit. They follow
// "CONFIG SET failed (possibly related to argument 'x') - " or the line
// that names the bad configuration line.
const (
	errNotInt    = "argument couldn't be parsed into an integer"
	errNotMemory = "argument must be a memory value"
	errNotBool   = "argument must be 'yes' or 'no'"
	errNotFloat  = "argument couldn't be parsed into a float"
	errFraction  = "argument must be greater than 0 and at most 1"
	errBadSave   = "Invalid save parameters"
	errManyBinds = "Too many bind addresses specified."
	errArgs      = "wrong number of arguments"
	errDirective = "Bad directive or wrong number of arguments"
	errQuotes    = "Unbalanced quotes in configuration line"
)

// ParseInt parses s as Redis's string2ll does: an optional '-' then digits,
// no blanks, no '+', no leading zeros, no "-0", no overflow.
func ParseInt(s string) (int64, bool) { return num.ParseInt([]byte(s)) }

// ParseMemory parses a memory value as Redis's memtoull does: leading
// digits (none means 0) then an optional case-insensitive unit: b, k (1000),
// kb (1024), m (1000²), mb (1024²), g (1000³), gb (1024³). "1.5mb", "+1k",
// "-1" and "5 kb" are refused. Unlike Redis, a value past 2^64-1 is refused
// rather than wrapped.
func ParseMemory(s string) (uint64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i == 0 {
		return 0, true
	}
	v, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil || v > math.MaxUint64/mul {
		return 0, false
	}
	return v * mul, true
}

// parseFloat parses a finite number as strtod would take a whole word
// ("0.8", ".5", "1e-1", "0x1p-1", "0x10"); "nan", "inf", "1_0", blanks
// and trailing bytes are refused.
func parseFloat(s string) (float64, bool) {
	f, ok := num.ParseDouble([]byte(s))
	if !ok || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// parseBool takes yes/no in any case, as Redis does.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "yes":
		return true, true
	case "no":
		return false, true
	}
	return false, false
}

func formatBool(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// strtoll mimics C's strtoll(s, &end, 10) followed by the check *end == 0:
// leading blanks and a sign are allowed, no digits at all gives 0 and leaves
// end at the start (so only "" passes with no digits).
func strtoll(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil { // strtoll saturates
		v = math.MaxInt64
		if neg {
			return math.MinInt64, true
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

func rangeError(min, max int64) string {
	return "argument must be between " + strconv.FormatInt(min, 10) + " and " + strconv.FormatInt(max, 10) + " inclusive"
}

func enumError(names []string) string {
	return "argument(s) must be one of the following: " + strings.Join(names, ", ")
}

// Match reports whether s matches the glob pattern as Redis's
// stringmatchlen does (* ? [abc] [^a-z] \x), ignoring case when nocase.
func Match(pattern, s string, nocase bool) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if Match(pattern[1:], s[i:], nocase) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			pattern = pattern[1:]
			not := len(pattern) > 0 && pattern[0] == '^'
			if not {
				pattern = pattern[1:]
			}
			match := false
			for len(pattern) > 0 && pattern[0] != ']' {
				switch {
				case pattern[0] == '\\' && len(pattern) >= 2:
					pattern = pattern[1:]
					if eqByte(pattern[0], s[0], nocase) {
						match = true
					}
				case len(pattern) >= 3 && pattern[1] == '-':
					lo, hi := pattern[0], pattern[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					c := s[0]
					if nocase {
						lo, hi, c = lower(lo), lower(hi), lower(c)
					}
					if c >= lo && c <= hi {
						match = true
					}
					pattern = pattern[2:]
				default:
					if eqByte(pattern[0], s[0], nocase) {
						match = true
					}
				}
				pattern = pattern[1:]
			}
			if len(pattern) == 0 { // unterminated [: Redis treats the end as ']'
				pattern = "]"
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(pattern) >= 2 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || !eqByte(pattern[0], s[0], nocase) {
				return false
			}
			s = s[1:]
		}
		pattern = pattern[1:]
	}
	return len(s) == 0
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func eqByte(a, b byte, nocase bool) bool {
	if nocase {
		return lower(a) == lower(b)
	}
	return a == b
}

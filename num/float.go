package num

import (
	"math"
	"math/big"
	"strconv"
)

// form is what strtod found at the front of a text.
type form uint8

const (
	formNone form = iota // no number: strtod consumes nothing
	formDec              // decimal digits, point, e exponent
	formHex              // "0x" hex digits, point, p exponent
	formInf              // "inf" or "infinity"
	formNaN              // "nan" or "nan(chars)"
)

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f'
}

// hasFold reports whether b starts with lower (ASCII letters) in any case.
func hasFold(b []byte, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if b[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// scan is strtod's grammar (glibc, C locale) at the front of b, blanks
// already skipped: n is the number of bytes strtod consumes (0 with
// formNone), exp whether a hex number has its 'p' exponent, nonzero
// whether a mantissa digit is not 0 (a zero result is then an underflow).
func scan(b []byte) (n int, f form, exp, nonzero bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	r := b[i:]
	switch {
	case hasFold(r, "infinity"):
		return i + 8, formInf, false, true
	case hasFold(r, "inf"):
		return i + 3, formInf, false, true
	case hasFold(r, "nan"):
		i += 3
		if j := i; j < len(b) && b[j] == '(' {
			for j++; j < len(b) && (isDigit(b[j]) || b[j] == '_' || 'a' <= b[j]|0x20 && b[j]|0x20 <= 'z'); j++ {
			}
			if j < len(b) && b[j] == ')' {
				i = j + 1
			}
		}
		return i, formNaN, false, false
	}
	digit, expMark, f := isDigit, byte('e'), formDec
	if len(r) > 2 && r[0] == '0' && r[1]|0x20 == 'x' && (isHex(r[2]) || r[2] == '.' && len(r) > 3 && isHex(r[3])) {
		i += 2
		digit, expMark, f = isHex, 'p', formHex
	}
	digits := 0
	for ; i < len(b) && digit(b[i]); i++ {
		digits++
		nonzero = nonzero || b[i] != '0'
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && digit(b[i]); i++ {
			digits++
			nonzero = nonzero || b[i] != '0'
		}
	}
	if digits == 0 {
		return 0, formNone, false, false
	}
	if i < len(b) && b[i]|0x20 == expMark {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j < len(b) && isDigit(b[j]) {
			for j++; j < len(b) && isDigit(b[j]); j++ {
			}
			i, exp = j, true
		}
	}
	return i, f, exp, nonzero
}

// value converts t, all of it a number of form f as scan found it, to the
// nearest float64. erange is strtod's ERANGE: an overflow to ±Inf or an
// underflow of a nonzero text to zero.
func value(t []byte, f form, exp, nonzero bool) (v float64, erange bool) {
	neg := t[0] == '-'
	switch f {
	case formInf:
		return math.Copysign(math.Inf(1), b2f(neg)), false
	case formNaN:
		return math.NaN(), false
	}
	var err error
	if f == formHex && !exp { // Go needs the binary exponent strtod lets out
		var buf [64]byte
		v, err = strconv.ParseFloat(string(append(append(buf[:0], t...), "p0"...)), 64)
	} else {
		v, err = strconv.ParseFloat(string(t), 64)
	}
	if err != nil { // the grammar is checked: only ErrRange is left
		return v, true
	}
	return v, v == 0 && nonzero
}

func b2f(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// ParseStrtod is C's strtod over the whole of b: leading blanks, a sign,
// a decimal or hex number, inf, infinity or nan in any case, and nothing
// after it. erange reports strtod's ERANGE (overflow to ±Inf, underflow to
// zero). The empty text (or only blanks) is not a number here; callers
// that take it as 0, as strtod's caller sometimes does, say so.
func ParseStrtod(b []byte) (f float64, erange, ok bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	t := b[i:]
	n, fm, exp, nonzero := scan(t)
	if fm == formNone || n != len(t) {
		return 0, false, false
	}
	f, erange = value(t, fm, exp, nonzero)
	return f, erange, true
}

// ParseDouble is Redis's string2d (getDoubleFromObject): strtod over the
// whole of b with no leading blank, not NaN, and no overflow or underflow
// to zero (a subnormal result is fine).
func ParseDouble(b []byte) (float64, bool) {
	if len(b) == 0 || isSpace(b[0]) {
		return 0, false
	}
	f, erange, ok := ParseStrtod(b)
	if !ok || erange || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// Properties of x87 extended precision, C's long double on x86-64 Linux.
const (
	ldMantBits = 64
	ldMaxExp   = 16384  // finite values are < 2**ldMaxExp
	ldMinExp   = -16444 // smaller magnitudes round to zero (2**-16445 is the least subnormal)
	ldMaxChars = 5 * 1024
)

// ldText scans b as string2ld does (no leading blank, nothing after the
// number, not NaN, shorter than Redis's MAX_LONG_DOUBLE_CHARS buffer) and
// returns its form, or formNone when string2ld refuses b before its range
// is known.
func ldText(b []byte) (n int, f form, exp, nonzero bool) {
	if len(b) == 0 || len(b) >= ldMaxChars || isSpace(b[0]) {
		return 0, formNone, false, false
	}
	n, f, exp, nonzero = scan(b)
	if n != len(b) || f == formNaN {
		return 0, formNone, false, false
	}
	return n, f, exp, nonzero
}

// ParseLongDouble is Redis's string2ld (getLongDoubleFromObject): C's
// strtold over the whole of b, decimal or hex, inf or infinity; not NaN,
// no leading blank, nothing trailing, no overflow and no underflow to
// zero. The result is the long double strtold gives, rounded to its 64-bit
// mantissa. It allocates; ParseLongDouble64 does not.
func ParseLongDouble(b []byte) (*big.Float, bool) {
	_, f, exp, _ := ldText(b)
	switch f {
	case formNone:
		return nil, false
	case formInf:
		return new(big.Float).SetPrec(ldMantBits).SetInf(b[0] == '-'), true
	}
	return ldParse(b, f, exp)
}

// ldParse parses a decimal or hex text at ample precision and rounds it
// once to 64 bits, so the result is the correctly rounded value strtold
// gives (big.Float's own parse at 64 bits may round twice).
func ldParse(b []byte, f form, exp bool) (*big.Float, bool) {
	x := new(big.Float).SetPrec(1024).SetMode(big.ToNearestEven)
	base := 10
	s := string(b)
	if f == formHex {
		base = 0
		if !exp {
			s += "p0"
		}
	}
	if _, _, err := x.Parse(s, base); err != nil {
		return nil, false
	}
	x.SetPrec(ldMantBits)
	if x.Sign() != 0 {
		if e := x.MantExp(nil); e > ldMaxExp || e < ldMinExp {
			return nil, false
		}
	}
	return x, true
}

// ParseLongDouble64 is ParseLongDouble with the result rounded to a
// float64: a long double past the double's range is ±Inf, one below it
// ±0. It allocates only for such texts.
func ParseLongDouble64(b []byte) (float64, bool) {
	_, f, exp, nonzero := ldText(b)
	if f == formNone {
		return 0, false
	}
	v, erange := value(b, f, exp, nonzero)
	if erange {
		if _, ok := ldParse(b, f, exp); !ok {
			return 0, false
		}
	}
	return v, true
}

// AddLongDouble is a + b in long double arithmetic, as INCRBYFLOAT adds:
// ok is false when an operand is infinite or the sum overflows (Redis's
// "increment would produce NaN or Infinity").
func AddLongDouble(a, b *big.Float) (sum *big.Float, ok bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	sum = new(big.Float).SetPrec(ldMantBits).SetMode(big.ToNearestEven).Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > ldMaxExp {
		return nil, false
	}
	return sum, true
}

package num

import (
	"math"
	"math/big"
	"strconv"
)

// AppendDouble appends f as Redis 7.0's addReplyDouble prints a double:
// "inf", "-inf", otherwise C's "%.17g" (0.1 is "0.10000000000000001", 3
// is "3", 1e17 is "1e+17"); NaN is "nan".
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	// Go's 'g' at precision 17 picks %e and %f as C does and cuts
	// trailing zeros as C's %g does; both print at least two exponent
	// digits.
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// AppendLongDouble appends x as Redis's ld2string in LD_STR_HUMAN mode
// prints a long double (INCRBYFLOAT, HINCRBYFLOAT): "%.17Lf", then the
// trailing zeros after the point and a trailing point cut, and "-0"
// printed as "0". x is finite.
func AppendLongDouble(dst []byte, x *big.Float) []byte {
	start := len(dst)
	dst = x.Append(dst, 'f', 17)
	i := len(dst)
	for i > start+1 && dst[i-1] == '0' {
		i--
	}
	if dst[i-1] == '.' {
		i--
	}
	dst = dst[:i]
	if i-start == 2 && dst[start] == '-' && dst[start+1] == '0' {
		dst[start] = '0'
		dst = dst[:start+1]
	}
	return dst
}

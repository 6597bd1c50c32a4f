// Package num is Redis's number grammar, written once: how an argument or
// a stored string is read as an integer or a float, and how a float is
// printed in a reply. Every other package calls it instead of strconv for
// anything a client sends or reads back.
//
// # Nouns
//
//   - string2ll (ParseInt): Redis's strict integer, the one behind
//     getLongLongFromObject, SELECT, INCRBY, EXPIRE, list indexes and
//     RESP lengths: an optional '-', digits without a leading zero ("0"
//     alone is fine), fewer than 21 bytes, no overflow. "+1", "01", " 1",
//     "-0" are not integers.
//   - strtoul (ParseUlong): the SCAN cursor: optional sign ("-1" wraps),
//     decimal digits with leading zeros, no leading space, no overflow;
//     "" is 0.
//   - strtod (ParseStrtod): C's strtod over the whole text in the C
//     locale: leading blanks, a sign, decimal or hex ("0x1p3", "0x10")
//     digits, "inf"/"infinity"/"nan"/"nan(...)" in any case. ERANGE is an
//     overflow to ±Inf or an underflow to zero. Score ranges read it as it
//     is.
//   - string2d (ParseDouble): strtod with no leading blank, no NaN and no
//     ERANGE: scores, weights.
//   - string2ld (ParseLongDouble, ParseLongDouble64): the same over C's
//     long double on x86-64 (64-bit mantissa, exponents to ±16384):
//     INCRBYFLOAT, HINCRBYFLOAT, blocking timeouts. ParseLongDouble keeps
//     the long double in a big.Float; ParseLongDouble64 rounds it to a
//     float64 (±Inf past the double's range) without allocating.
//   - %.17g (AppendDouble): how Redis 7.0's addReplyDouble prints a double
//     (ZSCORE, RESP3 doubles); ld2string human (AppendLongDouble): how
//     INCRBYFLOAT prints its long double result ("%.17Lf", trailing zeros
//     cut).
//
// What it never does: allocate for a number short enough to be a valid
// int64 or a plain float (hex floats without an exponent and the long
// double fallbacks may), read a locale, or know any command.
//
// What must stay true: each function accepts exactly the texts the C
// function it is named after accepts on glibc x86-64 (the table tests and
// e2e's TestNumbersAgainstRedis check it against redis-server).
package num

package num

// maxIntLen is Redis's LONG_STR_SIZE: string2ll refuses 21 bytes or more.
const maxIntLen = 21

// ParseInt is Redis's string2ll: an optional '-', then digits with no
// leading zero ("0" alone is fine); no '+', no blanks, no "-0", fewer than
// 21 bytes, and the value fits an int64.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n >= maxIntLen {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	i, neg := 0, false
	if b[0] == '-' {
		if n == 1 {
			return 0, false
		}
		neg, i = true, 1
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		d := uint64(b[i]) - '0'
		if d > 9 || v > (1<<63)/10 { // past (1<<63)/10, v*10 is out of range
			return 0, false
		}
		v = v*10 + d
		if v > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// ParseUlong is Redis's parseScanCursorOrReply (strtoul over the whole
// text): an optional sign ("-1" wraps to 2^64-1), decimal digits with
// leading zeros allowed, no leading blank, no overflow; "" is 0.
func ParseUlong(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v uint64
	for _, c := range b {
		d := uint64(c) - '0'
		if d > 9 || v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}

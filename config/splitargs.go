package config

import "strings"

// SplitArgs splits one configuration line into words exactly as Redis's
// sdssplitargs does: blanks separate words; "double quotes" take the
// escapes \n \r \t \b \a \xHH and \<any> (the char itself); 'single
// quotes' take only \'; a closing quote must be followed by a blank or the
// end of the line. A quote in the middle of a word opens a quoted part of
// that word (a"b c" is the word `ab c`). ok is false for an unbalanced
// quote or a closing quote followed by a non-blank. As in C, the line ends
// at its first NUL byte (a \x00 escape inside quotes is a byte of its
// word).
func SplitArgs(line string) (args []string, ok bool) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	p := 0
	n := len(line)
	args = []string{}
	for {
		for p < n && isSpace(line[p]) {
			p++
		}
		if p >= n {
			return args, true
		}
		var cur strings.Builder
		inq, insq, done := false, false, false
		for !done {
			switch {
			case inq:
				if p >= n {
					return nil, false // unterminated quotes
				}
				c := line[p]
				if c == '\\' && p+3 < n && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]) {
					cur.WriteByte(unhex(line[p+2])<<4 | unhex(line[p+3]))
					p += 3
				} else if c == '\\' && p+1 < n {
					p++
					switch line[p] {
					case 'n':
						cur.WriteByte('\n')
					case 'r':
						cur.WriteByte('\r')
					case 't':
						cur.WriteByte('\t')
					case 'b':
						cur.WriteByte('\b')
					case 'a':
						cur.WriteByte('\a')
					default:
						cur.WriteByte(line[p])
					}
				} else if c == '"' {
					// closing quote must be followed by a space or nothing at all
					if p+1 < n && !isSpace(line[p+1]) {
						return nil, false
					}
					done = true
				} else {
					cur.WriteByte(c)
				}
			case insq:
				if p >= n {
					return nil, false
				}
				c := line[p]
				if c == '\\' && p+1 < n && line[p+1] == '\'' {
					p++
					cur.WriteByte('\'')
				} else if c == '\'' {
					if p+1 < n && !isSpace(line[p+1]) {
						return nil, false
					}
					done = true
				} else {
					cur.WriteByte(c)
				}
			default:
				if p >= n {
					done = true
					break
				}
				switch c := line[p]; c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur.WriteByte(c)
				}
			}
			if p < n {
				p++
			}
		}
		args = append(args, cur.String())
	}
}

// Repr quotes s as Redis's sdscatrepr does: "..." with \\ \" \n \r \t \a \b
// escaped and other non-printable bytes as \xHH. SplitArgs(Repr(s)) == [s].
func Repr(s string) string { return string(AppendRepr(nil, []byte(s))) }

// AppendRepr appends s quoted as Repr quotes it to b (MONITOR's lines).
func AppendRepr(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				b = append(b, c)
			} else {
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(b, '"')
}

// isSpace is C's isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

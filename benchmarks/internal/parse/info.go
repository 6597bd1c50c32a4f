package parse

import (
	"strconv"
	"strings"
)

// Info is an INFO reply: field name to value, sections flattened.
type Info map[string]string

// ParseInfo reads an INFO reply ("name:value" lines, "# Section" headers,
// CRLF or LF line ends).
func ParseInfo(s string) Info {
	m := Info{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// Float returns the named field as a number and whether it was present and
// numeric.
func (m Info) Float(name string) (float64, bool) {
	v, ok := m[name]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// CPUSeconds returns used_cpu_sys + used_cpu_user, the server's own CPU time,
// and whether both fields were there.
func (m Info) CPUSeconds() (float64, bool) {
	s, ok1 := m.Float("used_cpu_sys")
	u, ok2 := m.Float("used_cpu_user")
	return s + u, ok1 && ok2
}

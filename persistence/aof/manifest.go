package aof

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// File types in a manifest (Redis 7's aof_file_type).
const (
	TypeBase    = 'b' // the base: an RDB file
	TypeHistory = 'h' // a file a rewrite replaced, deleted once the new manifest is in place
	TypeIncr    = 'i' // an incremental file: RESP commands
)

// File is one line of a manifest.
type File struct {
	Name string
	Seq  int64
	Type byte
}

// Manifest is a shard's manifest: its base (if any), then its
// incremental files in the order they are replayed.
type Manifest struct {
	Base  *File
	Incrs []File
	// History lists the files a rewrite replaced and that may still exist.
	History []File
}

// ParseManifest reads a manifest in Redis 7's format: one line per file,
// "file <name> seq <n> type <b|h|i>" (keys in any order, a name with
// spaces in quotes); lines starting with '#' are comments.
func ParseManifest(text string) (*Manifest, error) {
	m := &Manifest{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		words, err := splitQuoted(line)
		if err != nil || len(words)%2 != 0 {
			return nil, fmt.Errorf("invalid AOF manifest file format at line %d", n+1)
		}
		var f File
		for i := 0; i < len(words); i += 2 {
			switch v := words[i+1]; words[i] {
			case "file":
				f.Name = v
			case "seq":
				s, err := strconv.ParseInt(v, 10, 64)
				if err != nil || s < 1 {
					return nil, fmt.Errorf("invalid AOF manifest file format at line %d: bad seq %q", n+1, v)
				}
				f.Seq = s
			case "type":
				if len(v) != 1 {
					return nil, fmt.Errorf("invalid AOF manifest file format at line %d: bad type %q", n+1, v)
				}
				f.Type = v[0]
			}
		}
		if f.Name == "" || f.Seq == 0 {
			return nil, fmt.Errorf("invalid AOF manifest file format at line %d", n+1)
		}
		switch f.Type {
		case TypeBase:
			if m.Base != nil {
				return nil, errors.New("found duplicate base file information in the AOF manifest")
			}
			m.Base = &f
		case TypeHistory:
			m.History = append(m.History, f)
		case TypeIncr:
			if len(m.Incrs) > 0 && f.Seq <= m.Incrs[len(m.Incrs)-1].Seq {
				return nil, fmt.Errorf("found a non-monotonic sequence number in the AOF manifest at line %d", n+1)
			}
			m.Incrs = append(m.Incrs, f)
		default:
			return nil, fmt.Errorf("invalid AOF manifest file format at line %d: unknown type %q", n+1, f.Type)
		}
	}
	if m.Base == nil && len(m.Incrs) == 0 {
		return nil, errors.New("the AOF manifest names no file")
	}
	return m, nil
}

// Format writes m as Redis 7 does: base, history, then incremental files.
func (m *Manifest) Format() string {
	var b strings.Builder
	line := func(f File) {
		fmt.Fprintf(&b, "file %s seq %d type %c\n", quote(f.Name), f.Seq, f.Type)
	}
	if m.Base != nil {
		line(*m.Base)
	}
	for _, f := range m.History {
		line(f)
	}
	for _, f := range m.Incrs {
		line(f)
	}
	return b.String()
}

// quote returns name as is, or in double quotes (sdscatrepr) when it
// holds a space, a quote or a control character.
func quote(name string) string {
	if !strings.ContainsAny(name, " \"\\\t\r\n") {
		return name
	}
	return strconv.Quote(name)
}

// splitQuoted splits a manifest line into words; a word in double quotes
// may hold spaces and Go/C escapes.
func splitQuoted(line string) ([]string, error) {
	var out []string
	for {
		line = strings.TrimLeft(line, " \t")
		if line == "" {
			return out, nil
		}
		if line[0] == '"' {
			w, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, err
			}
			s, err := strconv.Unquote(w)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			line = line[len(w):]
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
}

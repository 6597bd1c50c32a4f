package engine

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite engine/testdata scripts with the actual output")

// TestScripts runs engine/testdata/*.txt. A script is a sequence of
//
//	> command args...
//	expected output line(s)
//
// Lines starting with '#' and blank lines are kept as they are. Commands
// (arguments are Go-quoted when they start with '"'):
//
//	time MS                   set the clock handed to every call
//	set K V [exat=MS] [keepttl]
//	get K | del K | exists K | type K | encoding K | strlen K
//	incrby K N | append K V | expireat K MS | persist K | expiry K
//	rename SRC DST | dbsize | flushdb
//	keys PATTERN              every match, in order, one per line
//	scan PATTERN COUNT        a full SCAN: one line per call
//	match PATTERN STRING [nocase]
//
// go test ./engine/ -run Scripts -rewrite regenerates the expectations.
func TestScripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runScript(t, file) })
	}
}

func runScript(t *testing.T, file string) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	f.Close()

	s := NewStore(16)
	defer s.Close()
	db := s.DB(0)
	var now int64
	var out strings.Builder
	failed := false
	for i := 0; i < len(lines); {
		line := lines[i]
		i++
		if !strings.HasPrefix(line, "> ") {
			out.WriteString(line + "\n")
			continue
		}
		var want []string
		for i < len(lines) && !strings.HasPrefix(lines[i], "> ") && lines[i] != "" && !strings.HasPrefix(lines[i], "#") {
			want = append(want, lines[i])
			i++
		}
		got := runCommand(t, db, &now, splitArgs(t, line[2:]))
		out.WriteString(line + "\n")
		for _, g := range got {
			out.WriteString(g + "\n")
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", file, i, line, strings.Join(got, "\n"), strings.Join(want, "\n"))
			failed = true
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if failed {
		t.Log("run with -rewrite to accept the new output")
	}
}

func splitArgs(t *testing.T, s string) []string {
	var args []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				t.Fatalf("bad quoting in %q", s)
			}
			u, _ := strconv.Unquote(q)
			args = append(args, u)
			s = s[len(q):]
			continue
		}
		j := strings.IndexByte(s, ' ')
		if j < 0 {
			j = len(s)
		}
		args = append(args, s[:j])
		s = s[j:]
	}
	return args
}

func runCommand(t *testing.T, db *DB, now *int64, a []string) []string {
	b := func(i int) []byte { return []byte(a[i]) }
	n := func(i int) int64 {
		v, err := strconv.ParseInt(a[i], 10, 64)
		if err != nil {
			t.Fatalf("bad number %q", a[i])
		}
		return v
	}
	one := func(v any) []string {
		switch v := v.(type) {
		case error:
			return []string{"error: " + v.Error()}
		case []byte:
			return []string{strconv.Quote(string(v))}
		case bool:
			if v {
				return []string{"1"}
			}
			return []string{"0"}
		}
		return []string{fmt.Sprint(v)}
	}
	switch a[0] {
	case "time":
		*now = n(1)
		return nil
	case "set":
		var exp int64
		keep := false
		for _, o := range a[3:] {
			switch {
			case strings.HasPrefix(o, "exat="):
				exp, _ = strconv.ParseInt(o[5:], 10, 64)
			case o == "keepttl":
				keep = true
			}
		}
		db.s.seen(*now)
		db.SetString(b(1), b(2), exp, keep)
		return []string{"ok"}
	case "get":
		v, found, err := db.GetString(b(1), *now)
		if err != nil {
			return one(err)
		}
		if !found {
			return []string{"nil"}
		}
		return one(v)
	case "del":
		return one(db.Delete(b(1), *now))
	case "exists":
		return one(db.Exists(b(1), *now))
	case "type":
		return one(db.TypeOf(b(1), *now).String())
	case "encoding":
		e, ok := db.Encoding(b(1), *now)
		if !ok {
			return []string{"nil"}
		}
		return one(e)
	case "strlen":
		v, err := db.StrLen(b(1), *now)
		if err != nil {
			return one(err)
		}
		return one(v)
	case "incrby":
		v, err := db.IncrBy(b(1), n(2), *now)
		if err != nil {
			return one(err)
		}
		return one(v)
	case "append":
		v, err := db.Append(b(1), b(2), *now)
		if err != nil {
			return one(err)
		}
		return one(v)
	case "expireat":
		return one(db.SetExpiry(b(1), n(2), *now))
	case "persist":
		return one(db.Persist(b(1), *now))
	case "expiry":
		e, ok := db.Expiry(b(1), *now)
		if !ok {
			return []string{"nil"}
		}
		return one(e)
	case "rename":
		return one(db.Rename(b(1), b(2), *now))
	case "dbsize":
		return []string{fmt.Sprintf("%d keys, %d with ttl", db.Len(), db.ExpiresLen())}
	case "flushdb":
		db.Flush()
		return []string{"ok"}
	case "keys":
		var out []string
		db.Keys(b(1), *now, func(k []byte) bool {
			out = append(out, strconv.Quote(string(k)))
			return true
		})
		if out == nil {
			return []string{"(empty)"}
		}
		return out
	case "scan":
		var out []string
		var pat []byte
		if a[1] != "-" {
			pat = b(1)
		}
		for cur := uint64(0); ; {
			var keys []string
			cur = db.Scan(cur, int(n(2)), pat, TypeNone, *now, func(k []byte) {
				keys = append(keys, strconv.Quote(string(k)))
			})
			end := "more"
			if cur == 0 {
				end = "done"
			}
			out = append(out, fmt.Sprintf("[%s] %s", strings.Join(keys, " "), end))
			if cur == 0 {
				return out
			}
		}
	case "match":
		return one(Match(b(1), b(2), len(a) > 3 && a[3] == "nocase"))
	}
	t.Fatalf("unknown command %q", a[0])
	return nil
}

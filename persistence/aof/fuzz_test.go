package aof

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzIncr: whatever bytes an incremental file holds (a crash, a bad disk,
// an edit), the check ends in the valid prefix's length and nil, a torn
// end or a format error, never a panic; a torn file's valid prefix checks
// clean (what aof-load-truncated keeps), and a clean file replays every
// command it holds, in a database the file selected.
func FuzzIncr(f *testing.F) {
	cmd := func(args ...string) string {
		var b strings.Builder
		b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
		for _, a := range args {
			b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
		}
		return b.String()
	}
	f.Add([]byte(cmd("SELECT", "0") + cmd("SET", "k", "v") + "#TS:1700000000\r\n" + cmd("DEL", "k")))
	f.Add([]byte(cmd("RADISH.EPOCH", "7") + cmd("RADISH.PART", "1", "0", "2", "2") + cmd("SET", "a", "1") +
		cmd("SET", "b", "2") + cmd("RADISH.CUT", "3")))
	f.Add([]byte(cmd("RADISH.BASE", "3") + cmd("MULTI") + cmd("INCR", "n") + cmd("EXEC") + cmd("SELECT", "1")))
	f.Add([]byte(cmd("MULTI") + cmd("SET", "k", "v")))                 // torn in a block
	f.Add([]byte(cmd("RADISH.PART", "1", "0", "2", "9") + cmd("SET"))) // torn in a part
	f.Add([]byte(cmd("SET", "k", "v") + "*3\r\n$3\r\nSET\r\n$1\r\nk")) // torn in a command
	f.Add([]byte("*1\r\n$999999999999\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tl tally
		valid, err := scanIncr(data, &tl, true)
		if valid < 0 || valid > len(data) {
			t.Fatalf("valid to %d of %d bytes", valid, len(data))
		}
		if errors.Is(err, errTorn) {
			var again tally
			if v, err := scanIncr(data[:valid], &again, true); v != valid || err != nil {
				t.Fatalf("the valid prefix of %d bytes checks to %d, %v", valid, v, err)
			}
			data, err = data[:valid], nil
		}
		if err != nil {
			return
		}
		_, err = replayIncr(data, complete([]tally{tl}), func(db int, args [][]byte) error {
			if db < 0 || len(args) == 0 {
				t.Fatalf("applied %q in database %d", args, db)
			}
			return nil
		})
		if err != nil && !errors.Is(err, errFormat) {
			t.Fatalf("replay: %v", err)
		}
	})
}

// FuzzManifest: any manifest text parses or fails with an error, never a
// panic, and what parses formats to text that parses to the same files.
func FuzzManifest(f *testing.F) {
	f.Add("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n")
	f.Add("# comment\nfile \"a b\" seq 2 type h\r\nfile x seq 3 type i\n")
	f.Add("file 'unclosed seq 1 type b\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseManifest(text)
		if err != nil {
			return
		}
		again, err := ParseManifest(m.Format())
		if err != nil {
			t.Fatalf("%q parsed, formatted as %q, which fails: %v", text, m.Format(), err)
		}
		if again.Format() != m.Format() {
			t.Fatalf("%q formatted as %q, then as %q", text, m.Format(), again.Format())
		}
	})
}

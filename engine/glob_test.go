package engine

import (
	"math/rand/v2"
	"testing"
)

var matchCases = []struct {
	pattern, s string
	nocase     bool
	want       bool
}{
	{"h?llo", "hello", false, true},
	{"h?llo", "hallo", false, true},
	{"h?llo", "hllo", false, false},
	{"h*llo", "hllo", false, true},
	{"h*llo", "heeeello", false, true},
	{"h*llo", "heeeell", false, false},
	{"h[ae]llo", "hello", false, true},
	{"h[ae]llo", "hallo", false, true},
	{"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", false, true},
	{"h[^e]llo", "hello", false, false},
	{"h[a-b]llo", "hallo", false, true},
	{"h[a-b]llo", "hbllo", false, true},
	{"h[a-b]llo", "hcllo", false, false},
	{"h[b-a]llo", "hallo", false, true}, // reversed range ends are swapped
	{`\*`, "*", false, true},
	{`\*`, "a", false, false},
	{`\?`, "?", false, true},
	{`\?`, "x", false, false},
	{`\\`, `\`, false, true},
	{"*", "", false, false}, // Redis: the empty string matches only ""
	{"", "", false, true},
	{"", "a", false, false},
	{"**", "", false, false},
	{"*", "anything", false, true},
	{`a\`, `a\`, false, true}, // trailing backslash is a literal '\'
	{`a\`, "a", false, false},
	{`\`, `\`, false, true},
	{"[", "[", false, false}, // bare unclosed '[' matches nothing
	{"[", "", false, false},
	{"h[", "h", false, false},
	{"h[", "h[", false, false},
	{"[abc", "a", false, true}, // unclosed class ends at the pattern's end
	{"[abc", "d", false, false},
	{"[abc", "ab", false, false},
	{"[]", "]", false, false}, // "[]" is an empty class
	{"[]a]", "]", false, false},
	{"[^]", "x", false, true},
	{"[^", "x", false, true},
	{"[a-]", "]", false, true}, // 'a'-']' range, as Redis reads it
	{"[a-]", "_", false, true},
	{"[a-]", "b", false, false},
	{"[a-]", "-", false, false},
	{`[\]]`, "]", false, true},
	{`[a\-z]`, "-", false, true},
	{`[a\-z]`, "b", false, false},
	{`[\`, `\`, false, true},
	{"HELLO", "hello", true, true},
	{"HELLO", "hello", false, false},
	{"h[A-Z]llo", "hello", true, true},
	{"h[A-Z]llo", "hello", false, false},
	{"h[E]llo", "hello", true, true},
	{`[\A]`, "a", true, false}, // escapes inside a class ignore nocase
	{`\A`, "a", true, true},
	{"[A-z]", "[", false, true},
	{"[A-z]", "[", true, false}, // nocase lowers the range to a-z
	{"*a*b", "xaxb", false, true},
	{"*a*b", "xaxbx", false, false},
	{"a*", "a", false, true},
	{"a**", "a", false, true},
	{"a*?", "a", false, false},
	{"a*?", "ab", false, true},
	{"?", "", false, false},
	{"[a-\xff]", "b", false, false}, // signed chars: 0xff is -1
	{"[a-\xff]", "a", false, true},
	{"[a-\xff]", "\x00", false, true},
	{"[a-\xff]", "\x80", false, false},
	{"\xc3\xa9", "\xc3\xa9", true, true},
	{"user:*", "user:1000", false, true},
	{"user:*", "use", false, false},
	{"*:*:*", "a:b:c", false, true},
	{"*:*:*", "a:b", false, false},
}

func TestMatch(t *testing.T) {
	var g glob
	for _, c := range matchCases {
		if got := Match([]byte(c.pattern), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
		g.compile([]byte(c.pattern), c.nocase)
		g.all = false // the compiled form must agree even for "*"
		if got := g.matchKey([]byte(c.s)); got != c.want {
			t.Errorf("glob(%q).matchKey(%q, %v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
	}
}

func TestGlobPrune(t *testing.T) {
	cases := []struct {
		pattern, path string
		alive         bool
	}{
		{"user:*", "use", true},
		{"user:*", "usr", false},
		{"user:*", "user:12", true},
		{"a[bc]d", "ax", false},
		{"a[bc]d", "ac", true},
		{"a[bc]d", "acd", true},
		{"a[bc]d", "acdx", false},
		{"a[]d", "a", false}, // an empty class can never be satisfied
		{"*x", "zzzz", true},
		{"?", "ab", false},
		{"h*llo", "hxxxx", true},
	}
	var g glob
	for _, c := range cases {
		g.compile([]byte(c.pattern), false)
		if got := g.alive(g.steps(g.start(), []byte(c.path))); got != c.alive {
			t.Errorf("glob(%q) alive after %q = %v, want %v", c.pattern, c.path, got, c.alive)
		}
	}
	g.compile([]byte("user:[1]*"), false)
	if string(g.prefix) != "user:1" {
		t.Errorf("prefix = %q", g.prefix)
	}
	if b := g.only(g.steps(g.start(), []byte("us"))); b != 'e' {
		t.Errorf("only = %d", b)
	}
}

// randGlobBytes draws from an alphabet rich in pattern metacharacters.
func randGlobBytes(r *rand.Rand, n int, alpha string) []byte {
	b := make([]byte, r.IntN(n+1))
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return b
}

// TestGlobAgreesWithMatch holds the compiled NFA to the direct port on many
// random patterns and strings, and checks that pruning is exact: a path is
// alive iff some extension drawn from the alphabet matches.
func TestGlobAgreesWithMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const palpha = `ab*?[]^-\Az`
	const salpha = `abAz-]\`
	var g glob
	for i := 0; i < 20000; i++ {
		p := randGlobBytes(r, 8, palpha)
		s := randGlobBytes(r, 6, salpha)
		nocase := r.IntN(4) == 0
		want := Match(p, s, nocase)
		g.compile(p, nocase)
		g.all = false
		if got := g.matchKey(s); got != want {
			t.Fatalf("pattern %q s %q nocase %v: nfa %v, Match %v", p, s, nocase, got, want)
		}
		// Soundness of pruning: every prefix of a matching string is alive.
		if want {
			st := g.start()
			for j := 0; j < len(s); j++ {
				st = g.step(st, s[j])
				if !g.alive(st) {
					t.Fatalf("pattern %q s %q: pruned at %d", p, s, j+1)
				}
			}
		}
	}
}

func FuzzMatch(f *testing.F) {
	for _, c := range matchCases {
		f.Add([]byte(c.pattern), []byte(c.s), c.nocase)
	}
	f.Fuzz(func(t *testing.T, p, s []byte, nocase bool) {
		if len(p) > 64 || len(s) > 64 {
			return
		}
		var g glob
		g.compile(p, nocase)
		g.all = false
		want := Match(p, s, nocase)
		if got := g.matchKey(s); got != want {
			t.Fatalf("pattern %q s %q nocase %v: nfa %v, Match %v", p, s, nocase, got, want)
		}
		if want {
			st := g.start()
			for j := 0; j < len(s) && g.nfa; j++ {
				st = g.step(st, s[j])
				if !g.alive(st) {
					t.Fatalf("pattern %q s %q: pruned at %d", p, s, j+1)
				}
			}
		}
	})
}

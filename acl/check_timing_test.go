package acl

import (
	"fmt"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
)

// BenchmarkCheck is the permission check of one GET and one SET: the
// default user (a flag test) and a user with 20 key patterns whose key
// matches only the last one (20 glob matches).
func BenchmarkCheck(b *testing.B) {
	r := NewRegistry("")
	ops := []string{"on", "nopass", "+@all"}
	for i := range 20 {
		ops = append(ops, fmt.Sprintf("~app%d:*", i))
	}
	if err := r.SetUser("app", ops); err != nil {
		b.Fatal(err)
	}
	get := [][]byte{[]byte("GET"), []byte("app19:user:1000")}
	set := [][]byte{[]byte("SET"), []byte("app19:user:1000"), []byte("v")}
	gs, _ := command.Resolve(get)
	ss, _ := command.Resolve(set)
	for _, u := range []*User{r.Current().Default(), r.Current().User([]byte("app"))} {
		b.Run(u.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if why, _ := u.Check(gs, get); why != OK {
					b.Fatal(why)
				}
				if why, _ := u.Check(ss, set); why != OK {
					b.Fatal(why)
				}
			}
		})
	}
}

func TestCheckAllocates0(t *testing.T) {
	r := NewRegistry("")
	if err := r.SetUser("app", []string{"on", "+@all", "~a*", "~b*", "%R~c*"}); err != nil {
		t.Fatal(err)
	}
	u := r.Current().User([]byte("app"))
	args := [][]byte{[]byte("MSET"), []byte("a1"), []byte("v"), []byte("b1"), []byte("v")}
	spec, _ := command.Resolve(args)
	if n := testing.AllocsPerRun(100, func() { u.Check(spec, args) }); n != 0 {
		t.Errorf("Check allocates %v times", n)
	}
}

func TestPrefixPatternIsGlob(t *testing.T) {
	for _, pat := range []string{"app:*", "*", "a*", "a?*", "a\\**", "[a]*", "app", "tenant01:*", "tenant01*", "12345678*"} {
		k := newKeyPattern(PermAll, pat)
		for _, key := range []string{"", "a", "app:", "app:1", "ap", "a*", "a**", "b", "app", "app:12345678",
			"tenant01:", "tenant01:x", "tenant02:x", "tenant01", "tenant0", "12345678", "1234567", "123456789", "x2345678"} {
			if got, want := k.match([]byte(key)), engine.Match([]byte(pat), []byte(key), false); got != want {
				t.Errorf("%q ~ %q: %v, stringmatchlen says %v", pat, key, got, want)
			}
		}
	}
}

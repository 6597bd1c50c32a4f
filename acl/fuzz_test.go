package acl

import (
	"strings"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

// FuzzSetUser: any rules, applied as ACL SETUSER applies them, are taken
// or refused with an error, never a panic (ACL SETUSER u "(\x00)" stopped
// the server: a selector's empty word), and a user that took them prints
// as ACL LIST and ACL GETUSER print it. (What it prints need not read
// back the same: in Redis too, ACL SETUSER u "(&))" lists as
// "(resetchannels &) -@all)" and "%RW~* %W" as "~* %W~", which ACL LOAD
// refuses.)
func FuzzSetUser(f *testing.F) {
	for _, rules := range []string{
		"on >pass ~* &* +@all",
		"on nopass ~key:* %R~read:* %W~write:* -@dangerous +config|get",
		"off #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 resetkeys allchannels",
		"on >p (~x +get) (%R~y +@read -keys) clearselectors (+set ~z)",
		"on nocommands +client|id +select|0 -@all +@hash resetchannels &news.*",
		"reset on >a <a >b",
		`("" ~x)`,
	} {
		f.Add(rules)
	}
	f.Fuzz(func(t *testing.T, rules string) {
		ops, bad := MergeSelectors(strings.Fields(rules))
		if bad >= 0 {
			return // an unmatched parenthesis: SETUSER's syntax error
		}
		r := NewRegistry("")
		if r.SetUser("u", ops) != nil {
			return
		}
		u := r.Current().UserNamed("u")
		u.Describe()
		var w resp.Writer
		u.WriteGetUser(&w)
		if _, _, err := resp.ReadReply(w.B); err != nil {
			t.Fatalf("%q: ACL GETUSER wrote %q: %v", rules, w.B, err)
		}
	})
}

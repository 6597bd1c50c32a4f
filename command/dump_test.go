package command

import (
	"strings"
	"testing"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// TestRestorePropagation runs DUMP and RESTORE on a store and checks what
// the shard's mutation path sees: whether the store changed (Dirty) and
// the propagated form: a relative TTL as ABSTTL with the key's deadline,
// an ABSTTL or TTL-less RESTORE as it is, a RESTORE that only removed the
// key it replaced as DEL.
func TestRestorePropagation(t *testing.T) {
	const now = 1_700_000_000_000
	st := engine.NewStore(1)
	st.DB(0).SetString([]byte("src"), []byte("value"), 0, false)
	var payload []byte // the DUMP payload
	exec := func(args ...[]byte) (reply string, changed bool, prop string) {
		w := resp.Writer{Proto: 2}
		c := &Ctx{Store: st, DB: st.DB(0), W: &w, Now: now}
		s, errText := Resolve(args)
		if errText != "" {
			t.Fatalf("%q: %s", args, errText)
		}
		before := st.Dirty()
		s.Handler(c, args)
		changed = st.Dirty() != before
		if changed {
			fx := &Effects{}
			p := &Prop{Args: args, Reply: w.B, DB: c.DB, Now: now, FX: fx}
			if s.Propagate != nil {
				s.Propagate(p)
			} else {
				p.Verbatim()
			}
			for i := 0; i < fx.Len(); i++ {
				_, cmd := fx.At(i)
				v, _, _ := resp.ReadReply(cmd)
				var parts []string
				for _, e := range v.Elems {
					if payload != nil && string(e.Str) == string(payload) {
						parts = append(parts, "<payload>")
					} else {
						parts = append(parts, string(e.Str))
					}
				}
				prop += strings.Join(parts, " ") + ";"
			}
		}
		return string(w.B), changed, prop
	}
	b := func(s string) []byte { return []byte(s) }
	dump, changed, _ := exec(b("DUMP"), b("src"))
	if changed || !strings.HasPrefix(dump, "$") {
		t.Fatalf("DUMP: %q changed=%v", dump, changed)
	}
	v, _, _ := resp.ReadReply([]byte(dump))
	payload = v.Str
	for _, tc := range []struct {
		args        []string
		reply, prop string
		changed     bool
	}{
		{[]string{"RESTORE", "k1", "0", "P"}, "+OK\r\n", "RESTORE k1 0 <payload>;", true},
		{[]string{"RESTORE", "k1", "0", "P"}, "-BUSYKEY Target key name already exists.\r\n", "", false},
		{[]string{"restore", "k2", "5000", "P", "REPLACE"}, "+OK\r\n", "restore k2 1700000005000 <payload> REPLACE ABSTTL;", true},
		{[]string{"RESTORE", "k3", "1700000009000", "P", "ABSTTL"}, "+OK\r\n", "RESTORE k3 1700000009000 <payload> ABSTTL;", true},
		{[]string{"RESTORE", "k3", "1", "P", "ABSTTL", "REPLACE"}, "+OK\r\n", "DEL k3;", true},
		{[]string{"RESTORE", "k4", "1", "P", "ABSTTL"}, "+OK\r\n", "", false},
		{[]string{"RESTORE", "k5", "0", "P", "IDLETIME", "10", "FREQ", "1"}, "-ERR syntax error\r\n", "", false},
		{[]string{"RESTORE", "k5", "0", "garbage"}, "-ERR DUMP payload version or checksum are wrong\r\n", "", false},
	} {
		args := make([][]byte, len(tc.args))
		for i, a := range tc.args {
			args[i] = b(a)
			if a == "P" {
				args[i] = payload
			}
		}
		reply, changed, prop := exec(args...)
		if reply != tc.reply || changed != tc.changed || prop != tc.prop {
			t.Errorf("%v: %q changed=%v prop %q; want %q %v %q", tc.args, reply, changed, prop, tc.reply, tc.changed, tc.prop)
		}
	}
	if got, _, _ := st.DB(0).GetString([]byte("k2"), now); string(got) != "value" {
		t.Errorf("k2 = %q", got)
	}
	if exp, _ := st.DB(0).Expiry([]byte("k2"), now); exp != now+5000 {
		t.Errorf("k2 expires at %d", exp)
	}
}

package e2e

import (
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"testing"
)

// TestStandaloneAgainstRedis: what a client asks to learn what kind of
// server it talks to gets redis-server's replies, RESP2 and RESP3: MODULE
// (none loaded; LOAD, LOADEX and UNLOAD refused under
// enable-module-command no, Redis's default, and finding no module under
// yes), the cluster's connection commands outside a cluster, RESTORE-ASKING
// as RESTORE, and INFO's sections, in Redis's order, with its Cluster
// section.
func TestStandaloneAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	cmds := [][]string{
		{"MODULE", "LIST"}, {"MODULE", "HELP"}, {"MODULE", "LOAD", "/nonexistent/m.so"},
		{"MODULE", "LOADEX", "/nonexistent/m.so", "CONFIG", "a", "b", "ARGS", "c"}, {"MODULE", "UNLOAD", "m"},
		{"MODULE", "NOSUCH"}, {"MODULE"}, {"MODULE", "LIST", "extra"}, {"MODULE", "LOAD"},
		{"READONLY"}, {"READWRITE"}, {"ASKING"}, {"READONLY", "extra"},
		{"SET", "src", "value"}, {"RESTORE-ASKING", "dst", "0", "not a payload"},
		{"INFO", "cluster"}, {"INFO", "modules"},
	}
	for _, modules := range []string{"no", "yes"} {
		ref := startRedis(t, redisBin, "--enable-module-command", modules)
		s := start(t, "--shards", "2", "--enable-module-command", modules)
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("modules-%s/RESP%d", modules, proto), func(t *testing.T) {
				a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
				for _, c := range cmds {
					if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
						t.Errorf("%q: radish %q, redis %q", c, got, want)
					}
				}
				// A payload DUMP made restores under RESTORE-ASKING.
				payload := b.do(t, []string{"DUMP", "src"})[0]
				v := string(payload[bytesAfterCRLF(payload):])
				v = v[:len(v)-2]
				for _, c := range [][]string{{"RESTORE-ASKING", "dst", "0", v}, {"GET", "dst"}, {"RESTORE-ASKING", "dst", "0", v}} {
					if got, want := a.do(t, c)[0], b.do(t, c)[0]; string(got) != string(want) {
						t.Errorf("%.20q: radish %q, redis %q", c, got, want)
					}
				}
				a.do(t, []string{"DEL", "dst"})
				b.do(t, []string{"DEL", "dst"})
				for _, sections := range [][]string{{"INFO"}, {"INFO", "default"}, {"INFO", "all"}, {"INFO", "everything"},
					{"INFO", "errorstats", "cluster"}} {
					if got, want := headers(a.do(t, sections)[0]), headers(b.do(t, sections)[0]); !reflect.DeepEqual(got, want) {
						t.Errorf("%q: radish's sections %q, redis's %q", sections, got, want)
					}
				}
			})
		}
	}
}

// bytesAfterCRLF is where a bulk reply's bytes start (after "$n\r\n").
func bytesAfterCRLF(b []byte) int {
	for i := range b {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return len(b)
}

var sectionHeader = regexp.MustCompile(`(?m)^# (\w+)\r$`)

// headers are the section names of an INFO reply, in order.
func headers(reply []byte) []string {
	var names []string
	for _, m := range sectionHeader.FindAllSubmatch(reply, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

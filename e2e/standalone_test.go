package e2e

import (
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestStandaloneAgainstRedis: what a client asks to learn what kind of
// server it talks to gets redis-server's replies, RESP2 and RESP3: MODULE
// (none loaded; LOAD, LOADEX and UNLOAD refused under
// enable-module-command no, Redis's default, and finding no module under
// yes), ASKING outside a cluster (READONLY and READWRITE answer as Valkey
// 8: TestClientCapaRedirect), RESTORE-ASKING
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
		{"ASKING"}, {"READONLY", "extra"},
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

// TestClientCapaRedirect: Valkey 8's CLIENT CAPA redirect. On a replica,
// a client that said it gets -REDIRECT <primary> for a write and for a
// read until it says READONLY (a command on no key, PING, is served);
// inside MULTI such a command makes EXEC abort; an EXEC whose queue was
// queued while the server was a primary, and writes, is redirected once
// it is a replica, and its MULTI ends; READWRITE and RESET take READONLY
// back.
// A client that did not say it gets -READONLY as before, and on the
// primary the capability changes nothing. CLIENT LIST shows READONLY as
// Redis's flag r.
func TestClientCapaRedirect(t *testing.T) {
	primary := start(t, "--shards", "2")
	ph, pp := hostPort(primary.addr)
	replica := start(t, "--shards", "3", "--replicaof", ph+" "+pp)
	linkUp(t, replica.addr)
	redirect := "-REDIRECT " + ph + ":" + pp + "\r\n"
	p := dialDiff(t, primary.addr, 2)
	p.do(t, []string{"SET", "k", "v"})
	waitSame(t, primary.addr, replica.addr)
	if got := p.do(t, []string{"CLIENT", "CAPA", "redirect"}, []string{"SET", "k", "v"}, []string{"GET", "k"}); string(got[1]) != "+OK\r\n" || string(got[2]) != "$1\r\nv\r\n" {
		t.Errorf("on the primary with the capability: %q", got)
	}
	plain := dialDiff(t, replica.addr, 2)
	if got := plain.do(t, []string{"SET", "k", "w"}, []string{"GET", "k"}); string(got[0]) != "-READONLY You can't write against a read only replica.\r\n" || string(got[1]) != "$1\r\nv\r\n" {
		t.Errorf("without the capability: %q", got)
	}
	c := dialDiff(t, replica.addr, 3)
	steps := []struct {
		cmd  []string
		want string
	}{
		{[]string{"CLIENT", "CAPA", "redirect", "unknown-capa"}, "+OK\r\n"},
		{[]string{"SET", "k", "w"}, redirect},
		{[]string{"GET", "k"}, redirect},
		{[]string{"MGET", "k", "x", "y"}, redirect},
		{[]string{"PING"}, "+PONG\r\n"},
		{[]string{"MULTI"}, "+OK\r\n"},
		{[]string{"GET", "k"}, redirect},
		{[]string{"EXEC"}, "-EXECABORT Transaction discarded because of previous errors.\r\n"},
		{[]string{"READONLY"}, "+OK\r\n"},
		{[]string{"GET", "k"}, "$1\r\nv\r\n"},
		{[]string{"SET", "k", "w"}, redirect},
		{[]string{"MULTI"}, "+OK\r\n"},
		{[]string{"SET", "k", "w"}, redirect},
		{[]string{"EXEC"}, "-EXECABORT Transaction discarded because of previous errors.\r\n"},
		{[]string{"READWRITE"}, "+OK\r\n"},
		{[]string{"GET", "k"}, redirect},
		{[]string{"READONLY"}, "+OK\r\n"},
		{[]string{"RESET"}, "+RESET\r\n"},
		{[]string{"GET", "k"}, redirect},
		{[]string{"ASKING"}, "-ERR This instance has cluster support disabled\r\n"},
	}
	for i, st := range steps {
		if st.cmd[0] == "RESET" {
			c = dialDiff(t, replica.addr, 2) // RESET goes back to RESP2: a fresh RESP2 connection checks the rest
			c.do(t, []string{"CLIENT", "CAPA", "redirect"}, []string{"READONLY"})
		}
		if got := string(c.do(t, st.cmd)[0]); got != st.want {
			t.Fatalf("step %d %q: %q, want %q", i, st.cmd, got, st.want)
		}
	}
	c.do(t, []string{"READONLY"})
	if got := string(c.do(t, []string{"CLIENT", "INFO"})[0]); !strings.Contains(got, " flags=r ") {
		t.Errorf("CLIENT INFO after READONLY: %q", got)
	}
	// A MULTI queued on a primary that then becomes a replica.
	other := start(t, "--shards", "2")
	q := dialDiff(t, other.addr, 2)
	if got := q.do(t, []string{"CLIENT", "CAPA", "redirect"}, []string{"MULTI"}, []string{"SET", "k", "z"}); string(got[2]) != "+QUEUED\r\n" {
		t.Fatalf("queued on a primary: %q", got)
	}
	other.cli("REPLICAOF", ph, pp)
	linkUp(t, other.addr)
	if got := q.do(t, []string{"EXEC"}, []string{"EXEC"}); string(got[0]) != redirect || string(got[1]) != "-ERR EXEC without MULTI\r\n" {
		t.Errorf("EXEC once a replica: %q", got)
	}
}

package e2e

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClientBufsAgainstRedis compares CLIENT LIST's and CLIENT INFO's
// buffer fields with redis-server's for a connection in each state: the
// caller (argv-mem is its command's bytes), an idle one, one in MULTI
// (multi-mem of a known queue, as Redis counts it) and one blocked
// (argv-mem of its BLPOP). Every field is a number, fd a real descriptor
// of its own, rbp at most rbs; the sizes that depend on the buffers'
// allocators (qbuf-free, rbs) only in shape.
func TestClientBufsAgainstRedis(t *testing.T) {
	ref := needRedis(t)
	servers := map[string]string{"redis": ref}
	for _, io := range []string{"uring", "epoll"} {
		servers[io] = start(t, "--io", io, "--shards", "2").addr
	}
	for name, addr := range servers {
		t.Run(name, func(t *testing.T) {
			a := dialDiff(t, addr, 2)
			idle, m := dialDiff(t, addr, 2), dialDiff(t, addr, 2)
			id := func(d *diffConn) string {
				return strings.TrimSuffix(strings.TrimPrefix(string(d.do(t, []string{"CLIENT", "ID"})[0]), ":"), "\r\n")
			}
			aid, iid, mid := id(a), id(idle), id(m)
			m.do(t, []string{"MULTI"}, []string{"SET", "a", "bbbbbbbbbb"}, []string{"SET", "ab", "c"})
			b, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			if _, err := b.Write([]byte("BLPOP nolist 0\r\n")); err != nil {
				t.Fatal(err)
			}
			// lines reads CLIENT LIST into each client's fields, by id, once
			// the BLPOP is blocked.
			var bid string
			var clients map[string]map[string]string
			for deadline := time.Now().Add(10 * time.Second); ; {
				clients = map[string]map[string]string{}
				bid = ""
				for _, l := range strings.Split(strings.TrimSpace(string(bulk(t, a.do(t, []string{"CLIENT", "LIST"})[0]))), "\n") {
					f := map[string]string{}
					for _, kv := range strings.Fields(l) {
						k, v, _ := strings.Cut(kv, "=")
						f[k] = v
					}
					clients[f["id"]] = f
					if f["flags"] == "b" {
						bid = f["id"]
					}
				}
				if bid != "" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the BLPOP never showed as blocked")
				}
				time.Sleep(20 * time.Millisecond)
			}
			info := map[string]string{}
			for _, kv := range strings.Fields(string(bulk(t, a.do(t, []string{"CLIENT", "INFO"})[0]))) {
				k, v, _ := strings.Cut(kv, "=")
				info[k] = v
			}
			fds := map[int64]string{}
			check := func(who string, f map[string]string, want map[string]int64) {
				t.Helper()
				n := map[string]int64{}
				for _, k := range []string{"fd", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem", "tot-mem"} {
					v, err := strconv.ParseInt(f[k], 10, 64)
					if err != nil || v < 0 {
						t.Errorf("%s: %s=%q", who, k, f[k])
					}
					n[k] = v
				}
				for k, v := range want {
					if n[k] != v {
						t.Errorf("%s: %s=%d, want %d", who, k, n[k], v)
					}
				}
				if n["fd"] <= 2 {
					t.Errorf("%s: fd=%d", who, n["fd"])
				}
				if n["rbp"] > n["rbs"] {
					t.Errorf("%s: rbp=%d > rbs=%d", who, n["rbp"], n["rbs"])
				}
				if who != "CLIENT INFO" {
					if o, dup := fds[n["fd"]]; dup {
						t.Errorf("%s and %s share fd=%d", who, o, n["fd"])
					}
					fds[n["fd"]] = who
				}
			}
			check("CLIENT INFO", info, map[string]int64{"argv-mem": 10, "multi-mem": 0, "obl": 0, "oll": 0})
			check("the caller", clients[aid], map[string]int64{"argv-mem": 10, "multi-mem": 0, "oll": 0})
			check("idle", clients[iid], map[string]int64{"argv-mem": 0, "multi-mem": 0, "qbuf": 0, "obl": 0, "oll": 0})
			// SET a bbbbbbbbbb and SET ab c: 14 and 6 bytes, and 8 per argument.
			check("in MULTI", clients[mid], map[string]int64{"argv-mem": 0, "multi-mem": 68, "qbuf": 0, "obl": 0, "oll": 0})
			check("blocked", clients[bid], map[string]int64{"argv-mem": 12, "multi-mem": 0, "qbuf": 0, "obl": 0, "oll": 0})
			if info["fd"] != clients[aid]["fd"] {
				t.Errorf("CLIENT INFO fd=%s, CLIENT LIST fd=%s", info["fd"], clients[aid]["fd"])
			}
		})
	}
}

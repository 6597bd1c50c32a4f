package e2e

import (
	"math/rand/v2"
	"os/exec"
	"strconv"
	"testing"
)

// TestGeoAgainstRedis adds 300 random places (a skiplist-encoded set) to a
// key and 40 to a key on another shard, then sends random searches of
// every kind and option, radius and box, sorted, unsorted and COUNT ANY,
// storing across shards, to radish (three shards) and redis-server, and
// requires the same replies.
func TestGeoAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	r := rand.New(rand.NewPCG(11, 12))
	f := func(lo, hi float64) string { return strconv.FormatFloat(lo+r.Float64()*(hi-lo), 'f', 5, 64) }
	var cmds [][]string
	for k, n := range map[string]int{"g1": 300, "{t}g2": 40} {
		for i := 0; i < n; i += 10 {
			args := []string{"GEOADD", k}
			for j := i; j < i+10; j++ {
				args = append(args, f(-20, 40), f(30, 60), "m"+strconv.Itoa(j))
			}
			cmds = append(cmds, args)
		}
	}
	for range 300 {
		key := []string{"g1", "{t}g2"}[r.IntN(2)]
		unit := []string{"m", "km", "mi", "ft"}[r.IntN(4)]
		// Radii that keep replies short (the harness reads them a byte at
		// a time), the wide one always with COUNT.
		dist := []string{"1", "50", "150", "2000"}[r.IntN(4)]
		wide := dist == "2000"
		if unit == "m" || unit == "ft" {
			dist += "000"
		}
		var args []string
		switch r.IntN(4) {
		case 0:
			args = []string{"GEOSEARCH", key, "FROMLONLAT", f(-20, 40), f(30, 60), "BYRADIUS", dist, unit}
		case 1:
			args = []string{"GEOSEARCH", key, "FROMMEMBER", "m" + strconv.Itoa(r.IntN(40)), "BYBOX", dist, dist, unit}
		case 2:
			args = []string{"GEORADIUS", key, f(-20, 40), f(30, 60), dist, unit}
		default:
			args = []string{"GEORADIUSBYMEMBER_RO", key, "m" + strconv.Itoa(r.IntN(40)), dist, unit}
		}
		for _, o := range []string{"WITHDIST", "WITHCOORD", "WITHHASH", "ASC", "DESC"} {
			if r.IntN(3) == 0 {
				args = append(args, o)
			}
		}
		if r.IntN(3) == 0 || wide {
			args = append(args, "COUNT", strconv.Itoa(1+r.IntN(5)))
			if r.IntN(2) == 0 {
				args = append(args, "ANY")
			}
		}
		cmds = append(cmds, args)
		if r.IntN(5) == 0 {
			cmds = append(cmds,
				[]string{"GEOSEARCHSTORE", "{t}dst", key, "FROMLONLAT", "10", "45", "BYRADIUS", "100", "km"},
				[]string{"ZRANGE", "{t}dst", "0", "-1", "WITHSCORES"},
				[]string{"GEORADIUS", key, "10", "45", "100", "mi", "STORE", "dst"},
				[]string{"ZRANGE", "dst", "0", "-1", "WITHSCORES"})
		}
	}
	sameReplies(t, s.addr, ref, cmds)
}

package e2e

import (
	"os/exec"
	"testing"
)

// TestHelpAgainstRedis: the HELP subcommands of the containers Radish
// implements answer redis-server 7.0's text, RESP2 and RESP3, and are
// followed by the next reply (a HELP's array counts every line).
func TestHelpAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "2")
	var cmds [][]string
	for _, c := range []string{"CONFIG", "CLIENT", "OBJECT", "MEMORY", "PUBSUB", "SCRIPT", "FUNCTION", "COMMAND"} {
		cmds = append(cmds, []string{c, "HELP"}, []string{"PING"}, []string{c, "help"})
	}
	sameReplies(t, s.addr, ref, cmds)
}

package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFlowsReconnect: a radish replica whose link a proxy cuts again and
// again (for 0 to 300 ms) reconnects every time, each time opening its
// flows anew before PSYNC continues the stream, under a repl-timeout of
// 3 s: opening a flow (REPLCONF radish-flow) never fails.
func TestFlowsReconnect(t *testing.T) {
	primary := start(t, "--shards", "2", "--repl-ping-replica-period", "1")
	for i := range 1000 {
		primary.cli("SET", "k"+strconv.Itoa(i), "v")
	}
	px := newProxy(t, primary.addr)
	h, p := hostPort(px.addr())
	replica := start(t, "--shards", "2", "--repl-timeout", "3", "--replicaof", h+" "+p)
	waitSame(t, primary.addr, replica.addr)
	const rounds = 12
	for i := range rounds {
		primary.cli("SET", "round", strconv.Itoa(i))
		px.cut()
		time.Sleep(time.Duration(i%4) * 100 * time.Millisecond)
		px.restore()
		waitFor(t, "the link back", func() bool {
			return rcli(t, replica.addr, "GET", "round") == strconv.Itoa(i) &&
				infoOf(rcli(t, replica.addr, "INFO", "replication"), "master_link_status") == "up"
		})
	}
	logs, _ := os.ReadFile(replica.log)
	if strings.Contains(string(logs), "replication flow") {
		t.Errorf("a flow failed:\n%s", logs)
	}
}

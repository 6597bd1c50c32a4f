package e2e

import (
	"strings"
	"testing"
)

// TestReplicaAOFAlways: a radish replica (on flows) whose AOF fsyncs
// every write (appendfsync always) holds each applied command's reply
// until its bytes are on disk, and counts it applied only then: under a
// write load of every type its data ends as the primary's, WAIT counts
// it, and WAITAOF counts its fsync (its ACK's FACK).
func TestReplicaAOFAlways(t *testing.T) {
	primary := start(t, "--shards", "2")
	ph, pp := hostPort(primary.addr)
	replica := start(t, "--shards", "2", "--appendonly", "yes", "--appendfsync", "always", "--replicaof", ph+" "+pp)
	linkUp(t, replica.addr)
	l := newLoader(t, primary.addr, 3, 11)
	for range 40 {
		l.round(t)
	}
	if got := primary.cli("WAIT", "1", "10000"); strings.TrimSpace(got) != "1" {
		t.Fatalf("WAIT 1: %q", got)
	}
	if got := strings.Fields(primary.cli("WAITAOF", "0", "1", "10000")); len(got) != 2 || got[1] != "1" {
		t.Fatalf("WAITAOF 0 1: %q, want the replica's fsync counted", got)
	}
	waitSame(t, primary.addr, replica.addr)
}

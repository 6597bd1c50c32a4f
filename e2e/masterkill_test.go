package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestKillMasterClient: CLIENT KILL TYPE master on a radish replica (on
// flows) while a write load of every type runs cuts its lanes into the
// command path; the replica syncs again (partially when nothing was in
// flight, else fully: commands on other lanes may have run past one that
// was lost) and ends with the primary's data. A kill with nothing in
// flight is followed by a partial resync.
func TestKillMasterClient(t *testing.T) {
	primary := start(t, "--shards", "2")
	ph, pp := hostPort(primary.addr)
	replica := start(t, "--shards", "2", "--replicaof", ph+" "+pp)
	linkUp(t, replica.addr)
	kills := make(chan error)
	stop := make(chan struct{})
	go func() {
		c := replica.client(2)
		for i := 0; ; i++ {
			select {
			case <-stop:
				close(kills)
				return
			case <-time.After(time.Duration(400+i%4*150) * time.Millisecond):
			}
			if _, err := c.ClientKillByFilter(context.Background(), "TYPE", "master").Result(); err != nil {
				kills <- err
			}
		}
	}()
	l := newLoader(t, primary.addr, 3, 7)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		l.round(t)
	}
	close(stop)
	for err := range kills {
		t.Fatal(err)
	}
	waitSame(t, primary.addr, replica.addr)
	linkUp(t, replica.addr)
	stats := primary.cli("INFO", "stats")
	full := infoOf(stats, "sync_full")
	t.Logf("the primary served %s full and %s partial syncs", full, infoOf(stats, "sync_partial_ok"))
	replica.cli("CLIENT", "KILL", "TYPE", "master")
	primary.cli("SET", "after", strconv.Itoa(1))
	waitSame(t, primary.addr, replica.addr)
	linkUp(t, replica.addr)
	if got := infoOf(primary.cli("INFO", "stats"), "sync_full"); got != full {
		t.Errorf("a kill with nothing in flight made a full sync (sync_full %s, was %s)", got, full)
	}
}

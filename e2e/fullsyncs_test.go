package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentFullSyncs: full syncs that overlap (the first shard's
// payload still written in slices when the next cut comes, as when
// several replicas connect at once) each carry every key: a payload
// written at once while another's slices run lost its shard's keys
// (TestRadishPrimary's replica with a digest of its own).
func TestConcurrentFullSyncs(t *testing.T) {
	const keys = 200000
	primary := start(t, "--shards", "2")
	primary.cli("DEBUG", "POPULATE", strconv.Itoa(keys))
	dir := t.TempDir()
	const n = 4
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := filepath.Join(dir, strconv.Itoa(i))
			os.Mkdir(d, 0o755)
			out, err := exec.Command("redis-cli", "-p", strconv.Itoa(primary.port), "--rdb", filepath.Join(d, "dump.rdb")).CombinedOutput()
			if err != nil {
				t.Errorf("redis-cli --rdb: %v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i := range n {
		s := startDir(t, filepath.Join(dir, strconv.Itoa(i)), "--shards", "3")
		if got := strings.TrimSpace(s.cli("DBSIZE")); got != strconv.Itoa(keys) {
			t.Errorf("payload %d of %d concurrent full syncs holds %s keys, want %d", i, n, got, keys)
		}
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// msetMany writes n string keys "<prefix>:<i>" with MSETs of 100 (across the
// shards), so that a base takes many loop turns to write.
func msetMany(t *testing.T, d *diffConn, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i += 100 {
		cmd := []string{"MSET"}
		for j := i; j < min(i+100, n); j++ {
			cmd = append(cmd, prefix+":"+strconv.Itoa(j), strings.Repeat("b", j%70))
		}
		if r := d.do(t, cmd)[0]; string(r) != "+OK\r\n" {
			t.Fatalf("MSET: %q", r)
		}
	}
}

// digest is DEBUG DIGEST.
func digest(t *testing.T, d *diffConn) string {
	t.Helper()
	return string(d.do(t, []string{"DEBUG", "DIGEST"})[0])
}

// aofFiles lists the AOF directory's files.
func aofFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "appendonlydir"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// rewriteDone waits for the rewrite in progress to end and checks it
// worked.
func rewriteDone(t *testing.T, d *diffConn) {
	t.Helper()
	waitFor(t, "the rewrite", func() bool { return persistField(t, d, "aof_rewrite_in_progress") == "0" })
	if st := persistField(t, d, "aof_last_bgrewrite_status"); st != "ok" {
		t.Fatalf("aof_last_bgrewrite_status:%s", st)
	}
}

// TestAOFRewrite: BGREWRITEAOF on 1 and 3 shards, under always and
// everysec, while a client changes, expires, deletes and adds keys (MSETs
// across shards, a FLUSHDB): once it is over, each shard's directory holds
// only its new base and incremental file, and a restart (kill -9 under
// always) gives back every key of every type and encoding, every
// database, with contents, encodings and expiries, and the same DEBUG
// DIGEST; a second rewrite with no writes in between leaves bases alone
// to load from.
func TestAOFRewrite(t *testing.T) {
	for _, tc := range []struct {
		shards int
		fsync  string
	}{{1, "always"}, {3, "always"}, {3, "everysec"}} {
		t.Run(fmt.Sprintf("shards=%d/%s", tc.shards, tc.fsync), func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--appendonly", "yes", "--appendfsync", tc.fsync, "--shards", strconv.Itoa(tc.shards)}
			s := startDir(t, dir, args...)
			d := dialDiff(t, s.addr, 2)
			keys := snapshotData(t, d)
			msetMany(t, d, "bulk", 20000)
			if r := d.do(t, []string{"BGREWRITEAOF"})[0]; string(r) != "+Background append only file rewriting started\r\n" {
				t.Fatalf("BGREWRITEAOF: %q", r)
			}
			for db, ks := range keys {
				d.do(t, []string{"SELECT", strconv.Itoa(db)})
				for i, k := range ks {
					switch i % 4 {
					case 0:
						d.do(t, []string{"DEL", k})
					case 1:
						d.do(t, []string{"SET", k, "overwritten"})
					case 2:
						d.do(t, []string{"PEXPIRE", k, "1"})
					}
				}
				d.do(t, []string{"MSET", "new1", "a", "new2", "b", "new3", "c"})
			}
			d.do(t, []string{"SELECT", "15"})
			d.do(t, []string{"FLUSHDB"})
			d.do(t, []string{"SET", "after-flush", "x"})
			d.do(t, []string{"SELECT", "0"})
			msetMany(t, d, "bulk", 500) // overwrites keys the base may not have reached
			rewriteDone(t, d)
			if n := persistField(t, d, "aof_rewrites"); n != "1" {
				t.Errorf("aof_rewrites:%s", n)
			}
			keys[0] = append(keys[0], "new1", "new2", "new3", "bulk:0", "bulk:499", "bulk:19999")
			keys[15] = append(keys[15], "after-flush")
			want, sum := model(t, d, keys), digest(t, d)
			var files []string
			for i := range tc.shards {
				files = append(files, fmt.Sprintf("appendonly.aof.%d.2.base.rdb", i), fmt.Sprintf("appendonly.aof.%d.2.incr.aof", i),
					fmt.Sprintf("appendonly.aof.%d.manifest", i))
			}
			slices.Sort(files)
			if got := aofFiles(t, dir); !reflect.DeepEqual(got, files) {
				t.Errorf("files after the rewrite %q, want %q", got, files)
			}
			if tc.fsync == "always" {
				s.kill()
			} else {
				s.stop()
			}
			s = startDir(t, dir, args...)
			d = dialDiff(t, s.addr, 2)
			compareModels(t, "after the rewrite and a restart", model(t, d, keys), want)
			if got := digest(t, d); got != sum {
				t.Errorf("DEBUG DIGEST after the restart %q, want %q", got, sum)
			}
			if r := d.do(t, []string{"BGREWRITEAOF"})[0]; string(r) != "+Background append only file rewriting started\r\n" {
				t.Fatalf("BGREWRITEAOF: %q", r)
			}
			rewriteDone(t, d)
			s.stop()
			s = startDir(t, dir, args...)
			d = dialDiff(t, s.addr, 2)
			compareModels(t, "after a second rewrite", model(t, d, keys), want)
			if got := digest(t, d); got != sum {
				t.Errorf("DEBUG DIGEST after a second rewrite %q, want %q", got, sum)
			}
		})
	}
}

// TestAOFAutoRewrite: with auto-aof-rewrite-percentage 0 nothing rewrites
// by itself; once CONFIG SET turns it on, with a minimum size the AOF
// already exceeds, the cron rewrites it (aof_base_size becomes its size),
// and a restart loads what was written.
func TestAOFAutoRewrite(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--appendonly", "yes", "--shards", "2", "--auto-aof-rewrite-percentage", "0"}
	s := startDir(t, dir, args...)
	d := dialDiff(t, s.addr, 2)
	if r := d.do(t, []string{"CONFIG", "GET", "auto-aof-rewrite-min-size"})[0]; string(r) != "*2\r\n$25\r\nauto-aof-rewrite-min-size\r\n$8\r\n67108864\r\n" {
		t.Errorf("CONFIG GET auto-aof-rewrite-min-size: %q", r)
	}
	msetMany(t, d, "k", 5000)
	// Under everysec the AOF's writer writes at most every 10 ms (group
	// commit), and aof_current_size counts what it wrote: the last MSETs'
	// bytes may come a little after their replies.
	waitFor(t, "aof_current_size past 100000 after 5000 keys", func() bool {
		size, _ := strconv.Atoi(persistField(t, d, "aof_current_size"))
		return size >= 100_000
	})
	if n := persistField(t, d, "aof_rewrites"); n != "0" {
		t.Fatalf("aof_rewrites:%s with auto-aof-rewrite-percentage 0", n)
	}
	for _, kv := range [][2]string{{"auto-aof-rewrite-min-size", "50kb"}, {"auto-aof-rewrite-percentage", "100"}} {
		if r := d.do(t, []string{"CONFIG", "SET", kv[0], kv[1]})[0]; string(r) != "+OK\r\n" {
			t.Fatalf("CONFIG SET %s: %q", kv[0], r)
		}
	}
	waitFor(t, "an automatic rewrite", func() bool { return persistField(t, d, "aof_rewrites") == "1" })
	rewriteDone(t, d)
	base, _ := strconv.Atoi(persistField(t, d, "aof_base_size"))
	if cur, _ := strconv.Atoi(persistField(t, d, "aof_current_size")); base == 0 || base != cur {
		t.Errorf("after the rewrite aof_base_size:%d aof_current_size:%d", base, cur)
	}
	sum := digest(t, d)
	s.stop()
	s = startDir(t, dir, args...)
	d = dialDiff(t, s.addr, 2)
	if got := digest(t, d); got != sum {
		t.Errorf("DEBUG DIGEST after the restart %q, want %q", got, sum)
	}
	if n := dbsize(t, d, 0); n != ":5000\r\n" {
		t.Errorf("DBSIZE %q", n)
	}
}

// TestAOFConfigSet: CONFIG SET appendonly yes on a server holding every
// type and encoding answers at once and writes a base of the data first
// (a rewrite in progress in INFO), keeping the writes made meanwhile; a
// restart from the AOF after kill -9 holds it all. CONFIG SET appendonly no
// stops logging: a write after it is not in the AOF. Turned on again, the
// new files replace the stale ones.
func TestAOFConfigSet(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--shards", "3", "--appendfsync", "always"}
	s := startDir(t, dir, args...)
	d := dialDiff(t, s.addr, 2)
	keys := snapshotData(t, d)
	msetMany(t, d, "bulk", 20000)
	if r := d.do(t, []string{"CONFIG", "SET", "appendonly", "yes"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("CONFIG SET appendonly yes: %q", r)
	}
	if on := persistField(t, d, "aof_enabled"); on != "1" {
		t.Errorf("aof_enabled:%s", on)
	}
	d.do(t, []string{"MSET", "during1", "a", "during2", "b", "during3", "c"})
	d.do(t, []string{"DEL", keys[0][0]})
	rewriteDone(t, d)
	d.do(t, []string{"SET", "after", "x"})
	keys[0] = append(keys[0], "during1", "during2", "during3", "after", "bulk:0", "bulk:19999")
	want, sum := model(t, d, keys), digest(t, d)
	s.kill()
	args = append(args, "--appendonly", "yes")
	s = startDir(t, dir, args...)
	d = dialDiff(t, s.addr, 2)
	compareModels(t, "after CONFIG SET appendonly yes and kill -9", model(t, d, keys), want)
	if got := digest(t, d); got != sum {
		t.Errorf("DEBUG DIGEST after the restart %q, want %q", got, sum)
	}

	if r := d.do(t, []string{"CONFIG", "SET", "appendonly", "no"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("CONFIG SET appendonly no: %q", r)
	}
	d.do(t, []string{"SET", "not-logged", "x"})
	if on := persistField(t, d, "aof_enabled"); on != "0" {
		t.Errorf("aof_enabled:%s after CONFIG SET appendonly no", on)
	}
	s.stop()
	s = startDir(t, dir, args...)
	d = dialDiff(t, s.addr, 2)
	if r := d.do(t, []string{"EXISTS", "not-logged"})[0]; string(r) != ":0\r\n" {
		t.Errorf("a write after CONFIG SET appendonly no was logged: %q", r)
	}
	if got := digest(t, d); got != sum {
		t.Errorf("DEBUG DIGEST after appendonly no and a restart %q, want %q", got, sum)
	}

	// Off and on again: the new AOF replaces the one in use.
	d.do(t, []string{"CONFIG", "SET", "appendonly", "no"})
	d.do(t, []string{"SET", "between", "x"})
	waitFor(t, "CONFIG SET appendonly yes", func() bool {
		// Refused while the AOF turned off is still being closed.
		return string(d.do(t, []string{"CONFIG", "SET", "appendonly", "yes"})[0]) == "+OK\r\n"
	})
	rewriteDone(t, d)
	var files []string
	for i := range 3 {
		files = append(files, fmt.Sprintf("appendonly.aof.%d.2.base.rdb", i), fmt.Sprintf("appendonly.aof.%d.2.incr.aof", i),
			fmt.Sprintf("appendonly.aof.%d.manifest", i))
	}
	slices.Sort(files)
	if got := aofFiles(t, dir); !reflect.DeepEqual(got, files) {
		t.Errorf("files after turning the AOF on again %q, want %q", got, files)
	}
	s.kill()
	s = startDir(t, dir, args...)
	d = dialDiff(t, s.addr, 2)
	if r := d.do(t, []string{"EXISTS", "between"})[0]; string(r) != ":1\r\n" {
		t.Errorf("a write before turning the AOF on again is not in its base: %q", r)
	}
	compareModels(t, "after turning the AOF on again", model(t, d, keys), want)
}

// TestAOFRewriteScheduling: one background writer per shard at a time, as
// Redis's one child: BGREWRITEAOF during a BGSAVE is scheduled and runs
// when it ends; BGSAVE during a rewrite is refused with Redis's error, and
// with SCHEDULE runs once the rewrite ends; a second BGREWRITEAOF is
// refused while one runs. Which reply comes depends on whether the first
// is still running (100,000 keys make that likely): each is checked to be
// one of Redis's, and what a scheduled one promised to be done.
func TestAOFRewriteScheduling(t *testing.T) {
	s := startDir(t, t.TempDir(), "--appendonly", "yes", "--shards", "3")
	d := dialDiff(t, s.addr, 2)
	if r := d.do(t, []string{"DEBUG", "POPULATE", "100000", "k", "20"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("DEBUG POPULATE: %q", r)
	}
	const (
		started   = "+Background append only file rewriting started\r\n"
		scheduled = "+Background append only file rewriting scheduled\r\n"
		running   = "-ERR Background append only file rewriting already in progress\r\n"
		saving    = "+Background saving started\r\n"
		saveLater = "+Background saving scheduled\r\n"
		noSave    = "-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n"
	)
	r := d.do(t, []string{"BGSAVE"}, []string{"BGREWRITEAOF"})
	if string(r[0]) != saving || string(r[1]) != scheduled && string(r[1]) != started {
		t.Fatalf("BGSAVE, BGREWRITEAOF: %q", r)
	}
	t.Logf("BGSAVE, BGREWRITEAOF: %q", r)
	waitFor(t, "the scheduled rewrite", func() bool {
		return persistField(t, d, "aof_rewrites") == "1" && persistField(t, d, "aof_rewrite_scheduled") == "0"
	})
	rewriteDone(t, d)
	waitFor(t, "the save", func() bool { return persistField(t, d, "rdb_bgsave_in_progress") == "0" })
	saves := persistField(t, d, "rdb_saves")

	r = d.do(t, []string{"BGREWRITEAOF"}, []string{"BGSAVE"}, []string{"BGSAVE", "SCHEDULE"}, []string{"BGREWRITEAOF"})
	if string(r[0]) != started {
		t.Fatalf("BGREWRITEAOF: %q", r[0])
	}
	later := false
	switch {
	case string(r[1]) == noSave && string(r[2]) == saveLater:
		later = true
	case string(r[1]) == noSave && string(r[2]) == saving, string(r[1]) == saving && string(r[2]) == "-ERR Background save already in progress\r\n":
	default:
		t.Fatalf("BGSAVE, BGSAVE SCHEDULE during a rewrite: %q", r[1:3])
	}
	t.Logf("during a rewrite: %q", r[1:])
	if x := string(r[3]); x != running && x != started && x != scheduled {
		t.Errorf("a second BGREWRITEAOF: %q", x)
	}
	if later {
		n, _ := strconv.Atoi(saves)
		waitFor(t, "the scheduled save", func() bool { return persistField(t, d, "rdb_saves") == strconv.Itoa(n+1) })
	}
	rewriteDone(t, d)
}

// TestAOFRewriteWithoutAOF: BGREWRITEAOF with appendonly no writes every
// shard's base and a manifest naming it alone, as Redis 7 does; a start
// with appendonly yes loads them and logs on in a new incremental file.
func TestAOFRewriteWithoutAOF(t *testing.T) {
	dir := t.TempDir()
	s := startDir(t, dir, "--shards", "2")
	d := dialDiff(t, s.addr, 2)
	keys := snapshotData(t, d)
	want, sum := model(t, d, keys), digest(t, d)
	if r := d.do(t, []string{"BGREWRITEAOF"})[0]; string(r) != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	rewriteDone(t, d)
	want2 := []string{"appendonly.aof.0.1.base.rdb", "appendonly.aof.0.manifest", "appendonly.aof.1.1.base.rdb", "appendonly.aof.1.manifest"}
	if got := aofFiles(t, dir); !reflect.DeepEqual(got, want2) {
		t.Errorf("files %q, want %q", got, want2)
	}
	s.kill()
	s = startDir(t, dir, "--shards", "2", "--appendonly", "yes")
	d = dialDiff(t, s.addr, 2)
	compareModels(t, "from the bases", model(t, d, keys), want)
	if got := digest(t, d); got != sum {
		t.Errorf("DEBUG DIGEST %q, want %q", got, sum)
	}
	d.do(t, []string{"SET", "later", "x"})
	s.stop()
	s = startDir(t, dir, "--shards", "2", "--appendonly", "yes")
	d = dialDiff(t, s.addr, 2)
	if r := d.do(t, []string{"GET", "later"})[0]; string(r) != "$1\r\nx\r\n" {
		t.Errorf("a write logged after the bases: %q", r)
	}
}

package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// snapshotData is what the snapshot tests store: dumpKeys' every type and
// encoding in database 0, and in databases 3 and 15 a few keys, with
// TTLs. It returns the keys per database.
func snapshotData(t *testing.T, d *diffConn) map[int][]string {
	t.Helper()
	cmds, keys, _ := dumpKeys()
	do := func(c ...string) {
		if r := d.do(t, c)[0]; r[0] == '-' {
			t.Fatalf("%.60q: %q", c, r)
		}
	}
	for _, c := range cmds {
		do(c...)
	}
	do("PEXPIRE", "h:big", "3600000")
	do("PEXPIRE", "s:3", "7200000")
	all := map[int][]string{0: keys}
	for _, db := range []int{3, 15} {
		do("SELECT", strconv.Itoa(db))
		for i := range 20 {
			k := fmt.Sprintf("db%d:%d", db, i)
			do("SET", k, strings.Repeat("v", i*5))
			all[db] = append(all[db], k)
		}
		do("RPUSH", "shared-name", "in", strconv.Itoa(db))
		do("PEXPIRE", "shared-name", "5000000")
		do("HSET", "gone", "f", "v")
		do("PEXPIRE", "gone", "1") // expired by the time anything loads
		all[db] = append(all[db], "shared-name")
	}
	time.Sleep(5 * time.Millisecond)
	for _, db := range []int{3, 15} {
		// Reclaim the expired key, so that DBSIZE counts what a load keeps.
		do("SELECT", strconv.Itoa(db))
		do("EXISTS", "gone")
	}
	do("SELECT", "0")
	return all
}

// model reads what every key holds: contents, encoding and absolute
// expiry, per database.
func model(t *testing.T, d *diffConn, keys map[int][]string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for db, ks := range keys {
		d.do(t, []string{"SELECT", strconv.Itoa(db)})
		for _, k := range ks {
			enc := d.do(t, []string{"OBJECT", "ENCODING", k})[0]
			exp := d.do(t, []string{"PEXPIRETIME", k})[0]
			m[fmt.Sprintf("%d/%s", db, k)] = fmt.Sprintf("%s %q %q", content(t, d, k), enc, exp)
		}
		d.do(t, []string{"SELECT", "0"})
	}
	return m
}

func compareModels(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	n := 0
	for k, v := range want {
		if got[k] != v {
			if n++; n <= 5 {
				t.Errorf("%s: %s = %.200q, want %.200q", what, k, got[k], v)
			}
		}
	}
}

// dbsize is DBSIZE of database db.
func dbsize(t *testing.T, d *diffConn, db int) string {
	d.do(t, []string{"SELECT", strconv.Itoa(db)})
	r := d.do(t, []string{"DBSIZE"})[0]
	d.do(t, []string{"SELECT", "0"})
	return string(r)
}

func (s *server) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
}

// TestSnapshotRestart: SAVE on 3 shards, kill -9, and the data loads into
// 1 shard; saved there, into 5; saved there, into 2: every key with its
// contents, encoding and expiry, every database, expired keys dropped.
func TestSnapshotRestart(t *testing.T) {
	dir := t.TempDir()
	s := start(t, "--shards", "3", "--dir", dir)
	d := dialDiff(t, s.addr, 2)
	keys := snapshotData(t, d)
	want := model(t, d, keys)
	sizes := []string{dbsize(t, d, 0), dbsize(t, d, 3), dbsize(t, d, 15)}
	for _, shards := range []string{"1", "5", "2"} {
		if r := d.do(t, []string{"SAVE"})[0]; string(r) != "+OK\r\n" {
			t.Fatalf("SAVE: %q", r)
		}
		if info := string(d.big(t, []string{"INFO", "persistence"})); !strings.Contains(info, "rdb_changes_since_last_save:0\r\n") ||
			!strings.Contains(info, "rdb_saves:1\r\n") {
			t.Errorf("INFO after SAVE:\n%s", info)
		}
		s.kill()
		s = start(t, "--shards", shards, "--dir", dir)
		d = dialDiff(t, s.addr, 2)
		compareModels(t, shards+" shards", model(t, d, keys), want)
		if got := []string{dbsize(t, d, 0), dbsize(t, d, 3), dbsize(t, d, 15)}; fmt.Sprint(got) != fmt.Sprint(sizes) {
			t.Errorf("%s shards: DBSIZE %q, want %q", shards, got, sizes)
		}
		info := string(d.big(t, []string{"INFO", "persistence"}))
		if !strings.Contains(info, fmt.Sprintf("rdb_last_load_keys_loaded:%d\r\n", len(want))) {
			t.Errorf("%s shards: INFO after the load (%d keys):\n%s", shards, len(want), info)
		}
	}
	// One generation's files and the manifest, nothing else of the snapshot.
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "dump.rdb") {
			names = append(names, e.Name())
		}
	}
	if fmt.Sprint(names) != "[dump.rdb dump.rdb.3.0.rdb dump.rdb.3.1.rdb dump.rdb.3.2.rdb dump.rdb.3.3.rdb dump.rdb.3.4.rdb]" {
		t.Errorf("dir holds %v", names)
	}
}

// TestSnapshotCorrupt: a snapshot file with a flipped byte, or cut short,
// keeps the server from starting, with a message naming the file and the
// offset.
func TestSnapshotCorrupt(t *testing.T) {
	dir := t.TempDir()
	s := start(t, "--shards", "2", "--dir", dir)
	d := dialDiff(t, s.addr, 2)
	snapshotData(t, d)
	if r := d.do(t, []string{"SAVE"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	s.stop()
	file := filepath.Join(dir, "dump.rdb.1.1.rdb")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(orig)
	flipped[len(flipped)/2] ^= 0x55
	manifest, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	for _, tc := range []struct {
		what string
		b    []byte
	}{{"flipped", flipped}, {"truncated", orig[:len(orig)-20]}} {
		what, b := tc.what, tc.b
		os.WriteFile(file, b, 0o644)
		// The manifest's size would say it first: make it agree.
		m := bytes.Replace(manifest, []byte(fmt.Sprintf(" %d\n", len(orig))), []byte(fmt.Sprintf(" %d\n", len(b))), 1)
		os.WriteFile(filepath.Join(dir, "dump.rdb"), m, 0o644)
		out, err := exec.Command(serverBin, "--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1",
			"--dir", dir, "--shards", "3").CombinedOutput()
		if err == nil {
			t.Fatalf("%s: the server started", what)
		}
		if !strings.Contains(string(out), file) || !strings.Contains(string(out), "offset") {
			t.Errorf("%s: the message names no file and offset: %s", what, out)
		}
	}
}

// startRedisIn runs redis-server on dir/dbfilename, without save points.
func startRedisIn(t *testing.T, dir, dbfilename string) (string, *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--dbfilename", dbfilename, "--logfile", filepath.Join(dir, "redis.log"),
		"--enable-debug-command", "yes")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, cmd
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server did not start:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSnapshotRedisInterop: a dump.rdb that redis-server wrote (every
// type and encoding) loads into radish with the same contents, encodings
// and expiries; the file of a 1-shard radish snapshot loads into
// redis-server the same way.
func TestSnapshotRedisInterop(t *testing.T) {
	rdir := t.TempDir()
	raddr, rcmd := startRedisIn(t, rdir, "dump.rdb")
	r := dialDiff(t, raddr, 2)
	keys := snapshotData(t, r)
	want := model(t, r, keys)
	digest := string(r.do(t, []string{"DEBUG", "DIGEST"})[0])
	if got := r.do(t, []string{"SAVE"})[0]; string(got) != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", got)
	}
	rcmd.Process.Kill()
	rcmd.Wait()

	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(rdir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "dump.rdb"), b, 0o644)
	s := start(t, "--shards", "3", "--dir", dir)
	d := dialDiff(t, s.addr, 2)
	compareModels(t, "redis's dump.rdb in radish", model(t, d, keys), want)
	if got := string(d.do(t, []string{"DEBUG", "DIGEST"})[0]); got != digest {
		t.Errorf("DEBUG DIGEST after loading redis's dump.rdb: %q, redis %q", got, digest)
	}
	s.stop()

	s = start(t, "--shards", "1", "--dir", dir)
	d = dialDiff(t, s.addr, 2)
	if r := d.do(t, []string{"SAVE"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	s.stop()
	raddr, _ = startRedisIn(t, dir, "dump.rdb.1.0.rdb")
	r = dialDiff(t, raddr, 2)
	compareModels(t, "radish's shard file in redis", model(t, r, keys), want)
	if got := string(r.do(t, []string{"DEBUG", "DIGEST"})[0]); got != digest {
		t.Errorf("redis's DEBUG DIGEST after loading radish's file: %q, before %q", got, digest)
	}
}

// TestDebugReload: DEBUG RELOAD saves, flushes and loads back every type,
// encoding, expiry and database (the digest and every key as before);
// NOSAVE loads the files as they are, NOFLUSH keeps what they lack.
func TestDebugReload(t *testing.T) {
	s := start(t, "--shards", "3")
	d := dialDiff(t, s.addr, 2)
	keys := snapshotData(t, d)
	want := model(t, d, keys)
	digest := string(d.do(t, []string{"DEBUG", "DIGEST"})[0])
	for _, c := range [][]string{{"DEBUG", "RELOAD"}, {"DEBUG", "RELOAD", "MERGE"}} {
		if r := string(d.do(t, c)[0]); r != "+OK\r\n" {
			t.Fatalf("%q: %q", c, r)
		}
		compareModels(t, fmt.Sprint(c), model(t, d, keys), want)
		if got := string(d.do(t, []string{"DEBUG", "DIGEST"})[0]); got != digest {
			t.Errorf("%q: DEBUG DIGEST %q, before %q", c, got, digest)
		}
	}
	if r := string(d.do(t, []string{"DEBUG", "RELOAD", "BOGUS"})[0]); r != "-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.\r\n" {
		t.Errorf("DEBUG RELOAD BOGUS: %q", r)
	}
	d.do(t, []string{"SET", "after-the-save", "1"})
	d.do(t, []string{"SET", "s:0", "changed"})
	if r := string(d.do(t, []string{"DEBUG", "RELOAD", "NOSAVE", "NOFLUSH"})[0]); r != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD NOSAVE NOFLUSH: %q", r)
	}
	if r := string(d.do(t, []string{"MGET", "after-the-save", "s:0"})[0]); r != "*2\r\n$1\r\n1\r\n$5\r\n12345\r\n" {
		t.Errorf("after NOFLUSH: %q", r)
	}
	if r := string(d.do(t, []string{"DEBUG", "RELOAD", "NOSAVE"})[0]); r != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD NOSAVE: %q", r)
	}
	if r := string(d.do(t, []string{"EXISTS", "after-the-save"})[0]); r != ":0\r\n" {
		t.Errorf("after NOSAVE: %q", r)
	}
	compareModels(t, "DEBUG RELOAD NOSAVE", model(t, d, keys), want)
}

// persistField is one field of INFO persistence.
func persistField(t *testing.T, d *diffConn, name string) string {
	t.Helper()
	info := d.big(t, []string{"INFO", "persistence"})
	for _, l := range strings.Split(string(info), "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO persistence has no %s: %q", name, info)
	return ""
}

// TestBgSaveRestart: BGSAVE on 3 shards while a client overwrites,
// deletes and adds keys; once it is over, kill -9, and a restart on 2
// shards holds the data as it was when BGSAVE answered.
func TestBgSaveRestart(t *testing.T) {
	dir := t.TempDir()
	s := start(t, "--shards", "3", "--dir", dir)
	d := dialDiff(t, s.addr, 2)
	keys := snapshotData(t, d)
	if r := d.do(t, []string{"DEBUG", "POPULATE", "30000", "bulk", "50"})[0]; string(r) != "+OK\r\n" {
		t.Fatalf("DEBUG POPULATE: %q", r)
	}
	want := model(t, d, keys)
	if got := persistField(t, d, "rdb_last_bgsave_time_sec"); got != "-1" {
		t.Errorf("rdb_last_bgsave_time_sec before any BGSAVE: %s", got)
	}
	if r := d.do(t, []string{"BGSAVE", "BOGUS"})[0]; string(r) != "-ERR syntax error\r\n" {
		t.Errorf("BGSAVE BOGUS: %q", r)
	}
	if r := d.do(t, []string{"BGSAVE"})[0]; string(r) != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
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
		d.do(t, []string{"SET", "new-after-bgsave", "x"})
		d.do(t, []string{"FLUSHDB"})
	}
	d.do(t, []string{"SELECT", "0"})
	for deadline := time.Now().Add(30 * time.Second); persistField(t, d, "rdb_bgsave_in_progress") != "0"; {
		if time.Now().After(deadline) {
			t.Fatal("BGSAVE did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := persistField(t, d, "rdb_last_bgsave_status"); got != "ok" {
		t.Fatalf("rdb_last_bgsave_status: %s", got)
	}
	s.kill()
	s = start(t, "--shards", "2", "--dir", dir)
	d = dialDiff(t, s.addr, 2)
	compareModels(t, "after BGSAVE", model(t, d, keys), want)
	if r := string(d.do(t, []string{"EXISTS", "bulk:29999", "new-after-bgsave"})[0]); r != ":1\r\n" {
		t.Errorf("EXISTS bulk:29999 new-after-bgsave: %s", r)
	}
}

// waitFor polls cond every 20 ms for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}

// TestSavePoints: with save "1 1", a write is saved by the cron without
// any command; a restart after kill -9 has it.
func TestSavePoints(t *testing.T) {
	dir := t.TempDir()
	s := start(t, "--shards", "2", "--dir", dir, "--save", "1 1")
	d := dialDiff(t, s.addr, 2)
	if r := string(d.do(t, []string{"CONFIG", "GET", "save"})[0]); r != "*2\r\n$4\r\nsave\r\n$3\r\n1 1\r\n" {
		t.Fatalf("CONFIG GET save: %q", r)
	}
	before := string(d.do(t, []string{"LASTSAVE"})[0])
	d.do(t, []string{"SET", "saved-by-the-cron", "v"})
	waitFor(t, "a save point's BGSAVE", func() bool { return persistField(t, d, "rdb_saves") == "1" })
	if after := string(d.do(t, []string{"LASTSAVE"})[0]); after == before {
		t.Errorf("LASTSAVE did not move: %s", after)
	}
	if got := persistField(t, d, "rdb_changes_since_last_save"); got != "0" {
		t.Errorf("rdb_changes_since_last_save after the save: %s", got)
	}
	s.kill()
	s = start(t, "--shards", "3", "--dir", dir)
	if r := string(dialDiff(t, s.addr, 2).do(t, []string{"GET", "saved-by-the-cron"})[0]); r != "$1\r\nv\r\n" {
		t.Errorf("after restart: %q", r)
	}
}

// TestMisconf: when a background save fails (the dir is gone) and save
// points are set, writes (and PING) get Redis's -MISCONF and reads work,
// unless stop-writes-on-bgsave-error is no; SHUTDOWN, whose save fails,
// refuses, and so does SIGTERM; once a save succeeds writes work again.
func TestMisconf(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	os.Mkdir(dir, 0o755)
	s := start(t, "--shards", "2", "--dir", dir, "--save", "3600 1")
	d := dialDiff(t, s.addr, 2)
	d.do(t, []string{"SET", "k", "v"})
	os.RemoveAll(dir)
	if r := string(d.do(t, []string{"BGSAVE"})[0]); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitFor(t, "the BGSAVE to fail", func() bool { return persistField(t, d, "rdb_last_bgsave_status") == "err" })
	misconf := "-" + "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. " +
		"Commands that may modify the data set are disabled, because this instance is configured to report errors during " +
		"writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details " +
		"about the RDB error.\r\n"
	waitFor(t, "writes refused", func() bool { return string(d.do(t, []string{"SET", "k", "w"})[0]) == misconf })
	for _, c := range [][]string{{"PING"}, {"DEL", "k"}, {"LPUSH", "l", "x"}, {"BLPOP", "l", "1"}} {
		if r := string(d.do(t, c)[0]); r != misconf {
			t.Errorf("%q: %q", c, r)
		}
	}
	if r := string(d.do(t, []string{"GET", "k"})[0]); r != "$1\r\nv\r\n" {
		t.Errorf("GET while writes are refused: %q", r)
	}
	if r := string(d.do(t, []string{"SAVE"})[0]); r != "-ERR\r\n" {
		t.Errorf("SAVE into a missing dir: %q", r)
	}
	if r := string(d.do(t, []string{"SHUTDOWN"})[0]); r != "-ERR Errors trying to SHUTDOWN. Check logs.\r\n" {
		t.Errorf("SHUTDOWN whose save fails: %q", r)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, "the SIGTERM's save to fail", func() bool {
		log, _ := os.ReadFile(s.log)
		// The SHUTDOWN's failure logged it once already.
		return bytes.Count(log, []byte("Error trying to save the DB, can't exit.")) == 2
	})
	if r := string(d.do(t, []string{"GET", "k"})[0]); r != "$1\r\nv\r\n" {
		t.Errorf("GET after a SIGTERM whose save failed: %q", r)
	}
	d.do(t, []string{"CONFIG", "SET", "stop-writes-on-bgsave-error", "no"})
	waitFor(t, "writes with stop-writes-on-bgsave-error no", func() bool { return string(d.do(t, []string{"SET", "k", "w"})[0]) == "+OK\r\n" })
	d.do(t, []string{"CONFIG", "SET", "stop-writes-on-bgsave-error", "yes"})
	os.Mkdir(dir, 0o755)
	if r := string(d.do(t, []string{"BGSAVE"})[0]); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitFor(t, "the BGSAVE to succeed", func() bool { return persistField(t, d, "rdb_last_bgsave_status") == "ok" })
	waitFor(t, "writes again", func() bool { return string(d.do(t, []string{"SET", "k", "x"})[0]) == "+OK\r\n" })
	d.c.Write([]byte("SHUTDOWN NOSAVE\r\n"))
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("SHUTDOWN NOSAVE: %v", err)
	}
}

// TestShutdownSave: SHUTDOWN SAVE saves without save points, SHUTDOWN
// with save points saves, SHUTDOWN NOSAVE does not, and neither does
// SHUTDOWN without save points; SIGTERM saves when save points are set.
func TestShutdownSave(t *testing.T) {
	dir := t.TempDir()
	get := func(s *server, k string) string {
		return string(dialDiff(t, s.addr, 2).do(t, []string{"GET", k})[0])
	}
	shutdown := func(s *server, args ...string) {
		d := dialDiff(t, s.addr, 2)
		d.c.Write([]byte("*" + strconv.Itoa(1+len(args)) + "\r\n$8\r\nSHUTDOWN\r\n"))
		for _, a := range args {
			fmt.Fprintf(d.c, "$%d\r\n%s\r\n", len(a), a)
		}
		if err := s.cmd.Wait(); err != nil {
			t.Fatalf("SHUTDOWN %v: %v", args, err)
		}
	}
	for _, c := range [][]string{{"SHUTDOWN", "SAVE", "NOSAVE"}, {"SHUTDOWN", "ABORT", "NOW"}, {"SHUTDOWN", "BOGUS"}} {
		s := start(t, "--dir", dir)
		if r := string(dialDiff(t, s.addr, 2).do(t, c)[0]); r != "-ERR syntax error\r\n" {
			t.Errorf("%q: %q", c, r)
		}
		s.kill()
	}
	s := start(t, "--shards", "2", "--dir", dir)
	dialDiff(t, s.addr, 2).do(t, []string{"SET", "a", "1"})
	shutdown(s) // no save points: no save
	s = start(t, "--shards", "2", "--dir", dir)
	if r := get(s, "a"); r != "$-1\r\n" {
		t.Errorf("after SHUTDOWN without save points: %q", r)
	}
	dialDiff(t, s.addr, 2).do(t, []string{"SET", "a", "2"})
	shutdown(s, "SAVE")
	s = start(t, "--shards", "3", "--dir", dir, "--save", "3600 1")
	if r := get(s, "a"); r != "$1\r\n2\r\n" {
		t.Errorf("after SHUTDOWN SAVE: %q", r)
	}
	dialDiff(t, s.addr, 2).do(t, []string{"SET", "a", "3"})
	shutdown(s, "NOSAVE")
	s = start(t, "--shards", "1", "--dir", dir, "--save", "3600 1")
	if r := get(s, "a"); r != "$1\r\n2\r\n" {
		t.Errorf("after SHUTDOWN NOSAVE: %q", r)
	}
	dialDiff(t, s.addr, 2).do(t, []string{"SET", "a", "4"})
	shutdown(s)
	s = start(t, "--shards", "2", "--dir", dir, "--save", "3600 1")
	if r := get(s, "a"); r != "$1\r\n4\r\n" {
		t.Errorf("after SHUTDOWN with save points: %q", r)
	}
	dialDiff(t, s.addr, 2).do(t, []string{"SET", "a", "5"})
	s.stop() // SIGTERM
	s = start(t, "--dir", dir)
	if r := get(s, "a"); r != "$1\r\n5\r\n" {
		t.Errorf("after SIGTERM with save points: %q", r)
	}
}

// TestShutdownOnSigterm: shutdown-on-sigterm's flags as Redis's: save
// saves with no save points, nosave does not save with them; an invalid
// value is refused with Redis's text, and CONFIG GET prints the flags in
// Redis's order.
func TestShutdownOnSigterm(t *testing.T) {
	dir := t.TempDir()
	get := func(s *server, k string) string {
		return string(dialDiff(t, s.addr, 2).do(t, []string{"GET", k})[0])
	}
	s := start(t, "--shards", "2", "--dir", dir, "--shutdown-on-sigterm", "save")
	d := dialDiff(t, s.addr, 2)
	for _, c := range []struct{ set, want string }{
		{"bogus", "-ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigterm') - argument(s) must be one of the following: default, save, nosave, now, force\r\n"},
		{"now SAVE", "+OK\r\n"},
		{"default save", "+OK\r\n"},
	} {
		if r := string(d.do(t, []string{"CONFIG", "SET", "shutdown-on-sigterm", c.set})[0]); r != c.want {
			t.Errorf("CONFIG SET shutdown-on-sigterm %q: %q", c.set, r)
		}
	}
	if r := string(d.do(t, []string{"CONFIG", "GET", "shutdown-on-sigterm"})[0]); r !=
		"*2\r\n$19\r\nshutdown-on-sigterm\r\n$4\r\nsave\r\n" {
		t.Errorf("CONFIG GET: %q", r)
	}
	if r := string(d.do(t, []string{"CONFIG", "GET", "shutdown-on-sigint"})[0]); r !=
		"*2\r\n$18\r\nshutdown-on-sigint\r\n$7\r\ndefault\r\n" {
		t.Errorf("CONFIG GET: %q", r)
	}
	d.do(t, []string{"SET", "a", "1"})
	s.stop() // SIGTERM: saves although there are no save points
	s = start(t, "--dir", dir, "--save", "3600 1", "--shutdown-on-sigterm", "nosave")
	if r := get(s, "a"); r != "$1\r\n1\r\n" {
		t.Fatalf("after SIGTERM with shutdown-on-sigterm save: %q", r)
	}
	dialDiff(t, s.addr, 2).do(t, []string{"SET", "a", "2"})
	s.stop() // SIGTERM: does not save although save points are set
	s = start(t, "--dir", dir)
	if r := get(s, "a"); r != "$1\r\n1\r\n" {
		t.Errorf("after SIGTERM with shutdown-on-sigterm nosave: %q", r)
	}
}

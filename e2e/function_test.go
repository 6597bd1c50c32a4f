package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Libraries for FUNCTION DUMP and RESTORE: long enough that their codes
// are stored LZF-compressed.
const (
	// One function per library: Redis lists a library's functions in hash
	// order.
	libA = "#!lua name=liba\nredis.register_function{function_name='fa', callback=function(keys, args) return redis.call('get', keys[1]) end, " +
		"flags={'no-writes'}, description='reads'}"
	libB = "#!lua name=libb\nredis.register_function('fb', function(keys, args) return args[1] end)"
	// libC takes fa from liba.
	libC = "#!lua name=libc\nredis.register_function('fa', function() return 'c' end)"
	libS = "#!lua name=s\nredis.register_function('s', function() return 1 end)" // short: not compressed
)

// payload is FUNCTION RESTORE's payload of the given RDB records.
func payload(records ...[]byte) string {
	body := append(bytes.Join(records, nil), 10, 0)
	return string(appendCRC(body))
}

// record is one library's RDB record, uncompressed.
func record(code string) []byte {
	return append([]byte{245, byte(len(code))}, code...)
}

// TestFunctionDumpAgainstRedis moves FUNCTION DUMP payloads between
// radish-server (4 shards) and redis-server both ways, and compares
// FUNCTION RESTORE's replies, policies and errors, RESP2 and RESP3.
func TestFunctionDumpAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "4")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			same := func(args ...string) []byte {
				t.Helper()
				got, want := a.do(t, args)[0], b.do(t, args)[0]
				if !bytes.Equal(got, want) {
					t.Errorf("%.60q:\nradish replied %q\nredis  replied %q", args, got, want)
				}
				return got
			}
			// One library each: the dumps are byte for byte the same.
			for _, code := range []string{libA, libS} {
				same("FUNCTION", "FLUSH")
				same("FUNCTION", "LOAD", code)
				same("FUNCTION", "DUMP")
			}
			same("FUNCTION", "FLUSH")
			empty := same("FUNCTION", "DUMP")
			if want := "$10\r\n" + payload() + "\r\n"; string(empty) != want {
				t.Errorf("empty dump %q, want %q", empty, want)
			}
			same("FUNCTION", "LOAD", libA)
			same("FUNCTION", "LOAD", libB)
			// Each server restores the other's dump.
			fromRadish := string(bulk(t, a.do(t, []string{"FUNCTION", "DUMP"})[0]))
			fromRedis := string(bulk(t, b.do(t, []string{"FUNCTION", "DUMP"})[0]))
			// Redis lists libraries, and meets them in a restore, in hash
			// order: each list names one, and each refusal has one cause.
			lists := func() {
				for _, lib := range []string{"liba", "libb", "libc"} {
					same("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", lib)
				}
			}
			for _, p := range []string{fromRedis, fromRadish} {
				same("FUNCTION", "DELETE", "libb")
				same("FUNCTION", "RESTORE", p)
				same("FUNCTION", "RESTORE", p, "APPEND")
				same("FUNCTION", "RESTORE", p, "REPLACE")
				lists()
				same("FUNCTION", "FLUSH")
				same("FUNCTION", "RESTORE", p)
				lists()
				same("SET", "k", "v")
				same("FCALL", "fa", "1", "k")
				same("FCALL_RO", "fa", "1", "k")
				same("FCALL", "fb", "0", "x")
				same("FUNCTION", "DELETE", "libb")
				same("FUNCTION", "RESTORE", p, "replace")
				same("FUNCTION", "RESTORE", p, "flush")
				same("FUNCTION", "STATS")
			}
			same("FUNCTION", "FLUSH")
			same("FUNCTION", "LOAD", libC)
			same("FUNCTION", "RESTORE", fromRedis)
			same("FUNCTION", "RESTORE", fromRedis, "REPLACE")
			lists()
			same("FUNCTION", "RESTORE", fromRedis, "FLUSH")
			lists()
			same("FCALL", "fa", "1", "k")
			for _, p := range []string{
				payload(record(libS), record(libS)),
				payload(record(libS), record("#!lua name=t\nredis.register_function('s', function() return 1 end)")),
				payload(record("#!lua name=bad\nreturn x")),
				payload(record("#!lua name=bad\nreturn 1")),
				payload(record("redis.register_function('s', function() return 1 end)")),
				payload([]byte{0, 1, 'x'}),
				payload([]byte{245, 0x40}),
				payload(),
				fromRedis[:len(fromRedis)-1],
				fromRedis[1:],
				"",
				"short",
			} {
				same("FUNCTION", "RESTORE", p)
			}
			same("FUNCTION", "RESTORE", fromRedis, "nope")
			same("FUNCTION", "RESTORE", fromRedis, "FLUSH", "x")
			same("FUNCTION", "RESTORE")
			same("FUNCTION", "DUMP", "x")
			lists()
			same("FUNCTION", "FLUSH")
		})
	}
}

// TestFunctionsPersist: the FUNCTION libraries, changed from connections
// of every shard, survive a SAVE and a restart on another shard count,
// DEBUG RELOAD, and an AOF's replay (base and incremental files); a redis-server dump.rdb's libraries
// load into radish, and radish's shard 0 file's into redis-server.
func TestFunctionsPersist(t *testing.T) {
	list := func(d *diffConn) string {
		return string(d.do(t, []string{"FUNCTION", "LIST", "WITHCODE"})[0])
	}
	ok := func(d *diffConn, args ...string) {
		t.Helper()
		if r := d.do(t, args)[0]; r[0] == '-' {
			t.Fatalf("%.40q: %q", args, r)
		}
	}
	libB2 := "#!lua name=libb\nredis.register_function('fb2', function(keys, args) return 'b2' end)"
	dial := func(s *server) []*diffConn {
		var cs []*diffConn
		for range 4 {
			cs = append(cs, dialDiff(t, s.addr, 2))
		}
		return cs
	}

	t.Run("Snapshot", func(t *testing.T) {
		dir := t.TempDir()
		s := start(t, "--shards", "4", "--dir", dir)
		cs := dial(s)
		ok(cs[0], "FUNCTION", "LOAD", libA)
		ok(cs[1], "FUNCTION", "LOAD", libB)
		ok(cs[2], "FUNCTION", "LOAD", libS)
		ok(cs[3], "FUNCTION", "DELETE", "s")
		ok(cs[2], "FUNCTION", "LOAD", "REPLACE", libB2)
		want := list(cs[0])
		ok(cs[1], "SAVE")
		s.kill()
		s = start(t, "--shards", "2", "--dir", dir)
		cs = dial(s)
		if got := list(cs[1]); got != want {
			t.Fatalf("after the restart:\n%q\nwant\n%q", got, want)
		}
		ok(cs[0], "SET", "k", "v")
		if r := cs[1].do(t, []string{"FCALL", "fa", "1", "k"})[0]; string(r) != "$1\r\nv\r\n" {
			t.Errorf("FCALL after the restart: %q", r)
		}
		ok(cs[1], "FUNCTION", "DELETE", "libb")
		want = list(cs[0])
		ok(cs[1], "DEBUG", "RELOAD")
		if got := list(cs[0]); got != want {
			t.Errorf("after DEBUG RELOAD:\n%q\nwant\n%q", got, want)
		}
		ok(cs[1], "FUNCTION", "LOAD", libB)
		ok(cs[1], "DEBUG", "RELOAD", "NOSAVE")
		if got := list(cs[0]); got != want {
			t.Errorf("after DEBUG RELOAD NOSAVE:\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("AOF", func(t *testing.T) {
		dir := t.TempDir()
		// always: kill -9 follows the last change at once, and under
		// everysec the log is written up to 10 ms after a reply.
		args := []string{"--shards", "4", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
		s := start(t, args...)
		cs := dial(s)
		ok(cs[0], "FUNCTION", "LOAD", libA)
		ok(cs[1], "FUNCTION", "LOAD", libB)
		p := string(bulk(t, cs[2].do(t, []string{"FUNCTION", "DUMP"})[0]))
		ok(cs[2], "FUNCTION", "DELETE", "liba")
		ok(cs[3], "FUNCTION", "LOAD", "REPLACE", libB2)
		ok(cs[0], "FUNCTION", "FLUSH")
		ok(cs[1], "FUNCTION", "LOAD", libS)
		// The new base holds the libraries; the changes after it are in
		// the new incremental file.
		ok(cs[3], "BGREWRITEAOF")
		rewriteDone(t, cs[3])
		ok(cs[2], "FUNCTION", "RESTORE", p)
		ok(cs[3], "FUNCTION", "DELETE", "libb")
		ok(cs[0], "FUNCTION", "LOAD", libB2)
		want := list(cs[0])
		s.kill()
		s = start(t, args...)
		if got := list(dialDiff(t, s.addr, 2)); got != want {
			t.Errorf("after the AOF's replay:\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("Redis", func(t *testing.T) {
		rdir := t.TempDir()
		raddr, rcmd := startRedisIn(t, rdir, "dump.rdb")
		r := dialDiff(t, raddr, 2)
		ok(r, "FUNCTION", "LOAD", libA)
		ok(r, "FUNCTION", "LOAD", libB)
		libs := func(d *diffConn) string {
			var b []byte
			for _, lib := range []string{"liba", "libb"} {
				b = append(b, d.do(t, []string{"FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", lib})[0]...)
			}
			return string(b)
		}
		want := libs(r)
		ok(r, "SAVE")
		rcmd.Process.Kill()
		rcmd.Wait()
		b, err := os.ReadFile(filepath.Join(rdir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "dump.rdb"), b, 0o644)
		s := start(t, "--shards", "3", "--dir", dir)
		d := dialDiff(t, s.addr, 2)
		if got := libs(d); got != want {
			t.Errorf("redis's dump.rdb in radish:\n%q\nwant\n%q", got, want)
		}
		ok(d, "SAVE")
		s.stop()
		files, _ := filepath.Glob(filepath.Join(dir, "dump.rdb.*.0.rdb"))
		if len(files) != 1 {
			t.Fatalf("shard 0's files: %q", files)
		}
		raddr, _ = startRedisIn(t, dir, filepath.Base(files[0]))
		if got := libs(dialDiff(t, raddr, 2)); got != want {
			t.Errorf("radish's shard 0 file in redis:\n%q\nwant\n%q", got, want)
		}
	})
}

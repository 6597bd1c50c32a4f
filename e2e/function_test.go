package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
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

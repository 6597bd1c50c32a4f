package command

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/net/resp"
)

func TestStringScript(t *testing.T) { runScript(t, "string.txt") }

// TestScanShardCursor walks one shard's keyspace with small counts and a
// cursor whose high bits carry a shard index, as the router sends it.
func TestScanShardCursor(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	want := map[string]bool{}
	for i := range 500 {
		k := fmt.Sprintf("key:%d", i)
		want[k] = true
		env.ctx.DB.SetString([]byte(k), []byte("v"), 0, false)
	}
	seen := map[string]int{}
	cursor := uint64(3) << ScanCursorBits
	for calls := 0; ; calls++ {
		if calls > 1000 {
			t.Fatal("scan does not end")
		}
		v, _, err := resp.ReadReply(env.run(words("SCAN", strconv.FormatUint(cursor, 10), "COUNT", "7")))
		if err != nil {
			t.Fatal(err)
		}
		next, _ := strconv.ParseUint(string(v.Elems[0].Str), 10, 64)
		if next > ScanCursorMask {
			t.Fatalf("cursor %d uses the shard bits", next)
		}
		for _, k := range v.Elems[1].Elems {
			seen[string(k.Str)]++
		}
		if next == 0 {
			break
		}
		cursor = 3<<ScanCursorBits | next
	}
	for k := range want {
		if seen[k] != 1 {
			t.Errorf("%s seen %d times", k, seen[k])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("saw %d keys, want %d", len(seen), len(want))
	}
}

// TestDebugPopulateOwns checks that DEBUG POPULATE creates only the keys
// the shard owns.
func TestDebugPopulateOwns(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	env.ctx.Owns = func(k []byte) bool { return k[len(k)-1]%2 == 0 } // even last digit
	if got := string(env.run(words("DEBUG", "POPULATE", "10", "k"))); got != "+OK\r\n" {
		t.Fatalf("reply %q", got)
	}
	if n := env.ctx.DB.Len(); n != 5 {
		t.Errorf("%d keys, want 5", n)
	}
	for i := range 10 {
		if got, want := env.ctx.DB.Exists([]byte(fmt.Sprintf("k:%d", i)), env.ctx.Now), i%2 == 0; got != want {
			t.Errorf("k:%d exists %v", i, got)
		}
	}
}

// TestRandomAgainstRedis compares INCRBYFLOAT, GETRANGE and LCS on random
// inputs with a real redis-server (-redis).
func TestRandomAgainstRedis(t *testing.T) {
	if *realRedis == "" {
		t.Skip("needs -redis")
	}
	c, err := net.Dial("unix", *realRedis)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	real := &realConn{c: c, r: bufio.NewReader(c)}
	real.do(t, words("HELLO", "2"))
	real.do(t, words("FLUSHALL"))
	env := newScriptEnv()
	defer env.store.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(args [][]byte) {
		t.Helper()
		got := append([]byte(nil), env.run(args)...)
		want := real.do(t, args)
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", args, got, want)
		}
	}
	floats := func() string {
		switch rng.IntN(6) {
		case 0:
			return strconv.Itoa(rng.IntN(2000) - 1000)
		case 1:
			return strconv.FormatFloat(rng.NormFloat64()*1000, 'f', rng.IntN(6), 64)
		case 2:
			return strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64)
		case 3:
			return fmt.Sprintf("%de%d", rng.IntN(100)-50, rng.IntN(60)-30)
		case 4:
			return "0." + strconv.Itoa(rng.IntN(100000))
		default:
			return strconv.FormatFloat(rng.ExpFloat64()*1e17, 'f', 2, 64)
		}
	}
	for i := range 3000 {
		key := fmt.Sprintf("f%d", i%37)
		if rng.IntN(10) == 0 {
			check(words("SET", key, floats()))
		}
		check(words("INCRBYFLOAT", key, floats()))
	}
	alphabet := "abcab"
	str := func(n int) string {
		b := make([]byte, rng.IntN(n))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 2000 {
		s := str(12)
		check(words("SET", "s", s))
		i, j := strconv.Itoa(rng.IntN(30)-15), strconv.Itoa(rng.IntN(30)-15)
		check(words("GETRANGE", "s", i, j))
		check(words("SET", "s2", str(12)))
		args := words("LCS", "s", "s2")
		if rng.IntN(2) == 0 {
			args = append(args, words("IDX")...)
		}
		if rng.IntN(3) == 0 {
			args = append(args, words("MINMATCHLEN", strconv.Itoa(rng.IntN(4)))...)
		}
		if rng.IntN(2) == 0 {
			args = append(args, words("WITHMATCHLEN")...)
		}
		check(args)
		check(words("SETRANGE", "s", strconv.Itoa(rng.IntN(15)), str(4)))
		check(words("GET", "s"))
	}
}

// TestHotPathAllocs: the common string commands allocate nothing once the
// reply buffer has grown.
func TestHotPathAllocs(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	for _, cmd := range [][][]byte{
		words("SET", "k", "value"),
		words("SET", "k", "value", "EX", "100"),
		words("GET", "k"),
		words("GET", "nokey"),
		words("INCR", "n"),
		words("MGET", "k", "n", "nokey"),
		words("EXISTS", "k", "n"),
		words("TTL", "k"),
	} {
		env.run(cmd)
		if n := testing.AllocsPerRun(100, func() { env.run(cmd) }); n != 0 {
			t.Errorf("%q: %v allocations", cmd, n)
		}
	}
}

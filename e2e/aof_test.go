package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// dataset is every key of databases 0..3 with its type, value and whether
// it has a TTL, as text.
func dataset(t *testing.T, s *server) map[string]string {
	t.Helper()
	out := map[string]string{}
	for db := range 4 {
		c := redis.NewClient(&redis.Options{Addr: s.addr, DB: db, DisableIdentity: true, MaxRetries: -1})
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, "*", 1000).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				var v any
				switch typ := c.Type(ctx, k).Val(); typ {
				case "string":
					v = c.Get(ctx, k).Val()
				case "list":
					v = c.LRange(ctx, k, 0, -1).Val()
				case "hash":
					v = c.HGetAll(ctx, k).Val()
				case "set":
					m := c.SMembers(ctx, k).Val()
					slices.Sort(m)
					v = m
				case "zset":
					v = c.ZRangeWithScores(ctx, k, 0, -1).Val()
				default:
					v = typ
				}
				ttl := c.PTTL(ctx, k).Val() > 0
				out[fmt.Sprintf("%d/%s", db, k)] = fmt.Sprintf("%v ttl=%v", v, ttl)
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
		c.Close()
	}
	return out
}

// populate writes one of everything, in several databases, with commands
// whose logged form differs from what ran (relative TTLs, INCRBYFLOAT,
// SPOP, cross-shard MSET and RENAME, expiry).
func populate(t *testing.T, s *server) {
	t.Helper()
	c := s.client(2)
	for i := range 50 {
		k := "k" + strconv.Itoa(i)
		c.Set(ctx, k, i, 0)
		c.RPush(ctx, "l"+k, i, "x", i*2)
		c.HSet(ctx, "h"+k, "f", i, "g", "v")
		c.SAdd(ctx, "s"+k, i, "m", "n", "o")
		c.ZAdd(ctx, "z"+k, redis.Z{Score: float64(i) + 0.5, Member: "a"}, redis.Z{Score: -1, Member: "b"})
	}
	c.MSet(ctx, "m1", "a", "m2", "b", "m3", "c", "m4", "d")
	c.Set(ctx, "ttl", "v", time.Hour)
	c.Expire(ctx, "k1", time.Hour)
	c.Set(ctx, "short", "v", 50*time.Millisecond)
	c.IncrByFloat(ctx, "f", 1.5)
	c.IncrByFloat(ctx, "f", 0.25)
	c.SPop(ctx, "sk2")
	c.Rename(ctx, "k3", "renamed")
	c.Del(ctx, "k4", "lk4")
	c.LPop(ctx, "lk5")
	c.ZIncrBy(ctx, "zk6", 3, "b")
	c.HDel(ctx, "hk7", "g")
	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "t1", 1, 0)
		p.Incr(ctx, "t2")
		p.LPush(ctx, "t3", "a", "b")
		p.Del(ctx, "k8")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.Do(ctx, "SELECT", 2)
	d2 := redis.NewClient(&redis.Options{Addr: s.addr, DB: 2, DisableIdentity: true})
	defer d2.Close()
	d2.Set(ctx, "in2", "two", 0)
	d2.MSet(ctx, "x1", 1, "x2", 2, "x3", 3)
	d2.Move(ctx, "x1", 3)
	d3 := redis.NewClient(&redis.Options{Addr: s.addr, DB: 1, DisableIdentity: true})
	defer d3.Close()
	d3.Set(ctx, "gone", 1, 0)
	d3.FlushDB(ctx)
	d3.Set(ctx, "after-flush", 1, 0)
	time.Sleep(100 * time.Millisecond) // "short" expires
}

// TestAOFRestart: what a server held is what it holds after a restart
// from its AOF, clean or after kill -9, for several shard counts and
// fsync policies; a different shard count is refused.
func TestAOFRestart(t *testing.T) {
	for _, tc := range []struct {
		shards int
		fsync  string
		io     string
		kill   bool
	}{
		{1, "always", "uring", false}, {3, "everysec", "uring", false}, {4, "no", "epoll", false},
		{3, "timestamps", "uring", false},
		{3, "always", "epoll", true}, {2, "everysec", "uring", true},
	} {
		t.Run(fmt.Sprintf("shards=%d/%s/%s/kill=%v", tc.shards, tc.fsync, tc.io, tc.kill), func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--appendonly", "yes", "--appendfsync", tc.fsync, "--shards", strconv.Itoa(tc.shards), "--io", tc.io}
			if tc.fsync == "timestamps" {
				args[3] = "everysec"
				args = append(args, "--aof-timestamp-enabled", "yes")
			}
			s := startDir(t, dir, args...)
			populate(t, s)
			want := dataset(t, s)
			if len(want) < 250 || want["0/short"] != "" || want["0/f"] != "1.75 ttl=false" {
				t.Fatalf("populate: %d keys, short %q, f %q", len(want), want["0/short"], want["0/f"])
			}
			// The counts of commands logged, writes and fsyncs (every shard's),
			// from one INFO once two in a row agree: a lazy expiry's DEL
			// (dataset reads "short") may still be on its way to the disk.
			var logged, writes, fsyncs int
			for prev, deadline := "", time.Now().Add(5*time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				info := s.client(0).Info(ctx, "persistence").Val()
				field := func(name string) int {
					_, v, _ := strings.Cut(info, "\r\n"+name+":")
					n, _ := strconv.Atoi(v[:strings.IndexByte(v+"\r", '\r')])
					return n
				}
				logged, writes, fsyncs = field("aof_logged_commands"), field("aof_writes"), field("aof_fsyncs")
				now := fmt.Sprint(logged, writes, fsyncs)
				if now == prev {
					break
				}
				prev = now
			}
			if logged < 250 || writes == 0 || tc.fsync == "always" && (fsyncs == 0 || fsyncs > writes) {
				t.Errorf("aof_logged_commands:%d aof_writes:%d aof_fsyncs:%d", logged, writes, fsyncs)
			}
			if tc.kill {
				if tc.fsync != "always" {
					time.Sleep(1500 * time.Millisecond) // everysec: the last second may be lost
				}
				s.cmd.Process.Kill()
				s.cmd.Wait()
			} else {
				s.stop()
			}
			s = startDir(t, dir, args...)
			if got := dataset(t, s); !reflect.DeepEqual(got, want) {
				t.Errorf("after restart %d keys, want %d", len(got), len(want))
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s = %q, want %q", k, got[k], v)
					}
				}
			}
			// Writes after the restart append to the same files.
			s.client(2).Set(ctx, "later", "x", 0)
			want["0/later"] = "x ttl=false"
			s.stop()
			s = startDir(t, dir, args...)
			if got := dataset(t, s); !reflect.DeepEqual(got, want) {
				t.Errorf("after a second restart %d keys, want %d", len(got), len(want))
			}
			if info := s.cli("info", "persistence"); !strings.Contains(info, "aof_enabled:1") || !strings.Contains(info, "aof_last_write_status:ok") {
				t.Errorf("INFO persistence:\n%s", info)
			}
			s.stop()
			out := failStart(t, dir, "--appendonly", "yes", "--shards", strconv.Itoa(tc.shards+1))
			if !strings.Contains(out, fmt.Sprintf("start with --shards %d", tc.shards)) {
				t.Errorf("another shard count: %s", out)
			}
		})
	}
}

// failStart runs the server in dir, which must refuse to start; it
// returns what it printed.
func failStart(t *testing.T, dir string, args ...string) string {
	t.Helper()
	all := append([]string{"--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1", "--dir", dir}, args...)
	cmd := exec.Command(serverBin, all...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the server started: %s", out)
	}
	if err == nil {
		t.Fatalf("the server exited 0: %s", out)
	}
	return string(out)
}

// TestAOFTornAndCorrupt: a torn tail loads (cut at the last whole command)
// under aof-load-truncated yes and is refused with the file and offset
// under no; a corrupted file is refused, named.
func TestAOFTornAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--appendonly", "yes", "--shards", "2"}
	s := startDir(t, dir, args...)
	c := s.client(2)
	for i := range 20 {
		c.Set(ctx, "k"+strconv.Itoa(i), i, 0)
	}
	want := dataset(t, s)
	s.stop()
	incr := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.1.incr.aof")
	st, err := os.Stat(incr)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(incr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("*3\r\n$3\r\nSET\r\n$2\r\nzz\r\n$3\r\nab")
	f.Close()

	out := failStart(t, dir, append(args, "--aof-load-truncated", "no")...)
	if !strings.Contains(out, "Unexpected end of file") || !strings.Contains(out, incr) ||
		!strings.Contains(out, "at offset "+strconv.FormatInt(st.Size(), 10)) || !strings.Contains(out, "redis-check-aof --fix") {
		t.Errorf("aof-load-truncated no: %s", out)
	}
	s = startDir(t, dir, args...)
	if got := dataset(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("aof-load-truncated yes: %d keys, want %d", len(got), len(want))
	}
	if logs, _ := os.ReadFile(s.log); !strings.Contains(string(logs), "short read while loading the AOF file") {
		t.Errorf("the cut was not logged:\n%s", logs)
	}
	s.stop()
	if st2, _ := os.Stat(incr); st2.Size() != st.Size() {
		t.Errorf("incr file %d bytes after the cut, want %d", st2.Size(), st.Size())
	}

	b, _ := os.ReadFile(incr)
	at := len(b)/2 + strings.Index(string(b[len(b)/2:]), "\r\n*3\r\n") + 2
	b[at] = '+' // a command that does not start with '*'
	os.WriteFile(incr, b, 0o644)
	if out := failStart(t, dir, args...); !strings.Contains(out, "bad file format") || !strings.Contains(out, incr) {
		t.Errorf("corrupted file: %s", out)
	}
}

// TestAOFDiskFull: with the AOF on a small tmpfs that fills up, writes
// get Redis's MISCONF error and reads keep working; once space is freed,
// writes resume by themselves, and a restart loads every write that was
// acknowledged. Under always a write the disk did not take waits for it
// (its reply is held) and is not acknowledged until it did.
func TestAOFDiskFull(t *testing.T) {
	for _, fsync := range []string{"everysec", "always"} {
		t.Run(fsync, func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
				t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
			args := []string{"--appendonly", "yes", "--appendfsync", fsync, "--shards", "2"}
			s := startDir(t, dir, args...)
			filler := filepath.Join(dir, "filler")
			fill := make([]byte, 1<<20)
			f, _ := os.Create(filler)
			f.Write(fill) // up to ENOSPC
			f.Close()
			st, _ := os.Stat(filler)
			os.Truncate(filler, st.Size()-64<<10) // leave 64 KB
			c := redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true, MaxRetries: -1, PoolSize: 8,
				ReadTimeout: 300 * time.Millisecond})
			defer c.Close()
			val := strings.Repeat("v", 1000)
			acked, held := map[string]bool{}, 0
			var misconf error
			for i := 0; i < 10000 && misconf == nil; i++ {
				k := "k" + strconv.Itoa(i)
				switch err := c.Set(ctx, k, val, 0).Err(); {
				case err == nil:
					acked[k] = true
				case strings.HasPrefix(err.Error(), "MISCONF"):
					misconf = err
				case fsync == "always" && strings.Contains(err.Error(), "i/o timeout"):
					held++
				default:
					t.Fatalf("SET %s: %v", k, err)
				}
				if fsync == "everysec" && i%20 == 0 {
					time.Sleep(5 * time.Millisecond) // let the writer reach the disk
				}
			}
			if misconf == nil || misconf.Error() != "MISCONF Errors writing to the AOF file: No space left on device" {
				t.Fatalf("after %d writes: %v", len(acked), misconf)
			}
			if len(acked) == 0 {
				t.Fatal("nothing was written before the disk filled")
			}
			if v, err := c.Get(ctx, "k0").Result(); err != nil || v != val {
				t.Errorf("a read while the disk is full: %q, %v", v, err)
			}
			// Inside MULTI a write is refused as it is queued, and EXEC aborts.
			d := dialDiff(t, s.addr, 2)
			if r := d.do(t, []string{"MULTI"}, []string{"SET", "x", "1"}, []string{"GET", "k0"}, []string{"EXEC"}); !strings.HasPrefix(string(r[1]), "-MISCONF") ||
				string(r[3]) != "-EXECABORT Transaction discarded because of previous errors.\r\n" {
				t.Errorf("MULTI while the disk is full: %q", r)
			}
			if err := c.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "MISCONF") {
				t.Errorf("PING while the disk is full: %v (Redis refuses it)", err)
			}
			if info := s.cli("info", "persistence"); !strings.Contains(info, "aof_last_write_status:err") {
				t.Errorf("INFO while failing:\n%s", info)
			}
			os.Remove(filler)
			deadline := time.Now().Add(10 * time.Second)
			for {
				err := c.Set(ctx, "after", val, 0).Err()
				if err == nil {
					acked["after"] = true
					break
				}
				if !strings.HasPrefix(err.Error(), "MISCONF") || time.Now().After(deadline) {
					t.Fatalf("writes did not resume: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			s.stop()
			s = startDir(t, dir, args...)
			c = s.client(2)
			t.Logf("%d writes acknowledged before the disk filled, %d held", len(acked)-1, held)
			for k := range acked {
				if v, err := c.Get(ctx, k).Result(); err != nil || v != val {
					t.Fatalf("acknowledged %s after the restart: %q, %v", k, v, err)
				}
			}
			if n := c.DBSize(ctx).Val(); n < int64(len(acked)) || n > int64(len(acked)+held) {
				t.Errorf("%d keys after the restart, %d acknowledged, %d held", n, len(acked), held)
			}
		})
	}
}

// TestAOFCrash: under appendfsync always, writers on several shards
// (single-key SETs and MSETs over keys of every shard) record what was
// acknowledged; the server is killed with SIGKILL at a random moment,
// restarted from its AOF, and must hold every acknowledged write, and
// every MSET whole or not at all. 20 kill cycles; in every other one a
// BGREWRITEAOF starts at a random moment before the kill, so that kills
// land before, during (some shards' bases in place, others not) and
// after rewrites.
func TestAOFCrash(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--appendonly", "yes", "--appendfsync", "always", "--shards", "3"}
	const setters, msetters, preload = 4, 3, 100_000
	// Each MSET writer sets its 6 keys (spread over the shards) to one
	// value "<n>"; a half-applied MSET shows as keys that differ.
	msetKeys := func(g int) []string {
		var ks []string
		for j := range 6 {
			ks = append(ks, fmt.Sprintf("m%d:%d", g, j))
		}
		return ks
	}
	acked := map[string]string{} // single keys
	msetAcked := make([]int, msetters)
	msetSent := make([]int, msetters)
	next := make([]int, setters)
	rng := rand.New(rand.NewPCG(7, 7))
	start := time.Now()
	rewrites, mid, mixed := 0, 0, 0
	for cycle := range 20 {
		m, x := aofMidRewrite(t, dir)
		if m {
			mid++
		}
		if x {
			mixed++
		}
		s := startDir(t, dir, args...)
		c := s.client(2)
		if cycle == 0 {
			// Bulk, so that a rewrite's bases take a while to write.
			for i := 0; i < preload; i += 1000 {
				kv := []any{}
				for j := i; j < i+1000; j++ {
					kv = append(kv, "pre:"+strconv.Itoa(j), strings.Repeat("p", 100))
				}
				if err := c.MSet(ctx, kv...).Err(); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, i := range []int{0, rng.IntN(preload), preload - 1} {
			if v, err := c.Get(ctx, "pre:"+strconv.Itoa(i)).Result(); err != nil || len(v) != 100 {
				t.Fatalf("cycle %d: pre:%d = %q, %v", cycle, i, v, err)
			}
		}
		// Everything acknowledged before is there.
		keys := make([]string, 0, len(acked))
		for k := range acked {
			keys = append(keys, k)
		}
		for i := 0; i < len(keys); i += 500 {
			batch := keys[i:min(i+500, len(keys))]
			vals, err := c.MGet(ctx, batch...).Result()
			if err != nil {
				t.Fatal(err)
			}
			for j, v := range vals {
				if v != acked[batch[j]] {
					t.Fatalf("cycle %d: acknowledged %s = %q, got %v", cycle, batch[j], acked[batch[j]], v)
				}
			}
		}
		for g := range msetters {
			vals, err := c.MGet(ctx, msetKeys(g)...).Result()
			if err != nil {
				t.Fatal(err)
			}
			n := -1
			for j, v := range vals {
				x := 0 // never set
				if v != nil {
					x, _ = strconv.Atoi(v.(string))
				}
				if j > 0 && x != n {
					t.Fatalf("cycle %d: MSET %d half applied: %v", cycle, g, vals)
				}
				n = x
			}
			if n < msetAcked[g] || n > msetSent[g] {
				t.Fatalf("cycle %d: MSET %d holds %d, acknowledged %d, sent %d", cycle, g, n, msetAcked[g], msetSent[g])
			}
		}
		// Write until killed.
		var wg sync.WaitGroup
		var mu sync.Mutex
		stop := make(chan struct{})
		for g := range setters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					k := fmt.Sprintf("s%d:%d", g, next[g])
					v := strconv.Itoa(next[g])
					next[g]++
					if c.Set(ctx, k, v, 0).Err() != nil {
						return
					}
					mu.Lock()
					acked[k] = v
					mu.Unlock()
				}
			}()
		}
		for g := range msetters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					n := msetSent[g] + 1
					kv := []any{}
					for _, k := range msetKeys(g) {
						kv = append(kv, k, n)
					}
					msetSent[g] = n
					if c.MSet(ctx, kv...).Err() != nil {
						return
					}
					msetAcked[g] = n
				}
			}()
		}
		if cycle%2 == 1 {
			wg.Add(1)
			go func(after time.Duration) {
				defer wg.Done()
				time.Sleep(after)
				if c.Do(ctx, "BGREWRITEAOF").Err() == nil {
					mu.Lock()
					rewrites++
					mu.Unlock()
				}
			}(time.Duration(rng.IntN(150)) * time.Millisecond)
		}
		time.Sleep(time.Duration(20+rng.IntN(200)) * time.Millisecond)
		s.cmd.Process.Kill()
		s.cmd.Wait()
		close(stop)
		wg.Wait()
	}
	t.Logf("20 kill cycles in %v: %d single-key writes and %v MSETs acknowledged, %d rewrites started; %d starts found a cut not yet "+
		"followed by its base, %d some shards' new bases in place and others not", time.Since(start).Round(time.Millisecond), len(acked), msetAcked, rewrites, mid, mixed)
}

// aofMidRewrite reports how a rewrite left the AOF in dir: cut, some
// shard's manifest names more than one incremental file (it cut, and its
// new base is not in place); mixed, the last rewrite's base is in place
// on some shards and not on others (their first incremental file starts
// with its RADISH.BASE, or not).
func aofMidRewrite(t *testing.T, dir string) (cut, mixed bool) {
	ms, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.manifest"))
	marker := regexp.MustCompile(`RADISH\.(BASE|CUT)\r\n\$\d+\r\n(\d+)\r\n`)
	var last string
	firstBase := map[string]bool{}
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		cut = cut || strings.Count(string(b), "type i") > 1
		first := ""
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 6 && f[5] == "i" {
				data, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", f[1]))
				for k, mk := range marker.FindAllStringSubmatch(string(data), -1) {
					if len(mk[2]) > len(last) || len(mk[2]) == len(last) && mk[2] > last {
						last = mk[2]
					}
					if k == 0 && first == "" && mk[1] == "BASE" {
						first = mk[2]
					}
				}
				if first == "" {
					first = "-"
				}
			}
		}
		firstBase[first] = true
	}
	return cut, firstBase[last] && len(firstBase) > 1
}

// TestAOFEmptyPart: a DEL over keys of three shards, one of which holds
// none of them, survives a restart: the shard that deleted nothing still
// marks its part, so the load does not drop the DEL as a transaction a
// crash cut short (the deleted keys came back).
func TestAOFEmptyPart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--appendonly", "yes", "--appendfsync", "always", "--shards", "3"}
	s := startDir(t, dir, args...)
	c := s.client(2)
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		if err := c.Set(t.Context(), k, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.Del(t.Context(), "a", "b", "c", "d", "x", "y", "z", "w").Val(); n != 4 {
		t.Fatalf("DEL = %d, want 4", n)
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s = startDir(t, dir, args...)
	if n := s.client(2).Exists(t.Context(), "a", "b", "c", "d", "e", "f", "g", "h").Val(); n != 4 {
		t.Errorf("after the restart %d of the 8 keys exist, want 4", n)
	}
}

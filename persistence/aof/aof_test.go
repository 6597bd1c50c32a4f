package aof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/persistence/snapshot"
)

func TestManifest(t *testing.T) {
	// As Redis 7.0.15 writes one (after a rewrite, with history).
	text := "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.2.incr.aof seq 2 type i\nfile \"a b.aof\" seq 3 type i\n"
	m, err := ParseManifest(text)
	if err != nil {
		t.Fatal(err)
	}
	want := &Manifest{Base: &File{"appendonly.aof.2.base.rdb", 2, 'b'}, History: []File{{"appendonly.aof.1.incr.aof", 1, 'h'}},
		Incrs: []File{{"appendonly.aof.2.incr.aof", 2, 'i'}, {"a b.aof", 3, 'i'}}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("parsed %+v", m)
	}
	if got := m.Format(); got != text {
		t.Errorf("Format = %q, want %q", got, text)
	}
	for _, bad := range []string{"", "file a seq 1\n", "file a seq x type i\n", "file a seq 1 type z\n",
		"file a seq 2 type i\nfile b seq 1 type i\n", "file a seq 1 type b\nfile b seq 2 type b\n", "file \"a seq 1 type i\n"} {
		if _, err := ParseManifest(bad); err == nil {
			t.Errorf("ParseManifest(%q) accepted", bad)
		}
	}
}

func TestEmptyBase(t *testing.T) {
	b := EmptyBase(1700000000)
	if _, err := snapshot.LoadRDB(b, "base", snapshot.LoadOptions{Store: engine.NewStore(16), Verify: true}); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		if _, err := snapshot.LoadRDB(c, "base", snapshot.LoadOptions{Store: engine.NewStore(16), Verify: true}); err == nil {
			t.Errorf("flipped byte %d accepted", i)
		}
	}
}

// baseKeys loads shard bases into stores and records their keys, as
// "db BASE key value" lines, in got.
func baseKeys(got [][]string) BaseLoader {
	return func(i int, b []byte, path string) error {
		st := engine.NewStore(16)
		if _, err := snapshot.LoadRDB(b, path, snapshot.LoadOptions{Store: st, Verify: true}); err != nil {
			return err
		}
		for db := range 16 {
			st.DB(db).Ascend(nil, nil, 0, func(k []byte) bool {
				rec, _ := st.DB(db).Export(k, 0)
				got[i] = append(got[i], fmt.Sprintf("%d BASE %s %s", db, k, rec.Data))
				return true
			})
		}
		return nil
	}
}

// fxOf builds a turn's effects: each cmd is "db tag words..." with tag
// "-" or "txn/part/parts".
func fxOf(t testing.TB, cmds ...string) *command.Effects {
	var fx command.Effects
	for _, c := range cmds {
		w := strings.Fields(c)
		var db int
		var tag command.Tag
		fmt.Sscan(w[0], &db)
		if w[1] != "-" {
			fmt.Sscanf(w[1], "%d/%d/%d", &tag.Txn, &tag.Part, &tag.Parts)
		}
		fx.Tag = tag
		fx.Begin(db, command.CauseCommand, len(w)-2)
		for _, a := range w[2:] {
			fx.ArgString(a)
		}
	}
	fx.Tag = command.Tag{}
	return &fx
}

func testOpts(t testing.TB, dir string, shards int) Options {
	return Options{Dir: dir, Name: "appendonly.aof", Shards: shards, Fsync: "always", LoadTruncated: true, Log: zap.NewNop()}
}

// write opens the Set in dir, appends each shard's turns and closes it.
func write(t *testing.T, opts Options, turns map[int][]*command.Effects) {
	t.Helper()
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(baseKeys(make([][]string, opts.Shards)), func(int) Applier { return func(int, [][]byte) error { return nil } }); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(func(int) {}); err != nil {
		t.Fatal(err)
	}
	for i, fxs := range turns {
		for _, fx := range fxs {
			s.Log(i).Append(fx)
			s.Log(i).Submit()
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// load loads the Set in dir and returns what each shard replayed, as
// "db words..." lines.
func load(t *testing.T, opts Options) ([][]string, error) {
	t.Helper()
	s, err := Open(opts)
	if err != nil {
		return nil, err
	}
	got := make([][]string, opts.Shards)
	err = s.Load(baseKeys(got), func(i int) Applier {
		return func(db int, args [][]byte) error {
			w := []string{fmt.Sprint(db)}
			for _, a := range args {
				w = append(w, string(a))
			}
			got[i] = append(got[i], strings.Join(w, " "))
			return nil
		}
	})
	return got, err
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	write(t, opts, map[int][]*command.Effects{
		0: {fxOf(t, "0 - SET a 1", "3 - SET b 2"), fxOf(t, "3 - DEL b", "0 - PEXPIREAT a 99")},
		1: {fxOf(t, "0 - SET c 3")},
	})
	// A second process appends after the first.
	write(t, opts, map[int][]*command.Effects{1: {fxOf(t, "5 - SET d 4")}})
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"0 SET a 1", "3 SET b 2", "3 DEL b", "0 PEXPIREAT a 99"}, {"0 SET c 3", "5 SET d 4"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
	if _, err := load(t, testOpts(t, dir, 3)); err == nil || !strings.Contains(err.Error(), "start with --shards 2") {
		t.Errorf("3 shards on a 2-shard AOF: %v", err)
	}
}

// TestPublishNotLogged: a PUBLISH among a turn's effects, or alone in
// one, is not logged (Redis propagates it to replicas only), and the
// writes around it replay as they were.
func TestPublishNotLogged(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 1)
	publish := func(fx *command.Effects, db int) *command.Effects {
		fx.Command(db, command.CausePublish, [][]byte{[]byte("PUBLISH"), []byte("ch"), []byte("m")})
		return fx
	}
	mixed := publish(fxOf(t, "0 - SET a 1"), 2)
	mixed.Begin(0, command.CauseCommand, 3)
	for _, a := range []string{"SET", "b", "2"} {
		mixed.ArgString(a)
	}
	write(t, opts, map[int][]*command.Effects{0: {mixed, publish(&command.Effects{}, 0)}})
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"0 SET a 1", "0 SET b 2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
}

// TestPublishPartNotLogged: a shard's part of a cross-shard transaction
// that only published (a PUBLISH inside EXEC, wrapped or not) logs no
// PUBLISH but marks the part, so the other shards' parts replay.
func TestPublishPartNotLogged(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	pub := &command.Effects{}
	pub.Tag = command.Tag{Txn: 7, Part: 0, Parts: 2}
	for range 2 {
		pub.Command(0, command.CausePublish, [][]byte{[]byte("PUBLISH"), []byte("ch"), []byte("m")})
	}
	pub.Wrap(0)
	pub.Tag = command.Tag{}
	write(t, opts, map[int][]*command.Effects{0: {pub}, 1: {fxOf(t, "0 7/1/2 SET c 1")}})
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{nil, {"0 SET c 1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
}

// TestTxnAtomic: a cross-shard transaction is replayed only when every
// shard's log holds its part: a log that lacks one (the process died
// before that shard's write) drops the other parts too.
func TestTxnAtomic(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 3)
	write(t, opts, map[int][]*command.Effects{
		0: {fxOf(t, "0 - SET x 0", "0 7/0/2 MSET a 1", "2 7/0/2 MSET b 1", "0 - SET y 0"), fxOf(t, "0 8/0/3 MSET e 1")},
		1: {fxOf(t, "0 7/1/2 MSET c 1"), fxOf(t, "0 8/1/3 MSET f 1")},
		// shard 2 lacks its part of txn 8.
		2: {fxOf(t, "0 - SET z 0")},
	})
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"0 SET x 0", "0 MSET a 1", "2 MSET b 1", "0 SET y 0"}, {"0 MSET c 1"}, {"0 SET z 0"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
	// The same txn id in a later process is another transaction.
	write(t, opts, map[int][]*command.Effects{2: {fxOf(t, "0 8/2/3 MSET g 1")}})
	if got, _ = load(t, opts); !reflect.DeepEqual(got[2], []string{"0 SET z 0"}) {
		t.Errorf("a later epoch completed an earlier txn: %q", got)
	}
}

func incrPath(dir string, shard int) string {
	return filepath.Join(dir, IncrName("appendonly.aof", shard, 1))
}

func TestTornTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		tail string // appended after a whole SET a 1
		want []string
	}{
		{"in a command", "*3\r\n$3\r\nSET\r\n$1\r\nb", []string{"0 SET a 1"}},
		{"in a count", "*3\r", []string{"0 SET a 1"}},
		// A part whose commands are not all there is cut at its marker.
		{"in a part", "*5\r\n$11\r\nRADISH.PART\r\n$1\r\n9\r\n$1\r\n0\r\n$1\r\n1\r\n$1\r\n2\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n", []string{"0 SET a 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := testOpts(t, dir, 1)
			write(t, opts, map[int][]*command.Effects{0: {fxOf(t, "0 - SET a 1")}})
			whole, _ := os.ReadFile(incrPath(dir, 0))
			f, _ := os.OpenFile(incrPath(dir, 0), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(tc.tail)
			f.Close()

			opts.LoadTruncated = false
			_, err := load(t, opts)
			var le *LoadError
			if !errors.As(err, &le) || le.File != incrPath(dir, 0) || le.Offset != int64(len(whole)) ||
				!strings.Contains(err.Error(), "Unexpected end of file") || !strings.Contains(err.Error(), "redis-check-aof --fix") {
				t.Fatalf("aof-load-truncated no: %v", err)
			}
			opts.LoadTruncated = true
			got, err := load(t, opts)
			if err != nil || !reflect.DeepEqual(got[0], tc.want) {
				t.Fatalf("aof-load-truncated yes: %q, %v", got, err)
			}
			if after, _ := os.ReadFile(incrPath(dir, 0)); string(after) != string(whole) {
				t.Errorf("not truncated to the last whole command: %q", after)
			}
			// What is appended next loads after it.
			write(t, opts, map[int][]*command.Effects{0: {fxOf(t, "0 - SET c 3")}})
			if got, err := load(t, opts); err != nil || !reflect.DeepEqual(got[0], append(tc.want, "0 SET c 3")) {
				t.Errorf("after the cut: %q, %v", got, err)
			}
		})
	}
}

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	write(t, opts, map[int][]*command.Effects{1: {fxOf(t, "0 - SET a 1"), fxOf(t, "0 - SET b 2")}})
	b, _ := os.ReadFile(incrPath(dir, 1))
	at := strings.Index(string(b), "*3\r\n$3\r\nSET\r\n$1\r\nb")
	b[at] = '+'
	os.WriteFile(incrPath(dir, 1), b, 0o644)
	_, err := load(t, opts)
	var le *LoadError
	if !errors.As(err, &le) || le.File != incrPath(dir, 1) || le.Offset != int64(at) || !strings.Contains(err.Error(), "bad file format") {
		t.Errorf("corrupt incr file: %v", err)
	}
	// A bad base refuses too, naming it.
	os.WriteFile(incrPath(dir, 1), nil, 0o644)
	base := filepath.Join(dir, BaseName("appendonly.aof", 0, 1))
	os.WriteFile(base, []byte("REDIS0010\xff"), 0o644)
	if _, err := load(t, opts); err == nil || !strings.Contains(err.Error(), base) {
		t.Errorf("bad base: %v", err)
	}
	// And an unreadable manifest.
	os.WriteFile(filepath.Join(dir, ManifestName("appendonly.aof", 0)), []byte("file x seq 0 type i\n"), 0o644)
	if _, err := load(t, opts); err == nil || !strings.Contains(err.Error(), "appendonly.aof.0.manifest") {
		t.Errorf("bad manifest: %v", err)
	}
}

// TestDurable: under always the writer wakes the shard once a turn's
// bytes are written and fsynced; Durable reaches what was submitted.
func TestDurable(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 1)
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	woke := make(chan struct{}, 100)
	if err := s.Start(func(int) { woke <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := s.Log(0)
	l.Append(fxOf(t, "0 - SET a 1"))
	pos := l.Submit()
	deadline := time.After(10 * time.Second)
	for l.Durable() < pos {
		select {
		case <-woke:
		case <-deadline:
			t.Fatalf("Durable %d, want %d", l.Durable(), pos)
		}
	}
	if st, _ := os.Stat(incrPath(dir, 0)); st.Size() != int64(pos) || l.Size() != int64(pos) || l.Pending() != 0 {
		t.Errorf("file %d bytes, Size %d, Pending %d, want %d", st.Size(), l.Size(), l.Pending(), pos)
	}
}

// TestChunks: turns submitted faster than the writer writes (more of
// them than one writev takes) reach the file whole and in order, and the
// counts say how many commands the writes and fsyncs covered.
func TestChunks(t *testing.T) {
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			opts := testOpts(t, dir, 1)
			opts.Fsync = policy
			s, err := Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(func(int) {}); err != nil {
				t.Fatal(err)
			}
			l := s.Log(0)
			const turns = 3 * iovMax
			var want []byte
			for i := range turns {
				fx := fxOf(t, fmt.Sprintf("0 - SET k%d %d", i, i), fmt.Sprintf("0 - INCR n%d", i%7))
				l.Append(fx)
				for j := range fx.Len() {
					_, cmd := fx.At(j)
					want = append(want, cmd...)
				}
				l.Submit()
			}
			// Under always the syncers' fdatasyncs bring Durable to the end
			// (and never past it: Durable reads a position, not a count).
			for deadline := time.Now().Add(10 * time.Second); policy == "always" && l.Durable() != l.Submitted(); time.Sleep(time.Millisecond) {
				if l.Durable() > l.Submitted() || time.Now().After(deadline) {
					t.Fatalf("Durable %d, submitted %d", l.Durable(), l.Submitted())
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(incrPath(dir, 0))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(got, want) || !bytes.HasPrefix(got, []byte("*2\r\n$12\r\nRADISH.EPOCH\r\n")) {
				t.Fatalf("the file (%d bytes) is not the epoch marker, SELECT and the %d turns (%d bytes)", len(got), turns, len(want))
			}
			logged, writes, fsyncs := s.Counts()
			if logged != 2*turns || writes == 0 || fsyncs == 0 || policy == "always" && fsyncs > writes+1 {
				t.Errorf("logged %d writes %d fsyncs %d, want %d commands logged", logged, writes, fsyncs, 2*turns)
			}
		})
	}
}

// TestAppendAllocs: encoding a turn allocates nothing once the buffers
// have grown.
func TestAppendAllocs(t *testing.T) {
	l := &Log{db: -1}
	fx := fxOf(t, "0 - SET a 1", "1 3/0/2 MSET b 2 c 3", "0 - DEL a")
	l.Append(fx)
	if n := testing.AllocsPerRun(100, func() {
		l.buf = l.buf[:0]
		l.Append(fx)
	}); n != 0 {
		t.Errorf("Append allocates %v times", n)
	}
}

// TestMulti: a MULTI ... EXEC block replays whole; one the file ends in
// is cut at its MULTI.
func TestMulti(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 1)
	write(t, opts, map[int][]*command.Effects{0: {fxOf(t, "0 - MULTI", "0 - SET a 1", "1 - SET b 2", "1 - EXEC", "0 - SET c 3")}})
	got, err := load(t, opts)
	if want := []string{"0 SET a 1", "1 SET b 2", "0 SET c 3"}; err != nil || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("replayed %q, %v; want %q", got[0], err, want)
	}
	write(t, opts, map[int][]*command.Effects{0: {fxOf(t, "0 - MULTI", "0 - SET d 4")}})
	b, _ := os.ReadFile(incrPath(dir, 0))
	at := strings.LastIndex(string(b), "*1\r\n$5\r\nMULTI")
	opts.LoadTruncated = false
	if _, err := load(t, opts); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at offset %d", at)) {
		t.Fatalf("open MULTI at the end, aof-load-truncated no: %v", err)
	}
	opts.LoadTruncated = true
	got, err = load(t, opts)
	if want := []string{"0 SET a 1", "1 SET b 2", "0 SET c 3"}; err != nil || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("open MULTI cut: %q, %v", got[0], err)
	}
}

// TestTimestamps: with aof-timestamp-enabled a turn in a new second
// starts with Redis's #TS annotation, which the load skips; a file torn
// inside one is cut before it.
func TestTimestamps(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 1)
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(func(int) {}); err != nil {
		t.Fatal(err)
	}
	l := s.Log(0)
	l.SetTimestamps(true)
	for i, now := range []int64{1700000000123, 1700000000999, 1700000001000} {
		fx := fxOf(t, fmt.Sprintf("0 - SET k%d v", i))
		fx.Now = now
		l.Append(fx)
		l.Submit()
	}
	s.Close()
	b, _ := os.ReadFile(incrPath(dir, 0))
	if n := strings.Count(string(b), "#TS:"); n != 2 || !strings.Contains(string(b), "\r\n#TS:1700000001\r\n*3\r\n") {
		t.Fatalf("%d annotations in %q", n, b)
	}
	got, err := load(t, opts)
	if want := []string{"0 SET k0 v", "0 SET k1 v", "0 SET k2 v"}; err != nil || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("replayed %q, %v", got, err)
	}
	os.WriteFile(incrPath(dir, 0), append(b, "#TS:17000"...), 0o644)
	if got, err := load(t, opts); err != nil || len(got[0]) != 3 {
		t.Fatalf("torn annotation: %q, %v", got, err)
	}
	if after, _ := os.ReadFile(incrPath(dir, 0)); string(after) != string(b) {
		t.Errorf("torn annotation not cut")
	}
}

// rewriteBase writes, as shard's part p of a rewrite, a base holding the
// string keys kv ("k=v" in database 0), and installs it unless install
// is false (the process died before).
func rewriteBase(t *testing.T, p *Part, install bool, kv ...string) {
	t.Helper()
	st := engine.NewStore(16)
	for _, e := range kv {
		k, v, _ := strings.Cut(e, "=")
		st.DB(0).SetString([]byte(k), []byte(v), 0, false)
	}
	f, err := p.CreateBase()
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.NewWriter(st, f, snapshot.Options{Checksum: true, AOFBase: true}).WriteAll(0); err != nil {
		t.Fatal(err)
	}
	if !install {
		p.Abort(f)
		return
	}
	if err := p.Install(f); err != nil {
		t.Fatal(err)
	}
}

// started opens, loads and starts the Set in dir.
func started(t *testing.T, opts Options) *Set {
	t.Helper()
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(baseKeys(make([][]string, opts.Shards)), func(int) Applier { return func(int, [][]byte) error { return nil } }); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(func(int) {}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRewrite: after a rewrite a shard loads its new base, then only the
// effects after its cut; the files the rewrite replaced are gone, and
// the manifest names the new base and incremental file.
func TestRewrite(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	s := started(t, opts)
	s.Log(0).Append(fxOf(t, "0 - SET a 1", "0 7/0/2 MSET b 1"))
	s.Log(1).Append(fxOf(t, "0 7/1/2 MSET c 1"))
	r := s.BeginRewrite()
	p0, p1 := r.Cut(0), r.Cut(1)
	s.Log(0).Append(fxOf(t, "0 - SET a 2", "0 9/0/2 MSET b 2"))
	s.Log(0).Submit()
	s.Log(1).Append(fxOf(t, "0 9/1/2 MSET c 2"))
	s.Log(1).Submit()
	rewriteBase(t, p0, true, "a=1", "b=1")
	rewriteBase(t, p1, true, "c=1")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"0 BASE a 1", "0 BASE b 1", "0 SET a 2", "0 MSET b 2"}, {"0 BASE c 1", "0 MSET c 2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"appendonly.aof.0.2.base.rdb", "appendonly.aof.0.2.incr.aof", "appendonly.aof.0.manifest",
		"appendonly.aof.1.2.base.rdb", "appendonly.aof.1.2.incr.aof", "appendonly.aof.1.manifest"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
	m, _ := os.ReadFile(filepath.Join(dir, ManifestName("appendonly.aof", 0)))
	if string(m) != "file appendonly.aof.0.2.base.rdb seq 2 type b\nfile appendonly.aof.0.2.incr.aof seq 2 type i\n" {
		t.Errorf("manifest %q", m)
	}
	// A second rewrite goes on from there.
	s = started(t, opts)
	r = s.BeginRewrite()
	p0, p1 = r.Cut(0), r.Cut(1)
	rewriteBase(t, p0, true, "a=2", "b=2")
	rewriteBase(t, p1, true, "c=2")
	s.Close()
	if got, err = load(t, opts); err != nil || !reflect.DeepEqual(got, [][]string{{"0 BASE a 2", "0 BASE b 2"}, {"0 BASE c 2"}}) {
		t.Errorf("after a second rewrite %q, %v", got, err)
	}
}

// TestRewriteCrash: a rewrite that put one shard's base in place and not
// the other's (the process died in between) loads whole: a transaction
// before the cut, folded into the first shard's base, keeps its part in
// the other shard's old log, which replays it; one after the cut is
// replayed only when every part is there, as ever.
func TestRewriteCrash(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	s := started(t, opts)
	s.Log(0).Append(fxOf(t, "0 7/0/2 MSET b 1"))
	s.Log(1).Append(fxOf(t, "0 7/1/2 MSET c 1"))
	r := s.BeginRewrite()
	p0, p1 := r.Cut(0), r.Cut(1)
	s.Log(0).Append(fxOf(t, "0 9/0/2 MSET b 2", "0 10/0/2 MSET b 3"))
	s.Log(0).Submit()
	s.Log(1).Append(fxOf(t, "0 9/1/2 MSET c 2")) // txn 10's part on shard 1 never made it
	s.Log(1).Submit()
	rewriteBase(t, p0, true, "b=1")
	rewriteBase(t, p1, false, "c=1")
	s.Close()
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"0 BASE b 1", "0 MSET b 2"}, {"0 MSET c 1", "0 MSET c 2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
	// The next rewrite, complete, replaces every file but the last.
	s = started(t, opts)
	r = s.BeginRewrite()
	p0, p1 = r.Cut(0), r.Cut(1)
	rewriteBase(t, p0, true, "b=2")
	rewriteBase(t, p1, true, "c=2")
	s.Close()
	if got, err = load(t, opts); err != nil || !reflect.DeepEqual(got, [][]string{{"0 BASE b 2"}, {"0 BASE c 2"}}) {
		t.Errorf("after a second rewrite %q, %v", got, err)
	}
	m, _ := os.ReadFile(filepath.Join(dir, ManifestName("appendonly.aof", 1)))
	if string(m) != "file appendonly.aof.1.2.base.rdb seq 2 type b\nfile appendonly.aof.1.3.incr.aof seq 3 type i\n" {
		t.Errorf("manifest %q", m)
	}
}

// TestRewriteCrashIdle: a shard that logs nothing after its cut, its new
// base put in place and the process killed before the other shard's,
// still names its base's cut in its first incremental file, so the other
// shard replays the transaction before the cut whose part on the first
// is now in that base (this shard's RADISH.BASE was once written with its
// next turn only: the load dropped the transaction, keys of a preload
// lost).
func TestRewriteCrashIdle(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	s := started(t, opts)
	s.Log(0).Append(fxOf(t, "0 7/0/2 MSET b 1"))
	s.Log(1).Append(fxOf(t, "0 7/1/2 MSET c 1"))
	r := s.BeginRewrite()
	p0, p1 := r.Cut(0), r.Cut(1)
	rewriteBase(t, p0, true, "b=1")
	rewriteBase(t, p1, false, "c=1")
	s.Close()
	got, err := load(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"0 BASE b 1"}, {"0 MSET c 1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
}

// TestEnable: an AOF turned on at run time is named by no manifest until
// its rewrite commits; a crash during the commit's renames is finished at
// the next start, one before them leaves no AOF, and the manifests of an
// older AOF in the directory go at the commit.
func TestEnable(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 2)
	write(t, testOpts(t, dir, 3), map[int][]*command.Effects{2: {fxOf(t, "0 - SET stale 1")}}) // an older AOF, of 3 shards
	enable := func() *Set {
		s, err := Enable(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(func(int) {}); err != nil {
			t.Fatal(err)
		}
		r := s.BeginRewrite()
		p0, p1 := r.Cut(0), r.Cut(1)
		s.Log(0).Append(fxOf(t, "0 - SET x 1"))
		s.Log(0).Submit()
		rewriteBase(t, p0, true, "a=1")
		rewriteBase(t, p1, true, "b=1")
		if !s.Enabling() {
			t.Fatal("committed before Commit")
		}
		if err := s.Commit(r); err != nil {
			t.Fatal(err)
		}
		s.Close()
		return s
	}
	enable()
	got, err := load(t, opts)
	want := [][]string{{"0 BASE a 1", "0 SET x 1"}, {"0 BASE b 1"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after the commit %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName("appendonly.aof", 2))); !os.IsNotExist(err) {
		t.Errorf("the older AOF's manifest of shard 2 is still there: %v", err)
	}
	// A crash after the first rename: the start does the second.
	m1 := filepath.Join(dir, ManifestName("appendonly.aof", 1))
	enable()
	os.Rename(m1, filepath.Join(dir, "temp-"+ManifestName("appendonly.aof", 1)))
	if got, err = load(t, opts); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after a crash in the renames %q, %v", got, err)
	}
	// A crash before any rename: the temporary manifests go, the AOF in
	// place stays.
	m0 := filepath.Join(dir, ManifestName("appendonly.aof", 0))
	before, _ := os.ReadFile(m0)
	s, err := Enable(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.WriteFile(filepath.Join(dir, "temp-"+ManifestName("appendonly.aof", 0)), []byte(enableMark+"123 2\nfile x seq 9 type i\n"), 0o644)
	if got, err = load(t, opts); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after a crash before the renames %q, %v", got, err)
	}
	if after, _ := os.ReadFile(m0); string(after) != string(before) {
		t.Errorf("manifest changed: %q, was %q", after, before)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "temp-*")); len(tmps) != 0 {
		t.Errorf("temporary manifests left: %q", tmps)
	}
}

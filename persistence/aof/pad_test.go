package aof

import (
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radish-kv/radish/command"
)

// TestPadding: under always the open file holds zeros after its bytes
// (a write over them changes neither its length nor its extents), under
// everysec none; Close cuts them off. A file a crash left padded loads
// whole, and the next process writes after its bytes, over the zeros.
func TestPadding(t *testing.T) {
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			opts := testOpts(t, dir, 1)
			opts.Fsync = policy
			s, err := Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			woke := make(chan struct{}, 100)
			if err := s.Start(func(int) { woke <- struct{}{} }); err != nil {
				t.Fatal(err)
			}
			l := s.Log(0)
			l.Append(fxOf(t, "0 - SET a 1"))
			pos := l.Submit()
			for l.Durable() < pos {
				select {
				case <-woke:
				case <-time.After(10 * time.Millisecond): // everysec wakes no one
				}
			}
			st, _ := os.Stat(incrPath(dir, 0))
			if pad := st.Size() - int64(pos); policy == "always" && pad < padStep || policy != "always" && pad != 0 {
				t.Errorf("%d bytes of zeros after the file's %d bytes", pad, pos)
			}
			crashed, _ := os.ReadFile(incrPath(dir, 0))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if st, _ := os.Stat(incrPath(dir, 0)); st.Size() != int64(pos) {
				t.Errorf("closed file of %d bytes, want %d", st.Size(), pos)
			}
			os.WriteFile(incrPath(dir, 0), crashed, 0o644) // as a kill -9 leaves it
			opts.LoadTruncated = false                     // the zeros are no torn tail
			write(t, opts, map[int][]*command.Effects{0: {fxOf(t, "0 - SET b 2")}})
			got, err := load(t, opts)
			if want := []string{"0 SET a 1", "0 SET b 2"}; err != nil || !reflect.DeepEqual(got[0], want) {
				t.Errorf("replayed %q, %v; want %q", got, err, want)
			}
		})
	}
}

// TestTornOverPadding: a last write the disk took only in part over the
// zeros (a page of it missing, one after it there) is a torn tail, cut at
// the command the missing page breaks with aof-load-truncated yes,
// refused as one with no; the same bytes with no page of zeros after
// them are a corrupt file.
func TestTornOverPadding(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir, 1)
	write(t, opts, map[int][]*command.Effects{0: {fxOf(t, "0 - SET a 1")}})
	whole, _ := os.ReadFile(incrPath(dir, 0))
	value := strings.Repeat("v", 2*pageSize)
	set := func(k string) string {
		return "*3\r\n$3\r\nSET\r\n$1\r\n" + k + "\r\n$" + strconv.Itoa(len(value)) + "\r\n" + value + "\r\n"
	}
	b, c := set("b"), set("c")
	torn := []byte(string(whole) + b + c)
	// The write's page holding c's start never reached the disk.
	cAt := len(whole) + len(b)
	lost := cAt / pageSize * pageSize
	clear(torn[lost : lost+pageSize])
	torn = append(torn, make([]byte, padStep)...)
	cut, want := cAt, []string{"0 SET a 1", "0 SET b " + value}
	if lost < cAt-2 { // the page held b's end too
		cut, want = len(whole), want[:1]
	}

	os.WriteFile(incrPath(dir, 0), torn, 0o644)
	opts.LoadTruncated = false
	_, err := load(t, opts)
	var le *LoadError
	if !errors.As(err, &le) || le.Offset != int64(cut) || !strings.Contains(err.Error(), "Unexpected end of file") {
		t.Fatalf("aof-load-truncated no: %v", err)
	}
	opts.LoadTruncated = true
	if got, err := load(t, opts); err != nil || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("aof-load-truncated yes: %.60q, %v", got, err)
	}
	if st, _ := os.Stat(incrPath(dir, 0)); st.Size() != int64(cut) {
		t.Errorf("cut at %d, want %d", st.Size(), cut)
	}

	corrupt := []byte(string(whole) + b)
	corrupt[len(whole)] = '+'
	os.WriteFile(incrPath(dir, 0), corrupt, 0o644)
	if _, err := load(t, opts); !errors.As(err, &le) || !strings.Contains(err.Error(), "bad file format") {
		t.Errorf("corrupt bytes without zeros after them: %v", err)
	}
}

package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAppend(t *testing.T) {
	b := AppendGet(nil, 7)
	b = AppendSet(b, 123456)
	want := "*2\r\n$3\r\nGET\r\n$5\r\nkey:7\r\n*3\r\n$3\r\nSET\r\n$10\r\nkey:123456\r\n$12\r\nvalue:123456\r\n"
	if string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
	if got := AppendGet(nil, 0); string(got) != "*2\r\n$3\r\nGET\r\n$5\r\nkey:0\r\n" {
		t.Errorf("key 0: %q", got)
	}
}

func TestSkipReply(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("+OK\r\n$-1\r\n$7\r\nvalue:1\r\n:3\r\n$0\r\n\r\n"))
	for i, wantNil := range []bool{false, true, false, false, false} {
		isNil, err := SkipReply(r)
		if err != nil || isNil != wantNil {
			t.Fatalf("reply %d: nil %v err %v", i, isNil, err)
		}
	}
	if _, err := SkipReply(r); err == nil {
		t.Error("no error at the end of input")
	}
	for _, bad := range []string{"-ERR wrong\r\n", "*1\r\n", "$x\r\n", "+OK\n", "$5\r\nab"} {
		_, err := SkipReply(bufio.NewReader(strings.NewReader(bad)))
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
		if bad[0] == '-' && !errors.Is(err, ErrReply) {
			t.Errorf("%q: %v is not ErrReply", bad, err)
		}
	}
}

func TestBatchAllocs(t *testing.T) {
	srv, cli := net.Pipe()
	defer srv.Close()
	go func() { // answer every GET with nil and every SET with +OK, allocating nothing
		r := bufio.NewReader(srv)
		null, ok := []byte("$-1\r\n"), []byte("+OK\r\n")
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if string(line) == "GET\r\n" {
				srv.Write(null)
			} else if string(line) == "SET\r\n" {
				srv.Write(ok)
			}
		}
	}()
	w := worker{conn: cli, r: bufio.NewReader(cli), cfg: Config{Pipeline: 8, Keys: 1000, SetPct: 50}}
	w.rng = newRand(1, 0)
	if err := w.batch(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := w.batch(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per batch", n)
	}
	if w.res.Requests != 8*22 || w.res.Sets == 0 || w.res.Sets == w.res.Requests || w.res.Misses != w.res.Requests-w.res.Sets {
		t.Errorf("result %+v", w.res)
	}
}

// A run against a tiny in-process server: the mix comes out near SetPct,
// it stops on time, and an error reply fails it.
func TestRun(t *testing.T) {
	addr, stop := fakeServer(t, "")
	defer stop()
	res, err := Run(context.Background(), Config{Addr: addr, Conns: 4, Pipeline: 16, Keys: 100, SetPct: 10, Duration: 200 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Seconds < 0.2 || res.Seconds > 10 || res.RPS() <= 0 ||
		res.P50Ms <= 0 || res.P50Ms > res.P99Ms || res.P99Ms > res.MaxMs {
		t.Fatalf("result %+v", res)
	}
	if share := float64(res.Sets) / float64(res.Requests); res.Requests > 2000 && (share < 0.05 || share > 0.15) {
		t.Errorf("SET share %.3f of %d, want about 0.10", share, res.Requests)
	}
	bad, stopBad := fakeServer(t, "-ERR unknown command 'SET'\r\n")
	defer stopBad()
	if _, err := Run(context.Background(), Config{Addr: bad, Conns: 2, Pipeline: 4, Keys: 10, SetPct: 100, Duration: time.Second}); !errors.Is(err, ErrReply) {
		t.Errorf("error reply: %v", err)
	}
	if _, err := Run(context.Background(), Config{Addr: addr, Conns: 0, Pipeline: 1, Keys: 1, Duration: time.Second}); err == nil {
		t.Error("no error for 0 connections")
	}
}

// A run that polls: INFO about every PollEvery; with BgsaveAt one
// BGSAVE, whose wall time (the fake's save lasts three INFOs) comes back
// even when it outlasts the run.
func TestPollSave(t *testing.T) {
	addr, stop := fakeServer(t, "")
	defer stop()
	for _, c := range []struct {
		dur, at time.Duration
		save    bool
	}{{300 * time.Millisecond, 0, false}, {300 * time.Millisecond, 100 * time.Millisecond, true}, {100 * time.Millisecond, 90 * time.Millisecond, true}} {
		before := infos.Load()
		res, err := Run(context.Background(), Config{Addr: addr, Conns: 2, Pipeline: 1, Keys: 10, Duration: c.dur,
			PollEvery: 20 * time.Millisecond, BgsaveAt: c.at})
		if err != nil {
			t.Fatal(err)
		}
		polls := infos.Load() - before
		if want := int64(c.dur / (20 * time.Millisecond)); polls < want/2 || polls > want+5 {
			t.Errorf("%v: %d INFOs, want about %d", c, polls, want)
		}
		if got := res.SaveSeconds; c.save != (got > 0) || c.save && (got < 0.03 || got > 5) {
			t.Errorf("%v: save took %v s, want about 0.06", c, got)
		}
		if c.save && c.at+60*time.Millisecond > c.dur && res.Seconds > c.dur.Seconds()+0.05 {
			t.Errorf("%v: the run's seconds %v count the wait for the save", c, res.Seconds)
		}
	}
	if _, err := Run(context.Background(), Config{Addr: addr, Conns: 1, Pipeline: 1, Keys: 1, Duration: time.Second, BgsaveAt: time.Millisecond}); err == nil {
		t.Error("no error for BgsaveAt without PollEvery")
	}
}

// The fake server's INFOs answered, and the INFOs left that show a save
// in progress.
var infos, saving atomic.Int64

// fakeServer answers GET with a bulk string and SET with setReply (+OK if
// ""), BGSAVE and INFO (persistence) as a server whose save lasts three
// INFOs.
func fakeServer(t *testing.T, setReply string) (string, func()) {
	if setReply == "" {
		setReply = "+OK\r\n"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r, w := bufio.NewReader(c), bufio.NewWriter(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					switch line {
					case "GET\r\n":
						w.WriteString("$7\r\nvalue:1\r\n")
					case "SET\r\n":
						w.WriteString(setReply)
					case "BGSAVE\r\n":
						saving.Store(3)
						w.WriteString("+Background saving started\r\n")
					case "INFO\r\n":
						infos.Add(1)
						body := fmt.Sprintf("rdb_bgsave_in_progress:%d\r\nrdb_last_bgsave_status:ok\r\n", min(saving.Add(-1)+1, 1))
						fmt.Fprintf(w, "$%d\r\n%s\r\n", len(body), body)
					}
					if r.Buffered() == 0 {
						w.Flush()
					}
				}
			}()
		}
	}()
	return l.Addr().String(), func() { l.Close() }
}

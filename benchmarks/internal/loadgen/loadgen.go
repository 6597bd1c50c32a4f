package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// hangTime is how long past the end of a run a reply may take.
const hangTime = 30 * time.Second

// Config is one run.
type Config struct {
	Addr     string        `json:"addr"`
	Conns    int           `json:"conns"`
	Pipeline int           `json:"pipeline"`
	Keys     int           `json:"keys"`    // keyspace: key:0 .. key:(Keys-1)
	SetPct   int           `json:"set_pct"` // percent of requests that are SET, the rest GET
	Duration time.Duration `json:"duration"`
	Seed     uint64        `json:"seed"`
	// PollEvery, when set, has one more connection send INFO persistence
	// that often during the run; BgsaveAt (with PollEvery) has it send
	// BGSAVE that far into the run and poll until the save is over (poll.go).
	PollEvery time.Duration `json:"poll_every,omitempty"`
	BgsaveAt  time.Duration `json:"bgsave_at,omitempty"`
}

// Result is what a run did. CPUSeconds is this process's user+system time
// during the run (the client's cost).
type Result struct {
	Requests   int64   `json:"requests"`
	Sets       int64   `json:"sets"`
	Misses     int64   `json:"misses"` // GETs answered nil
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// Round trips of the batches (requests at Pipeline 1), in ms: the
	// median, the 99th percentile and the longest.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
	// SaveSeconds is the wall time of the BGSAVE that Config.BgsaveAt
	// started: from the command to the first INFO that showed it over.
	SaveSeconds float64 `json:"save_seconds,omitempty"`
}

// RPS is requests per second.
func (r Result) RPS() float64 {
	if r.Seconds == 0 {
		return 0
	}
	return float64(r.Requests) / r.Seconds
}

// Run connects Conns connections and runs batches until Duration has
// passed; every connection finishes the batch it is in. An error reply, a
// connection that fails, or ctx ending stops the run with an error; a
// server that stops answering fails the run hangTime after Duration.
func Run(ctx context.Context, c Config) (Result, error) {
	if c.Conns < 1 || c.Pipeline < 1 || c.Keys < 1 || c.SetPct < 0 || c.SetPct > 100 || c.Duration <= 0 ||
		c.PollEvery < 0 || c.BgsaveAt < 0 || c.BgsaveAt > 0 && c.PollEvery == 0 {
		return Result{}, fmt.Errorf("loadgen: bad config %+v", c)
	}
	conns := make([]net.Conn, c.Conns)
	for i := range conns {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", c.Addr)
		if err != nil {
			for _, o := range conns[:i] {
				o.Close()
			}
			return Result{}, err
		}
		conns[i] = conn
	}
	var pl *poller
	if c.PollEvery > 0 {
		var err error
		if pl, err = newPoller(ctx, c); err != nil {
			for _, o := range conns {
				o.Close()
			}
			return Result{}, err
		}
	}
	var (
		wg       sync.WaitGroup
		stop     atomic.Bool
		firstErr error
		errOnce  sync.Once
		total    Result
		lat      Latency
		mu       sync.Mutex
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		stop.Store(true)
	}
	cpu0 := cpuSeconds()
	start := time.Now()
	deadline := start.Add(c.Duration)
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			fail(ctx.Err())
		case <-done:
		}
	}()
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			conn.SetDeadline(deadline.Add(hangTime))
			w := worker{conn: conn, r: bufio.NewReaderSize(conn, 64<<10), cfg: c,
				rng: newRand(c.Seed, i)}
			for !stop.Load() && time.Now().Before(deadline) {
				if err := w.batch(); err != nil {
					fail(err)
					return
				}
			}
			mu.Lock()
			total.Requests += w.res.Requests
			total.Sets += w.res.Sets
			total.Misses += w.res.Misses
			lat.Merge(&w.lat)
			mu.Unlock()
		}()
	}
	polled := make(chan time.Duration, 1)
	if pl != nil {
		go func() {
			took, err := pl.run(start, deadline, stop.Load)
			if err != nil {
				fail(err)
			}
			polled <- took
		}()
	}
	wg.Wait()
	total.Seconds = time.Since(start).Seconds()
	total.CPUSeconds = cpuSeconds() - cpu0
	if pl != nil { // the save may outlast the run
		total.SaveSeconds = (<-polled).Seconds()
	}
	close(done)
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 }
	total.P50Ms, total.P99Ms, total.MaxMs = ms(lat.Quantile(0.5)), ms(lat.Quantile(0.99)), ms(lat.Max())
	if firstErr != nil {
		return total, firstErr
	}
	return total, nil
}

// worker is one connection's state; buf is reused for every batch.
type worker struct {
	conn net.Conn
	r    *bufio.Reader
	cfg  Config
	rng  *rand.Rand
	buf  []byte
	res  Result
	lat  Latency
}

// batch sends Pipeline commands and reads their replies.
func (w *worker) batch() error {
	w.buf = w.buf[:0]
	sets := int64(0)
	for range w.cfg.Pipeline {
		n := w.rng.IntN(w.cfg.Keys)
		if w.cfg.SetPct > 0 && w.rng.IntN(100) < w.cfg.SetPct {
			w.buf = AppendSet(w.buf, n)
			sets++
		} else {
			w.buf = AppendGet(w.buf, n)
		}
	}
	start := time.Now()
	if _, err := w.conn.Write(w.buf); err != nil {
		return err
	}
	for range w.cfg.Pipeline {
		nilReply, err := SkipReply(w.r)
		if err != nil {
			return err
		}
		if nilReply {
			w.res.Misses++
		}
	}
	w.lat.Add(time.Since(start))
	w.res.Requests += int64(w.cfg.Pipeline)
	w.res.Sets += sets
	return nil
}

// AppendGet appends GET key:<n> in RESP.
func AppendGet(b []byte, n int) []byte {
	b = append(b, "*2\r\n$3\r\nGET\r\n"...)
	return appendBulk(b, "key:", n)
}

// AppendSet appends SET key:<n> value:<n> in RESP.
func AppendSet(b []byte, n int) []byte {
	b = append(b, "*3\r\n$3\r\nSET\r\n"...)
	b = appendBulk(b, "key:", n)
	return appendBulk(b, "value:", n)
}

// appendBulk appends the bulk string prefix<n>.
func appendBulk(b []byte, prefix string, n int) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(prefix)+digits(n)), 10)
	b = append(b, "\r\n"...)
	b = append(b, prefix...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "\r\n"...)
}

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// ErrReply is returned by SkipReply for an error reply; the run stops on it.
var ErrReply = errors.New("error reply")

// SkipReply reads one reply of a GET or SET (simple string, integer, bulk
// string, nil) and says whether it was nil. An error reply gives an error
// naming it; arrays and other types are refused.
func SkipReply(r *bufio.Reader) (isNil bool, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return false, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return false, fmt.Errorf("loadgen: bad reply line %q", line)
	}
	switch line[0] {
	case '+', ':':
		return false, nil
	case '-':
		return false, fmt.Errorf("%w: %s", ErrReply, line[1:len(line)-2])
	case '$':
		if string(line) == "$-1\r\n" {
			return true, nil
		}
		n := 0
		for _, c := range line[1 : len(line)-2] {
			if c < '0' || c > '9' || n > 1<<30 {
				return false, fmt.Errorf("loadgen: bad bulk length %q", line)
			}
			n = n*10 + int(c-'0')
		}
		_, err = r.Discard(n + 2)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return false, err
	}
	return false, fmt.Errorf("loadgen: unexpected reply %q", line)
}

// cpuSeconds is this process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// newRand is connection i's key source.
func newRand(seed uint64, i int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(i))) }

// Command track-bench is a closed-loop load of GETs, with client tracking
// on or off: each of -conns connections (RESP3; with -tracking, after
// CLIENT TRACKING ON) sends -pipeline GETs of keys drawn from -keys, reads
// their replies, and sends the next, for -duration. Every key read by a
// tracking connection is remembered by the server. It prints "<GETs per
// second> <GETs>". benchmarks/tracking.sh runs it against redis-server and
// radish-server.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	conns := flag.Int("conns", 50, "connections")
	pipeline := flag.Int("pipeline", 1, "GETs per write")
	keys := flag.Int("keys", 10000, "distinct keys (key:0 ... key:N-1)")
	tracking := flag.Bool("tracking", false, "CLIENT TRACKING ON on every connection")
	duration := flag.Duration("duration", 5*time.Second, "how long to run")
	flag.Parse()
	var total atomic.Int64
	var wg sync.WaitGroup
	var ready sync.WaitGroup
	start := make(chan struct{})
	for i := range *conns {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r := bufio.NewReaderSize(c, 64<<10)
		setup := appendCmd(nil, "HELLO", "3")
		n := 1
		if *tracking {
			setup = appendCmd(setup, "CLIENT", "TRACKING", "ON")
			n++
		}
		if _, err := c.Write(setup); err != nil {
			fail(err)
		}
		for range n {
			if err := skipReply(r); err != nil {
				fail(err)
			}
		}
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			var req []byte
			ready.Done()
			<-start
			deadline := time.Now().Add(*duration)
			got := int64(0)
			for time.Now().Before(deadline) {
				req = req[:0]
				for range *pipeline {
					req = appendCmd(req, "GET", "key:"+strconv.Itoa(rng.IntN(*keys)))
				}
				if _, err := c.Write(req); err != nil {
					fail(err)
				}
				for range *pipeline {
					if err := skipReply(r); err != nil {
						fail(err)
					}
				}
				got += int64(*pipeline)
			}
			total.Add(got)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	wg.Wait()
	secs := time.Since(t0).Seconds()
	fmt.Printf("%.0f %d\n", float64(total.Load())/secs, total.Load())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func appendCmd(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// skipReply reads one reply: a line, a bulk, or an aggregate of them
// (HELLO's map). No key is written while the load runs, so no
// invalidation push arrives.
func skipReply(r *bufio.Reader) error {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short reply %q", line)
	}
	n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
	switch line[0] {
	case '$':
		if n >= 0 {
			_, err = r.Discard(n + 2)
		}
		return err
	case '*', '~', '>':
		for range max(n, 0) {
			if err := skipReply(r); err != nil {
				return err
			}
		}
	case '%':
		for range 2 * n {
			if err := skipReply(r); err != nil {
				return err
			}
		}
	}
	return nil
}

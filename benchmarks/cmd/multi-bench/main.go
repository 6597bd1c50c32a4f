// Command multi-bench is a closed-loop load of MULTI/EXEC blocks: each of
// -conns connections sends -pipeline blocks of MULTI, INCR <key> for each
// of -keys, EXEC, reads their replies, and sends the next, for -duration.
// It prints "<blocks per second> <blocks>". benchmarks/multi.sh runs it
// against redis-server and radish-server (one key; keys on two shards).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	conns := flag.Int("conns", 50, "connections")
	pipeline := flag.Int("pipeline", 1, "MULTI/EXEC blocks per write")
	keys := flag.String("keys", "k k", "the INCRs' keys, space-separated: one INCR each")
	duration := flag.Duration("duration", 5*time.Second, "how long to run")
	flag.Parse()
	ks := strings.Fields(*keys)
	var block []byte
	block = appendCmd(block, "MULTI")
	for _, k := range ks {
		block = appendCmd(block, "INCR", k)
	}
	block = appendCmd(block, "EXEC")
	req := make([]byte, 0, len(block)**pipeline)
	for range *pipeline {
		req = append(req, block...)
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(*duration)
	start := time.Now()
	for range *conns {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			r := bufio.NewReaderSize(c, 64<<10)
			n := int64(0)
			for time.Now().Before(deadline) {
				if _, err := c.Write(req); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				for range *pipeline {
					if err := readBlock(r, len(ks)); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
				}
				n += int64(*pipeline)
			}
			total.Add(n)
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	fmt.Printf("%.0f %d\n", float64(total.Load())/secs, total.Load())
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

// readBlock reads the replies of one block of n INCRs: +OK, n +QUEUED,
// then EXEC's array of n integers.
func readBlock(r *bufio.Reader, n int) error {
	for i := range 2*n + 2 {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		want := byte('+')
		switch {
		case i == n+1:
			want = '*'
		case i > n+1:
			want = ':'
		}
		if len(line) == 0 || line[0] != want {
			return fmt.Errorf("reply %d of a block: %q", i, line)
		}
	}
	return nil
}

// Command group-bench is a closed-loop load of consumer group reads: each
// of -conns connections (consumer c<i> of group -group) sends -pipeline
// XREADGROUP GROUP <group> c<i> COUNT 1 STREAMS <key> >, reads the
// entries they were given, then sends one XACK per entry and reads those
// replies, for -duration or until the stream has nothing new for the
// group. It prints "<entries read and acked per second> <entries>".
// benchmarks/streams.sh runs it against redis-server and radish-server.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
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
	pipeline := flag.Int("pipeline", 1, "XREADGROUPs (then XACKs) per write")
	key := flag.String("key", "s", "the stream")
	group := flag.String("group", "g", "the consumer group (created beforehand)")
	duration := flag.Duration("duration", 5*time.Second, "how long to run")
	flag.Parse()
	var total atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(*duration)
	start := time.Now()
	for i := range *conns {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var req []byte
		for range *pipeline {
			req = appendCmd(req, "XREADGROUP", "GROUP", *group, "c"+strconv.Itoa(i), "COUNT", "1", "STREAMS", *key, ">")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			r := bufio.NewReaderSize(c, 64<<10)
			var acks []byte
			n := int64(0)
			for time.Now().Before(deadline) {
				if _, err := c.Write(req); err != nil {
					fail(err)
				}
				acks = acks[:0]
				got := 0
				for range *pipeline {
					v, err := read(r)
					if err != nil {
						fail(err)
					}
					// [[key, [[id, [field, value ...]] ...]]] or null
					for _, s := range v.elems {
						if len(s.elems) != 2 {
							continue
						}
						for _, e := range s.elems[1].elems {
							if len(e.elems) == 2 {
								acks = appendCmd(acks, "XACK", *key, *group, e.elems[0].str)
								got++
							}
						}
					}
				}
				if got == 0 {
					break // the stream is read to its end
				}
				if _, err := c.Write(acks); err != nil {
					fail(err)
				}
				for range got {
					if v, err := read(r); err != nil || v.kind != ':' {
						fail(fmt.Errorf("XACK: %v %v", v, err))
					}
				}
				n += int64(got)
			}
			total.Add(n)
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
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

// value is a RESP2 reply.
type value struct {
	kind  byte
	str   string
	elems []value
}

// read reads one RESP2 reply.
func read(r *bufio.Reader) (value, error) {
	line, err := r.ReadString('\n')
	if err != nil || len(line) < 3 {
		return value{}, errors.Join(err, errors.New("short reply"))
	}
	v := value{kind: line[0]}
	body := line[1 : len(line)-2]
	switch v.kind {
	case '+', ':':
		v.str = body
	case '-':
		return v, errors.New(body)
	case '$':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return v, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return v, err
		}
		v.str = string(b[:n])
	case '*':
		n, _ := strconv.Atoi(body)
		for range max(n, 0) {
			e, err := read(r)
			if err != nil {
				return v, err
			}
			v.elems = append(v.elems, e)
		}
	default:
		return v, fmt.Errorf("reply %q", line)
	}
	return v, nil
}

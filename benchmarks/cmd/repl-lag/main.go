// Command repl-lag measures replication lag as time: every -every it
// writes SET <key> <seq> on the primary, and it reads GET <key> on the
// replica in a tight loop; a write's lag is the time from sending its
// SET to first reading its seq (or a later one) on the replica. It runs
// for -duration (or until stdin closes with -stdin) and prints
// "<samples> <p50 ms> <p99 ms> <max ms>". benchmarks/repl.sh runs it
// while redis-benchmark loads the primary.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	primary := flag.String("primary", "127.0.0.1:6379", "the primary's address")
	replica := flag.String("replica", "127.0.0.1:6380", "the replica's address")
	key := flag.String("key", "repl-lag:probe", "the probe's key")
	every := flag.Duration("every", 10*time.Millisecond, "how often a probe is written")
	duration := flag.Duration("duration", 10*time.Second, "how long to run")
	stdin := flag.Bool("stdin", false, "run until stdin closes instead of for -duration")
	flag.Parse()
	p, err := dial(*primary)
	check(err)
	r, err := dial(*replica)
	check(err)
	stop := make(chan struct{})
	if *stdin {
		go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	} else {
		time.AfterFunc(*duration, func() { close(stop) })
	}
	var mu sync.Mutex
	sent := map[int64]time.Time{}
	var lags []time.Duration
	done := make(chan struct{})
	go func() { // the replica's side
		defer close(done)
		seen := int64(0)
		for {
			select {
			case <-stop:
				return
			default:
			}
			v, err := r.do("GET", *key)
			check(err)
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= seen {
				continue
			}
			now := time.Now()
			mu.Lock()
			for s := seen + 1; s <= n; s++ {
				if t, ok := sent[s]; ok {
					lags = append(lags, now.Sub(t))
					delete(sent, s)
				}
			}
			mu.Unlock()
			seen = n
		}
	}()
	t := time.NewTicker(*every)
	defer t.Stop()
	for seq := int64(1); ; seq++ {
		select {
		case <-stop:
			<-done
			report(lags)
			return
		case <-t.C:
		}
		mu.Lock()
		sent[seq] = time.Now()
		mu.Unlock()
		_, err := p.do("SET", *key, strconv.FormatInt(seq, 10))
		check(err)
	}
}

func report(lags []time.Duration) {
	if len(lags) == 0 {
		fmt.Println("0 n/a n/a n/a")
		return
	}
	slices.Sort(lags)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }
	fmt.Println(len(lags), ms(lags[len(lags)/2]), ms(lags[min(len(lags)-1, len(lags)*99/100)]), ms(lags[len(lags)-1]))
}

type client struct {
	c  net.Conn
	br *bufio.Reader
}

func dial(addr string) (*client, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &client{c: c, br: bufio.NewReader(c)}, nil
}

// do sends one command and returns a bulk or simple reply's text ("" for
// a nil bulk).
func (c *client) do(args ...string) (string, error) {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"+a+"\r\n"...)
	}
	if _, err := c.c.Write(b); err != nil {
		return "", err
	}
	line, err := c.br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	switch {
	case line == "" || line[0] == '-':
		return "", fmt.Errorf("reply %q", line)
	case line[0] == '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "", nil
		}
		v := make([]byte, n+2)
		if _, err := io.ReadFull(c.br, v); err != nil {
			return "", err
		}
		return string(v[:n]), nil
	}
	return line[1:], nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "repl-lag:", err)
		os.Exit(1)
	}
}

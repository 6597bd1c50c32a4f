package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readFrame reads one RESP array of bulk strings (a message, or a
// subscription's confirmation, whose count is an integer) from r.
func readFrame(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || (line[0] != '*' && line[0] != '>') {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		h, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if h[0] == ':' {
			out[i] = strings.TrimSpace(h[1:])
			continue
		}
		l, err := strconv.Atoi(strings.TrimSpace(h[1:]))
		if err != nil {
			return nil, fmt.Errorf("bad bulk header %q", h)
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		out[i] = string(b[:l])
	}
	return out, nil
}

// TestPubSubLoad: 1,000 subscribers (a quarter of them on a pattern)
// spread by the kernel over four shards, and publishers on every shard
// (32, and more until the metrics show a publish on each shard)
// publishing at once; every subscriber receives every message of every
// publisher exactly once, in that publisher's order. Meanwhile 8
// subscribers that stop reading get 64 KB messages on another channel:
// each is cut at its client-output-buffer-limit (the publisher's count
// falls to 0, the log says why), and the server's RSS stays bounded (its
// peak is logged): far below what the messages would hold uncut.
func TestPubSubLoad(t *testing.T) {
	const subs, slow, minPubs, perPub, shards = 1000, 8, 32, 50, 4
	mport := freePort(t)
	s := start(t, "--shards", strconv.Itoa(shards), "--maxclients", "2000", "--metrics-port", strconv.Itoa(mport),
		"--client-output-buffer-limit", "pubsub", "1mb", "256kb", "1")
	type sub struct {
		c net.Conn
		r *bufio.Reader
	}
	all := make([]sub, subs)
	for i := range all {
		c := s.raw()
		c.SetDeadline(time.Now().Add(2 * time.Minute))
		if i%4 == 3 {
			fmt.Fprint(c, "PSUBSCRIBE lo*\r\n")
		} else {
			fmt.Fprint(c, "SUBSCRIBE load\r\n")
		}
		all[i] = sub{c, bufio.NewReaderSize(c, 64<<10)}
	}
	for i, sb := range all {
		if f, err := readFrame(sb.r); err != nil || len(f) != 3 || !strings.HasSuffix(f[0], "subscribe") {
			t.Fatalf("subscriber %d: %q %v", i, f, err)
		}
	}
	if got := s.cli("PUBSUB", "NUMSUB", "load"); !strings.Contains(got, strconv.Itoa(subs-subs/4)) {
		t.Fatalf("PUBSUB NUMSUB load: %s", got)
	}
	for i := range slow {
		c := dialSlow(t, s.addr)
		fmt.Fprint(c, "SUBSCRIBE flood\r\n")
		if f, err := readFrame(bufio.NewReader(c)); err != nil || len(f) != 3 {
			t.Fatalf("slow subscriber %d: %q %v", i, f, err)
		}
	}
	// The publishers, each publishing once to a channel no one hears,
	// until every shard ran a publish.
	var pubConns []net.Conn
	for {
		c := s.raw()
		c.SetDeadline(time.Now().Add(2 * time.Minute))
		if _, err := io.WriteString(c, "PUBLISH warm x\r\n"); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != ":0\r\n" {
			t.Fatalf("warm-up publish: %q %v", line, err)
		}
		pubConns = append(pubConns, c)
		if len(pubConns) < minPubs {
			continue
		}
		body, covered := scrape(t, mport), 0
		for sh := range shards {
			if sum(t, body, `radish_command_calls_total\{cmd="publish",shard="`+strconv.Itoa(sh)+`"\}`) > 0 {
				covered++
			}
		}
		if covered == shards {
			break
		}
		if len(pubConns) == 4*minPubs {
			t.Fatalf("%d publishers, publishes on %d shards of %d", len(pubConns), covered, shards)
		}
	}
	pubs := len(pubConns)
	var wg sync.WaitGroup
	errs := make(chan error, subs+pubs)
	for i, sb := range all {
		wg.Go(func() {
			next := make([]int, pubs) // the next sequence number expected from each publisher
			for range pubs * perPub {
				f, err := readFrame(sb.r)
				if err != nil {
					errs <- fmt.Errorf("subscriber %d: %v", i, err)
					return
				}
				var p, seq int
				if _, err := fmt.Sscanf(f[len(f)-1], "p%d:%d", &p, &seq); err != nil || p >= pubs {
					errs <- fmt.Errorf("subscriber %d: message %q", i, f)
					return
				}
				if seq != next[p] {
					errs <- fmt.Errorf("subscriber %d: publisher %d's message %d after %d", i, p, seq, next[p]-1)
					return
				}
				next[p]++
			}
		})
	}
	base := s.rss()
	for p, c := range pubConns {
		wg.Go(func() {
			r := bufio.NewReader(c)
			for seq := 0; seq < perPub; seq += 10 {
				var b strings.Builder
				for k := seq; k < seq+10; k++ {
					msg := fmt.Sprintf("p%d:%d", p, k)
					fmt.Fprintf(&b, "*3\r\n$7\r\nPUBLISH\r\n$4\r\nload\r\n$%d\r\n%s\r\n", len(msg), msg)
				}
				if _, err := io.WriteString(c, b.String()); err != nil {
					errs <- err
					return
				}
				for range 10 {
					line, err := r.ReadString('\n')
					if err != nil {
						errs <- err
						return
					}
					if line != ":"+strconv.Itoa(subs)+"\r\n" {
						errs <- fmt.Errorf("publisher %d: PUBLISH replied %q, want %d receivers", p, line, subs)
						return
					}
				}
			}
		})
	}
	// The flood, 400 MB if the slow subscribers were never cut.
	flood := s.raw()
	flood.SetDeadline(time.Now().Add(2 * time.Minute))
	floodR := bufio.NewReader(flood)
	big := fmt.Sprintf("*3\r\n$7\r\nPUBLISH\r\n$5\r\nflood\r\n$%d\r\n%s\r\n", 64<<10, strings.Repeat("x", 64<<10))
	peak, left, sent := base, int64(slow), 0
	for ; sent < 800 && left > 0; sent++ {
		if _, err := io.WriteString(flood, big); err != nil {
			t.Fatal(err)
		}
		line, err := floodR.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if left, err = strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, ":")), 10, 64); err != nil {
			t.Fatalf("flood PUBLISH replied %q", line)
		}
		if sent%8 == 0 {
			peak = max(peak, s.rss())
		}
	}
	if left > 0 {
		t.Fatalf("%d of the %d slow subscribers still receive after %d messages of 64 KB", left, slow, sent)
	}
	wg.Wait()
	peak = max(peak, s.rss())
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d publishers; slow subscribers cut after %d messages of 64 KB; RSS %d MB before, peak %d MB",
		pubs, sent, base>>20, peak>>20)
	if peak-base > 128<<20 {
		t.Errorf("RSS grew by %d MB", (peak-base)>>20)
	}
	waitLog(t, s, "exceeded its output buffer limit")
	// Nothing more arrives: no duplicate.
	for i, sb := range all[:50] {
		sb.c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if f, err := readFrame(sb.r); err == nil {
			t.Fatalf("subscriber %d got one more: %q", i, f)
		}
	}
}

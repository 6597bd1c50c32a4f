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
// spread by the kernel over four shards, and 32 publishers (so that every
// shard has some) publishing at once; every subscriber receives every
// message of every publisher exactly once, in that publisher's order.
func TestPubSubLoad(t *testing.T) {
	const subs, pubs, perPub, shards = 1000, 32, 50, 4
	s := start(t, "--shards", strconv.Itoa(shards), "--maxclients", "2000")
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
	for p := range pubs {
		c := s.raw()
		c.SetDeadline(time.Now().Add(2 * time.Minute))
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
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Nothing more arrives: no duplicate.
	for i, sb := range all[:50] {
		sb.c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if f, err := readFrame(sb.r); err == nil {
			t.Fatalf("subscriber %d got one more: %q", i, f)
		}
	}
}

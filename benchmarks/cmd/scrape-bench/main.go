// Command scrape-bench measures how long a Prometheus scrape of a
// radish-server's /metrics takes while it holds many idle connections:
// it opens -conns connections (each answers one PING, then stays idle),
// then fetches the metrics -scrapes times, one after another, and prints
// the scrapes' median, p99 and worst latency and the body's size:
//
//	conns=10000 scrapes=50 p50_ms=4.1 p99_ms=9.8 max_ms=10.2 bytes=181234
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the server's address")
	metrics := flag.String("metrics", "http://127.0.0.1:9121/metrics", "the metrics URL")
	conns := flag.Int("conns", 10000, "idle connections to hold")
	scrapes := flag.Int("scrapes", 50, "scrapes to time")
	flag.Parse()
	held := make([]net.Conn, 0, *conns)
	for range *conns {
		c, err := net.DialTimeout("tcp", *addr, 10*time.Second)
		if err != nil {
			log.Fatalf("after %d connections: %v", len(held), err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "PING\r\n"); err != nil {
			log.Fatal(err)
		}
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "+PONG\r\n" {
			log.Fatalf("PING: %q %v", line, err)
		}
		held = append(held, c)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	var took []time.Duration
	size := 0
	for range *scrapes {
		t0 := time.Now()
		resp, err := client.Get(*metrics)
		if err != nil {
			log.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			log.Fatalf("scrape: %s %v", resp.Status, err)
		}
		took = append(took, time.Since(t0))
		size = len(b)
	}
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("conns=%d scrapes=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f bytes=%d\n", len(held), len(took),
		ms(took[len(took)/2]), ms(took[len(took)*99/100]), ms(took[len(took)-1]), size)
	for _, c := range held {
		c.Close()
	}
}

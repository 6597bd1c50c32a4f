//go:build linux

package ioloop

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// BenchmarkPingPong: one connection, one request in flight (latency bound:
// mostly loopback TCP and scheduling).
func BenchmarkPingPong(b *testing.B) {
	for _, c := range ctors[:2] {
		b.Run(c.name, func(b *testing.B) {
			benchPipeline(b, c.new, 1)
		})
	}
}

// BenchmarkPipelined: one connection, 64 requests per write (loop bound).
// One op is one request.
func BenchmarkPipelined(b *testing.B) {
	for _, c := range ctors[:2] {
		b.Run(c.name, func(b *testing.B) {
			benchPipeline(b, c.new, 64)
		})
	}
}

func benchPipeline(b *testing.B, nd func(Options) (Driver, error), depth int) {
	s := startServer(b, nd, Options{})
	conn := s.dial()
	defer conn.Close()
	conn.SetDeadline(time.Time{})
	req := bytes.Repeat([]byte("PING\r\n"), depth)
	resp := make([]byte, 7*depth)
	round := func() {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(conn, resp); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 100; i++ {
		round()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += depth {
		round()
	}
	b.StopTimer()
	if string(resp[:7]) != "+PONG\r\n" {
		b.Fatalf("bad reply %q", resp[:7])
	}
}

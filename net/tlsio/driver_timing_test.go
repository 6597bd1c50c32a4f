//go:build linux

package tlsio

import (
	"crypto/tls"
	"io"
	"strconv"
	"testing"
	"time"
)

// BenchmarkEcho: round trips of a Go TLS client through the driver's
// echo handler, unpipelined (a small request and its reply, one record
// each way) and in 64 KB batches; allocations are the client's and the
// server's together (crypto/tls's client allocates once per record it
// reads).
func BenchmarkEcho(b *testing.B) {
	cert, pool := testCert(b)
	for _, dr := range drivers {
		for _, size := range []int{16, 64 << 10} {
			b.Run(dr.name+"/"+strconv.Itoa(size), func(b *testing.B) {
				_, secure, _ := serve(b, dr.new, cert, 5*time.Second)
				c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(secure), &tls.Config{RootCAs: pool})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				msg, got := make([]byte, size), make([]byte, size)
				c.SetDeadline(time.Now().Add(time.Minute))
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if _, err := c.Write(msg); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(c, got); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

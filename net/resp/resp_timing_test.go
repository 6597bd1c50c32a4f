//go:build unix

package resp

import (
	"strconv"
	"syscall"
	"testing"
)

// cpuTimer reports process CPU time per op as "cpu-ns/op" next to the
// wall-clock ns/op: on a shared machine the wall clock also counts the
// time other processes held our core.
func cpuTimer(b *testing.B) func() {
	cpu := func() int64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}

var sinkArgs [][]byte

func benchParse(b *testing.B, buf []byte, cmds int) {
	var r Reader
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		pos := 0
		for i := 0; i < cmds; i++ {
			args, n, err := r.Next(buf[pos:])
			if n == 0 || err != nil {
				b.Fatal(n, err)
			}
			sinkArgs = args
			pos += n
		}
	}
}

func BenchmarkParseSET(b *testing.B) {
	benchParse(b, []byte("*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000001\r\n$16\r\nvalue:0000000001\r\n"), 1)
}

func BenchmarkParseGET(b *testing.B) {
	benchParse(b, []byte("*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000001\r\n"), 1)
}

func BenchmarkParseInline(b *testing.B) {
	benchParse(b, []byte("SET key:000000000001 value:0000000001\r\n"), 1)
}

// BenchmarkParsePipeline32: 32 SET/GET commands in one buffer, as
// redis-benchmark -P 32 sends them.
func BenchmarkParsePipeline32(b *testing.B) {
	var buf []byte
	for i := 0; i < 16; i++ {
		k := []byte("key:" + strconv.Itoa(100000000000+i))
		buf = AppendCommand(buf, []byte("SET"), k, []byte("value:0000000001"))
		buf = AppendCommand(buf, []byte("GET"), k)
	}
	benchParse(b, buf, 32)
}

// BenchmarkReparseIncomplete measures what the stateless parser pays per
// call for a big command still arriving: 10000 arguments parsed, then
// "incomplete".
func BenchmarkReparseIncomplete(b *testing.B) {
	args := make([][]byte, 10001)
	for i := range args {
		args[i] = []byte("member:" + strconv.Itoa(i))
	}
	buf := AppendCommand(nil, args...)
	buf = buf[:len(buf)-3]
	var r Reader
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, n, err := r.Next(buf); n != 0 || err != nil {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkWriteBulk(b *testing.B) {
	w := Writer{B: make([]byte, 0, 1024)}
	v := []byte("value:0000000001")
	b.ReportAllocs()
	defer cpuTimer(b)()
	for b.Loop() {
		w.B = w.B[:0]
		w.Bulk(v)
	}
}

func BenchmarkWriteInt(b *testing.B) {
	w := Writer{B: make([]byte, 0, 1024)}
	b.ReportAllocs()
	defer cpuTimer(b)()
	for b.Loop() {
		w.B = w.B[:0]
		w.Int(1234567)
	}
}

func BenchmarkWriteSimple(b *testing.B) {
	w := Writer{B: make([]byte, 0, 1024)}
	b.ReportAllocs()
	defer cpuTimer(b)()
	for b.Loop() {
		w.B = w.B[:0]
		w.Simple("OK")
	}
}

func BenchmarkWriteDouble(b *testing.B) {
	for _, proto := range []int{2, 3} {
		b.Run("RESP"+strconv.Itoa(proto), func(b *testing.B) {
			w := Writer{B: make([]byte, 0, 1024), Proto: proto}
			b.ReportAllocs()
			defer cpuTimer(b)()
			for b.Loop() {
				w.B = w.B[:0]
				w.Double(3.14159)
			}
		})
	}
}

func BenchmarkReadReply(b *testing.B) {
	var w Writer
	w.Array(16)
	for i := 0; i < 16; i++ {
		w.BulkString("value:0000000001")
	}
	buf := w.B
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, n, err := ReadReply(buf); n != len(buf) || err != nil {
			b.Fatal(n, err)
		}
	}
}

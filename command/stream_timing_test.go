package command

import (
	"strconv"
	"testing"
)

// BenchmarkXReadGroupAck: one XREADGROUP GROUP g c<i> COUNT 1 STREAMS s >
// and the XACK of the entry it got, consumers c0..c49 in turn (as
// benchmarks/streams.sh's group-bench runs them), over a stream of b.N
// entries of one field.
func BenchmarkXReadGroupAck(b *testing.B) {
	env := newScriptEnv()
	defer env.store.Close()
	id := func(i int) string { return strconv.Itoa(i+1) + "-0" }
	for i := range b.N {
		env.run(words("XADD", "s", id(i), "f", "v"))
	}
	env.run(words("XGROUP", "CREATE", "s", "g", "0"))
	var reads [50][][]byte
	for i := range reads {
		reads[i] = words("XREADGROUP", "GROUP", "g", "c"+strconv.Itoa(i), "COUNT", "1", "STREAMS", "s", ">")
	}
	ack := words("XACK", "s", "g", "")
	var idBuf []byte
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuTimer(b)()
	for i := range b.N {
		if r := env.run(reads[i%50]); r[0] != '*' || r[1] == '-' {
			b.Fatalf("%q", r)
		}
		idBuf = append(strconv.AppendInt(idBuf[:0], int64(i+1), 10), "-0"...)
		ack[3] = idBuf
		if r := env.run(ack); string(r) != ":1\r\n" {
			b.Fatalf("%q", r)
		}
	}
}

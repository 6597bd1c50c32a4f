package shard

import (
	"fmt"
	"syscall"
	"testing"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/aof"
)

// BenchmarkPipelinedSetAOF is a pipeline of 32 SETs of 16-byte keys and
// 3-byte values (redis-benchmark -t set -P 32's requests) on one shard,
// one loop turn each pipeline, without an AOF and with one in a temporary
// directory under appendfsync everysec, no and always (each turn's
// replies are released by a later turn once the disk has them; the loop
// does not wait): the difference is what logging a SET costs. cpu-ns/cmd
// is the process's CPU time (every thread's: the Log's writer too, as on
// a server given one core); cmds/write and cmds/fsync are how many SETs
// one write system call and one fsync covered.
func BenchmarkPipelinedSetAOF(b *testing.B) {
	for _, policy := range []string{"off", "everysec", "no", "always"} {
		b.Run("appendfsync="+policy, func(b *testing.B) {
			m := newSim(b, 1, 1)
			s := m.g.shards[0]
			if policy != "off" {
				if err := m.g.conf.Set([][2]string{{"appendfsync", policy}}); err != nil {
					b.Fatal(err)
				}
				set, err := aof.Open(aof.Options{Dir: b.TempDir(), Name: "appendonly.aof", Shards: 1, Fsync: policy, Log: zap.NewNop()})
				if err != nil {
					b.Fatal(err)
				}
				if err := set.Start(func(int) {}); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { set.Close() })
				s.attachAOF(set.Log(0))
				s.aof.set = set
			}
			cpu0 := cpuTime()
			pipelinedSets(b, m)
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*32), "cpu-ns/cmd")
			if set := s.aof.set; set != nil {
				logged, writes, fsyncs := set.Counts()
				b.ReportMetric(float64(logged)/float64(max(writes, 1)), "cmds/write")
				b.ReportMetric(float64(logged)/float64(max(fsyncs, 1)), "cmds/fsync")
			}
		})
	}
}

// pipelinedSets runs the benchmark's loop on shard 0 of m: each
// iteration one pipeline of 32 SETs of 16-byte keys and 3-byte values
// (redis-benchmark -t set -P 32's requests) from one connection, one loop
// turn, the replies dropped; it reports ns/cmd and allocations.
func pipelinedSets(b *testing.B, m *sim) {
	s, d := m.g.shards[0], m.drv[0]
	c := m.dial(0)
	s.Turn(m.now)
	var w resp.Writer
	for i := range 32 {
		w.Array(3)
		w.BulkString("SET")
		w.BulkString(fmt.Sprintf("key:%012d", i))
		w.BulkString("xxx")
	}
	req := w.B
	b.ReportAllocs()
	for b.Loop() {
		d.in[c.id] = req
		s.OnData(c.id)
		s.Turn(m.now)
		out := d.Output(c.id)
		*out = (*out)[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/cmd")
}

// cpuTime is the process's user and system CPU time in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

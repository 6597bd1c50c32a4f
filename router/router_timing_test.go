package router

import (
	"testing"

	"github.com/radish-kv/radish/command"
)

var sink int

func BenchmarkShardOf(b *testing.B) {
	key := []byte("{user1000}:profile:settings")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sink += ShardOf(key, 16)
	}
}

func BenchmarkSplitMSET(b *testing.B) {
	var s Splitter
	args := bs("mset k1 v1 k2 v2 k3 v3 k4 v4 k5 v5 k6 v6 k7 v7 k8 v8 k9 v9 k10 v10")
	idx := make([]int, 0, 16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		idx, _ = mset.Keys(args, idx[:0])
		parts := s.Split(mset, args, idx, 16)
		sink += len(parts)
	}
}

func BenchmarkSplitGET(b *testing.B) {
	var s Splitter
	args := bs("get somekey")
	idx := make([]int, 0, 4)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		idx, _ = get.Keys(args, idx[:0])
		parts := s.Split(get, args, idx, 16)
		sink += len(parts)
	}
}

func BenchmarkPlan(b *testing.B) {
	for _, bc := range []struct {
		name string
		args string
		n    int
	}{
		{"GET/1", "get somekey", 1},
		{"GET/16", "get somekey", 16},
		{"MSET10/16", "mset k1 v1 k2 v2 k3 v3 k4 v4 k5 v5 k6 v6 k7 v7 k8 v8 k9 v9 k10 v10", 16},
	} {
		args := bs(bc.args)
		spec, _ := command.Resolve(args)
		b.Run(bc.name, func(b *testing.B) {
			var p Planner
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink += int(p.Plan(spec, args, 0, bc.n).Kind)
			}
		})
	}
}

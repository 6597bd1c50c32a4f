//go:build !amd64

package shard

// haveTSC: without an assembly reading of a cycle counter, ticks is
// nanotime.
const haveTSC = false

func rdtsc() int64 { return 0 }

package shard

// haveTSC: the CPU has a time-stamp counter (rdtsc).
const haveTSC = true

// rdtsc reads the time-stamp counter (ticks_amd64.s).
func rdtsc() int64

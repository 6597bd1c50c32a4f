package shard

import (
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/radish-kv/radish/command"
)

// The latency monitor (LATENCY LATEST, HISTORY, RESET, GRAPH, DOCTOR):
// while latency-monitor-threshold is above 0, a command that ran at least
// that many milliseconds is a "command" event ("fast-command" for a row
// flagged fast), and an active-expiry slice as long an "expire-cycle"
// event, as in Redis. Events are rare by definition, so every shard files
// them in one table of the group under its mutex, kept as Redis keeps
// them: per event the last 160 samples, one per second (the worst of that
// second), and the worst ever.

// latencySamples is how many samples an event keeps (LATENCY_TS_LEN).
const latencySamples = 160

// latencySeries is one event's samples.
type latencySeries struct {
	samples [latencySamples]command.LatencySample
	idx     int
	max     int64
}

// latencyMonitor is the group's table of events.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencySeries
}

// latencyEvent files a sample of ms milliseconds for event at unix
// second now, as Redis's latencyAddSample.
func (g *Group) latencyEvent(event string, ms, now int64) {
	m := &g.latmon
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencySeries{}
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.idx+latencySamples-1)%latencySamples]
	if prev.Time == now {
		prev.Ms = max(prev.Ms, ms)
		return
	}
	ts.samples[ts.idx] = command.LatencySample{Time: now, Ms: ms}
	ts.idx = (ts.idx + 1) % latencySamples
}

// slowCommand files a command of duration d as a latency event when it
// reaches latency-monitor-threshold.
func (s *Shard) slowCommand(spec *command.Spec, d time.Duration) {
	if ms := d.Milliseconds(); ms >= s.conf.LatencyMonitorThreshold {
		event := "command"
		if spec.Flags&command.Fast != 0 {
			event = "fast-command"
		}
		s.group.latencyEvent(event, ms, s.group.clock().Unix())
	}
}

// expireLatency files an active-expiry slice of duration d as an
// "expire-cycle" event when it reaches latency-monitor-threshold.
func (s *Shard) expireLatency(d time.Duration) {
	if t := s.conf.LatencyMonitorThreshold; t > 0 && d.Milliseconds() >= t {
		s.group.latencyEvent("expire-cycle", d.Milliseconds(), s.group.clock().Unix())
	}
}

// LatencyEvents implements command.Server: every event's samples, oldest
// first, and its worst, by event name.
func (g *Group) LatencyEvents() []command.LatencyEvent {
	m := &g.latmon
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]command.LatencyEvent, 0, len(m.events))
	for _, name := range slices.Sorted(maps.Keys(m.events)) {
		ts := m.events[name]
		e := command.LatencyEvent{Name: name, Max: ts.max}
		for j := range latencySamples {
			if sm := ts.samples[(ts.idx+j)%latencySamples]; sm.Time != 0 {
				e.Samples = append(e.Samples, sm)
			}
		}
		out = append(out, e)
	}
	return out
}

// LatencyReset implements command.Server: it forgets the events named
// (every event when none is) and returns how many it forgot.
func (g *Group) LatencyReset(events []string) int {
	m := &g.latmon
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.events)
		clear(m.events)
		return n
	}
	n := 0
	for _, e := range events {
		if _, ok := m.events[e]; ok {
			delete(m.events, e)
			n++
		}
	}
	return n
}

// LatencyHistograms implements command.Server: the command rows named
// (every row with calls when names is nil), with their calls and
// cumulative counts per Redis bucket. A shard times one call in
// latencyEvery: the counts are the timed calls' scaled to every call.
// latency-tracking no hides them from INFO only: they also serve INFO
// commandstats.
func (g *Group) LatencyHistograms(names []string) []command.CmdLatency {
	rows := command.Rows()
	var ids []int
	if names == nil {
		for id := range rows {
			ids = append(ids, id)
		}
	} else {
		for _, n := range names {
			spec := command.LookupFull([]byte(n))
			if spec == nil {
				continue
			}
			ids = append(ids, spec.ID())
			for _, sub := range spec.Sub {
				ids = append(ids, sub.ID())
			}
		}
	}
	var out []command.CmdLatency
	for _, id := range ids {
		var calls int64
		var timed uint64
		var buckets [latBuckets]uint64
		for _, s := range g.shards {
			calls += s.stats.pub.calls[id].Load()
			h := &s.stats.lat[id]
			timed += h.count.Load()
			for i := range buckets {
				buckets[i] += h.buckets[i].Load()
			}
		}
		if calls == 0 {
			continue
		}
		out = append(out, command.CmdLatency{Name: rows[id].Name, Calls: calls,
			Buckets: redisBuckets(buckets[:], timed, calls)})
	}
	return out
}

// redisBuckets turns a histogram of timed calls into Redis's LATENCY
// HISTOGRAM buckets: bucket k of ours, durations up to 2^k s, is Redis's
// bucket of durations up to 2^(k+30) ns (labelled 1, 2, 4 ... 16, 33,
// 66 ... µs), the first of Redis's holding everything below; the
// counts are cumulative and scaled from timed to calls, and a bucket
// that adds nothing is left out, as Redis leaves it out.
func redisBuckets(b []uint64, timed uint64, calls int64) [][2]int64 {
	if timed == 0 {
		return nil
	}
	scale := float64(calls) / float64(timed)
	var out [][2]int64
	var cum uint64
	prev := int64(0)
	first := -20 - minLatExp // our bucket holding up to 2^-20 s: Redis's 1024 ns
	for i, n := range b {
		cum += n
		if i < first || cum == 0 {
			continue
		}
		c := int64(math.Round(float64(cum) * scale))
		if cum == timed {
			c = calls
		}
		if c > prev {
			out = append(out, [2]int64{redisLabel(i + minLatExp + 30), c})
			prev = c
		}
	}
	return out
}

// redisLabel is the label, in whole µs, Redis's LATENCY HISTOGRAM gives
// its bucket of durations up to 2^n ns: the value its HdrHistogram's
// log iteration (two significant figures, each step's highest
// equivalent value adding 2^-7 of the one before) reaches, 2^n·128/127 ns.
func redisLabel(n int) int64 {
	return (int64(1) << n) * 128 / 127 / 1000
}

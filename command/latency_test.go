package command

import "testing"

// TestLatencyGraph: LATENCY GRAPH of five samples, as redis-server 7.0.15
// drew them.
func TestLatencyGraph(t *testing.T) {
	e := LatencyEvent{Name: "command", Max: 80, Samples: []LatencySample{
		{1796128425, 10}, {1796128426, 50}, {1796128427, 30}, {1796128428, 2}, {1796128429, 80}}}
	want := "command - high 80 ms, low 2 ms (all time high 80 ms)\n" +
		"--------------------------------------------------------------------------------\n" +
		"    #\n o  |\n |o |\no||_|\n     \n65432\nsssss\n"
	if got := latencyGraph(e, 1796128431); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// TestLatencyDoctor: the report of one command event, as redis-server
// 7.0.15 wrote it.
func TestLatencyDoctor(t *testing.T) {
	e := LatencyEvent{Name: "command", Max: 20, Samples: []LatencySample{{100, 20}}}
	conf := map[string]int64{"latency-monitor-threshold": 1, "slowlog-log-slower-than": 10000, "slowlog-max-len": 128, "hz": 10}
	want := "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n" +
		"1. command: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec). Worst all time event 20ms.\n\n" +
		"I have a few advices for you:\n\n" +
		"- Your current Slow Log configuration only logs events that are slower than your configured latency monitor " +
		"threshold. Please use 'CONFIG SET slowlog-log-slower-than 1000'.\n" +
		"- Check your Slow Log to understand what are the commands you are running which are too slow to execute. " +
		"Please check https://redis.io/commands/slowlog for more information.\n" +
		"- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. " +
		"If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects " +
		"into multiple smaller objects.\n"
	if got := latencyDoctor([]LatencyEvent{e}, conf, 100); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

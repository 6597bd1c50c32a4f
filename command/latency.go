package command

import (
	"fmt"
	"strconv"
	"strings"
)

// LATENCY reads the latency monitor's events and the commands' latency
// histograms (shard/latmon.go) through Ctx.Server, on the connection's
// shard, and draws GRAPH and DOCTOR as Redis 7.0 does.

func init() {
	flags := Admin | NoScript | Loading | Stale
	special := []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}
	sub := func(name string, arity int, h Handler, summary, complexity string) *Spec {
		return &Spec{Name: "latency|" + name, Arity: arity, Flags: flags, Handler: h, Tips: special,
			Summary: summary, Group: "server", Complexity: complexity}
	}
	reset := sub("reset", -2, cmdLatencyReset, "Reset latency data for one or more events", "O(1)")
	reset.Tips = []string{"request_policy:all_nodes", "response_policy:all_succeeded"}
	register(&Spec{Name: "latency", Arity: -2, Summary: "A container for latency diagnostics commands",
		Since: "2.8.13", Group: "server", Complexity: "Depends on subcommand.",
		Sub: []*Spec{
			sub("doctor", 2, cmdLatencyDoctor, "Return a human readable latency analysis report.", "O(1)"),
			sub("graph", 3, cmdLatencyGraph, "Return a latency graph for the event.", "O(1)"),
			sub("histogram", -2, cmdLatencyHistogram,
				"Return the cumulative distribution of latencies of a subset of commands or all.",
				"O(N) where N is the number of commands with latency information being retrieved."),
			sub("history", 3, cmdLatencyHistory, "Return timestamp-latency samples for the event.", "O(1)"),
			sub("latest", 2, cmdLatencyLatest, "Return the latest latency samples for all events.", "O(1)"),
			reset,
			{Name: "latency|help", Arity: 2, Flags: Loading | Stale, Handler: cmdLatencyHelp,
				Summary: "Show helpful text about the different subcommands.", Group: "server", Complexity: "O(1)"},
		}})
}

// latencyEvent returns the event named, or false.
func latencyEvent(c *Ctx, name string) (LatencyEvent, bool) {
	for _, e := range c.Server.LatencyEvents() {
		if e.Name == name {
			return e, true
		}
	}
	return LatencyEvent{}, false
}

func cmdLatencyLatest(c *Ctx, args [][]byte) {
	es := c.Server.LatencyEvents()
	c.W.Array(len(es))
	for _, e := range es {
		last := e.Samples[len(e.Samples)-1]
		c.W.Array(4)
		c.W.BulkString(e.Name)
		c.W.Int(last.Time)
		c.W.Int(last.Ms)
		c.W.Int(e.Max)
	}
}

func cmdLatencyHistory(c *Ctx, args [][]byte) {
	e, _ := latencyEvent(c, string(args[2]))
	c.W.Array(len(e.Samples))
	for _, sm := range e.Samples {
		c.W.Array(2)
		c.W.Int(sm.Time)
		c.W.Int(sm.Ms)
	}
}

func cmdLatencyReset(c *Ctx, args [][]byte) {
	names := make([]string, 0, len(args)-2)
	for _, a := range args[2:] {
		names = append(names, string(a))
	}
	c.W.Int(int64(c.Server.LatencyReset(names)))
}

func cmdLatencyHistogram(c *Ctx, args [][]byte) {
	var names []string
	if len(args) > 2 {
		names = make([]string, 0, len(args)-2)
		for _, a := range args[2:] {
			names = append(names, string(a))
		}
	}
	hs := c.Server.LatencyHistograms(names)
	c.W.Map(len(hs))
	for _, h := range hs {
		c.W.BulkString(h.Name)
		c.W.Map(2)
		c.W.BulkString("calls")
		c.W.Int(h.Calls)
		c.W.BulkString("histogram_usec")
		c.W.Map(len(h.Buckets))
		for _, b := range h.Buckets {
			c.W.Int(b[0])
			c.W.Int(b[1])
		}
	}
}

func cmdLatencyGraph(c *Ctx, args [][]byte) {
	e, ok := latencyEvent(c, string(args[2]))
	if !ok {
		c.W.Error("ERR No samples available for event '" + string(args[2]) + "'")
		return
	}
	c.W.Verbatim("txt", []byte(latencyGraph(e, c.Now/1000)))
}

func cmdLatencyDoctor(c *Ctx, args [][]byte) {
	conf := map[string]int64{}
	for _, kv := range c.Server.ConfigGet([]string{"latency-monitor-threshold", "slowlog-log-slower-than", "slowlog-max-len", "hz"}) {
		conf[kv[0]], _ = strconv.ParseInt(kv[1], 10, 64)
	}
	c.W.Verbatim("txt", []byte(latencyDoctor(c.Server.LatencyEvents(), conf, c.Now/1000)))
}

func cmdLatencyHelp(c *Ctx, args [][]byte) {
	kvHelp(c, args[0], []string{
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.",
	})
}

// latencyDoctor is Redis 7.0's createLatencyReport for the events radish
// records (command, fast-command, expire-cycle), with conf holding
// latency-monitor-threshold, the slow log's settings and hz.
func latencyDoctor(events []LatencyEvent, conf map[string]int64, now int64) string {
	threshold := conf["latency-monitor-threshold"]
	if len(events) == 0 && threshold == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. " +
			"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. " +
			"If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var b strings.Builder
	var slowlogEnabled, slowlogTuning, slowlogInspect, scheduler, hz, largeObjects bool
	advices := 0
	for i, e := range events {
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. " +
				"You don't mind talking about it, do you Dave?\n\n")
		}
		var sum, oldest int64
		for _, sm := range e.Samples {
			sum += sm.Ms
			if oldest == 0 || sm.Time < oldest {
				oldest = sm.Time
			}
		}
		n := int64(len(e.Samples))
		avg := sum / n
		period := max(now-oldest, 1)
		var mad int64
		for _, sm := range e.Samples {
			mad += max(avg-sm.Ms, sm.Ms-avg)
		}
		mad /= n
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.\n",
			i+1, e.Name, n, avg, mad, float64(period)/float64(n), e.Max)
		switch e.Name {
		case "command":
			if conf["slowlog-log-slower-than"] < 0 || conf["slowlog-max-len"] == 0 {
				slowlogEnabled = true
				advices++
			} else if conf["slowlog-log-slower-than"]/1000 > threshold {
				slowlogTuning = true
				advices++
			}
			slowlogInspect, largeObjects = true, true
			advices += 2
		case "fast-command":
			scheduler = true
			advices++
		case "expire-cycle":
			hz, largeObjects = true, true
			advices += 2
		}
	}
	switch {
	case len(events) == 0 && advices == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. " +
			"I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
		return b.String()
	case advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. " +
			"Please use the Redis community to get some help, providing this report in your help request.\n")
		return b.String()
	}
	b.WriteString("\nI have a few advices for you:\n\n")
	if slowlogEnabled {
		fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log "+
			"Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is "+
			"not able to log slow commands execution for you.\n", threshold*1000)
	}
	if slowlogTuning {
		fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency "+
			"monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", threshold*1000)
	}
	if slowlogInspect {
		b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. " +
			"Please check https://redis.io/commands/slowlog for more information.\n")
	}
	if scheduler {
		b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the " +
			"system does not provide Redis CPU time to run for long periods. You should try to:\n" +
			"  1) Lower the system load.\n" +
			"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
			"  3) Check if you have a \"noisy neighbour\" problem.\n" +
			"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
			"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using " +
			"Jemalloc. However this may create fragmentation problems.\n")
	}
	if hz && conf["hz"] < 100 {
		b.WriteString("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' " +
			"configuration parameter to 100 using 'CONFIG SET hz 100'.\n")
	}
	if largeObjects {
		b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. " +
			"If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects " +
			"into multiple smaller objects.\n")
	}
	return b.String()
}

// latencyGraph is LATENCY GRAPH's text for an event at unix second now,
// as Redis's latencyCommandGenSparkeline.
func latencyGraph(e LatencyEvent, now int64) string {
	var b strings.Builder
	var lo, hi int64
	var seq sparkline
	for i, sm := range e.Samples {
		if i == 0 {
			lo, hi = sm.Ms, sm.Ms
		}
		lo, hi = min(lo, sm.Ms), max(hi, sm.Ms)
		seq.add(float64(sm.Ms), agoLabel(now-sm.Time))
	}
	b.WriteString(e.Name + " - high " + itoa(hi) + " ms, low " + itoa(lo) + " ms (all time high " + itoa(e.Max) + " ms)\n")
	b.WriteString(strings.Repeat("-", 80) + "\n")
	seq.render(&b, 80, 4)
	return b.String()
}

// agoLabel is how long ago a sample was, as Redis labels it.
func agoLabel(elapsed int64) string {
	switch {
	case elapsed < 60:
		return itoa(elapsed) + "s"
	case elapsed < 3600:
		return itoa(elapsed/60) + "m"
	case elapsed < 3600*24:
		return itoa(elapsed/3600) + "h"
	}
	return itoa(elapsed/(3600*24)) + "d"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// sparkline is Redis's sparkline.c: samples with labels, drawn in rows
// of characters.
type sparkline struct {
	values   []float64
	labels   []string
	min, max float64
	labelled bool
}

func (q *sparkline) add(v float64, label string) {
	if len(q.values) == 0 {
		q.min, q.max = v, v
	} else if v < q.min {
		q.min = v
	} else if v > q.max {
		q.max = v
	}
	q.values = append(q.values, v)
	q.labels = append(q.labels, label)
	q.labelled = q.labelled || label != ""
}

// render draws the samples columns at a time, rows high, filled (Redis's
// SPARKLINE_FILL).
func (q *sparkline) render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(q.values); j += columns {
		if j != 0 {
			b.WriteByte('\n')
		}
		q.renderRange(b, rows, j, min(columns, len(q.values)-j))
	}
}

func (q *sparkline) renderRange(b *strings.Builder, rows, offset, n int) {
	const charset = "_o#"
	relmax := q.max - q.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(charset) * rows
	chars := make([]byte, n)
	for row, loop := 0, true; loop; {
		loop = false
		for j := range chars {
			chars[j] = ' '
		}
		for j := range n {
			step := int(float64(int((q.values[j+offset]-q.min)*float64(steps))) / relmax)
			step = min(max(step, 0), steps-1)
			if row < rows {
				loop = true
				switch idx := step - (rows-row-1)*len(charset); {
				case idx >= 0 && idx < len(charset):
					chars[j] = charset[idx]
				case idx >= len(charset):
					chars[j] = '|'
				}
				continue
			}
			if q.labelled && row-rows < 1 { // the margin above the labels
				loop = true
				break
			}
			if l := q.labels[j+offset]; len(l) > row-rows-1 {
				loop = true
				chars[j] = l[row-rows-1]
			}
		}
		if loop {
			row++
			b.Write(chars)
			b.WriteByte('\n')
		}
	}
}

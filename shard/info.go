package shard

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// What INFO reports beyond the shards' counters: the instantaneous rates
// (Redis's 16 samples 100 ms apart, taken by shard 0's cron), the peak of
// memory in use, and the memory of the empty stores.

// instSamples is the number of samples a rate averages, as Redis's
// STATS_METRIC_SAMPLES.
const instSamples = 16

// rates are Redis's instantaneous metrics: ops, bytes in and out, bytes
// in and out of replication (the rate* indexes).
type rates struct {
	mu      sync.Mutex
	last    time.Time
	prev    [rateMetrics]int64
	samples [rateMetrics][instSamples]float64 // per second
	idx     int
	peak    int64 // used_memory's peak, bytes
}

// sample takes one sample of the totals at now when 100 ms passed since
// the last one; called by shard 0's cron and by INFO (for the peak).
func (g *Group) sample(now time.Time) {
	t := g.totals()
	r := &g.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	r.peak = max(r.peak, t.mem)
	d := now.Sub(r.last)
	if d < 100*time.Millisecond {
		return
	}
	cur := [rateMetrics]int64{t.cmds, t.netIn, t.netOut, g.replIn.Load(), g.replOut()}
	if !r.last.IsZero() {
		for i := range cur {
			r.samples[i][r.idx] = float64(cur[i]-r.prev[i]) / d.Seconds()
		}
		r.idx = (r.idx + 1) % instSamples
	}
	r.prev, r.last = cur, now
}

// The metrics rates keeps.
const (
	rateOps = iota
	rateNetIn
	rateNetOut
	rateReplIn
	rateReplOut
	rateMetrics
)

// instantaneous returns the average of the samples of metric i.
func (r *rates) instantaneous(i int) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sum float64
	for _, v := range r.samples[i] {
		sum += v
	}
	return sum / instSamples
}

// SetActiveExpire implements command.Server.
func (g *Group) SetActiveExpire(on bool) { g.noActiveExpire.Store(!on) }

// ChangeReplID implements command.Server: a new replication ID, the
// second one cleared, as Redis's changeReplicationId and
// clearReplicationId2.
func (g *Group) ChangeReplID() {
	r := &g.repl
	r.mu.Lock()
	r.replid, r.replid2, r.offset2 = newReplID(), "", -1
	r.mu.Unlock()
}

// replOut is INFO's total_net_repl_output_bytes.
func (g *Group) replOut() int64 {
	n := g.replSent.Load()
	for _, s := range g.shards {
		n += s.stats.pub.replOut.Load()
	}
	return n
}

// totals are sums of every shard's published counters.
type totals struct {
	// netIn and netOut include the replication's bytes, as Redis 7.0's
	// total_net_input_bytes and total_net_output_bytes do: the shards'
	// drivers count what their replicas' connections were sent, and the
	// Group what the replica read and the flows' senders sent.
	cmds, netIn, netOut, mem, mapped int64
	lazyPending, lazyFreed           int64
}

func (g *Group) totals() totals {
	var t totals
	for _, s := range g.shards {
		p := &s.stats.pub
		t.cmds += p.commands.Load()
		t.netIn += p.netIn.Load()
		t.netOut += p.netOut.Load()
		t.mem += p.usedMemory.Load()
		t.mapped += p.slabMapped.Load()
		t.lazyPending += p.lazyPending.Load()
		t.lazyFreed += p.lazyFreed.Load()
	}
	t.netIn, t.netOut = t.netIn+g.replIn.Load(), t.netOut+g.replSent.Load()
	return t
}

// memoryInfo is INFO's memory section.
func (g *Group) memoryInfo(b *strings.Builder) {
	g.sample(g.clock())
	t := g.totals()
	mem, rss := t.mem, rssBytes()
	g.rates.mu.Lock()
	peak := max(g.rates.peak, mem)
	g.rates.mu.Unlock()
	startup := int64(0)
	for _, s := range g.shards {
		startup += s.startMem
	}
	overhead := min(startup, mem)
	dataset := mem - overhead
	net := max(mem-startup, 1)
	conf := g.conf.Snapshot()
	maxmem, policy := conf.MemoryBudget(), conf.MaxMemoryPolicy
	sys := systemMemory()
	scripts, libraries, functions := g.scripts.Counts()
	evalMem, funcMem := g.scripts.Memory()
	// The backlog is the replication's one buffer (replicas read their
	// stream from it); neither it nor the AOF's pending bytes count
	// toward maxmemory.
	backlog := g.backlogBytes()
	clientMem, replicaMem := g.clientsMemory(), int64(0)
	for _, s := range g.shards {
		replicaMem += s.stats.pub.memReplicas.Load()
	}
	aofBuf := uint64(0)
	if set := g.aofSet(); set != nil {
		aofBuf = set.Pending()
	}
	fmt.Fprintf(b, "# Memory\r\nused_memory:%d\r\nused_memory_human:%s\r\nused_memory_rss:%d\r\n"+
		"used_memory_rss_human:%s\r\nused_memory_peak:%d\r\nused_memory_peak_human:%s\r\n"+
		"used_memory_peak_perc:%.2f%%\r\nused_memory_overhead:%d\r\nused_memory_startup:%d\r\n"+
		"used_memory_dataset:%d\r\nused_memory_dataset_perc:%.2f%%\r\n"+
		"allocator_allocated:%d\r\nallocator_active:%d\r\nallocator_resident:%d\r\n"+
		"total_system_memory:%d\r\ntotal_system_memory_human:%s\r\n"+
		"used_memory_scripts_eval:%d\r\nnumber_of_cached_scripts:%d\r\nnumber_of_functions:%d\r\nnumber_of_libraries:%d\r\n"+
		"used_memory_functions:%d\r\nused_memory_scripts:%d\r\nused_memory_scripts_human:%s\r\n"+
		"maxmemory:%d\r\nmaxmemory_human:%s\r\nmaxmemory_policy:%s\r\n"+
		"allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%d\r\nallocator_rss_ratio:%.2f\r\nallocator_rss_bytes:%d\r\n"+
		"rss_overhead_ratio:1.00\r\nrss_overhead_bytes:0\r\n"+ // allocator_resident is the RSS here
		"mem_fragmentation_ratio:%.2f\r\nmem_fragmentation_bytes:%d\r\nmem_not_counted_for_evict:%d\r\n"+
		"mem_replication_backlog:%d\r\nmem_total_replication_buffers:%d\r\nmem_clients_slaves:%d\r\nmem_clients_normal:%d\r\n"+
		"mem_cluster_links:0\r\nmem_aof_buffer:%d\r\n"+
		"mem_allocator:slab\r\nactive_defrag_running:0\r\nlazyfree_pending_objects:%d\r\nlazyfreed_objects:%d\r\n",
		mem, human(mem), rss, human(rss), peak, human(peak),
		float64(mem)*100/float64(max(peak, 1)), overhead, startup,
		dataset, float64(dataset)*100/float64(net),
		mem, t.mapped, rss, sys, human(sys),
		evalMem, scripts, functions, libraries, funcMem, evalMem+funcMem, human(evalMem+funcMem),
		maxmem, human(maxmem), policy,
		ratio(t.mapped, mem), t.mapped-mem, ratio(rss, t.mapped), rss-t.mapped,
		ratio(rss, mem), rss-mem, int64(aofBuf)+backlog, backlog, backlog, replicaMem, clientMem, aofBuf, t.lazyPending, t.lazyFreed)
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// systemMemory is the machine's memory (MemTotal in /proc/meminfo).
func systemMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}

// buildID is INFO's redis_build_id: the first 16 hex digits of the commit
// the binary was built from, "0" when the build does not say.
func buildID() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 16 {
				return s.Value[:16]
			}
		}
	}
	return "0"
}

// osName is INFO's os as Redis prints it: the kernel's name, release and
// machine ("Linux 6.1.0 x86_64").
func osName() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return runtime.GOOS + " " + runtime.GOARCH
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " +
		unix.ByteSliceToString(u.Machine[:])
}

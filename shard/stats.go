package shard

import (
	"fmt"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/metrics"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/pubsub"
)

// shardStats are counters the shard's goroutine bumps; published copies are
// what other goroutines read.
type shardStats struct {
	commands    int64
	connections int64
	rejected    int64
	hops        int64
	txns        int64
	migrated    int64   // connections handed over to another shard (migrate.go)
	blocked     int64   // clients of this shard waiting in a blocking command
	calls       []int64 // per command row (Spec.ID)
	failed      []int64 // per row: calls whose reply was an error
	refused     []int64 // per row: calls refused before they ran (NOAUTH, OOM)
	dirty       []int   // rows whose counts changed since the last publish
	// errs counts error replies by their first word (INFO errorstats);
	// errsMoved: since the last publish.
	errs      map[string]int64
	errsMoved bool
	// untimed counts down the calls until the next timed one; lat holds
	// the timed calls' durations per row (latency.go).
	untimed int
	lat     []latency
	// timeouts counts the blocked clients with a deadline (INFO's
	// clients_in_timeout_table), as nextDeadline last saw them.
	timeouts int64
	// trafficBase is the driver's traffic at the last CONFIG RESETSTAT.
	trafficBase ioloop.Traffic
	// storeAt is what the store looked like when its memory and key counts
	// were last published (publishStats).
	storeAt storeMark
	// at is the counters and millisecond of the last publish; touched:
	// something that moves no counter but may change what is published ran
	// since (an open or close, a message other than a hop, an expiry,
	// eviction or lazy-free slice, the cron): publishStats copies
	// everything only then. A client's bytes need no flag: what they run
	// moves commands (or a refusal, an error reply, a hop).
	at      statMark
	touched bool

	pub published
}

// published is a shard's statistics as of the end of its last loop turn.
// Its slices are made before the shard starts and never replaced.
type published struct {
	commands    atomic.Int64
	connections atomic.Int64
	rejected    atomic.Int64
	hops        atomic.Int64
	txns        atomic.Int64
	migrated    atomic.Int64
	blocked     atomic.Int64
	// tracking: clients of this shard with tracking on, keys and (key,
	// reader) pairs in its table, BCAST prefixes it knows.
	trkClients  atomic.Int64
	trkKeys     atomic.Int64
	trkItems    atomic.Int64
	trkPrefixes atomic.Int64
	expired     atomic.Int64
	evicted     atomic.Int64
	hits        atomic.Int64 // keyspace hits and misses (engine.Stats)
	misses      atomic.Int64
	netIn       atomic.Int64 // bytes received from and sent to clients (the driver's Traffic)
	netOut      atomic.Int64
	timeouts    atomic.Int64
	// memClients and memReplicas are what the normal clients and the
	// replicas' links held at the last sum; evictedClients counts the
	// clients maxmemory-clients evicted (clientevict.go).
	memClients, memReplicas, evictedClients atomic.Int64
	// peakIn and peakOut are the largest input and output a client held
	// in the last peakSlots seconds (clientevict.go).
	peakIn, peakOut atomic.Int64
	// saveKeys and saveTotal are the keys the save in progress wrote and
	// the keys the shard held when it began (snapshot.go's beginSnap).
	saveKeys, saveTotal atomic.Int64
	// cpuSys and cpuUser are the CPU time, in µs, the shard's thread
	// used, read at each cron (threadCPU).
	cpuSys, cpuUser atomic.Int64
	// overSince is when (unix ms) the shard went over its memory budget,
	// 0 while within; overTotal the ms it spent over before (evict).
	overSince, overTotal atomic.Int64
	// replOut counts the bytes handed to replicas' connections and flows
	// on this shard's loop.
	replOut atomic.Int64
	reads   atomic.Int64 // the driver's receives and sends (INFO's total_reads/writes_processed)
	writes  atomic.Int64
	// channels and patterns with subscribers here, sharded channels
	// owned here that have subscribers.
	channels, patterns, shardChannels atomic.Int64
	stalePerc                         atomic.Uint64 // float64 bits
	timeCap                           atomic.Int64  // active expiry cycles that hit their time limit
	usedMemory                        atomic.Int64
	lazyPending                       atomic.Int64 // values and trees the engine frees in slices
	lazyFreed                         atomic.Int64
	slabMapped                        atomic.Int64   // bytes the store's slab mapped
	dirty                             atomic.Uint64  // changes since start (the mutation path's count)
	keys                              []atomic.Int64 // per database
	expires                           []atomic.Int64
	avgTTL                            []atomic.Int64 // ms, the store's estimate (engine.DB.AvgTTL)
	expireNs                          atomic.Int64   // time in active expiry slices
	calls                             []atomic.Int64 // per command row (Spec.ID)
	failed                            []atomic.Int64
	refused                           []atomic.Int64
	// errs is a copy of shardStats.errs, replaced when it moved.
	errs atomic.Pointer[map[string]int64]
}

// count records one executed command for INFO commandstats.
func (st *shardStats) count(spec *command.Spec) {
	id := spec.ID()
	if st.calls[id] == st.pub.calls[id].Load() {
		st.dirty = append(st.dirty, id)
	}
	st.calls[id]++
}

// failedCall records that spec's call, counted already, replied the error
// reply (INFO commandstats failed_calls, errorstats).
func (st *shardStats) failedCall(spec *command.Spec, reply []byte) {
	st.failed[spec.ID()]++
	st.errorReply(reply)
}

// refusedCall records that spec was refused before it ran with the error
// reply (commandstats rejected_calls, errorstats).
func (st *shardStats) refusedCall(spec *command.Spec, reply string) {
	id := spec.ID()
	st.refused[id]++
	st.dirty = append(st.dirty, id)
	st.errorReply([]byte(reply))
}

// errorReply counts an error reply ("-CODE message" or "CODE message") by
// its code, as Redis's errorstats does.
func (st *shardStats) errorReply(reply []byte) {
	if len(reply) > 0 && reply[0] == '-' {
		reply = reply[1:]
	}
	code := reply
	for i, c := range reply {
		if c == ' ' || c == '\r' {
			code = reply[:i]
			break
		}
	}
	if st.errs == nil {
		st.errs = map[string]int64{}
	}
	st.errs[string(code)]++
	st.errsMoved = true
}

// storeMark is what moves when a store's memory or key counts may have
// changed: its writes, live slab blocks, expiries, evictions and lazy
// frees, and the turn's millisecond.
type storeMark struct {
	dirty                   uint64
	live                    int
	expired, evicted, freed int64
	lazy                    int
	now                     int64
}

// statMark is the shard's own counters but hops, and the turn's
// millisecond: what publishStats compares to tell a turn that changed
// nothing, or only sent hops.
type statMark struct {
	commands, connections, rejected, txns, migrated, blocked int64
	dirty                                                    uint64
	now                                                      int64
}

// publishStats copies the counters for other goroutines (INFO) at the end
// of a loop turn, storing only what changed. A lone hop's three turns on
// its connection's shard sent it, wrote its reply out and saw the send
// complete: they changed nothing but the traffic and the hop count, and
// when the counters, the millisecond and the touched flag say so, those
// are all they publish; the turn on the owner that ran it publishes what
// a local command's does. The memory and per-database key counts walk every
// database (a fifth of a loop turn that ran one hop): they are published
// when the store's mark moved, so a turn that only read (a hop's GET)
// skips them, and at least once per millisecond of turns for what no mark
// sees (a scratch buffer grown by a read).
func (s *Shard) publishStats() {
	st := &s.stats
	p := &st.pub
	if s.drv != nil {
		tr := s.drv.Traffic()
		setInt(&p.netIn, tr.In-st.trafficBase.In)
		setInt(&p.netOut, tr.Out-st.trafficBase.Out)
		setInt(&p.reads, tr.Reads-st.trafficBase.Reads)
		setInt(&p.writes, tr.Writes-st.trafficBase.Writes)
	}
	setInt(&p.hops, st.hops)
	setInt(&p.timeouts, st.timeouts)
	at := statMark{st.commands, st.connections, st.rejected, st.txns, st.migrated,
		st.blocked, s.mut.dirty, s.now}
	if !st.touched && at == st.at && len(st.dirty) == 0 && !st.errsMoved {
		return
	}
	st.touched, st.at = false, at
	setInt(&p.commands, st.commands)
	setInt(&p.connections, st.connections)
	setInt(&p.rejected, st.rejected)
	setInt(&p.txns, st.txns)
	setInt(&p.migrated, st.migrated)
	setInt(&p.blocked, st.blocked)
	setInt(&p.trkClients, int64(len(s.trk.tracking)))
	setInt(&p.trkKeys, int64(s.trk.table.Len()))
	setInt(&p.trkItems, int64(s.trk.table.Items()))
	setInt(&p.trkPrefixes, int64(len(s.trk.prefixes)))
	es := s.store.Stats()
	setInt(&p.expired, es.ExpiredKeys)
	setInt(&p.evicted, es.EvictedKeys)
	setInt(&p.hits, es.KeyspaceHits)
	setInt(&p.misses, es.KeyspaceMisses)
	setInt(&p.channels, int64(s.ps.reg.Len(pubsub.Channel)))
	setInt(&p.patterns, int64(s.ps.reg.Len(pubsub.Pattern)))
	setInt(&p.shardChannels, int64(s.ps.owned.Len()))
	setUint(&p.stalePerc, math.Float64bits(es.ExpiredStalePerc))
	setInt(&p.timeCap, es.ExpiredTimeCapReached)
	setInt(&p.slabMapped, s.store.SlabMapped())
	setInt(&p.lazyPending, int64(s.store.LazyPending()))
	setInt(&p.lazyFreed, s.store.LazyFreed())
	setUint(&p.dirty, s.mut.dirty)
	mark := storeMark{s.store.Dirty(), s.store.SlabLive(), es.ExpiredKeys, es.EvictedKeys,
		s.store.LazyFreed(), s.store.LazyPending(), s.now}
	if mark != st.storeAt {
		st.storeAt = mark
		setInt(&p.usedMemory, s.store.UsedMemory())
		for i := range p.keys {
			db := s.store.DB(i)
			setInt(&p.keys[i], int64(db.Len()))
			setInt(&p.expires[i], int64(db.ExpiresLen()))
		}
	}
	for _, id := range st.dirty {
		setInt(&p.calls[id], st.calls[id])
		setInt(&p.failed[id], st.failed[id])
		setInt(&p.refused[id], st.refused[id])
	}
	st.dirty = st.dirty[:0]
	if st.errsMoved {
		errs := make(map[string]int64, len(st.errs))
		for k, v := range st.errs {
			errs[k] = v
		}
		p.errs.Store(&errs)
		st.errsMoved = false
	}
}

// setInt stores v in a unless a holds it already: the load is a plain
// read, the store a fence, and most counters do not move in a turn.
func setInt(a *atomic.Int64, v int64) {
	if a.Load() != v {
		a.Store(v)
	}
}

// setUint is setInt for an atomic.Uint64.
func setUint(a *atomic.Uint64, v uint64) {
	if a.Load() != v {
		a.Store(v)
	}
}

// Info implements command.Server: INFO in Redis's format for the given
// sections ("default", "all", "everything" or names).
func (g *Group) Info(sections []string) string {
	want := map[string]bool{}
	for _, s := range sections {
		want[strings.ToLower(s)] = true
	}
	all := want["all"] || want["everything"]
	def := len(sections) == 0 || want["default"]
	show := func(name string, inDefault bool) bool {
		return want[name] || all || (def && inDefault)
	}
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
	}
	var cmds, conns, rejected, blocked, expired, evicted, hops, txns, migrated int64
	var hits, misses, netIn, netOut, reads, writes, channels, patterns, shardChannels int64
	var stale float64
	var timeCap, expireNs int64
	dbs := g.opts.Databases
	keys := make([]int64, dbs)
	expires := make([]int64, dbs)
	ttlSum := make([]float64, dbs) // avg_ttl times expires, over the shards
	calls := map[string]int64{}
	failed := map[string]int64{}
	refused := map[string]int64{}
	errs := map[string]int64{}
	lat := map[string]metrics.Histogram{}
	var errReplies, trkClients, trkKeys, trkItems, trkPrefixes, timeouts, evictedClients int64
	for _, s := range g.shards {
		p := &s.stats.pub
		trkClients += p.trkClients.Load()
		trkKeys += p.trkKeys.Load()
		trkItems += p.trkItems.Load()
		// Every shard knows every BCAST prefix.
		trkPrefixes = max(trkPrefixes, p.trkPrefixes.Load())
		cmds += p.commands.Load()
		conns += p.connections.Load()
		rejected += p.rejected.Load()
		hops += p.hops.Load()
		txns += p.txns.Load()
		migrated += p.migrated.Load()
		hits += p.hits.Load()
		misses += p.misses.Load()
		netIn += p.netIn.Load()
		reads += p.reads.Load()
		timeouts += p.timeouts.Load()
		evictedClients += p.evictedClients.Load()
		writes += p.writes.Load()
		netOut += p.netOut.Load()
		channels += p.channels.Load()
		patterns += p.patterns.Load()
		shardChannels += p.shardChannels.Load()
		blocked += p.blocked.Load()
		expired += p.expired.Load()
		evicted += p.evicted.Load()
		stale += math.Float64frombits(p.stalePerc.Load()) / float64(len(g.shards))
		timeCap += p.timeCap.Load()
		expireNs += p.expireNs.Load()
		for i := range dbs {
			keys[i] += p.keys[i].Load()
			e := p.expires[i].Load()
			expires[i] += e
			ttlSum[i] += float64(p.avgTTL[i].Load()) * float64(e)
		}
		rows := command.Rows()
		for id := range p.calls {
			n, f, r := p.calls[id].Load(), p.failed[id].Load(), p.refused[id].Load()
			if n > 0 || r > 0 {
				calls[rows[id].Name] += n
				failed[rows[id].Name] += f
				refused[rows[id].Name] += r
			}
			if h := s.stats.lat[id].read(); h.Count > 0 {
				m := lat[rows[id].Name]
				m.Add(h)
				lat[rows[id].Name] = m
			}
		}
		if m := p.errs.Load(); m != nil {
			for k, v := range *m {
				errs[k] += v
				errReplies += v
			}
		}
	}
	netIn, netOut = netIn+g.replIn.Load(), netOut+g.replSent.Load() // as totals
	now := g.clock()
	uptime := int64(now.Sub(g.started).Seconds())
	if show("server", true) {
		sep()
		port := "0"
		if a := g.Addrs(); len(a) > 0 {
			port = a[0][strings.LastIndexByte(a[0], ':')+1:]
		}
		exe, _ := os.Executable()
		// Redis's fields in its order, then Radish's own (go_version,
		// shards). gcc_version is what Redis says when no GCC built it.
		fmt.Fprintf(&b, "# Server\r\nredis_version:"+command.Version+"\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\n"+
			"redis_build_id:%s\r\nredis_mode:standalone\r\nos:%s\r\narch_bits:64\r\nmonotonic_clock:POSIX clock_gettime\r\n"+
			"multiplexing_api:%s\r\natomicvar_api:go-sync-atomic\r\ngcc_version:0.0.0\r\nprocess_id:%d\r\n"+
			"process_supervised:no\r\nrun_id:%s\r\ntcp_port:%s\r\nserver_time_usec:%d\r\n"+
			"uptime_in_seconds:%d\r\nuptime_in_days:%d\r\nhz:%d\r\nconfigured_hz:%d\r\nlru_clock:%d\r\n"+
			"executable:%s\r\nconfig_file:%s\r\nio_threads_active:0\r\ngo_version:%s\r\nshards:%d\r\n",
			buildID(), osName(), g.IOKind(), os.Getpid(), g.runID, port,
			now.UnixMicro(), uptime, uptime/86400, g.cfgHz(), g.cfgHz(), now.Unix()&(1<<24-1),
			exe, g.conf.File(), runtime.Version(), len(g.shards))
		g.shutdownInfo(&b)
	}
	if show("clients", true) {
		sep()
		peakIn, peakOut := g.clientPeaks()
		fmt.Fprintf(&b, "# Clients\r\nconnected_clients:%d\r\ncluster_connections:0\r\nmaxclients:%d\r\n"+
			"client_recent_max_input_buffer:%d\r\nclient_recent_max_output_buffer:%d\r\nblocked_clients:%d\r\n"+
			"tracking_clients:%d\r\nclients_in_timeout_table:%d\r\n",
			g.clients.Load(), g.conf.Snapshot().MaxClients, peakIn, peakOut, blocked, trkClients, timeouts)
	}
	if show("memory", true) {
		sep()
		g.memoryInfo(&b)
	}
	if show("persistence", true) {
		sep()
		// No fork: nothing is copied on write, no child saves.
		fmt.Fprintf(&b, "# Persistence\r\nloading:0\r\nasync_loading:0\r\ncurrent_cow_peak:0\r\ncurrent_cow_size:0\r\n"+
			"current_cow_size_age:0\r\n%s", g.persistenceInfo())
		g.aofInfo(&b)
	}
	if show("stats", true) {
		sep()
		overTotal, overNow := g.evictionExceeded(now.UnixMilli())
		r := &g.rates
		fmt.Fprintf(&b, "# Stats\r\ntotal_connections_received:%d\r\ntotal_commands_processed:%d\r\n"+
			"instantaneous_ops_per_sec:%d\r\ntotal_net_input_bytes:%d\r\ntotal_net_output_bytes:%d\r\n"+
			"total_net_repl_input_bytes:%d\r\ntotal_net_repl_output_bytes:%d\r\n"+
			"instantaneous_input_kbps:%.2f\r\ninstantaneous_output_kbps:%.2f\r\n"+
			"instantaneous_input_repl_kbps:%.2f\r\ninstantaneous_output_repl_kbps:%.2f\r\n"+
			"rejected_connections:%d\r\nsync_full:%d\r\nsync_partial_ok:%d\r\nsync_partial_err:%d\r\nexpired_keys:%d\r\nexpired_stale_perc:%.2f\r\nexpired_time_cap_reached_count:%d\r\nexpire_cycle_cpu_milliseconds:%d\r\nevicted_keys:%d\r\n"+
			"evicted_clients:%d\r\ntotal_eviction_exceeded_time:%d\r\ncurrent_eviction_exceeded_time:%d\r\nkeyspace_hits:%d\r\nkeyspace_misses:%d\r\npubsub_channels:%d\r\npubsub_patterns:%d\r\n"+
			"pubsubshard_channels:%d\r\nlatest_fork_usec:0\r\ntotal_forks:0\r\nmigrate_cached_sockets:%d\r\nslave_expires_tracked_keys:0\r\n"+
			"active_defrag_hits:0\r\nactive_defrag_misses:0\r\nactive_defrag_key_hits:0\r\nactive_defrag_key_misses:0\r\n"+
			"total_active_defrag_time:0\r\ncurrent_active_defrag_time:0\r\n"+
			"tracking_total_keys:%d\r\ntracking_total_items:%d\r\ntracking_total_prefixes:%d\r\n"+
			"unexpected_error_replies:0\r\ntotal_error_replies:%d\r\ndump_payload_sanitizations:0\r\n"+
			"total_reads_processed:%d\r\ntotal_writes_processed:%d\r\n"+
			"io_threaded_reads_processed:0\r\nio_threaded_writes_processed:0\r\n"+
			"cross_shard_hops:%d\r\ncross_shard_txns:%d\r\nmigrated_connections:%d\r\n",
			conns, cmds, int64(r.instantaneous(rateOps)), netIn, netOut, g.replIn.Load(), g.replOut(),
			r.instantaneous(rateNetIn)/1024, r.instantaneous(rateNetOut)/1024,
			r.instantaneous(rateReplIn)/1024, r.instantaneous(rateReplOut)/1024,
			rejected, g.prim.full.Load(), g.prim.partialOK.Load(), g.prim.partialErr.Load(), expired, stale, timeCap, expireNs/1e6, evicted, evictedClients, overTotal, overNow, hits, misses, channels, patterns, shardChannels,
			g.migrates.count(), trkKeys, trkItems, trkPrefixes, errReplies, reads, writes, hops, txns, migrated)
	}
	if show("replication", true) {
		sep()
		g.replicationInfo(&b)
	}
	if show("cpu", true) {
		sep()
		var ru, ch syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ch)
		var sys, user int64
		for _, s := range g.shards {
			sys += s.stats.pub.cpuSys.Load()
			user += s.stats.pub.cpuUser.Load()
		}
		fmt.Fprintf(&b, "# CPU\r\nused_cpu_sys:%.6f\r\nused_cpu_user:%.6f\r\nused_cpu_sys_children:%.6f\r\nused_cpu_user_children:%.6f\r\n"+
			"used_cpu_sys_main_thread:%.6f\r\nused_cpu_user_main_thread:%.6f\r\n",
			tvSec(ru.Stime), tvSec(ru.Utime), tvSec(ch.Stime), tvSec(ch.Utime), float64(sys)/1e6, float64(user)/1e6)
	}
	if show("modules", true) {
		sep()
		b.WriteString("# Modules\r\n") // none loaded
	}
	if show("commandstats", false) {
		sep()
		b.WriteString("# Commandstats\r\n")
		names := make([]string, 0, len(calls))
		for k := range calls {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			// The sampled time of one call in latencyEvery, scaled to all.
			h := lat[k]
			usec := int64(0)
			if h.Count > 0 {
				usec = int64(h.Sum * 1e6 * float64(calls[k]) / float64(h.Count))
			}
			perCall := 0.0
			if calls[k] > 0 {
				perCall = float64(usec) / float64(calls[k])
			}
			fmt.Fprintf(&b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
				k, calls[k], usec, perCall, refused[k], failed[k])
		}
	}
	if show("errorstats", true) {
		sep()
		b.WriteString("# Errorstats\r\n")
		for _, k := range slices.Sorted(maps.Keys(errs)) {
			fmt.Fprintf(&b, "errorstat_%s:count=%d\r\n", k, errs[k])
		}
	}
	if show("latencystats", false) {
		sep()
		b.WriteString("# Latencystats\r\n")
		if conf := g.conf.Snapshot(); conf.LatencyTracking {
			for _, k := range slices.Sorted(maps.Keys(lat)) {
				h := lat[k]
				fmt.Fprintf(&b, "latency_percentiles_usec_%s:", k)
				for i, p := range conf.LatencyPercentiles {
					if i > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, "p%s=%.3f", config.FormatPercentile(p), h.Percentile(p)*1e6)
				}
				b.WriteString("\r\n")
			}
		}
	}
	if show("cluster", true) {
		sep()
		b.WriteString("# Cluster\r\ncluster_enabled:0\r\n")
	}
	if show("keyspace", true) {
		sep()
		b.WriteString("# Keyspace\r\n")
		for i := range dbs {
			if keys[i] > 0 {
				avg := int64(0)
				if expires[i] > 0 {
					avg = int64(ttlSum[i] / float64(expires[i]))
				}
				fmt.Fprintf(&b, "db%d:keys=%d,expires=%d,avg_ttl=%d\r\n", i, keys[i], expires[i], avg)
			}
		}
	}
	return b.String()
}

// evictionExceeded is INFO's total_eviction_exceeded_time and
// current_eviction_exceeded_time, in ms at now: each shard has its share
// of maxmemory and keeps its own times, and the server's are the longest
// shard's, its interval in progress included in the total as Redis's.
func (g *Group) evictionExceeded(now int64) (total, current int64) {
	for _, s := range g.shards {
		cur := int64(0)
		if since := s.stats.pub.overSince.Load(); since != 0 {
			cur = max(0, now-since)
		}
		total, current = max(total, s.stats.pub.overTotal.Load()+cur), max(current, cur)
	}
	return total, current
}

// threadCPU publishes the CPU time the shard's thread has used (it runs
// on that thread: the loop's goroutine is locked to it). INFO's
// used_cpu_sys_main_thread and used_cpu_user_main_thread sum the shards':
// the threads that do what Redis's main thread does.
func (s *Shard) threadCPU() {
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return
	}
	setInt(&s.stats.pub.cpuSys, ru.Stime.Nano()/1000)
	setInt(&s.stats.pub.cpuUser, ru.Utime.Nano()/1000)
}

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

func tvSec(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }

// human formats bytes as Redis's bytesToHuman does.
func human(n int64) string {
	f := float64(n)
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", f/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", f/(1024*1024))
	default:
		return fmt.Sprintf("%.2fG", f/(1024*1024*1024))
	}
}

// rssBytes reads the process's resident set size from /proc/self/statm.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res int64
	if _, err := fmt.Sscan(string(b), &size, &res); err != nil {
		return 0
	}
	return res * int64(os.Getpagesize())
}

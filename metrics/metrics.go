package metrics

import (
	"context"
	"errors"
	"maps"
	"math"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// Shard is one shard's counters as of its last loop turn.
type Shard struct {
	Commands    int64 // commands executed
	Connections int64 // open client connections
	Rejected    int64 // connections refused (maxclients)
	Hops        int64 // commands sent to another shard
	Txns        int64 // cross-shard transactions coordinated
	Migrated    int64 // connections handed over to another shard
	Blocked     int64 // clients waiting in a blocking command
	Expired     int64 // keys deleted by expiry
	Evicted     int64 // keys deleted by eviction
	UsedMemory  int64 // bytes of the shard's keyspace
	Hits        int64 // keys found by read commands (keyspace hits)
	Misses      int64 // keys read commands did not find
	NetIn       int64 // bytes received from clients
	NetOut      int64 // bytes sent to clients
	Changes     uint64
	Keys        []int64          // per database
	Expires     []int64          // per database: keys with a TTL
	Calls       []int64          // per command, indexed as Source.Commands
	Failed      []int64          // per command: calls that replied an error
	Refused     []int64          // per command: calls refused before they ran
	Errors      map[string]int64 // error replies by code (ERR, WRONGTYPE ...)
	Latency     []Histogram      // per command: sampled call durations
	// AOFSize and AOFPending are the shard's AOF: bytes of its
	// incremental file, bytes submitted and not yet on disk (0 without
	// an AOF).
	AOFSize, AOFPending int64
	// AOFFsync is how long the fsyncs of the shard's AOF took.
	AOFFsync Histogram
}

// Persistence is the server's snapshot, AOF and replication state.
type Persistence struct {
	LastSave   int64 // unix seconds of the last successful save
	Saves      int64 // successful saves since start
	LastSaveOK bool  // the last background save worked (or none ran)
	AOF        bool  // appendonly yes
	AOFFailing bool  // the AOF's last write or fsync failed
	// Replica: the server replicates a primary; ReplOffset is
	// master_repl_offset (a replica's: what it applied); Replicas are
	// the replicas of this server with what they acknowledged.
	Replica    bool
	ReplOffset int64
	Replicas   []Replica
}

// Replica is one replica of this server: its address (ip:port), the
// offset it acknowledged and the seconds since it did (INFO's lag).
type Replica struct {
	Addr   string
	Offset int64
	Lag    float64
}

// Histogram is a command's sampled durations on one shard: Buckets[k]
// counts durations in (2^(k-1), 2^k] seconds (Prometheus's native schema
// 0), Count and Sum (seconds) the timed calls.
type Histogram struct {
	Count   uint64
	Sum     float64
	Buckets map[int]uint64
}

// Add merges o into h.
func (h *Histogram) Add(o Histogram) {
	h.Count += o.Count
	h.Sum += o.Sum
	for k, n := range o.Buckets {
		if h.Buckets == nil {
			h.Buckets = map[int]uint64{}
		}
		h.Buckets[k] += n
	}
}

// Percentile is the upper bound in seconds of the bucket that holds the
// p-th percentile (0 < p <= 100) of h's durations; 0 when h is empty.
func (h Histogram) Percentile(p float64) float64 {
	if h.Count == 0 {
		return 0
	}
	keys := slices.Sorted(maps.Keys(h.Buckets))
	rank := uint64(math.Ceil(p / 100 * float64(h.Count)))
	var seen uint64
	for _, k := range keys {
		if seen += h.Buckets[k]; seen >= rank {
			return math.Ldexp(1, k)
		}
	}
	return math.Ldexp(1, keys[len(keys)-1])
}

// Source gives every shard's counters.
type Source interface {
	// Sample returns one Shard per shard, reusing dst's memory.
	Sample(dst []Shard) []Shard
	// Commands names the commands Shard.Calls counts, by index.
	Commands() []string
	// Persistence is the server's persistence state.
	Persistence() Persistence
}

// Info labels radish_build_info.
type Info struct {
	Version string
	IO      string // the multiplexing API: io_uring or epoll
}

type desc struct {
	commands, calls, failed, refused, errors, latency, aofSize, aofPending, aofFsync, lastSave, saves, lastSaveOK, aofOn, aofFailing, conns, rejected, hops, txns, migrated, blocked, expired, evicted, memory, changes, keys, expires, hits, misses, netIn, netOut, replica, replOffset, replicaOffset, replicaLag *prometheus.Desc
}

func newDesc() desc {
	sh := []string{"shard"}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("radish_"+name, help, labels, nil)
	}
	return desc{
		commands: d("commands_processed_total", "Commands executed by the shard.", sh...),
		calls:    d("command_calls_total", "Calls of each command on the shard.", "shard", "cmd"),
		failed:   d("command_failed_calls_total", "Calls of each command that replied an error.", "shard", "cmd"),
		refused:  d("command_rejected_calls_total", "Calls of each command refused before they ran (arity, NOAUTH, OOM).", "shard", "cmd"),
		errors:   d("error_replies_total", "Error replies by their code (the first word: ERR, WRONGTYPE ...).", "shard", "code"),
		latency: d("command_duration_seconds", "Time a command's handler took, for one call in 16 (sampled).",
			"shard", "cmd"),
		aofSize:       d("aof_size_bytes", "Bytes of the shard's AOF incremental file.", sh...),
		aofPending:    d("aof_pending_bytes", "Bytes the shard gave its AOF that are not on disk yet.", sh...),
		aofFsync:      d("aof_fsync_duration_seconds", "Time an fsync of the shard's AOF took.", sh...),
		lastSave:      d("rdb_last_save_timestamp_seconds", "Unix time of the last successful snapshot."),
		replica:       d("replication_replica", "1 when the server replicates a primary, else 0."),
		replOffset:    d("replication_offset_bytes", "The replication offset (master_repl_offset): of the stream sent, or on a replica of the stream applied."),
		replicaOffset: d("replication_replica_offset_bytes", "The offset a replica of this server acknowledged.", "replica"),
		replicaLag:    d("replication_replica_lag_seconds", "Seconds since a replica of this server acknowledged.", "replica"),
		saves:         d("rdb_saves_total", "Successful snapshots since start."),
		lastSaveOK:    d("rdb_last_bgsave_ok", "1 when the last background save worked (or none ran), else 0."),
		aofOn:         d("aof_enabled", "1 with appendonly yes."),
		aofFailing:    d("aof_write_failing", "1 while the AOF's last write or fsync failed (writes get -MISCONF)."),
		conns:         d("connected_clients", "Client connections open on the shard.", sh...),
		rejected:      d("rejected_connections_total", "Connections refused because of maxclients.", sh...),
		hops:          d("cross_shard_hops_total", "Commands the shard sent to the shard owning their key.", sh...),
		txns:          d("cross_shard_transactions_total", "Commands over keys of several shards the shard coordinated.", sh...),
		migrated:      d("connections_migrated_total", "Connections the shard handed over to the shard their commands went to (migrate-connections).", sh...),
		blocked:       d("blocked_clients", "Clients of the shard waiting in a blocking command.", sh...),
		expired:       d("expired_keys_total", "Keys deleted because their TTL passed.", sh...),
		evicted:       d("evicted_keys_total", "Keys deleted by the maxmemory policy.", sh...),
		memory:        d("memory_used_bytes", "Bytes of memory the shard's keyspace uses.", sh...),
		hits:          d("keyspace_hits_total", "Keys found by the lookups of read commands.", sh...),
		misses:        d("keyspace_misses_total", "Keys not found by the lookups of read commands.", sh...),
		netIn:         d("net_input_bytes_total", "Bytes received from the shard's clients.", sh...),
		netOut:        d("net_output_bytes_total", "Bytes sent to the shard's clients.", sh...),
		changes:       d("changes_total", "Changes to data (writes that changed something, expiries, evictions).", sh...),
		keys:          d("db_keys", "Keys in each database on the shard.", "shard", "db"),
		expires:       d("db_keys_expiring", "Keys with a TTL in each database on the shard.", "shard", "db"),
	}
}

// collector is the prometheus.Collector over a Source.
type collector struct {
	src     Source
	d       desc
	started time.Time // the histograms' created timestamp
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.d.commands, c.d.calls, c.d.failed, c.d.refused, c.d.errors, c.d.latency,
		c.d.aofSize, c.d.aofPending, c.d.aofFsync, c.d.lastSave, c.d.saves, c.d.lastSaveOK, c.d.aofOn, c.d.aofFailing, c.d.conns, c.d.rejected, c.d.hops, c.d.txns, c.d.migrated,
		c.d.blocked, c.d.expired, c.d.evicted, c.d.memory, c.d.changes, c.d.keys, c.d.expires,
		c.d.hits, c.d.misses, c.d.netIn, c.d.netOut, c.d.replica, c.d.replOffset, c.d.replicaOffset, c.d.replicaLag} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	p := c.src.Persistence()
	bit := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	ch <- prometheus.MustNewConstMetric(c.d.lastSave, prometheus.GaugeValue, float64(p.LastSave))
	ch <- prometheus.MustNewConstMetric(c.d.saves, prometheus.CounterValue, float64(p.Saves))
	ch <- prometheus.MustNewConstMetric(c.d.lastSaveOK, prometheus.GaugeValue, bit(p.LastSaveOK))
	ch <- prometheus.MustNewConstMetric(c.d.aofOn, prometheus.GaugeValue, bit(p.AOF))
	ch <- prometheus.MustNewConstMetric(c.d.aofFailing, prometheus.GaugeValue, bit(p.AOFFailing))
	ch <- prometheus.MustNewConstMetric(c.d.replica, prometheus.GaugeValue, bit(p.Replica))
	ch <- prometheus.MustNewConstMetric(c.d.replOffset, prometheus.GaugeValue, float64(p.ReplOffset))
	for _, r := range p.Replicas {
		ch <- prometheus.MustNewConstMetric(c.d.replicaOffset, prometheus.GaugeValue, float64(r.Offset), r.Addr)
		ch <- prometheus.MustNewConstMetric(c.d.replicaLag, prometheus.GaugeValue, r.Lag, r.Addr)
	}
	names := c.src.Commands()
	for i, s := range c.src.Sample(nil) {
		sh := strconv.Itoa(i)
		counter := func(d *prometheus.Desc, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, append([]string{sh}, labels...)...)
		}
		gauge := func(d *prometheus.Desc, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{sh}, labels...)...)
		}
		counter(c.d.commands, float64(s.Commands))
		gauge(c.d.conns, float64(s.Connections))
		counter(c.d.rejected, float64(s.Rejected))
		counter(c.d.hops, float64(s.Hops))
		counter(c.d.txns, float64(s.Txns))
		counter(c.d.migrated, float64(s.Migrated))
		gauge(c.d.blocked, float64(s.Blocked))
		counter(c.d.expired, float64(s.Expired))
		counter(c.d.evicted, float64(s.Evicted))
		gauge(c.d.memory, float64(s.UsedMemory))
		counter(c.d.hits, float64(s.Hits))
		counter(c.d.misses, float64(s.Misses))
		counter(c.d.netIn, float64(s.NetIn))
		counter(c.d.netOut, float64(s.NetOut))
		if p.AOF {
			gauge(c.d.aofSize, float64(s.AOFSize))
			gauge(c.d.aofPending, float64(s.AOFPending))
			ch <- c.histogram(c.d.aofFsync, s.AOFFsync, sh)
		}
		counter(c.d.changes, float64(s.Changes))
		for db, n := range s.Keys {
			if n != 0 || s.Expires[db] != 0 {
				gauge(c.d.keys, float64(n), strconv.Itoa(db))
				gauge(c.d.expires, float64(s.Expires[db]), strconv.Itoa(db))
			}
		}
		for id, n := range s.Calls {
			if id >= len(names) {
				break
			}
			if n != 0 {
				counter(c.d.calls, float64(n), names[id])
			}
			if id < len(s.Failed) && s.Failed[id] != 0 {
				counter(c.d.failed, float64(s.Failed[id]), names[id])
			}
			if id < len(s.Refused) && s.Refused[id] != 0 {
				counter(c.d.refused, float64(s.Refused[id]), names[id])
			}
		}
		for code, n := range s.Errors {
			counter(c.d.errors, float64(n), code)
		}
		for id, h := range s.Latency {
			if h.Count != 0 && id < len(names) {
				ch <- c.histogram(c.d.latency, h, sh, names[id])
			}
		}
	}
}

// Classic buckets of the duration histograms: every other power of two of
// a second from 2^-24 (60 ns: a GET's handler takes about that) to 2^2,
// so that each is a sum of native buckets.
const (
	classicMinExp = -24
	classicMaxExp = 2
)

// histogram is a duration histogram both ways: native buckets (schema 0)
// and classic cumulative ones.
func (c *collector) histogram(d *prometheus.Desc, h Histogram, labels ...string) prometheus.Metric {
	pos := make(map[int]int64, len(h.Buckets))
	for k, n := range h.Buckets {
		pos[k] = int64(n)
	}
	m := prometheus.MustNewConstNativeHistogram(d, h.Count, h.Sum, pos, nil, 0, 0, 0, c.started, labels...)
	var classic []*dto.Bucket
	for le := classicMinExp; le <= classicMaxExp; le += 2 {
		var n uint64
		for k, v := range h.Buckets {
			if k <= le {
				n += v
			}
		}
		classic = append(classic, &dto.Bucket{CumulativeCount: proto.Uint64(n), UpperBound: proto.Float64(math.Ldexp(1, le))})
	}
	return withClassic{m, classic}
}

// withClassic adds classic buckets to a native histogram.
type withClassic struct {
	prometheus.Metric
	buckets []*dto.Bucket
}

func (w withClassic) Write(out *dto.Metric) error {
	if err := w.Metric.Write(out); err != nil {
		return err
	}
	out.Histogram.Bucket = w.buckets
	return nil
}

// Registry returns a registry with the shards' collector, the Go runtime
// and process collectors and radish_build_info.
func Registry(src Source, info Info) *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(&collector{src: src, d: newDesc(), started: time.Now()},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "radish_build_info",
			Help:        "Always 1; labels: the server's version, the Go version and the multiplexing API.",
			ConstLabels: prometheus.Labels{"version": info.Version, "goversion": runtime.Version(), "io": info.IO},
		}, func() float64 { return 1 }))
	return r
}

// Server serves /metrics on its own listeners.
type Server struct {
	http *http.Server
	lns  []net.Listener
}

// Serve listens on addrs (host:port; a leading "-" marks an address that
// may be unavailable, as bind's "-::1") and serves reg's metrics on
// /metrics until Close.
func Serve(addrs []string, reg *prometheus.Registry) (*Server, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s := &Server{http: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	for _, a := range addrs {
		optional := len(a) > 0 && a[0] == '-'
		if optional {
			a = a[1:]
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			if optional {
				continue
			}
			s.Close()
			return nil, err
		}
		s.lns = append(s.lns, ln)
	}
	if len(s.lns) == 0 {
		return nil, errors.New("metrics: no address to listen on")
	}
	for _, ln := range s.lns {
		go s.http.Serve(ln)
	}
	return s, nil
}

// Addrs returns the addresses listened on.
func (s *Server) Addrs() []string {
	out := make([]string, len(s.lns))
	for i, ln := range s.lns {
		out[i] = ln.Addr().String()
	}
	return out
}

// Close stops serving.
func (s *Server) Close() error {
	for _, ln := range s.lns {
		ln.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.http.Shutdown(ctx)
}

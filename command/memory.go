package command

import (
	"strconv"
	"strings"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// MEMORY, Redis 7.0's memory introspection. USAGE runs on the key's shard
// and answers the engine's exact count of the key's slab blocks (its leaf,
// which holds the key, and every block of its value: engine
// DB.MemoryUsage), so SAMPLES is parsed and checked as Redis does but
// changes nothing. STATS answers Redis's fields from the process-wide
// numbers INFO prints (the allocator is the engine's slab and Go's heap:
// no jemalloc figures but the ones they stand for); DOCTOR Redis's
// reports for a nearly empty instance and for one with nothing to
// report; MALLOC-STATS what Redis built without jemalloc answers; PURGE
// gives every shard's free slab pages back to the OS.

func init() { register(memorySpecs...) }

const memoryLong = "Depends on how much memory is allocated, could be slow"

var memorySpecs = []*Spec{
	{
		Name: "memory", Arity: -2,
		Sub: []*Spec{
			{
				Name: "memory|doctor", Arity: 2,
				Tips:    []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
				Handler: CmdMemoryDoctor,
				Summary: "Outputs memory problems report",
				Since:   "4.0.0", Group: "server",
				Complexity: "O(1)",
			},
			{
				Name: "memory|help", Arity: 2,
				Flags:   Loading | Stale,
				Handler: CmdMemoryHelp,
				Summary: "Show helpful text about the different subcommands",
				Since:   "4.0.0", Group: "server",
				Complexity: "O(1)",
			},
			{
				Name: "memory|malloc-stats", Arity: 2,
				Tips:    []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
				Handler: CmdMemoryMallocStats,
				Summary: "Show allocator internal stats",
				Since:   "4.0.0", Group: "server",
				Complexity: memoryLong,
			},
			{
				Name: "memory|purge", Arity: 2,
				Tips:  []string{"request_policy:all_shards", "response_policy:all_succeeded"},
				Route: func([][]byte) Route { return Route{All: true, Merge: MergeAllOK} },
				// Every shard gives its own free pages back.
				Handler: CmdMemoryPurge,
				Summary: "Ask the allocator to release memory",
				Since:   "4.0.0", Group: "server",
				Complexity: memoryLong,
			},
			{
				Name: "memory|stats", Arity: 2,
				Tips:    []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
				Handler: CmdMemoryStats,
				Summary: "Show memory usage details",
				Since:   "4.0.0", Group: "server",
				Complexity: "O(1)",
			},
			{
				Name: "memory|usage", Arity: -3,
				Flags: ReadOnly,
				KeySpecs: []KeySpec{
					{Flags: KeyRO, Index: 2, LastKey: 0, Step: 1},
				},
				Handler: CmdMemoryUsage,
				Summary: "Estimate the memory usage of a key",
				Since:   "4.0.0", Group: "server",
				Complexity: "O(N) where N is the number of samples.",
				Args: []Arg{
					{Name: "key", Type: "key", KeySpecIndex: 0},
					{Name: "count", Type: "integer", Token: "SAMPLES", Flags: ArgOptional},
				},
			},
		},
		Summary: "A container for memory diagnostics commands",
		Since:   "4.0.0", Group: "server",
		Complexity: "Depends on subcommand.",
	},
}

var memoryHelp = []string{
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
}

// CmdMemoryHelp is MEMORY HELP.
func CmdMemoryHelp(c *Ctx, args [][]byte) { kvHelp(c, args[0], memoryHelp) }

// CmdMemoryUsage is MEMORY USAGE key [SAMPLES count]: the key's bytes, or
// a null when it is absent.
func CmdMemoryUsage(c *Ctx, args [][]byte) {
	for j := 3; j < len(args); j++ {
		if !kvIs(args[j], "samples") || j+1 >= len(args) {
			c.W.Error(errtext.Syntax)
			return
		}
		n, ok := num.ParseInt(args[j+1])
		if !ok {
			c.W.Error(errtext.NotInt)
			return
		}
		if n < 0 {
			c.W.Error(errtext.Syntax)
			return
		}
		j++
	}
	n, ok := c.DB.MemoryUsage(args[2], c.Now)
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(n)
}

// CmdMemoryPurge is MEMORY PURGE, on every shard.
func CmdMemoryPurge(c *Ctx, _ [][]byte) {
	c.Store.Purge()
	c.W.OK()
}

// CmdMemoryMallocStats is MEMORY MALLOC-STATS: Redis's reply when it was
// not built with jemalloc.
func CmdMemoryMallocStats(c *Ctx, _ [][]byte) {
	c.W.BulkString("Stats not supported for the current allocator")
}

// memoryFacts are the process-wide numbers MEMORY STATS and DOCTOR read,
// from INFO's memory and keyspace sections.
type memoryFacts struct {
	used, peak, rss int64
	dbs             []int   // databases with keys
	keys, expires   []int64 // per entry of dbs
}

func readMemoryFacts(c *Ctx) memoryFacts {
	var f memoryFacts
	for _, line := range strings.Split(c.Server.Info([]string{"memory", "keyspace"}), "\n") {
		name, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(val, 10, 64)
		switch {
		case name == "used_memory":
			f.used = n
		case name == "used_memory_peak":
			f.peak = n
		case name == "used_memory_rss":
			f.rss = n
		case strings.HasPrefix(name, "db"):
			db, err := strconv.Atoi(name[2:])
			if err != nil {
				continue
			}
			var keys, expires int64
			for _, kv := range strings.Split(val, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "keys":
					keys, _ = strconv.ParseInt(v, 10, 64)
				case "expires":
					expires, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			f.dbs, f.keys, f.expires = append(f.dbs, db), append(f.keys, keys), append(f.expires, expires)
		}
	}
	f.peak = max(f.peak, f.used)
	return f
}

// CmdMemoryStats is MEMORY STATS with Redis 7.0's fields, in its order.
// What Radish has no part for (replication backlog, AOF buffer, cluster
// links, per-client buffers here) is 0, and so is the keyspace's own
// overhead, which the engine counts inside each key (its leaf).
func CmdMemoryStats(c *Ctx, _ [][]byte) {
	f := readMemoryFacts(c)
	var keys int64
	for _, k := range f.keys {
		keys += k
	}
	w := c.W
	w.Map(27 + len(f.dbs))
	pair := func(name string, v int64) {
		w.BulkString(name)
		w.Int(v)
	}
	ratio := func(name string, a, b int64) {
		w.BulkString(name)
		if b == 0 {
			w.Double(0)
			return
		}
		w.Double(float64(a) / float64(b))
	}
	pair("peak.allocated", f.peak)
	pair("total.allocated", f.used)
	pair("startup.allocated", 0)
	pair("replication.backlog", 0)
	pair("clients.slaves", 0)
	pair("clients.normal", 0)
	pair("cluster.links", 0)
	pair("aof.buffer", 0)
	pair("lua.caches", 0)
	pair("functions.caches", 0)
	for _, db := range f.dbs {
		w.BulkString("db." + strconv.Itoa(db))
		w.Map(3)
		pair("overhead.hashtable.main", 0)
		pair("overhead.hashtable.expires", 0)
		pair("overhead.hashtable.slot-to-keys", 0)
	}
	pair("overhead.total", 0)
	pair("keys.count", keys)
	perKey := int64(0)
	if keys > 0 {
		perKey = f.used / keys
	}
	pair("keys.bytes-per-key", perKey)
	pair("dataset.bytes", f.used)
	ratio("dataset.percentage", 100*f.used, f.used)
	ratio("peak.percentage", 100*f.used, f.peak)
	pair("allocator.allocated", f.used)
	pair("allocator.active", f.used)
	pair("allocator.resident", f.rss)
	ratio("allocator-fragmentation.ratio", f.used, f.used)
	pair("allocator-fragmentation.bytes", 0)
	ratio("allocator-rss.ratio", f.rss, f.used)
	pair("allocator-rss.bytes", f.rss-f.used)
	ratio("rss-overhead.ratio", f.rss, f.rss)
	pair("rss-overhead.bytes", 0)
	ratio("fragmentation", f.rss, f.used)
	pair("fragmentation.bytes", f.rss-f.used)
}

// CmdMemoryDoctor is MEMORY DOCTOR: Redis's report for an instance of
// less than 5 MB, else its report of no issue (Radish runs none of
// Redis's detectors, which read jemalloc's figures).
func CmdMemoryDoctor(c *Ctx, _ [][]byte) {
	report := "Hi Sam, I can't find any memory issue in your instance. " +
		"I can only account for what occurs on this base.\n"
	if f := readMemoryFacts(c); f.used < 5<<20 {
		report = "Hi Sam, this instance is empty or is using very little memory, " +
			"my issues detector can't be used in these conditions. " +
			"Please, leave for your mission on Earth and fill it with some data. " +
			"The new Sam and I will be back to our programming as soon as I " +
			"finished rebooting.\n"
	}
	c.W.Verbatim("txt", []byte(report))
}

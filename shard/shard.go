package shard

import (
	"math"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/radish-kv/radish/acl"
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/aof"
	"github.com/radish-kv/radish/router"
	"github.com/radish-kv/radish/script"
)

// Shard is one shard: a locked OS thread, its driver, its store and the
// connections it accepted. Every field is owned by the shard's goroutine
// unless it says otherwise.
type Shard struct {
	id    int
	group *Group
	// aclSeen is the users' snapshot this shard's connections were last
	// rebound to (acl.go).
	aclSeen *acl.Snapshot

	drv   ioloop.Driver
	store *engine.Store
	conns map[ioloop.ConnID]*conn
	// pipes are the connections with no socket (pipe.go); pipeSeq
	// numbers them.
	pipes   []*pipe
	pipeSeq uint32
	// clientsAt is when the clients were last summed, evictable the
	// scratch list of those that may be evicted (clientevict.go).
	clientsAt int64
	evictable []memConn
	peaks     [peakSlots]bufPeak // the clients' largest buffers, a second each
	// overSince is when (unix ms) an eviction last left the shard over
	// its memory budget, 0 while it is within (evict).
	overSince int64
	// redactBuf is where MONITOR's and SLOWLOG's copy of a command with
	// passwords hidden is made (command.Redacted).
	redactBuf [][]byte
	// flows are the replication flows' connections on this loop, which
	// are no clients (flowstream.go).
	flows map[ioloop.ConnID]*flowStream

	reader resp.Reader
	w      resp.Writer   // scratch writer for replies that do not go straight to a connection
	hopW   resp.Writer   // the writer of hop replies, into their hopMsg (execHop)
	hops   []*hopMsg     // free hop payloads and ready slots (hop.go)
	txns   []*txn        // free pooled txns (txnpool.go)
	merger router.Merger // merges a pooled txn's replies (partDone)
	// prefix is the connection serve is serving and its output's length
	// when serve began, for holdPrefix (hop.go); nil outside serve.
	prefix struct {
		c    *conn
		mark int
	}
	writeIdx []int // partKeys' scratch (txn.go)
	// firstOwner is the shard of the next command's first key where
	// serve's look-ahead hashed it (-1: unknown); dispatch takes it.
	firstOwner int
	ctx        command.Ctx
	// gatherCtx is the Ctx of a command run on gathered copies (cross.go).
	gatherCtx command.Ctx
	plan      router.Planner // places commands; holds the scratch for their key positions
	cmds      command.Resolver
	// ahead, parsed and warmKeys serve prefetch: a parser that looks ahead
	// in a connection's input, the commands it parsed (serve takes them),
	// and the keys it found.
	ahead       resp.Reader
	parsed      parsedAhead
	warmKeys    [][]byte
	warmZ       []warmZ
	warmScores  []float64
	warmMembers [][]byte
	accessIdx   []int // countAccess's key indexes (reads.go)
	split       router.Splitter
	now         int64

	// inbox is what other shards push batches onto (inbox.go);
	// freeBatch is this shard's list of batch nodes for its next sends,
	// batches how many it made.
	inbox     inbox
	freeBatch *batch
	batches   int
	local     []message // messages to ourselves, run later in this turn
	// localSpare is runLocal's other slice for local (see there).
	localSpare []message
	outbox     [][]message // per destination shard, flushed at the end of the turn

	waiters map[wkey][]*waiter // blocked clients per key, FIFO (see block.go)
	ready   []wkey             // keys written since their waiters were served, in order
	keyIdx  []int              // scratch for a hop's key positions (runHop)
	picked  []coord.Key        // scratch of pickKeys
	got     [][]entry          // scratch of runGathered
	gatherW resp.Writer        // runGathered's

	locks *coord.Table // key locks and the work waiting for them (txn.go)

	txnSeq uint64
	// execs are the txns of EXECs answered, reused by the next ones
	// (newExec) with their buffers; execOut is where an EXEC run here
	// writes its reply (execHere). An EXEC on the connection's shard
	// allocates nothing once they have grown, one on another shard its
	// parts' keys and names (newExec).
	execs     []*txn
	execOut   resp.Writer
	idleCheck int64     // when closeIdle last looked, Unix ms
	nextTick  time.Time // when the cron runs next
	expireAt  time.Time // no expiry slice before this (see fastCycles)
	snapAt    time.Time // no snapshot slice before this (see snapStep)
	snapCmds  int64     // stats.commands at the last slice: whether commands came since
	// expireBudget is what is left of the cron's active-expiry work.
	expireBudget int
	memPeak      int64 // UsedMemory's peak since the last purge
	startMem     int64 // UsedMemory of the empty store (INFO's used_memory_startup)
	// scratch is where single-reply commands spanning shards run (see
	// gather), and where blocking commands are dry-run.
	scratch *engine.Store

	mut  mutations // the mutation path's state (effects.go)
	ps   pubState  // subscriptions and publishes in flight (pubsub.go)
	kev  keyEvents // keyspace notifications (notify.go)
	snap *bgSave   // this shard's part of a background save in progress, nil when none (snapshot.go)
	aof  aofState  // the AOF's Log, and what waits for its disk (aof.go)
	trk  trackState
	// who is the client the command running now runs for (tracking.go),
	// zero between commands.
	who reader
	lua *script.Runtime // made at the first script (script.go)
	// direct is what direct script runs reuse (script.go).
	direct directRun
	// killer is what SCRIPT KILL, served by any shard, sees of the
	// script this shard runs (its fields are safe for any goroutine).
	killer script.Killer
	busy   busyState // a long script (busy.go)
	// laterPart: the command running now is a part after the first of a
	// command over several shards, whose call the first part counts (INFO
	// commandstats counts one call, as Redis).
	laterPart bool
	// wholeArgs, while the first part of such a command runs, is the
	// whole command, which the slow log keeps (slowlog.go).
	wholeArgs [][]byte
	// misconf: writes are refused with -MISCONF (the last background save
	// failed, stop-writes-on-bgsave-error); taken each turn (snapshot.go).
	misconf bool
	feed    feedState // the hand-over of effects to the primary's stream (primary.go)
	// replica: the group replicates a primary (repl.go): clients' writes
	// are refused, no key expires here, the primary's writes run at time 0.
	replica bool
	// migrate: migrate-connections is yes and there are shards to move
	// connections to (migrate.go).
	migrate bool
	// normalLimit: a normal client has an output buffer limit
	// (outlimit.go).
	normalLimit bool

	clock cmdClock // times commands (slowlog.go)
	slow  slowLog
	mon   monState // MONITOR (monitor.go)
	// monHere counts this shard's monitoring connections, for the shards
	// that send them lines.
	monHere atomic.Int32
	// pause is the group's pause word as of this turn or read;
	// pausedConns the connections it holds back (pause.go).
	pause       int64
	pausedConns []*conn
	conf        *config.Snapshot // the configuration last applied
	stats       shardStats       // published for INFO at the end of each turn
	done        chan struct{}
}

func newShard(g *Group, id int) *Shard {
	s := &Shard{
		id:      id,
		group:   g,
		store:   engine.NewStore(g.opts.Databases),
		conns:   make(map[ioloop.ConnID]*conn),
		outbox:  make([][]message, g.opts.Shards),
		locks:   coord.NewTable(),
		waiters: make(map[wkey][]*waiter),
		done:    make(chan struct{}),
	}
	s.firstOwner = -1
	initTicks()
	s.clock.base = ticks() - 1
	s.clock.stale = nsToTicks(nowStale)
	s.startMem = s.store.UsedMemory()
	s.stats.calls = make([]int64, len(command.Rows()))
	s.stats.pub.calls = make([]atomic.Int64, len(command.Rows()))
	s.stats.lat = make([]latency, len(command.Rows()))
	s.stats.failed = make([]int64, len(command.Rows()))
	s.stats.refused = make([]int64, len(command.Rows()))
	s.stats.pub.failed = make([]atomic.Int64, len(command.Rows()))
	s.stats.pub.refused = make([]atomic.Int64, len(command.Rows()))
	s.stats.pub.keys = make([]atomic.Int64, g.opts.Databases)
	s.stats.pub.expires = make([]atomic.Int64, g.opts.Databases)
	s.stats.pub.avgTTL = make([]atomic.Int64, g.opts.Databases)
	s.warmKeys = make([][]byte, 0, engine.PrefetchMax)
	s.warmZ = make([]warmZ, 0, engine.PrefetchMax)
	s.warmScores = make([]float64, 0, engine.PrefetchMax)
	s.warmMembers = make([][]byte, 0, engine.PrefetchMax)
	s.ctx.Store = s.store
	s.ctx.Server = g
	s.ctx.Owns = s.owns
	s.ctx.Local = s
	s.ctx.Scripts = s
	s.mut.sink = g.opts.Effects
	s.ps.init(g.opts.Shards)
	s.trk.init(g.opts.Shards)
	s.hookEngine()
	return s
}

// owns reports whether key belongs to this shard.
func (s *Shard) owns(key []byte) bool {
	return router.ShardOf(key, len(s.group.shards)) == s.id
}

// run is the shard's loop. It locks its OS thread for life: the ring must be
// created and entered on one thread.
//
// It reports on ready once its driver exists, then waits for start to
// close: no shard may send to another before every driver exists.
func (s *Shard) run(ready chan<- error, start <-chan struct{}) {
	runtime.LockOSThread()
	defer close(s.done)
	drv, err := s.group.newDriver(s.id)
	if err != nil {
		ready <- err
		return
	}
	s.drv = drv
	s.useLoop()
	for _, fd := range s.group.listenFDs[s.id] {
		if err := drv.Listen(fd); err != nil {
			ready <- err
			drv.Shutdown()
			return
		}
	}
	s.applyConfig(s.group.conf.Snapshot())
	if src := s.group.src; src != nil {
		st, err := s.load(src)
		if err != nil {
			ready <- err
			drv.Shutdown()
			return
		}
		s.group.persist.addLoaded(st)
	}
	ready <- nil
	<-start
	s.nextTick = time.Now()
	yielded := s.nextTick
	for !s.group.stopping.Load() {
		s.busy.polling = true
		err := drv.Poll(s.wait(time.Now()), s)
		s.busy.polling = false
		if err != nil {
			s.group.log.Error("shard poll failed", errField(err), shardField(s.id))
			break
		}
		now := time.Now()
		s.Turn(now)
		s.flushOutbox()
		yielded = yield(now, yielded)
	}
	s.shutdown()
}

// wait is how long the loop may sleep in Poll at now: until the cron's
// tick, the next blocked client's deadline, or the next slice of work in
// progress (expiry, eviction, messages to itself).
func (s *Shard) wait(now time.Time) time.Duration {
	wait := s.nextTick.Sub(now)
	if s.expireBudget > 0 || s.store.ExpireCapped() || s.store.OverBudget() {
		wait = min(wait, 2*time.Millisecond)
	}
	if d := s.nextDeadline(); d > 0 {
		wait = min(wait, time.UnixMilli(d).Sub(now))
	}
	if len(s.pausedConns) > 0 {
		wait = min(wait, time.UnixMilli(s.pause>>1).Sub(now))
	}
	if len(s.local) > 0 {
		wait = 0
	}
	if s.snap != nil {
		wait = min(wait, time.Millisecond) // the file's writer drains
		if !s.snap.busy() {
			wait = min(wait, s.snapAt.Sub(now)) // the next slice
		}
	}
	return max(wait, 0)
}

// Turn is one loop turn at now, run after the driver's Poll delivered the
// turn's completions (OnOpen, OnData, OnClose): it takes a changed
// configuration, runs the inbox (requests from other shards, replies to
// ours), answers blocked clients whose deadline passed, runs the messages
// to itself, and runs the cron when its tick is due, else an expiry slice.
// The turn's messages to other shards stay in the outbox: the loop hands
// them over with flushOutbox, a simulator in the order it chooses. A
// shard reads no clock of its own: the time it sees is now, and the
// group's clock for OnOpen, OnData and an expiry slice's length.
func (s *Shard) Turn(now time.Time) {
	s.now = now.UnixMilli()
	if c := s.group.conf.Snapshot(); c != s.conf {
		s.applyConfig(c)
	}
	s.misconf = s.group.stopWrites(s.conf)
	s.sweepACL()
	s.mon.on = s.group.monitors.Load() > 0
	s.pause = s.group.pauseWord.Load()
	s.resumePaused()
	s.drainInbox()
	s.runScripts()
	s.expireBlocked()
	s.runLocal()
	if s.store.LazyPending() > 0 {
		s.store.LazyFreeStep(lazyFreeBlocks)
		s.stats.touched = true
	}
	if now.After(s.nextTick) {
		s.cron()
		s.nextTick = now.Add(time.Second / time.Duration(s.conf.Hz))
	} else {
		s.fastCycles()
	}
	// Hand over the effects and publish before any reply of this turn
	// can leave (replies to other shards go out in flushOutbox, to clients
	// in the next Poll): a client that saw a write's reply sees it in INFO,
	// and the write's consumers have it.
	s.flushTracking()
	s.flushEffects()
	s.flushMonitors()
	s.submitAOF()
	s.flushPipes()
	if s.snap != nil && !s.group.clock().Before(s.snapAt) {
		// A slice of the save in progress, once the turn's replies left:
		// they do not wait for it (the driver sends them now).
		if s.drv != nil {
			s.drv.Flush()
		}
		s.snapStep()
	}
	s.publishStats()
	s.clock.mark = 0 // what comes next is not a command
}

// lazyFreeBlocks is how many blocks of UNLINKed values and ASYNC-flushed
// databases a loop turn frees (engine.Store.LazyFreeStep): a fraction of
// a millisecond.
const lazyFreeBlocks = 4096

// shutdown answers what was read, then closes every connection.
func (s *Shard) shutdown() {
	if s.snap != nil {
		s.snapEnd(errShutdown)
	}
	for len(s.pipes) > 0 {
		s.dropPipe(s.pipes[0])
	}
	for id := range s.conns {
		s.drv.Close(id)
	}
	// Let the driver flush pending output and report the closes.
	deadline := time.Now().Add(time.Second)
	for len(s.conns) > 0 && time.Now().Before(deadline) {
		if err := s.drv.Poll(10*time.Millisecond, s); err != nil {
			break
		}
	}
	s.drv.Shutdown()
	s.store.Close()
	if s.scratch != nil {
		s.scratch.Close()
	}
}

// cron is the shard's periodic work, hz times a second: it grants active
// expiry Redis's slow-cycle budget (25% of the period at effort 1) and
// evicts toward the memory budget. The budget is spent in slices of a fast
// cycle (about 1 ms), one per loop turn, so a mass expiry never stalls the
// loop for the whole budget at once.
func (s *Shard) cron() {
	s.stats.touched = true
	s.threadCPU()
	s.expireBudget = engine.ExpireCycleWork(s.conf.Hz, s.conf.ActiveExpireEffort)
	s.fastCycles()
	s.purge()
	s.closeIdle()
	s.clientsCron()
	if s.id == 0 {
		s.group.savePoints(s.conf, s.now)
		s.group.autoRewrite(s.conf, s.now)
		s.group.sample(s.group.clock())
	}
}

// purge returns freed slab memory to the OS once memory in use fell by a
// quarter (and at least 4 MB) below its peak since the last purge, so RSS
// follows a mass expiry, eviction or deletion down.
func (s *Shard) purge() {
	used := s.store.UsedMemory()
	s.memPeak = max(s.memPeak, used)
	if s.memPeak-used >= 4<<20 && used < s.memPeak*3/4 {
		s.store.Purge()
		s.memPeak = used
	}
}

// fastCycles runs one expiry slice while the cron's budget lasts, then,
// while the last cycle left expired keys behind, fast cycles; and keeps
// evicting while memory is over the budget. After a slice that took d,
// the next waits at least d (slow budget) or 2d (fast cycles, as Redis's
// fast cycle waits twice its duration), so a mass expiry takes at most
// half of the shard's time, whatever a key costs to delete.
func (s *Shard) fastCycles() {
	if s.pause != 0 && s.now < s.pause>>1 {
		return // a pause (CLIENT PAUSE, a shutdown's, a FAILOVER's) holds expiry and eviction too, as Redis
	}
	if s.expireBudget <= 0 && !s.store.ExpireCapped() {
		s.evict() // no expiry due: a turn reads no clock for it
		return
	}
	clock := s.group.clock
	if s.replica || clock().Before(s.expireAt) {
		s.evict()
		return
	}
	if s.group.noActiveExpire.Load() {
		s.expireBudget = 0
		s.evict()
		return
	}
	e := s.conf.ActiveExpireEffort
	// A quarter of Redis's fast cycle: deleting a key costs more here than
	// Redis's 1 µs unit assumes, and a slice is the longest a command waits.
	slice := engine.ExpireFastWork(e) / 4
	start := clock()
	switch {
	case s.expireBudget > 0:
		s.stats.touched = true
		s.store.ActiveExpireCycle(s.now, e, min(slice, s.expireBudget))
		s.expireBudget -= slice
		if !s.store.ExpireCapped() {
			s.expireBudget = 0
		}
		end := clock()
		s.expireAt = end.Add(end.Sub(start))
		s.expired(end.Sub(start))
	case s.store.ExpireCapped():
		s.stats.touched = true
		s.store.ActiveExpireCycle(s.now, e, slice)
		end := clock()
		s.expireAt = end.Add(2 * end.Sub(start))
		s.expired(end.Sub(start))
	}
	s.evict()
}

// expired files an active expiry slice that took d: as a latency event,
// in INFO's expire_cycle_cpu_milliseconds, and the databases' avg_ttl
// its samples moved.
func (s *Shard) expired(d time.Duration) {
	s.expireLatency(d)
	p := &s.stats.pub
	p.expireNs.Add(int64(d))
	for i := range p.avgTTL {
		setInt(&p.avgTTL[i], s.store.DB(i).AvgTTL())
	}
}

// evict frees memory toward the budget in one bounded step; a replica
// never evicts (Redis's replica-ignore-maxmemory yes): its primary's DELs
// do.
//
// It also keeps INFO's eviction_exceeded times, as Redis's
// performEvictions: from a turn whose eviction left the shard over its
// budget (the step's bound, or nothing left to evict) to the first turn
// that finds it within.
func (s *Shard) evict() {
	if s.store.OverBudget() && !s.replica {
		s.stats.touched = true
		s.store.Evict(s.now)
		if s.overSince == 0 && s.store.OverBudget() {
			s.overSince = s.now
			s.stats.pub.overSince.Store(s.now)
		}
		return
	}
	if s.overSince != 0 {
		s.stats.pub.overTotal.Add(s.now - s.overSince)
		s.stats.pub.overSince.Store(0)
		s.overSince = 0
	}
}

// oom reports whether a command that may grow memory must be refused:
// over the budget and nothing left to evict. Eviction happens here,
// between commands, never inside one.
func (s *Shard) oom(spec *command.Spec) bool {
	return spec.Flags&command.DenyOOM != 0 && s.outOfMemory()
}

// applyConfig takes a new configuration snapshot into this shard: the
// protocol limits into its parsers, the store's settings into its store;
// maxclients, client-query-buffer-limit and timeout are read from s.conf
// where they apply (OnOpen, serve, closeIdle). The memory budget
// (maxmemory, or a fraction of the cgroup limit under maxmemory auto) is
// split evenly across the shards.
func (s *Shard) applyConfig(c *config.Snapshot) {
	s.conf = c
	s.migrate = c.MigrateConnections && len(s.group.shards) > 1
	s.normalLimit = c.OutputLimits[config.ClassNormal] != config.OutputLimit{}
	s.setNotify(c)
	s.clock.slowNs = -1
	if c.SlowlogLogSlowerThan >= 0 {
		s.clock.slowNs = min(c.SlowlogLogSlowerThan, math.MaxInt64/1000) * 1000 // no overflow
	}
	s.clock.on = s.clock.slowNs >= 0 || c.LatencyMonitorThreshold > 0
	if !s.clock.on {
		s.clock.mark = 0 // eventTime reads the wall clock for every connection
	}
	alarm := int64(math.MaxInt64)
	if s.clock.slowNs >= 0 {
		alarm = s.clock.slowNs
	}
	if t := c.LatencyMonitorThreshold; t > 0 {
		alarm = min(alarm, min(t, math.MaxInt64/int64(time.Millisecond))*int64(time.Millisecond))
	}
	s.clock.alarm = nsToTicks(alarm)
	s.reader.MaxBulkLen = c.ProtoMaxBulkLen
	s.ctx.MaxBulkLen = c.ProtoMaxBulkLen
	s.ahead.MaxBulkLen = c.ProtoMaxBulkLen
	s.parsed.drop() // parsed under the old limit
	policy, _ := engine.ParsePolicy(c.MaxMemoryPolicy)
	s.store.SetMaxMemory(c.MemoryBudget()/int64(len(s.group.shards)), policy, c.MaxMemorySamples)
	s.store.SetLFU(c.LFULogFactor, c.LFUDecayTime)
	if s.aof.log != nil && !s.aof.draining {
		p := aof.ParseFsync(c.AppendFsync)
		s.aof.log.SetFsync(p)
		s.aof.log.SetTimestamps(c.AOFTimestamps)
		s.aof.hold = p == aof.FsyncAlways
	}
	s.store.Limits = engine.Limits{
		HashMaxListpackEntries: int(c.HashMaxListpackEntries),
		HashMaxListpackValue:   int(c.HashMaxListpackValue),
		SetMaxIntsetEntries:    int(c.SetMaxIntsetEntries),
		ZSetMaxListpackEntries: int(c.ZSetMaxListpackEntries),
		ZSetMaxListpackValue:   int(c.ZSetMaxListpackValue),
		ListMaxListpackSize:    c.ListMaxListpackSize,
		ListCompressDepth:      c.ListCompressDepth,
		HLLSparseMaxBytes:      int(c.HLLSparseMaxBytes),
		StreamNodeMaxBytes:     int(min(c.StreamNodeMaxBytes, 1<<30)),
		StreamNodeMaxEntries:   int(min(c.StreamNodeMaxEntries, 1<<31)),
	}
}

// post queues d as a message of kind k for shard dst; it is delivered at
// the end of this turn (to this shard: later in this turn).
func (s *Shard) post(dst int, k msgKind, d payload) {
	m := message{kind: k, data: d}
	if dst == s.id {
		s.local = append(s.local, m)
		return
	}
	s.outbox[dst] = append(s.outbox[dst], m)
}

// deliver is called by goroutines other than the shards' (an accept
// loop): it pushes a batch onto the inbox and wakes the loop.
func (s *Shard) deliver(msgs []message) {
	if s.inbox.push(&batch{msgs: msgs}) {
		s.drv.Wake()
	}
}

// deliverBy is deliver called by shard src's loop with a batch of its
// own making: the wake goes through src's driver (ioloop.Driver.WakeOther:
// between two rings, no system call of its own; src's next Poll submits
// it).
func (s *Shard) deliverBy(src *Shard, msgs []message) {
	s.pushBy(src, &batch{msgs: msgs})
}

// pushBy pushes src's batch b onto the inbox and has src's driver wake
// the loop when it must.
func (s *Shard) pushBy(src *Shard, b *batch) {
	if s.inbox.push(b) {
		src.drv.WakeOther(s.drv)
	}
}

func (s *Shard) runLocal() {
	s.serveReady()
	for len(s.local) > 0 {
		// What handle sends to this shard meanwhile goes to the spare
		// slice; q is the spare once handled (no allocation per round).
		q := s.local
		s.local, s.localSpare = s.localSpare[:0], nil
		s.stats.touched = true
		for _, m := range q {
			s.handle(m)
		}
		clear(q)
		s.localSpare = q[:0]
		s.drainInbox()
		s.serveReady()
	}
}

func (s *Shard) flushOutbox() {
	s.gateOutbox()
	for dst, q := range s.outbox {
		if len(q) == 0 {
			continue
		}
		// The outbox's slice travels in the node; the node's empty
		// buffer takes the next turn's messages.
		b := s.takeBatch()
		b.msgs, s.outbox[dst] = q, b.msgs[:0]
		s.group.shards[dst].pushBy(s, b)
	}
}

// OnWake implements ioloop.Handler; the inbox is drained after Poll returns.
func (s *Shard) OnWake() {}

// newConn is a new connection's state as it opens: a client of its own,
// RESP2, the default user.
func (s *Shard) newConn(id ioloop.ConnID) *conn {
	s.stats.touched = true
	s.refreshConfig()
	g := s.group
	now := g.clock().UnixMilli()
	c := &conn{id: id}
	c.cl.ID = g.clientIDs.Add(1)
	c.cl.Proto = 2
	c.cl.CreatedMs = now
	c.cl.LastMs = now
	s.openACL(c)
	return c
}

// OnOpen implements ioloop.Handler.
func (s *Shard) OnOpen(id ioloop.ConnID) {
	g := s.group
	c := s.newConn(id)
	c.cl.Addr, c.cl.LAddr = s.drv.Addrs(id)
	if s.group.stopping.Load() {
		// Shutting down: a connection accepted now is closed unserved (a
		// command it ran here would have no turn to log its effects).
		s.drv.Close(id)
		return
	}
	s.stats.connections++
	if n := g.clients.Add(1); n > int64(s.conf.MaxClients) {
		// As Redis: a refused connection is told why and closed, and it
		// never counts as a client (not even until its close completes).
		g.clients.Add(-1)
		out := s.drv.Output(id)
		*out = append(*out, "-ERR max number of clients reached\r\n"...)
		s.stats.rejected++
		s.closeConn(c)
		return
	}
	if s.conf.ProtectedMode && g.DefaultNoPass() && !isLocal(c.cl.Addr) {
		// No password and a client from another host: as Redis, it is
		// told why and closed.
		g.clients.Add(-1)
		out := s.drv.Output(id)
		*out = append(append(append(*out, '-'), errtext.Denied...), "\r\n"...)
		s.closeConn(c)
		return
	}
	s.conns[id] = c
	s.opened(c)
}

// mayRun reports whether c may run a protected command (command.Spec's
// Protected: "debug" or "module"), as its enable-<cmd>-command says:
// "yes", or "local" to a loopback or Unix-socket client.
func (s *Shard) mayRun(c *conn, cmd string) bool {
	allow := s.conf.EnableDebugCommand
	if cmd == "module" {
		allow = s.conf.EnableModuleCommand
	}
	return allow == "yes" || allow == "local" && isLocal(c.cl.Addr)
}

// isLocal reports whether a client's address (ip:port, or a Unix socket's
// path and port 0: "@" for an abstract or unnamed one) is on this host's
// loopback interface or a Unix socket.
func isLocal(addr string) bool {
	if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, "@") {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// OnClose implements ioloop.Handler.
func (s *Shard) OnClose(id ioloop.ConnID, err error) {
	c, ok := s.conns[id]
	if !ok {
		s.flowEvent(id, true)
		return
	}
	s.gone(c)
}

// gone forgets c, closed: what it waited for, subscribed to, watched.
func (s *Shard) gone(c *conn) {
	delete(s.conns, c.id)
	s.stats.touched = true
	c.dead = true
	if c.blocked != nil {
		s.withdraw(c, c.blocked)
	}
	if c.subscribed() {
		s.dropSubscriptions(c)
	}
	s.setMonitor(c, false)
	s.unwatchAll(c)
	if c.repl != nil {
		s.group.replicaGone(c.repl)
	}
	s.closed(c)
	s.group.clients.Add(-1)
}

// OnData implements ioloop.Handler.
func (s *Shard) OnData(id ioloop.ConnID) {
	c, ok := s.conns[id]
	if !ok {
		s.flowEvent(id, false)
		return
	}
	if s.busy.serving {
		s.serveBusy(c)
		return
	}
	s.eventTime()
	// As Redis's lastinteraction: a client is idle since the last bytes
	// read from it, a partial command's too (timeout, CLIENT LIST idle).
	c.cl.LastMs = s.now
	s.refreshConfig()
	s.mon.on = s.group.monitors.Load() > 0
	s.pause = s.group.pauseWord.Load()
	if s.inbox.pending() {
		// What other shards sent before this client's bytes arrived comes
		// first: a keyspace event another shard published before it
		// replied to the write reaches a subscriber before the reply to
		// anything the subscriber sends after seeing that write's reply.
		s.drainInbox()
	}
	s.serve(c)
	s.serveReady()
}

// eventTime sets s.now for a connection's bytes. The group's clock is
// read for the first connection after a Poll; for the next ones of the
// same Poll only once the command clock, which times every command
// while the slow log or the latency monitor is on, says a millisecond
// has passed since that reading (nowStale): s.now is a millisecond time,
// so it is never more than one behind, and at -P 1 a connection's
// command no longer pays a wall-clock read of its own. With the command
// clock off, every connection reads the clock. It inlines.
func (s *Shard) eventTime() {
	// The mark stays 0 while the command clock is off.
	if k := &s.clock; k.mark == 0 || k.mark-k.nowAt >= k.stale {
		s.readNow()
	}
}

// readNow is eventTime's reading.
func (s *Shard) readNow() {
	k := &s.clock
	s.now = s.group.clock().UnixMilli()
	if k.on {
		if k.mark == 0 {
			k.mark = k.since() // the first command starts here
		}
		k.nowAt = k.mark
	}
}

// nowStale is how long after its reading s.now is read again.
const nowStale = int64(time.Millisecond)

// refreshConfig applies the Config's snapshot if it changed: the events
// of a Poll that slept through a CONFIG SET see it (maxclients at accept,
// the protocol limits at read). One atomic load when nothing changed.
func (s *Shard) refreshConfig() {
	if c := s.group.conf.Snapshot(); c != s.conf {
		s.applyConfig(c)
	}
}

func (s *Shard) closeConn(c *conn) {
	if c.closing {
		return
	}
	c.closing = true
	if c.pipe != nil {
		s.local = append(s.local, message{kind: msgPipe, data: pipeGone{c.pipe}})
		return
	}
	s.drv.Close(c.id)
}

package shard

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/ioloop"
	"github.com/radish-kv/radish/net/tlsio"
	"github.com/radish-kv/radish/persistence/aof"
	"github.com/radish-kv/radish/persistence/snapshot"
	"github.com/radish-kv/radish/script"
)

// Options are what the shards need to start and cannot change after;
// every other setting comes from the Config, and CONFIG SET changes it.
type Options struct {
	Shards int
	IO     string   // "auto", "uring" or "epoll"
	Addrs  []string // host:port to listen on; an address prefixed with '-' is optional
	// Unix, when set, is the path of a Unix-domain listener every shard
	// accepts on (one socket: each connection goes to one shard), with
	// UnixPerm as its file's permission bits (0: the umask's).
	Unix     string
	UnixPerm os.FileMode
	// TLSAddrs are host:port to listen on for TLS (as Addrs), TLSConfig
	// the configuration each new TLS connection's handshake takes (a
	// reload reaches new connections only; see net/tlsio).
	TLSAddrs  []string
	TLSConfig func() *tls.Config
	// TLSClient, when set, returns the configuration of a replica's links
	// to its primary (nil: plain TCP, tls-replication no); read at each
	// connect.
	TLSClient func() *tls.Config
	Databases int
	// Effects, when set, consumes every shard's effects (effects.go).
	Effects EffectSink
	// AOF, when set (appendonly yes), is loaded into the shards before
	// they start, then logs their effects (aof.go). The caller closes it
	// after Stop.
	AOF *aof.Set
}

// Config is the run-time configuration the shards read and CONFIG changes
// (config.Config). It is safe for concurrent use; a shard reads Snapshot
// once per loop turn and applies what changed.
type Config interface {
	Get(patterns []string) [][2]string
	Set(pairs [][2]string) error
	Rewrite() error
	Snapshot() *config.Snapshot
	File() string // the config file's absolute path, "" if none
}

// Group is every shard of the process. It implements command.Server.
type Group struct {
	opts   Options
	conf   Config
	log    *zap.Logger
	shards []*Shard
	// migrates are MIGRATE's connections kept (migratekeys.go).
	migrates migrateConns
	// listenFDs[i] are the listening sockets of shard i (one per address,
	// SO_REUSEPORT: the kernel spreads connections over the shards).
	listenFDs [][]int
	tlsFDs    [][]int       // the same for TLSAddrs
	unix      *unixListener // unixsocket's (unix.go), or nil
	ioKind    atomic.Value  // string: the driver in use

	// scripts holds the bodies of the scripts every shard knows.
	scripts script.Registry

	clientIDs atomic.Int64
	slowIDs   atomic.Int64 // the next slow log entry's id (slowlog.go)
	monitors  atomic.Int64 // MONITOR connections on every shard (monitor.go)
	pauseWord atomic.Int64 // CLIENT PAUSE's end (unix ms) << 1 | ALL (pause.go)
	// noActiveExpire: DEBUG SET-ACTIVE-EXPIRE 0 stopped active expiry.
	noActiveExpire atomic.Bool
	// clientShard maps each connected client's ID to its shard (int).
	clientShard sync.Map
	clients     atomic.Int64
	stopping    atomic.Bool
	started     time.Time
	runID       string // INFO's run_id: 40 random hex digits (as a replication ID), new at each start
	stopped     chan struct{}
	// clock is the time a shard's OnOpen, OnData and expiry slices see
	// (time.Now; a simulator's clock in tests). The loop passes Turn its
	// own now.
	clock func() time.Time

	// busy counts the shards running a script past busy-reply-threshold
	// (busy.go).
	busy atomic.Int32
	// replIn counts the bytes read from this server's primary (the
	// replication connection and the flows), replSent those its flows'
	// senders sent of full syncs: with what each shard handed to its
	// replicas' connections and flows (its replOut), INFO's
	// total_net_repl_input_bytes and total_net_repl_output_bytes.
	replIn, replSent atomic.Int64

	acl     aclState       // the users (acl.go)
	persist persist        // snapshots (snapshot.go)
	rates   rates          // INFO's instantaneous metrics and memory peak (info.go)
	latmon  latencyMonitor // LATENCY's events (latmon.go)
	repl    replState      // replication (repl.go)
	prim    primState      // as a primary (primary.go)
	chain   chainState     // sub-replicas, as a replica (chain.go)
	shut    shutState      // a shutdown in progress (shutdown.go)
	fo      foState        // a FAILOVER in progress (failover.go)
	fack    fackState      // as a replica: the offset its AOF fsynced (waitaof.go)
	// aof is the AOF in use (opts.AOF at start; CONFIG SET appendonly
	// changes it, aofrun.go), nil when appendonly is no.
	aof atomic.Pointer[aof.Set]
	// aofMu orders CONFIG SET appendonly's changes; aofDraining counts
	// the shards still to let go of an AOF turned off.
	aofMu       sync.Mutex
	aofDraining atomic.Int32
	src         *snapshot.Source // what the shards load at start, nil when nothing
}

// Start opens the listeners and starts one locked goroutine per shard.
func Start(opts Options, conf Config, log *zap.Logger) (*Group, error) {
	if opts.Shards < 1 {
		return nil, errors.New("shards must be at least 1")
	}
	g := &Group{opts: opts, conf: conf, log: log, started: time.Now(), runID: newReplID(), stopped: make(chan struct{}),
		clock: time.Now}
	g.listenFDs = make([][]int, opts.Shards)
	g.tlsFDs = make([][]int, opts.Shards)
	for i := range opts.Shards {
		var err error
		if g.listenFDs[i], err = g.listen(i, opts.Addrs); err == nil {
			g.tlsFDs[i], err = g.listen(i, opts.TLSAddrs)
		}
		if err == nil && len(g.listenFDs[i])+len(g.tlsFDs[i]) == 0 && opts.Unix == "" {
			err = errors.New("no address could be bound")
		}
		if err != nil {
			g.closeListeners()
			return nil, err
		}
	}
	if err := g.initACL(conf.Snapshot()); err != nil {
		g.closeListeners()
		return nil, err
	}
	g.shards = make([]*Shard, opts.Shards)
	for i := range g.shards {
		g.shards[i] = newShard(g, i)
	}
	g.persist.init(opts.Shards, g.started)
	g.aof.Store(opts.AOF)
	var src *snapshot.Source
	var err error
	if opts.AOF == nil {
		src, err = openSnapshot(conf.Snapshot())
	} else {
		// With appendonly yes the AOF is loaded instead, as in Redis.
		err = g.startAOF()
	}
	if err != nil {
		g.closeListeners()
		return nil, err
	}
	g.src = src
	// The shards start (and load) in parallel; none serves before every
	// one is ready.
	start := make(chan struct{})
	readies := make([]chan error, len(g.shards))
	for i, s := range g.shards {
		readies[i] = make(chan error, 1)
		go s.run(readies[i], start)
	}
	for _, r := range readies {
		if e := <-r; e != nil && err == nil {
			err = e
		}
	}
	if src != nil {
		src.Close()
		g.src = nil
	}
	// The Unix socket is there before any shard serves, as Redis opens
	// every listener before it serves: a client that got an answer on TCP
	// finds the socket file. Its connections wait in the shards' inboxes
	// until they start.
	if err == nil && opts.Unix != "" {
		g.unix, err = listenUnix(g, opts.Unix, opts.UnixPerm)
	}
	if err != nil {
		close(start)
		g.Stop()
		return nil, err
	}
	close(start)
	if src != nil {
		log.Info("DB loaded from disk", zap.Int64("keys", g.persist.loaded), zap.Int64("expired", g.persist.expired),
			zap.Duration("took", time.Since(g.started)))
	}
	log.Info("shards started", zap.Int("shards", opts.Shards), zap.String("io", g.IOKind()))
	g.initRepl()
	return g, nil
}

// listen binds every address for shard i (SO_REUSEPORT: each shard has
// its own socket on the same address).
func (g *Group) listen(i int, addrs []string) ([]int, error) {
	var fds []int
	for _, a := range addrs {
		optional := len(a) > 0 && a[0] == '-'
		if optional {
			a = a[1:]
		}
		err := error(nil)
		if i == 0 && !strings.HasSuffix(a, ":0") {
			err = ioloop.CheckFree(a)
		}
		fd := -1
		if err == nil {
			fd, err = ioloop.ListenTCP(a, true)
		}
		if err != nil {
			if optional {
				if i == 0 {
					g.log.Warn("skipping optional listen address", zap.String("addr", a), zap.Error(err))
				}
				continue
			}
			for _, fd := range fds {
				closeFD(fd)
			}
			return nil, fmt.Errorf("listen %s: %w", a, err)
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

func (g *Group) closeListeners() {
	for _, fds := range append(slices.Clip(g.listenFDs), g.tlsFDs...) {
		for _, fd := range fds {
			closeFD(fd)
		}
	}
}

// newDriver makes the network driver for the calling (locked) thread:
// io_uring when asked or when auto and it works, else epoll (the
// fallback is logged once); wrapped by net/tlsio when the shard has TLS
// listeners.
func (g *Group) newDriver(shard int) (ioloop.Driver, error) {
	d, err := g.rawDriver()
	if err != nil || len(g.tlsFDs[shard]) == 0 {
		return d, err
	}
	t := tlsio.New(d, tlsio.Options{Config: g.opts.TLSConfig,
		HandshakeTimeout: func() time.Duration {
			return time.Duration(g.conf.Snapshot().TLSHandshakeTimeout) * time.Second
		},
		MaxInput: func() int64 { return g.conf.Snapshot().ClientQueryBufferLimit }})
	for _, fd := range g.tlsFDs[shard] {
		if err := t.ListenTLS(fd); err != nil {
			d.Shutdown()
			return nil, err
		}
	}
	return t, nil
}

func (g *Group) rawDriver() (ioloop.Driver, error) {
	// The shard enforces client-query-buffer-limit, which may change at
	// run time; the driver's own limit must not cut below it. Keepalive
	// follows tcp-keepalive at each accept, as in Redis.
	opts := ioloop.Options{PoolBytes: 4 << 20, MaxInput: math.MaxInt, KeepAlive: g.keepAlive}
	switch g.opts.IO {
	case "epoll":
		g.ioKind.CompareAndSwap(nil, "epoll")
		return ioloop.NewEpoll(opts)
	case "uring":
		g.ioKind.CompareAndSwap(nil, "io_uring")
		return ioloop.NewUring(opts)
	}
	d, err := ioloop.NewUring(opts)
	if err == nil {
		g.ioKind.CompareAndSwap(nil, "io_uring")
		return d, nil
	}
	if g.ioKind.CompareAndSwap(nil, "epoll") {
		g.log.Warn("io_uring unavailable, falling back to epoll", zap.Error(err))
	}
	return ioloop.NewEpoll(opts)
}

// IOKind is the network driver in use: "io_uring" or "epoll".
func (g *Group) IOKind() string {
	k, _ := g.ioKind.Load().(string)
	return k
}

// Addrs are the addresses the first shard listens on (the real port when
// the configured one was 0).
func (g *Group) Addrs() []string {
	var out []string
	for _, fd := range g.listenFDs[0] {
		if a, err := localAddr(fd); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// TLSAddrs are the addresses the first shard listens on for TLS.
func (g *Group) TLSAddrs() []string {
	var out []string
	for _, fd := range g.tlsFDs[0] {
		if a, err := localAddr(fd); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// Stop stops every shard: they stop accepting, answer what they read,
// close their connections and return. Safe to call more than once.
func (g *Group) Stop() {
	g.stopRepl() // its last commands run while the shards still do
	if g.stopping.Swap(true) {
		<-g.stopped
		return
	}
	if g.unix != nil {
		g.unix.close() // accepts no more, before the shards stop
	}
	for _, s := range g.shards {
		if s != nil && s.drv != nil {
			s.drv.Wake()
		}
	}
	for _, s := range g.shards {
		if s != nil && s.drv != nil {
			<-s.done
		}
	}
	g.closeListeners()
	g.migrates.closeAll()
	close(g.stopped)
}

// Done is closed once the group has stopped.
func (g *Group) Done() <-chan struct{} { return g.stopped }

// ConfigGet implements command.Server.
func (g *Group) ConfigGet(patterns []string) [][2]string { return g.conf.Get(patterns) }

// ConfigSet implements command.Server.
func (g *Group) ConfigSet(pairs [][2]string) error {
	g.aofMu.Lock()
	defer g.aofMu.Unlock()
	before := g.conf.Snapshot().AppendOnly
	if err := g.conf.Set(pairs); err != nil {
		return err
	}
	g.aclConfigSet(pairs)
	if after := g.conf.Snapshot().AppendOnly; after != before {
		return g.switchAOF(after)
	}
	return nil
}

// ConfigRewrite implements command.Server.
func (g *Group) ConfigRewrite() error { return g.conf.Rewrite() }

func (g *Group) cfgHz() int { return g.conf.Snapshot().Hz }

// keepAlive is tcp-keepalive, asked by the drivers at each accept.
func (g *Group) keepAlive() time.Duration {
	return time.Duration(g.conf.Snapshot().TCPKeepalive) * time.Second
}

// Shutdown implements command.Server: the group stops after the current
// turns; the caller's reply may not be delivered, as in Redis.
func (g *Group) Shutdown() {
	go g.Stop()
}

func localAddr(fd int) (string, error) {
	sa, err := getsockname(fd)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(sa.ip, strconv.Itoa(sa.port)), nil
}

func errField(err error) zap.Field       { return zap.Error(err) }
func shardField(id int) zap.Field        { return zap.Int("shard", id) }
func intField(k string, v int) zap.Field { return zap.Int(k, v) }

// Command radish-server runs Radish: a Redis-compatible in-memory data
// store with one shard per CPU.
//
// Usage is redis-server's: radish-server [/path/to/radish.conf] [--name value ...]
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/metrics"
	"github.com/radish-kv/radish/persistence/aof"
	"github.com/radish-kv/radish/shard"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string) error {
	conf, err := config.Load(args)
	switch {
	case errors.Is(err, config.ErrHelp):
		config.Usage(os.Stdout)
		return nil
	case errors.Is(err, config.ErrVersion):
		fmt.Println(config.VersionLine())
		return nil
	case err != nil:
		// Redis's text names the line, not the file: name an included one.
		if fe := (*config.FileError)(nil); errors.As(err, &fe) && fe.File != "" {
			return fmt.Errorf("\n%w\n(in %s)", err, fe.File)
		}
		return fmt.Errorf("\n%w", err)
	}
	snap := conf.Snapshot()
	level := zap.NewAtomicLevelAt(zapLevel(snap.LogLevel))
	log, err := newLogger(snap.LogFile, snap.LogFormat, level)
	if err != nil {
		return err
	}
	conf.OnChange("loglevel", func(_, s *config.Snapshot) { level.SetLevel(zapLevel(s.LogLevel)) })
	defer log.Sync()
	if ign := conf.Ignored(); len(ign) > 0 {
		log.Info("ignored the config directives of Redis that do not apply to radish", zap.Strings("directives", ign))
	}
	if err := fitMaxClients(conf, log); err != nil {
		return err
	}
	snap = conf.Snapshot()
	if lim := conf.CgroupMemoryLimit(); lim > 0 && snap.MemoryBudget() == 0 {
		log.Warn("a cgroup memory limit is set but maxmemory is 0: the kernel will kill the process "+
			"before any maxmemory policy applies; set maxmemory or maxmemory auto", zap.Int64("cgroup_limit", lim))
	}
	if err := os.Chdir(snap.Dir); err != nil {
		return fmt.Errorf("can't chdir to '%s': %w", snap.Dir, err)
	}
	// Every shard's thread is locked and spends its idle time blocked in
	// io_uring_enter; the rest of the runtime (GC workers, signal handling,
	// sysmon's hand-offs) needs a P of its own, or it steals the shards'.
	if n := snap.Shards + 1; runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
	var set *aof.Set
	if snap.AppendOnly {
		set, err = aof.Open(aof.Options{Dir: filepath.Join(snap.Dir, snap.AppendDirName), Name: snap.AppendFilename,
			Shards: snap.Shards, Fsync: snap.AppendFsync, LoadTruncated: snap.AOFLoadTruncated, Log: log})
		if err != nil {
			return err
		}
	}
	// Signals are caught from before the shards serve (and load): a
	// SIGTERM as soon as a client was answered is a clean shutdown.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	tlsConf, tlsClient, err := setupTLS(conf, log)
	if err != nil {
		return err
	}
	opts := shard.Options{
		Shards:    snap.Shards,
		IO:        snap.IO,
		Unix:      snap.UnixSocket,
		UnixPerm:  os.FileMode(snap.UnixSocketPerm),
		Databases: snap.Databases,
		AOF:       set,
		TLSConfig: tlsConf,
		TLSClient: tlsClient,
	}
	// As Redis: port 0 is no plain TCP listener, tls-port 0 no TLS one.
	if snap.Port != 0 {
		opts.Addrs = listenAddrs(snap, snap.Port)
	}
	if snap.TLSPort != 0 {
		opts.TLSAddrs = listenAddrs(snap, snap.TLSPort)
	}
	if opts.Addrs == nil && opts.TLSAddrs == nil && opts.Unix == "" {
		return errors.New("configured to not listen anywhere, exiting")
	}
	g, err := shard.Start(opts, conf, log)
	if err != nil {
		return err
	}
	if snap.MetricsPort != 0 {
		ms, err := metrics.Serve(listenAddrs(snap, snap.MetricsPort), metrics.Registry(g, metrics.Info{Version: config.Version, IO: g.IOKind()}))
		if err != nil {
			g.Stop()
			return fmt.Errorf("metrics-port %d: %w", snap.MetricsPort, err)
		}
		defer ms.Close()
		log.Info("serving metrics", zap.Strings("addrs", ms.Addrs()))
	}
	// After the shards: their last turns are on disk before the exit (the
	// AOF in use then: CONFIG SET appendonly may have changed it).
	defer func() {
		if err := g.CloseAOF(); err != nil {
			log.Error("closing the append only file", zap.Error(err))
		}
	}()
	if snap.PidFile != "" {
		writePidFile(snap.PidFile, log)
		defer removePidFile(snap.PidFile, log)
	}
	log.Info("ready to accept connections", zap.Strings("addrs", g.Addrs()), zap.Strings("tls_addrs", g.TLSAddrs()),
		zap.Int("pid", os.Getpid()))
	for stopped := false; !stopped; {
		select {
		case s := <-sig:
			log.Info("received signal, shutting down", zap.String("signal", s.String()))
			// A second SIGINT while the first waits: exit now, as Redis.
			if s == syscall.SIGINT && g.ShuttingDown() {
				log.Warn("You insist... exiting now.")
				os.Exit(1)
			}
			// As SHUTDOWN with shutdown-on-sigterm's (or -sigint's) flags:
			// by default the data is saved first when save points are set,
			// after the replicas caught up; if the save fails the server
			// runs on, as Redis does.
			flags := conf.Snapshot().ShutdownOnSigterm
			if s == syscall.SIGINT {
				flags = conf.Snapshot().ShutdownOnSigint
			}
			g.ShutdownBySignal(flags)
			continue
		case <-g.Done():
		}
		stopped = true
	}
	log.Info("radish is now ready to exit, bye bye...")
	return nil
}

// listenAddrs is every bind address with port, "-" marking the optional
// ones ("-::1").
func listenAddrs(snap *config.Snapshot, port int) []string {
	var addrs []string
	for _, b := range snap.BindAddrs() {
		a := net.JoinHostPort(b.Addr, strconv.Itoa(port))
		if b.Optional {
			a = "-" + a
		}
		addrs = append(addrs, a)
	}
	return addrs
}

// fitMaxClients lowers maxclients to what the open-files limit allows,
// with Redis's warnings, when the limit cannot be raised far enough.
func fitMaxClients(conf *config.Config, log *zap.Logger) error {
	s := conf.Snapshot()
	n := config.MaxClientsAllowed(s)
	if n >= s.MaxClients {
		return nil
	}
	if n < 1 {
		return fmt.Errorf("your open file limit is not enough for the server to start: raise 'ulimit -n' by %d", 1-n)
	}
	log.Warn("maxclients has been reduced to what the open file limit allows; if you need more, increase 'ulimit -n'",
		zap.Int("requested", s.MaxClients), zap.Int("maxclients", n))
	return conf.Set([][2]string{{"maxclients", strconv.Itoa(n)}})
}

// writePidFile writes the process id to path, best effort as Redis does:
// a failure is logged and the server runs on. A relative path is relative
// to dir (the server has changed to it).
func writePidFile(path string, log *zap.Logger) {
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		log.Warn("failed to write PID file", zap.String("pidfile", path), zap.Error(err))
	}
}

// removePidFile removes the pid file at shutdown, as Redis does.
func removePidFile(path string, log *zap.Logger) {
	log.Info("removing the pid file", zap.String("pidfile", path))
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("failed to remove PID file", zap.String("pidfile", path), zap.Error(err))
	}
}

// newLogger builds a zap logger at level, writing to logfile, or to stderr
// when logfile is empty: one JSON object per line, or text lines when
// format is not "json" (log-format).
func newLogger(logfile, format string, level zap.AtomicLevel) (*zap.Logger, error) {
	cfg := zap.NewProductionConfig()
	cfg.Level = level
	cfg.Sampling = nil
	if format != "json" {
		cfg.Encoding = "console"
		cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	}
	if logfile != "" {
		cfg.OutputPaths = []string{logfile}
		cfg.ErrorOutputPaths = []string{logfile}
	}
	return cfg.Build()
}

// zapLevel maps Redis's log level names to zap's.
func zapLevel(level string) zapcore.Level {
	switch level {
	case "debug", "verbose":
		return zapcore.DebugLevel
	case "warning":
		return zapcore.WarnLevel
	}
	return zapcore.InfoLevel
}

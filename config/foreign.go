package config

import "strings"

// foreignDirective is a directive of Redis 7.0 or Valkey 8 that radish
// does not implement. A config file may name it, so that a stock
// redis.conf or valkey.conf starts radish; Load accepts and ignores it and
// lists it (Config.Ignored) for the server to log once. CONFIG GET and
// CONFIG SET do not know it, as for any unknown name.
type foreignDirective struct {
	// inert reports whether the value changes nothing in Redis either
	// (cluster-enabled no); nil: no value matters to radish. A value that
	// is not inert is refused with why: ignoring it would leave the user
	// believing in a feature radish lacks (replication, TLS, ACL users).
	inert func(args []string) bool
	why   string
}

// only is an inert test passing just the value v (any case; "" also
// matches no value at all).
func only(v string) func([]string) bool {
	return func(args []string) bool {
		if len(args) == 0 {
			return v == ""
		}
		return strings.EqualFold(strings.Join(args, " "), v)
	}
}

func never([]string) bool { return false }

// foreign is every directive of Redis 7.0.15 (CONFIG GET * and the
// special directives of its loadServerConfig) and of Valkey 8.0 and 8.1
// (its config table and valkey.conf) that is not a radish parameter.
var foreign = func() map[string]foreignDirective {
	m := make(map[string]foreignDirective)
	for _, n := range strings.Fields(`
		active-defrag-cycle-max active-defrag-cycle-min
		active-defrag-cycle-us active-defrag-ignore-bytes active-defrag-max-scan-fields
		active-defrag-threshold-lower active-defrag-threshold-upper activedefrag activerehashing
		always-show-logo aof-disable-auto-gc aof-rewrite-incremental-fsync
		aof-use-rdb-preamble aof-rewrite-cpulist aof_rewrite_cpulist
		availability-zone bgsave-cpulist bgsave_cpulist
		bind-source-addr bio-cpulist bio_cpulist client-default-resp
		cluster-allow-pubsubshard-when-down cluster-allow-reads-when-down
		cluster-allow-replica-migration cluster-announce-bus-port cluster-announce-client-ipv4
		cluster-announce-client-ipv6 cluster-announce-hostname cluster-announce-human-nodename
		cluster-announce-ip cluster-announce-port cluster-announce-tls-port cluster-blacklist-ttl
		cluster-config-file cluster-databases cluster-link-sendbuf-limit cluster-migration-barrier
		cluster-node-timeout cluster-ping-interval cluster-port cluster-preferred-endpoint-type
		cluster-replica-no-failover cluster-replica-validity-factor cluster-require-full-coverage
		cluster-slave-no-failover cluster-slave-validity-factor cluster-slot-stats-enabled
		commandlog-execution-slower-than commandlog-large-reply-max-len
		commandlog-large-request-max-len commandlog-reply-larger-than
		commandlog-request-larger-than commandlog-slow-execution-max-len crash-log-enabled crash-memcheck-enabled debug-assert-enabled disable-thp
		dual-channel-replication-enabled dynamic-hz enable-debug-assert
		enable-protected-configs events-per-io-thread
		extended-redis-compatibility hide-user-data-from-log ignore-warnings
		import-mode io-threads io-threads-do-reads jemalloc-bg-thread key-load-delay
		lazyfree-lazy-eviction lazyfree-lazy-expire lazyfree-lazy-server-del
		lazyfree-lazy-user-del lazyfree-lazy-user-flush
		list-max-ziplist-entries list-max-ziplist-value
		loading-process-events-interval-bytes locale-collate log-timestamp-format
		lua-replicate-commands
		max-new-connections-per-cycle max-new-tls-connections-per-cycle 
		maxmemory-eviction-tenacity  
		  no-appendfsync-on-rewrite oom-score-adj
		oom-score-adj-values prefetch-batch-max-size  
		proc-title-template propagation-error-behavior rdb-del-sync-files
		rdb-key-save-delay rdb-save-incremental-fsync rdb-version-check
		rdma-bind rdma-completion-vector rdma-rx-size 
		 repl-disable-tcp-nodelay repl-diskless-load repl-diskless-sync
		repl-diskless-sync-delay repl-diskless-sync-max-replicas 
		   
		 replica-ignore-disk-write-errors replica-ignore-maxmemory
		replica-lazy-flush   
		req-res-logfile sanitize-dump-payload server-cpulist server_cpulist
		set-max-listpack-entries set-max-listpack-value set-proc-title
		slave-ignore-maxmemory slave-lazy-flush socket-mark-id
		syslog-facility syslog-ident tcp-backlog tcp-keepalive-probes
		tls-cluster tls-dh-params-file unixsocketgroup
		use-exit-on-panic watchdog-period`) {
		m[n] = foreignDirective{}
	}
	for n, d := range map[string]foreignDirective{
		"cluster-enabled": {only("no"), "cluster mode is not supported: radish shards the keyspace itself (set cluster-enabled no)"},
		"rdma-port":       {only("0"), "RDMA is not supported: radish listens on plain TCP only (set rdma-port 0)"},
		"supervised":      {only("no"), "supervised upstart/systemd is not supported yet: radish sends no readiness signal (set supervised no)"},
		"syslog-enabled":  {only("no"), "syslog is not supported: radish logs to logfile or stderr (set syslog-enabled no)"},
		"loadmodule":      {never, "modules are not supported (remove loadmodule)"},
		"rename-command":  {never, "rename-command is not supported: radish cannot rename or hide a command (remove rename-command)"},
		"sentinel":        {never, "sentinel mode is not supported"},
	} {
		m[n] = d
	}
	for n := range m {
		if byName[n] != nil {
			panic("config: " + n + " is both a parameter and foreign")
		}
	}
	return m
}()

// Package config is the server's configuration in Redis's terms: the
// parameters, their defaults and validation, the redis.conf file syntax,
// redis-server's command line, and CONFIG GET / CONFIG SET / CONFIG
// REWRITE (rewrite.go: the file rewritten as Redis's rewriteConfig).
//
// Nouns:
//   - parameter: one row of the table in params.go (name, aliases, Kind,
//     default, Mode, range or enum, the Snapshot field it fills). Adding a
//     parameter is a Snapshot field plus a row; parsing, CONFIG GET/SET,
//     defaults and --help follow from the row.
//   - Snapshot: every parameter's value as a typed field. Immutable once
//     published.
//   - Config: the current *Snapshot behind an atomic pointer, plus the
//     OnChange hooks. Readers (shards, every loop turn) call Snapshot():
//     one atomic load, no lock. Set builds a new Snapshot from a copy and
//     swaps it in (copy-on-write), all pairs or none.
//   - cgroup limits: the CPU quota (the default shards) and the memory
//     limit (maxmemory auto) of the cgroups holding this process, read from
//     /proc/self/cgroup and /sys/fs/cgroup (v2, or v1 controllers). The
//     memory limit is read once, by Load, and kept in every Snapshot.
//   - config text: redis.conf lines, split as Redis's sdssplitargs does;
//     command-line options become lines after the file, as in redis-server.
//   - refused value: one radish cannot honour yet (daemonize yes).
//     CONFIG SET fails at once; Load
//     checks the final value once every line is read and names the line that
//     set it, so an option after a packaged file can turn it off.
//   - open-files limit: maxclients needs a descriptor per client besides
//     the reserved ones (MaxClientsAllowed raises the limit where it may);
//     CONFIG SET refuses a maxclients it cannot hold, as Redis does.
//   - foreign directive: one of Redis 7.0's or Valkey 8's that is not a
//     parameter here (foreign.go). A file may name it, so a stock redis.conf
//     starts radish; Load ignores it and lists it (Config.Ignored), unless
//     its value promises a missing feature (replicaof ...),
//     which is refused.
//   - user lines: Redis's special directive, one per ACL user (its name,
//     then its rules), kept in order in Snapshot.Users for package acl;
//     not a parameter CONFIG GET knows. CONFIG GET/SET do not know it. Any other name is
//     "Bad directive", as in Redis.
//
// What it never does: it never exits, prints, logs, chdirs, binds, opens
// the log or pid file, or daemonizes; of the process it changes only the
// open-files limit (MaxClientsAllowed). Load returns errors (a *FileError
// carries Redis's FATAL CONFIG FILE ERROR text); the server prints them and
// exits. The dir parameter is only resolved to an absolute path and checked
// to exist; the server chdirs to it at start. A value is never silently
// ignored: it takes effect (the server's job) or is refused here.
//
// What must stay true:
//   - A published Snapshot is never written: Set clones (slices too) first.
//   - Error texts are Redis 7.0.15's, byte for byte, so clients and tests
//     written against Redis see the same replies. Where radish refuses what
//     Redis accepts (daemonize yes; port, bind and appendonly
//     at run time; more than MaxShards shards, what a SCAN cursor can
//     name), the text says so in Redis's shape.
//   - Hooks run after the new Snapshot is visible, under Set's lock;
//     verifiers (Verify: what only the server can check, a certificate
//     loads) run before it, after every value parsed, and a refusal
//     changes nothing.
//   - Snapshot methods (MemoryBudget, BindAddrs) read no file and take no
//     lock: shards call them every loop turn.
package config

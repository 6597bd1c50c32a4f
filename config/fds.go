package config

import "syscall"

// reservedFDs is what the process keeps open besides its clients'
// sockets: Redis's 32 (CONFIG_MIN_RESERVED_FDS), plus for each shard its
// ring (or epoll set), its wake-up eventfd and one listener per address.
func reservedFDs(s *Snapshot) int { return 32 + s.Shards*(2+len(s.Bind)) }

// MaxClientsAllowed is how many clients the open-files limit leaves room
// for, after raising that limit toward what s.MaxClients needs where the
// process may (as Redis's adjustOpenFilesLimit: the soft limit up to the
// hard one, or both, with CAP_SYS_RESOURCE). The server lowers maxclients
// to it at start, as Redis does; CONFIG SET refuses more.
func MaxClientsAllowed(s *Snapshot) int {
	want := uint64(s.MaxClients + reservedFDs(s))
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return s.MaxClients
	}
	if l.Cur < want {
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: want, Max: max(want, l.Max)}) == nil {
			l.Cur = want
		} else if l.Cur < l.Max && syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: l.Max, Max: l.Max}) == nil {
			l.Cur = l.Max
		}
	}
	return int(min(want, l.Cur)) - reservedFDs(s)
}

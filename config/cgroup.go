package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupLimit describes one resource limit as Linux cgroups publish it, in
// the unified (v2) hierarchy and in a v1 controller's own hierarchy. A
// limit is a positive number; 0 means none (or unreadable).
type cgroupLimit struct {
	v2File  string                  // file in each v2 cgroup directory (cpu.max)
	parseV2 func(text string) int64 // its content to a limit
	v1Ctrl  string                  // the v1 controller's name in /proc/self/cgroup
	v1Dirs  []string                // its mount directory names under /sys/fs/cgroup, tried in order
	readV1  func(dir string) (int64, bool)
}

// read is the limit that applies to this process under root (a filesystem
// root, "/" outside tests).
func (l *cgroupLimit) read(root string) int64 {
	self, _ := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	return l.from(root, string(self))
}

// from is the smallest limit found for the cgroups that self (the text of
// /proc/self/cgroup) names, reading files under root. Every level of a
// path, up to its hierarchy's root, is read: an ancestor's limit binds its
// descendants. Reading the root level also covers a container that sees its
// own cgroup mounted at /sys/fs/cgroup while /proc/self/cgroup names a
// longer host path (v1 without cgroup namespaces) or "/" (v2 namespaces).
func (l *cgroupLimit) from(root, self string) int64 {
	var best int64
	take := func(n int64) {
		if n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	for _, line := range strings.Split(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		ctrl, path := parts[1], parts[2]
		switch {
		case parts[0] == "0" && ctrl == "": // v2
			for _, p := range ancestors(path) {
				if b, err := os.ReadFile(filepath.Join(root, "sys/fs/cgroup", p, l.v2File)); err == nil {
					take(l.parseV2(string(b)))
				}
			}
		case hasController(ctrl, l.v1Ctrl):
			for _, p := range ancestors(path) {
				for _, dir := range l.v1Dirs {
					if n, ok := l.readV1(filepath.Join(root, "sys/fs/cgroup", dir, p)); ok {
						take(n)
						break
					}
				}
			}
		}
	}
	return best
}

// ancestors lists a cgroup path and each of its parents, ending with "/".
func ancestors(path string) []string {
	var out []string
	for p := filepath.Clean("/" + path); ; p = filepath.Dir(p) {
		out = append(out, p)
		if p == "/" {
			return out
		}
	}
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// v1MemoryUnlimited: a v1 memory.limit_in_bytes at or above this means no
// limit (the kernel shows "unlimited" as PAGE_COUNTER_MAX pages,
// 0x7ffffffffffff000 with 4 KiB pages, a little less than 2^63, and a
// different value with other page sizes).
const v1MemoryUnlimited = 1 << 62

// memoryLimit is the memory limit in bytes: v2 memory.max ("max" = none),
// v1 memory.limit_in_bytes (a huge value = none).
var memoryLimit = cgroupLimit{
	v2File:  "memory.max",
	parseV2: parseMemoryMax,
	v1Ctrl:  "memory",
	v1Dirs:  []string{"memory"},
	readV1: func(dir string) (int64, bool) {
		b, err := os.ReadFile(filepath.Join(dir, "memory.limit_in_bytes"))
		if err != nil {
			return 0, false
		}
		return parseMemoryMax(string(b)), true
	},
}

// parseMemoryMax parses cgroup v2 memory.max or v1 memory.limit_in_bytes
// into bytes; 0 means no limit ("max", -1, a huge value) or bad input.
func parseMemoryMax(text string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil || n <= 0 || n >= v1MemoryUnlimited {
		return 0
	}
	return n
}

// cgroupMemoryLimit is the memory limit in bytes that applies to this
// process under root ("/" outside tests): the smallest among its cgroup
// and their ancestors, v2 and v1; 0 if none.
func cgroupMemoryLimit(root string) int64 { return memoryLimit.read(root) }

// cgroupMemoryLimitFrom is cgroupMemoryLimit with /proc/self/cgroup's text
// given.
func cgroupMemoryLimitFrom(root, self string) int64 { return memoryLimit.from(root, self) }

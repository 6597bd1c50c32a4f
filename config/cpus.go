package config

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultShards is the number of CPUs this process may use: the
// sched_getaffinity mask count, capped by the cgroup CPU quota (v2 cpu.max
// or v1 cpu.cfs_quota_us / cpu.cfs_period_us, the smallest along this
// process's cgroup path), rounded up, at least 1.
func DefaultShards() int {
	n := affinityCPUs()
	if q := cgroupCPULimit("/"); q > 0 && q < n {
		n = q
	}
	return max(n, 1)
}

func affinityCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		return set.Count()
	}
	// Fallback: the mask the kernel prints for us.
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(line, "Cpus_allowed:"); ok {
			if n := countMask(m); n > 0 {
				return n
			}
		}
	}
	return 1
}

// countMask counts the CPUs in a hexadecimal affinity mask as Linux prints
// it (Cpus_allowed in /proc/self/status: "ff,ffffffff"); -1 if malformed.
func countMask(mask string) int {
	n := 0
	for _, c := range strings.TrimSpace(mask) {
		if c == ',' {
			continue
		}
		v, err := strconv.ParseUint(string(c), 16, 8)
		if err != nil {
			return -1
		}
		for ; v != 0; v &= v - 1 {
			n++
		}
	}
	return n
}

// parseCPUMax parses cgroup v2 cpu.max ("max 100000" or "150000 100000")
// into a CPU count, ceil(quota/period); 0 means no limit or unreadable.
func parseCPUMax(text string) int {
	f := strings.Fields(text)
	if len(f) == 0 || f[0] == "max" {
		return 0
	}
	period := "100000"
	if len(f) > 1 {
		period = f[1]
	}
	return quotaCPUs(f[0], period)
}

// quotaCPUs is ceil(quota/period) for cgroup text values; 0 for no limit
// (v1 writes -1) or bad input.
func quotaCPUs(quota, period string) int {
	q, err1 := strconv.ParseInt(strings.TrimSpace(quota), 10, 64)
	p, err2 := strconv.ParseInt(strings.TrimSpace(period), 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return int(math.Ceil(float64(q) / float64(p)))
}

// cgroupCPULimit reads the CPU quota that applies to this process under
// root (a filesystem root, "/" outside tests); 0 if none.
func cgroupCPULimit(root string) int { return int(cpuLimit.read(root)) }

// cgroupCPULimitFrom is cgroupCPULimit with /proc/self/cgroup's text given.
func cgroupCPULimitFrom(root, self string) int { return int(cpuLimit.from(root, self)) }

// cpuLimit is the CPU quota in CPUs, ceil(quota/period): v2 cpu.max, v1
// cpu.cfs_quota_us / cpu.cfs_period_us.
var cpuLimit = cgroupLimit{
	v2File:  "cpu.max",
	parseV2: func(text string) int64 { return int64(parseCPUMax(text)) },
	v1Ctrl:  "cpu",
	v1Dirs:  []string{"cpu", "cpu,cpuacct", "cpuacct,cpu"},
	readV1: func(dir string) (int64, bool) {
		q, err1 := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
		p, err2 := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
		if err1 != nil || err2 != nil {
			return 0, false
		}
		return int64(quotaCPUs(string(q), string(p))), true
	},
}

# Sourced by the benchmark scripts: a server's CPU time, precisely.
#
# cpu_ns PID: the CPU time of PID's threads in ns, their sums from
# /proc/PID/task/*/schedstat (the scheduler's own clock; /proc/PID/stat
# counts 10 ms ticks, 2-5% of a benchmark run here). A thread that ended
# during the run is not counted: take it around runs of a server whose
# threads live as long as it does.
# (%.0f: mawk's %d stops at 2^31.)
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}'; }

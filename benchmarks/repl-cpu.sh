#!/usr/bin/env bash
# What an attached replica costs, in CPU rather than wall time (which a
# shared machine makes noise of): a radish primary and a radish replica
# ($SHARDS shards each), redis-benchmark -t set -P 32 of $REQUESTS SETs
# against the primary with no replica, then with the replica attached
# and in sync; for each run the CPU microseconds per SET (utime+stime of
# /proc/<pid>/stat) and context switches per 1000 SETs (every thread's,
# /proc/<pid>/task/*/status) of the primary and the replica. With B set,
# the binaries A and B alternate round by round, to compare two builds.
#
#   bash benchmarks/repl-cpu.sh
#   A=/tmp/radish-old B=bin/radish-server ROUNDS=5 bash benchmarks/repl-cpu.sh
#
# Prints one line per round and binary: binary, round, primary µs/SET
# without a replica, with one, the replica's µs/SET, then the three
# switch counts.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SHARDS=${SHARDS:-2}
REQUESTS=${REQUESTS:-1000000}
A=${A:-bin/radish-server}
B=${B:-}
PPORT=${PPORT:-17411}
RPORT=${RPORT:-17412}

[ "$A" != bin/radish-server ] || go build -o bin/radish-server ./cmd/radish-server
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

. benchmarks/cpu.sh
cpu() { cpu_ns "$1"; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {n+=$2} END {print n}'; }

# start BIN PORT: starts radish on PORT, prints its pid.
start() {
  local dir="$tmp/$2"
  rm -rf "$dir" && mkdir -p "$dir"
  "$1" --port "$2" --shards "$SHARDS" --save "" --dir "$dir" --logfile "$dir/log" >/dev/null &
  local pid=$!
  for _ in $(seq 200); do redis-cli -p "$2" ping >/dev/null 2>&1 && { echo "$pid"; return; }; sleep 0.05; done
  echo "radish on $2 did not start" >&2; exit 1
}

# bench PIDS...: runs the SETs, prints each pid's µs/SET and switches/1000.
bench() {
  local c0=() s0=() pid i=0
  for pid in "$@"; do c0+=("$(cpu "$pid")"); s0+=("$(switches "$pid")"); done
  redis-benchmark -p "$PPORT" -t set -P 32 -c 50 -n "$REQUESTS" -r 1000000 -q >/dev/null
  for pid in "$@"; do
    awk -v a="${c0[$i]}" -v b="$(cpu "$pid")" -v c="${s0[$i]}" -v d="$(switches "$pid")" -v n="$REQUESTS" \
      'BEGIN { printf "%.2f %.1f\n", (b-a)/1e3/n, (d-c)*1000/n }'
    i=$((i + 1))
  done
}

for round in $(seq "$ROUNDS"); do
  for bin in $A $B; do
    p=$(start "$bin" "$PPORT")
    read -r none snone < <(bench "$p")
    r=$(start "$bin" "$RPORT")
    redis-cli -p "$RPORT" REPLICAOF 127.0.0.1 "$PPORT" >/dev/null
    until redis-cli -p "$RPORT" INFO replication | tr -d '\r' | grep -qx 'master_link_status:up'; do sleep 0.05; done
    { read -r with swith; read -r rep srep; } < <(bench "$p" "$r")
    echo "$bin $round $none $with $rep $snone $swith $srep"
    kill "$r" "$p"
    while kill -0 "$r" 2>/dev/null || kill -0 "$p" 2>/dev/null; do sleep 0.05; done # not this shell's children
  done
done

#!/usr/bin/env bash
# The per-request costs the scaling model (benchmarks/internal/model) takes:
# server CPU microseconds per request of radish-server with 1 shard and with
# 2 shards, random keys, GET and SET, -P 1 and -P 32, the two servers
# alternated round by round; medians.
#
#   bash benchmarks/costs.sh
#   ROUNDS=9 BIN=/tmp/radish-server-abc123 bash benchmarks/costs.sh
#
# With N shards a random key is on another shard than the connection's with
# probability (N-1)/N, so with 2 shards half the requests hop:
#   local(P) = cpu1(P)                  every request is local with 1 shard
#   hop(P)   = 2 * (cpu2(P) - cpu1(P))  what a hop adds to a request
# The last line prints them as radish-bench's --costs flag
# (test:pipeline:local:hop,...), which the scaling report and `radish-bench
# --predict` turn into predicted throughput for more shards.
#
# The 1-shard server runs on CPU $ONE_CPUS (0), the 2-shard one on $TWO_CPUS
# (0-1), redis-benchmark on $CLIENT_CPU (1). On a 2-core machine the client
# shares CPU 1 with the second shard; CPU time is counted per process
# (its threads' schedstat, benchmarks/cpu.sh), so the cost per request
# stays the server's own, but shared caches and a busy core make it noisier.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
N32=${N32:-2000000}
N1=${N1:-250000}
ONE_CPUS=${ONE_CPUS:-0}
TWO_CPUS=${TWO_CPUS:-0-1}
CLIENT_CPU=${CLIENT_CPU:-1}
KEYSPACE=${KEYSPACE:-1000000}
BIN=${BIN:-}

if [ -z "$BIN" ]; then
  go build -o bin/radish-server ./cmd/radish-server
  BIN=bin/radish-server
fi
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

port1=7391 port2=7392
taskset -c "$ONE_CPUS" "$BIN" --port $port1 --shards 1 --save '' --appendonly no --enable-debug-command yes --dir "$tmp" --logfile "$tmp/one.log" &
pid1=$!
taskset -c "$TWO_CPUS" "$BIN" --port $port2 --shards 2 --save '' --appendonly no --enable-debug-command yes --dir "$tmp" --logfile "$tmp/two.log" &
pid2=$!
for p in $port1 $port2; do
  for _ in $(seq 100); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.05; done
done
# Most of the keyspace exists before GET asks for it (3M SETs fill 95%).
for p in $port1 $port2; do
  taskset -c "$CLIENT_CPU" redis-benchmark -p $p -t set -n 3000000 -r "$KEYSPACE" -c 50 -P 32 -q >/dev/null
done

. benchmarks/cpu.sh

# run SHARDS PID PORT TEST PIPE N -> "shards test pipe rps us_per_req"
run() {
  local shards=$1 pid=$2 port=$3 test=$4 pipe=$5 n=$6 before after rps
  before=$(cpu_ns "$pid")
  rps=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$port" -t "$test" -n "$n" -r "$KEYSPACE" -c 50 -P "$pipe" --csv | tail -1 | cut -d, -f2 | tr -d '"')
  after=$(cpu_ns "$pid")
  awk -v s="$shards" -v t="$test" -v p="$pipe" -v r="$rps" -v d=$((after - before)) -v n="$n" \
    'BEGIN{printf "%s %s %s %.0f %.3f\n", s, t, p, r, d/1e3/n}'
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then order="1 2"; else order="2 1"; fi
  for pipe in 32 1; do
    n=$N32; (( pipe == 1 )) && n=$N1
    for s in $order; do
      for t in get set; do
        if (( s == 1 )); then line=$(run 1 $pid1 $port1 $t $pipe $n); else line=$(run 2 $pid2 $port2 $t $pipe $n); fi
        echo "$round $line" | tee -a "$results"
      done
    done
  done
done

med() { awk -v s="$1" -v t="$2" -v p="$3" -v c="$4" '$2==s && $3==t && $4==p {print $c}' "$results" |
  sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| test | pipeline | 1 shard krps | 2 shards krps | 1 shard µs CPU/req | 2 shards µs CPU/req | hop µs |"
echo "|---|---|---|---|---|---|---|"
costs=""
for t in get set; do
  for pipe in 1 32; do
    r1=$(med 1 $t $pipe 5); r2=$(med 2 $t $pipe 5); c1=$(med 1 $t $pipe 6); c2=$(med 2 $t $pipe 6)
    awk -v t=$t -v p=$pipe -v r1="$r1" -v r2="$r2" -v c1="$c1" -v c2="$c2" \
      'BEGIN{printf "| %s | %d | %.0f | %.0f | %.2f | %.2f | %.2f |\n", t, p, r1/1000, r2/1000, c1, c2, 2*(c2-c1)}'
    costs+=$(awk -v t=$t -v p=$pipe -v c1="$c1" -v c2="$c2" 'BEGIN{printf ",%s:%d:%.3f:%.3f", t, p, c1, 2*(c2-c1)}')
  done
done
echo
echo "binary: $BIN, commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!benchmarks' || echo '+changes'); machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, kernel $(uname -r)"
echo "rounds=$ROUNDS n32=$N32 n1=$N1 one=$ONE_CPUS two=$TWO_CPUS client=$CLIENT_CPU keyspace=$KEYSPACE"
echo "--costs ${costs#,}"

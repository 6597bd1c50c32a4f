#!/usr/bin/env bash
# Radish vs redis-server, one core each, same run, servers alternated.
#
#   bash benchmarks/core.sh            # 5 rounds, 2M requests per test
#   ROUNDS=3 N=500000 bash benchmarks/core.sh
#   TESTS="lpush lpop sadd spop hset zadd lrange_100" WORKLOADS=P32 bash benchmarks/core.sh
#   KEYSPACE=10000000 FILL=30000000 TESTS=get bash benchmarks/core.sh
#   SERVER_ARGS="--appendonly yes --appendfsync always" TESTS=set bash benchmarks/core.sh
#
# TESTS are redis-benchmark -t names, run in that order on each server (so
# sadd fills the set spop pops); WORKLOADS are among P32 (-P 32), P1 and
# C500 (-P 1 -c 500). KEYSPACE is redis-benchmark's -r (1M); FILL requests of
# SET -P 32 over that keyspace go to each server before the first round (0),
# so that GET finds what it asks for (30M fill 95% of 10M keys).
# Server on CPU $SERVER_CPU, redis-benchmark on CPU $CLIENT_CPU (taskset).
# Prints per-run lines and a Markdown table of medians: throughput, server
# CPU microseconds per request (its threads' schedstat, benchmarks/cpu.sh), p99 latency.
# SERVER_ARGS go to both servers, after the defaults (no snapshots, no AOF).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
N=${N:-2000000}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
RADISH_PORT=${RADISH_PORT:-7380}
REDIS_PORT=${REDIS_PORT:-7379}
IO=${IO:-uring}
TESTS=${TESTS:-set get}
WORKLOADS=${WORKLOADS:-P32 P1 C500}
KEYSPACE=${KEYSPACE:-1000000}
FILL=${FILL:-0}

command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null; }
go build -o bin/radish-server ./cmd/radish-server
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

taskset -c "$SERVER_CPU" redis-server --port "$REDIS_PORT" --save '' --appendonly no --dir "$tmp" ${SERVER_ARGS:-} >/dev/null &
redis_pid=$!
taskset -c "$SERVER_CPU" ./bin/radish-server --port "$RADISH_PORT" --shards 1 --io "$IO" --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/radish.log" ${SERVER_ARGS:-} &
radish_pid=$!
for p in "$REDIS_PORT" "$RADISH_PORT"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

. benchmarks/cpu.sh

# run NAME PID PORT TEST ARGS... -> prints "name test rps us_per_req p99"
run() {
  local name=$1 pid=$2 port=$3 test=$4; shift 4
  local before after out rps p99 cpu
  before=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$port" -t "$test" --csv -q "$@" | tail -1)
  after=$(cpu_ns "$pid")
  rps=$(echo "$out" | cut -d, -f2 | tr -d '"')
  p99=$(echo "$out" | cut -d, -f7 | tr -d '"')
  local total
  total=$(printf '%s ' "$@" | grep -o -- '-n [0-9]*' | awk '{print $2}')
  cpu=$(awk -v t=$((after - before)) -v n="$total" 'BEGIN{printf "%.3f", t/1e3/n}')
  echo "$name $test $rps $cpu $p99"
}

if (( FILL > 0 )); then
  for p in "$REDIS_PORT" "$RADISH_PORT"; do
    taskset -c "$CLIENT_CPU" redis-benchmark -p "$p" -t set -n "$FILL" -r "$KEYSPACE" -c 50 -P 32 -q >/dev/null
    echo "filled :$p, $(redis-cli -p "$p" dbsize) keys"
  done
fi

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  for cfg in "P32:-n $N -r $KEYSPACE -c 50 -P 32" "P1:-n $((N / 4)) -r $KEYSPACE -c 50 -P 1" "C500:-n $((N / 8)) -r $KEYSPACE -c 500 -P 1"; do
    label=${cfg%%:*}; args=${cfg#*:}
    [[ " $WORKLOADS " == *" $label "* ]] || continue
    # Alternate which server goes first, round by round.
    if (( round % 2 )); then order="redis radish"; else order="radish redis"; fi
    for srv in $order; do
      for t in $TESTS; do
        if [ "$srv" = redis ]; then line=$(run redis $redis_pid $REDIS_PORT $t $args); else line=$(run radish $radish_pid $RADISH_PORT $t $args); fi
        echo "$round $label $line" | tee -a "$results"
      done
    done
  done
done

echo
echo "| workload | test | redis krps | radish krps | ratio | redis µs CPU/req | radish µs CPU/req | redis p99 ms | radish p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for label in $WORKLOADS; do
  for t in $TESTS; do
    med() { grep " $label $1 $t " "$results" | awk -v c="$2" '{print $c}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
    rr=$(med redis 5); ar=$(med radish 5); rc=$(med redis 6); ac=$(med radish 6); rp=$(med redis 7); ap=$(med radish 7)
    awk -v l="$label" -v t="$t" -v rr="$rr" -v ar="$ar" -v rc="$rc" -v ac="$ac" -v rp="$rp" -v ap="$ap" \
      'BEGIN{printf "| %s | %s | %.0f | %.0f | %.2fx | %.2f | %.2f | %s | %s |\n", l, t, rr/1000, ar/1000, ar/rr, rc, ac, rp, ap}'
  done
done
echo
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, kernel $(uname -r); rounds=$ROUNDS n=$N io=$IO keyspace=$KEYSPACE fill=$FILL"

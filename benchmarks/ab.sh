#!/usr/bin/env bash
# Two radish-server binaries, same run, alternated round by round: did a
# change cost anything? Server CPU per request decides on this noisy
# machine; throughput is printed too.
#
#   A=/tmp/radish-old B=bin/radish-server bash benchmarks/ab.sh
#   ROUNDS=7 N=1000000 A=... B=... bash benchmarks/ab.sh
#   TESTS="set-P32 get-P32" ROUNDS=8 A=... B=... bash benchmarks/ab.sh
#
# A_ARGS and B_ARGS add flags to each side's server (A and B may be one
# binary: the cost of a setting, e.g. the AOF under everysec,
#   A=bin/radish-server B=bin/radish-server A_ARGS="--appendonly no" \
#     B_ARGS="--appendonly yes --appendfsync everysec" TESTS="set-P32 set-P1" \
#     bash benchmarks/ab.sh
# ); SCRAPE_B=PORT makes a
# Prometheus-like scraper fetch http://127.0.0.1:PORT/metrics every second
# while B runs (B_ARGS="--metrics-port PORT"): the cost of being scraped,
#   A=bin/radish-server B=bin/radish-server B_ARGS="--metrics-port 9390" \
#     SCRAPE_B=9390 TESTS="set-P32 get-P32 set-P1 get-P1" bash benchmarks/ab.sh
#
# Workloads (redis-benchmark, -c 50, keys from a 1M keyspace):
#   set/get P32, P1    one shard: the local path
#   mset10/mget10 P1   two shards: MSET/MGET of 10 random keys, so nearly
#                      every one spans both shards (a txn)
#   hopset/hopget P32  two shards: SET/GET, half the requests hop
# Server on CPU $SERVER_CPU, redis-benchmark on CPU $CLIENT_CPU (taskset).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to the first radish-server}" "${B:?B=path to the second radish-server}"
ROUNDS=${ROUNDS:-5}
N=${N:-1000000}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-7390}
IO=${IO:-uring}
TESTS=${TESTS:-set-P32 get-P32 set-P1 get-P1 mset10-P1 mget10-P1 hopget-P32}

command -v redis-benchmark >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-tools >/dev/null; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh

# start BIN SHARDS [ARGS...]: starts a server on $PORT in an empty
# directory (an AOF, when ARGS turn it on, from no earlier run), sets $pid.
start() {
  local bin=$1 shards=$2; shift 2
  rm -rf "$tmp/dir" && mkdir "$tmp/dir"
  # shellcheck disable=SC2068
  taskset -c "$SERVER_CPU" "$bin" --port "$PORT" --shards "$shards" --io "$IO" --save '' --enable-debug-command yes --dir "$tmp/dir" --logfile "$tmp/log" $@ &
  pid=$!
  for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $bin did not start" >&2; exit 1
}
scraper=
# scrape PORT: fetches the metrics every second in the background.
scrape() {
  (while true; do taskset -c "$CLIENT_CPU" curl -s -o /dev/null "http://127.0.0.1:$1/metrics"; sleep 1; done) &
  scraper=$!
}
stop() {
  kill "$pid"; wait "$pid" 2>/dev/null || true
  if [ -n "$scraper" ]; then kill "$scraper"; wait "$scraper" 2>/dev/null || true; scraper=; fi
}

keys10() { local s=""; for _ in $(seq 10); do s+=" k:__rand_int__"; done; echo "$s"; }
msetargs() { local s=""; for _ in $(seq 10); do s+=" k:__rand_int__ v"; done; echo "$s"; }

# bench NAME TEST N ARGS... -> "name test rps us_per_req"
bench() {
  local name=$1 test=$2 n=$3; shift 3
  local before after out rps
  before=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -c 50 -r 1000000 -n "$n" --csv -q "$@" | tail -1)
  after=$(cpu_ns "$pid")
  rps=$(echo "$out" | cut -d, -f2 | tr -d '"')
  awk -v nm="$name" -v t="$test" -v r="$rps" -v d=$((after - before)) -v n="$n" \
    'BEGIN{printf "%s %s %s %.3f\n", nm, t, r, d/1e3/n}'
}

want() { [[ " $TESTS " == *" $1 "* ]]; }

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then order="A B"; else order="B A"; fi
  for which in $order; do
    bin=$A args=${A_ARGS:-} scrapeport=
    [ "$which" = B ] && bin=$B args=${B_ARGS:-} scrapeport=${SCRAPE_B:-}
    # shellcheck disable=SC2086
    start "$bin" 1 $args
    [ -n "$scrapeport" ] && scrape "$scrapeport"
    want set-P32 && bench "$which" set-P32 "$N" -t set -P 32 | tee -a "$results"
    want get-P32 && bench "$which" get-P32 "$N" -t get -P 32 | tee -a "$results"
    want set-P1 && bench "$which" set-P1 $((N / 4)) -t set -P 1 | tee -a "$results"
    want get-P1 && bench "$which" get-P1 $((N / 4)) -t get -P 1 | tee -a "$results"
    stop
    want mset10-P1 || want mget10-P1 || want hopget-P32 || want hopset-P32 || continue
    # shellcheck disable=SC2086
    start "$bin" 2 $args
    [ -n "$scrapeport" ] && scrape "$scrapeport"
    # shellcheck disable=SC2046
    want mset10-P1 && bench "$which" mset10-P1 $((N / 8)) MSET $(msetargs) | tee -a "$results"
    # shellcheck disable=SC2046
    want mget10-P1 && bench "$which" mget10-P1 $((N / 8)) MGET $(keys10) | tee -a "$results"
    want hopset-P32 && bench "$which" hopset-P32 "$N" -t set -P 32 | tee -a "$results"
    want hopget-P32 && bench "$which" hopget-P32 "$N" -t get -P 32 | tee -a "$results"
    stop
  done
done

echo
echo "| test | A krps | B krps | A µs CPU/req | B µs CPU/req | B/A CPU |"
echo "|---|---|---|---|---|---|"
for t in $TESTS; do
  med() { grep "^$1 $t " "$results" | awk -v c="$2" '{print $c}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
  ar=$(med A 3); br=$(med B 3); ac=$(med A 4); bc=$(med B 4)
  awk -v t="$t" -v ar="$ar" -v br="$br" -v ac="$ac" -v bc="$bc" \
    'BEGIN{printf "| %s | %.0f | %.0f | %.3f | %.3f | %.2f |\n", t, ar/1000, br/1000, ac, bc, bc/ac}'
done
echo
echo "A=$A ${A_ARGS:-} B=$B ${B_ARGS:-}${SCRAPE_B:+ (scraped every second)}; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; rounds=$ROUNDS n=$N io=$IO"

#!/usr/bin/env bash
# PUBLISH to one channel with 1, 10 and 100 subscribers, -P 1 and -P 32,
# radish-server against redis-server, alternated round by round; medians
# of throughput and of server CPU per publish (its delivery to every
# subscriber included).
#
#   A=bin/radish-server bash benchmarks/pubsub.sh
#   A=bin/radish-server SHARDS=4 ROUNDS=3 SUBS="1 10" bash benchmarks/pubsub.sh
#
# The subscribers are redis-cli processes (SUBSCRIBE, output discarded),
# spread by the kernel over radish's shards like any client; on more than
# one shard most publishes therefore reach other shards (one batch per
# destination shard per loop turn) and wait for their counts.
#
# Server on CPU $SERVER_CPU (radish's shards all there unless it names
# more CPUs), redis-benchmark and the subscribers on $CLIENT_CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
N=${N:-1000000} # publishes of a -P 32 run; -P 1 runs do a fifth
SUBS=${SUBS:-"1 10 100"}
SHARDS=${SHARDS:-2}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17392}

command -v redis-benchmark >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-tools >/dev/null; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh

# start WHICH: starts radish or redis on $PORT, sets $pid.
start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = radish ]; then
    taskset -c "$SERVER_CPU" "$A" --port "$PORT" --shards "$SHARDS" --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/log" &
  else
    taskset -c "$SERVER_CPU" "$REDIS" --port "$PORT" --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  fi
  pid=$!
  for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.05; done
  echo "$1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# subscribe K: starts K subscribers of channel ch and waits for all of
# them; sets $subpids.
subscribe() {
  subpids=()
  for _ in $(seq "$1"); do
    taskset -c "$CLIENT_CPU" redis-cli -p "$PORT" subscribe ch >/dev/null &
    subpids+=($!)
  done
  for _ in $(seq 200); do
    [ "$(redis-cli -p "$PORT" pubsub numsub ch | tail -1)" = "$1" ] && return
    sleep 0.05
  done
  echo "the $1 subscribers did not all subscribe" >&2; exit 1
}
unsubscribe() { kill "${subpids[@]}"; wait "${subpids[@]}" 2>/dev/null || true; }

# bench WHICH SUBS TEST N ARGS... -> "which subs test rps us_per_publish"
bench() {
  local which=$1 subs=$2 test=$3 n=$4; shift 4
  local t0 t1 out rps
  t0=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -c 50 -n "$n" --csv -q "$@" PUBLISH ch hello | tail -1)
  t1=$(cpu_ns "$pid")
  rps=$(echo "$out" | cut -d, -f2 | tr -d '"')
  awk -v w="$which" -v s="$subs" -v t="$test" -v r="$rps" -v d=$((t1 - t0)) -v n="$n" \
    'BEGIN{printf "%s %s %s %s %.3f\n", w, s, t, r, d/1e3/n}'
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="radish redis"; (( round % 2 )) || order="redis radish"
  for which in $order; do
    for subs in $SUBS; do
      start "$which"
      subscribe "$subs"
      bench "$which" "$subs" P32 "$N" -P 32 | tee -a "$results"
      bench "$which" "$subs" P1 $((N / 5)) | tee -a "$results"
      unsubscribe
      stop
    done
  done
done

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| subscribers | pipeline | radish krps | redis krps | radish µs CPU/publish | redis µs CPU/publish |"
echo "|---|---|---|---|---|---|"
for subs in $SUBS; do
  for t in P1 P32; do
    sel() { awk -v w="$1" -v s="$subs" -v t="$t" -v c="$2" '$1==w && $2==s && $3==t {print $c}' "$results" | med; }
    awk -v s="$subs" -v t="$t" -v r1="$(sel radish 4)" -v r2="$(sel redis 4)" -v c1="$(sel radish 5)" -v c2="$(sel redis 5)" \
      'BEGIN{printf "| %s | %s | %.0f | %.0f | %.3f | %.3f |\n", s, t, r1/1000, r2/1000, c1, c2}'
  done
done

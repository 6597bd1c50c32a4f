#!/usr/bin/env bash
# MULTI/EXEC of 2 commands: INCR k; INCR k on one key (redis-server and
# radish-server on 1 shard), and INCR on two keys of two shards (radish on
# 2 shards: a txn over both). Throughput and server CPU per transaction,
# -P 1 and -P 32, rounds alternated between the servers; medians.
#
#   A=bin/radish-server bash benchmarks/multi.sh
#   A=bin/radish-server ROUNDS=3 DURATION=3s bash benchmarks/multi.sh
#
# Keys: {d} lives on shard 0 of 2, {a} on shard 1 (see hop.sh). On 2
# shards "one key" is {d}k: the connections shard 1 accepted run their
# EXEC on shard 0 alone, one message each way; "two shards" INCRs {d}k and
# {a}k, which takes coord's protocol on both shards every time.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-50}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17392}
IO=${IO:-uring}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh
go build -o "$tmp/multi-bench" ./benchmarks/cmd/multi-bench

# start NAME SHARDS: starts a server on $PORT, sets $pid.
start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = redis ]; then
    taskset -c "$SERVER_CPU" "$REDIS" --port "$PORT" --save "" --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  else
    taskset -c "$SERVER_CPU" "$A" --port "$PORT" --shards "$2" --io "$IO" --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/log" &
  fi
  pid=$!
  for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# bench NAME SHARDS TEST PIPELINE KEYS -> "name shards test P tps us_per_txn"
bench() {
  local t0 t1 out
  t0=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" "$tmp/multi-bench" -addr "127.0.0.1:$PORT" -conns "$CONNS" -pipeline "$4" \
    -keys "$5" -duration "$DURATION")
  t1=$(cpu_ns "$pid")
  echo "$out" | awk -v b="$1" -v s="$2" -v t="$3" -v p="$4" -v d=$((t1 - t0)) \
    '{printf "%s %s %s %s %s %.3f\n", b, s, t, p, $1, d/1e3/$2}'
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="redis radish"; (( round % 2 )) || order="radish redis"
  for which in $order; do
    if [ "$which" = redis ]; then
      start redis 1
      for p in 1 32; do bench redis 1 one-key "$p" "{d}k {d}k" | tee -a "$results"; done
      stop
      continue
    fi
    start radish 1
    for p in 1 32; do bench radish 1 one-key "$p" "{d}k {d}k" | tee -a "$results"; done
    stop
    start radish 2
    for p in 1 32; do
      bench radish 2 one-key "$p" "{d}k {d}k" | tee -a "$results"
      bench radish 2 two-shards "$p" "{d}k {a}k" | tee -a "$results"
    done
    stop
  done
done

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| server | shards | keys | -P | k txn/s | server µs CPU/txn |"
echo "|---|---|---|---|---|---|"
for row in "redis 1 one-key" "radish 1 one-key" "radish 2 one-key" "radish 2 two-shards"; do
  read -r b s t <<<"$row"
  for p in 1 32; do
    sel() { awk -v b="$b" -v s="$s" -v t="$t" -v p="$p" -v c="$1" '$1==b && $2==s && $3==t && $4==p {print $c}' "$results"; }
    awk -v b="$b" -v s="$s" -v t="$t" -v p="$p" -v r="$(sel 5 | med)" -v c="$(sel 6 | med)" \
      'BEGIN{printf "| %s | %s | %s | %s | %.0f | %.3f |\n", b, s, t, p, r/1000, c}'
  done
done
echo
echo "A=$A; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS duration=$DURATION conns=$CONNS io=$IO"

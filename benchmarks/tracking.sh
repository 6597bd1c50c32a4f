#!/usr/bin/env bash
# GET with client tracking off and on (CLIENT TRACKING ON on every
# connection, so that every read is remembered), radish-server against
# redis-server, -P 1 and -P 32, rounds alternated between the servers;
# medians of throughput and of server CPU per GET.
#
#   A=bin/radish-server bash benchmarks/tracking.sh
#   A=bin/radish-server SHARDS=4 ROUNDS=3 DURATION=3s bash benchmarks/tracking.sh
#
# The keys exist (DEBUG POPULATE); no write runs during the load, so the
# cost measured is the read path's: remembering the key for the reader
# (on the shard that owns it, after a hop when that is not the
# connection's shard), against none.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-50}
KEYS=${KEYS:-100000}
SHARDS=${SHARDS:-1}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17392}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh
go build -o "$tmp/track-bench" ./benchmarks/cmd/track-bench

# start NAME: starts a server on $PORT with $KEYS keys, sets $pid.
start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = redis ]; then
    taskset -c "$SERVER_CPU" "$REDIS" --port "$PORT" --save "" --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  else
    taskset -c "$SERVER_CPU" "$A" --port "$PORT" --shards "$SHARDS" --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/log" &
  fi
  pid=$!
  for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
  redis-cli -p "$PORT" debug populate "$KEYS" key >/dev/null
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# bench NAME TRACKING PIPELINE -> "name tracking P gets_per_s us_per_get"
bench() {
  local t0 t1 out
  t0=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" "$tmp/track-bench" -addr "127.0.0.1:$PORT" -conns "$CONNS" -pipeline "$3" \
    -keys "$KEYS" -tracking="$2" -duration "$DURATION")
  t1=$(cpu_ns "$pid")
  echo "$out" | awk -v b="$1" -v tr="$2" -v p="$3" -v d=$((t1 - t0)) \
    '{printf "%s %s %s %s %.3f\n", b, tr, p, $1, d/1e3/$2}'
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="redis radish"; (( round % 2 )) || order="radish redis"
  for which in $order; do
    start "$which"
    for p in 1 32; do
      for tr in false true; do bench "$which" "$tr" "$p" | tee -a "$results"; done
    done
    stop
  done
done

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| server | tracking | -P | k GET/s | server µs CPU/GET |"
echo "|---|---|---|---|---|"
for b in redis radish; do
  for tr in false true; do
    for p in 1 32; do
      sel() { awk -v b="$b" -v tr="$tr" -v p="$p" -v c="$1" '$1==b && $2==tr && $3==p {print $c}' "$results"; }
      awk -v b="$b" -v tr="$tr" -v p="$p" -v r="$(sel 4 | med)" -v c="$(sel 5 | med)" \
        'BEGIN{printf "| %s | %s | %s | %.0f | %.3f |\n", b, tr, p, r/1000, c}'
    done
  done
done
echo
echo "A=$A; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS duration=$DURATION conns=$CONNS" \
  "keys=$KEYS shards=$SHARDS"

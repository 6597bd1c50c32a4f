#!/usr/bin/env bash
# EVALSHA of a script doing one GET and one SET: on its declared key
# (redis-server; radish on 1 shard; radish on 2 shards, where the
# connections of shard 1 hop to shard 0), over two declared keys on two
# shards (a txn over both), and over undeclared keys built from ARGV (on
# one shard: a direct run; on two: every call holds every shard).
# Throughput and server CPU µs per call (redis-benchmark, -n calls), -P 1
# and -P 32, rounds alternated between the servers; medians.
#
#   A=bin/radish-server bash benchmarks/eval.sh
#   A=bin/radish-server ROUNDS=3 CALLS=100000 bash benchmarks/eval.sh
#
# Keys: {d} lives on shard 0 of 2, {a} on shard 1 (see hop.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-200000}
CONNS=${CONNS:-50}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17393}
IO=${IO:-uring}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh

# The scripts: one key declared, two keys declared, keys in ARGV.
ONE="local v = redis.call('get', KEYS[1]); redis.call('set', KEYS[1], ARGV[1]); return v"
TWO="local v = redis.call('get', KEYS[1]); redis.call('set', KEYS[2], ARGV[1]); return v"
UNDECLARED="local v = redis.call('get', ARGV[1]); redis.call('set', ARGV[2], ARGV[3]); return v"

# start NAME SHARDS: starts a server on $PORT, sets $pid, loads the scripts.
start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = redis ]; then
    taskset -c "$SERVER_CPU" "$REDIS" --port "$PORT" --save "" --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  else
    taskset -c "$SERVER_CPU" "$A" --port "$PORT" --shards "$2" --io "$IO" --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/log" &
  fi
  pid=$!
  for _ in $(seq 100); do
    if redis-cli -p "$PORT" ping >/dev/null 2>&1; then
      one=$(redis-cli -p "$PORT" script load "$ONE")
      two=$(redis-cli -p "$PORT" script load "$TWO")
      undeclared=$(redis-cli -p "$PORT" script load "$UNDECLARED")
      return
    fi
    sleep 0.05
  done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# bench NAME SHARDS TEST PIPELINE EVALSHA-ARGS... -> "name shards test P calls/s us_per_call"
bench() {
  local name=$1 shards=$2 test=$3 p=$4 t0 t1 rps
  shift 4
  t0=$(cpu_ns "$pid")
  rps=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -c "$CONNS" -P "$p" -n "$CALLS" -q evalsha "$@" |
    grep -o '[0-9.]* requests per second' | awk '{print $1}')
  t1=$(cpu_ns "$pid")
  awk -v b="$name" -v s="$shards" -v t="$test" -v p="$p" -v r="$rps" -v d=$((t1 - t0)) -v n="$CALLS" \
    'BEGIN{printf "%s %s %s %s %s %.3f\n", b, s, t, p, r, d/1e3/n}'
}

# all NAME SHARDS: every test on the server running now.
all() {
  for p in 1 32; do
    bench "$1" "$2" one-key "$p" "$one" 1 "{d}k" x | tee -a "$results"
    bench "$1" "$2" two-keys "$p" "$two" 2 "{d}k" "{a}k" x | tee -a "$results"
    bench "$1" "$2" undeclared-one "$p" "$undeclared" 0 "{d}k" "{d}k" x | tee -a "$results"
    bench "$1" "$2" undeclared-two "$p" "$undeclared" 0 "{d}k" "{a}k" x | tee -a "$results"
  done
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="redis radish"; (( round % 2 )) || order="radish redis"
  for which in $order; do
    if [ "$which" = redis ]; then
      start redis 1; all redis 1; stop
      continue
    fi
    start radish 1; all radish 1; stop
    start radish 2; all radish 2; stop
  done
done

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| server | shards | keys | -P | k calls/s | server µs CPU/call |"
echo "|---|---|---|---|---|---|"
for row in "redis 1" "radish 1" "radish 2"; do
  read -r b s <<<"$row"
  for t in one-key two-keys undeclared-one undeclared-two; do
    for p in 1 32; do
      sel() { awk -v b="$b" -v s="$s" -v t="$t" -v p="$p" -v c="$1" '$1==b && $2==s && $3==t && $4==p {print $c}' "$results"; }
      awk -v b="$b" -v s="$s" -v t="$t" -v p="$p" -v r="$(sel 5 | med)" -v c="$(sel 6 | med)" \
        'BEGIN{printf "| %s | %s | %s | %s | %.0f | %.3f |\n", b, s, t, p, r/1000, c}'
    done
  done
done
echo
echo "A=$A; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS calls=$CALLS conns=$CONNS io=$IO"
